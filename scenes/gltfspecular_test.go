package scenes

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFSpecular: a glTF material's KHR_materials_specular and
// KHR_materials_ior (Blender's Principled Specular, Specular Tint and
// IOR) become its pbr material's dielectric F0 and F90, with no warning,
// also in a file that requires them; an ior alone gives the F0 it
// implies (textures: TestMeshGLTFSpecularTextures); ior 0 is drawn as 1.5 and named; values glTF does not allow are
// errors; on glass the specular is not read, and the warning names it.
func TestMeshGLTFSpecular(t *testing.T) {
	// What Blender 3.4 writes for Specular 0 (a colour of 0) and for
	// Specular 1 (0.08 / F0(1.45) = 2.3714 in each component), with its
	// IOR 1.45.
	blender1 := 0.08 / ((0.45 / 2.45) * (0.45 / 2.45))
	for _, tc := range []struct {
		name     string
		spec     string // KHR_materials_specular, or ""
		ior      string // KHR_materials_ior, or ""
		glass    bool
		required bool
		f0       mgl32.Vec3
		f90      float32
		set      uint32
		warn     string
		err      string
	}{
		{name: "Blender's Specular 0", spec: `{"specularColorFactor": [0, 0, 0]}`, ior: `{"ior": 1.45}`, f90: 1, set: 1},
		{name: "Blender's Specular 1", spec: `{"specularColorFactor": [` + jsonNum(blender1) + `, ` + jsonNum(blender1) + `, ` + jsonNum(blender1) + `]}`,
			ior: `{"ior": 1.45}`, f0: mgl32.Vec3{0.08, 0.08, 0.08}, f90: 1, set: 1, required: true},
		{name: "factor and a colour clamped", spec: `{"specularFactor": 0.5, "specularColorFactor": [1, 50, 0.5]}`,
			f0: mgl32.Vec3{0.02, 0.5, 0.01}, f90: 0.5, set: 1},
		{name: "ior alone", ior: `{"ior": 2}`, f0: mgl32.Vec3{1.0 / 9, 1.0 / 9, 1.0 / 9}, f90: 1, set: 1, required: true},
		{name: "defaults", spec: `{}`, ior: `{}`},
		{name: "ior 0", ior: `{"ior": 0}`, warn: `drawn without KHR_materials_ior's ior 0 (the specular-glossiness mode), which`},
		{name: "on glass", spec: `{"specularFactor": 0}`, glass: true, warn: `drawn without KHR_materials_specular,`},
		{name: "on glass, required", spec: `{"specularFactor": 0}`, glass: true, required: true,
			err: `needs KHR_materials_specular, which the file requires and trace does not read on glass`},
		{name: "factor above 1", spec: `{"specularFactor": 1.5}`, err: `KHR_materials_specular: specularFactor 1.5 is outside [0, 1]`},
		{name: "colour below 0", spec: `{"specularColorFactor": [1, -1, 1]}`, err: `specularColorFactor [1 -1 1] must be finite and >= 0`},
		{name: "ior below 1", ior: `{"ior": 0.5}`, err: `KHR_materials_ior: ior 0.5 must be 0 or a number >= 1`},
		{name: "not an object", spec: `[1]`, err: `KHR_materials_specular: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			zero, half := 0.0, 0.5
			exts := gltf.Extensions{}
			if tc.spec != "" {
				exts[gltfSpecularExt] = json.RawMessage(tc.spec)
			}
			if tc.ior != "" {
				exts[gltfIORExt] = json.RawMessage(tc.ior)
			}
			if tc.glass {
				exts[gltfTransmissionExt] = json.RawMessage(`{"transmissionFactor": 1}`)
			}
			doc.Materials = []*gltf.Material{{Name: "plastic", Extensions: exts,
				PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: &zero, RoughnessFactor: &half}}}
			for e := range exts {
				doc.ExtensionsUsed = append(doc.ExtensionsUsed, e)
				if tc.required {
					doc.ExtensionsRequired = append(doc.ExtensionsRequired, e)
				}
			}
			m, ok := loadGLTFMaterial(t, dir, "plastic.gltf", doc, tc.err, tc.warn)
			if !ok {
				return
			}
			wantKind := tracer.MaterialPBR
			if tc.glass {
				wantKind = tracer.MaterialDielectric
			}
			near := true
			for k := range 3 {
				near = near && math.Abs(float64(m.SpecularF0[k]-tc.f0[k])) < 1e-6
			}
			if m.Kind != wantKind || !near || m.SpecularF90 != tc.f90 || m.DielectricSpecular != tc.set {
				t.Errorf("material kind %d, F0 %v, F90 %g, set %d; want kind %d, %v, %g, %d",
					m.Kind, m.SpecularF0, m.SpecularF90, m.DielectricSpecular, wantKind, tc.f0, tc.f90, tc.set)
			}
		})
	}
}

// jsonNum writes x for a JSON document, all its digits.
func jsonNum(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// TestMeshGLTFSpecularTextures: KHR_materials_specular's specularTexture
// and specularColorTexture become the pbr material's SpecularMap (the
// image's alpha channel, linear) and SpecularColorMap (its colours,
// sRGB-decoded), each with its KHR_texture_transform, sampler and
// texCoord, with no warning; with a colour texture, F0 is not clamped to
// F90 before it (0.04 × 50 × 0.5 = 1, not min(2, 1) × 0.5); a texture
// that does not exist is an error.
func TestMeshGLTFSpecularTextures(t *testing.T) {
	pix := pngOf(t, color.NRGBA{255, 0, 0, 0}, color.NRGBA{0, 255, 0, 255})
	for _, tc := range []struct {
		name string
		spec string
		err  string
	}{
		{name: "both", spec: `{"specularFactor": 0.5, "specularColorFactor": [1, 50, 0.5],
			"specularTexture": {"index": 1, "extensions": {"KHR_texture_transform": {"scale": [2, 2]}}},
			"specularColorTexture": {"index": 1, "texCoord": 1}}`},
		{name: "missing", spec: `{"specularTexture": {"index": 7}}`,
			err: `materials[0].extensions.KHR_materials_specular.specularTexture: textures[7] does not exist`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := extensionDoc(t, pix, "plastic", gltfSpecularExt, tc.spec)
			path := filepath.Join(dir, "plastic.gltf")
			writeGLTF(t, path, doc)
			scene := writeMeshScene(t, dir, "", `"file": "plastic.gltf"`)
			log := captureWarnings(t)
			s, err := Load(scene)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.TrimSpace(log.String()); w != "" {
				t.Errorf("warning %q, want none", w)
			}
			m := s.Materials[s.Meshes[0].Material]
			if m.Kind != tracer.MaterialPBR || m.DielectricSpecular != 1 || m.SpecularMap == 0 || m.SpecularColorMap == 0 {
				t.Fatalf("material %+v: want pbr with both specular maps", m)
			}
			if want := (mgl32.Vec3{0.02, 1, 0.01}); math.Abs(float64(m.SpecularF0[1]-want[1])) > 1e-6 || m.SpecularF90 != 0.5 {
				t.Errorf("F0 %v, F90 %g; want %v (unclamped), 0.5", m.SpecularF0, m.SpecularF90, want)
			}
			st, ct := s.Textures[m.SpecularMap-1], s.Textures[m.SpecularColorMap-1]
			if st.UV != [6]float32{2, 0, 0, 2, 0, -1} || st.TexCoord != 0 || st.WrapS != tracer.WrapClamp {
				t.Errorf("specular texture UV %v, set %d, wrap %d: want scale 2 (v flipped), set 0, clamp", st.UV, st.TexCoord, st.WrapS)
			}
			if ct.TexCoord != 1 || ct.UV != [6]float32{} {
				t.Errorf("specular colour texture set %d, UV %v: want set 1, none", ct.TexCoord, ct.UV)
			}
			if a := s.Images[st.Image].Alpha; !slices.Equal(a, []float32{0, 1}) {
				t.Errorf("specular texture alpha %v, want [0 1]", a)
			}
			if p := s.Images[ct.Image].Pix; !slices.Equal(p, []float32{1, 0, 0, 0, 1, 0}) {
				t.Errorf("specular colour texture %v, want red and green", p)
			}
		})
	}
}

// pngOf encodes a PNG of 2×1 pixels, a and b.
func pngOf(t *testing.T, a, b color.NRGBA) []byte {
	t.Helper()
	rgba := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	rgba.SetNRGBA(0, 0, a)
	rgba.SetNRGBA(1, 0, b)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgba); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// extensionDoc returns texturedGLTFDoc with a TEXCOORD_1, a second
// texture (1) of the PNG pix through sampler 0, which clamps in s, and
// material 0 named name, of metallic 0, carrying the material extension
// ext of JSON body (with KHR_texture_transform, both used).
func extensionDoc(t *testing.T, pix []byte, name, ext, body string) *gltf.Document {
	t.Helper()
	doc := texturedGLTFDoc()
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.TEXCOORD_1] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}})
	src, err := modeler.WriteImage(doc, "rgba", "image/png", bytes.NewReader(pix))
	if err != nil {
		t.Fatal(err)
	}
	doc.Textures = append(doc.Textures, &gltf.Texture{Source: gltf.Index(src), Sampler: gltf.Index(0)})
	doc.Samplers[0] = &gltf.Sampler{WrapS: gltf.WrapClampToEdge}
	zero := 0.0
	doc.Materials[0].Name = name
	doc.Materials[0].PBRMetallicRoughness.MetallicFactor = &zero
	doc.Materials[0].Extensions = gltf.Extensions{ext: json.RawMessage(body)}
	doc.ExtensionsUsed = []string{ext, "KHR_texture_transform"}
	return doc
}
