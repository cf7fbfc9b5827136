package scenes

import (
	"encoding/json"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"

	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFSheen: a glTF material's KHR_materials_sheen becomes its
// pbr material's sheen (sheenColorFactor, sheenRoughnessFactor), with no
// warning, also in a file that requires the extension; its textures are
// not read and are named in the warning, the factors still read; a
// factor outside [0, 1] or a colour of the wrong length is an error; on
// glass the sheen is not drawn, and the warning names the extension.
func TestMeshGLTFSheen(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ext       string
		glass     bool
		required  bool
		color     mgl32.Vec3
		rough     float32
		warn, err string
	}{
		{name: "factors", ext: `{"sheenColorFactor": [0.9, 0.3, 0.6], "sheenRoughnessFactor": 0.4}`,
			color: mgl32.Vec3{0.9, 0.3, 0.6}, rough: 0.4},
		{name: "defaults", ext: `{}`},
		{name: "required", ext: `{"sheenColorFactor": [1, 1, 1]}`, required: true, color: mgl32.Vec3{1, 1, 1}},
		{name: "textures", ext: `{"sheenColorFactor": [0.5, 0.5, 0.5], "sheenColorTexture": {"index": 0}, "sheenRoughnessFactor": 0.7, "sheenRoughnessTexture": {"index": 0}}`,
			color: mgl32.Vec3{0.5, 0.5, 0.5}, rough: 0.7,
			warn: `drawn without KHR_materials_sheen's sheenColorTexture, KHR_materials_sheen's sheenRoughnessTexture, which`},
		{name: "on glass", ext: `{"sheenColorFactor": [1, 1, 1]}`, glass: true, warn: `drawn without KHR_materials_sheen,`},
		{name: "on glass, required", ext: `{"sheenColorFactor": [1, 1, 1]}`, glass: true, required: true,
			err: `needs KHR_materials_sheen, which the file requires and trace does not read on glass`},
		{name: "colour above 1", ext: `{"sheenColorFactor": [1, 1.5, 1]}`, err: `KHR_materials_sheen: sheenColorFactor[1] 1.5 is outside [0, 1]`},
		{name: "colour of 4", ext: `{"sheenColorFactor": [1, 1, 1, 1]}`, err: `KHR_materials_sheen: sheenColorFactor has 4 numbers, want 3 (RGB)`},
		{name: "roughness below 0", ext: `{"sheenRoughnessFactor": -1}`, err: `KHR_materials_sheen: sheenRoughnessFactor -1 is outside [0, 1]`},
		{name: "not an object", ext: `[1]`, err: `KHR_materials_sheen: not an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			zero, one := 0.0, 1.0
			exts := gltf.Extensions{gltfSheenExt: json.RawMessage(tc.ext)}
			if tc.glass {
				exts["KHR_materials_transmission"] = json.RawMessage(`{"transmissionFactor": 1}`)
			}
			doc.Materials = []*gltf.Material{{Name: "velvet", Extensions: exts,
				PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: &zero, RoughnessFactor: &one}}}
			doc.ExtensionsUsed = []string{gltfSheenExt}
			if tc.required {
				doc.ExtensionsRequired = []string{gltfSheenExt}
			}
			m, ok := loadGLTFMaterial(t, dir, "sheen.gltf", doc, tc.err, tc.warn)
			if !ok {
				return
			}
			wantKind := tracer.MaterialPBR
			if tc.glass {
				wantKind = tracer.MaterialDielectric
			}
			if m.Kind != wantKind || m.SheenColor != tc.color || m.SheenRoughness != tc.rough {
				t.Errorf("material kind %d, sheen %v of roughness %g; want kind %d, %v, %g", m.Kind, m.SheenColor, m.SheenRoughness, wantKind, tc.color, tc.rough)
			}
		})
	}
}
