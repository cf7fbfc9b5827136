package tracer

// bendsForReflection reports whether a normal-mapped surface of material m
// has its shading normal bent by validReflection: the materials with a
// mirror or glossy lobe whose directions below the geometric surface are
// absorbed (metal, pbr, phong). Diffuse surfaces keep the mapped normal as
// it is, as Cycles keeps a diffuse closure's; glass keeps it too, since
// its reflections and refractions below the geometric surface go on.
func bendsForReflection(m *Material) bool {
	k := m.Kind
	return k == MaterialMetal || k == MaterialPBR || k == MaterialPhong
}

// validReflection returns the unit shading normal ns bent toward the unit
// geometric normal ng just enough that the mirror reflection of wo (the
// unit direction toward the viewer, on ng's side) about it leaves the
// geometric surface at a cosine of at least t = min(0.9·(wo·ng), 0.01),
// or ns itself when its reflection already does. It is Cycles'
// ensure_valid_specular_reflection (intern/cycles/kernel/closure/bsdf_util.h):
// the new normal N' = √(1 − z²)·X + z·ng lies in the plane of ng and X, the
// part of ns orthogonal to ng normalised (ns itself when that is zero), and
// z² is the root of 4a·z⁴ − 2b·z² + c = 0 that solves the unsquared
// equation 2(N'·wo)(N'·ng) − wo·ng = t, with Ix = wo·X, Iz = wo·ng,
// a = Ix² + Iz², b = 2(a + Iz·t), c = (Iz + t)²:
//
//	z² = (b + √(b² − 4ac))/4a when Ix < 0, (b − √(b² − 4ac))/4a otherwise.
//
// A bent normal faces the viewer: N'·wo = (t + Iz)/2z > 0. With a = 0
// (wo grazing the surface and orthogonal to X) it returns ng.
func validReflection(ng, wo, ns vec3) vec3 {
	iz := dot(wo, ng)
	th := min(float32(0.9*iz), 0.01)
	r := scale(ns, float32(2*dot(ns, wo))).Sub(wo)
	if dot(ng, r) >= th {
		return ns
	}
	x := normalize(madd(ns, ng, -dot(ns, ng)))
	if x == (vec3{}) {
		x = ns
	}
	ix := dot(wo, x)
	a := float32(ix*ix) + float32(iz*iz)
	if !(a > 0) {
		return ng
	}
	b := float32(2 * (a + float32(iz*th)))
	c := float32((th + iz) * (th + iz))
	disc := sqrt32(max(float32(b*b)-float32(float32(4*a)*c), 0))
	var z2 float32
	if ix < 0 {
		z2 = float32(0.25*(b+disc)) / a
	} else {
		z2 = float32(0.25*(b-disc)) / a
	}
	nx := sqrt32(max(1-z2, 0))
	nz := sqrt32(max(z2, 0))
	return madd(scale(x, nx), ng, nz)
}
