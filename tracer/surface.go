package tracer

// surfaceHit is what the integrators need to know about a hit point.
type surfaceHit struct {
	p    vec3      // the point
	ng   vec3      // unit geometric normal, on the side the ray came from
	ns   vec3      // unit shading normal (interpolated on smooth meshes), on the same side
	u, v float32   // surface coordinates for textures
	eps  float32   // how far rays leaving the point start off the surface (spawnEpsilon)
	m    *Material // the surface's material
	// metal and rough are a metal's or pbr material's metallic and
	// roughness here (Scene.pbrParams).
	metal, rough float32
	// front is whether the ray hit the front of the surface: the outside
	// of a sphere, the side a quad's edge1 × edge2 or a triangle's
	// (v1−v0) × (v2−v0) points to, the side a plane's normal points to.
	// Glass is entered through its front.
	front bool
}

// surfaceAt returns the surface at hit h along r, which must be a hit.
func (s *Scene) surfaceAt(r *Ray, h *Hit) surfaceHit {
	sf := surfaceHit{p: r.At(h.T)}
	sf.eps = spawnEpsilon(sf.p, r.Origin)
	if h.Kind == HitTriangle {
		tr := &s.Triangles[h.Index]
		a := &s.TriangleAttrs[h.Index]
		sf.m = &s.Materials[a.Material]
		sf.ng = normalize(cross(tr.E1, tr.E2))
		sf.ns = sf.ng
		if a.Flags&TriangleSmooth != 0 {
			b0 := 1 - h.B1 - h.B2
			v0, v1, v2 := &s.Vertices[a.V[0]], &s.Vertices[a.V[1]], &s.Vertices[a.V[2]]
			n := normalize(madd(madd(scale(v0.N, b0), v1.N, h.B1), v2.N, h.B2))
			if n != (vec3{}) {
				if dot(n, sf.ng) < 0 {
					n = vec3{-n[0], -n[1], -n[2]}
				}
				sf.ns = n
			}
		}
		sf.u, sf.v = s.triangleUV(a, h.B1, h.B2)
	} else {
		sh := &s.Shapes[h.Index]
		sf.m = &s.Materials[sh.Material]
		sf.ng, sf.u, sf.v = sh.surface(sf.p, h.B1, h.B2)
		sf.ns = sf.ng
	}
	if k := sf.m.Kind; k == MaterialMetal || k == MaterialPBR {
		sf.metal, sf.rough = s.pbrParams(sf.m, sf.u, sf.v)
	}
	sf.front = !(dot(sf.ng, r.Dir) > 0)
	if !sf.front {
		sf.ng = vec3{-sf.ng[0], -sf.ng[1], -sf.ng[2]}
		sf.ns = vec3{-sf.ns[0], -sf.ns[1], -sf.ns[2]}
	}
	return sf
}

// triangleUV returns the surface coordinates of the point with barycentric
// weights (b1, b2) on a triangle: its vertices' interpolated (u, v), or
// (b1, b2) when it has none.
func (s *Scene) triangleUV(a *TriangleAttr, b1, b2 float32) (u, v float32) {
	if a.Flags&TriangleUV == 0 {
		return b1, b2
	}
	b0 := 1 - b1 - b2
	v0, v1, v2 := &s.Vertices[a.V[0]], &s.Vertices[a.V[1]], &s.Vertices[a.V[2]]
	u = float32(v0.UV[0]*b0) + float32(v1.UV[0]*b1) + float32(v2.UV[0]*b2)
	v = float32(v0.UV[1]*b0) + float32(v1.UV[1]*b1) + float32(v2.UV[1]*b2)
	return u, v
}
