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
// surface it leaves, so it does not hit that surface again through rounding:
// 1e-4 of the larger of 1 and the hit point's largest coordinate.
const spawnOffset = 1e-4

// spawn returns a ray leaving point p, on the side of the geometric normal n
// that dir points to.
func spawn(p, n, dir vec3) Ray {
	eps := float32(spawnOffset) * (1 + max(absf(p[0]), absf(p[1]), absf(p[2])))
	if dot(dir, n) < 0 {
		eps = -eps
	}
	return Ray{Origin: madd(p, n, eps), Dir: dir, TMax: infinity}
}

// spawnTo returns a shadow ray from p toward the point q, ending just short
// of it, and the distance to q.
func spawnTo(p, n, q vec3) (Ray, float32) {
	d := q.Sub(p)
	dist := length(d)
	dir := vec3{d[0] / dist, d[1] / dist, d[2] / dist}
	r := spawn(p, n, dir)
	r.TMax = float32(dist * (1 - 1e-4))
	return r, dist
}
