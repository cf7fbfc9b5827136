package scenes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// plyElementSpec is an element for writePLY: its name, its property
// lines ("float x", "list uchar int vertex_indices") and its rows, a list
// property's count followed by its values.
type plyElementSpec struct {
	name  string
	props []string
	rows  [][]float64
}

// writePLY encodes elements as a PLY file of format ("ascii",
// "binary_little_endian" or "binary_big_endian").
func writePLY(t testing.TB, format string, elements []plyElementSpec) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "ply\nformat %s 1.0\ncomment written by a test\nobj_info nothing\n", format)
	for _, e := range elements {
		fmt.Fprintf(&b, "element %s %d\n", e.name, len(e.rows))
		for _, p := range e.props {
			fmt.Fprintf(&b, "property %s\n", p)
		}
	}
	b.WriteString("end_header\n")
	var order binary.ByteOrder = binary.LittleEndian
	if format == "binary_big_endian" {
		order = binary.BigEndian
	}
	put := func(typ string, x float64) {
		if format == "ascii" {
			fmt.Fprintf(&b, "%v ", x)
			return
		}
		var err error
		switch plyTypes[typ] {
		case plyInt8:
			err = binary.Write(&b, order, int8(x))
		case plyUint8:
			err = binary.Write(&b, order, uint8(x))
		case plyInt16:
			err = binary.Write(&b, order, int16(x))
		case plyUint16:
			err = binary.Write(&b, order, uint16(x))
		case plyInt32:
			err = binary.Write(&b, order, int32(x))
		case plyUint32:
			err = binary.Write(&b, order, uint32(x))
		case plyFloat32:
			err = binary.Write(&b, order, float32(x))
		case plyFloat64:
			err = binary.Write(&b, order, x)
		default:
			t.Fatalf("type %q", typ)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range elements {
		for _, row := range e.rows {
			for _, p := range e.props {
				f := strings.Fields(p)
				if f[0] == "list" {
					n := int(row[0])
					put(f[1], row[0])
					for _, x := range row[1 : 1+n] {
						put(f[2], x)
					}
					row = row[1+n:]
					continue
				}
				put(f[0], row[0])
				row = row[1:]
			}
			if format == "ascii" {
				b.WriteString("\n")
			}
		}
	}
	return b.Bytes()
}

// plyFormats are the three PLY encodings.
var plyFormats = []string{"ascii", "binary_little_endian", "binary_big_endian"}

// readPLY parses data as the PLY file t.ply in a temporary folder.
func readPLY(t testing.TB, data []byte) (*importedMesh, error) {
	t.Helper()
	dir := t.TempDir()
	return parsePLY(testAssets(t, dir), filepath.Join(dir, "t.ply"), data, objCreaseCos)
}

// TestPLYAttributes reads a quad and a triangle with normals, texture
// coordinates and colours, in each encoding, with elements that are not
// read (a list of doubles, a list of lists' worth of bytes, scalars of
// every type) before and after them: positions, normals, uv (not
// flipped), colours (sRGB bytes decoded) and the quad's fan come out.
func TestPLYAttributes(t *testing.T) {
	skipped := plyElementSpec{name: "material", props: []string{"list uint double tags", "char a", "short b", "ushort c", "int d", "uint e", "float f", "list int8 uint16 ids"},
		rows: [][]float64{{2, 1.5, -2.5, -1, -300, 60000, -70000, 4e9, 0.5, 3, 1, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 0}}}
	vertex := plyElementSpec{name: "vertex", props: []string{"double x", "float y", "float z", "float nx", "float ny", "float nz", "uchar confidence", "float s", "float t", "uchar red", "uchar green", "uchar blue", "uchar alpha"},
		rows: [][]float64{
			{0, 0, 0, 0, 0, 1, 9, 0, 0, 255, 0, 0, 255},
			{1, 0, 0, 0, 0, 1, 9, 1, 0, 0, 255, 0, 255},
			{1, 1, 0, 0, 0, 1, 9, 1, 1, 0, 0, 255, 255},
			{0, 1, 0, 0, 0, 1, 9, 0, 1, 188, 188, 188, 255},
			{0, 0, 1, 1, 0, 0, 9, 0.25, 0.75, 0, 0, 0, 255},
		}}
	face := plyElementSpec{name: "face", props: []string{"uchar flags", "list uchar int vertex_indices", "list uchar float texcoord"},
		rows: [][]float64{{7, 4, 0, 1, 2, 3, 2, 0.5, 0.5}, {7, 3, 0, 4, 1, 0}}}
	srgb188 := float32(srgbToLinear(188.0 / 255))
	for _, format := range plyFormats {
		t.Run(format, func(t *testing.T) {
			im, err := readPLY(t, writePLY(t, format, []plyElementSpec{skipped, vertex, face, skipped}))
			if err != nil {
				t.Fatal(err)
			}
			if msg := checkImported(im); msg != "" {
				t.Fatal(msg)
			}
			m := im.meshes[0]
			want := tracer.MeshDesc{
				Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}},
				Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}},
				UVs:       []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.25, 0.75}},
				Colors:    []mgl32.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {srgb188, srgb188, srgb188}, {0, 0, 0}},
				Indices:   []uint32{0, 1, 2, 0, 2, 3, 0, 4, 1},
				Material:  -1,
			}
			if !reflect.DeepEqual(m, want) {
				t.Errorf("mesh\n got %+v\nwant %+v", m, want)
			}
			if len(im.materials) != 0 {
				t.Errorf("materials %v, want none", im.materials)
			}
		})
	}
}

// TestPLYAsOBJ: a PLY file is built as the OBJ file of the same vertices
// and faces: without normals, the same computed normals (a cube stays
// flat under the crease), the same split vertices, a concave polygon ear
// clipped; uv under each of its names.
func TestPLYAsOBJ(t *testing.T) {
	cube := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n" +
		"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
	// An L: concave, so ear clipped; with texture coordinates.
	ell := "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 1 1 0\nv 1 2 0\nv 0 2 0\n" +
		"vt 0 0\nvt 1 0\nvt 1 0.5\nvt 0.5 0.5\nvt 0.5 1\nvt 0 1\nf 1/1 2/2 3/3 4/4 5/5 6/6\n"
	for _, tt := range []struct {
		name, obj string
		uv        [2]string
	}{{"cube", cube, [2]string{}}, {"ell u v", ell, [2]string{"u", "v"}}, {"ell texture_s", ell, [2]string{"texture_s", "texture_t"}}} {
		dir := t.TempDir()
		want, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(tt.obj))
		if err != nil {
			t.Fatal(err)
		}
		vertex := plyElementSpec{name: "vertex", props: []string{"float x", "float y", "float z"}}
		if tt.uv[0] != "" {
			vertex.props = append(vertex.props, "float "+tt.uv[0], "float "+tt.uv[1])
		}
		face := plyElementSpec{name: "face", props: []string{"list uchar uint vertex_index"}}
		var uvs [][]float64
		for _, line := range strings.Split(strings.TrimSpace(tt.obj), "\n") {
			f := strings.Fields(line)
			var row []float64
			for _, x := range f[1:] {
				var v float64
				fmt.Sscan(strings.Split(x, "/")[0], &v)
				row = append(row, v)
			}
			switch f[0] {
			case "v":
				vertex.rows = append(vertex.rows, row)
			case "vt":
				uvs = append(uvs, row)
			case "f":
				for i := range row {
					row[i]--
				}
				face.rows = append(face.rows, append([]float64{float64(len(row))}, row...))
			}
		}
		for i := range uvs {
			vertex.rows[i] = append(vertex.rows[i], uvs[i]...)
		}
		for _, format := range plyFormats {
			got, err := readPLY(t, writePLY(t, format, []plyElementSpec{face, vertex})) // faces first: any order
			if err != nil {
				t.Fatalf("%s %s: %v", tt.name, format, err)
			}
			if !reflect.DeepEqual(got.meshes, want.meshes) {
				t.Errorf("%s %s: mesh\n got %+v\nwant %+v", tt.name, format, got.meshes, want.meshes)
			}
		}
	}
}

// TestPLYSceneAsOBJ: a scene placing a PLY cube, turned and scaled, with
// a crease angle, is the scene placing the same cube as OBJ: the same
// meshes, so the same compiled triangles and image.
func TestPLYSceneAsOBJ(t *testing.T) {
	obj := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n" +
		"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
	ply := "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\nproperty float z\n" +
		"element face 6\nproperty list uchar int vertex_indices\nend_header\n" +
		"0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n" +
		"4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n"
	dir := writeFiles(t, map[string]string{"cube.obj": obj, "cube.ply": ply})
	scene := func(file string) *tracer.SceneDesc {
		s, err := Parse(filepath.Join(dir, "s.json"), []byte(meshScene(`"white": {"type": "diffuse"}`,
			`{"type": "mesh", "file": "`+file+`", "material": "white", "crease_angle": 100, "transform": {"rotate": [10, 20, 30], "scale": [1, 2, -1]}}`)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := scene("cube.obj"), scene("cube.ply")
	if len(a.Meshes) != 1 || len(a.Meshes[0].Normals) == 0 {
		t.Fatalf("the OBJ scene has %d meshes (want 1, with normals)", len(a.Meshes))
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the PLY scene differs from the OBJ scene:\n%+v\n%+v", b.Meshes, a.Meshes)
	}
}

// TestPLYErrors checks the errors of malformed and hostile PLY files,
// the temporary folder's path removed.
func TestPLYErrors(t *testing.T) {
	const head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
	const tri = head + "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n"
	bin := func(body ...any) string { // a binary file of one float vertex and the faces
		var b bytes.Buffer
		b.WriteString("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n")
		b.WriteString("element face 1\nproperty list uint int vertex_indices\nend_header\n")
		binary.Write(&b, binary.LittleEndian, make([]float32, 9))
		for _, x := range body {
			binary.Write(&b, binary.LittleEndian, x)
		}
		return b.String()
	}
	tests := []struct{ name, ply, want string }{
		{"not PLY", "solid x\n", `t.ply: not a PLY file: its first line is not "ply"`},
		{"empty", "", `t.ply: the header has no end_header line`},
		{"no end_header", head, `t.ply: the header has no end_header line`},
		{"no format", "ply\nelement vertex 0\nend_header\n", `t.ply:3: end_header before any format line`},
		{"unknown format", "ply\nformat binary 1.0\n", `t.ply:2: format "binary": expected ascii, binary_little_endian or binary_big_endian`},
		{"version", "ply\nformat ascii 2.0\n", `t.ply:2: format version "2.0": only 1.0 is read`},
		{"unknown line", "ply\nformat ascii 1.0\nelemnt vertex 3\n", `t.ply:3: unknown header line "elemnt vertex 3"`},
		{"bad count", "ply\nformat ascii 1.0\nelement vertex -3\n", `t.ply:3: element: expected a name and a count, found "vertex -3"`},
		{"bad type", "ply\nformat ascii 1.0\nelement vertex 3\nproperty real x\n", `t.ply:4: property: type "real" is not a PLY type (char, uchar, short, ushort, int, uint, float, double)`},
		{"float count", "ply\nformat ascii 1.0\nelement face 3\nproperty list float int vertex_indices\n", `t.ply:4: property: list count type "float" is not a PLY integer type`},
		{"property first", "ply\nformat ascii 1.0\nproperty float x\n", `t.ply:3: a property before any element`},
		{"tristrips", "ply\nformat ascii 1.0\nelement tristrips 1\n", `t.ply:3: element tristrips: triangle strips are not read; convert them to faces (MeshLab, Blender)`},
		{"no x", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float nx\nend_header\n0\n", `t.ply:3: element vertex: no properties "x", "y", "z"`},
		{"partial normal", head + "property float nx\nend_header\n", `t.ply:3: element vertex: property "nx" without "ny", "nz"`},
		{"partial colour", head + "property uchar red\nproperty uchar green\nend_header\n", `t.ply:3: element vertex: property "red", "green" without "blue"`},
		{"int colour", head + "property int red\nproperty int green\nproperty int blue\nend_header\n", `t.ply:7: element vertex: property "red" is int; a colour is uchar, ushort, float or double`},
		{"no indices", "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int verts\nend_header\n", `t.ply:3: element face: no property "vertex_indices" (or "vertex_index")`},
		{"float indices", "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar float vertex_indices\nend_header\n", `t.ply:4: element face: property "vertex_indices" holds float values, not integers`},
		{"duplicate vertex", head + "element vertex 1\n", `t.ply:7: a second element "vertex"`},
		{"count past the file", strings.Replace(tri, "vertex 3", "vertex 3000000", 1), `t.ply:3: element vertex: 3000000 elements of at least 6 bytes each do not fit in the 18 bytes of the file after its header (less the elements before them)`},
		{"binary count past the file", "ply\nformat binary_big_endian 1.0\nelement vertex 4294967295\nproperty double x\nproperty double y\nproperty double z\nend_header\n",
			`t.ply:3: element vertex: 2147483648 elements of at least 24 bytes each do not fit in the 0 bytes of the file after its header (less the elements before them)`},
		{"ascii truncated", strings.TrimSuffix(tri, "1 0 0\n0 1 0\n"), `t.ply:3: element vertex: 3 elements of at least 6 bytes each do not fit in the 6 bytes of the file after its header (less the elements before them)`},
		{"ascii ends early", head + "end_header\n0.0000 0.0000 0.0000\n1.0000 0.0000 0.0000\n", `t.ply: the file ends before vertex 2 (the header gives 3 vertex elements)`},
		{"ascii no faces", tri + "\n\n\n\n\n\n\n", `t.ply: the file ends before face 0 (the header gives 1 face elements)`},
		{"ascii bad number", head + "end_header\n0 0 0\n1 x 0\n0 1 0\n", `t.ply:9: vertex 1: y: not a number: "x"`},
		{"ascii nan", head + "end_header\n0 0 0\n1 nan 0\n0 1 0\n", `t.ply:9: vertex 1: y: not a finite number: "nan"`},
		{"ascii too few", head + "end_header\n0 0 0\n1 0\n0 1 0\n\n\n", `t.ply:9: vertex 1: expected 3 values, found fewer`},
		{"ascii too many", head + "end_header\n0 0 0\n1 0 0 0\n0 1 0\n", `t.ply:9: vertex 1: more values than the header's 3 properties`},
		{"ascii index range", tri + "3 0 1 3\n", `t.ply:13: face 0: vertex index 3 is out of range: the file has 3 vertices`},
		{"ascii negative index", tri + "3 0 -1 2\n", `t.ply:13: face 0: vertex index -1 is out of range: the file has 3 vertices`},
		{"ascii two vertices", tri + "2 0 1      \n", `t.ply:13: face 0: a face needs at least 3 vertices, found 2`},
		{"ascii long list", tri + "255 0 1 2\n", `t.ply:13: face 0: vertex_indices: a list of 255 values is longer than the line`},
		{"ascii count range", tri + "256 0 1 2\n", `t.ply:13: face 0: vertex_indices: list count: "256" is out of range for uchar`},
		{"ascii index not integer", tri + "3 0 1 2.0\n", `t.ply:13: face 0: vertex_indices: not an integer: "2.0"`},
		{"ascii huge index", tri + "3 0 1 99999999999999999999\n", `t.ply:13: face 0: vertex_indices: "99999999999999999999" is out of range for int`},
		{"no faces", strings.Replace(tri, "face 1", "face 0", 1), `t.ply: the file holds no faces`},
		{"binary huge list", bin(uint32(0xffffffff), make([]byte, 12)), `t.ply: face 0: vertex_indices: a list of 4294967295 values of 4 bytes each, more than the 12 bytes left in the file`},
		{"binary truncated list", bin(uint32(4), int32(0), int32(1), int32(2)), `t.ply: face 0: vertex_indices: a list of 4 values of 4 bytes each, more than the 12 bytes left in the file`},
		{"binary index range", bin(uint32(3), int32(0), int32(7), int32(1)), `t.ply: face 0: vertex index 7 is out of range: the file has 3 vertices`},
		{"binary no faces", bin(), `t.ply:7: element face: 1 elements of at least 16 bytes each do not fit in the 36 bytes of the file after its header (less the elements before them)`},
		{"binary truncated", bin()[:len(bin())-1], `t.ply:3: element vertex: 3 elements of at least 12 bytes each do not fit in the 35 bytes of the file after its header (less the elements before them)`},
		{"binary infinite", strings.Replace(bin(uint32(3), int32(0), int32(1), int32(2)), "end_header\n\x00\x00\x00\x00", "end_header\n\x00\x00\x80\x7f", 1), `t.ply: vertex 0: position +Inf 0 0 is not finite`},
		{"binary double too large", "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty double x\nproperty double y\nproperty double z\nend_header\n" +
			string(binary.LittleEndian.AppendUint64(make([]byte, 16), math.Float64bits(1e300))), `t.ply: vertex 0: position 0 0 1e+300 is too large for float32`},
		{"colour out of range", strings.Replace(head, "vertex 3", "vertex 1", 1) + "property float red\nproperty float green\nproperty float blue\nend_header\n0 0 0 1 1 2\n", `t.ply:11: vertex 0: colour 1 1 2 is outside [0, 1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := parsePLY(testAssets(t, dir), filepath.Join(dir, "t.ply"), []byte(tt.ply), objCreaseCos)
			checkFileError(t, err, dir, tt.want)
		})
	}
}

// TestPLYTrailingBytes: what follows the last element is ignored, with a
// warning naming the file.
func TestPLYTrailingBytes(t *testing.T) {
	log := captureWarnings(t)
	const tri = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n" +
		"element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
	if _, err := readPLY(t, []byte(tri+"\n  \n")); err != nil || log.Len() > 0 {
		t.Fatalf("trailing white space: error %v, warnings %q", err, log.String())
	}
	if _, err := readPLY(t, []byte(tri+"\n3 0 1 2\n")); err != nil {
		t.Fatal(err)
	}
	if want := `t.ply: the text from line 15 on: ignored (the header's element counts may be wrong)`; !strings.Contains(log.String(), want) {
		t.Errorf("warnings %q do not hold %q", log.String(), want)
	}
}

// TestPLYLoadMesh: LoadMesh and a scene read .ply and .stl files, in any
// case, and a mesh file's error is placed at the object's file member.
func TestPLYLoadMesh(t *testing.T) {
	const tri = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n" +
		"element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
	stl := "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
	dir := writeFiles(t, map[string]string{"t.PLY": tri, "t.stl": stl, "bad.ply": strings.Replace(tri, "3 0 1 2", "3 0 1 5", 1)})
	for _, name := range []string{"t.PLY", "t.stl"} {
		m, err := LoadMesh(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Indices) != 3 || len(m.Positions) != 3 {
			t.Errorf("%s: %d indices, %d positions", name, len(m.Indices), len(m.Positions))
		}
	}
	_, err := Parse(filepath.Join(dir, "s.json"), []byte(meshScene(`"white": {"type": "diffuse"}`, `{"type": "mesh", "file": "bad.ply", "material": "white"}`)))
	if want := `objects[0].file: ` + dir + `/bad.ply:13: face 0: vertex index 5 is out of range: the file has 3 vertices`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
	_, err = Parse(filepath.Join(dir, "s.json"), []byte(meshScene(`"white": {"type": "diffuse"}`, `{"type": "mesh", "file": "t.stl", "material": "white", "crease_angle": 10}`)))
	if want := `crease_angle applies to OBJ and PLY files, whose normals trace computes; "t.stl" is a .stl file`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
}

// FuzzPLY checks that the PLY loader never panics, that its errors are
// one-line *Errors naming the file, and that a mesh it accepts is one
// the scene can take.
func FuzzPLY(f *testing.F) {
	vertex := plyElementSpec{name: "vertex", props: []string{"float x", "float y", "float z", "float nx", "float ny", "float nz", "float u", "float v", "uchar red", "uchar green", "uchar blue"},
		rows: [][]float64{{0, 0, 0, 0, 0, 1, 0, 0, 255, 0, 0}, {1, 0, 0, 0, 0, 1, 1, 0, 0, 255, 0}, {1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 255}, {0, 1, 0, 0, 0, 1, 0, 1, 9, 9, 9}}}
	plain := plyElementSpec{name: "vertex", props: []string{"double x", "double y", "double z"}, rows: [][]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}}
	face := plyElementSpec{name: "face", props: []string{"list uchar uint vertex_indices"}, rows: [][]float64{{4, 0, 1, 2, 3}, {3, 0, 2, 1}}}
	other := plyElementSpec{name: "edge", props: []string{"int vertex1", "list ushort short ids", "float w"}, rows: [][]float64{{0, 2, 1, 2, 0.5}}}
	for _, format := range plyFormats {
		for _, els := range [][]plyElementSpec{{vertex, face}, {face, other, plain}} {
			data := writePLY(f, format, els)
			f.Add(data)
			f.Add(data[:len(data)-3])
		}
	}
	dir := f.TempDir()
	for _, name := range []string{"cube-ascii.ply", "cube-binary.ply"} {
		if data, err := os.ReadFile(filepath.Join("testdata", "blender", name)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := parsePLY(testAssets(t, dir), filepath.Join(dir, "fuzz.ply"), data, objCreaseCos)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		if len(im.meshes) != 1 {
			t.Fatalf("%d meshes", len(im.meshes))
		}
		checkMeshShape(t, &im.meshes[0], len(im.materials))
		if msg := checkImported(im); msg != "" {
			t.Fatalf("checkImported: %s", msg)
		}
	})
}

// TestPLYColorTypes: a colour is read from uchar (/255), ushort (/65535)
// and float values alike, decoded from sRGB.
func TestPLYColorTypes(t *testing.T) {
	want := float32(srgbToLinear(0.2))
	for _, c := range []struct {
		typ string
		max float64
	}{{"uchar", 255}, {"ushort", 65535}, {"float", 1}, {"double", 1}} {
		vertex := plyElementSpec{name: "vertex", props: []string{"float x", "float y", "float z", "%s red", "%s green", "%s blue"},
			rows: [][]float64{{0, 0, 0, 0.2 * c.max, 0, c.max}, {1, 0, 0, 0.2 * c.max, 0, c.max}, {0, 1, 0, 0.2 * c.max, 0, c.max}}}
		for i := range vertex.props {
			vertex.props[i] = strings.Replace(vertex.props[i], "%s", c.typ, 1)
		}
		face := plyElementSpec{name: "face", props: []string{"list uchar int vertex_indices"}, rows: [][]float64{{3, 0, 1, 2}}}
		im, err := readPLY(t, writePLY(t, "binary_little_endian", []plyElementSpec{vertex, face}))
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if got := im.meshes[0].Colors[0]; math.Abs(float64(got[0]-want)) > 1e-6 || got[1] != 0 || got[2] != 1 {
			t.Errorf("%s: colour %v, want [%g 0 1]", c.typ, got, want)
		}
	}
}

// checkFileError checks that err is an *Error naming a file in dir, whose
// message, the folder left out, is want.
func checkFileError(t *testing.T, err error, dir, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var e *Error
	if !errors.As(err, &e) || e.File == "" {
		t.Fatalf("error %T %v is not an *Error naming a file", err, err)
	}
	if got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""); got != want {
		t.Errorf("error\n got %s\nwant %s", got, want)
	}
}
