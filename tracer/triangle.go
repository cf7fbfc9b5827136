package tracer

// Triangle is a triangle as the intersection loop reads it: a vertex and
// the two edges from it, 36 bytes. Scene.Triangles is in BVH order, and
// Scene.TriangleAttrs[i] holds the shading data of Scene.Triangles[i].
type Triangle struct {
	P0 vec3
	E1 vec3 // v1 − v0
	E2 vec3 // v2 − v0
}

// TriangleAttr is what shading needs of a triangle, read once per closest
// hit: its material and, when Flags says so, the indices of its vertices'
// normals and (u, v) in Scene.Vertices. 20 bytes.
type TriangleAttr struct {
	V        [3]uint32
	Material uint32
	Flags    uint32 // TriangleSmooth | TriangleUV
}

// TriangleAttr.Flags bits.
const (
	TriangleSmooth uint32 = 1 << iota // interpolate Vertices[V[i]].N
	TriangleUV                        // interpolate Vertices[V[i]].UV
)

// Vertex holds a mesh vertex's shading attributes.
type Vertex struct {
	N  vec3       // unit normal
	UV [2]float32 // texture coordinates
}

// intersect is Möller and Trumbore's test ("Fast, Minimum Storage
// Ray/Triangle Intersection", 1997); (b1, b2) are the barycentric weights of
// vertices 1 and 2. Triangles are two-sided; a degenerate triangle is never
// hit.
func (tr *Triangle) intersect(r *Ray) (t, b1, b2 float32, ok bool) {
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

// bounds returns the triangle's bounding box.
func (tr *Triangle) bounds() (lo, hi vec3) {
	a, b, c := tr.P0, tr.P0.Add(tr.E1), tr.P0.Add(tr.E2)
	return vmin(vmin(a, b), c), vmax(vmax(a, b), c)
}

// area returns the triangle's area.
func (tr *Triangle) area() float32 { return 0.5 * length(cross(tr.E1, tr.E2)) }

// samplePoint returns a point uniformly distributed over the triangle and
// its barycentric weights (b1, b2).
func (tr *Triangle) samplePoint(u1, u2 float32) (p vec3, b1, b2 float32) {
	su := sqrt32(u1)
	b1, b2 = float32(su*(1-u2)), float32(su*u2)
	return madd(madd(tr.P0, tr.E1, b1), tr.E2, b2), b1, b2
}
