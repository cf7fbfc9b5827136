package tracer

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// integrators are both integrators, for tests that hold for each.
var integrators = []Integrator{IntegratorPath, IntegratorWhitted}

// TestUnlitCameraSeesColor: a camera ray that hits an unlit quad returns
// its colour as is, lit by nothing: the factor (the image texture's tint)
// × the texel, bit for bit, under a point light and a bright sky, with
// both integrators; an unlit mesh with vertex colours renders the bits of
// an emissive material of intensity 1 there (emitted = colour × 1: the
// factor × texel × the interpolated vertex colour), which are that
// product within rounding.
func TestUnlitCameraSeesColor(t *testing.T) {
	const w, h = 12, 10
	texel, factor := vec3{0.75, 0.5, 0.3}, vec3{0.9, 0.6, 0.2}
	scene := func(integ Integrator, m Material, quad bool) *SceneDesc {
		d := &SceneDesc{
			Settings:   Settings{Width: w, Height: h, Samples: 1, MaxDepth: 4, Integrator: integ, Seed: 3},
			Camera:     CameraDesc{Position: vec3{0, 3, 0}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 0, 1}, FOV: 40},
			Background: Background{Kind: BackgroundColor, Color: vec3{2, 2, 2}},
			Materials:  []Material{m},
			Textures:   []Texture{{Kind: TextureImage, Image: 0, Even: factor, Filter: FilterNearest}},
			Images:     []Image{{Width: 1, Height: 1, Pix: texel[:]}},
			Lights:     []PointLight{{Position: vec3{1, 2, -1}, Color: vec3{1, 1, 1}, Intensity: 30}},
		}
		if quad {
			d.Quads = []QuadDesc{{Corner: vec3{-5, 0, -5}, Edge1: vec3{10, 0, 0}, Edge2: vec3{0, 0, 10}}}
		} else {
			d.Meshes = []MeshDesc{{
				Positions: []mgl32.Vec3{{-5, 0, -5}, {5, 0, -5}, {5, 0, 5}, {-5, 0, 5}},
				UVs:       []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
				Colors:    []mgl32.Vec3{{1, 0.5, 0.25}, {0.2, 1, 0.6}, {0.5, 0.5, 1}, {0.8, 0.3, 0.9}},
				Indices:   []uint32{0, 2, 1, 0, 3, 2},
			}}
		}
		return d
	}
	want := vec3{float32(texel[0] * factor[0]), float32(texel[1] * factor[1]), float32(texel[2] * factor[2])}
	unlit := Material{Kind: MaterialUnlit, Texture: 0}
	for _, integ := range integrators {
		for i, px := range renderPixels(t, scene(integ, unlit, true)) {
			if px != want {
				t.Fatalf("integrator %d: quad pixel %d: %v, want %v (factor × texel)", integ, i, px, want)
			}
		}
		got := renderPixels(t, scene(integ, unlit, false))
		emissive := renderPixels(t, scene(integ, Material{Kind: MaterialEmissive, Texture: 0, Intensity: 1}, false))
		tinted := 0
		for i := range got {
			if got[i] != emissive[i] {
				t.Fatalf("integrator %d: mesh pixel %d: %v, want %v (the emissive material of intensity 1's)", integ, i, got[i], emissive[i])
			}
			tint := vec3{got[i][0] / want[0], got[i][1] / want[1], got[i][2] / want[2]}
			for c := range 3 {
				if !(tint[c] >= 0.2*0.999 && tint[c] <= 1.001) {
					t.Fatalf("integrator %d: mesh pixel %d: %v is %v × factor × texel: not a vertex colour", integ, i, got[i], tint)
				}
			}
			if tint != (vec3{1, 1, 1}) {
				tinted++
			}
		}
		if tinted != w*h {
			t.Errorf("integrator %d: %d of %d mesh pixels tinted by the vertex colours", integ, tinted, w*h)
		}
	}
}

// passScene is a diffuse floor under a point light, seen through a
// camera below the quad blocker (in material 1) hung between them, or a
// mirror floor that shows the quad standing past it: the floor's pixels
// are the same bits with and without the blocker when rays other than
// the camera's pass through it.
func passScene(integ Integrator, floor, blocker Material, withBlocker, mirror bool) *SceneDesc {
	d := &SceneDesc{
		Settings:   Settings{Width: 12, Height: 10, Samples: 4, MaxDepth: 4, Integrator: integ, Seed: 7},
		Camera:     CameraDesc{Position: vec3{0, 1, -1}, LookAt: vec3{0, 0, 0.5}, Up: vec3{0, 1, 0}, FOV: 30},
		Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.1, 0.1, 0.1}, Top: vec3{0.6, 0.7, 0.9}},
		Materials:  []Material{floor, blocker},
		Lights:     []PointLight{{Position: vec3{0, 4, 0.5}, Color: vec3{1, 1, 1}, Intensity: 40}},
		Planes:     []PlaneDesc{{Point: vec3{0, 0, 0}, Normal: vec3{0, 1, 0}}},
	}
	if withBlocker {
		q := QuadDesc{Corner: vec3{-3, 2, -2.5}, Edge1: vec3{6, 0, 0}, Edge2: vec3{0, 0, 6}, Material: 1}
		if mirror {
			// Upright past the floor the camera sees: only the mirror
			// shows it.
			q = QuadDesc{Corner: vec3{-5, 0, 6}, Edge1: vec3{10, 0, 0}, Edge2: vec3{0, 8, 0}, Material: 1}
		}
		d.Quads = []QuadDesc{q}
	}
	if mirror {
		// The camera looks down at the floor between z = 0.1 and 3.9;
		// the rays the floor reflects rise 11° to 42° toward the quad.
		d.Camera.LookAt = vec3{0, 0, 1}
	}
	return d
}

// TestUnlitCastsNoShadow: an unlit quad between a point light and a
// floor casts no shadow and takes no bounce: the floor renders the same
// bits as without it, path traced and Whitted, opaque or a blend; a
// diffuse quad there changes them (the check sees the shadow).
func TestUnlitCastsNoShadow(t *testing.T) {
	floor := Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.7, 0.7, 0.7}}
	for _, integ := range integrators {
		without := renderPixels(t, passScene(integ, floor, Material{}, false, false))
		for _, blocker := range []Material{
			{Kind: MaterialUnlit, Texture: NoTexture, Color: vec3{1, 0, 0}},
			{Kind: MaterialUnlit, Texture: NoTexture, Color: vec3{1, 0, 0}, AlphaMode: AlphaBlend, Alpha: 0.5},
		} {
			with := renderPixels(t, passScene(integ, floor, blocker, true, false))
			for i := range with {
				if with[i] != without[i] {
					t.Fatalf("integrator %d, alpha mode %d: pixel %d: %v with the unlit quad, %v without", integ, blocker.AlphaMode, i, with[i], without[i])
				}
			}
		}
		diffuse := renderPixels(t, passScene(integ, floor, floor, true, false))
		if diffuse[len(diffuse)/2] == without[len(without)/2] {
			t.Errorf("integrator %d: a diffuse quad there casts no shadow on the middle pixel: the scene does not test shadows", integ)
		}
	}
}

// TestUnlitNotReflected: a mirror floor does not show an unlit quad
// that the camera sees only in it (the same bits as without it), path traced and
// Whitted; it shows a diffuse one.
func TestUnlitNotReflected(t *testing.T) {
	mirror := Material{Kind: MaterialMetal, Texture: NoTexture, Color: vec3{0.9, 0.9, 0.9}}
	for _, integ := range integrators {
		without := renderPixels(t, passScene(integ, mirror, Material{}, false, true))
		with := renderPixels(t, passScene(integ, mirror, Material{Kind: MaterialUnlit, Texture: NoTexture, Color: vec3{1, 0, 0}}, true, true))
		for i := range with {
			if with[i] != without[i] {
				t.Fatalf("integrator %d: pixel %d: %v with the unlit quad, %v without", integ, i, with[i], without[i])
			}
		}
		diffuse := renderPixels(t, passScene(integ, mirror, Material{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{1, 0, 0}}, true, true))
		differ := 0
		for i := range diffuse {
			if diffuse[i] != without[i] {
				differ++
			}
		}
		if differ < len(diffuse)/4 {
			t.Errorf("integrator %d: the mirror shows a diffuse quad in %d of %d pixels: the scene does not test reflections", integ, differ, len(diffuse))
		}
	}
}
