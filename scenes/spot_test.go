package scenes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestSpotLightDecode: a "spot" light's direction (any length) becomes
// the unit SpotDir, or look_at − position does; its cone angles in
// degrees become tracer.SpotCone's of the same angles in radians, glTF's
// 0 and 45 by default; colour, intensity and falloff are a point light's.
func TestSpotLightDecode(t *testing.T) {
	s, err := Parse("spot.json", []byte(`{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
		"lights": [{"type": "spot", "position": [1, 2, 3], "direction": [0, -3, 4], "color": [1, 0.9, 0.8], "intensity": 2.5,
		            "inner_angle": 10, "outer_angle": 30},
		           {"type": "spot", "position": [1, 2, 3], "look_at": [1, -1, 7], "falloff": "none"},
		           {"type": "spot", "position": [0, 5, 0], "direction": [0, -1e-30, 0], "inner_angle": 90, "outer_angle": 90}],
		"objects": []}`))
	if err != nil {
		t.Fatal(err)
	}
	cone := func(inner, outer float64) (float32, float32) {
		return tracer.SpotCone(inner*math.Pi/180, outer*math.Pi/180)
	}
	want := []tracer.PointLight{
		{Position: mgl32.Vec3{1, 2, 3}, Color: mgl32.Vec3{1, 0.9, 0.8}, Intensity: 2.5, Falloff: tracer.FalloffInverseSquare,
			SpotDir: mgl32.Vec3{0, -0.6, 0.8}},
		{Position: mgl32.Vec3{1, 2, 3}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: tracer.FalloffNone,
			SpotDir: mgl32.Vec3{0, -0.6, 0.8}},
		{Position: mgl32.Vec3{0, 5, 0}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: tracer.FalloffInverseSquare,
			SpotDir: mgl32.Vec3{0, -1, 0}},
	}
	want[0].SpotScale, want[0].SpotOffset = cone(10, 30)
	want[1].SpotScale, want[1].SpotOffset = cone(0, 45)
	want[2].SpotScale, want[2].SpotOffset = cone(90, 90)
	if len(s.Lights) != len(want) {
		t.Fatalf("lights %+v, want %+v", s.Lights, want)
	}
	for i := range want {
		if s.Lights[i] != want[i] {
			t.Errorf("lights[%d] = %+v, want %+v", i, s.Lights[i], want[i])
		}
	}
	// The default cone is glTF's default, π/4, to the bit.
	if sc, so := tracer.SpotCone(0, math.Pi/4); s.Lights[1].SpotScale != sc || s.Lights[1].SpotOffset != so {
		t.Errorf("default cone %g, %g; glTF's default %g, %g", s.Lights[1].SpotScale, s.Lights[1].SpotOffset, sc, so)
	}
}

// spotFloor is a scene of a grey floor (albedo 0.5) at y = 0 seen
// straight down by an orthographic camera 8 × 8 wide, 41 × 41 pixels of
// one sample each (through the pixel centres), under the lights given;
// integ its integrator.
func spotFloor(integ, lights string) string {
	return `{"version": 1, "render": {"width": 41, "height": 41, "samples": 1, "max_depth": 3, "integrator": "` + integ + `"},
		"camera": {"type": "orthographic", "position": [0, 10, 0], "look_at": [0, 0, 0], "up": [0, 0, 1], "height": 8},
		"materials": {"grey": {"type": "diffuse", "color": [0.5, 0.5, 0.5]}},
		"lights": [` + lights + `],
		"objects": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "grey"}]}`
}

// TestSpotLightClosedForm: a floor of albedo ρ under a spot light at p,
// axis a, shows at the point x, d = |x − p|, θ the angle between x − p and
// a, cos i = p.y/d the light's incidence, the radiance ρ/π · I · s(θ) ·
// cos i / d² under "path" (ρ · I · s(θ) · cos i / d² under "whitted",
// whose Lambert has no 1/π), s = 1 within the inner angle, 0 past the
// outer and glTF's ((cos θ − cos outer)/(cos inner − cos outer))² between.
// Every pixel's one sample goes through its centre, and the light is a
// delta light, so each pixel is the formula at the point it sees, up to
// float32 rounding (a relative 1e-4 here). A spot pointing straight down
// and one tilted and moved off the centre; the pixels are counted in each
// part of the cones so that all three are seen.
func TestSpotLightClosedForm(t *testing.T) {
	const rho, inner, outer = 0.5, 20.0, 40.0
	type spot struct {
		pos, dir  [3]float64
		intensity float64
	}
	for _, sp := range []spot{
		{[3]float64{0, 2, 0}, [3]float64{0, -1, 0}, 10},
		{[3]float64{0.5, 2.5, -0.25}, [3]float64{0.4, -1, 0.3}, 7},
	} {
		for _, integ := range []string{"path", "whitted"} {
			light := fmt.Sprintf(`{"type": "spot", "position": [%g, %g, %g], "direction": [%g, %g, %g], "intensity": %g, "inner_angle": %g, "outer_angle": %g}`,
				sp.pos[0], sp.pos[1], sp.pos[2], sp.dir[0], sp.dir[1], sp.dir[2], sp.intensity, inner, outer)
			d, err := Parse("floor.json", []byte(spotFloor(integ, light)))
			if err != nil {
				t.Fatal(err)
			}
			s, err := tracer.Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			an := math.Sqrt(sp.dir[0]*sp.dir[0] + sp.dir[1]*sp.dir[1] + sp.dir[2]*sp.dir[2])
			cosIn, cosOut := math.Cos(inner*math.Pi/180), math.Cos(outer*math.Pi/180)
			norm := 1 / math.Pi
			if integ == "whitted" {
				norm = 1
			}
			var core, edge, dark int
			const px = 8.0 / 41
			for y := range 41 {
				for x := range 41 {
					// Image right is view × up = −x, image down −z.
					p := [3]float64{-(float64(x) + 0.5 - 20.5) * px, 0, -(float64(y) + 0.5 - 20.5) * px}
					v := [3]float64{p[0] - sp.pos[0], p[1] - sp.pos[1], p[2] - sp.pos[2]}
					dist := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
					cosT := (v[0]*sp.dir[0] + v[1]*sp.dir[1] + v[2]*sp.dir[2]) / (dist * an)
					a := math.Max(0, math.Min(1, (cosT-cosOut)/(cosIn-cosOut)))
					want := rho * norm * sp.intensity * a * a * (sp.pos[1] / dist) / (dist * dist)
					var st tracer.Stats
					got := s.RenderPixel(x, y, &st)
					for c := range 3 {
						if g := float64(got[c]); math.Abs(g-want) > 1e-4*want+1e-7 {
							t.Errorf("%s, spot at %v toward %v: pixel (%d, %d) channel %d is %g, the closed form %g (θ = %.2f°)",
								integ, sp.pos, sp.dir, x, y, c, g, want, math.Acos(cosT)*180/math.Pi)
						}
					}
					switch {
					case a == 1:
						core++
					case a == 0:
						dark++
						if got != (mgl32.Vec3{}) {
							t.Errorf("%s: pixel (%d, %d), outside the cone: %v, want black", integ, x, y, got)
						}
					default:
						edge++
					}
				}
			}
			t.Logf("%s, spot at %v toward %v: %d pixels in the inner cone, %d between, %d outside", integ, sp.pos, sp.dir, core, edge, dark)
			if core < 20 || edge < 20 || dark < 20 {
				t.Errorf("%s: %d pixels in the inner cone, %d between, %d outside: want at least 20 of each", integ, core, edge, dark)
			}
		}
	}
}

// spotGLTF is a glTF file of one triangle far below the floor of
// spotFloor and, with lights, two spot lights placed by node matrices
// whose −z axes are the directions given exactly: one 2 above the origin
// pointing down (20° and 40°), one at (1, 3, −0.5) pointing along
// (0.6, −0.8, 0) with glTF's default cone, orange, 12 cd.
func spotGLTF(lights bool) *gltf.Document {
	doc := newGLTFDoc([][3]float32{{0, -50, 0}, {1, -50, 0}, {0, -50, 1}}, nil)
	if !lights {
		return doc
	}
	addGLTFLights(doc,
		fmt.Sprintf(`{"type": "spot", "intensity": 10, "spot": {"innerConeAngle": %v, "outerConeAngle": %v}}`, spotRadians(20), spotRadians(40)),
		`{"type": "spot", "color": [1, 0.5, 0.2], "intensity": 12, "spot": {}}`)
	down := gltfLightNode(0)
	down.Matrix = [16]float64{1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 2, 0, 1}
	side := gltfLightNode(1)
	side.Matrix = [16]float64{0, 0, 1, 0, 0.8, 0.6, 0, 0, -0.75, 1, 0, 0, 1, 3, -0.5, 1}
	doc.Nodes = append(doc.Nodes, down, side)
	doc.Scenes[0].Nodes = []int{0, 1, 2}
	return doc
}

// spotRadians is degrees in radians as the scene file's spot computes it
// (a variable, not a constant expression, which Go would compute
// exactly).
func spotRadians(degrees float64) float64 { return degrees * math.Pi / 180 }

// TestSpotLightSameAsGLTF: the spot lights of a glTF file and the same
// spots written in the scene file are the same tracer lights, and render
// the same bits under both integrators.
func TestSpotLightSameAsGLTF(t *testing.T) {
	dir, _ := gltfScene(t)
	writeGLTF(t, filepath.Join(dir, "spots.gltf"), spotGLTF(true))
	writeGLTF(t, filepath.Join(dir, "plain.gltf"), spotGLTF(false))
	mesh := func(file string) string {
		return `, {"type": "mesh", "file": "` + file + `", "material": "grey"}]}`
	}
	own := `{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "intensity": 10, "inner_angle": 20, "outer_angle": 40},
		{"type": "spot", "position": [1, 3, -0.5], "look_at": [1.75, 2, -0.5], "color": [1, 0.5, 0.2], "intensity": 12}`
	for _, integ := range []string{"path", "whitted"} {
		var imgs [2][]mgl32.Vec3
		var lights [2][]tracer.PointLight
		for i, c := range []struct{ lights, file string }{{"", "spots.gltf"}, {own, "plain.gltf"}} {
			body := strings.TrimSuffix(spotFloor(integ, c.lights), "]}") + mesh(c.file)
			path := filepath.Join(dir, "scene.json")
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			d, s := compileSceneFile(t, path, func(d *tracer.SceneDesc) { d.Settings.Samples = 4 })
			lights[i] = d.Lights
			var st tracer.Stats
			for y := range d.Settings.Height {
				for x := range d.Settings.Width {
					imgs[i] = append(imgs[i], s.RenderPixel(x, y, &st))
				}
			}
		}
		if len(lights[0]) != 2 || len(lights[1]) != 2 || lights[0][0] != lights[1][0] || lights[0][1] != lights[1][1] {
			t.Errorf("%s: glTF's spots %+v, the scene file's %+v: want the same", integ, lights[0], lights[1])
		}
		lit := 0
		for i := range imgs[0] {
			if imgs[0][i] != imgs[1][i] {
				t.Fatalf("%s: pixel %d: %v from glTF's spots, %v from the scene file's", integ, i, imgs[0][i], imgs[1][i])
			}
			if imgs[0][i][0] > 0 {
				lit++
			}
		}
		if lit < 100 {
			t.Errorf("%s: %d pixels lit, want the spots to light at least 100", integ, lit)
		}
	}
}

// TestSpotLightsInLightTree: the scene file's spot lights count toward
// the light tree's threshold (render.light_tree_points "auto": more than
// tracer.PointLightTreeMin point lights, a spot counting
// (1 − cos outer)/3 of one) as a glTF file's do: a file of 2 spots (of
// 40° and 45°) placed twice counts 0.35, so beside 8 point lights it
// puts them in the tree, as do 7 and two spots of 90° of the scene file
// (8.02), where 7 and one such spot (7.68) are sampled all; a spot of no
// falloff does not count.
func TestSpotLightsInLightTree(t *testing.T) {
	dir, _ := gltfScene(t)
	writeGLTF(t, filepath.Join(dir, "spots.gltf"), spotGLTF(true))
	point := `{"type": "point", "position": [0, 2, 0], "intensity": 10}`
	spot := `{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "intensity": 10, "outer_angle": 90}`
	noFalloff := `{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "falloff": "none", "outer_angle": 90}`
	points := strings.Repeat(point+", ", 7)
	for _, c := range []struct {
		lights string
		tree   bool
	}{
		{points + spot, false},
		{points + spot + ", " + spot, true},
		{points + point, true},
		{points + spot + ", " + noFalloff, false},
	} {
		body := strings.TrimSuffix(spotFloor("path", c.lights), "]}") +
			`, {"type": "mesh", "file": "spots.gltf", "material": "grey"}, {"type": "mesh", "file": "spots.gltf", "material": "grey"}]}`
		path := filepath.Join(dir, "scene.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		d, s := compileSceneFile(t, path)
		if s.TreeLights != c.tree {
			t.Errorf("%d lights (4 from glTF, counting %.3f point lights): light tree %v, want %v", len(d.Lights), tracer.PointLightWeight(d.Lights), s.TreeLights, c.tree)
		}
	}
}
