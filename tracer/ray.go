package tracer

// Ray is a half-line Origin + t·Dir for t in (0, TMax). Dir is a unit vector.
type Ray struct {
	Origin vec3
	Dir    vec3
	TMax   float32
}

// At returns the point at parameter t.
func (r *Ray) At(t float32) vec3 { return madd(r.Origin, r.Dir, t) }

// infinity is the TMax of a ray with no far end.
const infinity = float32(3.4e38)

// spawnOffset is the relative distance a new ray's origin is pushed off the
// surface it leaves, so that it does not hit that surface again through
// rounding: 1e-4 of the hit point's largest coordinate, or 1/16 of that of
// the ray that found it (the point's rounding error grows with both), so
// that a scene moved or scaled renders the same picture.
const spawnOffset = 1e-5

// spawnEpsilon returns the offset of rays leaving the point p found by a
// ray from origin o.
func spawnEpsilon(p, o vec3) float32 {
	mp := max(absf(p[0]), absf(p[1]), absf(p[2]))
	mo := max(absf(o[0]), absf(o[1]), absf(o[2]))
	return float32(spawnOffset) * max(mp, float32(mo*0.0625))
}

// spawn returns a ray leaving point p, pushed eps off the surface along the
// geometric normal n on the side that dir points to.
func spawn(p, n vec3, eps float32, dir vec3) Ray {
	if dot(dir, n) < 0 {
		eps = -eps
	}
	return Ray{Origin: madd(p, n, eps), Dir: dir, TMax: infinity}
}

// shadowShorten ends a shadow ray this fraction short of its target, so
// that the surface of a sampled light does not hide itself.
const shadowShorten = 1 - 1e-4

// spawnTo returns the unit direction and the distance from p to the point
// q, which shading uses, and a shadow ray toward q for the visibility test:
// it leaves p pushed eps off the surface (as spawn) and ends just short of
// q, measured from its own origin, so the push never makes it reach q's
// surface.
func spawnTo(p, n vec3, eps float32, q vec3) (r Ray, dir vec3, dist float32) {
	d := q.Sub(p)
	dist = length(d)
	dir = vec3{d[0] / dist, d[1] / dist, d[2] / dist}
	if dot(dir, n) < 0 {
		eps = -eps
	}
	o := madd(p, n, eps)
	d = q.Sub(o)
	l := length(d)
	return Ray{Origin: o, Dir: vec3{d[0] / l, d[1] / l, d[2] / l}, TMax: float32(l * shadowShorten)}, dir, dist
}

// shadowRayFrom returns the ray that tests whether the point q of a
// surface (unit normal nq, either side) and the point p (geometric normal
// n, offset eps) see each other: it leaves q pushed off q's surface toward
// p and ends just short of p pushed eps off its own. Starting on the light
// lets neither surface hide the other: a ray leaving a convex emitter, or
// a flat one, cannot meet it again, however large the pushes are, while a
// ray from p's pushed origin toward a sphere's sampled point can graze
// the sphere's near side first.
func shadowRayFrom(q, nq, p, n vec3, eps float32) Ray {
	// In scalars (vec3 is an array, which the compiler keeps in memory):
	// the same operations as madd, dot, Sub and length, in their order.
	ox, oy, oz := p[0]+float32(n[0]*eps), p[1]+float32(n[1]*eps), p[2]+float32(n[2]*eps)
	if float32((q[0]-ox)*n[0])+float32((q[1]-oy)*n[1])+float32((q[2]-oz)*n[2]) < 0 {
		ne := -eps
		ox, oy, oz = p[0]+float32(n[0]*ne), p[1]+float32(n[1]*ne), p[2]+float32(n[2]*ne)
	}
	eq := spawnEpsilon(q, p)
	if float32((ox-q[0])*nq[0])+float32((oy-q[1])*nq[1])+float32((oz-q[2])*nq[2]) < 0 {
		eq = -eq
	}
	qx, qy, qz := q[0]+float32(nq[0]*eq), q[1]+float32(nq[1]*eq), q[2]+float32(nq[2]*eq)
	dx, dy, dz := ox-qx, oy-qy, oz-qz
	l := sqrt32(float32(dx*dx) + float32(dy*dy) + float32(dz*dz))
	return Ray{Origin: vec3{qx, qy, qz}, Dir: vec3{dx / l, dy / l, dz / l}, TMax: float32(l * shadowShorten)}
}
