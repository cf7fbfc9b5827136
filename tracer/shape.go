package tracer

import "github.com/go-gl/mathgl/mgl32"

// ShapeKind tells which kind of surface a Shape is.
type ShapeKind uint32

const (
	ShapeSphere ShapeKind = iota // P0 centre, P1[0] radius
	ShapeQuad                    // P0 corner, P1 edge1, P2 edge2, W = n/(n·n)
	ShapePlane                   // P0 point, P1 and P2 the unit tangent axes of (u, v)
	// NumShapeKinds counts the kinds, kept last: every ShapeKind is below it.
	NumShapeKinds
)

// Shape is one analytic surface of the compiled scene (triangles have their
// own arrays, see Triangle), in a layout shared with the kernel: a kind, a
// material index and fixed slots whose meaning depends on the kind (see
// ShapeKind). 72 bytes.
type Shape struct {
	Kind     ShapeKind
	Material uint32
	Area     float32 // surface area, for sampling emissive shapes
	P0       vec3
	P1       vec3
	P2       vec3
	N        vec3 // unit geometric normal (quad, plane); zero for spheres
	W        vec3 // quad: (e1×e2)/|e1×e2|²
}

// bounds returns the shape's axis-aligned bounding box. Planes have none.
func (s *Shape) bounds() (lo, hi vec3) {
	switch s.Kind {
	case ShapeSphere:
		r := s.P1[0]
		return s.P0.Sub(vec3{r, r, r}), s.P0.Add(vec3{r, r, r})
	case ShapeQuad:
		a, b, c, d := s.P0, s.P0.Add(s.P1), s.P0.Add(s.P2), s.P0.Add(s.P1).Add(s.P2)
		return vmin(vmin(a, b), vmin(c, d)), vmax(vmax(a, b), vmax(c, d))
	}
	return vec3{-infinity, -infinity, -infinity}, vec3{infinity, infinity, infinity}
}

func vmin(a, b vec3) vec3 { return vec3{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])} }
func vmax(a, b vec3) vec3 { return vec3{max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])} }

// intersect returns the ray parameter of the nearest hit in (tMin, r.TMax)
// and the surface coordinates (b1, b2) the hit needs later, or ok = false.
// tMin is 0: rays are spawned off their surfaces (see spawn).
func (s *Shape) intersect(r *Ray) (t, b1, b2 float32, ok bool) {
	switch s.Kind {
	case ShapeSphere:
		t, ok = intersectSphere(s, r)
	case ShapeQuad:
		t, b1, b2, ok = intersectQuad(s, r)
	case ShapePlane:
		t, ok = intersectPlane(s, r)
	}
	return
}

// The intersection tests below are written in scalars, not vec3: Go keeps
// arrays in memory, and writing a vector's elements one by one and then
// reading it back as a whole stalls on store forwarding. Each is the
// vector form's arithmetic (dot, cross, Sub, madd), operation for
// operation, products rounded on their own, so the results are the same.

// intersectSphere solves |o + t·d − c|² = r² with the numerically careful
// form of Haines et al., "Precision Improvements for Ray/Sphere
// Intersection" (Ray Tracing Gems, 2019): the discriminant from the distance
// of the centre to the line, and the nearer root from c/q.
func intersectSphere(s *Shape, r *Ray) (float32, bool) {
	rad := s.P1[0]
	dx, dy, dz := r.Dir[0], r.Dir[1], r.Dir[2]
	// oc = o − c
	ocx, ocy, ocz := r.Origin[0]-s.P0[0], r.Origin[1]-s.P0[1], r.Origin[2]-s.P0[2]
	a := float32(dx*dx) + float32(dy*dy) + float32(dz*dz)
	b := float32(ocx*dx) + float32(ocy*dy) + float32(ocz*dz) // half of the usual b
	// l = oc − d·b/a, the centre's offset from the line
	m := -(b / a)
	lx, ly, lz := ocx+float32(dx*m), ocy+float32(dy*m), ocz+float32(dz*m)
	disc := float32(rad*rad) - (float32(lx*lx) + float32(ly*ly) + float32(lz*lz))
	if disc < 0 {
		return 0, false
	}
	c := (float32(ocx*ocx) + float32(ocy*ocy) + float32(ocz*ocz)) - float32(rad*rad)
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

// intersectQuad hits the quad's plane and keeps the hit when both edge
// fractions lie in [0, 1].
func intersectQuad(s *Shape, r *Ray) (t, a, b float32, ok bool) {
	nx, ny, nz := s.N[0], s.N[1], s.N[2]
	dx, dy, dz := r.Dir[0], r.Dir[1], r.Dir[2]
	denom := float32(nx*dx) + float32(ny*dy) + float32(nz*dz)
	if denom == 0 {
		return 0, 0, 0, false
	}
	ox, oy, oz := r.Origin[0], r.Origin[1], r.Origin[2]
	px, py, pz := s.P0[0], s.P0[1], s.P0[2]
	t = (float32(nx*(px-ox)) + float32(ny*(py-oy)) + float32(nz*(pz-oz))) / denom
	if !(t > 0 && t < r.TMax) {
		return 0, 0, 0, false
	}
	// q = r.At(t) − P0
	qx, qy, qz := (ox+float32(dx*t))-px, (oy+float32(dy*t))-py, (oz+float32(dz*t))-pz
	wx, wy, wz := s.W[0], s.W[1], s.W[2]
	// a = W·(q × P2)
	ex, ey, ez := s.P2[0], s.P2[1], s.P2[2]
	cx, cy, cz := float32(qy*ez)-float32(qz*ey), float32(qz*ex)-float32(qx*ez), float32(qx*ey)-float32(qy*ex)
	a = float32(wx*cx) + float32(wy*cy) + float32(wz*cz)
	// b = W·(P1 × q)
	ex, ey, ez = s.P1[0], s.P1[1], s.P1[2]
	cx, cy, cz = float32(ey*qz)-float32(ez*qy), float32(ez*qx)-float32(ex*qz), float32(ex*qy)-float32(ey*qx)
	b = float32(wx*cx) + float32(wy*cy) + float32(wz*cz)
	if a < 0 || a > 1 || b < 0 || b > 1 {
		return 0, 0, 0, false
	}
	return t, a, b, true
}

// intersectPlane hits an infinite plane.
func intersectPlane(s *Shape, r *Ray) (float32, bool) {
	nx, ny, nz := s.N[0], s.N[1], s.N[2]
	denom := float32(nx*r.Dir[0]) + float32(ny*r.Dir[1]) + float32(nz*r.Dir[2])
	if denom == 0 {
		return 0, false
	}
	t := (float32(nx*(s.P0[0]-r.Origin[0])) + float32(ny*(s.P0[1]-r.Origin[1])) + float32(nz*(s.P0[2]-r.Origin[2]))) / denom
	if !(t > 0 && t < r.TMax) {
		return 0, false
	}
	return t, true
}

// surface returns the geometric normal (unit, on the shape's outward
// side) and the (u, v) coordinates at the hit point (p0, p1, p2), of a
// triangle-less shape found with barycentrics b1, b2 (a quad's). It takes
// and returns scalars, which the compiler passes in registers (a vec3, an
// array, it passes on the stack): the operations of p.Sub, normalize and
// dot, in their order.
func (s *Shape) surface(p0, p1, p2, b1, b2 float32) (n0, n1, n2, u, v float32) {
	switch s.Kind {
	case ShapeSphere:
		rad := s.P1[0]
		n0, n1, n2 = normalizeXYZ((p0-s.P0[0])/rad, (p1-s.P0[1])/rad, (p2-s.P0[2])/rad)
		u, v = sphereUV(n0, n1, n2)
	case ShapeQuad:
		n0, n1, n2, u, v = s.N[0], s.N[1], s.N[2], b1, b2
	case ShapePlane:
		d0, d1, d2 := p0-s.P0[0], p1-s.P0[1], p2-s.P0[2]
		n0, n1, n2 = s.N[0], s.N[1], s.N[2]
		u = float32(d0*s.P1[0]) + float32(d1*s.P1[1]) + float32(d2*s.P1[2])
		v = float32(d0*s.P2[0]) + float32(d1*s.P2[1]) + float32(d2*s.P2[2])
	}
	return n0, n1, n2, u, v
}

// newSphere, newQuad and newPlane build compiled shapes.

func newSphere(c mgl32.Vec3, r float32, m uint32) Shape {
	return Shape{Kind: ShapeSphere, Material: m, P0: c, P1: vec3{r, 0, 0},
		Area: float32(float32(4*pi*r) * r)}
}

func newQuad(corner, e1, e2 mgl32.Vec3, m uint32) Shape {
	n := cross(e1, e2)
	nn := dot(n, n)
	l := sqrt32(nn)
	return Shape{Kind: ShapeQuad, Material: m, P0: corner, P1: e1, P2: e2,
		N: normalize(n), W: vec3{n[0] / nn, n[1] / nn, n[2] / nn}, Area: l}
}

func newPlane(p, normal mgl32.Vec3, m uint32) Shape {
	n := normalize(normal)
	// Tangent axes: +x made orthogonal to n (or +z when n is close to ±x),
	// then t × n; for a horizontal plane with normal +y they are +x and +z.
	ref := vec3{1, 0, 0}
	if absf(n[0]) > 0.9 {
		ref = vec3{0, 0, 1}
	}
	t := normalize(madd(ref, n, -dot(ref, n)))
	b := cross(t, n)
	return Shape{Kind: ShapePlane, Material: m, P0: p, P1: t, P2: b, N: n}
}
