package imageio

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math"

	"github.com/tracerender/trace/tracer"
)

// WriteEXR writes the framebuffer f's linear radiance, before exposure and
// tone mapping (as WritePFM), as a single-part scanline OpenEXR file: R, G
// and B channels of half floats, or of 32-bit floats when float is set;
// compressed with ZIP (zlib over blocks of 16 scanlines, OpenEXR's
// predictor and byte interleaving) when zip is set, else uncompressed.
// Half floats are rounded to nearest, ties to even; radiance above the
// largest half, 65504, is written as 65504 rather than infinity.
//
// The layout follows the OpenEXR file format (openexr.com,
// "OpenEXR File Layout"): the magic number and version 2, the header's
// required attributes, the table of chunk offsets, then the chunks, each
// its first scanline's y, its size and its data; inside a chunk, each
// scanline holds the channels in alphabetical order (B, G, R), each
// channel's pixels left to right, little-endian.
func WriteEXR(w io.Writer, f *tracer.Framebuffer, float, zip bool) error {
	bw := bufio.NewWriter(w)
	pixelType, size := uint32(exrHalf), 2
	if float {
		pixelType, size = exrFloat, 4
	}
	lines := 1
	compression := byte(exrNoCompression)
	if zip {
		lines, compression = exrZIPLines, exrZIPCompression
	}

	var h bytes.Buffer
	h.Write([]byte{0x76, 0x2f, 0x31, 0x01}) // magic
	h.Write([]byte{2, 0, 0, 0})             // version 2, single-part scanline
	var ch bytes.Buffer
	for _, name := range []string{"B", "G", "R"} {
		ch.WriteString(name)
		ch.WriteByte(0)
		le32(&ch, pixelType)
		ch.Write([]byte{0, 0, 0, 0}) // pLinear, reserved
		le32(&ch, 1)                 // x sampling
		le32(&ch, 1)                 // y sampling
	}
	ch.WriteByte(0)
	exrAttr(&h, "channels", "chlist", ch.Bytes())
	exrAttr(&h, "compression", "compression", []byte{compression})
	var box bytes.Buffer
	for _, v := range []int{0, 0, f.Width - 1, f.Height - 1} {
		le32(&box, uint32(int32(v)))
	}
	exrAttr(&h, "dataWindow", "box2i", box.Bytes())
	exrAttr(&h, "displayWindow", "box2i", box.Bytes())
	exrAttr(&h, "lineOrder", "lineOrder", []byte{0}) // increasing y
	exrAttr(&h, "pixelAspectRatio", "float", le32bytes(math.Float32bits(1)))
	exrAttr(&h, "screenWindowCenter", "v2f", append(le32bytes(0), le32bytes(0)...))
	exrAttr(&h, "screenWindowWidth", "float", le32bytes(math.Float32bits(1)))
	h.WriteByte(0) // end of the header

	// The chunks, then the offset table that points at them.
	chunks := (f.Height + lines - 1) / lines
	var data bytes.Buffer
	offsets := make([]uint64, chunks)
	base := uint64(h.Len() + 8*chunks)
	raw := make([]byte, 0, lines*3*f.Width*size)
	var z *zlib.Writer
	var zbuf, tmp bytes.Buffer
	for c := range chunks {
		y0 := c * lines
		y1 := min(y0+lines, f.Height)
		raw = raw[:0]
		for y := y0; y < y1; y++ {
			row := f.Pix[3*y*f.Width : 3*(y+1)*f.Width]
			for _, k := range []int{2, 1, 0} { // B, G, R
				for x := range f.Width {
					v := row[3*x+k]
					if float {
						raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
					} else {
						raw = binary.LittleEndian.AppendUint16(raw, halfBits(v))
					}
				}
			}
		}
		block := raw
		if zip {
			tmp.Reset()
			exrPredict(&tmp, raw)
			zbuf.Reset()
			if z == nil {
				z = zlib.NewWriter(&zbuf)
			} else {
				z.Reset(&zbuf)
			}
			z.Write(tmp.Bytes())
			if err := z.Close(); err != nil {
				return err
			}
			// A block that does not shrink is stored as it is: readers
			// tell the two apart by the size.
			if zbuf.Len() < len(raw) {
				block = zbuf.Bytes()
			}
		}
		offsets[c] = base + uint64(data.Len())
		le32(&data, uint32(int32(y0)))
		le32(&data, uint32(len(block)))
		data.Write(block)
	}
	bw.Write(h.Bytes())
	for _, o := range offsets {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], o)
		bw.Write(b[:])
	}
	bw.Write(data.Bytes())
	return bw.Flush()
}

// OpenEXR's pixel types and compressions.
const (
	exrHalf  = 1
	exrFloat = 2

	exrNoCompression  = 0
	exrZIPCompression = 3 // ZIP_COMPRESSION: 16 scanlines a block
	exrZIPLines       = 16
)

// exrAttr appends a header attribute: name, type, size, value.
func exrAttr(h *bytes.Buffer, name, typ string, value []byte) {
	h.WriteString(name)
	h.WriteByte(0)
	h.WriteString(typ)
	h.WriteByte(0)
	le32(h, uint32(len(value)))
	h.Write(value)
}

// exrPredict writes raw as OpenEXR's ZIP compressor prepares it for zlib:
// the even bytes, then the odd ones, then each byte replaced by its
// difference from the one before, plus 128.
func exrPredict(out *bytes.Buffer, raw []byte) {
	n := len(raw)
	if n == 0 {
		return
	}
	t := make([]byte, n)
	half := (n + 1) / 2
	for i := range n {
		if i%2 == 0 {
			t[i/2] = raw[i]
		} else {
			t[half+i/2] = raw[i]
		}
	}
	for i, p := 1, t[0]; i < n; i++ {
		d := t[i] - p + 128 // modulo 256
		p = t[i]
		t[i] = d
	}
	out.Write(t)
}

func le32(b *bytes.Buffer, v uint32) {
	b.Write(le32bytes(v))
}

func le32bytes(v uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, v)
}

// maxHalf is the largest finite half float.
const maxHalf = 65504

// halfBits converts v to the nearest IEEE 754 binary16 (ties to even),
// with values beyond the largest finite half clamped to ±65504 and NaN
// kept a NaN.
func halfBits(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff && mant != 0:
		return sign | 0x7e00 // NaN
	case exp == 0xff || math.Abs(float64(v)) >= 65520:
		// Infinity, or past the midpoint between 65504 and 65536, where
		// rounding would give infinity.
		return sign | 0x7bff
	}
	e := exp - 127 + 15
	if e >= 1 {
		// A normal half: 10 mantissa bits, rounded on the 13 dropped.
		h := uint32(e)<<10 | mant>>13
		rest := mant & 0x1fff
		if rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
			h++ // may carry into the exponent, which is right
		}
		return sign | uint16(h)
	}
	// A subnormal half (or zero): the value in units of 2^-24.
	if e < -10 {
		return sign // below half the smallest subnormal: rounds to zero
	}
	m := mant | 0x800000  // the implicit bit (exp > 0 here, as e ≥ −10)
	shift := uint(14 - e) // 13 + (1 − e)
	h := m >> shift
	rest := m & (1<<shift - 1)
	halfway := uint32(1) << (shift - 1)
	if rest > halfway || rest == halfway && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}
