package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// meshScene returns a scene with the given materials and objects members.
func meshScene(materials, objects string) string {
	return `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
		"materials": {` + materials + `}, "objects": [` + objects + `]}`
}

// TestLoadMeshScene loads testdata/meshes/cube.json through Load and
// checks the mesh it describes: transformed positions and normals, UVs,
// and the materials of cube.mtl added to the scene.
func TestLoadMeshScene(t *testing.T) {
	s, err := Load(filepath.Join(meshDir, "cube.json"))
	if err != nil {
		t.Fatal(err)
	}
	wantMats := []tracer.Material{
		{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.8, 0.8}},
		{Kind: tracer.MaterialPBR, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.1, 0.1}, Roughness: blinnPhongRoughness(32)}, // Ks 0.5, Ns 32
		{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.1, 0.1, 0.8}},
	}
	if !slices.Equal(s.Materials, wantMats) {
		t.Errorf("materials %+v, want %+v", s.Materials, wantMats)
	}
	if len(s.Meshes) != 1 || len(s.Textures) != 0 || len(s.Images) != 0 {
		t.Fatalf("%d meshes, %d textures, %d images; want 1, 0, 0", len(s.Meshes), len(s.Textures), len(s.Images))
	}
	m := &s.Meshes[0]
	checkMeshShape(t, m, len(s.Materials))
	if len(m.Positions) != 24 || len(m.Indices) != 36 || len(m.Normals) != 24 || len(m.UVs) != 24 {
		t.Fatalf("%d positions, %d indices, %d normals, %d UVs", len(m.Positions), len(m.Indices), len(m.Normals), len(m.UVs))
	}
	// Vertex 0 is the file's v 1 (-1, -1, -1) with vn 1 (0, 0, -1): scaled
	// by 0.5, turned 90° about y (z → x, x → −z), lifted by 1.
	if got, want := m.Positions[0], (mgl32.Vec3{-0.5, 0.5, 0.5}); got != want {
		t.Errorf("position 0 %v, want %v", got, want)
	}
	if got, want := m.Normals[0], (mgl32.Vec3{-1, 0, 0}); got != want {
		t.Errorf("normal 0 %v, want %v", got, want)
	}
	wantTri := []int32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}
	if !slices.Equal(m.Materials, wantTri) {
		t.Errorf("triangle materials %v, want %v", m.Materials, wantTri)
	}
	for _, p := range m.Positions {
		if p[1] < 0.5-1e-6 || p[1] > 1.5+1e-6 {
			t.Fatalf("position %v outside the transformed cube", p)
		}
	}
}

// TestMeshMaterials checks the material rule: the scene's material of the
// same name, else the file's description as a new diffuse material, else
// the object's material, which must then be given.
func TestMeshMaterials(t *testing.T) {
	const white = `"white": {"type": "diffuse"}`
	tests := []struct {
		name      string
		materials string
		objects   string
		wantMats  []tracer.Material // the scene's materials after decoding
		mesh      int               // Material of the first mesh
		triMats   []int32           // Materials of the first mesh
		err       string
	}{
		{
			name:      "scene overrides the MTL's name",
			materials: white + `, "red": {"type": "emissive", "intensity": 2}`,
			objects:   `{"type": "mesh", "file": "cube.obj", "material": "white"}`,
			wantMats: []tracer.Material{
				{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.8, 0.8}},
				{Kind: tracer.MaterialEmissive, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 1, 1}, Intensity: 2},
				{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.1, 0.1, 0.8}},
			},
			mesh: 1, triMats: []int32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2},
		},
		{
			name:      "MTL Kd makes diffuse materials, Ks glossy pbr ones",
			materials: white,
			objects:   `{"type": "mesh", "file": "cube.obj"}`,
			wantMats: []tracer.Material{
				{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.8, 0.8}},
				{Kind: tracer.MaterialPBR, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.1, 0.1}, Roughness: blinnPhongRoughness(32)}, // Ks 0.5, Ns 32
				{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.1, 0.1, 0.8}},
			},
			mesh: 1, triMats: []int32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2},
		},
		{
			name:      "scene defines every name: one material",
			materials: white + `, "red": {"type": "diffuse"}, "blue": {"type": "diffuse"}, "x": {"type": "metal"}`,
			objects:   `{"type": "mesh", "file": "cube.obj"}`,
			mesh:      1, triMats: []int32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2},
		},
		{
			name:      "both names to one scene material",
			materials: white + `, "red": {"type": "diffuse"}, "blue": {"type": "diffuse"}`,
			objects:   `{"type": "mesh", "file": "cube.obj"}, {"type": "mesh", "file": "nolib.obj", "material": "red"}`,
			mesh:      1, triMats: []int32{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2},
		},
		{
			name:      "undescribed name: the object's material",
			materials: white + `, "grey": {"type": "diffuse"}`,
			objects:   `{"type": "mesh", "file": "nolib.obj", "material": "grey"}`,
			mesh:      1,
		},
		{
			name:      "undescribed name defined by the scene",
			materials: white + `, "skin": {"type": "phong"}`,
			objects:   `{"type": "mesh", "file": "nolib.obj"}`,
			mesh:      1,
		},
		{
			name:      "no material in the file: the object's",
			materials: white,
			objects:   `{"type": "mesh", "file": "quad.obj", "material": "white"}`,
			mesh:      0,
		},
		{
			name:      "undescribed name and no object material",
			materials: white,
			objects:   `{"type": "mesh", "file": "nolib.obj"}`,
			err:       `t.json:2:60: objects[0]: "nolib.obj" uses material "skin", which neither the scene nor the file defines; define it in "materials" or give the object a "material"`,
		},
		{
			name:      "faces without material and no object material",
			materials: white,
			objects:   `{"type": "mesh", "file": "quad.obj"}`,
			err:       `objects[0]: "quad.obj" gives some faces no material; give the object a "material"`,
		},
		{
			name:      "undefined object material",
			materials: white,
			objects:   `{"type": "mesh", "file": "quad.obj", "material": "whte"}`,
			err:       `objects[0].material: undefined material "whte"; did you mean "white"?`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(filepath.Join(meshDir, "t.json"), []byte(meshScene(tt.materials, tt.objects)))
			if tt.err != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tt.err) {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantMats != nil && !slices.Equal(s.Materials, tt.wantMats) {
				t.Errorf("materials %+v, want %+v", s.Materials, tt.wantMats)
			}
			m := &s.Meshes[0]
			checkMeshShape(t, m, len(s.Materials))
			if m.Material != tt.mesh || !slices.Equal(m.Materials, tt.triMats) {
				t.Errorf("mesh material %d, triangles %v; want %d, %v", m.Material, m.Materials, tt.mesh, tt.triMats)
			}
		})
	}
}

// TestMeshFileReadOnce checks that a file used by two objects is read
// once, adds its materials once, and gives each object its own arrays.
func TestMeshFileReadOnce(t *testing.T) {
	scene := meshScene(`"white": {"type": "diffuse"}`,
		`{"type": "mesh", "file": "cube.obj"}, {"type": "mesh", "file": "./cube.obj", "transform": {"scale": -1}}`)
	s, err := Parse(filepath.Join(meshDir, "t.json"), []byte(scene))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Materials) != 3 || len(s.Meshes) != 2 {
		t.Fatalf("%d materials, %d meshes; want 3, 2", len(s.Materials), len(s.Meshes))
	}
	a, b := &s.Meshes[0], &s.Meshes[1]
	if &a.UVs[0] == &b.UVs[0] || &a.Indices[0] == &b.Indices[0] || &a.Positions[0] == &b.Positions[0] {
		t.Errorf("the two meshes share arrays")
	}
	if !slices.Equal(a.Materials, b.Materials) || a.Positions[0] != b.Positions[0].Mul(-1) {
		t.Errorf("the meshes differ: %v %v, %v %v", a.Materials, b.Materials, a.Positions[0], b.Positions[0])
	}
	if a.Indices[1] != b.Indices[2] || a.Indices[2] != b.Indices[1] {
		t.Errorf("the mirrored copy kept its winding: %v, %v", a.Indices[:3], b.Indices[:3])
	}
}

// TestMeshObjectErrors checks the errors about a mesh object's members.
func TestMeshObjectErrors(t *testing.T) {
	tests := []struct{ object, want string }{
		{`{"type": "mesh", "material": "white"}`, `objects[0]: missing required field "file"`},
		{`{"type": "mesh", "file": 3}`, `objects[0].file: expected a string, found a number`},
		{`{"type": "mesh", "file": ""}`, `objects[0].file: unsupported mesh file "" (accepted extensions: .obj, .gltf, .glb, .ply, .stl)`},
		{`{"type": "mesh", "file": "cube.fbx"}`, `objects[0].file: unsupported mesh file "cube.fbx" (accepted extensions: .obj, .gltf, .glb, .ply, .stl)`},
		{`{"type": "mesh", "file": "cube.ply"}`, `objects[0].file: "cube.ply": no such file or directory`},
		{`{"type": "mesh", "file": "cube.STL"}`, `objects[0].file: "cube.STL": no such file or directory`},
		{`{"type": "mesh", "file": "nope.obj"}`, `objects[0].file: "nope.obj": no such file or directory`},
		{`{"type": "mesh", "file": "cube.obj", "fiel": 1}`, `objects[0]: unknown field "fiel"; did you mean "file"?`},
		{`{"type": "mesh", "file": "cube.obj", "material": 1}`, `objects[0].material: expected a string, found a number`},
	}
	for _, tt := range tests {
		_, err := Parse(filepath.Join(meshDir, "t.json"), []byte(meshScene(`"white": {"type": "diffuse"}`, tt.object)))
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %s", tt.object, err, tt.want)
		}
		if strings.Contains(tt.want, "no such file") && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: error %v does not wrap fs.ErrNotExist", tt.object, err)
		}
	}
}

// TestMeshFileErrorLocation checks that a problem with a mesh file is
// reported where an image file's is: at the object's file member in the
// scene (file, line, column, JSON path), then the file that is wrong: as
// the scene writes it, quoted, for the file as a whole (missing, a
// directory, not valid glTF, a buffer it cannot read), and FILE:LINE for
// a line of the mesh file or of a file it reads, shown relative to the
// scene's name.
func TestMeshFileErrorLocation(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	dir := writeFiles(t, map[string]string{
		"ok.obj":          tri + "f 1 2 3\n",
		"sub/bad.obj":     "v 0 0 0\nv 1 0 0\nf 1 2 0\n",
		"sub/bad_mtl.obj": "mtllib bad.mtl\n" + tri + "f 1 2 3\n",
		"sub/bad.mtl":     "newmtl m\nKd 1 1 x\n",
		"sub/map.obj":     "mtllib map.mtl\n" + tri + "vt 0 0\nusemtl m\nf 1/1 2/1 3/1\n",
		"sub/map.mtl":     "newmtl m\nKd 1 1 1\nmap_Kd gone.png\n",
		"sub/empty.obj":   tri,
		"sub/dir.obj/f":   "",
		"sub/dir.gltf/f":  "",
		"sub/cut.gltf":    `{"asset": {"version": "2.0"`,
		"sub/nobuf.gltf":  `{"asset": {"version": "2.0"}, "buffers": [{"uri": "gone.bin", "byteLength": 12}]}`,
		"SHOUT.OBJ":       tri + "f 1 2 3\n",
	})
	tests := []struct {
		file string
		want string // after the scene's place; DIR/ is dir
		is   error
	}{
		{"sub/missing.obj", `"sub/missing.obj": no such file or directory`, fs.ErrNotExist},
		{"sub/dir.obj", `"sub/dir.obj": not a regular file (a directory)`, nil},
		{"sub/dir.gltf", `"sub/dir.gltf": not a regular file (a directory)`, nil},
		{"sub/empty.obj", `"sub/empty.obj": the file holds no faces`, nil},
		{"sub/bad.obj", "DIR/sub/bad.obj:3: f: vertex index 0 is invalid (OBJ indices start at 1)", nil},
		{"sub/bad_mtl.obj", `DIR/sub/bad.mtl:2: Kd: not a number: "x"`, nil},
		{"sub/map.obj", `DIR/sub/map.mtl:3: map_Kd "gone.png": no such file or directory`, fs.ErrNotExist},
		{"sub/cut.gltf", `"sub/cut.gltf": not a valid glTF file: unexpected end of JSON input`, nil},
		{"sub/nobuf.gltf", `"sub/nobuf.gltf": buffers[0]: "gone.bin": no such file or directory`, fs.ErrNotExist},
		{"SHOUT.OBJ", "", nil},
	}
	for _, tt := range tests {
		scene := meshScene(`"white": {"type": "diffuse"}`,
			`{"type": "mesh", "file": "ok.obj", "material": "white"},
			 {"type": "mesh", "file": "`+tt.file+`", "material": "white"}`)
		if err := os.WriteFile(filepath.Join(dir, "scene.json"), []byte(scene), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(filepath.Join(dir, "scene.json"))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.file, err)
			}
			continue
		}
		off := strings.Index(scene, `"`+tt.file+`"`)
		line := 1 + strings.Count(scene[:off], "\n")
		col := 1 + off - (strings.LastIndexByte(scene[:off], '\n') + 1) // ASCII
		want := fmt.Sprintf("%s:%d:%d: objects[1].file: %s", filepath.Join(dir, "scene.json"), line, col,
			strings.ReplaceAll(tt.want, "DIR/", dir+string(filepath.Separator)))
		if err == nil || err.Error() != want {
			t.Errorf("%s: error\n got %v\nwant %s", tt.file, err, want)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.File != filepath.Join(dir, "scene.json") || e.Line != line || e.Col != col || e.Path != "objects[1].file" {
			t.Errorf("%s: error %#v", tt.file, err)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v is not %v", tt.file, err, tt.is)
		}
	}
	// From the scene's folder, the names are as the scene writes them.
	scene := meshScene(`"white": {"type": "diffuse"}`,
		`{"type": "mesh", "file": "ok.obj", "material": "white"}, {"type": "mesh", "file": "sub/bad_mtl.obj", "material": "white"}`)
	if err := os.WriteFile(filepath.Join(dir, "scene.json"), []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	_, err := Load("scene.json")
	if want := `scene.json:2:142: objects[1].file: sub/bad.mtl:2: Kd: not a number: "x"`; err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestAssetPaths checks that a mesh file (or its material library) outside
// the scene's folder is refused, through "..", an absolute path or a
// symbolic link, unless AllowOutsideAssets is set.
func TestAssetPaths(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
	root := writeFiles(t, map[string]string{
		"outside.obj":       tri,
		"outside.mtl":       "newmtl m\nKd 1 0 0\n",
		"scene/inside.obj":  tri,
		"scene/mtlout.obj":  "mtllib ../outside.mtl\n" + tri,
		"scene/deep/in.obj": tri,
	})
	dir := filepath.Join(root, "scene")
	symlinks := map[string]string{"link-out.obj": "../outside.obj", "link-in.obj": "inside.obj", "linkdir": ".."}
	for name, target := range symlinks {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	abs := filepath.Join(root, "outside.obj")
	tests := []struct {
		file    string
		outside bool // refused without AllowOutsideAssets
	}{
		{"inside.obj", false},
		{"deep/in.obj", false},
		{"deep/../inside.obj", false},
		{"link-in.obj", false},
		{filepath.Join(dir, "inside.obj"), false},
		{"../outside.obj", true},
		{"deep/../../outside.obj", true},
		{abs, true},
		{"link-out.obj", true},
		{"linkdir/outside.obj", true},
		{"mtlout.obj", true},
	}
	for _, tt := range tests {
		scene := meshScene(`"white": {"type": "diffuse"}`, `{"type": "mesh", "file": "`+tt.file+`", "material": "white"}`)
		path := filepath.Join(dir, "scene.json")
		if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		switch {
		case tt.outside && (err == nil || !strings.Contains(err.Error(), "is outside the scene's folder") || !strings.Contains(err.Error(), "--allow-outside-assets")):
			t.Errorf("%s: error %v, want outside the scene's folder", tt.file, err)
		case !tt.outside && err != nil:
			t.Errorf("%s: %v", tt.file, err)
		}
		if s, err := LoadWith(path, Options{AllowOutsideAssets: true}); err != nil || len(s.Meshes) != 1 {
			t.Errorf("%s with AllowOutsideAssets: %v", tt.file, err)
		}
	}
}

// TestMeshLimits checks the triangle limit over meshes and triangle
// objects, and the asset byte budget.
func TestMeshLimits(t *testing.T) {
	decode := func(d *decoder) error {
		root, perr := parseJSON(d.file, d.data)
		if perr != nil {
			t.Fatal(perr)
		}
		d.scene(root)
		if d.err == nil {
			return nil
		}
		return d.err
	}
	name := filepath.Join(meshDir, "t.json")
	cube := []byte(meshScene(`"white": {"type": "diffuse"}`, `{"type": "mesh", "file": "cube.obj"}`))
	// The cube's 12 triangles on top of MaxTriangles − 11 from elsewhere.
	err := decode(&decoder{file: name, data: cube, meshTriangles: tracer.MaxTriangles - 11})
	if want := "objects[0].file: \"cube.obj\": the scene's meshes and triangles would number 67108865 triangles, more than the limit of 67108864"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
	if err := decode(&decoder{file: name, data: cube, meshTriangles: tracer.MaxTriangles - 12}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	// A triangle object after meshes that reach the limit.
	tri := []byte(meshScene(`"white": {"type": "diffuse"}`, `{"type": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "material": "white"}`))
	err = decode(&decoder{file: name, data: tri, meshTriangles: tracer.MaxTriangles})
	if want := "objects: 67108865 triangles in meshes and triangle objects, more than the limit of 67108864"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
	// Bytes: the OBJ and its library count; past MaxAssetBytes is an error.
	a, err := newAssets(name, false)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: name, data: cube, assets: a}
	if err := decode(d); err != nil {
		t.Fatal(err)
	}
	obj, _ := os.Stat(filepath.Join(meshDir, "cube.obj"))
	mtl, _ := os.Stat(filepath.Join(meshDir, "cube.mtl"))
	if a.used != obj.Size()+mtl.Size() {
		t.Errorf("%d bytes counted, want %d", a.used, obj.Size()+mtl.Size())
	}
	a.used = MaxAssetBytes - 100
	err = decode(&decoder{file: name, data: cube, assets: a})
	if want := "the scene's files together are larger than the limit"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestMeshImageTexelLimit checks that the images of mesh files count
// against the scene's tracer.MaxImageTexels with its own, each refused
// from its header once the images before it leave too few texels: not
// decoded first, each against the whole limit, and checked once added
// (a scene whose OBJ named twenty 16384² PNGs of a megabyte each would
// have held 60 GB before its error).
func TestMeshImageTexelLimit(t *testing.T) {
	doc := texturedGLTFDoc() // a 2×2 PNG in a buffer view
	dir := writeFiles(t, map[string]string{
		"a.png": string(blackPNG(4, 4)),
		"b.png": string(blackPNG(4, 4)),
		"m.mtl": "newmtl a\nKd 1 1 1\nmap_Kd a.png\nnewmtl b\nKd 1 1 1\nmap_Kd b.png\n",
		"m.obj": "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl a\nf 1/1 2/1 3/1\nusemtl b\nf 1/1 3/1 2/1\n",
	})
	writeGLTF(t, filepath.Join(dir, "m.gltf"), doc)
	scene := filepath.Join(dir, "scene.json")
	tests := []struct {
		file string
		left int64  // the texels that the scene's other images leave
		want string // the error after the scene's place, or ""
	}{
		{"m.obj", 32, ""},
		{"m.obj", 31, `objects[0].file: ` + filepath.Join(dir, "m.mtl") + `:6: map_Kd "b.png": 4×4 pixels: the scene's other images hold 268435441 texels, and with this one's 16 they would pass the limit of 268435456 (2^28) for all images together`},
		{"m.obj", 15, `objects[0].file: ` + filepath.Join(dir, "m.mtl") + `:3: map_Kd "a.png": 4×4 pixels: the scene's other images hold 268435441 texels, and with this one's 16 they would pass the limit of 268435456 (2^28) for all images together`},
		{"m.gltf", 4, ""},
		{"m.gltf", 3, `objects[0].file: "m.gltf": meshes[0].primitives[0]: images[0]: 2×2 pixels: the scene's other images hold 268435453 texels, and with this one's 4 they would pass the limit of 268435456 (2^28) for all images together`},
	}
	for _, tt := range tests {
		data := []byte(meshScene("", `{"type": "mesh", "file": "`+tt.file+`"}`))
		root, perr := parseJSON(scene, data)
		if perr != nil {
			t.Fatal(perr)
		}
		a, err := newAssets(scene, false)
		if err != nil {
			t.Fatal(err)
		}
		a.texels = tracer.MaxImageTexels - tt.left
		d := &decoder{file: scene, data: data, assets: a}
		s := d.scene(root)
		switch {
		case tt.want == "" && d.err != nil:
			t.Errorf("%s, %d texels left: %v", tt.file, tt.left, d.err)
		case tt.want == "" && (a.texels != tracer.MaxImageTexels || len(s.Images) == 0):
			t.Errorf("%s, %d texels left: %d texels counted, %d images; want all of them, in the scene", tt.file, tt.left, a.texels, len(s.Images))
		case tt.want != "" && (d.err == nil || !strings.HasSuffix(d.err.Error(), tt.want)):
			t.Errorf("%s, %d texels left: error %v, want …%s", tt.file, tt.left, d.err, tt.want)
		}
	}
}

// TestMeshImageTexture checks that an MTL map_Kd becomes an image texture
// of a new diffuse material, tinted by Kd at shading time, and that an
// image that several materials share, with or without a tint, is decoded
// and added once: no tinted copies.
func TestMeshImageTexture(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.NRGBA{255, 255, 255, 255})
	img.Set(1, 0, color.NRGBA{0, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"tex/wood.png": buf.String(),
		"m.mtl":        "newmtl wood\nKd 0.5 1 1\nmap_Kd -s 1 1 1 tex/wood.png\nnewmtl plain\nmap_Kd tex/wood.png\nnewmtl plain2\nKd 1 1 1\nmap_Kd tex/wood.png\n",
		"m.obj":        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl wood\nf 1/1 2/1 3/1\nusemtl plain\nf 1/1 3/1 2/1\nusemtl plain2\nf 2/1 1/1 3/1\n",
	})
	s := loadMeshFile(t, dir, "m.obj")
	wantMats := []tracer.Material{
		{Kind: tracer.MaterialDiffuse, Texture: 0, Color: mgl32.Vec3{0.5, 1, 1}},
		{Kind: tracer.MaterialDiffuse, Texture: 1, Color: mgl32.Vec3{1, 1, 1}},
		{Kind: tracer.MaterialDiffuse, Texture: 2, Color: mgl32.Vec3{1, 1, 1}},
	}
	white := mgl32.Vec3{1, 1, 1}
	wantTex := []tracer.Texture{{Kind: tracer.TextureImage, Image: 0, Even: mgl32.Vec3{0.5, 1, 1}},
		{Kind: tracer.TextureImage, Image: 0, Even: white}, {Kind: tracer.TextureImage, Image: 0, Even: white}}
	if !slices.Equal(s.Materials, wantMats) || !slices.Equal(s.Textures, wantTex) || len(s.Images) != 1 {
		t.Fatalf("materials %+v, textures %+v, %d images", s.Materials, s.Textures, len(s.Images))
	}
	if got, want := s.Images[0].Pix, []float32{1, 1, 1, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("image %v, want %v", got, want)
	}
	if m := s.Meshes[0]; !slices.Equal(m.Materials, []int32{0, 1, 2}) {
		t.Errorf("triangle materials %v", m.Materials)
	}
}

// TestTintedImageDecodedOnce: twelve MTL materials that tint one map_Kd
// with twelve colours cost one image, not twelve copies (a 24 KB file
// tinting one 4096² PNG twelve ways once peaked at 11.9 GB).
func TestTintedImageDecodedOnce(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	var mtl, obj strings.Builder
	obj.WriteString("mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n")
	for i := range 12 {
		fmt.Fprintf(&mtl, "newmtl m%d\nKd %g 0.5 1\nmap_Kd big.png\n", i, float64(i+1)/12)
		fmt.Fprintf(&obj, "usemtl m%d\nf 1/1 2/1 3/1\n", i)
	}
	dir := writeFiles(t, map[string]string{"big.png": buf.String(), "m.mtl": mtl.String(), "m.obj": obj.String()})
	s := loadMeshFile(t, dir, "m.obj")
	if len(s.Images) != 1 || len(s.Textures) != 12 {
		t.Fatalf("%d images and %d textures, want 1 image shared by 12 textures", len(s.Images), len(s.Textures))
	}
	for i, tx := range s.Textures {
		if want := (mgl32.Vec3{float32(i+1) / 12, 0.5, 1}); tx.Image != 0 || tx.Even != want {
			t.Errorf("texture %d: image %d, tint %v; want image 0, tint %v", i, tx.Image, tx.Even, want)
		}
	}
}

// loadMeshFile loads a scene in dir whose one object is the mesh file.
func loadMeshFile(t *testing.T, dir, file string) *tracer.SceneDesc {
	t.Helper()
	path := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(path, []byte(meshScene("", `{"type": "mesh", "file": "`+file+`"}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
