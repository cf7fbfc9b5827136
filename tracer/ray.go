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
	return spawnEpsilonXYZ(p[0], p[1], p[2], o[0], o[1], o[2])
}

// spawnEpsilonXYZ is spawnEpsilon on scalars, which the compiler passes
// in registers (a vec3, an array, it passes on the stack).
func spawnEpsilonXYZ(p0, p1, p2, o0, o1, o2 float32) float32 {
	mp := max(absf(p0), absf(p1), absf(p2))
	mo := max(absf(o0), absf(o1), absf(o2))
	return float32(spawnOffset) * max(mp, float32(mo*0.0625))
}

// spawn returns a ray leaving point p, pushed eps off the surface along the
// geometric normal n on the side that dir points to.
func spawn(p, n vec3, eps float32, dir vec3) Ray {
	// dot and madd written out, which lets the compiler inline spawn.
	if float32(dir[0]*n[0])+float32(dir[1]*n[1])+float32(dir[2]*n[2]) < 0 {
		eps = -eps
	}
	return Ray{Origin: vec3{p[0] + float32(n[0]*eps), p[1] + float32(n[1]*eps), p[2] + float32(n[2]*eps)}, Dir: dir, TMax: infinity}
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
	// In scalars: the same operations as Sub, length, dot and madd, in
	// their order.
	dx, dy, dz := q[0]-p[0], q[1]-p[1], q[2]-p[2]
	dist = sqrt32(float32(dx*dx) + float32(dy*dy) + float32(dz*dz))
	ux, uy, uz := dx/dist, dy/dist, dz/dist
	if float32(ux*n[0])+float32(uy*n[1])+float32(uz*n[2]) < 0 {
		eps = -eps
	}
	ox, oy, oz := p[0]+float32(n[0]*eps), p[1]+float32(n[1]*eps), p[2]+float32(n[2]*eps)
	dx, dy, dz = q[0]-ox, q[1]-oy, q[2]-oz
	l := sqrt32(float32(dx*dx) + float32(dy*dy) + float32(dz*dz))
	return Ray{Origin: vec3{ox, oy, oz}, Dir: vec3{dx / l, dy / l, dz / l}, TMax: float32(l * shadowShorten)}, vec3{ux, uy, uz}, dist
}

// shadowRayFrom returns the ray that tests whether the point q of a
// surface (unit normal nq, either side) and the point p (geometric normal
// n, offset eps) see each other: it leaves q pushed off q's surface toward
// p and ends just short of p pushed eps off its own. Starting on the light
// lets neither surface hide the other: a ray leaving a convex emitter, or
// a flat one, cannot meet it again, however large the pushes are, while a
// ray from p's pushed origin toward a sphere's sampled point can graze
// the sphere's near side first.
func shadowRayFrom(q, nq, p, n *vec3, eps float32) Ray {
	// In scalars (vec3 is an array, which the compiler keeps in memory,
	// and the vectors are pointers, not copied): the same operations as
	// madd, dot, Sub and length, in their order.
	ox, oy, oz := p[0]+float32(n[0]*eps), p[1]+float32(n[1]*eps), p[2]+float32(n[2]*eps)
	if float32((q[0]-ox)*n[0])+float32((q[1]-oy)*n[1])+float32((q[2]-oz)*n[2]) < 0 {
		ne := -eps
		ox, oy, oz = p[0]+float32(n[0]*ne), p[1]+float32(n[1]*ne), p[2]+float32(n[2]*ne)
	}
	eq := spawnEpsilonXYZ(q[0], q[1], q[2], p[0], p[1], p[2])
	if float32((ox-q[0])*nq[0])+float32((oy-q[1])*nq[1])+float32((oz-q[2])*nq[2]) < 0 {
		eq = -eq
	}
	qx, qy, qz := q[0]+float32(nq[0]*eq), q[1]+float32(nq[1]*eq), q[2]+float32(nq[2]*eq)
	dx, dy, dz := ox-qx, oy-qy, oz-qz
	l := sqrt32(float32(dx*dx) + float32(dy*dy) + float32(dz*dz))
	return Ray{Origin: vec3{qx, qy, qz}, Dir: vec3{dx / l, dy / l, dz / l}, TMax: float32(l * shadowShorten)}
}
