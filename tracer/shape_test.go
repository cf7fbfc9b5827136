package tracer

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func near(a, b, tol float32) bool { return float32(math.Abs(float64(a-b))) <= tol }

func TestIntersectSphere(t *testing.T) {
	s := newSphere(vec3{0, 0, 0}, 1, 0)
	tests := []struct {
		name   string
		origin vec3
		dir    vec3
		tmax   float32
		hit    bool
		t      float32
	}{
		{"head on", vec3{0, 0, -5}, vec3{0, 0, 1}, infinity, true, 4},
		{"from inside", vec3{0, 0, 0}, vec3{0, 0, 1}, infinity, true, 1},
		{"from inside off centre", vec3{0, 0.5, 0}, vec3{0, 1, 0}, infinity, true, 0.5},
		{"behind the ray", vec3{0, 0, 5}, vec3{0, 0, 1}, infinity, false, 0},
		{"miss", vec3{0, 2, -5}, vec3{0, 0, 1}, infinity, false, 0},
		{"grazing", vec3{0, 1, -5}, vec3{0, 0, 1}, infinity, true, 5},
		{"just outside grazing", vec3{0, 1.0001, -5}, vec3{0, 0, 1}, infinity, false, 0},
		{"beyond tmax", vec3{0, 0, -5}, vec3{0, 0, 1}, 3.9, false, 0},
		{"far away", vec3{0, 0, -1e5}, vec3{0, 0, 1}, infinity, true, 1e5 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Ray{Origin: tc.origin, Dir: tc.dir, TMax: tc.tmax}
			got, _, _, ok := s.intersect(&r)
			if ok != tc.hit {
				t.Fatalf("hit = %v, want %v (t = %v)", ok, tc.hit, got)
			}
			if ok && !near(got, tc.t, 1e-3*max(1, tc.t)*1e-2) {
				t.Errorf("t = %v, want %v", got, tc.t)
			}
		})
	}
}

func TestIntersectQuad(t *testing.T) {
	q := newQuad(vec3{0, 0, 0}, vec3{2, 0, 0}, vec3{0, 0, 1}, 0)
	tests := []struct {
		name        string
		origin, dir vec3
		hit         bool
		t, u, v     float32
	}{
		{"centre from above", vec3{1, 1, 0.5}, vec3{0, -1, 0}, true, 1, 0.5, 0.5},
		{"from below (two-sided)", vec3{1, -2, 0.5}, vec3{0, 1, 0}, true, 2, 0.5, 0.5},
		{"corner", vec3{0, 1, 0}, vec3{0, -1, 0}, true, 1, 0, 0},
		{"far corner", vec3{2, 1, 1}, vec3{0, -1, 0}, true, 1, 1, 1},
		{"outside edge1", vec3{2.01, 1, 0.5}, vec3{0, -1, 0}, false, 0, 0, 0},
		{"outside edge2", vec3{1, 1, -0.01}, vec3{0, -1, 0}, false, 0, 0, 0},
		{"parallel", vec3{1, 1, 0.5}, vec3{1, 0, 0}, false, 0, 0, 0},
		{"in the plane", vec3{-1, 0, 0.5}, vec3{1, 0, 0}, false, 0, 0, 0},
		{"pointing away", vec3{1, 1, 0.5}, vec3{0, 1, 0}, false, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Ray{Origin: tc.origin, Dir: normalize(tc.dir), TMax: infinity}
			got, u, v, ok := q.intersect(&r)
			if ok != tc.hit {
				t.Fatalf("hit = %v, want %v", ok, tc.hit)
			}
			if ok && (!near(got, tc.t, 1e-6) || !near(u, tc.u, 1e-6) || !near(v, tc.v, 1e-6)) {
				t.Errorf("(t, u, v) = (%v, %v, %v), want (%v, %v, %v)", got, u, v, tc.t, tc.u, tc.v)
			}
		})
	}
	if n := q.N; n != (vec3{0, -1, 0}) {
		t.Errorf("normal = %v, want edge1 × edge2 direction (0, -1, 0)", n)
	}
	if q.Area != 2 {
		t.Errorf("area = %v, want 2", q.Area)
	}
}

func TestIntersectTriangle(t *testing.T) {
	tri := Triangle{P0: vec3{0, 0, 0}, E1: vec3{1, 0, 0}, E2: vec3{0, 1, 0}}
	tests := []struct {
		name        string
		origin, dir vec3
		hit         bool
		t, b1, b2   float32
	}{
		{"inside", vec3{0.25, 0.25, -1}, vec3{0, 0, 1}, true, 1, 0.25, 0.25},
		{"from behind", vec3{0.25, 0.25, 1}, vec3{0, 0, -1}, true, 1, 0.25, 0.25},
		{"vertex 1", vec3{1, 0, -1}, vec3{0, 0, 1}, true, 1, 1, 0},
		{"on the hypotenuse", vec3{0.5, 0.5, -1}, vec3{0, 0, 1}, true, 1, 0.5, 0.5},
		{"outside hypotenuse", vec3{0.51, 0.51, -1}, vec3{0, 0, 1}, false, 0, 0, 0},
		{"outside left", vec3{-0.01, 0.5, -1}, vec3{0, 0, 1}, false, 0, 0, 0},
		{"parallel", vec3{0.25, 0.25, -1}, vec3{1, 0, 0}, false, 0, 0, 0},
		{"in the plane", vec3{-1, 0.25, 0}, vec3{1, 0, 0}, false, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Ray{Origin: tc.origin, Dir: normalize(tc.dir), TMax: infinity}
			got, b1, b2, ok := tri.intersect(&r)
			if ok != tc.hit {
				t.Fatalf("hit = %v, want %v", ok, tc.hit)
			}
			if ok && (!near(got, tc.t, 1e-6) || !near(b1, tc.b1, 1e-6) || !near(b2, tc.b2, 1e-6)) {
				t.Errorf("(t, b1, b2) = (%v, %v, %v), want (%v, %v, %v)", got, b1, b2, tc.t, tc.b1, tc.b2)
			}
		})
	}
}

func TestTriangleUV(t *testing.T) {
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Texture: NoTexture}},
		Triangles: []TriangleDesc{
			{Vertices: [3]vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, UV: [3]mgl32.Vec2{{0, 0}, {4, 0}, {0, 2}}, HasUV: true},
			// UVs that are all zero are still UVs, not "no UVs".
			{Vertices: [3]vec3{{0, 0, 5}, {1, 0, 5}, {0, 1, 5}}, HasUV: true},
			{Vertices: [3]vec3{{0, 0, 9}, {1, 0, 9}, {0, 1, 9}}},
		},
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		z    float32
		u, v float32
	}{{-1, 1, 1}, {4, 0, 0}, {8, 0.25, 0.5}} {
		r := Ray{Origin: vec3{0.25, 0.5, tc.z}, Dir: vec3{0, 0, 1}, TMax: infinity}
		h := s.Intersect(r)
		if h.Kind != HitTriangle {
			t.Fatalf("z %v: no triangle hit", tc.z)
		}
		var sf surfaceHit
		s.surfaceAt(&r, &h, &sf)
		if !near(sf.u, tc.u, 1e-6) || !near(sf.v, tc.v, 1e-6) {
			t.Errorf("z %v: uv = (%v, %v), want (%v, %v)", tc.z, sf.u, sf.v, tc.u, tc.v)
		}
	}
}

func TestIntersectPlane(t *testing.T) {
	p := newPlane(vec3{0, 1, 0}, vec3{0, 2, 0}, 0)
	tests := []struct {
		name        string
		origin, dir vec3
		hit         bool
		t           float32
	}{
		{"from above", vec3{3, 3, 3}, vec3{0, -1, 0}, true, 2},
		{"from below", vec3{3, -1, 3}, vec3{0, 1, 0}, true, 2},
		{"oblique", vec3{0, 2, 0}, vec3{1, -1, 0}, true, float32(math.Sqrt2)},
		{"parallel", vec3{0, 2, 0}, vec3{1, 0, 0}, false, 0},
		{"away", vec3{0, 2, 0}, vec3{0, 1, 0}, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Ray{Origin: tc.origin, Dir: normalize(tc.dir), TMax: infinity}
			got, _, _, ok := p.intersect(&r)
			if ok != tc.hit || (ok && !near(got, tc.t, 1e-5)) {
				t.Errorf("(t, hit) = (%v, %v), want (%v, %v)", got, ok, tc.t, tc.hit)
			}
		})
	}
	// The (u, v) axes of a horizontal plane are world +x and +z.
	n0, n1, n2, u, v := p.surface(2, 1, 5, 0, 0)
	if n := (vec3{n0, n1, n2}); n != (vec3{0, 1, 0}) || u != 2 || v != 5 {
		t.Errorf("surface = (%v, %v, %v), want ((0,1,0), 2, 5)", n, u, v)
	}
}

func TestSphereUV(t *testing.T) {
	tests := []struct {
		n    vec3
		u, v float32
	}{
		{vec3{0, -1, 0}, 0.5, 0}, // south pole: v = 0
		{vec3{0, 1, 0}, 0.5, 1},  // north pole: v = 1
		{vec3{1, 0, 0}, 0.5, 0.5},
		{vec3{0, 0, 1}, 0.25, 0.5},
		{vec3{-1, 0, 0}, 0, 0.5}, // atan2(−0, −1) = −π: u = 0, the seam
		{vec3{0, 0, -1}, 0.75, 0.5},
	}
	for _, tc := range tests {
		u, v := sphereUV(tc.n[0], tc.n[1], tc.n[2])
		if !near(u, tc.u, 1e-6) || !near(v, tc.v, 1e-6) {
			t.Errorf("sphereUV(%v) = (%v, %v), want (%v, %v)", tc.n, u, v, tc.u, tc.v)
		}
	}
}
