package scenes

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dracoPLY is draco_decoder's binary PLY of a mesh of positions, normals
// and per-corner texcoords (scripts/draco-vectors.sh).
type dracoPLY struct {
	points  [][6]float32 // x y z nx ny nz
	faces   [][3]uint32
	corners [][3][2]float32 // each face's texcoords
}

// openDracoPLY reads the header of testdata/draco/name.ply.gz (a binary
// PLY of draco_decoder's): its vertex and face counts and the names of
// its float vertex properties, and returns a reader of the data after it.
func openDracoPLY(t *testing.T, name string) (br *bufio.Reader, nv, nf int, floatProps []string) {
	t.Helper()
	br = bufio.NewReader(bytes.NewReader(readGzipFile(t, filepath.Join("testdata", "draco", name+".ply.gz"))))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSpace(line)
		if line == "end_header" {
			return br, nv, nf, floatProps
		}
		var n int
		var s string
		if _, err := fmt.Sscanf(line, "element vertex %d", &n); err == nil {
			nv = n
		} else if _, err := fmt.Sscanf(line, "element face %d", &n); err == nil {
			nf = n
		} else if _, err := fmt.Sscanf(line, "property float %s", &s); err == nil {
			floatProps = append(floatProps, s)
		}
	}
}

// readDracoPLY reads testdata/draco/name.ply.gz.
func readDracoPLY(t *testing.T, name string) *dracoPLY {
	t.Helper()
	br, nv, nf, props := openDracoPLY(t, name)
	if strings.Join(props, " ") != "x y z nx ny nz" {
		t.Fatalf("%s: vertex properties %v, want x y z nx ny nz", name, props)
	}
	p := &dracoPLY{points: make([][6]float32, nv), faces: make([][3]uint32, nf), corners: make([][3][2]float32, nf)}
	le := binary.LittleEndian
	if err := binary.Read(br, le, p.points); err != nil {
		t.Fatal(err)
	}
	for i := range p.faces {
		var rec struct {
			N   uint8
			Idx [3]uint32
			M   uint8
			UV  [3][2]float32
		}
		if err := binary.Read(br, le, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.N != 3 || rec.M != 6 {
			t.Fatalf("%s: face %d has %d indices and %d texcoords", name, i, rec.N, rec.M)
		}
		p.faces[i], p.corners[i] = rec.Idx, rec.UV
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("%s: bytes after the faces", name)
	}
	return p
}

// readDracoVector reads testdata/draco/name.drc.
func readDracoVector(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "draco", name+".drc"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dracoFloats returns attribute a's values as float32s.
func dracoFloats(a *dracoAttribute) []float32 {
	v := make([]float32, len(a.data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.data[4*i:]))
	}
	return v
}

// dracoAttrOfKind returns m's attribute of Draco type kind.
func dracoAttrOfKind(t *testing.T, m *dracoMesh, kind int) *dracoAttribute {
	t.Helper()
	for i := range m.attrs {
		if m.attrs[i].kind == kind {
			return &m.attrs[i]
		}
	}
	t.Fatalf("no %s attribute", dracoAttributeKinds[kind])
	return nil
}

// checkDracoAgainstPLY compares a decoded mesh with the reference's
// decode bit for bit: the same points in the same order, the same faces
// in the same order, the same values.
func checkDracoAgainstPLY(t *testing.T, m *dracoMesh, ref *dracoPLY) {
	t.Helper()
	if m.numPoints != len(ref.points) || len(m.indices) != 3*len(ref.faces) {
		t.Fatalf("%d points, %d faces; the reference %d, %d", m.numPoints, len(m.indices)/3, len(ref.points), len(ref.faces))
	}
	pos := dracoFloats(dracoAttrOfKind(t, m, 0))
	nrm := dracoFloats(dracoAttrOfKind(t, m, 1))
	uv := dracoFloats(dracoAttrOfKind(t, m, 3))
	bad := 0
	for i, p := range ref.points {
		for c := 0; c < 3; c++ {
			if math.Float32bits(pos[3*i+c]) != math.Float32bits(p[c]) || math.Float32bits(nrm[3*i+c]) != math.Float32bits(p[3+c]) {
				if bad++; bad < 5 {
					t.Errorf("point %d: position %v normal %v; the reference %v %v", i, pos[3*i:3*i+3], nrm[3*i:3*i+3], p[:3], p[3:])
				}
				break
			}
		}
	}
	for f, face := range ref.faces {
		for j, want := range face {
			got := m.indices[3*f+j]
			if got != want {
				if bad++; bad < 5 {
					t.Errorf("face %d corner %d: point %d; the reference %d", f, j, got, want)
				}
				continue
			}
			for c := 0; c < 2; c++ {
				if math.Float32bits(uv[2*got+uint32(c)]) != math.Float32bits(ref.corners[f][j][c]) {
					if bad++; bad < 5 {
						t.Errorf("face %d corner %d: texcoord %v; the reference %v", f, j, uv[2*got:2*got+2], ref.corners[f][j])
					}
					break
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d differences from the reference decoder", bad)
	}
}

// TestDracoSequentialMatchesReference decodes draco_encoder's sequential
// streams (-cl 0) at Blender's quantization, at draco_encoder's (both raw
// symbols) and at 20 bits (tagged symbols), the library's as Blender's
// exporter calls it for a mesh with shape keys (speed 4), and the
// library's with its connectivity compressed (rANS-coded index deltas),
// and compares them with draco_decoder's decode of the same files.
func TestDracoSequentialMatchesReference(t *testing.T) {
	for _, name := range []string{"sphere-cl0-blender", "sphere-blender-shapekeys", "sphere-cl0", "sphere-cl0-q20", "sphere-cl0-compressed"} {
		t.Run(name, func(t *testing.T) {
			m, err := decodeDraco(readDracoVector(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkDracoAgainstPLY(t, m, readDracoPLY(t, name))
			for _, a := range m.attrs {
				if a.dataType != dracoFloat32 || a.normalized {
					t.Errorf("attribute %d: %s, normalized %v; want float32, not normalized", a.uniqueID, dracoTypeName[a.dataType], a.normalized)
				}
			}
		})
	}
}

// TestDracoSequentialColors decodes a sequential stream of positions and
// 8-bit RGBA colours (Draco's integer attribute, with the wrap transform)
// and compares it with draco_decoder's PLY of it.
func TestDracoSequentialColors(t *testing.T) {
	const name = "sphere-color-cl0"
	m, err := decodeDraco(readDracoVector(t, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	br, nv, nf, _ := openDracoPLY(t, name)
	type vertex struct {
		P    [3]float32
		RGBA [4]uint8
	}
	verts := make([]vertex, nv)
	if err := binary.Read(br, binary.LittleEndian, verts); err != nil {
		t.Fatal(err)
	}
	faces := make([]struct {
		N   uint8
		Idx [3]uint32
	}, nf)
	if err := binary.Read(br, binary.LittleEndian, faces); err != nil {
		t.Fatal(err)
	}
	if m.numPoints != nv || len(m.indices) != 3*nf {
		t.Fatalf("%d points, %d faces; the reference %d, %d", m.numPoints, len(m.indices)/3, nv, nf)
	}
	col := dracoAttrOfKind(t, m, 2)
	if col.dataType != dracoUint8 || col.components != 4 || !col.normalized {
		t.Fatalf("colour: %d × %s, normalized %v; want 4 × uint8, normalized", col.components, dracoTypeName[col.dataType], col.normalized)
	}
	pos := dracoFloats(dracoAttrOfKind(t, m, 0))
	for i, v := range verts {
		if !bytes.Equal(col.data[4*i:4*i+4], v.RGBA[:]) || [3]float32(pos[3*i:3*i+3]) != v.P {
			t.Fatalf("point %d: %v %v; the reference %v %v", i, pos[3*i:3*i+3], col.data[4*i:4*i+4], v.P, v.RGBA)
		}
	}
	for i, fc := range faces {
		if fc.N != 3 || [3]uint32(m.indices[3*i:3*i+3]) != fc.Idx {
			t.Fatalf("face %d: %v; the reference %v", i, m.indices[3*i:3*i+3], fc.Idx)
		}
	}
}

// dracoDeprecated returns sphere-cl7 with its first prediction scheme
// byte (the positions', parallelogram) made scheme 2 or 3 (Draco 1.1's
// multi-parallelogram and tex coords), found by trying every byte.
func dracoDeprecated(t *testing.T, scheme byte) []byte {
	t.Helper()
	src := readDracoVector(t, "sphere-cl7")
	want := fmt.Sprintf("the deprecated prediction scheme %d (Draco before 1.2): not supported", scheme)
	for i := range src {
		if src[i] != 1 {
			continue
		}
		b := bytes.Clone(src)
		b[i] = scheme
		if _, err := decodeDraco(b, nil); err != nil && errors.Is(err, errDracoUnsupported) && strings.Contains(err.Error(), want) {
			return b
		}
	}
	t.Fatalf("no byte of sphere-cl7 makes %q", want)
	return nil
}

// TestDracoRefusesDeprecated: a stream naming the prediction schemes of
// Draco before 1.2 (which the reference still reads, Draco 1.5 no longer
// writes) is refused with an error naming them, never decoded wrong.
func TestDracoRefusesDeprecated(t *testing.T) {
	for _, scheme := range []byte{2, 3} {
		_, err := decodeDraco(dracoDeprecated(t, scheme), nil)
		if !strings.Contains(err.Error(), "attribute decoder 0: attribute 0 (POSITION): ") {
			t.Errorf("scheme %d: %v, want the positions named", scheme, err)
		}
	}
}

// TestDracoHostile: every prefix of a valid stream and streams with a
// byte changed are errors or meshes within the stream's counts, never a
// panic; a point count beyond the budget is refused before allocation.
func TestDracoHostile(t *testing.T) {
	src := readDracoVector(t, "sphere-cl0-blender")
	for n := 0; n < len(src); n++ {
		if _, err := decodeDraco(src[:n], nil); err == nil {
			t.Fatalf("a stream cut to %d of %d bytes decoded", n, len(src))
		}
	}
	for i := 0; i < len(src); i += 7 {
		b := bytes.Clone(src)
		b[i] ^= 0x5a
		if m, err := decodeDraco(b, nil); err == nil {
			for _, v := range m.indices {
				if int(v) >= m.numPoints {
					t.Fatalf("byte %d changed: index %d of %d points", i, v, m.numPoints)
				}
			}
		}
	}
	// The header of sphere-cl0-blender: 1024 faces (bytes 11 and 12),
	// 561 points (13 and 14), raw 16-bit indices (byte 15, then 6144
	// bytes). Without the faces and with 2^28 − 1 points, the attributes'
	// values would take 3 GB: refused under a budget of 1 MB.
	b := bytes.Clone(src)
	if !bytes.Equal(b[11:16], []byte{0x80, 0x08, 0xb1, 0x04, 1}) {
		t.Fatalf("header % x, want 1024 faces, 561 points, raw indices", b[:16])
	}
	b = append(append(append([]byte{}, b[:11]...), 0, 0xff, 0xff, 0xff, 0x7f, 1), b[16+6144:]...)
	// 1000 attributes in one attribute decoder (after the faces, a count
	// of decoders, 1, then the attributes' varint, 3): more than the
	// 2.6 KB left can describe at 5 bytes each, refused before anything
	// is made for them.
	c := bytes.Clone(src)
	if c[16+6144] != 1 || c[16+6144+1] != 3 || len(c)-(16+6144+2) >= 5000 {
		t.Fatalf("attribute decoders % x, %d bytes left; want 1 decoder of 3 attributes, less than 5000", c[16+6144:16+6144+2], len(c)-(16+6144+2))
	}
	c = append(append(append([]byte{}, c[:16+6144+1]...), 0xe8, 0x07), c[16+6144+2:]...)
	if _, err := decodeDraco(c, nil); err == nil || !strings.Contains(err.Error(), ": 1000 attributes") {
		t.Errorf("1000 attributes: %v, want refused for the stream's length", err)
	}
	budget := errors.New("over budget")
	_, err := decodeDraco(b, func(n int64) error {
		if n > 1<<20 {
			return budget
		}
		return nil
	})
	if !errors.Is(err, budget) {
		t.Fatalf("2^28 points: %v, want the budget's error", err)
	}
}

// FuzzDracoDecode: any stream decodes or fails, never panics, allocates
// no more than its budget (the loader's reserve) allows, and a decoded
// mesh's indices and values are within its counts.
func FuzzDracoDecode(f *testing.F) {
	for _, name := range []string{"sphere-cl0-blender", "sphere-cl0", "sphere-cl0-compressed", "sphere-color-cl0", "sphere-cl3", "sphere-cl6-blender", "sphere-cl7", "sphere-cl9", "sphere-cl10", "topology-cl3", "topology-cl6-blender", "topology-cl7", "topology-cl10"} {
		f.Add(readDracoVector(f, name))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		decodeDracoChecked(t, src)
	})
}
