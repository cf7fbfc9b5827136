package scenes

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFClearcoat: a glTF material's KHR_materials_clearcoat
// (Blender's Principled Clearcoat) becomes its pbr material's clear
// coat, with no warning, also in a file that requires the extension;
// its textures are not read and are named in the warning, the factors
// still read; a factor outside [0, 1] is an error; on glass the coat is
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
		{name: "textures", ext: `{"clearcoatFactor": 0.5, "clearcoatTexture": {"index": 0}, "clearcoatNormalTexture": {"index": 0}}`,
			clear: 0.5, warn: `drawn without KHR_materials_clearcoat's clearcoatNormalTexture, KHR_materials_clearcoat's clearcoatTexture, which`},
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
	writeGLTF(t, filepath.Join(dir, file), doc)
	path := writeMeshScene(t, dir, "", `"file": "`+file+`"`)
	log := captureWarnings(t)
	s, err := Load(path)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one with %q", err, wantErr)
		}
		return tracer.Material{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	w := strings.TrimSpace(log.String())
	if wantWarn == "" && w != "" || wantWarn != "" && !strings.Contains(w, wantWarn) {
		t.Errorf("warning %q, want %q", w, wantWarn)
	}
	return s.Materials[s.Meshes[0].Material], true
}
