package scenes

import (
	"bufio"
	"errors"
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

// meshDir is the folder of the mesh fixtures.
const meshDir = "testdata/meshes"

// testAssets returns a resolver for files in dir, as for a scene file
// there.
func testAssets(t testing.TB, dir string) *assets {
	t.Helper()
	a, err := newAssets(filepath.Join(dir, "scene.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeFiles writes files (name → contents) into a new temporary folder
// and returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadOBJFixtures reads the OBJ files of testdata/meshes and checks
// the meshes and materials they give.
func TestLoadOBJFixtures(t *testing.T) {
	cubeMats := make([]int32, 12)
	for i := 6; i < 12; i++ {
		cubeMats[i] = 1
	}
	tests := []struct {
		file      string
		verts     int
		indices   []uint32 // nil: only the count tris is checked
		tris      int
		normals   bool
		uvs       bool
		materials []importedMaterial
		triMats   []int32
	}{
		{
			file: "cube.obj", verts: 24, tris: 12, normals: true, uvs: true,
			materials: []importedMaterial{
				// Ks 0.5, Ns 32: a glossy pbr material (mtl.go).
				{Name: "red", HasColor: true, Color: mgl32.Vec3{0.8, 0.1, 0.1}, PBR: true, Roughness: blinnPhongRoughness(32)},
				{Name: "blue", HasColor: true, Color: mgl32.Vec3{0.1, 0.1, 0.8}},
			},
			triMats: cubeMats,
		},
		{
			// A pentagon and a quad: fans around each face's first vertex;
			// the unused vertex 6 is left out.
			file: "quad.obj", verts: 5, tris: 5, normals: true,
			indices:   []uint32{0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 1, 3, 0, 3, 4},
			materials: []importedMaterial{},
		},
		{
			file: "negative.obj", verts: 6, tris: 2, normals: true, uvs: true,
			indices:   []uint32{0, 1, 2, 3, 4, 5},
			materials: []importedMaterial{},
		},
		{
			file: "nolib.obj", verts: 3, tris: 1, normals: true,
			materials: []importedMaterial{{Name: "skin"}},
			triMats:   []int32{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path, err := filepath.Abs(filepath.Join(meshDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			im, err := loadOBJ(testAssets(t, meshDir), path)
			if err != nil {
				t.Fatal(err)
			}
			if len(im.meshes) != 1 {
				t.Fatalf("%d meshes, want 1", len(im.meshes))
			}
			m := im.meshes[0]
			checkMeshShape(t, &m, len(im.materials))
			if len(m.Positions) != tt.verts || len(m.Indices) != 3*tt.tris {
				t.Errorf("%d vertices, %d triangles; want %d, %d", len(m.Positions), len(m.Indices)/3, tt.verts, tt.tris)
			}
			if tt.indices != nil && !slices.Equal(m.Indices, tt.indices) {
				t.Errorf("indices %v, want %v", m.Indices, tt.indices)
			}
			if (len(m.Normals) > 0) != tt.normals || (len(m.UVs) > 0) != tt.uvs {
				t.Errorf("normals %d, UVs %d; want normals %v, UVs %v", len(m.Normals), len(m.UVs), tt.normals, tt.uvs)
			}
			if !reflect.DeepEqual(im.materials, tt.materials) {
				t.Errorf("materials %+v, want %+v", im.materials, tt.materials)
			}
			if !slices.Equal(m.Materials, tt.triMats) || m.Material != -1 {
				t.Errorf("triangle materials %v (Material %d), want %v (-1)", m.Materials, m.Material, tt.triMats)
			}
		})
	}
}

// TestOBJCubeGeometry checks that the cube's faces keep their
// counter-clockwise order: each triangle's geometric normal points along
// its vertices' normals, away from the centre.
func TestOBJCubeGeometry(t *testing.T) {
	path, _ := filepath.Abs(filepath.Join(meshDir, "cube.obj"))
	im, err := loadOBJ(testAssets(t, meshDir), path)
	if err != nil {
		t.Fatal(err)
	}
	m := im.meshes[0]
	for i := 0; i < len(m.Indices); i += 3 {
		a, b, c := m.Positions[m.Indices[i]], m.Positions[m.Indices[i+1]], m.Positions[m.Indices[i+2]]
		g := b.Sub(a).Cross(c.Sub(a)).Normalize()
		for _, k := range m.Indices[i : i+3] {
			if n := m.Normals[k]; g.Dot(n) < 0.999 {
				t.Errorf("triangle %d: geometric normal %v, vertex normal %v", i/3, g, n)
			}
		}
		if centre := a.Add(b).Add(c).Mul(1.0 / 3); g.Dot(centre) <= 0 {
			t.Errorf("triangle %d faces inward", i/3)
		}
	}
}

// TestOBJSyntax checks the statements and forms the loader accepts.
func TestOBJSyntax(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	tests := []struct {
		name  string
		obj   string
		check func(t *testing.T, m *tracer.MeshDesc, mats []importedMaterial)
	}{
		{"crlf and bom", "\xEF\xBB\xBFv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if m.Positions[1] != (mgl32.Vec3{1, 0, 0}) {
				t.Errorf("positions %v", m.Positions)
			}
		}},
		{"continuation and comments", "# comment\n" + tri + "f 1 \\\n 2 \\\n 3 # trailing comment\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if !slices.Equal(m.Indices, []uint32{0, 1, 2}) {
				t.Errorf("indices %v", m.Indices)
			}
		}},
		{"w and vertex colours", "v 0 0 0 1\nv 1 0 0 1 0 0\nv 0 1 0 0.5 0.5 0.5 1\nf 1 2 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if m.Positions[2] != (mgl32.Vec3{0, 1, 0}) {
				t.Errorf("positions %v", m.Positions)
			}
		}},
		{"vt with one or three values", tri + "vt 0.5\nvt 0.25 0.75 0\nf 1/1 2/2 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			want := []mgl32.Vec2{{0.5, 0}, {0.25, 0.75}, {0, 0}}
			if !slices.Equal(m.UVs, want) {
				t.Errorf("UVs %v, want %v", m.UVs, want)
			}
		}},
		{"ignored statements", "o thing\ng a b\ns 1\nl 1 2\np 1\nvp 0.5\ncstype bezier\nfrobnicate 1 2\n" + tri + "f 1 2 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if len(m.Indices) != 3 {
				t.Errorf("indices %v", m.Indices)
			}
		}},
		{"shared vertices", tri + "v 1 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\nf 2//1 4//1 3//1\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if len(m.Positions) != 4 || len(m.Normals) != 4 || !slices.Equal(m.Indices, []uint32{0, 1, 2, 1, 3, 2}) {
				t.Errorf("positions %v, normals %v, indices %v", m.Positions, m.Normals, m.Indices)
			}
		}},
		{"one vertex, two normals", tri + "vn 0 0 1\nvn 0 0 -1\nf 1//1 2//1 3//1\nf 1//2 3//2 2//2\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if len(m.Positions) != 6 {
				t.Errorf("%d vertices, want 6", len(m.Positions))
			}
		}},
		{"some faces without normals: computed for those", tri + "v 1 1 0\nvn 0 0.6 0.8\nf 1//1 2//1 3//1\nf 2 4 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			// The first face keeps its vn; the second, in the z = 0
			// plane, gets its own normal +z at each corner.
			want := []mgl32.Vec3{{0, 0.6, 0.8}, {0, 0.6, 0.8}, {0, 0.6, 0.8}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}}
			if len(m.Normals) != 6 {
				t.Fatalf("normals %v, want %v", m.Normals, want)
			}
			for c, k := range m.Indices {
				if !closeVec3(m.Normals[k], want[c]) {
					t.Errorf("corner %d: normal %v, want %v", c, m.Normals[k], want[c])
				}
			}
		}},
		{"faces before usemtl and bare usemtl", tri + "f 1 2 3\nusemtl a\nf 1 2 3\nusemtl\nf 1 2 3\nusemtl b\nusemtl a\nf 1 2 3\n", func(t *testing.T, m *tracer.MeshDesc, mats []importedMaterial) {
			if !slices.Equal(m.Materials, []int32{-1, 0, -1, 0}) || len(mats) != 1 || mats[0].Name != "a" {
				t.Errorf("triangle materials %v, materials %+v", m.Materials, mats)
			}
		}},
		{"material name with spaces", tri + "usemtl my  red \nf 1 2 3\n", func(t *testing.T, m *tracer.MeshDesc, mats []importedMaterial) {
			if len(mats) != 1 || mats[0].Name != "my  red" {
				t.Errorf("materials %+v", mats)
			}
		}},
		{"tabs", "v\t0\t0\t0\nv 1 0 0\nv 0 1 0\nf\t1\t2\t3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if len(m.Indices) != 3 {
				t.Errorf("indices %v", m.Indices)
			}
		}},
		{"trailing slashes: v/vt/ and v//", tri + "vt 0.5 0.25\nf 1/1/ 2// 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if !slices.Equal(m.UVs, []mgl32.Vec2{{0.5, 0.25}, {}, {}}) || !slices.Equal(m.Indices, []uint32{0, 1, 2}) {
				t.Errorf("UVs %v, indices %v", m.UVs, m.Indices)
			}
		}},
		{"degenerate triangle kept", tri + "f 1 1 2\nf 1 2 3\n", func(t *testing.T, m *tracer.MeshDesc, _ []importedMaterial) {
			if len(m.Indices) != 6 {
				t.Errorf("indices %v", m.Indices)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(tt.obj))
			if err != nil {
				t.Fatal(err)
			}
			checkMeshShape(t, &im.meshes[0], len(im.materials))
			tt.check(t, &im.meshes[0], im.materials)
		})
	}
}

// TestMTL checks the material library statements.
func TestMTL(t *testing.T) {
	tests := []struct {
		name string
		mtl  string
		want importedMaterial
	}{
		{"Kd", "newmtl m\nKd 0.5 0.25 1\n", importedMaterial{Name: "m", HasColor: true, Color: mgl32.Vec3{0.5, 0.25, 1}}},
		{"grey Kd", "newmtl m\nKd 0.5\n", importedMaterial{Name: "m", HasColor: true, Color: mgl32.Vec3{0.5, 0.5, 0.5}}},
		{"no Kd", "newmtl m\nKa 1 1 1\nillum 2\n", importedMaterial{Name: "m", HasColor: true, Color: defaultAlbedo}},
		{"no Kd, Ks without Ns", "newmtl m\nKs 1 1 1\nillum 2\n", importedMaterial{Name: "m", HasColor: true, Color: defaultAlbedo, PBR: true, Roughness: 1}},
		{"last definition wins", "newmtl m\nKd 1 0 0\nnewmtl m\nKd 0 1 0\n", importedMaterial{Name: "m", HasColor: true, Color: mgl32.Vec3{0, 1, 0}}},
		{"other statements", "# c\nnewmtl m\r\nKa 1 1 1\nKd 0.2 0.3 0.4 # comment\nNs 10\nd 1\nTr 0\n", importedMaterial{Name: "m", HasColor: true, Color: mgl32.Vec3{0.2, 0.3, 0.4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"t.mtl": tt.mtl})
			obj := "mtllib t.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n"
			im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(im.materials, []importedMaterial{tt.want}) {
				t.Errorf("materials %+v, want %+v", im.materials, tt.want)
			}
		})
	}
}

// TestMapStatement checks how a texture map statement's options and file
// name are read, and the UV transform of its -s and -o.
func TestMapStatement(t *testing.T) {
	tests := []struct {
		in, file string
		uv       [6]float32
		channel  string
		err      string
	}{
		{in: " wood.png", file: "wood.png"},
		{in: " my wood.png ", file: "my wood.png"},
		{in: " -s 2 2 1 -o 0.5 -clamp on -mm 0 1 wood.png", file: "wood.png", uv: [6]float32{2, 0, 0, 2, 0.5, 0}},
		{in: " -s 2 wood.png", file: "wood.png", uv: [6]float32{2, 0, 0, 1, 0, 0}},
		{in: " -s 2 -3 -o 0.25 0.75 1 wood.png", file: "wood.png", uv: [6]float32{2, 0, 0, -3, 0.25, 0.75}},
		{in: " -o 0 0.5 wood.png", file: "wood.png", uv: [6]float32{1, 0, 0, 1, 0, 0.5}},
		{in: " -s 1 1 1 -o 0 0 0 wood.png", file: "wood.png"}, // the identity: no transform
		{in: " -s 4 -s 2 wood.png", file: "wood.png", uv: [6]float32{2, 0, 0, 1, 0, 0}},
		{in: " -imfchan g -bm 0.5 -t 1 1 r.png", file: "r.png", channel: "g"},
		{in: " -blendu off", err: "missing file name"},
		{in: " -x 1 wood.png", err: `unknown option "-x"`},
		{in: " -s wood.png", err: "option -s: expected a number"},
		{in: " -s 0 1 wood.png", err: "option -s: a scale of 0 maps the texture to one texel"},
		{in: " -s 1 0 wood.png", err: "option -s: a scale of 0 maps the texture to one texel"},
		{in: " -o nan wood.png", err: "option -o: expected a number"},
		{in: " -imfchan", err: "option -imfchan: missing argument"},
		{in: " -colorspace linear wood.png", file: "wood.png"},
		{in: " -colorspace sRGB -s 2 wood.png", file: "wood.png", uv: [6]float32{2, 0, 0, 1, 0, 0}},
		{in: " -colorspace xyz wood.png", err: `option -colorspace: "xyz" is not supported (linear or srgb)`},
		{in: ` textures\wood.png`, file: "textures/wood.png"},
		{in: "", err: "missing file name"},
	}
	for _, tt := range tests {
		m, err := mapStatement([]byte(tt.in))
		if m.file != tt.file || m.uv != tt.uv || m.channel != tt.channel || err != tt.err {
			t.Errorf("mapStatement(%q) = %+v, %q; want file %q, uv %v, channel %q, %q", tt.in, m, err, tt.file, tt.uv, tt.channel, tt.err)
		}
	}
}

// objErrorTests are bad OBJ and MTL files and the error each gets, the
// temporary folder's path removed.
var objErrorTests = []struct {
	name string
	obj  string
	mtl  string // written as bad.mtl when not empty
	want string
}{
	{"malformed number", "v 0 0 0\nv 1 x 0\n", "", `bad.obj:2: v: not a number: "x"`},
	{"too few coordinates", "v 0 0\n", "", "bad.obj:1: v: expected x y z [w], found 2 numbers"},
	{"too many coordinates", "v 0 0 0 0 0 0 0 0\n", "", "bad.obj:1: v: too many numbers: expected x y z [w]"},
	{"NaN", "\nv nan 0 0\n", "", `bad.obj:2: v: not a finite number: "nan"`},
	{"infinity", "vn 0 Inf 0\n", "", `bad.obj:1: vn: not a finite number: "Inf"`},
	{"too large for float32", "vt 1e39\n", "", `bad.obj:1: vt: "1e39" is too large for float32`},
	{"vt without values", "vt\n", "", "bad.obj:1: vt: expected u [v [w]], found 0 numbers"},
	{"index 0", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "", "bad.obj:4: f: vertex index 0 is invalid (OBJ indices start at 1)"},
	{"index out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "", "bad.obj:4: f: vertex index 4 is out of range: 3 vertices read so far"},
	{"negative index out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", "", "bad.obj:4: f: vertex index -4 is out of range: 3 vertices read so far"},
	{"forward reference", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", "", "bad.obj:3: f: vertex index 3 is out of range: 2 vertices read so far"},
	{"vt out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", "", "bad.obj:5: f: texture coordinate index 2 is out of range: 1 texture coordinate read so far"},
	{"vn out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", "", "bad.obj:4: f: normal index 1 is out of range: 0 normals read so far"},
	{"huge index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999999\n", "", "bad.obj:4: f: vertex index 99999999999999999999999 is out of range: 3 vertices read so far"},
	{"two vertices", "v 0 0 0\nv 1 0 0\nf 1 2\n", "", "bad.obj:3: f: a face needs at least 3 vertices, found 2"},
	{"empty face", "f\n", "", "bad.obj:1: f: a face needs at least 3 vertices, found 0"},
	{"malformed index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", "", `bad.obj:4: f: malformed vertex index "x"`},
	{"empty vertex index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /1\n", "", `bad.obj:4: f: malformed vertex index ""`},
	{"four parts", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1 2 3/1/1/1\n", "", "bad.obj:6: f: malformed face vertex: expected v, v/vt, v//vn or v/vt/vn"},
	{"three slashes", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3///\n", "", "bad.obj:4: f: malformed face vertex: expected v, v/vt, v//vn or v/vt/vn"},
	{"no faces", "v 0 0 0\n# nothing else\n", "", "bad.obj: the file holds no faces"},
	{"empty file", "", "", "bad.obj: the file holds no faces"},
	{"backslash mtllib outside", "mtllib ..\\x.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "", `bad.obj:1: mtllib "../x.mtl": "../x.mtl" is outside the scene's folder`},
	{"backslash map outside", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\nmap_Kd ..\\..\\..\\..\\..\\..\\..\\..\\etc\\passwd\n", `bad.mtl:2: map_Kd "../../../../../../../../etc/passwd" is outside the scene's folder`},
	{"mtllib outside", "mtllib ../x.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "", `bad.obj:1: mtllib "../x.mtl": "../x.mtl" is outside the scene's folder`},
	{"bad Kd", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKd 1 x 1\n", `bad.mtl:2: Kd: not a number: "x"`},
	{"negative Kd", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\n\nKd 1 -0.5 1\n", "bad.mtl:3: Kd: a colour component must be >= 0, found -0.5"},
	{"Kd of two values", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKd 1 1\n", "bad.mtl:2: Kd: expected r g b (or one grey value), found 2 numbers"},
	{"Kd spectral", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKd spectral x.rfl\n", "bad.mtl:2: Kd spectral is not supported; give an RGB colour, Kd r g b"},
	{"Kd before newmtl", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "Kd 1 1 1\n", "bad.mtl:1: Kd before any newmtl"},
	{"newmtl without name", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl \n", "bad.mtl:1: newmtl: missing material name"},
	{"map_Kd option", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nmap_Kd -q x.png\n", `bad.mtl:2: map_Kd: unknown option "-q"`},
	{"map_Kd missing image", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\nKd 1 1 1\nmap_Kd missing.png\n", `bad.mtl:3: map_Kd "missing.png": `},
	{"map_Kd scale 0", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nmap_Kd -s 0 x.png\n", "bad.mtl:2: map_Kd: option -s: a scale of 0 maps the texture to one texel"},
	{"Ks before newmtl", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "Ks 1 1 1\n", "bad.mtl:1: Ks before any newmtl"},
	{"negative Ks", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKs 0.5 -1 0\n", "bad.mtl:2: Ks: a colour component must be >= 0, found -1"},
	{"Ks of two values", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKs 1 1\n", "bad.mtl:2: Ks: expected r g b (or one grey value), found 2 numbers"},
	{"Ke spectral", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKe spectral x.rfl\n", "bad.mtl:2: Ke spectral is not supported; give an RGB colour, Ke r g b"},
	{"Ke too large", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKe 1 1e39 1\n", `bad.mtl:2: Ke: "1e39" is too large for float32`},
	{"Ke NaN", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKe nan\n", `bad.mtl:2: Ke: not a finite number: "nan"`},
	{"negative Ns", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nKs 1 1 1\nNs -1\n", "bad.mtl:3: Ns: expected a number >= 0, found -1"},
	{"Ns infinite", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nNs inf\n", `bad.mtl:2: Ns: not a finite number: "inf"`},
	{"Pr above 1", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nPr 1.5\n", "bad.mtl:2: Pr: expected a number in [0, 1], found 1.5"},
	{"negative Pm", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\n# metal\nPm -0.1\n", "bad.mtl:3: Pm: expected a number in [0, 1], found -0.1"},
	{"Pr not a number", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nPr rough\n", `bad.mtl:2: Pr: not a number: "rough"`},
	{"Pr without value", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nPr # none\n", "bad.mtl:2: Pr: expected a number in [0, 1]"},
	{"Pm of two values", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nPm 0.5 0.5\n", "bad.mtl:2: Pm: too many numbers: expected one"},
	{"Pm before newmtl", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "Pm 1\n", "bad.mtl:1: Pm before any newmtl"},
	{"map_Pr matte channel", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nmap_Pr -imfchan m r.png\n", `bad.mtl:2: map_Pr: -imfchan "m" is not supported (r, g, b or l)`},
	{"map_Pm without file", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "newmtl m\nmap_Pm -s 2\n", "bad.mtl:2: map_Pm: missing file name"},
	{"map_Ke missing image", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\nKe 1 1 1\nmap_Ke missing.png\n", `bad.mtl:3: map_Ke "missing.png": `},
	{"map_Pr missing image", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\nmap_Pr missing.png\n", `bad.mtl:2: map_Pr "missing.png": `},
	{"map_Pm missing image", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\n\nmap_Pm missing.png\n", `bad.mtl:3: map_Pm "missing.png": `},
	{"map_Pr and map_Pm transforms differ", "mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n", "newmtl m\nmap_Pr -s 2 r.png\nmap_Pm m.png\n", "bad.mtl:3: map_Pm: its -s and -o differ from those of map_Pr (line 2); the renderer reads both maps as one texture, so they must be the same"},
}

// TestOBJErrors checks that each class of bad input is an error naming
// the file and line.
func TestOBJErrors(t *testing.T) {
	for _, tt := range objErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			// The scene's folder is s; x.mtl lies outside it.
			files := map[string]string{"s/bad.obj": tt.obj, "s/a.mtl": "", "x.mtl": ""}
			if tt.mtl != "" {
				files["s/bad.mtl"] = tt.mtl
			}
			dir := filepath.Join(writeFiles(t, files), "s")
			_, err := loadOBJ(testAssets(t, dir), filepath.Join(dir, "bad.obj"))
			if err == nil {
				t.Fatal("no error")
			}
			var e *Error
			if !errors.As(err, &e) || e.File == "" {
				t.Fatalf("error %T %v is not an *Error naming a file", err, err)
			}
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// checkMeshShape fails t unless m is a mesh the scene can take: per-vertex
// arrays of one length, indices and materials in range, finite values.
func checkMeshShape(t testing.TB, m *tracer.MeshDesc, materials int) {
	t.Helper()
	n := len(m.Positions)
	switch {
	case len(m.Indices) == 0 || len(m.Indices)%3 != 0:
		t.Fatalf("%d indices", len(m.Indices))
	case len(m.Normals) != 0 && len(m.Normals) != n, len(m.UVs) != 0 && len(m.UVs) != n:
		t.Fatalf("%d positions, %d normals, %d UVs", n, len(m.Normals), len(m.UVs))
	case len(m.Materials) != 0 && len(m.Materials) != len(m.Indices)/3:
		t.Fatalf("%d materials for %d triangles", len(m.Materials), len(m.Indices)/3)
	}
	for _, i := range m.Indices {
		if int(i) >= n {
			t.Fatalf("index %d of %d vertices", i, n)
		}
	}
	for _, k := range m.Materials {
		if k < -1 || int(k) >= materials {
			t.Fatalf("material %d of %d", k, materials)
		}
	}
	if p, ok := allFinite(reflect.ValueOf(*m), "mesh"); !ok {
		t.Fatalf("%s is not finite", p)
	}
}

// FuzzOBJ checks that the OBJ loader never panics, that its errors are
// one-line *Errors naming the file, and that a mesh it accepts has
// per-vertex arrays of equal length, indices and materials in range, and
// finite values, and goes through the identity transform.
func FuzzOBJ(f *testing.F) {
	for _, name := range []string{"cube.obj", "quad.obj", "negative.obj", "nolib.obj"} {
		data, err := os.ReadFile(filepath.Join(meshDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tt := range objErrorTests {
		f.Add([]byte(tt.obj))
	}
	f.Add([]byte("mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nusemtl a\nf 1/1/1 2/1/1 3/1/1\nusemtl b\nf -1 -2 -3\n"))
	dir := f.TempDir()
	mtl := "newmtl a\nKd 1 0 0\nnewmtl b\nKd 0.5\nnewmtl c\nmap_Kd missing.png\n"
	if err := os.WriteFile(filepath.Join(dir, "m.mtl"), []byte(mtl), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.obj")
		im, err := parseOBJ(testAssets(t, dir), path, data)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		if len(im.meshes) != 1 {
			t.Fatalf("%d meshes", len(im.meshes))
		}
		m := &im.meshes[0]
		checkMeshShape(t, m, len(im.materials))
		if msg := checkImported(im); msg != "" {
			t.Fatalf("checkImported: %s", msg)
		}
		out, ok := identityTransform.mesh(m, false)
		if !ok {
			t.Fatalf("identity transform failed")
		}
		for _, n := range out.Normals {
			if l := n.Len(); math.Abs(float64(l)-1) > 1e-5 {
				t.Fatalf("normal %v of length %g", n, l)
			}
		}
	})
}

// writeGridOBJ writes an OBJ file of an n×n grid of vertices with texture
// coordinates and normals, two triangles per cell, the way exporters
// write them, and returns the number of triangles.
func writeGridOBJ(tb testing.TB, path string, n int) int {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# %d×%d grid\no grid\n", n, n)
	for j := range n {
		for i := range n {
			x, z := float64(i)/float64(n-1), float64(j)/float64(n-1)
			fmt.Fprintf(w, "v %.6f %.6f %.6f\n", x*10-5, 0.25*x*z, z*10-5)
		}
	}
	for j := range n {
		for i := range n {
			fmt.Fprintf(w, "vt %.6f %.6f\n", float64(i)/float64(n-1), float64(j)/float64(n-1))
		}
	}
	for j := range n {
		for i := range n {
			fmt.Fprintf(w, "vn %.6f %.6f %.6f\n", -0.025*float64(j)/float64(n-1), 1.0, -0.025*float64(i)/float64(n-1))
		}
	}
	tris := 0
	for j := range n - 1 {
		for i := range n - 1 {
			a := j*n + i + 1
			b, c, d := a+1, a+n+1, a+n
			fmt.Fprintf(w, "f %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, d, d, d, c, c, c)
			fmt.Fprintf(w, "f %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, c, c, c, b, b, b)
			tris += 2
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return tris
}

// BenchmarkLoadOBJ reads a 708×708 grid of about a million triangles
// (100 MB, with texture coordinates and normals) from a file, as a mesh
// object does, and reports triangles/s.
func BenchmarkLoadOBJ(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "grid.obj")
	tris := writeGridOBJ(b, path, 708)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		im, err := loadOBJ(testAssets(b, dir), path)
		if err != nil {
			b.Fatal(err)
		}
		if len(im.meshes[0].Indices) != 3*tris {
			b.Fatalf("%d indices, want %d", len(im.meshes[0].Indices), 3*tris)
		}
	}
	b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds(), "triangles/s")
}

// ringOBJ is a square ring (outside 4×4, hole 2×2, in the plane z = 0,
// facing −z) written as one polygon, as exporters write rings: the
// outside counter-clockwise from (0, 0), a seam to the hole's corner
// (1, 1), the hole clockwise, and the seam back.
const ringOBJ = "v 0 0 0\nv 4 0 0\nv 4 4 0\nv 0 4 0\nv 1 1 0\nv 1 3 0\nv 3 3 0\nv 3 1 0\n"

// ringFace is the ring's polygon.
const ringFace = "f 1 2 3 4 1 5 6 7 8 5\n"

// ringByHand is the ring's polygon ear clipped by hand, as the loader
// should clip it (earClipper: walk the ring from vertex 1, clip each
// ear met, and go on from the vertex after it): (5 1 2), (4 1 5),
// (4 5 6), (4 6 7), (8 5 2), (8 2 3), (3 4 7), (3 7 8). Their areas add
// up to 12, the ring's, and none covers the hole.
const ringByHand = "f 5 1 2\nf 4 1 5\nf 4 5 6\nf 4 6 7\nf 8 5 2\nf 8 2 3\nf 3 4 7\nf 3 7 8\n"

// TestOBJConcaveRing checks that a concave polygon keeps its shape: the
// ring loads as the triangles of its hand ear clipping, and renders
// pixel for pixel as they do, with its hole open (a fan from the first
// vertex, as faces were split before, fills it).
func TestOBJConcaveRing(t *testing.T) {
	load := func(obj string) *tracer.MeshDesc {
		t.Helper()
		dir := t.TempDir()
		im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj))
		if err != nil {
			t.Fatal(err)
		}
		checkMeshShape(t, &im.meshes[0], 0)
		return &im.meshes[0]
	}
	// The two number their vertices in order of first use, so they are
	// compared triangle by triangle, corner by corner.
	corners := func(m *tracer.MeshDesc) []mgl32.Vec3 {
		var out []mgl32.Vec3
		for _, k := range m.Indices {
			out = append(out, m.Positions[k])
		}
		return out
	}
	ring, hand := load(ringOBJ+ringFace), load(ringOBJ+ringByHand)
	if got, want := corners(ring), corners(hand); !slices.Equal(got, want) {
		t.Errorf("the ring loads as the triangles\n%v\nits hand ear clipping as\n%v", got, want)
	}
	area := float32(0)
	for i := 0; i < len(ring.Indices); i += 3 {
		a, b, c := ring.Positions[ring.Indices[i]], ring.Positions[ring.Indices[i+1]], ring.Positions[ring.Indices[i+2]]
		z := b.Sub(a).Cross(c.Sub(a))[2]
		if z <= 0 {
			t.Errorf("triangle %d turns against the polygon (or has no area)", i/3)
		}
		area += z / 2
	}
	if area != 12 {
		t.Errorf("the triangles cover %g, want the ring's 12", area)
	}

	render := func(obj string) []float32 {
		t.Helper()
		dir := writeFiles(t, map[string]string{
			"m.obj": obj,
			"scene.json": `{"version": 1, "render": {"width": 24, "height": 24, "samples": 1, "max_depth": 1},
				"camera": {"position": [2, 2, -8], "look_at": [2, 2, 0], "fov": 40},
				"background": {"color": [0, 0, 0]},
				"lights": [{"type": "point", "position": [2, 2, -8], "intensity": 60}],
				"materials": {"white": {"type": "diffuse", "color": [0.8, 0.8, 0.8]}},
				"objects": [{"type": "mesh", "file": "m.obj", "material": "white"}]}`,
		})
		_, pix := renderSceneFile(t, filepath.Join(dir, "scene.json"))
		return pix
	}
	ringPix, handPix := render(ringOBJ+ringFace), render(ringOBJ+ringByHand)
	if !slices.Equal(ringPix, handPix) {
		t.Errorf("the ring renders unlike its hand ear clipping")
	}
	centre := 3 * (12*24 + 12)
	if ringPix[centre] != 0 {
		t.Errorf("the ring's hole is not open: the centre pixel is %v", ringPix[centre:centre+3])
	}
	if fan := render(ringOBJ + "f 1 2 3 4 1\nf 1 5 6 7 8 5\n"); fan[centre] == 0 {
		t.Errorf("the test's view does not see the hole: a filled square renders black at the centre too")
	}
	if edge := 3 * (12*24 + 4); ringPix[edge] == 0 {
		t.Errorf("the ring itself renders black")
	}
}

// TestOBJConvexFan checks that convex polygons, and planar polygons in
// any orientation, are still split into a fan around their first
// vertex, and that a concave polygon in another plane is clipped.
func TestOBJConvexFan(t *testing.T) {
	tests := []struct {
		name, obj string
		want      []uint32
	}{
		{"hexagon", "v 1 0 0\nv 2 0 0\nv 3 1 0\nv 2 2 0\nv 1 2 0\nv 0 1 0\nf 1 2 3 4 5 6\n", []uint32{0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5}},
		{"clockwise quad in x = 1", "v 1 0 0\nv 1 0 1\nv 1 1 1\nv 1 1 0\nf 1 4 3 2\n", []uint32{0, 1, 2, 0, 2, 3}},
		{"collinear vertex", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 2 1 0\nf 1 2 3 4\n", []uint32{0, 1, 2, 0, 2, 3}},
		{"degenerate", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 3 0 0\nf 1 2 3 4\n", []uint32{0, 1, 2, 0, 2, 3}},
		// An L in the plane y = 0, seen from −y, reflex at (1, 0, 1): a
		// fan from its first vertex would cover the missing corner.
		{"L in y = 0", "v 0 0 0\nv 2 0 0\nv 2 0 1\nv 1 0 1\nv 1 0 2\nv 0 0 2\nf 1 6 5 4 3 2\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(tt.obj))
			if err != nil {
				t.Fatal(err)
			}
			m := im.meshes[0]
			if tt.want != nil {
				if !slices.Equal(m.Indices, tt.want) {
					t.Errorf("indices %v, want %v", m.Indices, tt.want)
				}
				return
			}
			// The L: 4 triangles of total area 3, each turning as the
			// polygon does (a normal along +y).
			area := float32(0)
			for i := 0; i < len(m.Indices); i += 3 {
				a, b, c := m.Positions[m.Indices[i]], m.Positions[m.Indices[i+1]], m.Positions[m.Indices[i+2]]
				ny := b.Sub(a).Cross(c.Sub(a))[1]
				if ny <= 0 {
					t.Errorf("triangle %v turns against the polygon", m.Indices[i:i+3])
				}
				area += ny / 2
			}
			if len(m.Indices) != 12 || area != 3 {
				t.Errorf("indices %v (area %g), want 4 triangles of area 3", m.Indices, area)
			}
		})
	}
}

// TestOBJMissingLibrary checks that an mtllib that does not exist is a
// one-line warning, not an error: its materials are undescribed, so the
// scene's materials of their names, or the object's material, stand in;
// a library that does exist is still read.
func TestOBJMissingLibrary(t *testing.T) {
	log := captureWarnings(t)
	dir := writeFiles(t, map[string]string{
		"m/a.mtl": "newmtl red\nKd 1 0 0\n",
		"m/x.obj": "mtllib a.mtl gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\nusemtl wood\nf 1 3 2\n",
	})
	path := filepath.Join(dir, "scene.json")
	scene := meshScene(`"grey": {"type": "diffuse", "color": [0.5, 0.5, 0.5]}`, `{"type": "mesh", "file": "m/x.obj", "material": "grey"}`)
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	wantMats := []tracer.Material{
		{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.5, 0.5, 0.5}},
		{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 0, 0}},
	}
	if !slices.Equal(s.Materials, wantMats) || len(s.Meshes) != 1 || !slices.Equal(s.Meshes[0].Materials, []int32{1, 0}) {
		t.Errorf("materials %+v, meshes %+v; want materials %+v and triangle materials [1 0]", s.Materials, s.Meshes, wantMats)
	}
	want := `level=WARN msg="m/x.obj:1: mtllib \"gone.mtl\": no such file; the object's material stands in for the materials it would describe"` + "\n"
	if log.String() != want {
		t.Errorf("log\n%s\nwant\n%s", log.String(), want)
	}

	// Without an object material, the materials left undescribed are
	// an error, as for a usemtl of a name that no library defines.
	if err := os.WriteFile(path, []byte(meshScene("", `{"type": "mesh", "file": "m/x.obj"}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), `uses material "wood", which neither the scene nor the file defines`) {
		t.Errorf("error %v, want one naming the material \"wood\"", err)
	}
}

// TestOBJBackslashPaths checks that file names written with Windows
// separators (mtllib sub\\lib.mtl, map_Kd textures\\wood.png) are read
// as paths with slashes.
func TestOBJBackslashPaths(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"libs/m.mtl":        "newmtl wood\nmap_Kd ..\\textures\\wood.png\n",
		"textures/wood.png": mtlPNG(t, 1, 1, 255, 0, 0),
		"x.obj":             "mtllib libs\\m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl wood\nf 1/1 2/1 3/1\n",
	})
	im, err := loadOBJ(testAssets(t, dir), filepath.Join(dir, "x.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if len(im.materials) != 1 || im.materials[0].Image == nil || im.materials[0].Image.Pix[0] != 1 {
		t.Errorf("materials %+v, want wood with the red texture", im.materials)
	}
}

// TestOBJLibraryWithSpaces: Blender writes "mtllib my model.mtl" for a
// model saved as "my model.obj"; the names of an mtllib line that, joined
// by spaces, name a file are read as that file, and as separate files
// otherwise.
func TestOBJLibraryWithSpaces(t *testing.T) {
	log := captureWarnings(t)
	dir := writeFiles(t, map[string]string{
		"my model.mtl": "newmtl red\nKd 1 0 0\n",
		"a.mtl":        "newmtl green\nKd 0 1 0\n",
		"b.mtl":        "newmtl blue\nKd 0 0 1\n",
		"my model.obj": "mtllib my model.mtl\nmtllib a.mtl b.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\nusemtl green\nf 1 3 2\nusemtl blue\nf 2 1 3\n",
	})
	im, err := loadOBJ(testAssets(t, dir), filepath.Join(dir, "my model.obj"))
	if err != nil {
		t.Fatal(err)
	}
	want := []mgl32.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	if len(im.materials) != 3 {
		t.Fatalf("materials %+v, want red, green and blue", im.materials)
	}
	for i, m := range im.materials {
		if !m.HasColor || m.Color != want[i] {
			t.Errorf("material %q: %+v, want the colour %v", m.Name, m, want[i])
		}
	}
	if log.String() != "" {
		t.Errorf("warnings %q, want none", log.String())
	}
}

// checkFuzzError checks that a mesh reader's error on fuzzed input is an
// *Error naming a file, on one line.
func checkFuzzError(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.File == "" {
		t.Fatalf("error %T is not an *Error naming a file: %v", err, err)
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error is not one line: %q", err.Error())
	}
}
