//go:build goexperiment.simd && amd64

package tracer

import (
	"simd/archsimd"
	"unsafe"
)

// The BVH traversal with the slab tests in AVX2 vectors: both boxes of a
// sibling pair in two 8-lane vectors, a few vector instructions in place of
// enterPair's 24 scalar subtractions and products and 24 NaN-aware min and
// max. It computes the same float32 values as enterPair and so visits the
// same nodes in the same order and returns the same hits, bit for bit
// (TestVecEnterPairMatchesScalar, TestVecTraversalMatchesScalar).
//
// How it stays exact. For a box with Min ≤ Max (every BVH node) and a
// finite ray, the near distance on an axis, min((Min−o)·inv, (Max−o)·inv),
// is the one of the two products whose bound is picked by the sign of inv:
// subtraction and multiplication round monotonically, so the order of Min
// and Max carries over to their distances, reversed when inv < 0. The
// vector code therefore permutes each box's lanes once per ray, by the signs
// of inv, into [near x, near y, near z, near z, far x, far y, far z, far z]
// and computes (bound − o)·inv with the far lanes' inv negated: x·(−y) is
// −(x·y) exactly, so max over a box's near lanes and 0 is ta and max over
// its negated far lanes and −tMax is −ta1, without any min. Every product
// is rounded on its own (VMULPS, no FMA), and with finite rays no lane is
// ever NaN (inv is never 0, so no 0·∞), so the MAXPS selections give the
// same values as Go's max — up to the sign of a zero, which no comparison
// sees, and which enterPairVec normalises in ta and tb anyway. Rays with a
// NaN or an infinite component take the scalar path. The node layout is
// the one the CUDA kernel reads; nothing here changes it.

// vecTraversal reports whether the CPU runs the vector traversal.
var vecTraversal = archsimd.X86.AVX2()

// Traversal names the BVH traversal this build and CPU run: "avx2", or
// on a CPU without AVX2 the wide one (wideName).
func Traversal() string {
	if vecTraversal {
		return "avx2"
	}
	return wideName()
}

// rayVec is a ray prepared for vector slab tests.
type rayVec struct {
	perm archsimd.Uint32x8  // lane → lane of a node: near bounds in 0-3, far in 4-7
	o    archsimd.Float32x8 // the origin, per lane
	inv  archsimd.Float32x8 // 1/Dir per lane, clamped as in newRayBox, negated in 4-7
}

// Constants of newRayVec and clampVec.
var (
	// vecPerms[k] is rayVec.perm for the inv signs k (bit a set: inv[a] < 0).
	vecPerms = func() (p [8][8]uint32) {
		for k := range p {
			for a := uint32(0); a < 3; a++ {
				near := a // BVHNode.Min[a] is lane a of a node, Max[a] lane 4+a
				if k>>a&1 != 0 {
					near = 4 + a
				}
				p[k][a], p[k][4+a] = near, near^4
			}
			p[k][3], p[k][7] = p[k][2], p[k][6]
		}
		return p
	}()
	vecSpread   = [8]uint32{0, 1, 2, 2, 0, 1, 2, 2}                                     // [x, y, z, z] twice
	vecFarSigns = [8]uint32{0, 0, 0, 0, 1 << 31, 1 << 31, 1 << 31, 1 << 31}             // negates lanes 4-7
	vecFarLanes = [8]uint32{0, 0, 0, 0, ^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)} // keeps lanes 4-7
	vecInvClamp = [4]float32{maxInvDir, maxInvDir, maxInvDir, maxInvDir}
	vecOnes     = [4]float32{1, 1, 1, 1}
	vecLanes012 = [4]uint32{^uint32(0), ^uint32(0), ^uint32(0), 0}
)

// newRayVec prepares r for enterPairVec; ok is false for a ray with a NaN
// or infinite component, which takes the scalar path.
func newRayVec(r *Ray) (rv rayVec, ok bool) {
	// [o0, o1, o2, d0] and [d0, d1, d2, TMax]: lane 3 is not used.
	o := archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(&r.Origin)))
	d := archsimd.LoadFloat32x4((*[4]float32)(unsafe.Pointer(&r.Dir)))
	var zero archsimd.Float32x4
	if o.Sub(o).Equal(zero).And(d.Sub(d).Equal(zero)).ToBits()&7 != 7 {
		return rayVec{}, false
	}
	// As newRayBox: max(min(1/d, maxInvDir), −maxInvDir), exact in vectors
	// as no lane is NaN.
	big := archsimd.LoadFloat32x4(&vecInvClamp)
	// Lane 3 (TMax) is replaced by 1 first: 1/TMax is subnormal for a
	// ray without a far end, and a subnormal result makes the division
	// take a slow microcode path, as long as a hundred others.
	ones := archsimd.LoadFloat32x4(&vecOnes)
	d3 := d.AsUint32x4().And(archsimd.LoadUint32x4(&vecLanes012)).Or(ones.AsUint32x4().AndNot(archsimd.LoadUint32x4(&vecLanes012))).AsFloat32x4()
	inv := ones.Div(d3).Min(big).Max(zero.Sub(big))
	signs := inv.Less(zero).ToBits() & 7
	spread := archsimd.LoadUint32x8(&vecSpread)
	var z8 archsimd.Float32x8
	rv.perm = archsimd.LoadUint32x8(&vecPerms[signs])
	rv.o = z8.SetLo(o).Permute(spread)
	rv.inv = z8.SetLo(inv).Permute(spread).AsUint32x8().Xor(archsimd.LoadUint32x8(&vecFarSigns)).AsFloat32x8()
	return rv, true
}

// nodeLanes returns a node's 32 bytes as 8 float32 lanes: Min in 0-2, Max
// in 4-6 (lanes 3 and 7 hold Index, Count and Info, never read as floats).
func nodeLanes(n *BVHNode) *[8]float32 { return (*[8]float32)(unsafe.Pointer(n)) }

// clampVec returns the lanes [0, 0, 0, 0, −tMax, −tMax, −tMax, −tMax].
func clampVec(tMax float32) archsimd.Float32x8 {
	return archsimd.BroadcastFloat32x8(-tMax).AsUint32x8().And(archsimd.LoadUint32x8(&vecFarLanes)).AsFloat32x8()
}

// enterPairVec is enterPair in vectors; clamp is clampVec(tMax).
func (rv *rayVec) enterPairVec(p *[2]BVHNode, clamp archsimd.Float32x8) (ta, tb float32, hitA, hitB bool) {
	a := archsimd.LoadFloat32x8(nodeLanes(&p[0])).Permute(rv.perm).Sub(rv.o).Mul(rv.inv)
	b := archsimd.LoadFloat32x8(nodeLanes(&p[1])).Permute(rv.perm).Sub(rv.o).Mul(rv.inv)
	// Per 128-bit half: [a0, a1, b0, b1] and [a2, a3, b2, b3]; their max,
	// with 0 (near half) or −tMax (far half), then the max of neighbours.
	m := a.SelectFromPairGrouped(0, 1, 4, 5, b).Max(a.SelectFromPairGrouped(2, 3, 6, 7, b)).Max(clamp)
	m = m.Max(m.SelectFromPairGrouped(1, 0, 7, 6, m))
	// lo = [ta, ta, tb, tb], hi = [−ta1, −ta1, −tb1, −tb1]. Of two zeros
	// VMAXPS returns one operand, Go's max the +0: adding +0 turns a −0 into
	// +0 and leaves every other value as it is, so ta and tb have the
	// scalar code's bits too.
	var zero archsimd.Float32x4
	lo, hi := m.GetLo().Add(zero), m.GetHi()
	far := hi.AsUint32x4().Xor(archsimd.BroadcastUint32x4(1 << 31)).AsFloat32x4()
	bits := lo.LessEqual(far).ToBits()
	return lo.GetElem(0), lo.GetElem(2), bits&1 != 0, bits&4 != 0
}

// intersectVec is Intersect's BVH traversal with enterPairVec; h is the
// nearest hit so far (the planes'), r.TMax its distance.
func (s *Scene) intersectVec(r Ray, h Hit, rv *rayVec, c *TraversalCounts) Hit {
	nodes := s.Nodes
	lr := newLeafRay(&r)
	clamp := clampVec(r.TMax)
	type entry struct {
		node uint32
		t    float32
	}
	var stack [bvhStackSize]entry
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if c != nil {
			c.count(n)
		}
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			ta, tb, hitA, hitB := rv.enterPairVec(pairAt(nodes, a), clamp)
			if hitA && hitB {
				if tb < ta {
					a, b, ta, tb = b, a, tb, ta
				}
				stack[sp] = entry{b, tb}
				sp++
				node = a
				continue
			}
			if hitA {
				node = a
				continue
			}
			if hitB {
				node = b
				continue
			}
		} else {
			tMax := r.TMax
			if n.Info == LeafTriangles {
				s.leafVec(&r, &h, &lr, n.Index, n.Index+uint32(n.Count))
			} else {
				end := n.Index + uint32(n.Count)
				for i := n.Index; i < end; i++ {
					if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok && h.takesShape(t, i) {
						r.TMax = tieBound(t)
						h = Hit{T: t, Kind: HitShape, Index: i, HitCoords: HitCoords{B1: b1, B2: b2}}
					}
				}
			}
			if r.TMax != tMax {
				clamp = clampVec(r.TMax)
			}
		}
		// Pop the next subtree that may still hold a nearer hit.
		for {
			if sp == 0 {
				return h
			}
			sp--
			if stack[sp].t <= r.TMax {
				node = stack[sp].node
				break
			}
		}
	}
}

// pairAt returns the sibling pair at nodes[a], nodes[a+1]. It is
// nodes[a:a+2] without the slice's bounds arithmetic, which Go puts
// between the load of a and the load of the pair, the traversal's
// critical path; the index is still checked.
func pairAt(nodes []BVHNode, a uint32) *[2]BVHNode {
	_ = nodes[a+1]
	return (*[2]BVHNode)(unsafe.Pointer(&nodes[a]))
}

// occludedVec is Occluded's BVH traversal with enterPairVec.
func (s *Scene) occludedVec(r Ray, rv *rayVec, c *TraversalCounts) bool {
	nodes := s.Nodes
	lr := newLeafRay(&r)
	clamp := clampVec(r.TMax)
	var stack [bvhStackSize]uint32
	sp := 0
	node := uint32(0)
	for {
		n := &nodes[node]
		if c != nil {
			c.count(n)
		}
		if n.Count == 0 {
			a, b := n.Index, n.Index+1
			_, _, hitA, hitB := rv.enterPairVec(pairAt(nodes, a), clamp)
			if hitA && hitB {
				stack[sp] = b
				sp++
				node = a
				continue
			}
			if hitA {
				node = a
				continue
			}
			if hitB {
				node = b
				continue
			}
		} else if n.Info == LeafTriangles {
			if s.occludedLeafVec(&r, &lr, n.Index, n.Index+uint32(n.Count)) {
				return true
			}
		} else {
			end := n.Index + uint32(n.Count)
			for i := n.Index; i < end; i++ {
				if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
					return true
				}
			}
		}
		if sp == 0 {
			return false
		}
		sp--
		node = stack[sp]
	}
}
