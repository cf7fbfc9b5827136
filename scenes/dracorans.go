package scenes

// Draco's entropy coding (src/draco/compression/entropy: symbol_decoding.cc,
// rans_symbol_decoder.h, ans.h): symbols through an rANS decoder whose
// probability table the stream carries, either directly (raw) or as bit
// lengths of groups of values that follow as plain bits (tagged).

import (
	"errors"
	"fmt"
	"sort"
)

// dracoSymbols decodes len(out) symbols (DecodeSymbols); comps is the
// values per group of the tagged scheme, which share one bit length.
func dracoSymbols[T int32 | uint32](r *dracoReader, out []T, comps int) error {
	if len(out) == 0 {
		return nil
	}
	scheme, err := r.u8()
	if err != nil {
		return err
	}
	switch scheme {
	case 0: // tagged
		var tags dracoRANS
		if err := tags.init(r, 5); err != nil {
			return fmt.Errorf("tags: %w", err)
		}
		if tags.numSymbols == 0 {
			return errors.New("tags: no symbols")
		}
		if err := tags.start(r); err != nil {
			return fmt.Errorf("tags: %w", err)
		}
		bitPos := 0 // the values' bits follow the tags' bytes
		bitsAt := r.b[r.pos:]
		for i := 0; i < len(out); i += comps {
			n := tags.read()
			if n > 32 {
				return fmt.Errorf("a tag of %d bits (at most 32)", n)
			}
			for j := 0; j < comps && i+j < len(out); j++ {
				var v uint32
				for b := uint32(0); b < n; b++ {
					// Bits past the end read as 0, as in the reference's
					// bit decoder.
					if byteAt := bitPos >> 3; byteAt < len(bitsAt) {
						v |= uint32(bitsAt[byteAt]>>(bitPos&7)&1) << b
						bitPos++
					}
				}
				out[i+j] = T(v)
			}
		}
		r.pos += (bitPos + 7) / 8
		return nil
	case 1: // raw
		maxBits, err := r.u8()
		if err != nil {
			return err
		}
		if maxBits < 1 || maxBits > 18 {
			return fmt.Errorf("raw symbols of %d bits (1 to 18)", maxBits)
		}
		var dec dracoRANS
		if err := dec.init(r, int(maxBits)); err != nil {
			return err
		}
		if dec.numSymbols == 0 {
			return errors.New("no symbols")
		}
		if err := dec.start(r); err != nil {
			return err
		}
		for i := range out {
			out[i] = T(dec.read())
		}
		return nil
	}
	return fmt.Errorf("symbol coding %d is neither tagged nor raw", scheme)
}

// dracoRANS is RAnsSymbolDecoder with its RAnsDecoder.
type dracoRANS struct {
	precision  uint32 // 1 << precision bits
	numSymbols uint32
	probs      []uint32 // per symbol
	cums       []uint32 // per symbol, not inclusive
	buf        []byte
	off        int
	state      uint32
}

// init reads the probability table (RAnsSymbolDecoder::Create) for
// symbols of bitLength bits.
func (d *dracoRANS) init(r *dracoReader, bitLength int) error {
	pb := 3 * bitLength / 2
	pb = min(max(pb, 12), 20)
	d.precision = 1 << pb
	n, err := r.varint32()
	if err != nil {
		return err
	}
	if uint64(n)/64 > uint64(r.remaining()) {
		return fmt.Errorf("%d symbols: more than the stream's %d bytes can describe", n, r.remaining())
	}
	d.numSymbols = n
	if n == 0 {
		return nil
	}
	d.probs = make([]uint32, n)
	for i := uint32(0); i < n; i++ {
		p, err := r.u8()
		if err != nil {
			return err
		}
		token := p & 3
		if token == 3 {
			run := uint32(p >> 2)
			if uint64(i)+uint64(run) >= uint64(n) {
				return errors.New("a run of zero probabilities past the last symbol")
			}
			i += run // probabilities are zero already
			continue
		}
		prob := uint32(p >> 2)
		for b := 0; b < int(token); b++ {
			e, err := r.u8()
			if err != nil {
				return err
			}
			prob |= uint32(e) << (8*(b+1) - 2)
		}
		d.probs[i] = prob
	}
	d.cums = make([]uint32, n)
	cum := uint32(0)
	for i, p := range d.probs {
		d.cums[i] = cum
		if uint64(cum)+uint64(p) > uint64(d.precision) {
			return errors.New("probabilities sum to more than the precision")
		}
		cum += p
	}
	if cum != d.precision {
		return errors.New("probabilities do not sum to the precision")
	}
	return nil
}

// start reads the coded bytes' length and the decoder's initial state
// from their end (RAnsDecoder::read_init).
func (d *dracoRANS) start(r *dracoReader) error {
	n, err := r.varint(10)
	if err != nil {
		return err
	}
	if n > uint64(r.remaining()) {
		return fmt.Errorf("%d coded bytes: more than the stream's %d", n, r.remaining())
	}
	buf, _ := r.bytes(int(n))
	if len(buf) < 1 {
		return errors.New("no coded bytes")
	}
	if d.off, d.state, err = dracoRANSState(buf, 4*d.precision, true, "coder's"); err != nil {
		return err
	}
	d.buf = buf
	return nil
}

// dracoRANSState reads a rANS coder's initial state from the end of its
// coded bytes buf (at least one): the top two bits of the last byte say
// whether the state is in the last one, two, three or (where wide: the
// symbol coder's rans_read_init, not the bit coder's ans_read_init) four
// bytes. It returns the offset of the bytes before the state and the state
// plus base, which must stay below base*256; what names the coder in the
// error.
func dracoRANSState(buf []byte, base uint32, wide bool, what string) (off int, state uint32, err error) {
	k := len(buf)
	switch buf[k-1] >> 6 {
	case 0:
		off, state = k-1, uint32(buf[k-1]&0x3f)
	case 1:
		if k < 2 {
			return 0, 0, errDracoShort
		}
		off, state = k-2, (uint32(buf[k-2])|uint32(buf[k-1])<<8)&0x3fff
	case 2:
		if k < 3 {
			return 0, 0, errDracoShort
		}
		off, state = k-3, (uint32(buf[k-3])|uint32(buf[k-2])<<8|uint32(buf[k-1])<<16)&0x3fffff
	default:
		if !wide {
			return 0, 0, fmt.Errorf("the %s initial state is out of range", what)
		}
		if k < 4 {
			return 0, 0, errDracoShort
		}
		off, state = k-4, (uint32(buf[k-4])|uint32(buf[k-3])<<8|uint32(buf[k-2])<<16|uint32(buf[k-1])<<24)&0x3fffffff
	}
	state += base
	if uint64(state) >= uint64(base)*256 {
		return 0, 0, fmt.Errorf("the %s initial state is out of range", what)
	}
	return off, state, nil
}

// read decodes one symbol (RAnsDecoder::rans_read).
func (d *dracoRANS) read() uint32 {
	base := 4 * d.precision
	for d.state < base && d.off > 0 {
		d.off--
		d.state = d.state*256 + uint32(d.buf[d.off])
	}
	quo, rem := d.state/d.precision, d.state%d.precision
	// The symbol whose [cum, cum + prob) holds rem: the last whose cum
	// is at most rem (a symbol of probability 0 shares its cum with the
	// next). The reference looks it up in a table of 2^precision
	// entries; this search gives the same symbol without the table.
	s := uint32(sort.Search(len(d.cums), func(k int) bool { return d.cums[k] > rem }) - 1)
	d.state = quo*d.probs[s] + rem - d.cums[s]
	return s
}
