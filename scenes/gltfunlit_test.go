package scenes

import (
	"encoding/json"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFUnlit: a glTF material with KHR_materials_unlit (used, and
// required) is trace's unlit material, without a warning: the base
// colour texture tinted by baseColorFactor, or the factor alone; its
// alpha mode and factor's alpha; it wins over glass, as in Blender's
// importer; other extensions beside it are named in the warning.
func TestMeshGLTFUnlit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		textured bool
		required bool
		edit     func(m *gltf.Material)
		warn     string
		check    func(t *testing.T, s *tracer.SceneDesc, m tracer.Material)
	}{
		{name: "texture", textured: true, check: func(t *testing.T, s *tracer.SceneDesc, m tracer.Material) {
			if m.Texture == tracer.NoTexture || s.Textures[m.Texture].Even != [3]float32{0.5, 0.25, 1} {
				t.Errorf("texture %d (%+v): want the base colour image tinted [0.5 0.25 1]", m.Texture, s.Textures)
			}
		}},
		{name: "factor required", required: true, check: func(t *testing.T, s *tracer.SceneDesc, m tracer.Material) {
			if m.Texture != tracer.NoTexture || m.Color != [3]float32{0.5, 0.25, 1} {
				t.Errorf("texture %d, colour %v: want none and [0.5 0.25 1]", m.Texture, m.Color)
			}
		}},
		{name: "blend", edit: func(m *gltf.Material) {
			m.AlphaMode = gltf.AlphaBlend
			m.PBRMetallicRoughness.BaseColorFactor[3] = 0.5
		}, check: func(t *testing.T, s *tracer.SceneDesc, m tracer.Material) {
			if m.AlphaMode != tracer.AlphaBlend || m.Alpha != 0.5 {
				t.Errorf("alpha mode %d, alpha %g: want blend, 0.5", m.AlphaMode, m.Alpha)
			}
		}},
		{name: "glass and clear coat", edit: func(m *gltf.Material) {
			m.Extensions[gltfTransmissionExt] = json.RawMessage(`{"transmissionFactor": 1}`)
			m.Extensions[gltfClearcoatExt] = json.RawMessage(`{"clearcoatFactor": 1}`)
		}, warn: "KHR_materials_clearcoat, KHR_materials_transmission", check: func(t *testing.T, s *tracer.SceneDesc, m tracer.Material) {
			if m.Clearcoat != 0 || m.Color != [3]float32{0.5, 0.25, 1} {
				t.Errorf("clear coat %g, colour %v: want 0 and [0.5 0.25 1]", m.Clearcoat, m.Color)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := texturedGLTFDoc()
			mat := doc.Materials[0]
			mat.Name = "scan"
			if !tc.textured {
				mat.PBRMetallicRoughness.BaseColorTexture = nil
			}
			mat.PBRMetallicRoughness.MetallicFactor = new(float64) // 0: would be lit as a diffuse pbr
			mat.Extensions = gltf.Extensions{gltfUnlitExt: json.RawMessage(`{}`)}
			doc.ExtensionsUsed = []string{gltfUnlitExt}
			if tc.required {
				doc.ExtensionsRequired = []string{gltfUnlitExt}
			}
			if tc.edit != nil {
				tc.edit(mat)
			}
			s, ok := loadGLTFMaterialScene(t, dir, "scan.gltf", doc, "", tc.warn)
			if !ok {
				return
			}
			m := s.Materials[s.Meshes[0].Material]
			if m.Kind != tracer.MaterialUnlit {
				t.Fatalf("material %+v: want unlit", m)
			}
			tc.check(t, s, m)
		})
	}
}
