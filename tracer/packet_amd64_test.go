package tracer

import (
	"math/rand/v2"
	"testing"
)

// TestPacketStackGrowth: packets whose goroutine stack grows, and so
// moves, in the assembly's prologue or under its calls back into Go for a
// leaf of shapes (the rays, the hits and the packet's frame all live on
// that stack), give Intersect's hits, on fresh goroutines whose stacks
// start small, under 50 × 12 depths of frames.
func TestPacketStackGrowth(t *testing.T) {
	s := randomScene(t, 41, 300, 400)
	if s.FirstPlane != len(s.Shapes) {
		t.Fatal("the scene has planes: IntersectPacket would not take the assembly loop straight away")
	}
	rng := rand.New(rand.NewPCG(8, 9))
	lo, hi := s.Nodes[0].Min, s.Nodes[0].Max
	shapeHits := 0
	for depth := 0; depth < 50*12; depth++ {
		var rays [8]Ray
		copy(rays[:], packetTestRays(rng, lo, hi, 8))
		var got [8]Hit
		done := make(chan struct{})
		go func() {
			defer close(done)
			grow(depth/12, depth%12, func() {
				rs := rays // on this goroutine's stack
				var hs [8]Hit
				s.IntersectPacket(rs[:], hs[:])
				got = hs
			})
		}()
		<-done
		for i, r := range rays {
			want := s.Intersect(r)
			if !sameHit(got[i], want) {
				t.Fatalf("depth %d ray %d %+v: %+v, Intersect %+v", depth, i, r, got[i], want)
			}
			if want.Kind == HitShape {
				shapeHits++
			}
		}
	}
	if shapeHits < 600 {
		t.Errorf("%d of %d rays hit a shape", shapeHits, 8*50*12)
	}
}

// TestPacketFullStack: a packet whose traversal would fill the assembly
// loop's stack (deepChain's, whose every box the rays enter at 0) is left
// to Intersect, ray by ray, with Intersect's hits; on a chain that fits,
// the assembly answers alone, the same.
func TestPacketFullStack(t *testing.T) {
	for _, tc := range []struct {
		depth int
		fits  bool
	}{{40, true}, {100, false}} {
		s := deepChain(tc.depth)
		rays := []Ray{
			{Origin: vec3{0, 0, 0}, Dir: vec3{0, 0, 1}, TMax: infinity},
			{Origin: vec3{0.01, 0, 0}, Dir: vec3{0, 0, 1}, TMax: infinity},
			{Origin: vec3{0, 0.01, 0}, Dir: vec3{0, 0, 1}, TMax: infinity},
			{Origin: vec3{0.01, 0.01, 0}, Dir: vec3{0, 0, 1}, TMax: 10.5},
		}
		var scratch [4]Ray
		hs := make([]Hit, 4)
		if done := s.packetsAsm(rays, hs, &scratch, true, 1<<30); (done == 4) != tc.fits {
			t.Errorf("depth %d: the assembly traced %d of 4 rays, want all: %v", tc.depth, done, tc.fits)
		}
		got := make([]Hit, 4)
		s.IntersectPacket(rays, got)
		for i, r := range rays {
			want := s.Intersect(r)
			if !sameHit(got[i], want) || want.Kind == HitNone || tc.fits && !sameHit(hs[i], want) {
				t.Errorf("depth %d ray %d: %+v (assembly %+v), Intersect %+v", tc.depth, i, got[i], hs[i], want)
			}
		}
	}
}
