package scenes

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// TestLoadGLTFSamplers maps glTF samplers' wrap modes and filters (the
// mipmapped minification filters to their filter within a level).
func TestLoadGLTFSamplers(t *testing.T) {
	for _, tc := range []struct {
		s    gltf.Sampler
		want textureSampler
	}{
		{gltf.Sampler{}, textureSampler{}},
		{gltf.Sampler{WrapS: gltf.WrapClampToEdge, WrapT: gltf.WrapMirroredRepeat}, textureSampler{WrapS: tracer.WrapClamp, WrapT: tracer.WrapMirror}},
		{gltf.Sampler{WrapS: gltf.WrapMirroredRepeat, WrapT: gltf.WrapClampToEdge}, textureSampler{WrapS: tracer.WrapMirror, WrapT: tracer.WrapClamp}},
		{gltf.Sampler{MagFilter: gltf.MagNearest, MinFilter: gltf.MinLinearMipMapLinear}, textureSampler{Filter: tracer.FilterNearest}},
		{gltf.Sampler{MagFilter: gltf.MagLinear, MinFilter: gltf.MinNearest}, textureSampler{}},
		{gltf.Sampler{MinFilter: gltf.MinNearestMipMapLinear}, textureSampler{Filter: tracer.FilterNearest}},
		{gltf.Sampler{MinFilter: gltf.MinLinearMipMapNearest}, textureSampler{}},
	} {
		doc := texturedGLTFDoc()
		s := tc.s
		doc.Samplers[0] = &s
		m := mustLoadGLTFDoc(t, doc, false)
		if got := m.materials[0].ImageSampler; got != tc.want {
			t.Errorf("sampler %+v: %+v, want %+v", tc.s, got, tc.want)
		}
	}
}

// TestLoadGLTFTexCoord1: a base colour texture on TEXCOORD_1 and a
// metallic-roughness texture on TEXCOORD_0: the mesh carries both sets
// (v flipped) and each texture names its own.
func TestLoadGLTFTexCoord1(t *testing.T) {
	doc := texturedGLTFDoc()
	doc.Meshes[0].Primitives[0].Attributes[gltf.TEXCOORD_1] = modeler.WriteTextureCoord(doc, [][2]float32{{0.5, 0.25}, {2, 0}, {-1, 3}})
	pbr := doc.Materials[0].PBRMetallicRoughness
	pbr.BaseColorTexture.TexCoord = 1
	pbr.MetallicRoughnessTexture = &gltf.TextureInfo{Index: 0}
	m := mustLoadGLTFDoc(t, doc, false)
	if want := []mgl32.Vec2{{0.5, 0.75}, {2, 1}, {-1, -2}}; !slices.Equal(m.meshes[0].UV1s, want) {
		t.Errorf("second uvs %v, want %v", m.meshes[0].UV1s, want)
	}
	if want := []mgl32.Vec2{{0, 1}, {1, 1}, {0, 0}}; !slices.Equal(m.meshes[0].UVs, want) {
		t.Errorf("uvs %v, want %v", m.meshes[0].UVs, want)
	}
	im := m.materials[0]
	if im.ImageSampler.TexCoord != 1 || im.RoughSampler.TexCoord != 0 {
		t.Errorf("texCoords %d and %d, want 1 and 0", im.ImageSampler.TexCoord, im.RoughSampler.TexCoord)
	}
	// Without a texture on set 1, TEXCOORD_1 is not read.
	pbr.BaseColorTexture.TexCoord = 0
	if m := mustLoadGLTFDoc(t, doc, false); m.meshes[0].UV1s != nil {
		t.Errorf("second uvs %v read though no texture uses them", m.meshes[0].UV1s)
	}
}

// TestLoadGLTFColor0 decodes COLOR_0 of each accepted component type and
// width to linear RGB (alpha dropped).
func TestLoadGLTFColor0(t *testing.T) {
	for name, tc := range map[string]struct {
		data any
		want []mgl32.Vec3
	}{
		"float vec3":  {[][3]float32{{0.25, 0.5, 1}, {0, 0, 0}, {1, 1, 1}}, []mgl32.Vec3{{0.25, 0.5, 1}, {0, 0, 0}, {1, 1, 1}}},
		"float vec4":  {[][4]float32{{0.25, 0.5, 1, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}}, []mgl32.Vec3{{0.25, 0.5, 1}, {0, 0, 0}, {1, 1, 1}}},
		"ubyte vec3":  {[][3]uint8{{255, 51, 0}, {0, 0, 0}, {1, 2, 3}}, []mgl32.Vec3{{1, 0.2, 0}, {0, 0, 0}, {1.0 / 255, 2.0 / 255, 3.0 / 255}}},
		"ubyte vec4":  {[][4]uint8{{255, 51, 0, 7}, {0, 0, 0, 0}, {1, 2, 3, 4}}, []mgl32.Vec3{{1, 0.2, 0}, {0, 0, 0}, {1.0 / 255, 2.0 / 255, 3.0 / 255}}},
		"ushort vec3": {[][3]uint16{{65535, 13107, 0}, {0, 0, 0}, {1, 2, 3}}, []mgl32.Vec3{{1, 0.2, 0}, {0, 0, 0}, {1.0 / 65535, 2.0 / 65535, 3.0 / 65535}}},
		"ushort vec4": {[][4]uint16{{65535, 13107, 0, 9}, {0, 0, 0, 0}, {1, 2, 3, 4}}, []mgl32.Vec3{{1, 0.2, 0}, {0, 0, 0}, {1.0 / 65535, 2.0 / 65535, 3.0 / 65535}}},
	} {
		doc := newGLTFDoc(gltfTriangle, nil)
		var i int
		if strings.HasPrefix(name, "float") {
			i = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, tc.data)
		} else {
			i = modeler.WriteColor(doc, tc.data)
		}
		doc.Meshes[0].Primitives[0].Attributes[gltf.COLOR_0] = i
		m := mustLoadGLTFDoc(t, doc, false)
		if !slices.Equal(m.meshes[0].Colors, tc.want) {
			t.Errorf("%s: colours %v, want %v", name, m.meshes[0].Colors, tc.want)
		}
	}
}

// TestSceneTextureSampler reads an image texture's wrap, wrap_s, wrap_t
// and filter, and reports unknown values at their JSON path.
func TestSceneTextureSampler(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "t.png", []byte(mtlPNG(t, 1, 1, 10, 20, 30)))
	for _, tc := range []struct {
		json string
		want [3]uint32 // WrapS, WrapT, Filter
		err  string
	}{
		{`{}`, [3]uint32{0, 0, 0}, ""},
		{`{"wrap": "clamp"}`, [3]uint32{1, 1, 0}, ""},
		{`{"wrap": "mirror", "wrap_t": "repeat", "filter": "nearest"}`, [3]uint32{2, 0, 1}, ""},
		{`{"wrap_s": "clamp", "wrap_t": "mirror"}`, [3]uint32{1, 2, 0}, ""},
		{`{"wrap": "clmap"}`, [3]uint32{}, "materials.a.texture.wrap"},
		{`{"wrap_t": "border"}`, [3]uint32{}, "materials.a.texture.wrap_t"},
		{`{"filter": "cubic"}`, [3]uint32{}, "materials.a.texture.filter"},
	} {
		tex := `{"type": "image", "file": "t.png"` + strings.TrimPrefix(strings.TrimSuffix(tc.json, "}"), "{")
		if tc.json != `{}` {
			tex = `{"type": "image", "file": "t.png", ` + strings.TrimPrefix(tc.json, "{")
		} else {
			tex += "}"
		}
		writeFile(t, dir, "scene.json", []byte(imageScene(`{"color": [0, 0, 0]}`, `{"a": {"type": "diffuse", "texture": `+tex+`}}`)))
		s, err := Load(filepath.Join(dir, "scene.json"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one naming %s", tc.json, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		x := s.Textures[0]
		if got := [3]uint32{uint32(x.WrapS), uint32(x.WrapT), uint32(x.Filter)}; got != tc.want {
			t.Errorf("%s: wrap and filter %v, want %v", tc.json, got, tc.want)
		}
	}
}

// TestOBJVertexColours reads v x y z r g b (other vertices white) and
// refuses a colour outside [0, 1], and MTL's -clamp on.
func TestOBJVertexColours(t *testing.T) {
	dir := writeFiles(t, map[string]string{})
	im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte("v 0 0 0\nv 1 0 0 0.5 0.25 1\nv 0 1 0\nf 1 2 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []mgl32.Vec3{{1, 1, 1}, {0.5, 0.25, 1}, {1, 1, 1}}; !slices.Equal(im.meshes[0].Colors, want) {
		t.Errorf("colours %v, want %v", im.meshes[0].Colors, want)
	}
	im, err = parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"))
	if err != nil || im.meshes[0].Colors != nil {
		t.Errorf("no colours: %v, %v", err, im.meshes[0].Colors)
	}
	if _, err = parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte("v 0 0 0 2 0 0\n")); err == nil || !strings.Contains(err.Error(), "vertex colour") {
		t.Errorf("colour 2: error %v", err)
	}
	mats, err := importMTL(t, "newmtl m\nKd 1 1 1\nmap_Kd -clamp on t.png\n", map[string]string{"t.png": mtlPNG(t, 1, 1, 1, 2, 3)}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if got := mats[0].ImageSampler; got.WrapS != tracer.WrapClamp || got.WrapT != tracer.WrapClamp {
		t.Errorf("-clamp on: sampler %+v", got)
	}
	if _, err := importMTL(t, "newmtl m\nmap_Kd -clamp maybe t.png\n", map[string]string{"t.png": mtlPNG(t, 1, 1, 1, 2, 3)}, "m"); err == nil || !strings.Contains(err.Error(), "-clamp") {
		t.Errorf("-clamp maybe: error %v", err)
	}
}
