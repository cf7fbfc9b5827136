package scenes

import (
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// TestLoadGLTFNormalMap reads a material's normalTexture (linear, its
// scale) and a primitive's TANGENT (xyz and handedness, a mirror in the
// node flipping w).
func TestLoadGLTFNormalMap(t *testing.T) {
	doc := texturedGLTFDoc()
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.TANGENT] = modeler.WriteTangent(doc, [][4]float32{{1, 0, 0, 1}, {1, 0, 0, -1}, {0, 2, 0, 1}})
	sc := 0.5
	doc.Materials[0].NormalTexture = &gltf.NormalTexture{Index: gltf.Index(0), Scale: &sc}
	m := mustLoadGLTFDoc(t, doc, false)
	im := m.materials[0]
	if im.NormalImage == nil || im.NormalScale != 0.5 {
		t.Fatalf("normal map %v scale %g, want an image and 0.5", im.NormalImage, im.NormalScale)
	}
	// tinyPNG's texels 0 and 255, decoded linearly: 0 and 1 either way,
	// so check a linear decode by the green texel's exact 1.
	if im.NormalImage.Pix[4] != 1 {
		t.Errorf("normal map texels %v", im.NormalImage.Pix)
	}
	want := []mgl32.Vec4{{1, 0, 0, 1}, {1, 0, 0, -1}, {0, 1, 0, 1}}
	if got := m.meshes[0].Tangents; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("tangents %v, want %v", got, want)
	}

	doc.Nodes[0].Scale = [3]float64{-1, 1, 1}
	m = mustLoadGLTFDoc(t, doc, false)
	if got := m.meshes[0].Tangents; got[0] != (mgl32.Vec4{-1, 0, 0, -1}) || got[1] != (mgl32.Vec4{-1, 0, 0, 1}) {
		t.Errorf("mirrored: tangents %v, want x and w negated", got)
	}
}

// TestLoadGLTFTangentType: a TANGENT that is not FLOAT VEC4 is refused by
// name.
func TestLoadGLTFTangentType(t *testing.T) {
	doc := texturedGLTFDoc()
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.TANGENT] = modeler.WriteNormal(doc, [][3]float32{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}})
	_, err := loadGLTFDoc(t, doc, false)
	if err == nil || !strings.Contains(err.Error(), "TANGENT is FLOAT VEC3, not supported (only FLOAT VEC4") {
		t.Errorf("error %v, want one naming TANGENT's type", err)
	}
}

// TestBumpToNormal: a height ramp along x of slope 0.25 per texel, times
// -bm 2, gives the normal normalize(−0.5, 0, 1) inside; heights rising
// toward the top row (row 0) lean the normal toward −Y.
func TestBumpToNormal(t *testing.T) {
	grey := func(v ...float32) []float32 {
		var p []float32
		for _, x := range v {
			p = append(p, x, x, x)
		}
		return p
	}
	l := float32(math.Sqrt(1.25))
	ramp := &tracer.Image{Width: 4, Height: 1, Pix: grey(0, 0.25, 0.5, 0.75)}
	n := bumpToNormal(ramp, "", 2)
	want := []float32{0.5 - 0.5*0.5/l, 0.5, 0.5 + 0.5/l}
	for k := range 3 {
		if math.Abs(float64(n.Pix[3+k]-want[k])) > 1e-6 {
			t.Errorf("texel (1, 0): %v, want %v", n.Pix[3:6], want)
			break
		}
	}
	// Heights rising toward the top row: the surface slopes up along +v,
	// so the normal leans toward −Y.
	up := &tracer.Image{Width: 1, Height: 3, Pix: grey(0.5, 0.25, 0)}
	n = bumpToNormal(up, "", 2)
	if !(n.Pix[4] < 0.5) || n.Pix[3] != 0.5 {
		t.Errorf("texel (0, 1): %v, want red 0.5 and green below 0.5", n.Pix[3:6])
	}
}

// TestBumpToNormalInPlace: the normal map is written over the height
// map, with the heights of a few rows besides, not a copy of the image
// (which, with a float64 copy of its heights, took a 16384² MTL bump
// map to 32 bytes a texel).
func TestBumpToNormalInPlace(t *testing.T) {
	const side = 1024
	img := &tracer.Image{Width: side, Height: side, Pix: make([]float32, 3*side*side)}
	for i := range img.Pix {
		img.Pix[i] = float32(i%7) / 7
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := bumpToNormal(img, "", 1)
	runtime.ReadMemStats(&after)
	if n != img {
		t.Errorf("a new image, want the height map's")
	}
	if b := after.TotalAlloc - before.TotalAlloc; b > 1<<20 {
		t.Errorf("converting a %d×%d bump map allocated %d bytes, %.1f a texel; want at most 1 MiB", side, side, b, float64(b)/side/side)
	}
}

// TestMTLNormalMaps: norm is read as a linear normal map; map_Bump with
// -bm is converted; bump alone too.
func TestMTLNormalMaps(t *testing.T) {
	tex := mtlPNG(t, 1, 1, 255, 128, 255)
	mats, err := importMTL(t, "newmtl m\nKd 1 1 1\nnorm -s 2 2 n.png\n", map[string]string{"n.png": tex}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if img := mats[0].NormalImage; img == nil || img.Pix[0] != 1 || math.Abs(float64(img.Pix[1])-128.0/255) > 1e-6 || mats[0].NormalUV[0] != 2 {
		t.Errorf("norm: image %v uv %v, want linear (1, 128/255, 1) and -s 2", img, mats[0].NormalUV)
	}
	for _, kw := range []string{"map_Bump -bm 3", "bump"} {
		mats, err := importMTL(t, "newmtl m\nKd 1 1 1\n"+kw+" h.png\n", map[string]string{"h.png": tex}, "m")
		if err != nil {
			t.Fatal(err)
		}
		// A constant height is flat: (0.5, 0.5, 1).
		if img := mats[0].NormalImage; img == nil || img.Pix[0] != 0.5 || img.Pix[1] != 0.5 || img.Pix[2] != 1 {
			t.Errorf("%s: image %v, want the flat normal", kw, img)
		}
	}
}

// TestNormalMapMeshWithoutUVs: a scene mesh without texture coordinates
// whose material has a normal map is refused, naming the file and the
// material; with UVs the same scene loads, with the map and its scale.
func TestNormalMapMeshWithoutUVs(t *testing.T) {
	mat := `"bumpy": {"type": "pbr", "normal_map": {"type": "checker", "even": [0.5, 0.5, 1], "odd": [0.6, 0.5, 0.9]}, "normal_scale": 0.8}`
	obj := `{"type": "mesh", "file": "m.obj", "material": "bumpy"}`
	for _, c := range []struct {
		name, obj, err string
	}{
		{"no uvs", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", `"m.obj": material "bumpy" has a normal map, but the mesh has no texture coordinates`},
		{"uvs", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n", ""},
	} {
		dir := writeFiles(t, map[string]string{"m.obj": c.obj, "scene.json": meshScene(mat, obj)})
		s, err := Load(filepath.Join(dir, "scene.json"))
		if c.err == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if m := s.Materials[0]; m.NormalMap != 1 || m.NormalScale != 0.8 {
				t.Errorf("%s: normal map %d scale %g, want 1 and 0.8", c.name, m.NormalMap, m.NormalScale)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "objects[0].file") {
			t.Errorf("%s: error %v, want one containing %q at objects[0].file", c.name, err, c.err)
		}
	}
}
