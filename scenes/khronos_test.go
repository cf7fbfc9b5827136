package scenes

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// The Khronos glTF sample models in testdata/khronos are the format's own
// conformance pictures: each says in its README what a correct viewer
// shows. These tests render them and check that, in the image's pixels.

// khronosImage is a linear-radiance render with a pinhole camera's
// projection, to find the pixels of points in the model.
type khronosImage struct {
	w, h int
	pix  []float32
	cam  tracer.CameraDesc
}

func renderKhronos(t *testing.T, scene string) *khronosImage {
	t.Helper()
	d, pix := renderSceneFile(t, scene)
	return &khronosImage{w: d.Settings.Width, h: d.Settings.Height, pix: pix, cam: d.Camera}
}

// renderSceneFile loads the scene file at path and renders it whole, in
// linear radiance.
func renderSceneFile(t *testing.T, path string) (*tracer.SceneDesc, []float32) {
	t.Helper()
	d, s := compileSceneFile(t, path)
	w, h := d.Settings.Width, d.Settings.Height
	pix := make([]float32, 3*w*h)
	if err := s.RenderBlock(t.Context(), image.Rect(0, 0, w, h), pix, &tracer.Stats{}); err != nil {
		t.Fatal(err)
	}
	return d, pix
}

// compileSceneFile loads the scene file at path, lets edit (if given)
// change its description, and compiles it.
func compileSceneFile(t *testing.T, path string, edit ...func(*tracer.SceneDesc)) (*tracer.SceneDesc, *tracer.Scene) {
	t.Helper()
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edit {
		e(d)
	}
	s, err := tracer.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

// project returns the pixel that sees the point (x, y, 0) of a camera on
// the +z axis looking down -z with +y up, as the scenes here use.
func (k *khronosImage) project(x, y float64) (px, py float64) {
	d := float64(k.cam.Position[2])
	planeH := 2 * tanDeg(float64(k.cam.FOV)/2)
	planeW := planeH * float64(k.w) / float64(k.h)
	return (x/d/planeW + 0.5) * float64(k.w), (0.5 - y/d/planeH) * float64(k.h)
}

// class names a pixel's colour as the test textures draw them: the
// saturated primaries of TextureTransformTest's UV image (its yellow
// means "not applied"), white, dark (the arrow) or other (edges).
func (k *khronosImage) class(x, y int) string {
	p := k.pix[3*(y*k.w+x):][:3]
	hi := func(v float32) bool { return v > 0.25 }
	lo := func(v float32) bool { return v < 0.08 }
	switch {
	case p[0] > 0.6 && p[1] > 0.6 && p[2] > 0.6:
		return "white"
	case p[0] < 0.1 && p[1] < 0.1 && p[2] < 0.1:
		return "dark"
	case hi(p[0]) && hi(p[1]) && lo(p[2]):
		return "yellow"
	case lo(p[0]) && hi(p[1]) && lo(p[2]):
		return "green"
	case lo(p[0]) && lo(p[1]) && hi(p[2]):
		return "blue"
	case lo(p[0]) && hi(p[1]) && hi(p[2]):
		return "cyan"
	case hi(p[0]) && lo(p[1]) && lo(p[2]):
		return "red"
	}
	return "other"
}

// count tallies the classes of the pixels whose centres fall in the
// model's square [x0, x1] × [y0, y1] (at z = 0), or, with ring > 0, in the
// ring between that square and one grown by ring on every side.
func (k *khronosImage) count(x0, y0, x1, y1, ring float64) map[string]int {
	ax, ay := k.project(x0-ring, y1+ring)
	bx, by := k.project(x1+ring, y0-ring)
	ix, iy := k.project(x0, y1)
	jx, jy := k.project(x1, y0)
	n := map[string]int{}
	for y := max(0, int(ay)); y < min(k.h, int(by)+1); y++ {
		for x := max(0, int(ax)); x < min(k.w, int(bx)+1); x++ {
			cx, cy := float64(x)+0.5, float64(y)+0.5
			if cx < ax || cx > bx || cy < ay || cy > by {
				continue
			}
			if ring > 0 && cx >= ix && cx <= jx && cy >= iy && cy <= jy {
				continue // inside the square: the marker itself
			}
			n[k.class(x, y)]++
		}
	}
	return n
}

// textureTransformChecks are what TextureTransformTest's README says a
// correct viewer shows, as places in the model (the node translations of
// its .gltf): each top quad shows one quarter of the UV image (never its
// yellow "not applied" quarter), and in each bottom quad the arrow's tip
// touches the green marker and comes near no other marker.
type ttQuad struct {
	name   string
	cx, cy float64 // centre of the unit quad
	colour string  // the top row: the UV quarter that must show
}

type ttMarker struct {
	name    string
	x, y, r float64 // centre and half size
	correct bool
}

var (
	ttTop = []ttQuad{
		{"Offset U", -1.1, 0.55, "green"},
		{"Offset V", 0, 0.55, "blue"},
		{"Offset UV", 1.1, 0.55, "cyan"},
	}
	ttMarkers = []ttMarker{
		{"Rotation - Correct", -1.1 - 0.0790, -0.55 - 0.5163, 0.075, true},
		{"Rotation - Not Supported", -1.1 + 0.2778, -0.55 - 0.2778, 0.075, false},
		{"Rotation - Error", -1.1 + 0.5163, -0.55 + 0.0790, 0.075, false},
		{"Scale - Correct", 0 + 0.0185, -0.55 - 0.0185, 0.05, true},
		{"Scale - Not Supported", 0 + 0.2778, -0.55 - 0.2778, 0.075, false},
		{"All - Correct", 1.1 - 0.07, -0.55 - 0.25, 0.05, true},
	}
)

// textureTransformFailures lists how an image of TextureTransformTest
// differs from what its README says a correct viewer shows.
func textureTransformFailures(t *testing.T, k *khronosImage) []string {
	var bad []string
	for _, q := range ttTop {
		n := k.count(q.cx-0.45, q.cy-0.45, q.cx+0.45, q.cy+0.45, 0)
		total := 0
		for _, c := range n {
			total += c
		}
		t.Logf("%s: %v", q.name, n)
		if n[q.colour] < total/2 || n["yellow"] > 0 {
			bad = append(bad, q.name+": shows "+dominant(n)+", want "+q.colour)
		}
	}
	for _, m := range ttMarkers {
		// The arrow is dark; its tip comes within 0.06 of the right
		// marker's edge. The ring is 0.1 wide.
		n := k.count(m.x-m.r, m.y-m.r, m.x+m.r, m.y+m.r, 0.1)
		t.Logf("around %s: %v", m.name, n)
		switch {
		case m.correct && n["dark"] < 4:
			bad = append(bad, "the arrow does not reach "+m.name)
		case !m.correct && n["dark"] > 0:
			bad = append(bad, "the arrow points at "+m.name)
		}
	}
	return bad
}

func tanDeg(d float64) float64 { return math.Tan(d * math.Pi / 180) }

func dominant(n map[string]int) string {
	best, bn := "", -1
	for c, v := range n {
		if c != "white" && c != "other" && v > bn {
			best, bn = c, v
		}
	}
	return best
}

// TestKhronosTextureTransform renders the sample model TextureTransformTest
// (KHR_texture_transform) and finds in the image what its README says a
// correct viewer shows. The same model with the extension stripped from
// its materials must fail the same checks, so they can tell.
func TestKhronosTextureTransform(t *testing.T) {
	dir := filepath.Join("testdata", "khronos", "TextureTransformTest")
	k := renderKhronos(t, filepath.Join(dir, "scene.json"))
	if bad := textureTransformFailures(t, k); len(bad) > 0 {
		t.Errorf("TextureTransformTest does not look as its README says:\n%v", bad)
	}

	// The negative controls: the file without KHR_texture_transform, and
	// with its rotations turned the other way.
	stripped := khronosVariant(t, dir, "TextureTransformTest.gltf", func(ext map[string]any) {
		delete(ext, "KHR_texture_transform")
	})
	plain := textureTransformFailures(t, renderKhronos(t, filepath.Join(stripped, "scene.json")))
	if len(plain) < len(ttTop)+3 {
		t.Errorf("without the transforms only %d checks fail (%v): the checks cannot tell", len(plain), plain)
	}
	turned := khronosVariant(t, dir, "TextureTransformTest.gltf", func(ext map[string]any) {
		if tt, ok := ext["KHR_texture_transform"].(map[string]any); ok {
			if r, ok := tt["rotation"].(float64); ok {
				tt["rotation"] = -r
			}
		}
	})
	wrong := textureTransformFailures(t, renderKhronos(t, filepath.Join(turned, "scene.json")))
	if !slices.Contains(wrong, "the arrow points at Rotation - Error") {
		t.Errorf("with the rotation reversed the checks found %v, not the arrow at the red marker", wrong)
	}
}

// khronosVariant copies a sample model's folder to a temporary one,
// changing every material's texture extensions in file by edit.
func khronosVariant(t *testing.T, dir, file string, edit func(ext map[string]any)) string {
	return khronosEdited(t, dir, file, func(g map[string]any) { editTextureExtensions(g, edit) })
}

// editTextureExtensions calls edit on every extensions object inside a
// glTF document's materials.
func editTextureExtensions(g map[string]any, edit func(ext map[string]any)) {
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ext, ok := v["extensions"].(map[string]any); ok {
				edit(ext)
			}
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(g["materials"])
}

// simpleMorphCheck is a point of SimpleMorph's model (at z = 0) and the
// class its pixels must have.
type simpleMorphCheck struct {
	x, y  float64
	class string
}

var (
	// simpleMorphChecks are where the triangle is at the mesh's weights
	// (0.5, 0.5): its base shape's centre and the part above it that
	// only the morphed triangle, (0, 0), (1, 0), (0.5, 1.5), covers are
	// green; beside its sloping edges, and above its top, is the black
	// background.
	simpleMorphChecks = []simpleMorphCheck{
		{0.5, 0.2, "green"}, {0.5, 1.2, "green"}, {0.45, 0.9, "green"},
		{0.15, 0.8, "dark"}, {0.85, 0.8, "dark"}, {0.5, 1.65, "dark"},
	}
	// simpleMorphChecks15 are where it is at 1.5 s of its animation,
	// weights (0.5, 1): (0, 0), (1, 0), (1, 2).
	simpleMorphChecks15 = []simpleMorphCheck{
		{0.8, 0.3, "green"}, {0.9, 1.5, "green"}, {0.93, 1.8, "green"},
		{0.3, 1.0, "dark"}, {0.5, 1.2, "dark"}, {1.15, 1.0, "dark"},
	}
)

// simpleMorphFailures lists how an image of a SimpleMorph scene (the
// model moved by (−0.5, −0.75)) differs from checks.
func simpleMorphFailures(t *testing.T, k *khronosImage, checks []simpleMorphCheck) []string {
	var bad []string
	for _, c := range checks {
		x, y := c.x-0.5, c.y-0.75
		n := k.count(x-0.03, y-0.03, x+0.03, y+0.03, 0)
		t.Logf("(%g, %g): %v", c.x, c.y, n)
		if n[c.class] == 0 || len(n) != 1 {
			bad = append(bad, fmt.Sprintf("(%g, %g) shows %v, want %s", c.x, c.y, n, c.class))
		}
	}
	return bad
}

// TestKhronosSimpleMorph renders the sample model SimpleMorph, whose
// triangle's top vertex its two morph targets, at the mesh's weights
// (0.5, 0.5), raise from (0.5, 0.5) to (0.5, 1.5) (its README and the glTF
// tutorial's "Simple Morph Target"), and checks the triangle is there;
// and posed by its animation at 1.5 s (scene-1.5s.json: the weights
// LINEAR halfway from (0, 1) to (1, 1)), where the top vertex is at
// (1, 2). The negative controls: the file with weights (0, 0), the base
// shape, fails the checks above the base, and the unposed image fails
// the posed one's checks.
func TestKhronosSimpleMorph(t *testing.T) {
	dir := filepath.Join("testdata", "khronos", "SimpleMorph")
	still := renderKhronos(t, filepath.Join(dir, "scene.json"))
	if bad := simpleMorphFailures(t, still, simpleMorphChecks); len(bad) > 0 {
		t.Errorf("SimpleMorph does not look as its README says:\n%v", bad)
	}
	if bad := simpleMorphFailures(t, renderKhronos(t, filepath.Join(dir, "scene-1.5s.json")), simpleMorphChecks15); len(bad) > 0 {
		t.Errorf("SimpleMorph at 1.5 s is not where its animation puts it:\n%v", bad)
	}
	if bad := simpleMorphFailures(t, still, simpleMorphChecks15); len(bad) < 3 {
		t.Errorf("the unposed triangle fails only %v of the posed checks: they cannot tell", bad)
	}
	base := khronosEdited(t, dir, "SimpleMorph.gltf", func(g map[string]any) {
		g["meshes"].([]any)[0].(map[string]any)["weights"] = []any{0, 0}
	})
	if bad := simpleMorphFailures(t, renderKhronos(t, filepath.Join(base, "scene.json")), simpleMorphChecks); len(bad) != 2 {
		t.Errorf("the base shape fails %v, want the two checks above it", bad)
	}
}

// khronosEdited copies a sample model's folder to a temporary one,
// changing the glTF document in file by edit.
func khronosEdited(t *testing.T, dir, file string, edit func(g map[string]any)) string {
	tmp := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == file {
			var g map[string]any
			if err := json.Unmarshal(b, &g); err != nil {
				t.Fatal(err)
			}
			edit(g)
			if b, err = json.Marshal(g); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}
