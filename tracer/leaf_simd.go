//go:build goexperiment.simd && amd64

package tracer

import (
	"simd/archsimd"
	"unsafe"
)

// The triangles of a BVH leaf tested four at a time: Triangle.intersect's
// arithmetic in the lanes of 4-wide vectors, operation for operation
// (products rounded on their own: VMULPS, no FMA; the same order of sums;
// the same comparisons, false for NaN as in Go), so each lane holds the
// bits the scalar test computes for its triangle. In place of the scalar
// test's two unpredictable branches per triangle there is one, on whether
// any lane hit. The hits are then taken in the leaf's order with the
// scalar loop's rule, t < TMax as it shrinks and the tie rule (tie.go), so
// the hit kept is the one the scalar loop keeps (TestLeafVecMatchesScalar,
// TestVecTraversalMatchesScalar).

// leafRay is a ray's origin and direction, each component in every lane.
type leafRay struct {
	ox, oy, oz, dx, dy, dz archsimd.Float32x4
}

func newLeafRay(r *Ray) leafRay {
	return leafRay{
		archsimd.BroadcastFloat32x4(r.Origin[0]), archsimd.BroadcastFloat32x4(r.Origin[1]), archsimd.BroadcastFloat32x4(r.Origin[2]),
		archsimd.BroadcastFloat32x4(r.Dir[0]), archsimd.BroadcastFloat32x4(r.Dir[1]), archsimd.BroadcastFloat32x4(r.Dir[2]),
	}
}

// quad4 returns floats 0-3 and 4-7 of a Triangle (P0, E1[0]; E1[1:3],
// E2[0:2]) as vectors.
func quad4(tr *Triangle) (archsimd.Float32x4, archsimd.Float32x4) {
	p := (*[9]float32)(unsafe.Pointer(tr))
	return archsimd.LoadFloat32x4((*[4]float32)(p[0:4])), archsimd.LoadFloat32x4((*[4]float32)(p[4:8]))
}

// transpose4 returns the columns of the 4×4 matrix with rows a, b, c, d.
func transpose4(a, b, c, d archsimd.Float32x4) (archsimd.Float32x4, archsimd.Float32x4, archsimd.Float32x4, archsimd.Float32x4) {
	ab0, cd0 := a.SelectFromPair(0, 1, 4, 5, b), c.SelectFromPair(0, 1, 4, 5, d)
	ab1, cd1 := a.SelectFromPair(2, 3, 6, 7, b), c.SelectFromPair(2, 3, 6, 7, d)
	return ab0.SelectFromPair(0, 2, 4, 6, cd0), ab0.SelectFromPair(1, 3, 5, 7, cd0),
		ab1.SelectFromPair(0, 2, 4, 6, cd1), ab1.SelectFromPair(1, 3, 5, 7, cd1)
}

// hit4 tests r (lr) against the triangles a, b, c and d and returns a bit
// per lane whose triangle r hits within tMax, with the lanes' t, b1 and b2.
func hit4(lr *leafRay, a, b, c, d *Triangle, tMax float32) (bits uint8, t, b1, b2 archsimd.Float32x4) {
	r0a, r0b := quad4(a)
	r1a, r1b := quad4(b)
	r2a, r2b := quad4(c)
	r3a, r3b := quad4(d)
	p0x, p0y, p0z, e1x := transpose4(r0a, r1a, r2a, r3a)
	e1y, e1z, e2x, e2y := transpose4(r0b, r1b, r2b, r3b)
	var e2z archsimd.Float32x4
	e2z = e2z.SetElem(0, a.E2[2]).SetElem(1, b.E2[2]).SetElem(2, c.E2[2]).SetElem(3, d.E2[2])

	dx, dy, dz := lr.dx, lr.dy, lr.dz
	// p = cross(Dir, E2)
	px := dy.Mul(e2z).Sub(dz.Mul(e2y))
	py := dz.Mul(e2x).Sub(dx.Mul(e2z))
	pz := dx.Mul(e2y).Sub(dy.Mul(e2x))
	det := e1x.Mul(px).Add(e1y.Mul(py)).Add(e1z.Mul(pz))
	var zero archsimd.Float32x4
	ones := archsimd.BroadcastFloat32x4(1)
	inv := ones.Div(det)
	tx, ty, tz := lr.ox.Sub(p0x), lr.oy.Sub(p0y), lr.oz.Sub(p0z)
	b1 = tx.Mul(px).Add(ty.Mul(py)).Add(tz.Mul(pz)).Mul(inv)
	// q = cross(tv, E1)
	qx := ty.Mul(e1z).Sub(tz.Mul(e1y))
	qy := tz.Mul(e1x).Sub(tx.Mul(e1z))
	qz := tx.Mul(e1y).Sub(ty.Mul(e1x))
	b2 = dx.Mul(qx).Add(dy.Mul(qy)).Add(dz.Mul(qz)).Mul(inv)
	t = e2x.Mul(qx).Add(e2y.Mul(qy)).Add(e2z.Mul(qz)).Mul(inv)
	// Rejected as Triangle.intersect rejects: det == 0; b1 < 0 or b1 > 1;
	// b2 < 0 or b1 + b2 > 1; not (t > 0 and t < tMax).
	reject := det.Equal(zero).Or(b1.Less(zero)).Or(b1.Greater(ones)).
		Or(b2.Less(zero)).Or(b1.Add(b2).Greater(ones))
	accept := t.Greater(zero).And(t.Less(archsimd.BroadcastFloat32x4(tMax)))
	return accept.ToBits() &^ reject.ToBits(), t, b1, b2
}

// leafVec is Intersect's loop over the leaf's triangles Triangles[first:end]
// for a ray with nearest hit *h so far (r.TMax its tieBound).
func (s *Scene) leafVec(r *Ray, h *Hit, lr *leafRay, first, end uint32) {
	tris := s.Triangles[first:end]
	for i := 0; i < len(tris); i += 4 {
		a, b, c, d, n := group4SSE(tris, i)
		bits, t, b1, b2 := hit4(lr, a, b, c, d, r.TMax)
		bits &= 1<<n - 1
		if bits == 0 {
			continue
		}
		var ts, b1s, b2s [4]float32
		t.Store(&ts)
		b1.Store(&b1s)
		b2.Store(&b2s)
		for k := 0; k < n; k++ {
			if bits&(1<<k) != 0 && ts[k] < r.TMax && h.takesTriangle(ts[k], first+uint32(i+k)) {
				r.TMax = tieBound(ts[k])
				*h = Hit{T: ts[k], Kind: HitTriangle, Index: first + uint32(i+k), HitCoords: HitCoords{B1: b1s[k], B2: b2s[k]}}
			}
		}
	}
}

// occludedLeafVec reports whether r hits any of Triangles[first:end].
func (s *Scene) occludedLeafVec(r *Ray, lr *leafRay, first, end uint32) bool {
	tris := s.Triangles[first:end]
	for i := 0; i < len(tris); i += 4 {
		a, b, c, d, n := group4SSE(tris, i)
		if bits, _, _, _ := hit4(lr, a, b, c, d, r.TMax); bits&(1<<n-1) != 0 {
			return true
		}
	}
	return false
}
