package scenes

import (
	"bytes"
	"encoding/json"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFSpecGloss: a KHR_materials_pbrSpecularGlossiness material
// becomes a pbr material with no warning (where it was drawn as its
// pbrMetallicRoughness, named in the warning), also in a file that
// requires the extension, in place of its pbrMetallicRoughness: base colour
// diffuseFactor (its alpha the material's alpha), metallic 0, roughness
// 1 − glossinessFactor, F0 specularFactor exactly and F90 1; with
// textures, diffuseTexture is the colour texture, specularGlossinessTexture
// the specular colour map (its sRGB colours) and, from its alpha, a
// roughness map of green 1 − glossinessFactor × alpha (roughness factor
// 1); factors outside [0, 1] are errors.
func TestMeshGLTFSpecGloss(t *testing.T) {
	// A specular-glossiness texture: sRGB (255, 188, 0) of glossiness 0,
	// then (0, 255, 255) of glossiness 1 (alpha 255).
	pix := pngOf(t, color.NRGBA{255, 188, 0, 0}, color.NRGBA{0, 255, 255, 255})
	for _, tc := range []struct {
		name     string
		ext      string
		blend    bool
		color    mgl32.Vec3
		alpha    float32
		rough    float32
		f0       mgl32.Vec3
		textures bool
		err      string
	}{
		{name: "defaults", ext: `{}`, color: mgl32.Vec3{1, 1, 1}, rough: 0, f0: mgl32.Vec3{1, 1, 1}},
		{name: "factors", ext: `{"diffuseFactor": [0.5, 0.25, 1, 0.5], "specularFactor": [0.2, 0.5, 0.04], "glossinessFactor": 0.7}`,
			blend: true, color: mgl32.Vec3{0.5, 0.25, 1}, alpha: 0.5, rough: float32(1 - 0.7), f0: mgl32.Vec3{0.2, 0.5, 0.04}},
		{name: "textures", ext: `{"diffuseFactor": [0.5, 0.25, 1, 1], "diffuseTexture": {"index": 0},
			"specularFactor": [0.5, 0.5, 0.5], "glossinessFactor": 0.5, "specularGlossinessTexture": {"index": 1}}`,
			color: mgl32.Vec3{0.5, 0.25, 1}, rough: 1, f0: mgl32.Vec3{0.5, 0.5, 0.5}, textures: true},
		{name: "specular above 1", ext: `{"specularFactor": [1, 1.5, 1]}`,
			err: `materials[0]: KHR_materials_pbrSpecularGlossiness: specularFactor [1 1.5 1] is outside [0, 1]`},
		{name: "glossiness below 0", ext: `{"glossinessFactor": -0.5}`,
			err: `materials[0]: KHR_materials_pbrSpecularGlossiness: glossinessFactor -0.5 is outside [0, 1]`},
		{name: "diffuse above 1", ext: `{"diffuseFactor": [1, 1, 2, 1]}`,
			err: `materials[0]: KHR_materials_pbrSpecularGlossiness: diffuseFactor [1 1 2 1] is outside [0, 1]`},
		{name: "diffuse of three", ext: `{"diffuseFactor": [1, 1, 1]}`,
			err: `materials[0]: KHR_materials_pbrSpecularGlossiness: diffuseFactor [1 1 1] has 3 numbers, want 4 (RGBA)`},
		{name: "specular of four", ext: `{"specularFactor": [1, 1, 1, 1]}`,
			err: `materials[0]: KHR_materials_pbrSpecularGlossiness: specularFactor [1 1 1 1] has 4 numbers, want 3 (RGB)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := texturedGLTFDoc() // texture 0: tinyPNG
			src, err := modeler.WriteImage(doc, "specgloss", "image/png", bytes.NewReader(pix))
			if err != nil {
				t.Fatal(err)
			}
			doc.Textures = append(doc.Textures, &gltf.Texture{Source: gltf.Index(src), Sampler: gltf.Index(0)})
			// The fallback, which the extension takes the place of: a
			// rough metal with a metallic-roughness texture.
			one := 1.0
			doc.Materials[0] = &gltf.Material{Name: "sg", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
				BaseColorFactor: &[4]float64{0.9, 0.9, 0.9, 1}, MetallicFactor: &one, RoughnessFactor: &one,
				MetallicRoughnessTexture: &gltf.TextureInfo{Index: 0}},
				Extensions: gltf.Extensions{gltfSpecGlossExt: json.RawMessage(tc.ext)}}
			if tc.blend {
				doc.Materials[0].AlphaMode = gltf.AlphaBlend
			}
			doc.ExtensionsUsed = []string{gltfSpecGlossExt}
			if tc.name != "defaults" { // used only: no warning either
				doc.ExtensionsRequired = []string{gltfSpecGlossExt}
			}
			m, ok := loadGLTFMaterial(t, dir, "sg.gltf", doc, tc.err, "")
			if !ok {
				return
			}
			if m.Kind != tracer.MaterialPBR || m.Metallic != 0 || m.Roughness != tc.rough || m.Alpha != tc.alpha ||
				m.SpecularF0 != tc.f0 || m.SpecularF90 != 1 || m.DielectricSpecular != 1 || m.SpecularMap != 0 {
				t.Errorf("material kind %d, metallic %g, roughness %g, alpha %g, F0 %v, F90 %g, set %d, specular map %d; want pbr, 0, %g, %g, %v, 1, 1, 0",
					m.Kind, m.Metallic, m.Roughness, m.Alpha, m.SpecularF0, m.SpecularF90, m.DielectricSpecular, m.SpecularMap,
					tc.rough, tc.alpha, tc.f0)
			}
			s := loadedScene(t, dir)
			if !tc.textures {
				if m.Color != tc.color || m.Texture != tracer.NoTexture || m.RoughMap != 0 || m.SpecularColorMap != 0 {
					t.Errorf("colour %v, texture %d, maps %d and %d; want %v and none", m.Color, m.Texture, m.RoughMap, m.SpecularColorMap, tc.color)
				}
				return
			}
			if m.Texture < 0 || m.RoughMap == 0 || m.SpecularColorMap == 0 {
				t.Fatalf("texture %d, roughness map %d, specular colour map %d: want all three", m.Texture, m.RoughMap, m.SpecularColorMap)
			}
			if ct := s.Textures[m.Texture]; ct.Even != tc.color || !slices.Equal(s.Images[ct.Image].Pix, []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}) {
				t.Errorf("colour texture tint %v, image %v: want %v and tinyPNG", ct.Even, s.Images[ct.Image].Pix, tc.color)
			}
			// sRGB 188/255 is 0.5029 linear.
			spec := s.Images[s.Textures[m.SpecularColorMap-1].Image].Pix
			if math.Abs(float64(spec[1])-0.5029) > 1e-3 || spec[0] != 1 || spec[2] != 0 || spec[3] != 0 || spec[4] != 1 {
				t.Errorf("specular colour map %v, want sRGB-decoded (1, 0.503, 0), (0, 1, 1)", spec)
			}
			// Roughness 1 − 0.5 × glossiness: 1 and 0.5.
			if rough := s.Images[s.Textures[m.RoughMap-1].Image].Pix; !slices.Equal(rough, []float32{1, 1, 1, 1, 0.5, 1}) {
				t.Errorf("roughness map %v, want green 1 and 0.5", rough)
			}
		})
	}
}

// TestSpecGlossF0Exact: the conversion's F0, KHR_materials_specular's
// min(((1.5 − 1)/(1.5 + 1))² × specularFactor / 0.04, 1) × 1
// (tracer.PBRSpecular; PBRSpecularUnclamped with a texture), is
// specularFactor exactly, in float32, for every 8-bit value (as a file
// written from float32 holds it) and every step of 1e-5 in [0, 1].
func TestSpecGlossF0Exact(t *testing.T) {
	var cs []float64
	for k := range 256 {
		cs = append(cs, float64(float32(float64(k)/255)))
	}
	for k := range 100001 {
		cs = append(cs, float64(k)/100000)
	}
	for _, c := range cs {
		f0, _ := tracer.PBRSpecular(1.5, 1, [3]float64{c / 0.04, 0, 0})
		u, _ := tracer.PBRSpecularUnclamped(1.5, 1, [3]float64{c / 0.04, 0, 0})
		if f0[0] != float32(c) || u[0] != float32(c) {
			t.Fatalf("specularFactor %v: F0 %v and %v unclamped, want %v", c, f0[0], u[0], float32(c))
		}
	}
}

// loadedScene loads the scene.json that loadGLTFMaterial wrote in dir.
func loadedScene(t *testing.T, dir string) *tracer.SceneDesc {
	t.Helper()
	s, err := Load(filepath.Join(dir, "scene.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSpecGlossRendersAsMetalRough: the specular-glossiness materials
// that have a metallic-roughness twin render the same bits as it, path
// traced and Whitted, after SpecGlossVsMetalRough's two halves: a
// plastic (specular 0.04, glossiness 0.6; metallic 0, roughness 0.4) and
// a gold (diffuse black, specular the gold; metallic 1, base the gold).
// A plastic of specular 0.2 does not.
func TestSpecGlossRendersAsMetalRough(t *testing.T) {
	gold := `[1, 0.77, 0.34]`
	for _, tc := range []struct {
		name, sg, mr string
		same         bool
	}{
		{"plastic", `{"diffuseFactor": [0.8, 0.1, 0.1, 1], "specularFactor": [0.04, 0.04, 0.04], "glossinessFactor": 0.6}`,
			`{"baseColorFactor": [0.8, 0.1, 0.1, 1], "metallicFactor": 0, "roughnessFactor": 0.4}`, true},
		{"gold", `{"diffuseFactor": [0, 0, 0, 1], "specularFactor": ` + gold + `, "glossinessFactor": 0.75}`,
			`{"baseColorFactor": [1, 0.77, 0.34, 1], "metallicFactor": 1, "roughnessFactor": 0.25}`, true},
		{"another plastic", `{"diffuseFactor": [0.8, 0.1, 0.1, 1], "specularFactor": [0.2, 0.2, 0.2], "glossinessFactor": 0.6}`,
			`{"baseColorFactor": [0.8, 0.1, 0.1, 1], "metallicFactor": 0, "roughnessFactor": 0.4}`, false},
	} {
		for _, integ := range []string{"path", "whitted"} {
			render := func(ext bool, material string) []mgl32.Vec3 {
				dir, _ := gltfScene(t)
				doc := newGLTFDoc(gltfTriangle, nil)
				doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
				doc.Materials = []*gltf.Material{{Name: "m"}}
				if ext {
					doc.Materials[0].Extensions = gltf.Extensions{gltfSpecGlossExt: json.RawMessage(material)}
					doc.ExtensionsUsed = []string{gltfSpecGlossExt}
				} else {
					var pbr gltf.PBRMetallicRoughness
					if err := json.Unmarshal([]byte(material), &pbr); err != nil {
						t.Fatal(err)
					}
					doc.Materials[0].PBRMetallicRoughness = &pbr
				}
				writeGLTF(t, filepath.Join(dir, "m.gltf"), doc)
				path := filepath.Join(dir, "scene.json")
				scene := `{"version": 1, "render": {"width": 12, "height": 12, "samples": 4, "max_depth": 3, "integrator": "` + integ + `"},
					"camera": {"position": [0.3, 0.3, 1.5], "look_at": [0.3, 0.3, 0]},
					"background": {"type": "gradient", "bottom": [0.1, 0.1, 0.1], "top": [1, 0.9, 0.8]},
					"lights": [{"type": "point", "position": [1, 1, 2], "color": [1, 1, 1], "intensity": 5}],
					"objects": [{"type": "mesh", "file": "m.gltf"}]}`
				if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
					t.Fatal(err)
				}
				_, s := compileSceneFile(t, path)
				var st tracer.Stats
				var px []mgl32.Vec3
				for i := range 12 * 12 {
					px = append(px, s.RenderPixel(i%12, i/12, &st))
				}
				return px
			}
			sg, mr := render(true, tc.sg), render(false, tc.mr)
			if same := slices.Equal(sg, mr); same != tc.same {
				t.Errorf("%s, %s: specular-glossiness renders the bits of its metallic-roughness twin %v, want %v", tc.name, integ, same, tc.same)
			}
		}
	}
}
