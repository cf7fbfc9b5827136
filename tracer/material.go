package tracer

// Scattering helpers shared by the integrators.

// refraction returns, for a ray with unit direction d arriving at a surface
// with unit normal ns facing it and relative index eta = n_from / n_to, the
// exact Fresnel reflectance (fresnelDielectric) and the refracted
// direction (ok = false on total internal reflection).
func refraction(d, ns vec3, eta float32) (reflectance float32, dir vec3, ok bool) {
	cos := min(-dot(d, ns), 1)
	sin2 := 1 - float32(cos*cos)
	if float32(float32(eta*eta)*sin2) > 1 {
		return 1, vec3{}, false
	}
	perp := scale(madd(d, ns, cos), eta)
	par := scale(ns, -sqrt32(absf(1-dot(perp, perp))))
	return fresnelDielectric(cos, eta), normalize(perp.Add(par)), true
}

// phongWeights returns a phong material's diffuse and specular weights
// under path tracing, scaled down together when their sum exceeds 1 so the
// material never reflects more than it receives.
func phongWeights(m *Material) (kd, ks float32) {
	kd, ks = max(m.Diffuse, 0), max(m.Specular, 0)
	if t := kd + ks; t > 1 {
		kd, ks = kd/t, ks/t
	}
	return kd, ks
}
