package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// packetTestRays returns n rays of one of the packets the renderer and
// users make, drawn by rng around the box lo-hi: camera rays from one
// origin spread over a few pixels, parallel rays from nearby origins, rays
// from a lens converging on a point, rays whose directions straddle an
// axis (so disagree in sign: traced one by one), and unrelated rays,
// sometimes with odd TMax or a ray that is not finite.
func packetTestRays(rng *rand.Rand, lo, hi vec3, n int) []Ray {
	var o vec3
	for a := 0; a < 3; a++ {
		ext := hi[a] - lo[a]
		o[a] = lo[a] - ext/4 + rng.Float32()*ext*1.5
	}
	centre := vec3{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	base := normalize(madd(madd(centre, vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}, 0.5*(hi[0]-lo[0])), o, -1))
	spread := []float32{0, 1e-6, 1e-4, 1e-3, 1e-2, 0.1}[rng.IntN(6)]
	kind := rng.IntN(6)
	rays := make([]Ray, n)
	for k := range rays {
		r := Ray{Origin: o, Dir: base, TMax: infinity}
		jitter := vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}
		switch kind {
		case 0, 1: // camera rays
			r.Dir = normalize(madd(base, jitter, spread))
		case 2: // parallel rays
			r.Origin = madd(o, jitter, spread*10)
		case 3: // a lens focused on a point
			focus := madd(o, base, 3)
			r.Origin = madd(o, jitter, spread*10)
			r.Dir = normalize(madd(focus, r.Origin, -1))
		case 4: // straddling an axis
			r.Dir = base
			r.Dir[rng.IntN(3)] = []float32{0, float32(math.Copysign(0, -1)), 1e-7, -1e-7}[rng.IntN(4)]
			r.Dir = normalize(madd(r.Dir, jitter, spread))
		case 5: // unrelated
			r.Dir = uniformSphere(rng.Float32(), rng.Float32())
		}
		switch rng.IntN(40) {
		case 0:
			r.TMax = rng.Float32() * (hi[0] - lo[0])
		case 1:
			r.TMax = []float32{0, -1, float32(math.NaN()), float32(math.Inf(-1)), 1e-44, float32(math.Copysign(0, -1)), float32(math.Inf(1))}[rng.IntN(7)]
		case 2:
			bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(3)]
			if c := rng.IntN(6); c < 3 {
				r.Origin[c] = bad
			} else {
				r.Dir[c-3] = bad
			}
		}
		rays[k] = r
	}
	return rays
}

// TestIntersectPacketMatchesIntersect: IntersectPacket gives every ray
// Intersect's hit, bit for bit, on scenes of triangles with spheres,
// quads and planes (every triangle twice, so hits tie), triangles and
// shapes without planes (the assembly loop straight away), a dense sphere
// mesh, a lattice of coplanar squares sharing edges and a one-leaf tree,
// for packets of one to eleven rays of every kind packetTestRays makes,
// and packets of four split after every budget from one step to none; and
// on amd64 most packets of camera rays take the packet traversal.
func TestIntersectPacketMatchesIntersect(t *testing.T) {
	compile := func(d *SceneDesc) *Scene { return compileGeometry(t, d) }
	mixed := mixedGeometry(rand.New(rand.NewPCG(23, 5)), 3000)
	tetrahedron := tetrahedronMesh()
	cases := []struct {
		name string
		s    *Scene
	}{
		{"triangles, shapes and planes", compile(mixed)},
		{"shapes without planes", randomScene(t, 17, 2000, 300)},
		{"sphere mesh", compile(&SceneDesc{Meshes: []MeshDesc{sphereMesh(40)}})},
		{"lattice", compile(&SceneDesc{Meshes: []MeshDesc{coplanarLattice(24)}})},
		{"one leaf", compile(&SceneDesc{Meshes: []MeshDesc{tetrahedron}})},
	}
	packets := 40000
	if testing.Short() {
		packets = 4000
	}
	for ci, sc := range cases {
		s := sc.s
		lo, hi := s.Nodes[0].Min, s.Nodes[0].Max
		rng := rand.New(rand.NewPCG(uint64(ci), 41))
		hits, together, camera := 0, 0, 0
		for p := 0; p < packets; p++ {
			rays := packetTestRays(rng, lo, hi, 1+rng.IntN(11))
			got := make([]Hit, len(rays)+1)
			got[len(rays)] = Hit{T: 42, Kind: HitShape, Index: 7} // past the end: untouched
			s.IntersectPacket(rays, got)
			counted := make([]Hit, len(rays))
			var c TraversalCounts
			s.IntersectPacketCounted(rays, counted, &c)
			for k, r := range rays {
				if want := s.Intersect(r); !sameHit(got[k], want) || !sameHit(counted[k], want) {
					t.Fatalf("%s packet %d ray %d of %d %+v: %+v (counted %+v), Intersect %+v", sc.name, p, k, len(rays), r, got[k], counted[k], want)
				}
				if got[k].Kind != HitNone {
					hits++
				}
			}
			if got[len(rays)] != (Hit{T: 42, Kind: HitShape, Index: 7}) {
				t.Fatalf("%s packet %d: hit past the rays written", sc.name, p)
			}
			if len(rays) < 4 || !sameSigns(rays[:4]) || !allFinite(rays[:4]) || len(s.wide.nodes) == 0 {
				continue
			}
			// A packet of four, alone and split after every budget from
			// one step (each ray on its own from the packet's first node
			// on) to none: the same hits.
			camera++
			for _, budget := range []int{1 << 30, 1, 2, 5, 24} {
				var rs, scratch [4]Ray
				var hs [4]Hit
				s.packetOf(rays[:4], &rs, &hs)
				grs, ghs := rs, hs
				if !s.intersectPacketGo(&grs, &ghs, budget, nil) {
					t.Fatalf("%s packet %d: intersectPacketGo left it to Intersect", sc.name, p)
				}
				done := 0
				if trav4Asm {
					if done = s.packetsAsm(rs[:], hs[:], &scratch, false, budget); done == 4 && budget == 1<<30 {
						together++
					}
				}
				for k, r := range rays[:4] {
					want := s.Intersect(r)
					if !sameHit(ghs[k], want) || done == 4 && !sameHit(hs[k], want) {
						t.Fatalf("%s packet %d ray %d, budget %d: Go %+v, assembly %+v (%d rays), Intersect %+v", sc.name, p, k, budget, ghs[k], hs[k], done, want)
					}
				}
			}
		}
		if hits < packets/4 {
			t.Errorf("%s: %d hits in %d packets", sc.name, hits, packets)
		}
		if trav4Asm && together < camera*9/10 {
			t.Errorf("%s: %d of %d packets of four finite rays of one sign per axis traced together", sc.name, together, camera)
		}
	}
}

// compileGeometry compiles d, a description of geometry alone, with one
// material, one pixel and a camera.
func compileGeometry(t testing.TB, d *SceneDesc) *Scene {
	t.Helper()
	d.Settings = Settings{Width: 1, Height: 1, Samples: 1}
	d.Camera = CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40}
	d.Materials = []Material{{Texture: NoTexture}}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mixedGeometry returns the traversal tests' mixed scene: a random soup
// of n triangles, each twice (every hit of one a tie), 60 spheres and 60
// quads drawn by rng in the cube [0, 10]³, and two planes.
func mixedGeometry(rng *rand.Rand, n int) *SceneDesc {
	soup := randomMesh(rand.New(rand.NewPCG(5, 6)), n)
	d := &SceneDesc{Meshes: []MeshDesc{soup, soup}}
	for i := 0; i < 60; i++ {
		d.Spheres = append(d.Spheres, SphereDesc{Center: vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10}, Radius: rng.Float32()*0.5 + 0.01})
		d.Quads = append(d.Quads, QuadDesc{Corner: vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10},
			Edge1: vec3{rng.Float32(), 0, rng.Float32()}, Edge2: vec3{0, rng.Float32() + 0.1, 0}})
	}
	d.Planes = []PlaneDesc{{Point: vec3{0, 9, 0}, Normal: vec3{0, 1, 0}}, {Point: vec3{0, 0, 0.5}, Normal: vec3{0.1, 0, -1}}}
	return d
}

// tetrahedronMesh returns a mesh of four triangles, whose BVH is one leaf.
func tetrahedronMesh() MeshDesc {
	return MeshDesc{Positions: []vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Indices: []uint32{0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3}}
}

// sameSigns reports whether the rays' directions agree in sign (of their
// bits) on every axis.
func sameSigns(rays []Ray) bool {
	for a := 0; a < 3; a++ {
		for _, r := range rays[1:] {
			if math.Signbit(float64(r.Dir[a])) != math.Signbit(float64(rays[0].Dir[a])) {
				return false
			}
		}
	}
	return true
}

// allFinite reports whether every ray's origin and direction are finite.
func allFinite(rays []Ray) bool {
	for _, r := range rays {
		for a := 0; a < 3; a++ {
			if o, d := float64(r.Origin[a]), float64(r.Dir[a]); math.IsNaN(o+d) || math.IsInf(o, 0) || math.IsInf(d, 0) {
				return false
			}
		}
	}
	return true
}
