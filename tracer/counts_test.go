package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTraversalCounts: the counted queries return what the plain ones do,
// and count what a traversal must do: a ray that misses the root's
// children fetches the root alone, a ray into a one-triangle scene visits
// its one leaf and tests its triangle, and on a mesh every leaf visit tests
// one to bvhMaxLeaf primitives.
func TestTraversalCounts(t *testing.T) {
	s := randomScene(t, 5, 5000, 10)
	rng := rand.New(rand.NewPCG(5, 6))
	var c TraversalCounts
	for i := 0; i < 2000; i++ {
		r := Ray{Origin: vec3{rng.Float32()*14 - 2, rng.Float32()*14 - 2, rng.Float32()*14 - 2}, Dir: uniformSphere(rng.Float32(), rng.Float32()), TMax: infinity}
		if got, want := s.IntersectCounted(r, &c), s.Intersect(r); !sameHit(got, want) {
			t.Fatalf("ray %d: IntersectCounted %+v, Intersect %+v", i, got, want)
		}
		if got, want := s.OccludedCounted(r, &c), s.Occluded(r); got != want {
			t.Fatalf("ray %d: OccludedCounted %v, Occluded %v", i, got, want)
		}
	}
	if c.Nodes < 2000 || c.Leaves == 0 || c.Tests < c.Leaves || c.Tests > bvhMaxLeaf*c.Leaves {
		t.Errorf("random rays on a mesh: %+v", c)
	}

	miss := Ray{Origin: vec3{-50, -50, -50}, Dir: vec3{-1, 0, 0}, TMax: infinity}
	c = TraversalCounts{}
	s.IntersectCounted(miss, &c)
	s.OccludedCounted(miss, &c)
	if c != (TraversalCounts{Nodes: 2}) {
		t.Errorf("a ray past the scene: %+v, want the root fetched once per query", c)
	}

	one, err := Compile(&SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Texture: NoTexture}},
		Meshes:    []MeshDesc{{Positions: []vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Indices: []uint32{0, 1, 2}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c = TraversalCounts{}
	if h := one.IntersectCounted(Ray{Origin: vec3{0.2, 0.2, -1}, Dir: vec3{0, 0, 1}, TMax: infinity}, &c); h.Kind != HitTriangle {
		t.Fatalf("one triangle: %+v", h)
	}
	if c != (TraversalCounts{Leaves: 1, Tests: 1}) {
		t.Errorf("one triangle: %+v, want its leaf and one test", c)
	}
}

// sameHit reports whether a and b are the same hit, bit for bit.
func sameHit(a, b Hit) bool {
	return math.Float32bits(a.T) == math.Float32bits(b.T) && a.Kind == b.Kind && a.Index == b.Index &&
		math.Float32bits(a.B1) == math.Float32bits(b.B1) && math.Float32bits(a.B2) == math.Float32bits(b.B2)
}
