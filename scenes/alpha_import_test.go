package scenes

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestLoadGLTFAlpha: glTF's alphaMode maps to the material's alpha mode,
// with alphaCutoff (default 0.5) for MASK and baseColorFactor's alpha as
// the alpha; OPAQUE leaves the material opaque whatever the factor's
// alpha; an alphaCutoff outside [0, 1] is an error naming it.
func TestLoadGLTFAlpha(t *testing.T) {
	for _, tt := range []struct {
		mode           gltf.AlphaMode
		cutoff         *float64
		alpha          float64
		want           tracer.AlphaMode
		wantA, wantCut float32
	}{
		{gltf.AlphaOpaque, nil, 0.5, tracer.AlphaOpaque, 0, 0},
		{gltf.AlphaMask, nil, 1, tracer.AlphaMask, 1, 0.5},
		{gltf.AlphaMask, gltf.Float(0.25), 0.75, tracer.AlphaMask, 0.75, 0.25},
		{gltf.AlphaBlend, nil, 0.3, tracer.AlphaBlend, 0.3, 0},
	} {
		doc := texturedGLTFDoc()
		m0 := doc.Materials[0]
		m0.AlphaMode, m0.AlphaCutoff = tt.mode, tt.cutoff
		m0.PBRMetallicRoughness.BaseColorFactor = &[4]float64{1, 1, 1, tt.alpha}
		im := mustLoadGLTFDoc(t, doc, false).materials[0]
		if im.AlphaMode != tt.want || im.Alpha != float32(float64(tt.wantA)) || im.AlphaCutoff != tt.wantCut {
			t.Errorf("alphaMode %v cutoff %v alpha %g: got mode %v alpha %g cutoff %g, want %v %g %g",
				tt.mode, tt.cutoff, tt.alpha, im.AlphaMode, im.Alpha, im.AlphaCutoff, tt.want, tt.wantA, tt.wantCut)
		}
	}
	doc := texturedGLTFDoc()
	doc.Materials[0].AlphaMode, doc.Materials[0].AlphaCutoff = gltf.AlphaMask, gltf.Float(1.5)
	if _, err := loadGLTFDoc(t, doc, false); err == nil || !strings.Contains(err.Error(), "alphaCutoff 1.5 is outside [0, 1]") {
		t.Errorf("alphaCutoff 1.5: error %v, want one naming alphaCutoff", err)
	}
}

// TestMTLAlpha: d < 1 (or Tr > 0, d winning over Tr) makes a blended
// material of alpha d; map_d a cut-out (mask, cutoff 0.5) of d times the
// map; d 1 and no map_d leave it opaque; "d -halo" reads as d.
func TestMTLAlpha(t *testing.T) {
	mtl := "newmtl a\nKd 1 1 1\nd 0.4\n" +
		"newmtl b\nKd 1 1 1\nTr 0.25\n" +
		"newmtl c\nKd 1 1 1\nd 1\nTr 0.5\n" +
		"newmtl e\nKd 1 1 1\nd 0.9\nmap_d -s 2 m.png\n" +
		"newmtl h\nKd 1 1 1\nd -halo 0.5\n"
	mats, err := importMTL(t, mtl, map[string]string{"m.png": mtlPNG(t, 1, 1, 255, 255, 255)}, "a", "b", "c", "e", "h")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		mode        tracer.AlphaMode
		alpha, cut  float32
		image       bool
		uvScaleOfU0 float32
	}{
		{tracer.AlphaBlend, 0.4, 0, false, 0},
		{tracer.AlphaBlend, 0.75, 0, false, 0},
		{tracer.AlphaOpaque, 0, 0, false, 0},
		{tracer.AlphaMask, 0.9, 0.5, true, 2},
		{tracer.AlphaBlend, 0.5, 0, false, 0},
	}
	for i, w := range want {
		m := mats[i]
		if m.AlphaMode != w.mode || m.Alpha != w.alpha || m.AlphaCutoff != w.cut || (m.AlphaImage != nil) != w.image || m.AlphaUV[0] != w.uvScaleOfU0 {
			t.Errorf("material %s: mode %v alpha %g cutoff %g image %v uv %v; want %v %g %g %v u scale %g",
				m.Name, m.AlphaMode, m.Alpha, m.AlphaCutoff, m.AlphaImage != nil, m.AlphaUV, w.mode, w.alpha, w.cut, w.image, w.uvScaleOfU0)
		}
	}
	if _, err := importMTL(t, "newmtl a\nd 1.5\n", nil, "a"); err == nil || !strings.Contains(err.Error(), "d") {
		t.Errorf("d 1.5: error %v, want one", err)
	}
}

// TestMTLAlphaScene: an OBJ whose material has a map_d loads as a cut-out
// whose alpha texture's image carries an alpha channel (its grey level),
// and the scene compiles with see-through surfaces.
func TestMTLAlphaScene(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.png": mtlPNG(t, 2, 1, 255, 255, 255, 0, 0, 0),
		"m.mtl": "newmtl leaf\nKd 0.2 0.8 0.2\nmap_d m.png\n",
		"m.obj": "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl leaf\nf 1/1 2/1 3/1\n",
	})
	s := loadMeshFile(t, dir, "m.obj")
	if len(s.Materials) != 1 {
		t.Fatalf("%d materials, want 1", len(s.Materials))
	}
	m := s.Materials[0]
	if m.AlphaMode != tracer.AlphaMask || m.Alpha != 1 || m.AlphaCutoff != 0.5 || m.AlphaMap == 0 {
		t.Fatalf("material %+v: want a mask of alpha 1, cutoff 0.5, with an alpha map", m)
	}
	img := s.Images[s.Textures[m.AlphaMap-1].Image]
	if len(img.Alpha) != 2 || img.Alpha[0] != 1 || img.Alpha[1] != 0 {
		t.Errorf("alpha map's alpha %v, want [1 0] (the grey level)", img.Alpha)
	}
	sc, err := tracer.Compile(s)
	if err != nil {
		t.Fatalf("the scene does not compile: %v", err)
	}
	if !sc.SeeThrough {
		t.Error("the compiled scene is not marked see-through")
	}
}

// TestLoadGLTFNormalTextureSampler: a normalTexture keeps its texture's
// sampler (wrap modes and filter) and its texCoord, as the other maps do.
func TestLoadGLTFNormalTextureSampler(t *testing.T) {
	doc := texturedGLTFDoc()
	doc.Samplers[0] = &gltf.Sampler{WrapS: gltf.WrapClampToEdge, WrapT: gltf.WrapMirroredRepeat, MagFilter: gltf.MagNearest}
	doc.Materials[0].NormalTexture = &gltf.NormalTexture{Index: gltf.Index(0)}
	im := mustLoadGLTFDoc(t, doc, false).materials[0]
	want := textureSampler{WrapS: tracer.WrapClamp, WrapT: tracer.WrapMirror, Filter: tracer.FilterNearest}
	if im.NormalImage == nil || im.NormalSampler != want {
		t.Errorf("normal map %p, sampler %+v; want a map with %+v", im.NormalImage, im.NormalSampler, want)
	}
}

// TestMTLColourAndAlphaMap: a map_Kd and a map_d naming the same RGBA
// image (as Blender writes a texture with alpha) decode it once: the
// alpha map is the colour map's image with its alpha channel, so the
// compiled scene stores its texels once with their alpha (4 values a
// texel, not 3 + 3 + 1), and that alpha is the one a map_d of a copy of
// the file, decoded on its own, gives.
func TestMTLColourAndAlphaMap(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	for i, a := range []uint8{255, 128, 0} {
		m.SetNRGBA(i, 0, color.NRGBA{200, uint8(60 * i), 30, a})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	obj := "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl leaf\nf 1/1 2/1 3/1\n"
	var alphas [2][]float32
	for k, mapD := range []string{"leaf.png", "copy.png"} {
		dir := writeFiles(t, map[string]string{
			"leaf.png": buf.String(),
			"copy.png": buf.String(),
			"m.mtl":    "newmtl leaf\nKd 1 1 1\nmap_Kd leaf.png\nmap_d " + mapD + "\n",
			"m.obj":    obj,
		})
		s := loadMeshFile(t, dir, "m.obj")
		mat := s.Materials[0]
		if mat.AlphaMode != tracer.AlphaMask || mat.AlphaMap == 0 || mat.Texture < 0 {
			t.Fatalf("map_d %s: material %+v: want a textured cut-out", mapD, mat)
		}
		col, alpha := s.Images[s.Textures[mat.Texture].Image], s.Images[s.Textures[mat.AlphaMap-1].Image]
		alphas[k] = alpha.Alpha
		sc, err := tracer.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		shared := &col.Pix[0] == &alpha.Pix[0]
		if want := mapD == "leaf.png"; shared != want {
			t.Errorf("map_d %s: the alpha map's image is the colour map's: %v, want %v", mapD, shared, want)
		}
		if want := map[bool]int{true: 4 * 3, false: 7 * 3}[shared]; len(sc.Texels) != want {
			t.Errorf("map_d %s: %d texels stored, want %d", mapD, len(sc.Texels), want)
		}
	}
	want := []float32{1, float32(128.0 / 255), 0}
	if !slicesEqual(alphas[0], want) || !slicesEqual(alphas[1], want) {
		t.Errorf("alpha %v (same file), %v (a copy), want %v", alphas[0], alphas[1], want)
	}
}

// TestJSONColourAndAlphaTexture: a scene material whose texture and
// alpha_texture name the same RGBA image decodes it once: the alpha
// texture's image is the colour texture's (sRGB) one, whose alpha is the
// one a copy of the file, decoded linear on its own, gives, so the scene
// holds one image and the compiled scene its texels once with their alpha
// (4 values a texel, not 3 + 1 + 3 + 1); the rendered pixels are the same
// bits either way.
func TestJSONColourAndAlphaTexture(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	for i := range 8 {
		m.SetNRGBA(i%4, i/4, color.NRGBA{200, uint8(30 * i), 30, uint8(255 - 36*i)})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	var alphas, pixels [2][]float32
	for k, alphaFile := range []string{"leaf.png", "copy.png"} {
		dir := writeFiles(t, map[string]string{"leaf.png": buf.String(), "copy.png": buf.String()})
		writeFile(t, dir, "scene.json", []byte(`{"version": 1,
			"camera": {"position": [0, 0, -4], "look_at": [0, 0, 0], "fov": 40},
			"render": {"width": 12, "height": 10, "samples": 4, "max_depth": 4, "seed": 3},
			"background": {"type": "color", "color": [0.3, 0.5, 0.7]},
			"materials": {"leaf": {"type": "diffuse", "alpha_mode": "blend",
				"texture": {"type": "image", "file": "leaf.png"},
				"alpha_texture": {"type": "image", "file": "`+alphaFile+`"}}},
			"objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "leaf"}]}`))
		s, pix := renderSceneFile(t, filepath.Join(dir, "scene.json"))
		pixels[k] = pix
		mat := s.Materials[0]
		col, alpha := s.Images[s.Textures[mat.Texture].Image], s.Images[s.Textures[mat.AlphaMap-1].Image]
		alphas[k] = alpha.Alpha
		wantImages := map[bool]int{true: 1, false: 2}[alphaFile == "leaf.png"]
		if len(s.Images) != wantImages {
			t.Errorf("alpha_texture %s: %d images, want %d", alphaFile, len(s.Images), wantImages)
		}
		sc, err := tracer.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		shared := &col.Pix[0] == &alpha.Pix[0]
		if want := alphaFile == "leaf.png"; shared != want {
			t.Errorf("alpha_texture %s: the alpha texture's image is the colour texture's: %v, want %v", alphaFile, shared, want)
		}
		if want := map[bool]int{true: 4 * 8, false: 8 * 8}[shared]; len(sc.Texels) != want {
			t.Errorf("alpha_texture %s: %d texels stored, want %d", alphaFile, len(sc.Texels), want)
		}
	}
	want := make([]float32, 8)
	for i := range want {
		want[i] = float32(float64(255-36*i) / 255)
	}
	if !slicesEqual(alphas[0], want) || !slicesEqual(alphas[1], want) {
		t.Errorf("alpha %v (same file), %v (a copy), want %v", alphas[0], alphas[1], want)
	}
	if !slicesEqual(pixels[0], pixels[1]) {
		t.Errorf("the same file as colour and alpha renders other pixels than a copy as alpha")
	}
}
