package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The intersection tests in their vector form (dot, cross, Sub, madd):
// the readable reference that the scalar code in triangle.go and
// shape.go must match bit for bit.

func refTriangle(tr *Triangle, r *Ray) (t, b1, b2 float32, ok bool) {
	p := cross(r.Dir, tr.E2)
	det := dot(tr.E1, p)
	if det == 0 {
		return 0, 0, 0, false
	}
	inv := 1 / det
	tv := r.Origin.Sub(tr.P0)
	b1 = float32(dot(tv, p) * inv)
	if b1 < 0 || b1 > 1 {
		return 0, 0, 0, false
	}
	q := cross(tv, tr.E1)
	b2 = float32(dot(r.Dir, q) * inv)
	if b2 < 0 || b1+b2 > 1 {
		return 0, 0, 0, false
	}
	t = float32(dot(tr.E2, q) * inv)
	if !(t > 0 && t < r.TMax) {
		return 0, 0, 0, false
	}
	return t, b1, b2, true
}

func refSphere(s *Shape, r *Ray) (float32, bool) {
	rad := s.P1[0]
	oc := r.Origin.Sub(s.P0)
	a := dot(r.Dir, r.Dir)
	b := dot(oc, r.Dir)
	l := madd(oc, r.Dir, -(b / a))
	disc := float32(rad*rad) - dot(l, l)
	if disc < 0 {
		return 0, false
	}
	c := dot(oc, oc) - float32(rad*rad)
	sq := sqrt32(float32(a * disc))
	q := -b - sq
	if b < 0 {
		q = -b + sq
	}
	var t0, t1 float32
	if q == 0 {
		t0, t1 = 0, 0
	} else {
		t0, t1 = c/q, q/a
	}
	if t0 > t1 {
		t0, t1 = t1, t0
	}
	if t0 > 0 && t0 < r.TMax {
		return t0, true
	}
	if t1 > 0 && t1 < r.TMax {
		return t1, true
	}
	return 0, false
}

func refQuad(s *Shape, r *Ray) (t, a, b float32, ok bool) {
	denom := dot(s.N, r.Dir)
	if denom == 0 {
		return 0, 0, 0, false
	}
	t = dot(s.N, s.P0.Sub(r.Origin)) / denom
	if !(t > 0 && t < r.TMax) {
		return 0, 0, 0, false
	}
	q := r.At(t).Sub(s.P0)
	a = dot(s.W, cross(q, s.P2))
	b = dot(s.W, cross(s.P1, q))
	if a < 0 || a > 1 || b < 0 || b > 1 {
		return 0, 0, 0, false
	}
	return t, a, b, true
}

func refPlane(s *Shape, r *Ray) (float32, bool) {
	denom := dot(s.N, r.Dir)
	if denom == 0 {
		return 0, false
	}
	t := dot(s.N, s.P0.Sub(r.Origin)) / denom
	if !(t > 0 && t < r.TMax) {
		return 0, false
	}
	return t, true
}

// TestIntersectMatchesVectorForm: the scalar intersection tests return
// the same bits as their vector forms on random rays (some with a short
// TMax) and random triangles, spheres, quads and planes.
func TestIntersectMatchesVectorForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rv := func() vec3 { return vec3{rng.Float32()*4 - 2, rng.Float32()*4 - 2, rng.Float32()*4 - 2} }
	b := func(x float32) uint32 { return math.Float32bits(x) }
	hits := [4]int{}
	for i := 0; i < 300000; i++ {
		r := Ray{Origin: rv(), Dir: normalize(rv()), TMax: infinity}
		if i%3 == 0 {
			r.TMax = rng.Float32() * 3
		}
		tr := Triangle{P0: rv(), E1: rv(), E2: rv()}
		t1, a1, c1, ok1 := tr.intersect(&r)
		t2, a2, c2, ok2 := refTriangle(&tr, &r)
		if ok1 != ok2 || b(t1) != b(t2) || b(a1) != b(a2) || b(c1) != b(c2) {
			t.Fatalf("ray %d, triangle: (%v, %v, %v, %v), vector form (%v, %v, %v, %v)", i, t1, a1, c1, ok1, t2, a2, c2, ok2)
		}
		hits[0] += b2i(ok1)
		sp := newSphere(rv(), rng.Float32()*2, 0)
		st1, sok1 := intersectSphere(&sp, &r)
		st2, sok2 := refSphere(&sp, &r)
		hits[1] += b2i(sok1)
		if sok1 != sok2 || b(st1) != b(st2) {
			t.Fatalf("ray %d, sphere: (%v, %v), vector form (%v, %v)", i, st1, sok1, st2, sok2)
		}
		q := newQuad(rv(), rv(), rv(), 0)
		qt1, qa1, qb1, qok1 := intersectQuad(&q, &r)
		qt2, qa2, qb2, qok2 := refQuad(&q, &r)
		hits[2] += b2i(qok1)
		if qok1 != qok2 || b(qt1) != b(qt2) || b(qa1) != b(qa2) || b(qb1) != b(qb2) {
			t.Fatalf("ray %d, quad: (%v, %v, %v, %v), vector form (%v, %v, %v, %v)", i, qt1, qa1, qb1, qok1, qt2, qa2, qb2, qok2)
		}
		pl := newPlane(rv(), rv(), 0)
		pt1, pok1 := intersectPlane(&pl, &r)
		pt2, pok2 := refPlane(&pl, &r)
		hits[3] += b2i(pok1)
		if pok1 != pok2 || b(pt1) != b(pt2) {
			t.Fatalf("ray %d, plane: (%v, %v), vector form (%v, %v)", i, pt1, pok1, pt2, pok2)
		}
	}
	// The hits are what the comparison is about: enough of each kind.
	for k, n := range hits {
		if n < 1000 {
			t.Errorf("only %d hits of kind %d", n, k)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
