package tracer

import "github.com/tracerender/trace/tracer/fmath"

// GGX (Trowbridge–Reitz) microfacet scattering, shared by metal, rough
// dielectric and pbr materials (docs/scene-format.md has the formulas):
//
//   - D(h) = α² / (π (cos²θh (α² − 1) + 1)²), the density of microfacet
//     normals h;
//   - Smith's height-correlated masking-shadowing
//     G2 = 1 / (1 + Λ(ωo) + Λ(ωi)), Λ(ω) = (√(α² + (1 − α²) cos²θ)/cos θ − 1)/2,
//     and G1(ω) = 1 / (1 + Λ(ω));
//   - normals sampled from the distribution of normals visible from ωo
//     (Heitz 2018, "Sampling the GGX Distribution of Visible Normals"), so
//     a reflected direction has the density G1(ωo)·D(h) / (4 cos θo) and
//     its weight f·cos θi / pdf = F·G2/G1(ωo): no sample is ever wasted
//     on a facet the viewer cannot see.
//
// Single scattering: light that bounces between microfacets more than once
// is lost; a white metal seen head-on reflects 0.63 of the light at
// roughness 0.75 and 0.31 at roughness 1 (TestGGXAlbedo). Metal, pbr and
// rough glass compensate it (ggxenergy.go).
//
// α = roughness², as glTF 2.0, Cycles and Disney's model define it. Below
// ggxMinAlpha the lobe is a mirror (a delta), which sampling handles
// exactly and next-event estimation leaves alone.
const ggxMinAlpha = 1e-3

// ggxAlpha returns GGX's α for a perceptual roughness.
func ggxAlpha(roughness float32) float32 {
	return float32(roughness * roughness)
}

// ggxD is the GGX normal distribution for the cosine c between the
// microfacet normal and the surface normal, with a2 = α².
func ggxD(c, a2 float32) float32 {
	t := float32(float32(c*c)*(a2-1)) + 1
	return a2 / float32(float32(pi*t)*t)
}

// ggxRoot is √(α² + (1 − α²) cos²θ), the common part of Λ and G1.
func ggxRoot(c, a2 float32) float32 {
	return sqrt32(a2 + float32((1-a2)*float32(c*c)))
}

// ggxG1 is Smith's masking for a direction at cosine c > 0 to the normal.
func ggxG1(c, a2 float32) float32 {
	return float32(2*c) / (c + ggxRoot(c, a2))
}

// ggxG2 is the height-correlated masking-shadowing of the directions at
// cosines co, ci > 0 to the normal.
func ggxG2(co, ci, a2 float32) float32 {
	return float32(float32(2*co)*ci) / (float32(ci*ggxRoot(co, a2)) + float32(co*ggxRoot(ci, a2)))
}

// ggxSampleNormal returns a microfacet normal (world space) drawn from the
// GGX normals visible from wo, the unit direction toward the viewer, at a
// surface of unit normal n; wo·n must be > 0.
func ggxSampleNormal(n, wo vec3, alpha, u1, u2 float32) vec3 {
	t, b := orthonormal(n)
	// wo in the local frame, stretched to the unit-roughness
	// configuration.
	vh := normalize(vec3{float32(alpha * dot(wo, t)), float32(alpha * dot(wo, b)), dot(wo, n)})
	// An orthonormal basis around vh.
	t1 := vec3{1, 0, 0}
	if l2 := float32(vh[0]*vh[0]) + float32(vh[1]*vh[1]); l2 > 0 {
		il := 1 / sqrt32(l2)
		t1 = vec3{float32(-vh[1] * il), float32(vh[0] * il), 0}
	}
	t2 := cross(vh, t1)
	// A point on the projected hemisphere: a disc, its far half squashed.
	r := sqrt32(u1)
	phi := float32(2*pi) * u2
	sinPhi, cosPhi := fmath.SinCos(phi)
	p1 := float32(r * cosPhi)
	p2 := float32(r * sinPhi)
	s := float32(0.5 * (1 + vh[2]))
	p2 = float32((1-s)*sqrt32(max(0, 1-float32(p1*p1)))) + float32(s*p2)
	pz := sqrt32(max(0, float32(1-float32(p1*p1))-float32(p2*p2)))
	nh := madd(madd(scale(vh, pz), t1, p1), t2, p2)
	// Back to the ellipsoid configuration, and to world space.
	x, y, z := float32(alpha*nh[0]), float32(alpha*nh[1]), max(0, nh[2])
	return normalize(madd(madd(scale(n, z), t, x), b, y))
}

// pow5 is x⁵.
func pow5(x float32) float32 {
	x2 := float32(x * x)
	return float32(float32(x2*x2) * x)
}

// schlick is Schlick's Fresnel for reflectance f0 at normal incidence,
// f90 at grazing incidence and c5 = (1 − cos)⁵.
func schlick(f0 vec3, f90, c5 float32) vec3 {
	return vec3{
		f0[0] + float32((f90-f0[0])*c5),
		f0[1] + float32((f90-f0[1])*c5),
		f0[2] + float32((f90-f0[2])*c5),
	}
}

// schlick3 is schlick with a reflectance f90 at grazing incidence per
// channel.
func schlick3(f0, f90 vec3, c5 float32) vec3 {
	return vec3{
		f0[0] + float32((f90[0]-f0[0])*c5),
		f0[1] + float32((f90[1]-f0[1])*c5),
		f0[2] + float32((f90[2]-f0[2])*c5),
	}
}

// fresnelDielectric is the exact Fresnel reflectance of unpolarised light
// meeting an interface at cosine cos > 0 with relative index eta =
// n_from / n_to: 1 past the critical angle.
func fresnelDielectric(cos, eta float32) float32 {
	sin2t := float32(float32(eta*eta) * (1 - float32(cos*cos)))
	if !(sin2t < 1) {
		return 1
	}
	cost := sqrt32(1 - sin2t)
	ec, et := float32(eta*cos), float32(eta*cost)
	rs := (ec - cost) / (ec + cost)
	rp := (cos - et) / (cos + et)
	return float32(0.5 * (float32(rs*rs) + float32(rp*rp)))
}

// pbrLobes are the parameters of a metal or pbr material at one point.
type pbrLobes struct {
	// The specular lobe's Schlick reflectance at normal and at grazing
	// incidence, each times its multiple-scattering factor (ggxEnergy).
	f0, f90 vec3
	kd      vec3    // diffuse albedo, (1 − metallic)·base colour
	alpha   float32 // GGX α; < ggxMinAlpha: a mirror
	coat    float32 // what the dielectric's specular lets through to the diffuse base: 1 − its largest albedo at cos θo
	pSpec0  float32 // the probability of sampling the specular lobe (of the base's two)
	// The clear coat (Material.Clearcoat) over all of that, when clear
	// > 0; with clear 0 the others are zero and unused.
	clear      float32 // its strength, in (0, 1], times its multiple-scattering factor
	clearAlpha float32 // its GGX α; < ggxMinAlpha: a mirror
	clearBase  float32 // what it lets through to the base: 1 − strength·its albedo at cos θo
	pClear     float32 // the probability of sampling it (the base's lobes share the rest)
	// The sheen (Material.SheenColor, sheen.go) between the coat and the
	// base's lobes, when sheenMax > 0; with sheenMax 0 the others are
	// zero and unused.
	sheen      vec3    // its colour, divided by its albedo at cos θo where that is above 1
	sheenMax   float32 // its colour's largest component
	sheenRough float32 // its roughness, clamped (sheenRoughness)
	sheenAlpha float32 // the Charlie distribution's α, sheenRough²
	sheenLo    float32 // Λ(ωo)
	sheenEo    float32 // its albedo at cos θo for a white colour, at most 1
	pSheen     float32 // the probability of sampling it (of the share under the coat)
}

// The clear coat of a pbr material (glTF's KHR_materials_clearcoat) is
// a GGX lobe of Schlick's Fresnel with F0 0.04, colourless, on top of
// the base:
//
//	f = f_base·(1 − clear·E_coat(cos θo)) + clear·F(ωo·h)·D·G2 / (4 cos θo cos θi)·ms
//
// with E_coat the coat's albedo seen at cos θo and ms its
// multiple-scattering factor (ggxenergy.go). glTF's extension weighs the
// base by 1 − clear·F(ωo·h) at each half vector, which can reflect more
// light than is received at grazing views (as the base's own
// fresnel_mix: eval); taking the coat's albedo at the view direction
// keeps f_base's share and the coat's within 1, exactly 1 over a white
// base (TestPBRWhiteFurnace), and differs from glTF's only toward grazing
// angles.

// clearcoatF is Schlick's Fresnel of a coat of F0 0.04 for c5 = (1 − cos)⁵.
func clearcoatF(c5 float32) float32 {
	return float32(0.04 + float32(0.96*c5))
}

// pbrReflectance returns the specular reflectance of a metal or pbr
// material of base colour c and metallic metallic (a metal's is 1,
// whatever it says) at normal and grazing incidence: the dielectric's,
// f0d and f90d, and the metal's, the base colour and 1, mixed by metal.
func pbrReflectance(m *Material, c vec3, metallic float32, f0d vec3, f90d float32) (f0 vec3, f90, metal float32) {
	metal = 1
	if m.Kind == MaterialPBR {
		metal = clamp01(metallic)
	}
	dm := 1 - metal
	f0 = vec3{
		float32(f0d[0]*dm) + float32(c[0]*metal),
		float32(f0d[1]*dm) + float32(c[1]*metal),
		float32(f0d[2]*dm) + float32(c[2]*metal),
	}
	return f0, 1 - float32((1-f90d)*dm), metal
}

// newPBRLobes returns the lobes of a metal or pbr material of base colour
// c, metallic metallic (a metal's is 1, whatever it says), roughness
// rough (Scene.pbrParams), dielectric reflectance f0d and f90d
// (Scene.dielectricSpecular) and, on a pbr material, a clear coat clear
// of roughness clearRough (Scene.clearcoatParams) for a viewer at cosine
// co to the shading normal.
func newPBRLobes(m *Material, c vec3, metallic, rough float32, f0d vec3, f90d, clear, clearRough, co float32) pbrLobes {
	f0, f90, metal := pbrReflectance(m, c, metallic, f0d, f90d)
	rough = clamp01(rough)
	l := pbrLobes{kd: scale(c, 1-metal), alpha: ggxAlpha(rough)}
	// The lobes' albedos seen from co: the specular lobe's and the
	// dielectric's (the same roughness), both compensated; the base's
	// diffuse gets what the dielectric's lets through.
	co = clamp01(co)
	c5 := pow5(1 - co)
	mirror := l.alpha < ggxMinAlpha
	e1, e5 := float32(1), c5
	if !mirror {
		e1, e5 = ggxAlbedo(co, rough)
	}
	var es, ed vec3
	for k := range 3 {
		var ms float32
		ms, es[k] = ggxEnergy(f0[k], f90, e1, e5, c5, mirror)
		l.f0[k], l.f90[k] = float32(f0[k]*ms), float32(f90*ms)
		_, ed[k] = ggxEnergy(f0d[k], f90d, e1, e5, c5, mirror)
	}
	l.coat = max(0, 1-maxComponent(ed))
	// Sample the lobes in proportion to their albedos (mean channel).
	fs := float32(float32(float32(es[0]+es[1])+es[2]) * (1.0 / 3))
	fd := float32(float32(float32(float32(l.kd[0]+l.kd[1])+l.kd[2])*(1.0/3)) * l.coat)
	l.pSpec0 = 1
	if fs+fd > 0 {
		l.pSpec0 = fs / (fs + fd)
	}
	// fb: the albedo of what lies under the clear coat.
	fb := fs + fd
	if m.Kind == MaterialPBR && maxComponent(m.SheenColor) > 0 {
		fb = l.newSheen(m.SheenColor, m.SheenRoughness, co, fb)
	}
	if m.Kind == MaterialPBR && clear > 0 {
		// The clear coat's albedo, compensated, against the base's seen
		// through it.
		clear = clamp01(clear)
		clearRough = clamp01(clearRough)
		l.clearAlpha = ggxAlpha(clearRough)
		mirror := l.clearAlpha < ggxMinAlpha
		e1, e5 := float32(1), c5
		if !mirror {
			e1, e5 = ggxAlbedo(co, clearRough)
		}
		ms, ec := ggxEnergy(0.04, 1, e1, e5, c5, mirror)
		l.clear = float32(clear * ms)
		fc := float32(clear * ec)
		l.clearBase = 1 - fc
		l.pClear = fc / (fc + float32(fb*l.clearBase))
	}
	return l
}

// eval returns f·cos θi toward wi for a viewer at wo (unit vectors away
// from the surface of shading normal n), and the density with which
// sample picks wi (the specular lobe's only when it is not a mirror).
func (l *pbrLobes) eval(n, wo, wi vec3) (fcos vec3, pdf float32) {
	co, ci := dot(n, wo), dot(n, wi)
	if !(co > 0 && ci > 0) {
		return vec3{}, 0
	}
	h := normalize(wo.Add(wi))
	c5 := pow5(1 - clamp01(dot(wo, h)))
	cnh := dot(n, h)
	// The diffuse base weighed by what the dielectric's specular (F0
	// 0.04 and F90 1 by default, Material.SpecularF0 and SpecularF90)
	// lets through, 1 − the largest channel of its albedo at the view
	// direction (newPBRLobes): glTF's fresnel_mix takes F at the half
	// vector, which at grazing views reflects up to 1.7 times the light
	// received (a white base at cos θo 0.05); the albedo, as here, makes
	// the sum exactly 1 for a white base (TestPBRWhiteFurnace), at most 1
	// for others (TestPBRFurnace).
	cd := float32(ci * invPi)
	fcos = scale(l.kd, float32(l.coat*cd))
	pdf = float32((1 - l.pSpec0) * cd)
	if !(l.alpha < ggxMinAlpha) {
		spec, sp := ggxReflection(cnh, co, ci, float32(l.alpha*l.alpha))
		fcos = maddv(fcos, schlick3(l.f0, l.f90, c5), vec3{spec, spec, spec})
		pdf += float32(l.pSpec0 * sp)
	}
	if l.sheenMax > 0 {
		fcos, pdf = l.evalSheen(cnh, co, ci, fcos, pdf)
	}
	if !(l.clear > 0) {
		return fcos, pdf
	}
	// The base under the clear coat, and the coat (unless a mirror).
	fcos = scale(fcos, l.clearBase)
	pdf = float32((1 - l.pClear) * pdf)
	if !(l.clearAlpha < ggxMinAlpha) {
		spec, sp := ggxReflection(cnh, co, ci, float32(l.clearAlpha*l.clearAlpha))
		spec = float32(float32(l.clear*clearcoatF(c5)) * spec)
		fcos = vec3{fcos[0] + spec, fcos[1] + spec, fcos[2] + spec}
		pdf += float32(l.pClear * sp)
	}
	return fcos, pdf
}

// ggxReflection returns a GGX lobe's D·G2 / (4 cos θo), its f·cos θi
// without the Fresnel factor, and the density D·G1 / (4 cos θo) of its
// reflections sampled by visible normals, for the cosines cnh of the
// half vector, co and ci > 0 of the view and the light to the normal,
// and a2 = α². The kernel keeps it out of line: inline, the two lobes'
// temporaries made ptxas spill in wf_shade and trace_pixels_path.
func ggxReflection(cnh, co, ci, a2 float32) (spec, pdf float32) {
	dh := ggxD(cnh, a2)
	spec = dh * ggxG2(co, ci, a2) / float32(4*co)
	return spec, float32(ggxG1(co, a2)*dh) / float32(4*co)
}

// sample picks a direction for a viewer at wo from the numbers lobe, u1
// and u2: the direction, the weight f·cos θi / pdf, the density (0 for a
// mirror bounce), and ok = false when the sample is absorbed.
func (l *pbrLobes) sample(n, wo vec3, lobe, u1, u2 float32) (dir, weight vec3, pdf float32, ok bool) {
	co := dot(n, wo)
	if !(co > 0) {
		return vec3{}, vec3{}, 0, false
	}
	d := vec3{-wo[0], -wo[1], -wo[2]}
	// The clear coat takes lobe's first pClear, the base's lobes the
	// rest, stretched back to [0, 1).
	coat := l.clear > 0 && lobe < l.pClear
	if l.clear > 0 && !coat {
		lobe = float32(lobe-l.pClear) / (1 - l.pClear)
	}
	// The sheen takes the first pSheen of the rest, the base's lobes
	// what remains, stretched back to [0, 1).
	sheen := !coat && l.sheenMax > 0 && lobe < l.pSheen
	if !coat && l.sheenMax > 0 && !sheen {
		lobe = float32(lobe-l.pSheen) / (1 - l.pSheen)
	}
	alpha := l.alpha
	if coat {
		alpha = l.clearAlpha
	}
	switch {
	case sheen:
		dir = uniformHemisphere(n, u1, u2)
	case !coat && lobe >= l.pSpec0:
		dir = cosineHemisphere(n, u1, u2)
	case alpha < ggxMinAlpha:
		// A mirror: the coat's, chosen with probability pClear, or the
		// base's, with probability pSpec0 (of the base's share, under
		// the coat).
		c5 := pow5(1 - clamp01(co))
		var w vec3
		if coat {
			f := float32(l.clear*clearcoatF(c5)) / l.pClear
			w = vec3{f, f, f}
		} else {
			w = scale(schlick3(l.f0, l.f90, c5), 1/l.pSpec0)
			if l.sheenMax > 0 {
				// Under the sheen, which lets 1 − max·E(cos θo) through
				// both ways.
				w = scale(w, float32(1-float32(l.sheenMax*l.sheenEo))/(1-l.pSheen))
			}
			if l.clear > 0 {
				w = scale(w, l.clearBase/(1-l.pClear))
			}
		}
		return reflect(d, n), w, 0, true
	default:
		dir = reflect(d, ggxSampleNormal(n, wo, alpha, u1, u2))
	}
	fcos, pdf := l.eval(n, wo, dir)
	if !(pdf > 0) {
		return vec3{}, vec3{}, 0, false
	}
	return dir, vec3{fcos[0] / pdf, fcos[1] / pdf, fcos[2] / pdf}, pdf, true
}

// dielectricEta returns the relative index n_from / n_to of the glass
// at sf for a ray arriving there: entering through the front, leaving
// through the back.
func dielectricEta(sf *surfaceHit) float32 {
	if !sf.front {
		return sf.m.IOR
	}
	return 1 / sf.m.IOR
}

// dielectricEval returns f·cos θi (the transmission tint aside) of rough
// glass of relative index eta (n_from / n_to, wo's side first) and GGX α
// ≥ ggxMinAlpha toward the unit direction wi, for a viewer at the unit
// direction wo, ns the shading normal on wo's side; the density with
// which sampleDielectric picks wi; and whether wi is on the far side
// (refracted). Reflection takes the half vector h = wo + wi, refraction
// the generalised one, h ∝ eta·wo + wi (Walter et al. 2007), turned to
// ns's side: a direction whose h is not visible from wo, or that crosses
// the facet the wrong way, has neither (sampleDielectric absorbs it).
// The density is the visible normals' G1(ωo)·D(h)·(wo·h)/cos θo, times
// the Fresnel choice (F, or 1 − F for refraction, F at wo·h), times the
// Jacobian dh/dwi: 1/(4 wo·h) for reflection, |wi·h|/(eta wo·h + wi·h)²
// for refraction; f·cos θi is the same with G2 for G1 and divided by the
// lobe's albedo at wo (glassAlbedo: its energy compensation). As
// sampleDielectric keeps a try with the probability G2/G1 and draws
// again otherwise, the density it samples is f·cos θi itself times
// glassKept, the probability that it keeps one of its tries, and
// f·cos θi / pdf is its weight 1/glassKept. Like the sampler it carries
// no η² scaling of radiance.
func dielectricEval(ns, wo, wi vec3, eta, alpha float32) (fcos, pdf float32, refracted bool) {
	co, cwi := dot(ns, wo), dot(ns, wi)
	if !(co > 0) || cwi == 0 {
		return 0, 0, false
	}
	refracted = cwi < 0
	var h vec3
	if refracted {
		h = normalize(madd(wi, wo, eta))
	} else {
		h = normalize(wo.Add(wi))
	}
	ch := dot(ns, h)
	if ch < 0 {
		h, ch = vec3{-h[0], -h[1], -h[2]}, -ch
	}
	cosO, cosI := dot(wo, h), dot(wi, h)
	if !(ch > 0 && cosO > 0) || refracted != (cosI < 0) || cosI == 0 {
		return 0, 0, false
	}
	a2 := float32(alpha * alpha)
	fr := fresnelDielectric(min(cosO, 1), eta)
	// D·(wo·h)·(dh/dwi)/cos θo, and the lobe's probability.
	var common, sel float32
	if refracted {
		den := float32(eta*cosO) + cosI
		common = float32(float32(ggxD(ch, a2)*cosO)*-cosI) / float32(float32(co*den)*den)
		sel = 1 - fr
	} else {
		common = ggxD(ch, a2) / float32(4*co)
		sel = fr
	}
	fcos = float32(float32(sel*ggxG2(co, absf(cwi), a2))*common) / glassAlbedo(co, alpha, eta)
	return fcos, float32(fcos * glassKept(co, alpha, eta)), refracted
}

// glassTries is how many microfacet normals sampleDielectric draws at
// most before it absorbs a ray.
const glassTries = 8

// glassKept is the probability that sampleDielectric keeps one of its
// glassTries tries, 1 − (1 − E)^glassTries, each try kept with the
// probability E, the lobe's albedo (glassAlbedo, at least 1e-3): its
// density is f·cos θi times glassKept, its weight 1/glassKept.
func glassKept(co, alpha, eta float32) float32 {
	q := 1 - min(max(glassAlbedo(co, alpha, eta), 1e-3), 1)
	q2 := float32(q * q)
	q4 := float32(q2 * q2)
	return 1 - float32(q4*q4)
}

// glassRetry returns the numbers of sampleDielectric's try number try > 0,
// hashed from the first try's lobe, u1 and u2 (each a multiple of 2⁻²⁴ in
// [0, 1), as the samplers give them), so that the tries are independent
// and a pixel's value stays a function of its numbers.
func glassRetry(lobe, u1, u2 float32, try uint32) (float32, float32, float32) {
	const one = 1 << 24
	k := hash32(uint32(float32(lobe*one)) ^ hash32(uint32(float32(u1*one))^hash32(uint32(float32(u2*one))+try*0x9e3779b9)))
	k2 := hash32(k)
	return unitFloat(k), unitFloat(k2), unitFloat(hash32(k2))
}

// sampleDielectric picks the next direction of a ray arriving along d at
// glass of relative index eta (n_from / n_to) and GGX α, with the shading
// normal ns facing the ray, from the numbers lobe, u1 and u2: the
// direction, the weight (the transmission tint aside), whether it
// refracted, the density of the direction (0 for smooth glass, whose
// lobes are deltas; dielectricEval's otherwise), and ok = false when
// absorbed. A smooth surface (α < ggxMinAlpha) reflects with its exact
// Fresnel reflectance and refracts otherwise, weight 1, leaving u1 and u2
// unused. A rough one (Walter et al. 2007) does the same about a visible
// microfacet normal, and keeps the direction with the probability
// G2/G1(ωo), the weight such a sample would carry, from what is left of
// its Fresnel choice's number (lobe's place within F, or within 1 − F); a
// direction through the microsurface (a reflection below the surface, a
// refraction back above it) is never kept. A try not kept draws again,
// up to glassTries in all, from numbers hashed from these (glassRetry).
// So a try is kept with the probability E, the lobe's albedo, and the
// kept directions follow f·cos θi itself: the density is f·cos θi times
// glassKept and every sample weighs 1/glassKept, near 1, where weighing
// the tries by G2/G1 gave weights of variance up to 0.2 at each
// interface.
func sampleDielectric(ns, d vec3, eta, alpha, lobe, u1, u2 float32) (dir vec3, weight float32, refracted bool, pdf float32, ok bool) {
	if alpha < ggxMinAlpha {
		fr, refr, ok := refraction(d, ns, eta)
		if !ok || lobe < fr {
			return reflect(d, ns), 1, false, 0, true
		}
		return refr, 1, true, 0, true
	}
	wo := vec3{-d[0], -d[1], -d[2]}
	co := dot(ns, wo)
	if !(co > 0) {
		return vec3{}, 0, false, 0, false
	}
	a2 := float32(alpha * alpha)
	g1 := ggxG1(co, a2)
	var hn vec3
	var cosO, fr, g2 float32
	for try := uint32(0); ; try++ {
		if try == glassTries {
			return vec3{}, 0, false, 0, false // no try kept: absorbed
		}
		l, v1, v2 := lobe, u1, u2
		if try > 0 {
			l, v1, v2 = glassRetry(lobe, u1, u2, try)
		}
		hn = ggxSampleNormal(ns, wo, alpha, v1, v2)
		cosO = dot(wo, hn)
		if !(cosO > 0) {
			continue
		}
		var refr vec3
		var through bool
		var ci, keep float32
		fr, refr, through = refraction(d, hn, eta)
		if !through || l < fr {
			dir, refracted = reflect(d, hn), false
			ci, keep = dot(ns, dir), l/fr
		} else {
			dir, refracted = refr, true
			ci, keep = -dot(ns, dir), (l-fr)/(1-fr)
		}
		if !(ci > 0) {
			continue
		}
		if g2 = ggxG2(co, ci, a2); float32(keep*g1) < g2 {
			break
		}
	}
	// dielectricEval's f·cos θi and density, from the sampled normal.
	dh := ggxD(dot(ns, hn), a2)
	var fcos float32
	if refracted {
		cosI := dot(dir, hn)
		den := float32(eta*cosO) + cosI
		fcos = float32((1-fr)*g2) * float32(float32(float32(dh*cosO)*-cosI)/float32(float32(co*den)*den))
	} else {
		fcos = float32(fr*g2) * float32(dh/float32(4*co))
	}
	kept := glassKept(co, alpha, eta)
	fcos /= glassAlbedo(co, alpha, eta)
	return dir, 1 / kept, refracted, float32(fcos * kept), true
}
