package tracer

import "github.com/tracerender/trace/tracer/fmath"

// The scattering of the materials that are not mirrors under path tracing,
// as functions the integrator can both evaluate (for next-event
// estimation) and sample (for the next bounce), with the same density, so
// that multiple importance sampling can weigh one against the other.
//
//   - diffuse: f·cos θ = albedo·cos θ/π; sampled by cos θ/π.
//   - phong: with probability Reflection a mirror bounce (a delta lobe,
//     handled by the integrator); the rest, weighted by 1 − Reflection, is
//     kd·albedo·cos θ/π + ks·(n+1)/2π·cos^n α, α the angle to the mirror
//     direction and (kd, ks) the phongWeights; sampled by the mixture
//     of cos θ/π and the normalised lobe in proportion kd : ks.
//   - metal and pbr: glTF 2.0's metallic-roughness model (pbrLobes,
//     microfacet.go); a metal is pbr with metallic 1.
//
// Directions below the shading normal's hemisphere scatter nothing, nor,
// on a normal-mapped surface, those below the geometric surface (no light
// leaks through it).

// isGlossy reports whether m has a lobe that next-event estimation and
// multiple importance sampling handle (diffuse, phong with some diffuse
// or specular weight, a metal that is not a mirror, any pbr material that
// is not a mirror metal).
//
// metal and rough are a metal's or pbr material's metallic and roughness
// at the point (Scene.pbrParams).
func isGlossy(m *Material, metal, rough float32) bool {
	switch m.Kind {
	case MaterialDiffuse:
		return true
	case MaterialMetal:
		return !(ggxAlpha(clamp01(rough)) < ggxMinAlpha)
	case MaterialPBR:
		return !(ggxAlpha(clamp01(rough)) < ggxMinAlpha) || clamp01(metal) < 1
	case MaterialPhong:
		kd, ks := phongWeights(m)
		return kd+ks > 0 && clamp01(m.Reflection) < 1
	}
	return false
}

// evalScatter returns f·cos θ for light arriving along the unit direction
// wi (pointing away from the surface) at sf, seen along the incoming ray
// direction d, for a surface of albedo c, and the solid-angle density with
// which sampleScatter picks wi (both zero below the surface).
func evalScatter(sf *surfaceHit, d, wi, c vec3) (fcos vec3, pdf float32) {
	cos := dot(sf.ns, wi)
	if !(cos > 0) || sf.mapped && !(dot(sf.ng, wi) > 0) {
		return vec3{}, 0
	}
	m := sf.m
	cd := float32(cos * invPi)
	if m.Kind == MaterialDiffuse {
		return scale(c, cd), cd
	}
	if m.Kind == MaterialMetal || m.Kind == MaterialPBR {
		wo := vec3{-d[0], -d[1], -d[2]}
		l := newPBRLobes(m, c, sf.metal, sf.rough, dot(sf.ns, wo))
		return l.eval(sf.ns, wo, wi)
	}
	kd, ks := phongWeights(m)
	kr := clamp01(m.Reflection)
	lobe := float32(0)
	if cosA := dot(reflect(d, sf.ns), wi); cosA > 0 {
		lobe = float32(float32((m.Shininess+1)*(0.5*invPi)) * fmath.Pow(cosA, m.Shininess))
	}
	w := 1 - kr
	fcos = scale(madd(scale(c, float32(kd*cd)), vec3{1, 1, 1}, float32(ks*lobe)), w)
	pd := kd / (kd + ks)
	pdf = float32(w * (float32(pd*cd) + float32((1-pd)*lobe)))
	return fcos, pdf
}

// sampleScatter picks the direction of the next bounce at sf for a ray
// arriving along d, from the numbers lobe, u1 and u2. It returns the
// direction, the factor f·cos θ / pdf the path's weight is multiplied by,
// and the density pdf: 0 for a mirror bounce (a delta lobe, which no
// light sampling competes with). ok = false when the sample is absorbed.
func sampleScatter(sf *surfaceHit, d, c vec3, lobe, u1, u2 float32) (dir, weight vec3, pdf float32, ok bool) {
	m := sf.m
	ns := sf.ns
	if m.Kind == MaterialDiffuse {
		dir = cosineHemisphere(ns, u1, u2)
		cos := dot(dir, ns)
		return dir, c, float32(cos * invPi), cos > 0
	}
	if m.Kind == MaterialMetal || m.Kind == MaterialPBR {
		wo := vec3{-d[0], -d[1], -d[2]}
		l := newPBRLobes(m, c, sf.metal, sf.rough, dot(ns, wo))
		return l.sample(ns, wo, lobe, u1, u2)
	}
	kd, ks := phongWeights(m)
	kr := clamp01(m.Reflection)
	switch {
	case lobe < kr: // mirror reflection, with probability kr
		return reflect(d, ns), vec3{1, 1, 1}, 0, true
	case kd+ks == 0:
		return vec3{}, vec3{}, 0, false
	case float32((lobe-kr)*(kd+ks)) < float32((1-kr)*kd):
		dir = cosineHemisphere(ns, u1, u2)
	default:
		dir = phongLobe(reflect(d, ns), m.Shininess, u1, u2)
	}
	fcos, pdf := evalScatter(sf, d, dir, c)
	if !(pdf > 0) {
		return vec3{}, vec3{}, 0, false
	}
	return dir, vec3{fcos[0] / pdf, fcos[1] / pdf, fcos[2] / pdf}, pdf, true
}

// powerHeuristic is Veach's power heuristic (β = 2): the weight
// a²/(a² + b²) of a sample drawn with density a against a strategy with
// density b, computed from b/a so that huge densities do not overflow.
func powerHeuristic(a, b float32) float32 {
	if !(b > 0) {
		return 1
	}
	r := b / a
	return 1 / (1 + float32(r*r))
}
