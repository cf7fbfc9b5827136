package scenes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestDirectionalLightDecode: a "directional" light's direction (the way
// the light travels, any length) becomes the unit vector toward the light,
// with the colour and intensity (an irradiance) as given and white, 1 by
// default; its angle (degrees across, 0 by default: no disk) becomes
// 1 − cos(angle/2).
func TestDirectionalLightDecode(t *testing.T) {
	s, err := Parse("sun.json", []byte(`{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
		"lights": [{"type": "directional", "direction": [0, -3, 4], "color": [1, 0.9, 0.8], "intensity": 2.5},
		           {"type": "directional", "direction": [1, 0, 0], "angle": 0.526},
		           {"type": "directional", "direction": [1, 0, 0], "angle": 120}],
		"objects": []}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []tracer.PointLight{
		{Position: mgl32.Vec3{0, 0.6, -0.8}, Color: mgl32.Vec3{1, 0.9, 0.8}, Intensity: 2.5, Falloff: tracer.FalloffDirectional},
		{Position: mgl32.Vec3{-1, 0, 0}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: tracer.FalloffDirectional,
			DiskOneMinusCos: float32(1 - math.Cos(0.263*math.Pi/180))},
		{Position: mgl32.Vec3{-1, 0, 0}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: tracer.FalloffDirectional,
			DiskOneMinusCos: 0.5},
	}
	if len(s.Lights) != len(want) {
		t.Fatalf("lights %+v, want %+v", s.Lights, want)
	}
	for i := range want {
		l := s.Lights[i]
		if got, w := float64(l.DiskOneMinusCos), float64(want[i].DiskOneMinusCos); !(math.Abs(got-w) <= 1e-5*w) {
			t.Errorf("lights[%d]: DiskOneMinusCos %g, want %g", i, l.DiskOneMinusCos, want[i].DiskOneMinusCos)
		}
		if !closeVec3(l.Position, want[i].Position) || l.Color != want[i].Color || l.Intensity != want[i].Intensity || l.Falloff != want[i].Falloff {
			t.Errorf("lights[%d] = %+v, want %+v", i, l, want[i])
		}
	}
}

// sunDoc is a triangle and two directional lights: "noon" on a node turned
// −90° about x (glTF's −z becomes −y: it shines straight down), and
// "evening" on a node turned 90° about y (−z becomes −x) under a parent
// moved and scaled by 3, which turn nothing and leave its lux alone.
func sunDoc() *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	addGLTFLights(doc,
		`{"type": "directional", "name": "noon", "color": [1, 0.9, 0.7], "intensity": 4}`,
		`{"type": "directional", "name": "evening", "intensity": 0.5}`)
	s := math.Sqrt(0.5)
	noon := gltfLightNode(0)
	noon.Rotation = [4]float64{-s, 0, 0, s}
	noon.Translation = [3]float64{5, 6, 7}
	parent := &gltf.Node{Scale: [3]float64{3, 3, 3}, Translation: [3]float64{1, 2, 3}, Children: []int{3}}
	evening := gltfLightNode(1)
	evening.Rotation = [4]float64{0, s, 0, s}
	doc.Nodes = append(doc.Nodes, noon, parent, evening)
	doc.Scenes[0].Nodes = []int{0, 1, 2}
	return doc
}

// TestLoadGLTFDirectionalLight: KHR_lights_punctual's directional lights
// shine along their node's world −z, whatever the node's position and
// scale, with their intensity in lux unchanged; a scene's mesh object
// turns them with its transform and keeps their intensity; a node that
// collapses the direction is refused by name.
func TestLoadGLTFDirectionalLight(t *testing.T) {
	for _, glb := range []bool{false, true} {
		m := mustLoadGLTFDoc(t, sunDoc(), glb)
		if len(m.lights) != 2 {
			t.Fatalf("%d lights, want 2", len(m.lights))
		}
		noon, evening := m.lights[0], m.lights[1]
		if !closeVec3(noon.Position, mgl32.Vec3{0, 1, 0}) || noon.Intensity != 4 || noon.Color != (mgl32.Vec3{1, 0.9, 0.7}) ||
			noon.Falloff != tracer.FalloffDirectional || noon.SpotDir != (mgl32.Vec3{}) {
			t.Errorf("noon %+v: want directional, from straight above (toward (0, 1, 0)), 4 lux, (1, 0.9, 0.7)", noon)
		}
		if !closeVec3(evening.Position, mgl32.Vec3{1, 0, 0}) || evening.Intensity != 0.5 || evening.Falloff != tracer.FalloffDirectional {
			t.Errorf("evening %+v: want directional, shining along −x (toward (1, 0, 0)), 0.5 lux", evening)
		}
	}

	dir, _ := gltfScene(t)
	writeGLTF(t, filepath.Join(dir, "sun.gltf"), sunDoc())
	path := filepath.Join(dir, "scene.json")
	scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}, "materials": {"grey": {"type": "diffuse"}},
		"objects": [{"type": "mesh", "file": "sun.gltf", "material": "grey", "transform": {"scale": 2, "rotate": [0, 0, 90], "translate": [10, 0, 0]}}]}`
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// Turned 90° about z, (x, y) → (−y, x): toward (0, 1, 0) becomes
	// (−1, 0, 0), toward (1, 0, 0) becomes (0, 1, 0).
	if len(s.Lights) != 2 || !closeVec3(s.Lights[0].Position, mgl32.Vec3{-1, 0, 0}) || s.Lights[0].Intensity != 4 ||
		!closeVec3(s.Lights[1].Position, mgl32.Vec3{0, 1, 0}) || s.Lights[1].Intensity != 0.5 {
		t.Errorf("lights %+v: want toward (−1, 0, 0) at 4 and toward (0, 1, 0) at 0.5", s.Lights)
	}

	doc := sunDoc()
	doc.Nodes[3].Scale = [3]float64{1, 1, 0} // squashes the local z axis
	_, err = loadGLTFDoc(t, doc, false)
	if err == nil || !strings.Contains(err.Error(), `nodes[3].extensions.KHR_lights_punctual: lights[1] "evening": the node transforms leave the directional light no direction`) {
		t.Errorf("a directional light scaled to nothing: error %v", err)
	}
}
