package scenes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// binarySTLFile encodes triangles as a binary STL file whose header
// begins with header, each facet with a zero normal.
func binarySTLFile(header string, tris [][3]mgl32.Vec3) []byte {
	var b bytes.Buffer
	h := make([]byte, 80)
	copy(h, header)
	b.Write(h)
	binary.Write(&b, binary.LittleEndian, uint32(len(tris)))
	for _, t := range tris {
		binary.Write(&b, binary.LittleEndian, [3]float32{})
		binary.Write(&b, binary.LittleEndian, t)
		binary.Write(&b, binary.LittleEndian, uint16(0))
	}
	return b.Bytes()
}

// readSTL parses data as the STL file t.stl in a temporary folder.
func readSTL(t testing.TB, data []byte) (*importedMesh, error) {
	t.Helper()
	dir := t.TempDir()
	return parseSTL(testAssets(t, dir), filepath.Join(dir, "t.stl"), data)
}

// TestSTL reads two facets in ASCII (in upper case, in two solids, with a
// facet normal that is not read; after a UTF-8 byte order mark too) and binary (with a header that begins
// with "solid", as many exporters write it): three vertices a facet, in
// the file's winding, no normals (flat), the object's material.
func TestSTL(t *testing.T) {
	tris := [][3]mgl32.Vec3{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{1, 0, 0}, {1, 1, 0.5}, {0, 1, 0}}}
	want := tracer.MeshDesc{Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0.5}, {0, 1, 0}},
		Indices: []uint32{0, 1, 2, 3, 4, 5}, Material: -1}
	ascii := "solid one\n  facet normal 0 0 -1\n    outer loop\n      vertex 0 0 0\n      vertex 1 0 0\n      vertex 0 1 0\n    endloop\n  endfacet\nendsolid one\n" +
		"SOLID TWO\r\nFACET NORMAL nan nan nan\r\nOUTER LOOP\r\nVERTEX 1 0 0\r\nVERTEX 1 1 5e-1\r\nVERTEX 0 1 0\r\nENDLOOP\r\nENDFACET\r\nENDSOLID"
	for name, data := range map[string][]byte{
		"ascii":                         []byte(ascii),
		"ascii after a byte order mark": append([]byte("\xef\xbb\xbf"), ascii...),
		"binary":                        binarySTLFile("made by a test", tris),
		"binary solid":                  binarySTLFile("solid made by a test", tris),
	} {
		im, err := readSTL(t, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg := checkImported(im); msg != "" {
			t.Fatal(msg)
		}
		if !reflect.DeepEqual(im.meshes, []tracer.MeshDesc{want}) {
			t.Errorf("%s: mesh\n got %+v\nwant %+v", name, im.meshes, want)
		}
	}
}

// TestSTLErrors checks the errors of malformed and hostile STL files, the
// temporary folder's path removed.
func TestSTLErrors(t *testing.T) {
	tri := [][3]mgl32.Vec3{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}
	one := binarySTLFile("", tri)
	huge := append([]byte(nil), one...)
	binary.LittleEndian.PutUint32(huge[80:], 0xffffffff)
	inf := binarySTLFile("", [][3]mgl32.Vec3{{{0, 0, 0}, {1, float32(math.Inf(1)), 0}, {0, 1, 0}}})
	const facet = "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
	tests := []struct{ name, stl, want string }{
		{"short", "abc", "t.stl: a binary STL file is at least 84 bytes; this one is 3"},
		{"count past the file", string(huge), "t.stl: the header gives 4294967295 facets, but the file is 134 bytes, room for 1"},
		{"binary no facets", string(binarySTLFile("", nil)), "t.stl: the file holds no facets"},
		{"binary infinite", string(inf), "t.stl: facet 0: vertex 1, 1 +Inf 0, is not finite"},
		{"ascii no facets", "solid x\nendsolid x\n", "t.stl: the file holds no facets"},
		{"ascii empty", "solid", "t.stl: the file ends before endsolid"},
		{"ascii truncated", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n", "t.stl: the file ends before vertex"},
		{"ascii no endsolid", "solid x\n" + facet, "t.stl: the file ends before endsolid"},
		{"ascii junk", "solid x\n" + facet + "endsolid\nfoo\n", `t.stl:10: expected solid or the end of the file, found "foo"`},
		{"ascii bad keyword", "solid x\nfacet normal 0 0 1\nouter loop\nvertx 0 0 0\n", `t.stl:4: expected vertex, found "vertx"`},
		{"ascii bad number", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 x\n", `t.stl:4: vertex: not a number: "x"`},
		{"ascii nan", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 nan\n", `t.stl:4: vertex: not a finite number: "nan"`},
		{"ascii two numbers", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\n", `t.stl:4: vertex: expected x y z, found 2 numbers`},
		{"ascii quad", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nvertex 1 1 0\n", `t.stl:7: a facet of more than 3 vertices: STL facets are triangles`},
		{"ascii facet", "solid x\nfacet 0 0 1\n", `t.stl:2: expected facet normal, found facet "0"`},
		{"ascii loop", "solid x\nfacet normal 0 0 1\nouter\n", `t.stl:3: expected outer loop, found outer ""`},
		{"ascii no endfacet", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nfacet\n", `t.stl:8: expected endfacet, found "facet"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := parseSTL(testAssets(t, dir), filepath.Join(dir, "t.stl"), []byte(tt.stl))
			checkFileError(t, err, dir, tt.want)
		})
	}
}

// TestSTLTrailingBytes: bytes after a binary file's facets are ignored,
// with a warning; a file whose header begins with "solid" and that has
// them is read as ASCII (and is refused).
func TestSTLTrailingBytes(t *testing.T) {
	log := captureWarnings(t)
	tri := [][3]mgl32.Vec3{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}
	if _, err := readSTL(t, append(binarySTLFile("x", tri), 0, 0)); err != nil {
		t.Fatal(err)
	}
	if want := "t.stl: 2 bytes after the last of the 1 facets: ignored"; !strings.Contains(log.String(), want) {
		t.Errorf("warnings %q do not hold %q", log.String(), want)
	}
	if _, err := readSTL(t, append(binarySTLFile("solid x", tri), 0, 0)); err == nil {
		t.Errorf("a binary file beginning with solid, of the wrong size, was read")
	}
}

// TestBlenderPLYSTL reads Blender 3.4's exports of one cube
// (testdata/blender/export.py): PLY (ASCII and binary, with normals,
// texture coordinates and colours) against its OBJ export, and STL (ASCII
// and binary) against the OBJ export of the same cube triangulated. The
// same triangles come out — positions, uv, normals and vertex colours at
// each corner, to the precision the files are written with — so PLY's
// uv and colours are read as Blender means them (no flip; sRGB bytes).
func TestBlenderPLYSTL(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "blender"))
	if err != nil {
		t.Fatal(err)
	}
	a := testAssets(t, dir)
	load := func(name string) *tracer.MeshDesc {
		t.Helper()
		im, err := meshLoader(filepath.Ext(name), objCreaseDegrees)(a, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if msg := checkImported(im); msg != "" {
			t.Fatalf("%s: %s", name, msg)
		}
		return &im.meshes[0]
	}
	// corners lists each triangle's corners, each the position and the
	// k (1: uv, 2: and normal, 3: and colour) other values it has,
	// sorted by position (rounded to 1e-4).
	corners := func(m *tracer.MeshDesc, k int) [][]float32 {
		var out [][]float32
		for i := 0; i < len(m.Indices); i += 3 {
			var tri []float32
			for _, v := range m.Indices[i : i+3] {
				tri = append(tri, m.Positions[v][:]...)
				if k >= 1 {
					tri = append(tri, m.UVs[v][:]...)
				}
				if k >= 2 {
					tri = append(tri, m.Normals[v][:]...)
				}
				if k >= 3 {
					tri = append(tri, m.Colors[v][:]...)
				}
			}
			out = append(out, tri)
		}
		key := func(tri []float32) string {
			n := len(tri) / 3
			return fmt.Sprintf("%.4f", append(append(tri[:3:3], tri[n:n+3]...), tri[2*n:2*n+3]...))
		}
		slices.SortFunc(out, func(a, b []float32) int { return strings.Compare(key(a), key(b)) })
		return out
	}
	// same reports whether the triangles a and b are the same within tol.
	same := func(a, b [][]float32, tol float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			for j := range a[i] {
				if math.Abs(float64(a[i][j]-b[i][j])) > tol {
					return false
				}
			}
		}
		return true
	}
	obj := load("cube.obj")
	if n := len(corners(obj, 3)); n != 12 {
		t.Fatalf("cube.obj: %d triangles, want 12", n)
	}
	for _, name := range []string{"cube-ascii.ply", "cube-binary.ply"} {
		// OBJ writes normals and colours (sRGB) with 4 decimals.
		if got, want := corners(load(name), 3), corners(obj, 3); !same(got, want, 1e-3) {
			t.Errorf("%s: triangles\n%v\nwant (cube.obj)\n%v", name, got, want)
		}
	}
	tri := load("cube-tri.obj")
	for _, name := range []string{"cube-ascii.stl", "cube-binary.stl"} {
		m := load(name)
		if len(m.Normals) != 0 {
			t.Errorf("%s has normals: STL is drawn flat", name)
		}
		if got, want := corners(m, 0), corners(tri, 0); !same(got, want, 1e-6) {
			t.Errorf("%s: triangles\n%v\nwant (cube-tri.obj)\n%v", name, got, want)
		}
	}
	// Blender wrote the colour of linear 0.1 as the byte 89, its sRGB
	// encoding: it is decoded back.
	if c := load("cube-binary.ply").Colors; math.Abs(float64(c[0][0])-0.1) > 2e-3 {
		t.Errorf("colour %v, want red 0.1 (the byte 89 decoded from sRGB)", c[0])
	}
}

// FuzzSTL checks that the STL loader never panics, that its errors are
// one-line *Errors naming the file, and that a mesh it accepts is one the
// scene can take.
func FuzzSTL(f *testing.F) {
	tris := [][3]mgl32.Vec3{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{1, 0, 0}, {1, 1, 0.5}, {0, 1, 0}}}
	for _, header := range []string{"", "solid binary"} {
		data := binarySTLFile(header, tris)
		f.Add(data)
		f.Add(data[:len(data)-7])
	}
	f.Add([]byte("solid one\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid one\n"))
	for _, name := range []string{"cube-ascii.stl", "cube-binary.stl"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "blender", name)); err == nil {
			f.Add(data)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := parseSTL(testAssets(t, dir), filepath.Join(dir, "fuzz.stl"), data)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		checkMeshShape(t, &im.meshes[0], 0)
		if msg := checkImported(im); msg != "" {
			t.Fatalf("checkImported: %s", msg)
		}
	})
}
