package tracer

// Energy compensation of the GGX lobes of metal and pbr materials
// (docs/scene-format.md, materials). A single-scattering GGX lobe loses
// the light that bounces between microfacets more than once: a white
// metal of roughness 1 seen head-on reflects 0.31 of it (TestGGXAlbedo).
// Its albedo seen at cosine μ, for Schlick's Fresnel of F0 and F90, is
//
//	E(μ) = F0·(E1(μ) − E5(μ)) + F90·E5(μ),
//
// E1 its albedo for F = 1 and E5 for F = (1 − ωo·h)⁵, tabulated by
// kernels/internal/genalbedo (ggx_albedo_gen.go). Following Turquin 2019
// ("Practical multiple scattering compensation for microfacet models"),
// the lobe is scaled by
//
//	1 + F0·(1 − E1(μo)) / E1(μo)
//
// per channel, constant over the lighting directions, so that its albedo
// for F = 1 (a white metal) is exactly 1 at every roughness and view
// angle, and a coloured one's is a little more than single scattering's,
// as light that bounces twice is coloured twice (Kulla and Conty's
// Fresnel-aware factor, F_avg·E_avg/(1 − F_avg·(1 − E_avg)) for F0, as
// Cycles 4 has it, makes a gold of roughness 1 0.94 of Cycles 3.4's
// Multiscatter GGX where this one makes it 1.03: docs/scene-format.md,
// materials). The diffuse base of a pbr
// material is weighed by 1 − the compensated albedo of the dielectric's
// specular seen at μo (its largest channel), and the base under a clear
// coat by 1 − clear × the coat's, as Cycles 4's Principled BSDF and
// OpenPBR do ("albedo scaling"): a white base then reflects all the light
// (TestPBRWhiteFurnace). A mirror lobe (α < ggxMinAlpha) loses nothing:
// its albedo is Schlick's F at μo and its factor 1.

// ggxAlbedo returns E1 and E5 of the GGX lobe of perceptual roughness
// rough seen at cosine co to the normal, interpolated bilinearly in the
// tables at √co and √rough (both clamped to [0, 1]).
func ggxAlbedo(co, rough float32) (e1, e5 float32) {
	x := float32(sqrt32(clamp01(co)) * (ggxAlbedoN - 1))
	y := float32(sqrt32(clamp01(rough)) * (ggxAlbedoN - 1))
	i := min(int(x), ggxAlbedoN-2)
	j := min(int(y), ggxAlbedoN-2)
	tx, ty := x-float32(i), y-float32(j)
	k := j*ggxAlbedoN + i
	return albedoLerp(&ggxE1, k, tx, ty), albedoLerp(&ggxE5, k, tx, ty)
}

// albedoLerp interpolates tab bilinearly between its entries k, k + 1
// and the next row's, at fractions tx along a row and ty across.
func albedoLerp(tab *[ggxAlbedoN * ggxAlbedoN]float32, k int, tx, ty float32) float32 {
	a := tab[k] + float32((tab[k+1]-tab[k])*tx)
	b := tab[k+ggxAlbedoN] + float32((tab[k+ggxAlbedoN+1]-tab[k+ggxAlbedoN])*tx)
	return a + float32((b-a)*ty)
}

// ggxEnergy returns, for a lobe of reflectance f0 at normal incidence
// and f90 at grazing incidence, its multiple-scattering factor ms and its
// albedo e seen at cosine μo once compensated, from the lobe's E1 and E5
// there; for a mirror, 1 and Schlick's F at μo for c5 = (1 − μo)⁵.
func ggxEnergy(f0, f90, e1, e5, c5 float32, mirror bool) (ms, e float32) {
	if mirror {
		return 1, f0 + float32((f90-f0)*c5)
	}
	ms = 1 + float32(f0*float32((1-e1)/e1))
	e = float32(f0*(e1-e5)) + float32(f90*e5)
	return ms, float32(e * ms)
}

// Rough glass (dielectricEval, sampleDielectric) is compensated the same
// way: its lobe, reflection and refraction together with the exact
// Fresnel reflectance at each microfacet normal, would reflect and
// transmit all the light if it lost none (a smooth glass does: F + (1 −
// F) = 1), so Turquin's factor for its F of 1 is 1/E(μo), E the lobe's
// single-scattering albedo tabulated by kernels/internal/genalbedo for a
// ray entering the glass and one leaving it (glassE): a clear rough glass
// then vanishes in a white furnace at every roughness, ior and view angle
// (TestGlassWhiteFurnace).

// glassAlbedo returns E, the albedo of rough glass of GGX α and relative
// index eta (n_from / n_to: the entering table below 1, the leaving one
// above) seen at cosine co to the normal, interpolated trilinearly in
// glassE at √co, the roughness √α and √((ior − 1)/3), each clamped to
// [0, 1].
func glassAlbedo(co, alpha, eta float32) float32 {
	return glassLookup(&glassE, co, alpha, eta)
}

// glassLookup interpolates tab, a table on glassE's grid, trilinearly as
// glassAlbedo describes.
func glassLookup(tab *[2 * glassAlbedoN * glassAlbedoN * glassAlbedoN]float32, co, alpha, eta float32) float32 {
	const n = glassAlbedoN
	s, ior := 0, 1/eta
	if eta > 1 {
		s, ior = 1, eta
	}
	x := float32(sqrt32(clamp01(co)) * (n - 1))
	y := float32(sqrt32(clamp01(alpha)) * (n - 1))
	z := float32(sqrt32(clamp01(float32((ior-1)*(1.0/3)))) * (n - 1))
	i, j, l := min(int(x), n-2), min(int(y), n-2), min(int(z), n-2)
	tx, ty, tz := x-float32(i), y-float32(j), z-float32(l)
	k := ((s*n+l)*n+j)*n + i
	a, b := glassLerp(tab, k, tx, ty), glassLerp(tab, k+n*n, tx, ty)
	return a + float32((b-a)*tz)
}

// glassLerp interpolates tab bilinearly between its entries k, k + 1
// and the next row's, at fractions tx along a row and ty across.
func glassLerp(tab *[2 * glassAlbedoN * glassAlbedoN * glassAlbedoN]float32, k int, tx, ty float32) float32 {
	const n = glassAlbedoN
	a := tab[k] + float32((tab[k+1]-tab[k])*tx)
	b := tab[k+n] + float32((tab[k+n+1]-tab[k+n])*tx)
	return a + float32((b-a)*ty)
}
