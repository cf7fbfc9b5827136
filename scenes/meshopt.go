package scenes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// The meshoptimizer codecs of EXT_meshopt_compression and
// KHR_meshopt_compression (the bitstreams of the extensions' Appendix A,
// the filters of their Appendix B; KHR's adds version 1 of the vertex
// codec and the COLOR filter), decoded in pure Go as meshoptimizer's
// src/vertexcodec.cpp, indexcodec.cpp and vertexfilter.cpp (the scalar
// paths) decode them. Each decoder writes into a dst the caller sized
// (count × byteStride bytes), reads only inside src and returns an
// error, never panics, on a stream that is short, long or of another
// header. meshoptMinStreamBytes bounds what a stream of count elements
// takes at the least, so that a caller can refuse a count before it
// allocates dst: no valid stream decodes to more than 64 bytes per byte
// it has (version 0 of the vertex codec, the index codecs) or 1024
// (version 1 of the vertex codec, whose blocks of 256 elements may hold
// only a control byte per 4 bytes of stride).

// meshoptMode is the bitstream of a compressed view (the extension's
// "mode").
type meshoptMode int

const (
	meshoptAttributes meshoptMode = iota // vertex codec, header 0xa0
	meshoptTriangles                     // triangle index codec, header 0xe1
	meshoptIndices                       // index sequence codec, header 0xd1
)

// meshoptFilter is what undoes the transform an encoder applied to each
// element before the vertex codec (the extension's "filter").
type meshoptFilter int

const (
	meshoptFilterNone meshoptFilter = iota
	meshoptFilterOctahedral
	meshoptFilterQuaternion
	meshoptFilterExponential
	meshoptFilterColor // KHR_meshopt_compression's
)

// Stream headers: the high nibble names the codec, the low its version.
// EXT_meshopt_compression allows these versions alone,
// KHR_meshopt_compression the vertex codec's version 1 (0xa1) too.
const (
	meshoptVertexHeader   = 0xa0 // version 0
	meshoptTriangleHeader = 0xe1 // version 1
	meshoptSequenceHeader = 0xd1 // version 1
)

// The vertex codec's constants (vertexcodec.cpp): a block holds at most
// 8192 bytes and 256 elements, deltas go in groups of 16, the tail (the
// first element's baseline) is padded to 32 bytes, and a group is only
// decoded with 24 bytes left before the end (its worst case).
const (
	meshoptBlockBytes       = 8192
	meshoptBlockMaxElements = 256
	meshoptGroupSize        = 16
	meshoptGroupDecodeLimit = 24
	meshoptTailMinBytes     = 32
	meshoptTailMinBytesV1   = 24 // version 1's
)

var errMeshoptShort = errors.New("the stream ends before its data does")

// meshoptBlockElements is the number of elements of one block of the
// vertex codec for elements of stride bytes: part of the format.
func meshoptBlockElements(stride int) int {
	return min((meshoptBlockBytes/stride)&^(meshoptGroupSize-1), meshoptBlockMaxElements)
}

// meshoptMinStreamBytes is the length a valid stream of count elements
// of stride bytes has at the least in mode m: the vertex codec's header
// byte, 2 bits of group header per 16 elements for each byte of the
// stride (version 0) or a control byte per 4 bytes of the stride for
// each block (version 1, vertexVersion 1), and the tail; the triangle
// codec's header, a byte per triangle and its 16-byte table; the index
// sequence's header, a byte per index and its 4-byte tail. count and
// stride must be positive, stride at most 256.
func meshoptMinStreamBytes(m meshoptMode, count, stride, vertexVersion int) int {
	switch {
	case m == meshoptAttributes && vertexVersion == 1:
		per := meshoptBlockElements(stride)
		blocks := (count + per - 1) / per
		return 1 + blocks*(stride/4) + max(stride+stride/4, meshoptTailMinBytesV1)
	case m == meshoptAttributes:
		per := meshoptBlockElements(stride)
		headers := func(n int) int { return stride * (((n+meshoptGroupSize-1)/meshoptGroupSize + 3) / 4) }
		n := 1 + max(stride, meshoptTailMinBytes)
		n += count / per * headers(per)
		if r := count % per; r > 0 {
			n += headers(r)
		}
		return n
	case m == meshoptTriangles:
		return 1 + count/3 + 16
	default:
		return 1 + count + 4
	}
}

// meshoptDecodeVertices decodes count elements of stride bytes (a
// multiple of 4, at most 256) from a vertex codec stream of version 0,
// or of version 0 or 1 when maxVersion is 1, into dst (count × stride
// bytes). Version 1 (KHR_meshopt_compression) adds per block a control
// byte per 4 bytes of the stride (each byte's deltas as zeros, literal
// bytes, or groups of bit widths {0, 1, 2, 4} or {1, 2, 4, 8}) and, in the
// tail, a channel mode per 4 bytes: byte deltas, 16-bit deltas, or 32-bit
// XOR deltas rotated by its high nibble.
func meshoptDecodeVertices(dst []byte, count, stride int, src []byte, maxVersion int) error {
	if len(src) < 1 {
		return errMeshoptShort
	}
	version := int(src[0] & 15)
	if src[0]&0xf0 != meshoptVertexHeader || version > maxVersion {
		want := "0xa0 (the vertex codec, version 0)"
		if maxVersion >= 1 {
			want = "0xa0 or 0xa1 (the vertex codec, version 0 or 1)"
		}
		return fmt.Errorf("header byte 0x%02x is not %s", src[0], want)
	}
	tail, pad := stride, max(stride, meshoptTailMinBytes)
	if version == 1 {
		tail = stride + stride/4 // the channel modes
		pad = max(tail, meshoptTailMinBytesV1)
	}
	if len(src)-1 < pad {
		return fmt.Errorf("%d bytes: too short for the header and a tail of %d bytes", len(src), pad)
	}
	var last [256]byte
	copy(last[:stride], src[len(src)-tail:])
	var channels []byte
	if version == 1 {
		channels = src[len(src)-tail+stride:]
		for c, m := range channels {
			if m&15 > 2 || m&15 < 2 && m>>4 != 0 {
				return fmt.Errorf("channel %d: mode byte 0x%02x is not 0x00, 0x01 or 0x?2", c, m)
			}
		}
	}
	var deltas [4][meshoptBlockMaxElements]byte // a channel's four bytes
	per := meshoptBlockElements(stride)
	p, end := 1, len(src)
	for first := 0; first < count; first += per {
		n := min(per, count-first)
		aligned := (n + meshoptGroupSize - 1) &^ (meshoptGroupSize - 1)
		var control []byte
		if version == 1 {
			if end-p < stride/4 {
				return errMeshoptShort
			}
			control, p = src[p:p+stride/4], p+stride/4
		}
		for k := 0; k < stride; k += 4 {
			for j := range 4 {
				var err error
				buf := deltas[j][:aligned]
				ctrl := 0
				if version == 1 {
					ctrl = int(control[k/4]>>(2*j)) & 3
				}
				switch {
				case version == 0:
					p, err = meshoptDecodeBytes(buf, src[:end], p, meshoptBitsV0)
				case ctrl == 3:
					if end-p < n {
						return errMeshoptShort
					}
					copy(buf, src[p:p+n]) // literal deltas
					p += n
				case ctrl == 2:
					clear(buf)
				default:
					p, err = meshoptDecodeBytes(buf, src[:end], p, [4]int(meshoptBitsV1[ctrl:ctrl+4]))
				}
				if err != nil {
					return err
				}
			}
			mode := byte(0)
			if version == 1 {
				mode = channels[k/4]
			}
			meshoptUndelta(dst[first*stride+k:], stride, n, &deltas, last[k:k+4], mode)
		}
	}
	if end-p != pad {
		return fmt.Errorf("%d bytes left after the data, want the tail's %d", end-p, pad)
	}
	return nil
}

// meshoptUndelta turns the deltas of n elements' 4 bytes (deltas[j][i]
// byte j of element i) into the bytes themselves, from the previous
// element's (last, updated) and by channel mode: byte deltas (0), 16-bit
// deltas (1) or 32-bit XOR deltas rotated left by 32 − mode>>4 (2); all
// zigzag-coded but the XOR. dst is the first element's first byte, each
// next element stride bytes on.
func meshoptUndelta(dst []byte, stride, n int, deltas *[4][meshoptBlockMaxElements]byte, last []byte, mode byte) {
	switch mode & 15 {
	case 0:
		for j := range 4 {
			v := last[j]
			for i := range n {
				d := deltas[j][i]
				v += -(d & 1) ^ d>>1
				dst[i*stride+j] = v
			}
			last[j] = v
		}
	case 1:
		for h := 0; h < 4; h += 2 {
			v := binary.LittleEndian.Uint16(last[h:])
			for i := range n {
				d := uint16(deltas[h][i]) | uint16(deltas[h+1][i])<<8
				v += -(d & 1) ^ d>>1
				binary.LittleEndian.PutUint16(dst[i*stride+h:], v)
			}
			binary.LittleEndian.PutUint16(last[h:], v)
		}
	default:
		r := (32 - int(mode>>4)) & 31
		v := binary.LittleEndian.Uint32(last)
		for i := range n {
			d := uint32(deltas[0][i]) | uint32(deltas[1][i])<<8 | uint32(deltas[2][i])<<16 | uint32(deltas[3][i])<<24
			v ^= bits.RotateLeft32(d, r)
			binary.LittleEndian.PutUint32(dst[i*stride:], v)
		}
		binary.LittleEndian.PutUint32(last, v)
	}
}

// The bit widths of a group's four header values: version 0's, and
// version 1's from control mode c on (meshoptBitsV1[c : c+4]).
var (
	meshoptBitsV0 = [4]int{0, 2, 4, 8}
	meshoptBitsV1 = [5]int{0, 1, 2, 4, 8}
)

// meshoptDecodeBytes decodes the deltas of one byte of len(out) (a
// multiple of 16) elements from src at p: the groups' 2-bit headers, then
// each group of 16 as values of the width widths[header] (0: zeros, 8:
// bytes, else packed with sentinels). It returns where the data ends.
func meshoptDecodeBytes(out, src []byte, p int, widths [4]int) (int, error) {
	groups := len(out) / meshoptGroupSize
	headerBytes := (groups + 3) / 4
	if len(src)-p < headerBytes {
		return 0, errMeshoptShort
	}
	header := src[p : p+headerBytes]
	p += headerBytes
	for g := range groups {
		if len(src)-p < meshoptGroupDecodeLimit {
			return 0, errMeshoptShort
		}
		group := out[g*meshoptGroupSize : (g+1)*meshoptGroupSize]
		switch w := widths[header[g/4]>>(g%4*2)&3]; w {
		case 0:
			clear(group)
		case 8:
			copy(group, src[p:p+meshoptGroupSize])
			p += meshoptGroupSize
		default:
			p = meshoptDecodeGroup(group, src, p, w)
		}
	}
	return p, nil
}

// meshoptDecodeGroup decodes 16 values of bits bits (1, 2 or 4) from src
// at p, packed from the most significant bits of each byte down (1-bit
// values from the least significant up); a value of all ones (the
// sentinel) stands for the next byte after the packed ones. The caller
// has made sure 24 bytes are left.
func meshoptDecodeGroup(group, src []byte, p, bits int) int {
	packed := src[p : p+bits*2]
	extra := p + bits*2
	sentinel := byte(1)<<bits - 1
	for i := range group {
		shift := 8 - bits - i*bits%8
		if bits == 1 {
			shift = i % 8
		}
		v := packed[i*bits/8] >> shift & sentinel
		if v == sentinel {
			v = src[extra]
			extra++
		}
		group[i] = v
	}
	return extra
}

// meshoptDecodeTriangles decodes count indices (a multiple of 3) of size
// bytes (2 or 4) from a triangle codec stream into dst.
func meshoptDecodeTriangles(dst []byte, count, size int, src []byte) error {
	if len(src) < 1+count/3+16 {
		return fmt.Errorf("%d bytes: too short for %d triangles (a byte each) and the 16-byte table", len(src), count/3)
	}
	if src[0] != meshoptTriangleHeader {
		return fmt.Errorf("header byte 0x%02x is not 0x%02x (the triangle codec, version 1)", src[0], meshoptTriangleHeader)
	}
	var edges [16][2]uint32
	var verts [16]uint32
	for i := range edges {
		edges[i] = [2]uint32{math.MaxUint32, math.MaxUint32}
		verts[i] = math.MaxUint32
	}
	edgeAt, vertAt := 0, 0 // the next entries to write
	pushEdge := func(a, b uint32) {
		edges[edgeAt] = [2]uint32{a, b}
		edgeAt = (edgeAt + 1) & 15
	}
	pushVert := func(v uint32, cond bool) {
		verts[vertAt] = v
		if cond {
			vertAt = (vertAt + 1) & 15
		}
	}
	var next, last uint32
	codes := src[1 : 1+count/3]
	p := 1 + count/3
	safeEnd := len(src) - 16 // each triangle reads at most 16 bytes past p
	table := src[safeEnd:]
	readIndex := func() uint32 {
		var v uint32
		p, v = meshoptVByte(src, p)
		last += v>>1 ^ -(v & 1)
		return last
	}
	// nextOrFIFO is a triangle's vertex by its 4-bit code fe: a new one
	// (next) for 0, else the one fe places back in the vertex FIFO.
	nextOrFIFO := func(fe int) uint32 {
		if fe == 0 {
			next++
			return next - 1
		}
		return verts[(vertAt-fe)&15]
	}
	out := 0
	write := func(a, b, c uint32) {
		if size == 2 {
			binary.LittleEndian.PutUint16(dst[out:], uint16(a))
			binary.LittleEndian.PutUint16(dst[out+2:], uint16(b))
			binary.LittleEndian.PutUint16(dst[out+4:], uint16(c))
		} else {
			binary.LittleEndian.PutUint32(dst[out:], a)
			binary.LittleEndian.PutUint32(dst[out+4:], b)
			binary.LittleEndian.PutUint32(dst[out+8:], c)
		}
		out += 3 * size
	}
	for _, code := range codes {
		if code < 0xf0 {
			e := edges[(edgeAt-1-int(code>>4))&15]
			a, b := e[0], e[1]
			var c uint32
			switch fec := int(code & 15); {
			case fec < 13:
				if fec == 0 {
					c = next
					next++
				} else {
					c = verts[(vertAt-1-fec)&15]
				}
				pushVert(c, fec == 0)
			default:
				if p > safeEnd {
					return errMeshoptShort
				}
				if fec == 15 {
					c = readIndex()
				} else {
					last += uint32(fec*2 - 27) // 13 → −1, 14 → +1
					c = last
				}
				pushVert(c, true)
			}
			pushEdge(c, b)
			pushEdge(a, c)
			write(a, b, c)
			continue
		}
		var a, b, c uint32
		var feb, fec int
		var pushB, pushC bool // whether b and c enter the vertex FIFO
		if code < 0xfe {
			aux := table[code&15]
			feb, fec = int(aux>>4), int(aux&15)
			a = next
			next++
			b, c = nextOrFIFO(feb), nextOrFIFO(fec)
			pushB, pushC = feb == 0, fec == 0
		} else {
			if p > safeEnd {
				return errMeshoptShort
			}
			aux := src[p]
			p++
			feb, fec = int(aux>>4), int(aux&15)
			if aux == 0 {
				next = 0 // a restart
			}
			if code == 0xfe {
				a = next
				next++
			}
			b, c = nextOrFIFO(feb), nextOrFIFO(fec)
			if code == 0xff {
				a = readIndex()
			}
			if feb == 15 {
				b = readIndex()
			}
			if fec == 15 {
				c = readIndex()
			}
			pushB, pushC = feb == 0 || feb == 15, fec == 0 || fec == 15
		}
		write(a, b, c)
		pushVert(a, true)
		pushVert(b, pushB)
		pushVert(c, pushC)
		pushEdge(b, a)
		pushEdge(c, b)
		pushEdge(a, c)
	}
	if p != safeEnd {
		return fmt.Errorf("the data ends %d bytes before the 16-byte table, want 0", safeEnd-p)
	}
	return nil
}

// meshoptVByte reads a varint-7 (unsigned LEB128) of at most 5 bytes
// from src at p, as indexcodec.cpp's decodeVByte: a fifth byte ends it
// whatever its top bit. The callers' bounds keep p+5 inside src.
func meshoptVByte(src []byte, p int) (int, uint32) {
	lead := src[p]
	p++
	if lead < 128 {
		return p, uint32(lead)
	}
	v, shift := uint32(lead&127), 7
	for range 4 {
		g := src[p]
		p++
		v |= uint32(g&127) << shift
		shift += 7
		if g < 128 {
			break
		}
	}
	return p, v
}

// meshoptDecodeIndices decodes count indices of size bytes (2 or 4) from
// an index sequence stream into dst.
func meshoptDecodeIndices(dst []byte, count, size int, src []byte) error {
	if len(src) < 1+count+4 {
		return fmt.Errorf("%d bytes: too short for %d indices (a byte each) and the 4-byte tail", len(src), count)
	}
	if src[0] != meshoptSequenceHeader {
		return fmt.Errorf("header byte 0x%02x is not 0x%02x (the index sequence codec, version 1)", src[0], meshoptSequenceHeader)
	}
	var last [2]uint32
	p, safeEnd := 1, len(src)-4
	for i := range count {
		if p >= safeEnd {
			return errMeshoptShort
		}
		var v uint32
		p, v = meshoptVByte(src, p)
		base := v & 1
		v >>= 1
		last[base] += v>>1 ^ -(v & 1)
		if size == 2 {
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(last[base]))
		} else {
			binary.LittleEndian.PutUint32(dst[4*i:], last[base])
		}
	}
	if p != safeEnd {
		return fmt.Errorf("the data ends %d bytes before the 4-byte tail, want 0", safeEnd-p)
	}
	return nil
}

// meshoptRound is C's int(v) of vertexfilter.cpp's rounding, v already
// offset by ±0.5: toward zero, with NaN and values out of int32's range
// (from input the extension leaves unspecified) as x86's conversion
// gives them, the same on every machine.
func meshoptRound(v float32) int32 {
	if !(v > -2147483648 && v < 2147483648) {
		return math.MinInt32
	}
	return int32(v)
}

// meshoptHalf is +0.5 for v ≥ 0, else −0.5.
func meshoptHalf(v float32) float32 {
	if v >= 0 {
		return 0.5
	}
	return -0.5
}

// meshoptUnfilterOctahedral turns count elements of stride 4 (signed
// bytes) or 8 (signed shorts) from octahedral x, y and the K-bit 1.0 into
// unit vectors' normalised x, y, z, keeping the fourth component.
func meshoptUnfilterOctahedral(data []byte, count, stride int) {
	get := func(i int) float32 { return float32(int8(data[i])) }
	put := func(i int, v int32) { data[i] = byte(v) }
	maxv := float32(127)
	if stride == 8 {
		get = func(i int) float32 { return float32(int16(binary.LittleEndian.Uint16(data[2*i:]))) }
		put = func(i int, v int32) { binary.LittleEndian.PutUint16(data[2*i:], uint16(v)) }
		maxv = 32767
	}
	for e := range count {
		x, y := get(4*e), get(4*e+1)
		z := get(4*e+2) - abs32(x) - abs32(y)
		var t float32 // folds the lower hemisphere
		if z < 0 {
			t = z
		}
		if x >= 0 {
			x += t
		} else {
			x -= t
		}
		if y >= 0 {
			y += t
		} else {
			y -= t
		}
		l := float32(math.Sqrt(float64(float32(float32(x*x)+float32(y*y)) + float32(z*z))))
		s := maxv / l
		put(4*e, meshoptRound(float32(x*s)+meshoptHalf(x)))
		put(4*e+1, meshoptRound(float32(y*s)+meshoptHalf(y)))
		put(4*e+2, meshoptRound(float32(z*s)+meshoptHalf(z)))
	}
}

// abs32 is |v|.
func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// meshoptUnfilterQuaternion turns count elements of four signed shorts
// (three components scaled by √2, and the K-bit 1.0 whose low two bits
// name the component left out) into a unit quaternion's four
// normalised shorts.
func meshoptUnfilterQuaternion(data []byte, count int) {
	scale := float32(32767) / float32(math.Sqrt2)
	for e := range count {
		q := data[8*e : 8*e+8]
		in := [4]int16{}
		for i := range in {
			in[i] = int16(binary.LittleEndian.Uint16(q[2*i:]))
		}
		s := float32(int32(in[3]) | 3)
		x, y, z := float32(in[0]), float32(in[1]), float32(in[2])
		ww := float32(float32(float32(float32(s*s)*2)-float32(x*x))-float32(y*y)) - float32(z*z)
		w := float32(math.Sqrt(float64(max(ww, 0))))
		ss := scale / s
		out := [4]int32{
			meshoptRound(float32(x*ss) + meshoptHalf(x)),
			meshoptRound(float32(y*ss) + meshoptHalf(y)),
			meshoptRound(float32(z*ss) + meshoptHalf(z)),
			meshoptRound(float32(w*ss) + 0.5),
		}
		qc := int(in[3] & 3)
		for i, v := range [4]int32{out[3], out[0], out[1], out[2]} { // w, x, y, z from the left-out one on
			binary.LittleEndian.PutUint16(q[2*((qc+i)&3):], uint16(v))
		}
	}
}

// meshoptUnfilterExponential turns count × stride/4 little-endian words,
// each a signed 8-bit exponent e over a signed 24-bit mantissa m, into
// the float32 2^e · m.
func meshoptUnfilterExponential(data []byte, count, stride int) {
	for i := range count * stride / 4 {
		v := binary.LittleEndian.Uint32(data[4*i:])
		m := int32(v<<8) >> 8
		e := int32(v) >> 24
		f := math.Float32frombits(uint32(e+127)<<23) * float32(m)
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(f))
	}
}

// meshoptDecode decodes count elements of stride bytes from a stream of
// mode m into dst (count × stride bytes); a vertex stream may be of a
// version up to maxVertexVersion (0 for EXT_meshopt_compression, 1 for
// KHR_meshopt_compression).
func meshoptDecode(dst []byte, m meshoptMode, count, stride int, src []byte, maxVertexVersion int) error {
	switch m {
	case meshoptAttributes:
		return meshoptDecodeVertices(dst, count, stride, src, maxVertexVersion)
	case meshoptTriangles:
		return meshoptDecodeTriangles(dst, count, stride, src)
	default:
		return meshoptDecodeIndices(dst, count, stride, src)
	}
}

// meshoptUnfilter applies filter f to count decoded elements of stride
// bytes in data, in place; the caller has checked the stride suits it.
func meshoptUnfilter(data []byte, f meshoptFilter, count, stride int) {
	switch f {
	case meshoptFilterOctahedral:
		meshoptUnfilterOctahedral(data, count, stride)
	case meshoptFilterQuaternion:
		meshoptUnfilterQuaternion(data, count)
	case meshoptFilterExponential:
		meshoptUnfilterExponential(data, count, stride)
	case meshoptFilterColor:
		meshoptUnfilterColor(data, count, stride)
	}
}

// meshoptUnfilterColor turns count elements of stride 4 (bytes) or 8
// (shorts) from K-bit YCoCg (unsigned Y, signed Co and Cg, and alpha in
// K−1 bits under a marker bit K−1 that gives K) into normalised RGBA.
func meshoptUnfilterColor(data []byte, count, stride int) {
	get := func(i int) (uint32, int32) { return uint32(data[i]), int32(int8(data[i])) }
	put := func(i int, v int32) { data[i] = byte(v) }
	maxv := float32(255)
	if stride == 8 {
		get = func(i int) (uint32, int32) {
			v := binary.LittleEndian.Uint16(data[2*i:])
			return uint32(v), int32(int16(v))
		}
		put = func(i int, v int32) { binary.LittleEndian.PutUint16(data[2*i:], uint16(v)) }
		maxv = 65535
	}
	for e := range count {
		a, _ := get(4*e + 3)
		as := a // all ones from the marker bit down
		as |= as >> 1
		as |= as >> 2
		as |= as >> 4
		as |= as >> 8
		y, _ := get(4 * e)
		_, co := get(4*e + 1)
		_, cg := get(4*e + 2)
		r := int32(y) + co - cg
		g := int32(y) + cg
		b := int32(y) - co - cg
		a = a<<1&as | a&1 // one bit more, as the others have
		ss := maxv / float32(as)
		put(4*e, meshoptRound(float32(float32(r)*ss)+0.5))
		put(4*e+1, meshoptRound(float32(float32(g)*ss)+0.5))
		put(4*e+2, meshoptRound(float32(float32(b)*ss)+0.5))
		put(4*e+3, meshoptRound(float32(float32(a)*ss)+0.5))
	}
}
