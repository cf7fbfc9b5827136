package scenes

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestGLTFEmissiveMeshIsALight: a glTF mesh whose material emits
// (emissiveFactor × emissiveTexture × KHR_materials_emissive_strength, as
// Blender exports an emission-shaded softbox) is, once compiled, an area
// light that next-event estimation samples: its triangles are emitters
// with a pick probability.
func TestGLTFEmissiveMeshIsALight(t *testing.T) {
	doc := texturedGLTFDoc()
	doc.ExtensionsUsed = []string{"KHR_materials_emissive_strength"}
	m0 := doc.Materials[0]
	m0.EmissiveFactor = [3]float64{1, 0.5, 0.25}
	m0.EmissiveTexture = &gltf.TextureInfo{Index: 0}
	m0.Extensions = gltf.Extensions{"KHR_materials_emissive_strength": map[string]any{"emissiveStrength": 8}}
	dir := t.TempDir()
	writeGLTF(t, filepath.Join(dir, "softbox.gltf"), doc)
	scene := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(scene, []byte(`{"version": 1, "camera": {"position": [0, 0, -3], "look_at": [0, 0, 0]},
		"objects": [{"type": "mesh", "file": "softbox.gltf"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(scene)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tracer.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Triangles) != 1 || len(s.Emitters) != 1 || s.Emitters[0].Kind != tracer.HitTriangle {
		t.Fatalf("%d triangles, emitters %+v: want the triangle as the one emitter", len(s.Triangles), s.Emitters)
	}
	m := s.Materials[s.TriangleAttrs[0].Material]
	if m.Kind != tracer.MaterialPBR || m.Emission[0] != 8 || m.EmissionMap == 0 || !(m.LightPDF > 0) {
		t.Errorf("material %+v: want pbr, emission 8 × (1, 0.5, 0.25) times a map, light-sampled (LightPDF > 0)", m)
	}
}
