package tracer

// surfaceHit is what the integrators need to know about a hit point.
type surfaceHit struct {
	p         vec3      // the point
	ng        vec3      // unit geometric normal, on the side the ray came from
	ns        vec3      // unit shading normal (interpolated on smooth meshes), on the same side
	texCoords           // what textures are looked up by: u, v (set 0), u1, v1 (set 1), tint
	eps       float32   // how far rays leaving the point start off the surface (spawnEpsilon)
	m         *Material // the surface's material
	// metal and rough are a metal's or pbr material's metallic and
	// roughness here (Scene.pbrParams).
	metal, rough float32
	// specF0 and specF90 are a metal's or pbr material's dielectric
	// reflectance at normal and grazing incidence here
	// (Scene.dielectricSpecular).
	specF0  vec3
	specF90 float32
	// clear and clearRough are a pbr material's clear coat and its
	// roughness here (Scene.clearcoatParams); 0 for a metal.
	clear, clearRough float32
	// front is whether the ray hit the front of the surface: the outside
	// of a sphere, the side a quad's edge1 × edge2 or a triangle's
	// (v1−v0) × (v2−v0) points to, the side a plane's normal points to.
	// Glass is entered through its front.
	front bool
	// mapped is whether a normal map set ns (normalmap.go): directions
	// below the geometric surface then scatter nothing, and a mirror or
	// glossy material's ns is bent so its mirror reflection stays above
	// the surface (validReflection).
	mapped bool
}

// surfaceAt sets *sf to the surface at hit h along r, which must be a
// hit. It fills the caller's surfaceHit rather than returning one: a
// result this large is copied through the stack.
func (s *Scene) surfaceAt(r *Ray, h *Hit, sf *surfaceHit) {
	// r.At(h.T) and spawnEpsilon, in scalars.
	px := r.Origin[0] + float32(r.Dir[0]*h.T)
	py := r.Origin[1] + float32(r.Dir[1]*h.T)
	pz := r.Origin[2] + float32(r.Dir[2]*h.T)
	*sf = surfaceHit{p: vec3{px, py, pz}}
	sf.eps = spawnEpsilonXYZ(px, py, pz, r.Origin[0], r.Origin[1], r.Origin[2])
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
		sf.texCoords = s.triangleCoords(a, h.B1, h.B2)
		if a.Flags&TriangleTangent != 0 && sf.m.NormalMap != 0 {
			b0 := 1 - h.B1 - h.B2
			t0, t1, t2 := &s.Tangents[a.V[0]], &s.Tangents[a.V[1]], &s.Tangents[a.V[2]]
			t := madd(madd(scale(t0.T, b0), t1.T, h.B1), t2.T, h.B2)
			w := float32(t0.W*b0) + float32(t1.W*h.B1) + float32(t2.W*h.B2)
			s.normalMap(sf, t, w)
		}
	} else {
		sh := &s.Shapes[h.Index]
		sf.m = &s.Materials[sh.Material]
		n0, n1, n2, u, v := sh.surface(px, py, pz, h.B1, h.B2)
		sf.ng = vec3{n0, n1, n2}
		sf.ns = sf.ng
		sf.texCoords = shapeCoords(u, v)
		if sf.m.NormalMap != 0 {
			t, w := shapeTangent(sh, sf.ng)
			s.normalMap(sf, t, w)
		}
	}
	if k := sf.m.Kind; k == MaterialMetal || k == MaterialPBR {
		sf.metal, sf.rough = s.pbrParams(sf.m, &sf.texCoords)
		sf.specF0, sf.specF90 = s.dielectricSpecular(sf.m, &sf.texCoords)
		sf.clear, sf.clearRough = s.clearcoatParams(sf.m, &sf.texCoords)
	}
	sf.front = !(dot(sf.ng, r.Dir) > 0)
	if !sf.front {
		sf.ng = vec3{-sf.ng[0], -sf.ng[1], -sf.ng[2]}
		sf.ns = vec3{-sf.ns[0], -sf.ns[1], -sf.ns[2]}
	}
	if sf.mapped {
		// A mapped normal facing away from the viewer is pulled toward
		// it, to a cosine of normalMapMinCos (before renormalising).
		wo := vec3{-r.Dir[0], -r.Dir[1], -r.Dir[2]}
		if c := dot(sf.ns, wo); c < normalMapMinCos {
			sf.ns = normalize(madd(sf.ns, wo, normalMapMinCos-c))
		}
		// A mirror or glossy material's normal is then bent toward the
		// geometric one until the mirror reflection of wo stays above the
		// surface (validreflection.go).
		if bendsForReflection(sf.m) {
			sf.ns = validReflection(sf.ng, wo, sf.ns)
		}
	}
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

// texCoords are what a material's textures are looked up by at a surface
// point.
type texCoords struct {
	u, v   float32 // coordinate set 0: the shape's (u, v), a mesh's UVs
	u1, v1 float32 // coordinate set 1: a mesh's UV1s, else (u, v)
	tint   vec3    // the interpolated vertex colour (linear RGB), else [1, 1, 1]
}

// triangleCoords returns the texture coordinates of the point with
// barycentric weights (b1, b2) on a triangle.
func (s *Scene) triangleCoords(a *TriangleAttr, b1, b2 float32) texCoords {
	tc := texCoords{tint: vec3{1, 1, 1}}
	tc.u, tc.v = s.triangleUV(a, b1, b2)
	tc.u1, tc.v1 = tc.u, tc.v
	if a.Flags&(TriangleUV1|TriangleColor) == 0 {
		return tc
	}
	b0 := 1 - b1 - b2
	i0, i1, i2 := a.V[0], a.V[1], a.V[2]
	if a.Flags&TriangleUV1 != 0 {
		t0, t1, t2 := &s.UV1[i0], &s.UV1[i1], &s.UV1[i2]
		tc.u1 = float32(t0[0]*b0) + float32(t1[0]*b1) + float32(t2[0]*b2)
		tc.v1 = float32(t0[1]*b0) + float32(t1[1]*b1) + float32(t2[1]*b2)
	}
	if a.Flags&TriangleColor != 0 {
		tc.tint = madd(madd(scale(s.Colors[i0], b0), s.Colors[i1], b1), s.Colors[i2], b2)
	}
	return tc
}

// shapeCoords returns the texture coordinates of a point of a shape (no
// second set, no vertex colour) with surface coordinates (u, v).
func shapeCoords(u, v float32) texCoords {
	return texCoords{u: u, v: v, u1: u, v1: v, tint: vec3{1, 1, 1}}
}
