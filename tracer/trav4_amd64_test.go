package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// afterPlanes returns ray r and the hit held once intersect has tested the
// planes, what it hands to the wide traversal.
func afterPlanes(s *Scene, r Ray) (Ray, Hit) {
	h := Hit{T: r.TMax}
	for i := s.FirstPlane; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, uint32(i)) {
			r.TMax = tieBound(t)
			h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	return r, h
}

// finiteRay reports whether r's origin and direction are finite.
func finiteRay(r *Ray) bool {
	for a := 0; a < 3; a++ {
		if x, d := float64(r.Origin[a]), float64(r.Dir[a]); math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(d) || math.IsInf(d, 0) {
			return false
		}
	}
	return true
}

// sameRay reports whether a and b are the same ray, bit for bit.
func sameRay(a, b Ray) bool {
	for k := 0; k < 3; k++ {
		if math.Float32bits(a.Origin[k]) != math.Float32bits(b.Origin[k]) || math.Float32bits(a.Dir[k]) != math.Float32bits(b.Dir[k]) {
			return false
		}
	}
	return math.Float32bits(a.TMax) == math.Float32bits(b.TMax)
}

// TestTrav4MatchesGo: the assembly loops (trav4NearestSSE through
// intersectAsm, trav4AnySSE through occludedAsm) return the Go loops'
// answers (intersectWide, occludedWide) bit for bit, on scenes of
// triangles with spheres, quads and planes, duplicate triangles (every
// hit a tie), a lattice of coplanar squares whose triangles share edges,
// and a tree that is one leaf; with rays from inside and outside the
// boxes, axis-aligned ones, short TMax (zero, negative, NaN and
// subnormal ones too), rays from the last hit, and rays that are not
// finite, which the assembly hands back to Go untouched.
func TestTrav4MatchesGo(t *testing.T) {
	compile := func(d *SceneDesc) *Scene { return compileGeometry(t, d) }
	mixed := mixedGeometry(rand.New(rand.NewPCG(19, 4)), 4000)
	lattice := coplanarLattice(24)
	tetrahedron := tetrahedronMesh()
	cases := []struct {
		name string
		s    *Scene
	}{
		{"triangles, shapes and planes", compile(mixed)},
		{"shapes alone", randomScene(t, 21, 0, 300)},
		{"lattice", compile(&SceneDesc{Meshes: []MeshDesc{lattice}})},
		{"one leaf", compile(&SceneDesc{Meshes: []MeshDesc{tetrahedron}})},
	}
	perScene := 300000
	if testing.Short() {
		perScene = 20000
	}
	for ci, sc := range cases {
		s := sc.s
		if sc.name == "one leaf" && len(s.wide.nodes) != 0 {
			t.Fatalf("%s: %d wide nodes, want a root leaf", sc.name, len(s.wide.nodes))
		}
		lo, hi := s.Nodes[0].Min, s.Nodes[0].Max
		rng := rand.New(rand.NewPCG(uint64(ci), 77))
		var kinds [3]int // BVH hits by kind
		occluded, fallbacks := 0, 0
		var last Hit
		var lastRay Ray
		for i := 0; i < perScene; i++ {
			r := wideTestRay(rng, lo, hi, last, lastRay, 4, true)
			r0, h0 := afterPlanes(s, r)
			want := s.intersectWide(r0, h0, nil)
			wantOcc := s.occludedWide(r, nil)
			rr, got := r0, h0
			ok := s.intersectAsm(&rr, &got)
			ro := r
			st := s.occludedAsm(&ro)
			if !finiteRay(&r) {
				if ok || !sameRay(rr, r0) || !sameHit(got, h0) || st != trav4Fallback {
					t.Fatalf("%s ray %d %+v, not finite: intersectAsm %v, ray %+v, hit %+v; occludedAsm %d; want the Go loops", sc.name, i, r, ok, rr, got, st)
				}
				fallbacks++
				continue
			}
			if !ok || !sameHit(got, want) {
				t.Fatalf("%s ray %d %+v (after the planes %+v, %+v): assembly %v %+v, Go %+v", sc.name, i, r, r0, h0, ok, got, want)
			}
			if st == trav4Fallback || (st == trav4Hit) != wantOcc {
				t.Fatalf("%s ray %d %+v: occludedAsm %d, Go %v", sc.name, i, r, st, wantOcc)
			}
			if want != h0 {
				kinds[want.Kind]++
			}
			if wantOcc {
				occluded++
			}
			last, lastRay = want, r
		}
		if kinds[HitTriangle]+kinds[HitShape] < perScene/20 || occluded < perScene/20 || fallbacks == 0 {
			t.Errorf("%s: %d triangle and %d shape hits in the BVH, %d occluded, %d not finite of %d rays", sc.name, kinds[HitTriangle], kinds[HitShape], occluded, fallbacks, perScene)
		}
		if sc.name != "lattice" && sc.name != "one leaf" && kinds[HitShape] == 0 {
			t.Errorf("%s: no shape hit in the BVH", sc.name)
		}
	}
}

// deepChain returns a scene built by hand whose wide tree is a chain of
// depth wide nodes, each with three leaves and the next node as children,
// every box the cube [−20, 20]³: a ray from inside it enters every box at
// 0. The nearest-hit loop visits the interior child first (the smaller
// reference) and pushes the three leaves, so that past 63 levels its
// stack would hold more than wideStackSize entries; the any-hit loop
// visits the first child first, a leaf, and pushes the others, two of
// them left on the stack per level, past 95 levels more than it holds. Leaf k holds one primitive in the plane z = 10 +
// k%5 across the z axis: a triangle, or every fourth a quad, so that a ray
// up the z axis meets ties at every distance, the nearest (10) first in
// leaf 0's triangle and won by leaf 15's quad, shape 3.
func deepChain(depth int) *Scene {
	s := &Scene{}
	var leaves []BVHNode
	for k := 0; k < 3*depth+1; k++ {
		z := float32(10 + k%5)
		if k%4 == 3 {
			s.Shapes = append(s.Shapes, newQuad(vec3{-1, -1, z}, vec3{3, 0, 0}, vec3{0, 3, 0}, 0))
			leaves = append(leaves, BVHNode{Index: uint32(len(s.Shapes) - 1), Count: 1, Info: LeafShapes})
			continue
		}
		s.Triangles = append(s.Triangles, Triangle{P0: vec3{-1, -1, z}, E1: vec3{3, 0, 0}, E2: vec3{0, 3, 0}})
		leaves = append(leaves, BVHNode{Index: uint32(len(s.Triangles) - 1), Count: 1, Info: LeafTriangles})
	}
	s.FirstPlane = len(s.Shapes)
	lo, hi := vec3{-20, -20, -20}, vec3{20, 20, 20}
	s.Nodes = []BVHNode{{Min: lo, Max: hi}} // a stand-in: Intersect asks only that it is not empty
	for i := 0; i < depth; i++ {
		var w bvh4Node
		for k := 0; k < 4; k++ {
			for a := 0; a < 3; a++ {
				w.bounds[a][k], w.bounds[3+a][k] = lo[a], hi[a]
			}
		}
		for k := 0; k < 3; k++ {
			w.child[k] = wideLeafRef(&leaves[3*i+k])
		}
		w.child[3] = uint32(i + 1)
		if i == depth-1 {
			w.child[3] = wideLeafRef(&leaves[3*depth])
		}
		s.wide.nodes = append(s.wide.nodes, w)
	}
	return s
}

// TestTrav4FullStack: on a tree deep enough to fill the assembly loops'
// stack, they hand the query to the Go loops (which grow theirs; the
// any-hit loop when it finds no hit first), and Intersect and Occluded
// still give the Go loops' answers; on a chain that fits, the assembly
// answers alone, the same.
func TestTrav4FullStack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, tc := range []struct {
		depth int
		fits  bool
	}{{40, true}, {100, false}} {
		s := deepChain(tc.depth)
		hits, occFallbacks := 0, 0
		for i := 0; i < 2000; i++ {
			r := Ray{Origin: vec3{0, 0, 0}, Dir: vec3{0, 0, 1}, TMax: infinity}
			if i > 0 {
				r.Origin = vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() * 12}
				r.Dir = uniformSphere(rng.Float32(), rng.Float32())
			}
			if i%3 == 1 {
				r.TMax = rng.Float32() * 14
			}
			want, wantOcc := s.intersectWide(r, Hit{T: r.TMax}, nil), s.occludedWide(r, nil)
			rr, h := r, Hit{T: r.TMax}
			ok := s.intersectAsm(&rr, &h)
			ro := r
			st := s.occludedAsm(&ro)
			if st == trav4Fallback {
				occFallbacks++
			}
			if ok != tc.fits || st == trav4Fallback && tc.fits || st == trav4Hit && !wantOcc || st == trav4Miss && (wantOcc || !tc.fits) {
				t.Fatalf("depth %d ray %d %+v: intersectAsm %v, occludedAsm %d: want the assembly to answer %v", tc.depth, i, r, ok, st, tc.fits)
			}
			if ok && !sameHit(h, want) {
				t.Fatalf("depth %d ray %d %+v: assembly %+v, Go %+v", tc.depth, i, r, h, want)
			}
			if got, gotOcc := s.Intersect(r), s.Occluded(r); !sameHit(got, want) || gotOcc != wantOcc {
				t.Fatalf("depth %d ray %d %+v: Intersect %+v Occluded %v, Go %+v %v", tc.depth, i, r, got, gotOcc, want, wantOcc)
			}
			if i == 0 && (want.T != 10 || want.Kind != HitShape || want.Index != 3) {
				t.Fatalf("depth %d: the axis ray hits %+v, want shape 3 at 10 (the tie rule: leaf 15's quad)", tc.depth, want)
			}
			if want.Kind != HitNone {
				hits++
			}
		}
		if hits < 200 || !tc.fits && occFallbacks < 200 {
			t.Errorf("depth %d: %d of 2000 rays hit, %d occlusion queries handed to Go", tc.depth, hits, occFallbacks)
		}
	}
}

// TestTrav4TieTrees: on the tie rule's hand-built trees (tieTree), whose
// every hit is a tie, the assembly loop answers, with the Go loop's hit.
func TestTrav4TieTrees(t *testing.T) {
	r := Ray{Origin: vec3{0.5, 0.5, 0}, Dir: vec3{0, 0, 1}, TMax: infinity}
	for _, ka := range []uint16{LeafTriangles, LeafShapes} {
		for _, kb := range []uint16{LeafTriangles, LeafShapes} {
			for _, near3 := range []bool{false, true} {
				s := tieTree(ka, kb, near3)
				want := s.intersectWide(r, Hit{T: r.TMax}, nil)
				rr, h := r, Hit{T: r.TMax}
				if !s.intersectAsm(&rr, &h) || !sameHit(h, want) || want.T != 5 {
					t.Errorf("kinds %d, %d, child 3 first %v: assembly %+v, Go %+v", ka, kb, near3, h, want)
				}
				ro := r
				if st := s.occludedAsm(&ro); st != trav4Hit {
					t.Errorf("kinds %d, %d, child 3 first %v: occludedAsm %d, want a hit", ka, kb, near3, st)
				}
			}
		}
	}
}

// grow calls f under big frames of about 200 bytes and small ones
// of a few words, to put the goroutine's stack limit at a different place
// in f's frames for each pair.
//
//go:noinline
func grow(big, small int, f func()) uint64 {
	var pad [24]uint64
	pad[big%24] = uint64(big)
	switch {
	case big > 0:
		return pad[(big+1)%24] + grow(big-1, small, f)
	case small > 0:
		return uint64(small) + grow(0, small-1, f)
	}
	f()
	return pad[0]
}

// TestTrav4StackGrowth: a query whose goroutine stack grows, and so
// moves, in the assembly's prologue or under its calls back into Go for a
// leaf of shapes (the ray and the hit it updates live on that stack, its
// frame is copied), gives the Go loop's answer, on fresh goroutines whose
// stacks start small, under 50 × 12 depths of frames.
func TestTrav4StackGrowth(t *testing.T) {
	s := randomScene(t, 41, 300, 400)
	rng := rand.New(rand.NewPCG(8, 8))
	lo, hi := s.Nodes[0].Min, s.Nodes[0].Max
	shapeHits := 0
	for depth := 0; depth < 50*12; depth++ {
		var rays [8]Ray
		for i := range rays {
			for a := 0; a < 3; a++ {
				rays[i].Origin[a] = lo[a] + rng.Float32()*(hi[a]-lo[a])
			}
			rays[i].Dir, rays[i].TMax = uniformSphere(rng.Float32(), rng.Float32()), infinity
		}
		var got [8]Hit
		var gotOcc [8]bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			grow(depth/12, depth%12, func() {
				for i := range rays {
					got[i], gotOcc[i] = s.Intersect(rays[i]), s.Occluded(rays[i])
				}
			})
		}()
		<-done
		for i, r := range rays {
			want, wantOcc := s.intersectWide(r, Hit{T: r.TMax}, nil), s.occludedWide(r, nil)
			if !sameHit(got[i], want) || gotOcc[i] != wantOcc {
				t.Fatalf("depth %d ray %+v: %+v %v, Go %+v %v", depth, r, got[i], gotOcc[i], want, wantOcc)
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

// TestTrav4FallbackWithHit: Intersect and Occluded on a scene without
// planes (their path straight to the assembly) hand a query whose stack
// fills to the Go loops and return the Go loops' answer, a hit, found
// only in leaves past the depth the assembly's stack holds: deepChain's
// first 97 levels of leaves are moved off the ray's path.
func TestTrav4FallbackWithHit(t *testing.T) {
	const depth, cut = 100, 3 * 97
	s := deepChain(depth)
	tri, sh := 0, 0
	for k := 0; k < 3*depth+1; k++ {
		z := float32(10 + k%5)
		if k%4 == 3 {
			if k < cut {
				s.Shapes[sh] = newQuad(vec3{99, -1, z}, vec3{3, 0, 0}, vec3{0, 3, 0}, 0)
			}
			sh++
			continue
		}
		if k < cut {
			s.Triangles[tri].P0[0] += 100
		}
		tri++
	}
	r := Ray{Origin: vec3{0.5, 0.5, 0}, Dir: vec3{0, 0, 1}, TMax: infinity}
	want, wantOcc := s.intersectWide(r, Hit{T: r.TMax}, nil), s.occludedWide(r, nil)
	if want.Kind == HitNone || !wantOcc {
		t.Fatalf("the Go loops: %+v, occluded %v; want a hit", want, wantOcc)
	}
	rr, h := r, Hit{T: r.TMax}
	ro := r
	if s.intersectAsm(&rr, &h) || s.occludedAsm(&ro) != trav4Fallback {
		t.Fatalf("the assembly answered a query whose stack fills")
	}
	if got := s.Intersect(r); !sameHit(got, want) {
		t.Errorf("Intersect %+v, Go %+v", got, want)
	}
	if !s.Occluded(r) {
		t.Errorf("Occluded false, Go true")
	}
}
