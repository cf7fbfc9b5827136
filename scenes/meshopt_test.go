package scenes

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// meshoptVector is one line of testdata/meshopt/vectors.jsonl.gz, written
// by scripts/meshopt-vectors.sh: data encoded by Debian's
// libmeshoptimizer 0.18 and that library's own decoding of it.
type meshoptVector struct {
	Name       string `json:"name"`
	Mode       string `json:"mode"`
	Filter     string `json:"filter"`
	Count      int    `json:"count"`
	ByteStride int    `json:"byteStride"`
	Encoded    string `json:"encoded"`  // hex
	Decoded    string `json:"decoded"`  // hex: the codec's output
	Filtered   string `json:"filtered"` // hex: the filter's output, when there is a filter
	// VertexVersion is 1 for KHR_meshopt_compression's vectors (the
	// vertex codec's version 1, the COLOR filter), else 0.
	VertexVersion int `json:"vertexVersion"`
}

// readMeshoptVectors reads the committed vectors (vectors.jsonl.gz:
// Debian's libmeshoptimizer 0.18, EXT_meshopt_compression's codecs;
// vectors-v1.jsonl.gz: meshoptimizer 1.2's source, KHR_meshopt_compression's
// additions), or those in the folder $TRACE_MESHOPT_VECTORS names
// (scripts/meshopt-vectors.sh --seed).
func readMeshoptVectors(t testing.TB) []meshoptVector {
	t.Helper()
	dir := filepath.Join("testdata", "meshopt")
	if d := os.Getenv("TRACE_MESHOPT_VECTORS"); d != "" {
		dir = d
	}
	names, err := filepath.Glob(filepath.Join(dir, "vectors*.jsonl.gz"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no vectors in %s (%v)", dir, err)
	}
	var vs []meshoptVector
	for _, name := range names {
		vs = append(vs, readMeshoptVectorFile(t, name)...)
	}
	return vs
}

// readMeshoptVectorFile reads one file of vectors.
func readMeshoptVectorFile(t testing.TB, path string) []meshoptVector {
	t.Helper()
	var vs []meshoptVector
	sc := bufio.NewScanner(bytes.NewReader(readGzipFile(t, path)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v meshoptVector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// meshoptDecodeVector decodes v's stream as the loader does a view's.
func meshoptDecodeVector(v meshoptVector, src []byte) ([]byte, error) {
	mode := map[string]meshoptMode{"ATTRIBUTES": meshoptAttributes, "TRIANGLES": meshoptTriangles, "INDICES": meshoptIndices}[v.Mode]
	dst := make([]byte, v.Count*v.ByteStride)
	return dst, meshoptDecode(dst, mode, v.Count, v.ByteStride, src, v.VertexVersion)
}

// TestMeshoptVectors decodes libmeshoptimizer's encodings of vertex data
// of strides 4 to 256 (block and group boundaries, every group mode),
// triangle lists (in cache order, shuffled, random 32-bit) and index
// sequences, and filtered data: the codecs' output must be the library's
// byte for byte; the octahedral and quaternion filters' within one unit
// of the library's (the extension specifies them to 1 ULP of the
// normalised integers, and the library's x86 build uses SSE's
// approximate reciprocal square root), the exponential filter's exact.
func TestMeshoptVectors(t *testing.T) {
	vs := readMeshoptVectors(t)
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.Mode+" "+v.Filter] = true
		t.Run(v.Name, func(t *testing.T) {
			got, err := meshoptDecodeVector(v, unhex(t, v.Encoded))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			want := unhex(t, v.Decoded)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("byte %d (element %d, byte %d) is 0x%02x, the library's 0x%02x", i, i/v.ByteStride, i%v.ByteStride, got[i], want[i])
				}
			}
			if v.Filter == "NONE" {
				return
			}
			filter := gltfMeshoptFilters[v.Filter]
			meshoptUnfilter(got, filter, v.Count, v.ByteStride)
			want = unhex(t, v.Filtered)
			off := 0
			switch {
			case filter == meshoptFilterExponential:
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("float %d: bits %08x, the library's %08x", i/4, binary.LittleEndian.Uint32(got[i&^3:]), binary.LittleEndian.Uint32(want[i&^3:]))
					}
				}
			case v.ByteStride == 4: // signed bytes (unsigned for COLOR: the same differences)
				for i := range want {
					if d := int(int8(got[i] - want[i])); d < -1 || d > 1 {
						t.Fatalf("element %d component %d: %d, the library's %d", i/4, i%4, int8(got[i]), int8(want[i]))
					} else if d != 0 {
						off++
					}
				}
			default: // signed shorts
				for i := 0; i < len(want); i += 2 {
					g, w := int16(binary.LittleEndian.Uint16(got[i:])), int16(binary.LittleEndian.Uint16(want[i:]))
					if d := int(g - w); d < -1 || d > 1 {
						t.Fatalf("element %d component %d: %d, the library's %d", i/8, i/2%4, g, w)
					} else if d != 0 {
						off++
					}
				}
			}
			t.Logf("%d of %d components one unit from the library's", off, v.Count*4)
		})
	}
	for _, k := range []string{"ATTRIBUTES NONE", "ATTRIBUTES OCTAHEDRAL", "ATTRIBUTES QUATERNION", "ATTRIBUTES EXPONENTIAL", "ATTRIBUTES COLOR", "TRIANGLES NONE", "INDICES NONE"} {
		if !seen[k] {
			t.Errorf("no vector of %s", k)
		}
	}
	// Version 1's control modes (in each block's first bytes) and
	// channel modes (in the tail) must all occur.
	controls, channels := map[int]bool{}, map[int]bool{}
	for _, v := range vs {
		if v.VertexVersion != 1 {
			continue
		}
		enc := unhex(t, v.Encoded)
		for _, c := range enc[1 : 1+v.ByteStride/4] {
			for j := range 4 {
				controls[int(c>>(2*j))&3] = true
			}
		}
		for _, c := range enc[len(enc)-v.ByteStride/4:] {
			channels[int(c&15)] = true
		}
	}
	if len(controls) != 4 || len(channels) != 3 {
		t.Errorf("version 1's vectors have control modes %v and channel modes %v, want 0 to 3 and 0 to 2", controls, channels)
	}
}

// TestMeshoptFilterSpec checks the filters against the extension's
// worked definitions on hand-made elements: octahedral (0, 0, 1.0) is
// +z and a point of the folded lower hemisphere a unit vector below;
// the quaternion of maximum component w alone is the identity, and the
// component index rotates the output; exponential 2^e · m.
func TestMeshoptFilterSpec(t *testing.T) {
	oct := []byte{0, 0, 127, 9, 0, 0, 127, 200, 127, 0, 127, 7}
	meshoptUnfilterOctahedral(oct, 3, 4)
	// (1, 0) with 1.0: z = 1 − 1 = 0, so +x; the fourth byte kept
	if want := []byte{0, 0, 127, 9, 0, 0, 127, 200, 127, 0, 0, 7}; string(oct) != string(want) {
		t.Errorf("octahedral: % d, want % d", oct, want)
	}
	// (100, 100) of 127 lies past the diamond's edge: z = 127 − 200 =
	// −73, folded to x = y = 100 − 73 = 27, so (27, 27, −73)/|·| · 127
	lower := []byte{100, 100, 127, 0}
	meshoptUnfilterOctahedral(lower, 1, 4)
	if got := [3]int8{int8(lower[0]), int8(lower[1]), int8(lower[2])}; got != [3]int8{42, 42, -113} {
		t.Errorf("octahedral lower hemisphere: %d, want [42 42 -113]", got)
	}
	for qc := range 4 {
		q := make([]byte, 8)
		binary.LittleEndian.PutUint16(q[6:], uint16(int16(32767&^3|qc)))
		meshoptUnfilterQuaternion(q, 1)
		for c := range 4 {
			want := int16(0)
			if c == qc {
				want = 32767
			}
			if got := int16(binary.LittleEndian.Uint16(q[2*c:])); got != want {
				t.Errorf("quaternion, index %d: component %d is %d, want %d", qc, c, got, want)
			}
		}
	}
	exp := make([]byte, 8)
	binary.LittleEndian.PutUint32(exp, 0xfd000005)     // e = −3, m = 5
	binary.LittleEndian.PutUint32(exp[4:], 0x04fffff9) // e = 4, m = −7
	meshoptUnfilterExponential(exp, 2, 4)
	if a, b := math.Float32frombits(binary.LittleEndian.Uint32(exp)), math.Float32frombits(binary.LittleEndian.Uint32(exp[4:])); a != 5.0/8 || b != -7*16 {
		t.Errorf("exponential: %g and %g, want 0.625 and -112", a, b)
	}
}

// TestMeshoptCorruptStreams decodes each vector's stream changed: cut
// short by one byte and by half, one byte longer, its header byte
// changed (also to the older versions of the index codecs, which
// EXT_meshopt_compression does not allow), and with a count larger than
// it holds. Every one must be an error, none a panic or a read past the
// stream.
func TestMeshoptCorruptStreams(t *testing.T) {
	vs := readMeshoptVectors(t)
	for _, v := range vs {
		enc := unhex(t, v.Encoded)
		header := map[string][]byte{"ATTRIBUTES": {0xa1, 0xb0, 0x00}, "TRIANGLES": {0xe0, 0xe2, 0xa0}, "INDICES": {0xd0, 0xd2, 0xe1}}[v.Mode]
		if v.VertexVersion == 1 {
			header = []byte{0xa2, 0xb1, 0x00}
		}
		cases := map[string][]byte{
			"truncated by a byte": enc[:len(enc)-1],
			"truncated by half":   enc[:len(enc)/2],
			"only the header":     enc[:1],
			"empty":               {},
			"a byte longer":       append(append([]byte(nil), enc...), 0),
		}
		for _, h := range header {
			b := append([]byte(nil), enc...)
			b[0] = h
			cases["header 0x"+hex.EncodeToString([]byte{h})] = b
		}
		for name, src := range cases {
			if _, err := meshoptDecodeVector(v, src); err == nil {
				t.Errorf("%s, %s: no error", v.Name, name)
			}
		}
		// More elements: for the vertex codec four more blocks (within
		// a partial byte of group headers more groups read as zeros,
		// which no decoder can tell from a valid stream), for indices
		// three times as many.
		more := v
		more.Count = 3 * v.Count
		if v.Mode == "ATTRIBUTES" {
			more.Count = v.Count + 4*meshoptBlockElements(v.ByteStride)
		}
		if _, err := meshoptDecodeVector(more, enc); err == nil {
			t.Errorf("%s with %d elements (of %d): no error", v.Name, more.Count, v.Count)
		}
	}
	// A vertex stream's tail shorter than 32 bytes, a triangle stream
	// whose explicit codes run into the table.
	if err := meshoptDecode(make([]byte, 4), meshoptAttributes, 1, 4, append([]byte{0xa0, 0}, make([]byte, 31)...), 1); err == nil {
		t.Error("a vertex stream of a 31-byte tail: no error")
	}
	// Version 1 of one element of 4 bytes: the control byte (all zeros),
	// the tail's 4 bytes and channel mode, padded to 24; the channel mode
	// 3, and 0x11 (a rotation on byte deltas), are invalid.
	for _, mode := range []byte{0, 3, 0x11} {
		v1 := append([]byte{0xa1, 0xaa}, make([]byte, 24)...)
		v1[len(v1)-1] = mode
		err := meshoptDecode(make([]byte, 4), meshoptAttributes, 1, 4, v1, 1)
		if (err == nil) != (mode == 0) {
			t.Errorf("version 1, channel mode 0x%02x: error %v", mode, err)
		}
		if err := meshoptDecode(make([]byte, 4), meshoptAttributes, 1, 4, v1, 0); err == nil {
			t.Errorf("version 1 where only version 0 is allowed (channel mode 0x%02x): no error", mode)
		}
	}
	tri := append([]byte{0xe1, 0xff}, make([]byte, 16)...)
	if err := meshoptDecode(make([]byte, 6), meshoptTriangles, 3, 2, tri, 0); err == nil {
		t.Error("a triangle whose explicit code has no data: no error")
	}
}

// FuzzMeshoptDecode checks that no stream, count or stride panics the
// decoders or reads outside the stream, starting from the library's
// vectors.
func FuzzMeshoptDecode(f *testing.F) {
	for _, v := range readMeshoptVectors(f) {
		mode := map[string]uint8{"ATTRIBUTES": 0, "TRIANGLES": 1, "INDICES": 2}[v.Mode]
		filter := uint8(gltfMeshoptFilters[v.Filter])
		enc := unhex(f, v.Encoded)
		if len(enc) > 4096 {
			continue
		}
		f.Add(enc, mode, filter, uint16(v.Count), uint16(v.ByteStride))
	}
	f.Fuzz(func(t *testing.T, src []byte, mode, filter uint8, count, stride uint16) {
		m, s, n := meshoptMode(mode%3), int(stride), int(count)
		switch {
		case n < 1, s < 1:
			return
		case m == meshoptAttributes && (s%4 != 0 || s > 256):
			return
		case m != meshoptAttributes && s != 2 && s != 4:
			return
		case m == meshoptTriangles && n%3 != 0:
			return
		}
		version := 0 // the loader's reading of the header byte
		if len(src) > 0 && src[0] == 0xa1 {
			version = 1
		}
		if len(src) < meshoptMinStreamBytes(m, n, s, version) {
			return // the loader refuses these before it allocates
		}
		dst := make([]byte, n*s)
		if meshoptDecode(dst, m, n, s, src, 1) != nil || m != meshoptAttributes {
			return
		}
		switch fl := meshoptFilter(filter % 5); {
		case fl == meshoptFilterOctahedral && (s == 4 || s == 8),
			fl == meshoptFilterColor && (s == 4 || s == 8),
			fl == meshoptFilterQuaternion && s == 8,
			fl == meshoptFilterExponential:
			meshoptUnfilter(dst, fl, n, s)
		}
	})
}
