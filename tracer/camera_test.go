package tracer

import (
	"math"
	"testing"
)

func TestCameraPixelCentres(t *testing.T) {
	// A 4×2 image with a 90° vertical field of view: the plane at distance
	// 1 is 2 high and 4 wide, so pixel centres sit at x = −1.5..1.5 and
	// y = ±0.5.
	c := newCamera(CameraDesc{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, FOV: 90}, 4, 2)
	if !near(c.PlaneH, 2, 1e-6) || !near(c.PlaneW, 4, 1e-6) {
		t.Fatalf("plane %v×%v, want 4×2", c.PlaneW, c.PlaneH)
	}
	// Looking along +z with +y up, image right is −x (right-handed world).
	if c.Right != (vec3{-1, 0, 0}) || c.Up != (vec3{0, 1, 0}) {
		t.Fatalf("right %v up %v, want (−1,0,0) and (0,1,0)", c.Right, c.Up)
	}
	tests := []struct {
		px, py float32
		want   vec3 // unnormalised direction
	}{
		{0.5, 0.5, vec3{1.5, 0.5, 1}},   // top-left pixel: left is +x
		{3.5, 1.5, vec3{-1.5, -0.5, 1}}, // bottom-right pixel
		{2, 1, vec3{0, 0, 1}},           // the image centre
		{0, 0, vec3{2, 1, 1}},           // the image's top-left corner
	}
	for _, tc := range tests {
		r := c.Ray(tc.px, tc.py, 0, 0)
		want := normalize(tc.want)
		for i := 0; i < 3; i++ {
			if !near(r.Dir[i], want[i], 1e-6) {
				t.Errorf("Ray(%v, %v).Dir = %v, want %v", tc.px, tc.py, r.Dir, want)
				break
			}
		}
		if r.Origin != (vec3{}) {
			t.Errorf("pinhole origin %v, want the eye", r.Origin)
		}
	}
}

func TestCameraShift(t *testing.T) {
	// shift [0.25, 0.5] moves the plane centre by (0.25·H, 0.5·H) along
	// right and up without turning the camera.
	c := newCamera(CameraDesc{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, FOV: 90, Shift: [2]float32{0.25, 0.5}}, 2, 2)
	r := c.Ray(1, 1, 0, 0)
	want := normalize(vec3{-0.5, 1, 1}) // right is −x; H = 2
	for i := 0; i < 3; i++ {
		if !near(r.Dir[i], want[i], 1e-6) {
			t.Fatalf("centre ray %v, want %v", r.Dir, want)
		}
	}
	if c.Forward != (vec3{0, 0, 1}) {
		t.Errorf("forward %v changed by shift", c.Forward)
	}
}

func TestCameraFOVAndAspect(t *testing.T) {
	// The top edge's centre is fov/2 above the axis whatever the aspect.
	for _, size := range [][2]int{{100, 100}, {300, 100}, {100, 300}} {
		c := newCamera(CameraDesc{Position: vec3{1, 2, 3}, LookAt: vec3{1, 2, 10}, Up: vec3{0, 1, 0}, FOV: 40}, size[0], size[1])
		r := c.Ray(float32(size[0])/2, 0, 0, 0)
		angle := math.Acos(float64(dot(r.Dir, c.Forward))) * 180 / math.Pi
		if math.Abs(angle-20) > 1e-3 {
			t.Errorf("%v: top edge at %.4f° from the axis, want 20°", size, angle)
		}
		// Pixels are square: the right edge's angle follows the aspect.
		r = c.Ray(float32(size[0]), float32(size[1])/2, 0, 0)
		wantTan := math.Tan(20*math.Pi/180) * float64(size[0]) / float64(size[1])
		gotTan := math.Tan(math.Acos(float64(dot(r.Dir, c.Forward))))
		if math.Abs(gotTan-wantTan) > 1e-4*wantTan {
			t.Errorf("%v: right edge tan %.6f, want %.6f", size, gotTan, wantTan)
		}
	}
}

func TestCameraThinLens(t *testing.T) {
	c := newCamera(CameraDesc{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 5}, Up: vec3{0, 1, 0}, FOV: 40, Aperture: 0.5}, 64, 64)
	if c.FocusDst != 5 {
		t.Fatalf("focus distance %v, want 5 (distance to look_at)", c.FocusDst)
	}
	// Every lens sample of one image point converges on one point of the
	// plane in focus, and starts within the aperture.
	var focus vec3
	for i, s := range [][2]float32{{0, 0}, {0.9, 0.1}, {0.5, 0.5}, {0.99, 0.75}} {
		r := c.Ray(10, 20, s[0], s[1])
		if l := length(r.Origin); l > 0.25+1e-6 {
			t.Errorf("origin %v outside the lens radius 0.25", r.Origin)
		}
		tt := (5 - r.Origin[2]) / r.Dir[2]
		p := r.At(tt)
		if i == 0 {
			focus = p
		} else if length(p.Sub(focus)) > 1e-4 {
			t.Errorf("lens sample %v focuses at %v, want %v", s, p, focus)
		}
	}
}

// TestOrthographicCamera: an orthographic camera's rays are parallel,
// along the view direction, from the points of a view plane through the
// eye of the given height (the width from the aspect), shifted in units
// of the height; a sphere seen by it covers exactly the pixels whose
// centres lie within its radius of its centre, wherever it lies along the
// view, and Compile refuses a height that is not positive or a lens.
func TestOrthographicCamera(t *testing.T) {
	d := CameraDesc{Position: vec3{1, 2, 3}, LookAt: vec3{1, 2, 10}, Up: vec3{0, 1, 0},
		Orthographic: true, Height: 4, Shift: [2]float32{0.25, -0.5}}
	c := newCamera(d, 8, 4) // 8 wide, 4 high: one unit a pixel
	for _, tc := range []struct {
		px, py float32
		want   vec3 // the ray's origin
	}{
		{4, 2, vec3{1 - 1, 2 - 2, 3}},         // the centre, shifted by (1, −2) along right (−x) and up
		{0, 0, vec3{1 + 4 - 1, 2 + 2 - 2, 3}}, // the top-left corner: left is +x
		{8, 4, vec3{1 - 4 - 1, 2 - 2 - 2, 3}},
	} {
		r := c.Ray(tc.px, tc.py, 0.3, 0.7)
		if r.Dir != (vec3{0, 0, 1}) || r.Origin != tc.want {
			t.Errorf("Ray(%v, %v) = %v along %v, want from %v along +z", tc.px, tc.py, r.Origin, r.Dir, tc.want)
		}
	}

	for _, z := range []float32{2, 50} {
		desc := &SceneDesc{
			Settings:  Settings{Width: 40, Height: 30, Samples: 1, MaxDepth: 0},
			Camera:    CameraDesc{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, Orthographic: true, Height: 3},
			Materials: []Material{{Kind: MaterialEmissive, Texture: NoTexture, Color: vec3{1, 1, 1}, Intensity: 1}},
			Spheres:   []SphereDesc{{Center: vec3{-0.5, 0.25, z}, Radius: 0.9}},
		}
		s, err := Compile(desc)
		if err != nil {
			t.Fatal(err)
		}
		for y := range 30 {
			for x := range 40 {
				// The pixel centre on the view plane: 0.1 units a pixel,
				// right is −x.
				cx, cy := -(float64(x)+0.5-20)*0.1, (15-float64(y)-0.5)*0.1
				inside := math.Hypot(cx+0.5, cy-0.25) < 0.9
				if math.Abs(math.Hypot(cx+0.5, cy-0.25)-0.9) < 1e-4 {
					continue // on the rim: rounding decides
				}
				var st Stats
				if got := s.RenderPixel(x, y, &st)[0] == 1; got != inside {
					t.Errorf("sphere at z %g: pixel (%d, %d) sees it %v, want %v", z, x, y, got, inside)
				}
			}
		}
	}

	for _, bad := range []CameraDesc{
		{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, Orthographic: true},
		{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, Orthographic: true, Height: float32(math.Inf(1))},
		{Position: vec3{0, 0, 0}, LookAt: vec3{0, 0, 1}, Up: vec3{0, 1, 0}, Orthographic: true, Height: 2, Aperture: 0.1},
	} {
		if _, err := Compile(&SceneDesc{Settings: Settings{Width: 4, Height: 4, Samples: 1, MaxDepth: 1}, Camera: bad}); err == nil {
			t.Errorf("%+v compiled", bad)
		}
	}
}
