package tracer

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestEnter4MatchesGo: the wide slab test in SSE (amd64), in Go and in
// its general form return the same hits and entry distances, and all the
// hits and distances of enterPairGeneral, the binary traversal's test, for
// the same boxes: random pairs of boxes with slabTestCase's edge cases, put
// in lanes 0 and 1 and again in lanes 2 and 3, on a million finite rays;
// and enter4General those of enterPairGeneral on rays made non-finite.
func TestEnter4MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	n := 1000000
	if testing.Short() {
		n = 100000
	}
	hits := 0
	for i := 0; i < n; i++ {
		p, r, tMax := slabTestCase(rng)
		nonFinite := i%16 == 0
		if nonFinite {
			bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(3)]
			if c := rng.IntN(6); c < 3 {
				r.Origin[c] = bad
			} else {
				r.Dir[c-3] = bad
			}
		}
		rb := newRefRay(&r)
		rw := newRay4(&r)
		if rw.finite == nonFinite {
			t.Fatalf("case %d: ray %+v: finite %v", i, r, rw.finite)
		}
		q := [2]BVHNode{p[1], p[0]}
		if rng.IntN(2) == 0 {
			q = p
		}
		nodes := []BVHNode{p[0], p[1], q[0], q[1]}
		w := wideNodeOf(nodes, []uint32{0, 1, 2, 3}, []uint32{0, 0, 0, 0})
		if rng.IntN(4) == 0 { // a missing child
			w = wideNodeOf(nodes, []uint32{0, 1, 2}, []uint32{0, 0, 0})
		}
		var tg [4]float32
		mg := rw.enter4General(&w, tMax, &tg)
		ta, tb, hitA, hitB := rb.enterPairGeneral(&p, tMax)
		tc, td, hitC, hitD := rb.enterPairGeneral(&q, tMax)
		want := uint32(b2i(hitA) | b2i(hitB)<<1 | b2i(hitC)<<2 | b2i(hitD)<<3)
		if w.bounds[0][3] == infinity {
			want &^= 8
		}
		if mg != want {
			t.Fatalf("case %d %+v %+v tMax %v: enter4General hits %04b, enterPairGeneral %04b", i, p, r, tMax, mg, want)
		}
		for k, tw := range [4]float32{ta, tb, tc, td} {
			if mg&(1<<k) != 0 && tg[k] != tw {
				t.Fatalf("case %d: lane %d enters at %v, enterPairGeneral at %v", i, k, tg[k], tw)
			}
		}
		if nonFinite {
			continue
		}
		var tgo [4]float32
		if mgo := rw.enter4Go(&w, tMax, &tgo); mgo != mg || !sameEntries(mg, tgo, tg) {
			t.Fatalf("case %d %+v %+v tMax %v: enter4Go hits %04b at %v, enter4General %04b at %v", i, p, r, tMax, mgo, tgo, mg, tg)
		}
		if slabSSE {
			var ts [4]float32
			ms := enter4SSE(&rw, &w, tMax, &ts)
			if ms != mg {
				t.Fatalf("case %d %+v %+v tMax %v: enter4SSE hits %04b, enter4Go %04b", i, p, r, tMax, ms, mg)
			}
			for k := range ts {
				if mg&(1<<k) != 0 && ts[k] != tg[k] {
					t.Fatalf("case %d: lane %d: enter4SSE %v, enter4Go %v", i, k, ts[k], tg[k])
				}
			}
		}
		if mg != 0 {
			hits++
		}
	}
	if hits < n/10 {
		t.Errorf("only %d of %d cases hit a box", hits, n)
	}
}

// sameEntries reports whether a and b hold the same entry distances in
// the lanes of mask.
func sameEntries(mask uint32, a, b [4]float32) bool {
	for k := range a {
		if mask&(1<<k) != 0 && a[k] != b[k] {
			return false
		}
	}
	return true
}

// TestCollapseBVH4: the wide tree's leaves hold every primitive once,
// each binary leaf whole, and some small subtrees (smallSubtree) as one
// leaf of at most wideMergeMax; missing children have empty boxes, and nodes
// come after their parents; a tree that is one leaf is that leaf, with no
// node; a leaf that a reference cannot hold is an error.
func TestCollapseBVH4(t *testing.T) {
	// A lone leaf, whose box the binary traversal never tests, is the
	// root itself.
	lone := []BVHNode{{Min: vec3{0, 0, 0}, Max: vec3{1, 0, 1}, Index: 5, Count: 3, Info: LeafShapes}, {}}
	if w, err := collapseBVH4(lone); err != nil || len(w.nodes) != 0 || w.root != wideLeafRef(&lone[0]) {
		t.Errorf("a lone leaf: %d wide nodes, root %#x, %v; want none, root %#x", len(w.nodes), w.root, err, wideLeafRef(&lone[0]))
	}
	if k, first, end := wideLeafOf(wideLeafRef(&lone[0])); k != LeafShapes || first != 5 || end != 8 {
		t.Errorf("a lone leaf's reference: kind %d, %d to %d", k, first, end)
	}
	big := []BVHNode{{Index: 2}, {}, {Index: wideIndexMask, Count: 2}, {Count: 1}}
	if _, err := collapseBVH4(big); err == nil {
		t.Error("a leaf past the references' index: no error")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		s := randomScene(t, seed, int(seed*seed*1500), int(seed*9))
		// leafOf[kind][i] is the binary leaf holding primitive i.
		var leafOf [2]map[uint32]int
		leafOf[0], leafOf[1] = map[uint32]int{}, map[uint32]int{}
		binaryLeaves := 0
		for i := range s.Nodes {
			if n := &s.Nodes[i]; n.Count > 0 {
				binaryLeaves++
				for p := n.Index; p < n.Index+uint32(n.Count); p++ {
					leafOf[n.Info][p] = i
				}
			}
		}
		seen := [2]map[uint32]bool{{}, {}}
		wideLeaves, merged := 0, 0
		var walk func(w uint32)
		walk = func(w uint32) {
			n := &s.wide.nodes[w]
			for k := 0; k < 4; k++ {
				if n.bounds[0][k] == infinity {
					if n.bounds[3][k] != -infinity || n.child[k] != 0 {
						t.Fatalf("seed %d: node %d lane %d: half-empty %+v", seed, w, k, n)
					}
					continue
				}
				c := n.child[k]
				if c&wideLeaf == 0 {
					if c <= w {
						t.Fatalf("seed %d: node %d's child %d before it", seed, w, c)
					}
					walk(c)
					continue
				}
				wideLeaves++
				kind, first, end := wideLeafOf(c)
				leaves := map[int]bool{}
				for p := first; p < end; p++ {
					l, ok := leafOf[kind][p]
					if !ok || seen[kind][p] {
						t.Fatalf("seed %d: leaf %#x: primitive %d of kind %d in no binary leaf, or seen twice", seed, c, p, kind)
					}
					seen[kind][p] = true
					leaves[l] = true
				}
				for l := range leaves {
					if b := &s.Nodes[l]; b.Index < first || b.Index+uint32(b.Count) > end {
						t.Fatalf("seed %d: leaf %#x holds part of binary leaf %d", seed, c, l)
					}
				}
				if len(leaves) > 1 {
					merged++
					if end-first > wideMergeMax {
						t.Fatalf("seed %d: leaf %#x merges %d primitives", seed, c, end-first)
					}
				}
			}
		}
		walk(0)
		for kind := range seen {
			if len(seen[kind]) != len(leafOf[kind]) {
				t.Fatalf("seed %d: kind %d: %d primitives in wide leaves, %d in binary ones", seed, kind, len(seen[kind]), len(leafOf[kind]))
			}
		}
		if merged == 0 {
			t.Errorf("seed %d: no wide leaf merges binary leaves (%d leaves)", seed, wideLeaves)
		}
		// Interior binary nodes number leaves − 1; a wide node replaces
		// one to three of them.
		if got := len(s.wide.nodes); got < (wideLeaves-1+2)/3 || got > binaryLeaves {
			t.Errorf("seed %d: %d wide nodes for %d wide leaves, %d binary", seed, got, wideLeaves, binaryLeaves)
		}
	}
}

// TestSmallSubtree: a subtree is one wide leaf only when its primitives
// are at most wideMergeMax triangles in one range, and its leaves' boxes
// fill its own box well enough (wideNodeCost).
func TestSmallSubtree(t *testing.T) {
	unit := func(n BVHNode) BVHNode { n.Min, n.Max = vec3{0, 0, 0}, vec3{1, 1, 1}; return n }
	leaf := func(index uint32, count, kind uint16) BVHNode {
		return unit(BVHNode{Index: index, Count: count, Info: kind})
	}
	// A room's floor and ceiling: flat leaves at either end of the box.
	floor, ceiling := leaf(0, 2, LeafTriangles), leaf(2, 2, LeafTriangles)
	floor.Max[1], ceiling.Min[1] = 0, 1
	// Two halves of a box, side by side.
	left, right := leaf(0, 2, LeafTriangles), leaf(2, 2, LeafTriangles)
	left.Max[0], right.Min[0] = 0.5, 0.5
	for _, c := range []struct {
		name  string
		nodes []BVHNode
		want  uint32 // the reference, 0 for none
	}{
		{"two leaves", []BVHNode{unit(BVHNode{Index: 1}), leaf(10, 2, LeafTriangles), leaf(12, 2, LeafTriangles)}, wideLeaf | 3<<28 | 10},
		{"halves", []BVHNode{unit(BVHNode{Index: 1}), left, right}, wideLeaf | 3<<28},
		{"floor and ceiling", []BVHNode{unit(BVHNode{Index: 1}), floor, ceiling}, 0},
		{"shapes", []BVHNode{unit(BVHNode{Index: 1}), leaf(4, 1, LeafShapes), leaf(5, 2, LeafShapes)}, 0},
		{"too many", []BVHNode{unit(BVHNode{Index: 1}), leaf(10, 2, LeafTriangles), leaf(12, wideMergeMax-1, LeafTriangles)}, 0},
		{"two kinds", []BVHNode{unit(BVHNode{Index: 1}), leaf(10, 1, LeafTriangles), leaf(11, 1, LeafShapes)}, 0},
		{"a gap", []BVHNode{unit(BVHNode{Index: 1}), leaf(10, 1, LeafTriangles), leaf(12, 1, LeafTriangles)}, 0},
		{"out of order", []BVHNode{unit(BVHNode{Index: 1}), leaf(12, 1, LeafTriangles), leaf(10, 2, LeafTriangles)}, 0},
		{"deeper", []BVHNode{unit(BVHNode{Index: 1}), unit(BVHNode{Index: 3}), leaf(3, 1, LeafTriangles), leaf(0, 2, LeafTriangles), leaf(2, 1, LeafTriangles)}, wideLeaf | 3<<28},
		{"deeper, too many", []BVHNode{unit(BVHNode{Index: 1}), unit(BVHNode{Index: 3}), leaf(3, 2, LeafTriangles), leaf(0, 2, LeafTriangles), leaf(2, 1, LeafTriangles)}, 0},
	} {
		ref, ok := smallSubtree(c.nodes, 0)
		if ok != (c.want != 0) || ref != c.want {
			t.Errorf("%s: %#x, %v; want %#x", c.name, ref, ok, c.want)
		}
	}
	// A leaf is its own reference, whatever its count and kind.
	for _, l := range []BVHNode{leaf(7, 8, LeafTriangles), leaf(3, 5, LeafShapes)} {
		if ref, ok := smallSubtree([]BVHNode{l}, 0); !ok || ref != wideLeafRef(&l) {
			t.Errorf("a leaf of %d: %#x, %v", l.Count, ref, ok)
		}
	}
}

// loadTestOBJ reads the vertices and faces (as fans) of an OBJ file.
func loadTestOBJ(t testing.TB, path string) MeshDesc {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var m MeshDesc
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			var p vec3
			for a := 0; a < 3; a++ {
				x, err := strconv.ParseFloat(fields[1+a], 32)
				if err != nil {
					t.Fatal(err)
				}
				p[a] = float32(x)
			}
			m.Positions = append(m.Positions, p)
		case "f":
			var idx []uint32
			for _, v := range fields[1:] {
				k, err := strconv.Atoi(strings.Split(v, "/")[0])
				if err != nil {
					t.Fatal(err)
				}
				idx = append(idx, uint32(k-1))
			}
			for j := 2; j < len(idx); j++ {
				m.Indices = append(m.Indices, idx[0], idx[j-1], idx[j])
			}
		}
	}
	if len(m.Indices) == 0 {
		t.Fatalf("%s: no faces", path)
	}
	return m
}

// TestWideMatchesBinary: the wide traversal returns the nearest hit of
// the binary tree's traversal (the kernel's, binaryQuery), bit for bit
// (t, primitive, barycentrics), and the same occlusion answers, on
// millions of rays (random origins in and around the scene, random and
// axis-aligned directions, some with a short TMax, some starting on a
// surface, some with a NaN or infinite component) against random triangle
// soups with shapes, a smooth sphere mesh, the gallery's knot, a lattice
// of coplanar, axis-aligned quads of triangles, whose hits tie and graze
// box faces, and a scene that is one leaf.
func TestWideMatchesBinary(t *testing.T) {
	type sceneCase struct {
		name string
		s    *Scene
	}
	desc := func(meshes ...MeshDesc) *Scene {
		s, err := Compile(&SceneDesc{
			Settings:  Settings{Width: 1, Height: 1, Samples: 1},
			Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
			Materials: []Material{{Texture: NoTexture}},
			Meshes:    meshes,
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lattice := coplanarLattice(30)
	tetrahedron := MeshDesc{Positions: []vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Indices: []uint32{0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3}}
	cases := []sceneCase{
		{"random soup 1", randomScene(t, 11, 20000, 40)},
		{"random soup 2", randomScene(t, 12, 3000, 200)},
		{"sphere mesh", desc(sphereMesh(300))},
		{"knot", desc(loadTestOBJ(t, "../scenes/examples/assets/knot.obj"))},
		{"lattice", desc(lattice)},
		{"one leaf", desc(tetrahedron)},
	}
	perScene := 500000
	if testing.Short() {
		perScene = 20000
	}
	for ci, sc := range cases {
		s := sc.s
		if (len(s.wide.nodes) == 0) != (s.Nodes[0].Count > 0) {
			t.Fatalf("%s: %d wide nodes for a root of %d primitives", sc.name, len(s.wide.nodes), s.Nodes[0].Count)
		}
		if sc.name == "one leaf" && s.Nodes[0].Count == 0 {
			t.Fatalf("%s: the root is not a leaf", sc.name)
		}
		lo, hi := s.Nodes[0].Min, s.Nodes[0].Max
		rng := rand.New(rand.NewPCG(uint64(ci), 43))
		hits := 0
		var last Hit
		var lastRay Ray
		for i := 0; i < perScene; i++ {
			r := wideTestRay(rng, lo, hi, last, lastRay, 8, false)
			want, wantOcc := s.binaryQuery(r, false), s.binaryQuery(r, true).Kind != HitNone
			got, gotOcc := s.Intersect(r), s.Occluded(r)
			if !sameHit(got, want) || gotOcc != wantOcc {
				t.Fatalf("%s ray %d %+v: wide %+v occluded %v, binary %+v occluded %v", sc.name, i, r, got, gotOcc, want, wantOcc)
			}
			if want.Kind != HitNone {
				hits++
			}
			last, lastRay = want, r
		}
		if hits < perScene/20 {
			t.Errorf("%s: only %d of %d rays hit", sc.name, hits, perScene)
		}
	}
}

// coplanarLattice returns three parallel layers of n×n squares of side 0.5,
// two triangles each: coplanar triangles with shared edges, whose hits on
// the edges tie.
func coplanarLattice(n int) MeshDesc {
	var m MeshDesc
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for z := 0; z < 3; z++ {
				b := uint32(len(m.Positions))
				x, y := float32(i)*0.5, float32(j)*0.5
				m.Positions = append(m.Positions, vec3{x, y, float32(z)}, vec3{x + 0.5, y, float32(z)}, vec3{x, y + 0.5, float32(z)}, vec3{x + 0.5, y + 0.5, float32(z)})
				m.Indices = append(m.Indices, b, b+1, b+2, b+1, b+3, b+2)
			}
		}
	}
	return m
}

// wideTestRay returns a random ray for the wide traversal's tests, around
// the box lo–hi: from anywhere in the box grown by half its size, in any
// direction, with one in eight axis-aligned, one in eight with a TMax
// within the box's size, one in eight from the last hit (last along
// lastRay), one in eight times one in nonFinite with a NaN or infinite
// component (enter4General), and, when oddTMax, one in thirty-two with a
// TMax that admits no hit or a tiny one.
func wideTestRay(rng *rand.Rand, lo, hi vec3, last Hit, lastRay Ray, nonFinite int, oddTMax bool) Ray {
	var r Ray
	for a := 0; a < 3; a++ {
		ext := hi[a] - lo[a]
		r.Origin[a] = lo[a] - ext/4 + rng.Float32()*ext*1.5
	}
	r.Dir = uniformSphere(rng.Float32(), rng.Float32())
	r.TMax = infinity
	switch rng.IntN(8) {
	case 0:
		r.Dir = vec3{}
		r.Dir[rng.IntN(3)] = float32(1 - 2*rng.IntN(2))
	case 1:
		r.TMax = rng.Float32() * (hi[0] - lo[0])
	case 2:
		if last.Kind != HitNone { // from the last hit, as a bounce
			r.Origin = lastRay.At(last.T)
		}
	case 3:
		if rng.IntN(nonFinite) == 0 {
			bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(3)]
			if c := rng.IntN(6); c < 3 {
				r.Origin[c] = bad
			} else {
				r.Dir[c-3] = bad
			}
		}
	case 4:
		if oddTMax && rng.IntN(4) == 0 {
			r.TMax = []float32{0, -1, float32(math.NaN()), float32(math.Inf(-1)), 1e-44, float32(math.Copysign(0, -1))}[rng.IntN(6)]
		}
	}
	return r
}

// TestGrowStack: a traversal stack that outgrows its inline room moves to
// one twice as large with its entries kept, up to wideStackSize from
// wideStackInline.
func TestGrowStack(t *testing.T) {
	s := make([]uint32, wideStackInline)
	for i := range s {
		s[i] = uint32(i + 1)
	}
	g := growStack(s)
	if len(g) != 2*wideStackInline {
		t.Fatalf("grown to %d entries, want %d", len(g), 2*wideStackInline)
	}
	for i := range s {
		if g[i] != s[i] {
			t.Fatalf("entry %d: %d, want %d", i, g[i], s[i])
		}
	}
	if n := len(growStack(g)); n < wideStackSize {
		t.Errorf("two doublings reach %d entries, fewer than wideStackSize %d", n, wideStackSize)
	}
}

// newRay4 returns ray r prepared for the wide traversal.
func newRay4(r *Ray) ray4 {
	var rw ray4
	rw.set(r)
	return rw
}

// TestRay4Layout: ray4's fields lie where setRay4SSE and enter4SSE
// (slab4_amd64.s) read and write them, and its first 96 bytes are the
// leaf test's sseRay.
func TestRay4Layout(t *testing.T) {
	var r ray4
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"o", unsafe.Offsetof(r.o), 0}, {"d", unsafe.Offsetof(r.d), 48}, {"inv", unsafe.Offsetof(r.inv), 96},
		{"near", unsafe.Offsetof(r.near), 144}, {"far", unsafe.Offsetof(r.far), 156}, {"finite", unsafe.Offsetof(r.finite), 168},
	} {
		if f.got != f.want {
			t.Errorf("ray4.%s at %d, want %d", f.name, f.got, f.want)
		}
	}
	ray := Ray{Origin: vec3{1, 2, 3}, Dir: vec3{4, 5, 6}, TMax: 7}
	r.set(&ray)
	if lr := r.leafRay(); lr[0][3] != 1 || lr[2][0] != 3 || lr[3][1] != 4 || lr[5][2] != 6 {
		t.Errorf("leafRay: %v", *lr)
	}
}

// TestSetRay4MatchesGo: setRay4SSE fills a ray4 with setGo's bytes, on
// random rays with slabTestCase's edge cases (zeros of either sign,
// subnormals, huge components); on rays made non-finite, it says so, and
// holds the same origin and direction and an inverse direction that is
// the same, NaN where setGo's is (whose NaN bits may differ).
func TestSetRay4MatchesGo(t *testing.T) {
	if !slabSSE {
		t.Skip("setRay4SSE is amd64's")
	}
	rng := rand.New(rand.NewPCG(44, 45))
	for i := 0; i < 200000; i++ {
		_, r, _ := slabTestCase(rng)
		if i%7 == 0 {
			bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(3)]
			if c := rng.IntN(6); c < 3 {
				r.Origin[c] = bad
			} else {
				r.Dir[c-3] = bad
			}
		}
		var got, want ray4
		setRay4SSE(&got, &r)
		want.setGo(&r)
		if !want.finite {
			if got.finite {
				t.Fatalf("ray %d %+v: taken as finite", i, r)
			}
			for a := range want.inv {
				for k := range want.inv[a] {
					w, g := want.inv[a][k], got.inv[a][k]
					if (w != w) != (g != g) || w == w && math.Float32bits(g) != math.Float32bits(w) {
						t.Fatalf("ray %d %+v: inv %v, want %v", i, r, got.inv, want.inv)
					}
				}
			}
			got.inv, got.near, got.far = want.inv, want.near, want.far
		}
		g := unsafe.Slice((*byte)(unsafe.Pointer(&got)), unsafe.Sizeof(got))
		w := unsafe.Slice((*byte)(unsafe.Pointer(&want)), unsafe.Sizeof(want))
		if !bytes.Equal(g, w) {
			t.Fatalf("ray %d %+v:\nsetRay4SSE %+v\nsetGo      %+v", i, r, got, want)
		}
	}
}

// TestWidePrefetchOffsets: every wide node's prefetch offsets, from the
// first node in units of 8 bytes, are its interior children's indices
// times 16, a cache line past its triangle leaves' first triangles, and
// 0 for the others, what the assembly traversal prefetches around
// (trav4_amd64.h's PREFETCH4).
func TestWidePrefetchOffsets(t *testing.T) {
	s := randomScene(t, 31, 5000, 40)
	base := int64(uintptr(unsafe.Pointer(&s.wide.nodes[0])))
	interior, leaves := 0, 0
	for i, n := range s.wide.nodes {
		for k, c := range n.child {
			want := int32(0)
			switch kind, first, _ := wideLeafOf(c); {
			case n.bounds[0][k] > n.bounds[3][k]: // missing
			case c&wideLeaf == 0:
				want = int32(c * 16)
				interior++
			case kind == LeafTriangles:
				want = int32((int64(uintptr(unsafe.Pointer(&s.Triangles[first]))) - base + 64) >> 3)
				leaves++
			}
			if int32(n.prefetch[k]) != want {
				t.Fatalf("node %d child %d (%#x): prefetch offset %d, want %d", i, k, c, int32(n.prefetch[k]), want)
			}
		}
	}
	if interior != len(s.wide.nodes)-1 || leaves == 0 {
		t.Errorf("%d interior children of %d nodes (want every node but the root), %d triangle leaves", interior, len(s.wide.nodes), leaves)
	}
}
