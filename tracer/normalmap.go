package tracer

import (
	"math"

	"github.com/tracerender/trace/internal/vec64"
)

// Tangent is a mesh vertex's tangent frame for normal mapping: T the
// direction of increasing u (unit, orthogonal to the vertex normal), W = ±1
// the handedness, the bitangent (increasing v) being W·(N × T). 16 bytes.
// Scene.Tangents[i] belongs to Scene.Vertices[i]; only the vertices of
// meshes whose material has a normal map have one (they come first in
// Vertices).
type Tangent struct {
	T vec3
	W float32
}

// normalMapMinCos is the smallest cosine a normal-mapped shading normal
// keeps with the direction toward the viewer: a normal tilted further away
// is pulled toward the viewer until it reaches it (see normalMap).
const normalMapMinCos = 0.01

// normalMap perturbs sf.ns, the unit shading normal on the surface's front
// side, by the normal map of sf's material at (sf.u, sf.v), given the
// tangent t (the direction of increasing u, not necessarily unit nor
// orthogonal to sf.ns) and the handedness w (its sign). With (x, y, z) = 2 ×
// texel − 1 and s the material's NormalScale, the new normal is
// normalize(T·x·s + B·y·s + N·z), T the unit tangent made orthogonal to N
// (Gram–Schmidt) and B = sign(w)·(N × T). A zero tangent, a flat texel
// (x = y = 0, z > 0) or a zero result leave the normal as it is. It sets sf.mapped when the normal changed.
func (s *Scene) normalMap(sf *surfaceHit, t vec3, w float32) {
	n := sf.ns
	t = normalize(madd(t, n, -dot(n, t)))
	if t == (vec3{}) {
		return
	}
	b := cross(n, t)
	if w < 0 {
		b = vec3{-b[0], -b[1], -b[2]}
	}
	m := sf.m
	c := s.textureOf(int32(m.NormalMap-1), &sf.texCoords)
	x := float32((float32(2*c[0]) - 1) * m.NormalScale)
	y := float32((float32(2*c[1]) - 1) * m.NormalScale)
	z := float32(2*c[2]) - 1
	if x == 0 && y == 0 && z > 0 {
		return // a flat texel, (0.5, 0.5, 1): the normal as it is, exactly
	}
	p := normalize(madd(madd(scale(t, x), b, y), n, z))
	if p == (vec3{}) {
		return
	}
	sf.ns, sf.mapped = p, true
}

// shapeTangent returns the direction of increasing u on shape sh at the
// point whose outward unit normal is n, and the handedness: a sphere's
// longitude direction (zero at the poles), a quad's edge1, a plane's first
// tangent axis (whose v axis is T × N, hence w = −1).
func shapeTangent(sh *Shape, n vec3) (t vec3, w float32) {
	switch sh.Kind {
	case ShapeSphere:
		// u = (atan2(−z, x) + π)/2π grows toward (z, 0, −x); v grows up.
		return vec3{n[2], 0, -n[0]}, 1
	case ShapeQuad:
		return sh.P1, 1
	}
	return sh.P1, -1
}

// meshUsesNormalMap reports whether a triangle of m has a material with a
// normal map.
func meshUsesNormalMap(d *SceneDesc, m *MeshDesc) bool {
	if len(m.Materials) == 0 {
		return d.Materials[m.Material].NormalMap != 0
	}
	for _, k := range m.Materials {
		if d.Materials[k].NormalMap != 0 {
			return true
		}
	}
	return false
}

// meshTangents returns m's tangents: its own Tangents, unit and
// orthogonalised against its normals, or ComputeTangents' when it has none.
func meshTangents(m *MeshDesc) []Tangent {
	if len(m.Tangents) == 0 {
		return ComputeTangents(m)
	}
	normals := vertexNormals(m)
	out := make([]Tangent, len(m.Positions))
	for i, t := range m.Tangents {
		w := float32(1)
		if t[3] < 0 {
			w = -1
		}
		out[i] = Tangent{T: orthoTangent(normals[i], [3]float64{float64(t[0]), float64(t[1]), float64(t[2])}), W: w}
	}
	return out
}

// ComputeTangents returns per-vertex tangents of a mesh with UVs, in the
// manner of MikkTSpace (Mikkelsen, "Simulation of Wrinkled Surfaces
// Revisited", 2008): each triangle's tangent and bitangent are the
// directions of increasing u and v, from its edges and UV differences;
// each vertex sums its triangles' tangents and bitangents, projected onto
// the plane of the vertex normal, normalised and weighted by the
// triangle's area (MikkTSpace weighs by the angle at the vertex); the sum is normalised, and the
// handedness is the sign of the summed bitangent along N × T. The vertex
// normal is the mesh's, or the area-weighted sum of the face normals for
// a mesh without normals. Unlike MikkTSpace it never splits a vertex: a
// vertex shared by triangles of opposite UV orientation or of very
// different tangents gets their average. A vertex with no usable tangent
// (its triangles' UVs degenerate) gets an arbitrary one orthogonal to N.
// The arithmetic is float64, each product rounded on its own, so the
// result is the same on every machine.
func ComputeTangents(m *MeshDesc) []Tangent {
	normals := vertexNormals(m)
	nv := len(m.Positions)
	tsum := make([][3]float64, nv)
	bsum := make([][3]float64, nv)
	for t := 0; t+2 < len(m.Indices); t += 3 {
		idx := [3]uint32{m.Indices[t], m.Indices[t+1], m.Indices[t+2]}
		var p [3][3]float64
		var uv [3][2]float64
		for k, i := range idx {
			q := m.Positions[i]
			p[k] = [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
			uv[k] = [2]float64{float64(m.UVs[i][0]), float64(m.UVs[i][1])}
		}
		e1, e2 := vec64.Sub(p[1], p[0]), vec64.Sub(p[2], p[0])
		du1, dv1 := uv[1][0]-uv[0][0], uv[1][1]-uv[0][1]
		du2, dv2 := uv[2][0]-uv[0][0], uv[2][1]-uv[0][1]
		det := float64(du1*dv2) - float64(du2*dv1)
		if det == 0 || math.IsInf(det, 0) || math.IsNaN(det) {
			continue
		}
		// dP/du = (e1·dv2 − e2·dv1)/det, dP/dv = (e2·du1 − e1·du2)/det.
		var sdir, tdir [3]float64
		for k := range 3 {
			sdir[k] = (float64(e1[k]*dv2) - float64(e2[k]*dv1)) / det
			tdir[k] = (float64(e2[k]*du1) - float64(e1[k]*du2)) / det
		}
		// Weighted by area (twice it): no transcendental function, so
		// nothing that could differ between math libraries.
		a := math.Sqrt(vec64.Dot(vec64.Cross(e1, e2), vec64.Cross(e1, e2)))
		for _, i := range idx {
			n := normals[i]
			ts, bs := unit64(project64(sdir, n)), unit64(project64(tdir, n))
			for c := range 3 {
				tsum[i][c] += float64(ts[c] * a)
				bsum[i][c] += float64(bs[c] * a)
			}
		}
	}
	out := make([]Tangent, nv)
	for i := range out {
		n := normals[i]
		out[i].T = orthoTangent(n, tsum[i])
		tn := [3]float64{float64(out[i].T[0]), float64(out[i].T[1]), float64(out[i].T[2])}
		out[i].W = 1
		if vec64.Dot(vec64.Cross(n, tn), bsum[i]) < 0 {
			out[i].W = -1
		}
	}
	return out
}

// vertexNormals returns m's unit vertex normals in float64: its own, or
// for a mesh without them the normalised area-weighted sum of the faces'.
func vertexNormals(m *MeshDesc) [][3]float64 {
	out := make([][3]float64, len(m.Positions))
	if len(m.Normals) > 0 {
		for i, n := range m.Normals {
			out[i] = unit64([3]float64{float64(n[0]), float64(n[1]), float64(n[2])})
		}
		return out
	}
	for t := 0; t+2 < len(m.Indices); t += 3 {
		i0, i1, i2 := m.Indices[t], m.Indices[t+1], m.Indices[t+2]
		p0 := vec64.Of(m.Positions[i0])
		fn := vec64.Cross(vec64.Sub(vec64.Of(m.Positions[i1]), p0), vec64.Sub(vec64.Of(m.Positions[i2]), p0))
		for _, i := range [3]uint32{i0, i1, i2} {
			for c := range 3 {
				out[i][c] += fn[c]
			}
		}
	}
	for i := range out {
		out[i] = unit64(out[i])
	}
	return out
}

// orthoTangent returns t made orthogonal to the unit normal n and
// normalised, as float32; when that leaves nothing, any unit vector
// orthogonal to n (zero when n is zero).
func orthoTangent(n, t [3]float64) vec3 {
	q := unit64(project64(t, n))
	if q == ([3]float64{}) {
		ref := [3]float64{1, 0, 0}
		if math.Abs(n[0]) > 0.9 {
			ref = [3]float64{0, 1, 0}
		}
		q = unit64(project64(ref, n))
	}
	return vec3{float32(q[0]), float32(q[1]), float32(q[2])}
}

// project64 returns t minus its component along the unit vector n.
func project64(t, n [3]float64) [3]float64 {
	d := vec64.Dot(t, n)
	return [3]float64{t[0] - float64(n[0]*d), t[1] - float64(n[1]*d), t[2] - float64(n[2]*d)}
}

// unit64 returns a/|a|, or zero when a is zero or not finite.
func unit64(a [3]float64) [3]float64 {
	l := math.Sqrt(vec64.Dot(a, a))
	if !(l > 0) || math.IsInf(l, 0) {
		return [3]float64{}
	}
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}
