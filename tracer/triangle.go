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
	Flags    uint32 // TriangleSmooth | TriangleUV | TriangleTangent
}

// TriangleAttr.Flags bits.
const (
	TriangleSmooth  uint32 = 1 << iota // interpolate Vertices[V[i]].N
	TriangleUV                         // interpolate Vertices[V[i]].UV
	TriangleUV1                        // interpolate Scene.UV1[V[i]]: texture coordinate set 1
	TriangleColor                      // interpolate Scene.Colors[V[i]]: the vertex colour
	TriangleTangent                    // interpolate Tangents[V[i]] (normal-mapped meshes)
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
	// In scalars, not vec3: Go keeps arrays in memory, and writing a
	// vector's three floats then reading them back as wider words stalls
	// every operation on store forwarding. The arithmetic is cross, dot
	// and Sub's, operation for operation, so the results are the same.
	dx, dy, dz := r.Dir[0], r.Dir[1], r.Dir[2]
	e2x, e2y, e2z := tr.E2[0], tr.E2[1], tr.E2[2]
	// p = cross(Dir, E2)
	px := float32(dy*e2z) - float32(dz*e2y)
	py := float32(dz*e2x) - float32(dx*e2z)
	pz := float32(dx*e2y) - float32(dy*e2x)
	e1x, e1y, e1z := tr.E1[0], tr.E1[1], tr.E1[2]
	det := float32(e1x*px) + float32(e1y*py) + float32(e1z*pz)
	inv := 1 / det
	// tv = Origin − P0
	tx, ty, tz := r.Origin[0]-tr.P0[0], r.Origin[1]-tr.P0[1], r.Origin[2]-tr.P0[2]
	b1 = float32((float32(tx*px) + float32(ty*py) + float32(tz*pz)) * inv)
	// q = cross(tv, E1)
	qx := float32(ty*e1z) - float32(tz*e1y)
	qy := float32(tz*e1x) - float32(tx*e1z)
	qz := float32(tx*e1y) - float32(ty*e1x)
	b2 = float32((float32(dx*qx) + float32(dy*qy) + float32(dz*qz)) * inv)
	t = float32((float32(e2x*qx) + float32(e2y*qy) + float32(e2z*qz)) * inv)
	// Every test at once, in one branch: which of them fails is random
	// from ray to ray, and a mispredicted early exit costs more than the
	// arithmetic it saves. A zero det makes inv infinite and the rest
	// meaningless, but the result is still a miss.
	miss := bit(det == 0) | bit(b1 < 0) | bit(b1 > 1) | bit(b2 < 0) | bit(b1+b2 > 1) | bit(!(t > 0)) | bit(!(t < r.TMax))
	if miss != 0 {
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
