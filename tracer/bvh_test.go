package tracer

import (
	"context"
	"image"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// randomMesh returns n random triangles of assorted sizes in a 10³ box,
// some long and thin, as a mesh description.
func randomMesh(rng *rand.Rand, n int) MeshDesc {
	var m MeshDesc
	for i := 0; i < n; i++ {
		c := vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10}
		size := rng.Float32() * rng.Float32() * 2
		for k := 0; k < 3; k++ {
			d := vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, rng.Float32() - 0.5}
			m.Positions = append(m.Positions, madd(c, d, size))
			m.Indices = append(m.Indices, uint32(len(m.Positions)-1))
		}
	}
	return m
}

func randomScene(t testing.TB, seed uint64, ntri, nsph int) *Scene {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Texture: NoTexture}},
		Meshes:    []MeshDesc{randomMesh(rng, ntri)},
	}
	for i := 0; i < nsph; i++ {
		d.Spheres = append(d.Spheres, SphereDesc{Center: vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10}, Radius: rng.Float32()*0.5 + 0.01})
	}
	for i := 0; i < nsph/2; i++ {
		d.Quads = append(d.Quads, QuadDesc{Corner: vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10},
			Edge1: vec3{rng.Float32(), 0, rng.Float32()}, Edge2: vec3{0, rng.Float32() + 0.1, 0}})
	}
	s, err := Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBVHInvariants: every primitive is in exactly one leaf, leaves are of
// one kind, and every node's bounds hold its children's (and its
// primitives').
func TestBVHInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		s := randomScene(t, seed, 1+int(seed*seed*997)%40000, int(seed*7)%50)
		seenT := make([]int, len(s.Triangles))
		seenS := make([]int, s.FirstPlane)
		inside := func(lo, hi, plo, phi vec3) bool {
			for a := 0; a < 3; a++ {
				if plo[a] < lo[a] || phi[a] > hi[a] {
					return false
				}
			}
			return true
		}
		var walk func(i uint32, depth int)
		walk = func(i uint32, depth int) {
			if depth >= bvhStackSize {
				t.Fatalf("seed %d: tree deeper than the traversal stack", seed)
			}
			n := &s.Nodes[i]
			if n.Count == 0 {
				for _, c := range []uint32{n.Index, n.Index + 1} {
					if !inside(n.Min, n.Max, s.Nodes[c].Min, s.Nodes[c].Max) {
						t.Errorf("seed %d: node %d's child %d pokes out of it", seed, i, c)
					}
					walk(c, depth+1)
				}
				return
			}
			for k := n.Index; k < n.Index+uint32(n.Count); k++ {
				var lo, hi vec3
				if n.Info == LeafTriangles {
					seenT[k]++
					lo, hi = s.Triangles[k].bounds()
				} else {
					seenS[k]++
					lo, hi = s.Shapes[k].bounds()
				}
				if !inside(n.Min, n.Max, lo, hi) {
					t.Errorf("seed %d: leaf %d does not bound its primitive %d", seed, i, k)
				}
			}
		}
		walk(0, 0)
		for k, c := range seenT {
			if c != 1 {
				t.Fatalf("seed %d: triangle %d is in %d leaves", seed, k, c)
			}
		}
		for k, c := range seenS {
			if c != 1 {
				t.Fatalf("seed %d: shape %d is in %d leaves", seed, k, c)
			}
		}
	}
}

// bruteForce intersects every primitive in the tie rule's order (tie.go):
// shapes, then triangles, each by index, so that of equal hits the first
// found, the one a strictly nearer hit alone replaces, is the one the rule
// picks.
func bruteForce(s *Scene, r Ray) Hit {
	h := Hit{T: r.TMax}
	for i := range s.Shapes {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok {
			r.TMax = t
			h = Hit{T: t, Kind: HitShape, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	for i := range s.Triangles {
		if t, b1, b2, ok := s.Triangles[i].intersect(&r); ok {
			r.TMax = t
			h = Hit{T: t, Kind: HitTriangle, Index: uint32(i), HitCoords: HitCoords{B1: b1, B2: b2}}
		}
	}
	return h
}

// TestBVHAgainstBruteForce: traversal finds the same nearest hit as testing
// every primitive, and Occluded agrees with it.
func TestBVHAgainstBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		s := randomScene(t, seed, 3000*int(seed), 20)
		rng := rand.New(rand.NewPCG(seed, 2))
		for i := 0; i < 3000; i++ {
			o := vec3{rng.Float32()*14 - 2, rng.Float32()*14 - 2, rng.Float32()*14 - 2}
			d := uniformSphere(rng.Float32(), rng.Float32())
			if i%10 == 0 { // axis-aligned rays exercise the slab test's infinities
				d = vec3{0, 0, 0}
				d[i%3] = 1
			}
			r := Ray{Origin: o, Dir: d, TMax: infinity}
			if i%3 == 0 {
				r.TMax = rng.Float32() * 5
			}
			want, got := bruteForce(s, r), s.Intersect(r)
			if !sameHit(got, want) {
				t.Fatalf("seed %d ray %d: BVH hit %+v, brute force %+v", seed, i, got, want)
			}
			if occ := s.Occluded(r); occ != (want.Kind != HitNone) {
				t.Fatalf("seed %d ray %d: Occluded %v, brute force hit %+v", seed, i, occ, want)
			}
		}
	}
}

// TestBVHDeterministic: the same input gives the same tree, whatever the
// goroutines do, and on one core (subtrees built in place) as on several.
func TestBVHDeterministic(t *testing.T) {
	// Big enough that the top of the tree is binned on every core.
	const n = 100000
	if w := (&bvhBuilder{cutoff: 1}).binWorkers(n); runtime.GOMAXPROCS(0) > 1 && w < 2 {
		t.Fatalf("%d triangles are binned by %d goroutines: the test no longer covers parallel binning", n, w)
	}
	a := randomScene(t, 9, n, 30)
	for i := 0; i < 4; i++ {
		if i == 3 {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		}
		b := randomScene(t, 9, n, 30)
		if len(a.Nodes) != len(b.Nodes) {
			t.Fatalf("%d nodes, then %d", len(a.Nodes), len(b.Nodes))
		}
		for k := range a.Nodes {
			if a.Nodes[k] != b.Nodes[k] {
				t.Fatalf("node %d differs: %+v, then %+v", k, a.Nodes[k], b.Nodes[k])
			}
		}
		for k := range a.Triangles {
			if a.Triangles[k] != b.Triangles[k] || a.TriangleAttrs[k] != b.TriangleAttrs[k] {
				t.Fatalf("triangle %d differs", k)
			}
		}
	}
}

// TestMeshEqualsTriangleObjects: the same triangles given as a mesh and as
// triangle objects render the same image, bit for bit.
func TestMeshEqualsTriangleObjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	mesh := randomMesh(rng, 400)
	base := SceneDesc{
		Settings:   Settings{Width: 24, Height: 24, Samples: 2, MaxDepth: 4},
		Camera:     CameraDesc{Position: vec3{5, 5, -12}, LookAt: vec3{5, 5, 5}, Up: vec3{0, 1, 0}, FOV: 50},
		Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.2, 0.2, 0.2}, Top: vec3{1, 1, 1}},
		Materials:  []Material{{Kind: MaterialDiffuse, Color: vec3{0.7, 0.6, 0.5}, Texture: NoTexture}},
		Lights:     []PointLight{{Position: vec3{5, 20, -5}, Color: vec3{1, 1, 1}, Intensity: 300}},
	}
	asMesh := base
	asMesh.Meshes = []MeshDesc{mesh}
	asObjects := base
	for k := 0; k+2 < len(mesh.Indices); k += 3 {
		asObjects.Triangles = append(asObjects.Triangles, TriangleDesc{Vertices: [3]mgl32.Vec3{
			mesh.Positions[mesh.Indices[k]], mesh.Positions[mesh.Indices[k+1]], mesh.Positions[mesh.Indices[k+2]]}})
	}
	render := func(d *SceneDesc) []float32 {
		s, err := Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		fb := make([]float32, 3*24*24)
		var st Stats
		if err := s.RenderBlock(context.Background(), image.Rect(0, 0, 24, 24), fb, &st); err != nil {
			t.Fatal(err)
		}
		return fb
	}
	a, b := render(&asMesh), render(&asObjects)
	lit := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("value %d: mesh %v, triangle objects %v", i, a[i], b[i])
		}
		if a[i] > 0.25 {
			lit++
		}
	}
	if lit == 0 {
		t.Fatal("nothing rendered: the test proves nothing")
	}
}

func BenchmarkBVHBuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randomMesh(rng, 200000)
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Texture: NoTexture}},
		Meshes:    []MeshDesc{m},
	}
	var build float64
	for i := 0; i < b.N; i++ {
		s, err := Compile(d)
		if err != nil {
			b.Fatal(err)
		}
		build += s.BVHBuildTime.Seconds()
	}
	b.ReportMetric(float64(b.N)*200000/build, "triangles/s")
}

// sphereMesh returns a bumpy sphere of 4·n·(n−1) triangles cut from an
// n×2n latitude-longitude grid, in grid order: spatially coherent input,
// like most real meshes' and unlike randomMesh's.
func sphereMesh(n int) MeshDesc {
	var m MeshDesc
	for i := 0; i <= n; i++ {
		theta := float64(i) / float64(n) * math.Pi
		for j := 0; j < 2*n; j++ {
			phi := float64(j) / float64(2*n) * 2 * math.Pi
			r := 1 + 0.05*math.Sin(7*theta)*math.Sin(5*phi)
			st, ct := math.Sincos(theta)
			sp, cp := math.Sincos(phi)
			m.Positions = append(m.Positions, vec3{float32(r * st * cp), float32(r * ct), float32(r * st * sp)})
		}
	}
	at := func(i, j int) uint32 { return uint32(i*2*n + j%(2*n)) }
	for i := 0; i < n; i++ {
		for j := 0; j < 2*n; j++ {
			if i > 0 {
				m.Indices = append(m.Indices, at(i, j), at(i+1, j), at(i, j+1))
			}
			if i < n-1 {
				m.Indices = append(m.Indices, at(i, j+1), at(i+1, j), at(i+1, j+1))
			}
		}
	}
	return m
}

// BenchmarkBuildBVH measures buildBVH alone on one core, from the
// primitives' bounds to the nodes, for a random mesh and for a sphere of
// 1.3 million triangles. Unlike BenchmarkBVHBuild, it leaves out
// gathering the primitives and ordering the triangles.
func BenchmarkBuildBVH(b *testing.B) {
	meshes := []struct {
		name string
		m    MeshDesc
	}{
		{"random200k", randomMesh(rand.New(rand.NewPCG(1, 1)), 200000)},
		{"sphere1.3M", sphereMesh(570)},
	}
	for _, mc := range meshes {
		b.Run(mc.name, func(b *testing.B) {
			tris, _ := (&Scene{}).compileTriangles(&SceneDesc{Meshes: []MeshDesc{mc.m}})
			prims := make([]bvhPrim, len(tris))
			for i := range tris {
				lo, hi := tris[i].bounds()
				prims[i] = bvhPrim{lo: lo, hi: hi, index: uint32(i), kind: LeafTriangles}
			}
			work := make([]bvhPrim, len(prims))
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			b.ResetTimer()
			for b.Loop() {
				copy(work, prims)
				buildBVH(work)
			}
			b.ReportMetric(float64(len(prims))*float64(b.N)/b.Elapsed().Seconds(), "triangles/s")
		})
	}
}
