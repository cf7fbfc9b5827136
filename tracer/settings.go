package tracer

import (
	"encoding/binary"
	"fmt"
	"math"
)

// SettingsSize is the length in bytes of Settings' binary encoding.
const SettingsSize = 4*8 + 4 + 8 + 4 + 8 + 4

// The binary encoding of Settings is the one form in which render
// settings leave a process: the worker protocol carries it (pb.Open), a
// worker keys its compiled scenes by it, and a checkpoint's header holds
// it. It is SettingsSize bytes, little-endian, the fields in declaration
// order: Width, Height, Samples and MaxDepth as int64 (so that any int
// round-trips), Integrator as uint32, Seed as uint64, NoiseThreshold as
// its float32 bits (uint32), MinSamples as int64, PointLightTree as
// uint32. A field added to
// Settings is added here too, at the end, and SettingsSize grows:
// TestSettingsEncodingCarriesEveryField fails until it is.

// AppendBinary implements encoding.BinaryAppender: it appends the binary
// encoding of s to b.
func (s Settings) AppendBinary(b []byte) ([]byte, error) {
	le := binary.LittleEndian
	for _, v := range [...]int{s.Width, s.Height, s.Samples, s.MaxDepth} {
		b = le.AppendUint64(b, uint64(int64(v)))
	}
	b = le.AppendUint32(b, uint32(s.Integrator))
	b = le.AppendUint64(b, s.Seed)
	b = le.AppendUint32(b, math.Float32bits(s.NoiseThreshold))
	b = le.AppendUint64(b, uint64(int64(s.MinSamples)))
	return le.AppendUint32(b, uint32(s.PointLightTree)), nil
}

// MarshalBinary implements encoding.BinaryMarshaler: the SettingsSize
// bytes of the binary encoding of s. It never fails.
func (s Settings) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(make([]byte, 0, SettingsSize))
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: it sets s from
// its binary encoding, refusing data of another length (a trace whose
// settings have other fields wrote it). It does not check the values
// against the limits (scenes.ValidateSettings does).
func (s *Settings) UnmarshalBinary(data []byte) error {
	if len(data) != SettingsSize {
		return fmt.Errorf("render settings of %d bytes; this trace's have %d: they were written by another version of trace", len(data), SettingsSize)
	}
	le := binary.LittleEndian
	i := func(k int) int { return int(int64(le.Uint64(data[8*k:]))) }
	*s = Settings{
		Width: i(0), Height: i(1), Samples: i(2), MaxDepth: i(3),
		Integrator:     Integrator(le.Uint32(data[32:])),
		Seed:           le.Uint64(data[36:]),
		NoiseThreshold: math.Float32frombits(le.Uint32(data[44:])),
		MinSamples:     int(int64(le.Uint64(data[48:]))),
		PointLightTree: PointLightTree(le.Uint32(data[56:])),
	}
	return nil
}
