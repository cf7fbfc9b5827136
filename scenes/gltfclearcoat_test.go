package scenes

import (
	"encoding/json"
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFClearcoat: a glTF material's KHR_materials_clearcoat
// (Blender's Principled Clearcoat) becomes its pbr material's clear
// coat, with no warning, also in a file that requires the extension;
// its clearcoatNormalTexture is not read and is named in the warning, the
// factors still read (TestMeshGLTFClearcoatTextures: the other two); a factor outside [0, 1] is an error; on glass the coat is
// not drawn, and the warning names the extension.
func TestMeshGLTFClearcoat(t *testing.T) {
	one := 1.0
	for _, tc := range []struct {
		name           string
		ext            string
		glass          bool
		required       bool
		clear, clearRg float32
		warn, err      string
	}{
		{name: "factors", ext: `{"clearcoatFactor": 0.8, "clearcoatRoughnessFactor": 0.3}`, clear: 0.8, clearRg: 0.3},
		{name: "defaults", ext: `{}`},
		{name: "required", ext: `{"clearcoatFactor": 1}`, required: true, clear: 1},
		{name: "normal texture", ext: `{"clearcoatFactor": 0.5, "clearcoatNormalTexture": {"index": 0}}`,
			clear: 0.5, warn: `drawn without KHR_materials_clearcoat's clearcoatNormalTexture, which`},
		{name: "on glass", ext: `{"clearcoatFactor": 1}`, glass: true, warn: `drawn without KHR_materials_clearcoat,`},
		{name: "on glass, required", ext: `{"clearcoatFactor": 1}`, glass: true, required: true,
			err: `needs KHR_materials_clearcoat, which the file requires and trace does not read on glass`},
		{name: "factor above 1", ext: `{"clearcoatFactor": 1.5}`, err: `KHR_materials_clearcoat: clearcoatFactor 1.5 is outside [0, 1]`},
		{name: "roughness below 0", ext: `{"clearcoatRoughnessFactor": -1}`, err: `clearcoatRoughnessFactor -1 is outside [0, 1]`},
		{name: "not an object", ext: `[1]`, err: `KHR_materials_clearcoat: not an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			zero := 0.0
			exts := gltf.Extensions{gltfClearcoatExt: json.RawMessage(tc.ext)}
			if tc.glass {
				exts["KHR_materials_transmission"] = json.RawMessage(`{"transmissionFactor": 1}`)
			}
			doc.Materials = []*gltf.Material{{Name: "coated", Extensions: exts,
				PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: &zero, RoughnessFactor: &one}}}
			doc.ExtensionsUsed = []string{gltfClearcoatExt}
			if tc.required {
				doc.ExtensionsRequired = []string{gltfClearcoatExt}
			}
			m, ok := loadGLTFMaterial(t, dir, "coat.gltf", doc, tc.err, tc.warn)
			if !ok {
				return
			}
			wantKind := tracer.MaterialPBR
			if tc.glass {
				wantKind = tracer.MaterialDielectric
			}
			if m.Kind != wantKind || m.Clearcoat != tc.clear || m.ClearcoatRoughness != tc.clearRg {
				t.Errorf("material kind %d, clearcoat %g, roughness %g; want kind %d, %g, %g", m.Kind, m.Clearcoat, m.ClearcoatRoughness, wantKind, tc.clear, tc.clearRg)
			}
		})
	}
}

// loadGLTFMaterial writes doc as dir/file, loads a scene that draws it and
// returns its first mesh's material; with wantErr, it checks that loading
// fails with it and returns false. The warnings logged must contain
// wantWarn, or be none when it is "".
func loadGLTFMaterial(t *testing.T, dir, file string, doc *gltf.Document, wantErr, wantWarn string) (tracer.Material, bool) {
	t.Helper()
	s, ok := loadGLTFMaterialScene(t, dir, file, doc, wantErr, wantWarn)
	if !ok {
		return tracer.Material{}, false
	}
	return s.Materials[s.Meshes[0].Material], true
}

// TestMeshGLTFClearcoatTextures: KHR_materials_clearcoat's
// clearcoatTexture and clearcoatRoughnessTexture (Blender's exporter
// writes one image for both, the coat in red and its roughness in
// green) become the pbr material's ClearcoatMap and
// ClearcoatRoughnessMap, decoded linearly (a texel of 128 is 128/255,
// not sRGB's 0.216), with their KHR_texture_transform, texCoord and
// sampler, the factors kept, and no warning; a texture that does not
// exist is an error.
func TestMeshGLTFClearcoatTextures(t *testing.T) {
	pix := pngOf(t, color.NRGBA{255, 128, 0, 255}, color.NRGBA{0, 255, 0, 255})
	for _, tc := range []struct {
		name string
		ext  string
		err  string
	}{
		{name: "both", ext: `{"clearcoatFactor": 0.75, "clearcoatRoughnessFactor": 0.5,
			"clearcoatTexture": {"index": 1, "extensions": {"KHR_texture_transform": {"scale": [2, 2]}}},
			"clearcoatRoughnessTexture": {"index": 1, "texCoord": 1}}`},
		{name: "missing", ext: `{"clearcoatFactor": 1, "clearcoatRoughnessTexture": {"index": 7}}`,
			err: `materials[0].extensions.KHR_materials_clearcoat.clearcoatRoughnessTexture: textures[7] does not exist`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := extensionDoc(t, pix, "coated", gltfClearcoatExt, tc.ext)
			m, ok := loadGLTFMaterialScene(t, dir, "coat.gltf", doc, tc.err, "")
			if !ok {
				return
			}
			mat := m.Materials[m.Meshes[0].Material]
			if mat.Kind != tracer.MaterialPBR || mat.Clearcoat != 0.75 || mat.ClearcoatRoughness != 0.5 || mat.ClearcoatMap == 0 || mat.ClearcoatRoughnessMap == 0 {
				t.Fatalf("material %+v: want pbr, clear coat 0.75 of roughness 0.5, with both maps", mat)
			}
			ct, rt := m.Textures[mat.ClearcoatMap-1], m.Textures[mat.ClearcoatRoughnessMap-1]
			if ct.UV != [6]float32{2, 0, 0, 2, 0, -1} || ct.TexCoord != 0 || ct.WrapS != tracer.WrapClamp {
				t.Errorf("clear coat texture UV %v, set %d, wrap %d: want scale 2 (v flipped), set 0, clamp", ct.UV, ct.TexCoord, ct.WrapS)
			}
			if rt.TexCoord != 1 || rt.UV != [6]float32{} || rt.WrapS != tracer.WrapClamp {
				t.Errorf("clear coat roughness texture set %d, UV %v, wrap %d: want set 1, none, clamp", rt.TexCoord, rt.UV, rt.WrapS)
			}
			want := []float32{1, 128.0 / 255, 0, 0, 1, 0}
			for _, tex := range []tracer.Texture{ct, rt} {
				if p := m.Images[tex.Image].Pix; !slices.Equal(p, want) {
					t.Errorf("texture of image %d: texels %v, want %v (linear)", tex.Image, p, want)
				}
			}
		})
	}
}

// loadGLTFMaterialScene is loadGLTFMaterial returning the whole scene.
func loadGLTFMaterialScene(t *testing.T, dir, file string, doc *gltf.Document, wantErr, wantWarn string) (*tracer.SceneDesc, bool) {
	t.Helper()
	writeGLTF(t, filepath.Join(dir, file), doc)
	path := writeMeshScene(t, dir, "", `"file": "`+file+`"`)
	log := captureWarnings(t)
	s, err := Load(path)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one with %q", err, wantErr)
		}
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	w := strings.TrimSpace(log.String())
	if wantWarn == "" && w != "" || wantWarn != "" && !strings.Contains(w, wantWarn) {
		t.Errorf("warning %q, want %q", w, wantWarn)
	}
	return s, true
}
