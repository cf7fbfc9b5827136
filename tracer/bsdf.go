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
//     microfacet.go), and on pbr its clear coat, with the GGX lobes'
//     energy compensation (ggxenergy.go); a metal is pbr with metallic 1.
//
//   - rough dielectric: Walter et al.'s GGX reflection and refraction
//     (dielectricEval, microfacet.go), the tint on refraction; smooth
//     glass is a pair of delta lobes, which only sampling finds.
//
// Directions below the shading normal's hemisphere scatter nothing, nor,
// on a normal-mapped surface, those below the geometric surface (no light
// leaks through it); glass scatters to both sides, but on a normal-mapped
// surface only reflections above the geometric surface and refractions
// below it.

// isGlossy reports whether m has a lobe that next-event estimation and
// multiple importance sampling handle (diffuse, phong with some diffuse
// or specular weight, a metal that is not a mirror, any pbr material that
// is not a mirror metal under no clear coat or a mirror one and no
// sheen).
//
// metal and rough are a metal's or pbr material's metallic and roughness
// at the point (Scene.pbrParams), clear and clearRough a pbr material's
// clear coat and its roughness there (Scene.clearcoatParams): a map can
// make a mirror coat rough at a point, or take the coat away.
func isGlossy(m *Material, metal, rough, clear, clearRough float32) bool {
	switch m.Kind {
	case MaterialDiffuse:
		return true
	case MaterialMetal:
		return !(ggxAlpha(clamp01(rough)) < ggxMinAlpha)
	case MaterialPBR:
		return !(ggxAlpha(clamp01(rough)) < ggxMinAlpha) || clamp01(metal) < 1 ||
			clear > 0 && !(ggxAlpha(clamp01(clearRough)) < ggxMinAlpha) || maxComponent(m.SheenColor) > 0
	case MaterialPhong:
		kd, ks := phongWeights(m)
		return kd+ks > 0 && clamp01(m.Reflection) < 1
	}
	return false
}

// evalScatter returns f·cos θ for light arriving along the unit direction
// (wx, wy, wz) (pointing away from the surface) at sf, seen along the
// incoming ray direction d, for a surface of albedo c, and the
// solid-angle density with which sampleScatter (or, for glass,
// sampleDielectric) picks that direction: all zero below the surface,
// and for glass, which scatters to both sides, zero when it is smooth.
// The direction and f·cos θ are scalars, which the compiler passes in
// registers (a vec3, an array, it passes on the stack), and d and c
// pointers.
func evalScatter(sf *surfaceHit, d, c *vec3, wx, wy, wz float32) (f0, f1, f2, pdf float32) {
	if sf.m.Kind == MaterialDielectric {
		f, pdf := evalRoughGlass(sf, *d, vec3{wx, wy, wz}, *c)
		return f[0], f[1], f[2], pdf
	}
	cos := dotXYZ(sf.ns[0], sf.ns[1], sf.ns[2], wx, wy, wz)
	if !(cos > 0) || sf.mapped && !(dotXYZ(sf.ng[0], sf.ng[1], sf.ng[2], wx, wy, wz) > 0) {
		return 0, 0, 0, 0
	}
	m := sf.m
	cd := float32(cos * invPi)
	if m.Kind == MaterialDiffuse {
		f := scale(*c, cd)
		return f[0], f[1], f[2], cd
	}
	wi := vec3{wx, wy, wz}
	var fcos vec3
	if m.Kind == MaterialMetal || m.Kind == MaterialPBR {
		wo := vec3{-d[0], -d[1], -d[2]}
		l := newPBRLobes(m, *c, sf.metal, sf.rough, sf.specF0, sf.specF90, sf.clear, sf.clearRough, dot(sf.ns, wo))
		fcos, pdf = l.eval(sf.ns, wo, wi)
		return fcos[0], fcos[1], fcos[2], pdf
	}
	kd, ks := phongWeights(m)
	kr := clamp01(m.Reflection)
	lobe := float32(0)
	if cosA := dot(reflect(*d, sf.ns), wi); cosA > 0 {
		lobe = float32(float32((m.Shininess+1)*(0.5*invPi)) * fmath.Pow(cosA, m.Shininess))
	}
	w := 1 - kr
	fcos = scale(madd(scale(*c, float32(kd*cd)), vec3{1, 1, 1}, float32(ks*lobe)), w)
	pd := kd / (kd + ks)
	pdf = float32(w * (float32(pd*cd) + float32((1-pd)*lobe)))
	return fcos[0], fcos[1], fcos[2], pdf
}

// evalRoughGlass is evalScatter for rough glass (dielectricEval), on
// either side of the surface: the tint c on the far side. On a
// normal-mapped surface a direction reflected below the geometric surface
// or refracted above it scatters nothing, as tracePath absorbs it.
func evalRoughGlass(sf *surfaceHit, d, wi, c vec3) (fcos vec3, pdf float32) {
	if sf.mapped && (dot(sf.ns, wi) > 0) != (dot(sf.ng, wi) > 0) {
		return vec3{}, 0
	}
	alpha := ggxAlpha(clamp01(sf.m.Roughness))
	if alpha < ggxMinAlpha {
		return vec3{}, 0
	}
	wo := vec3{-d[0], -d[1], -d[2]}
	f, pdf, refracted := dielectricEval(sf.ns, wo, wi, dielectricEta(sf), alpha)
	if !refracted {
		c = vec3{1, 1, 1}
	}
	return scale(c, f), pdf
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
		l := newPBRLobes(m, c, sf.metal, sf.rough, sf.specF0, sf.specF90, sf.clear, sf.clearRough, dot(ns, wo))
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
	f0, f1, f2, pdf := evalScatter(sf, &d, &c, dir[0], dir[1], dir[2])
	if !(pdf > 0) {
		return vec3{}, vec3{}, 0, false
	}
	return dir, vec3{f0 / pdf, f1 / pdf, f2 / pdf}, pdf, true
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
