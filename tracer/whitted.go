package tracer

import "github.com/tracerender/trace/tracer/fmath"

// whittedBranch is a ray waiting to be traced, with the weight its
// radiance adds with.
type whittedBranch struct {
	ray    Ray
	weight vec3
	depth  int32
}

// traceWhitted returns the radiance along r, whose nearest hit is first
// (Intersect's), by classic recursive ray
// tracing (docs/scene-format.md): at each hit, radiance += weight × local shading, then
// the reflected (and, through glass, refracted) rays continue with their
// weights, shading at most MaxDepth hits along any branch. The recursion is
// a depth-first walk over an explicit stack: each hit pushes at most one
// branch, so MaxDepth+1 slots suffice, as they will in the kernel. smp
// gives only the numbers of blended surfaces (alpha.go).
func (s *Scene) traceWhitted(r Ray, first Hit, smp *Sampler, st *Stats) vec3 {
	var radiance vec3
	var stack [MaxDepth + 1]whittedBranch
	stack[0] = whittedBranch{ray: r, weight: vec3{1, 1, 1}}
	sp := 1
	known := true // first is the nearest hit of the first ray traced
	for sp > 0 {
		sp--
		b := stack[sp]
		for {
			var h Hit
			from := b.ray.Origin // the segment's start, before any alpha passes move the ray
			if known {
				h, known = s.seenFrom(&b.ray, first, smp, alphaStream(int(b.depth), alphaRayPath), st), false
			} else {
				h = s.intersectSeen(&b.ray, smp, alphaStream(int(b.depth), alphaRayPath), st)
			}
			st.Rays++
			if h.Kind == HitNone {
				radiance = maddv(radiance, b.weight, s.background(b.ray.Dir))
				break
			}
			var sf surfaceHit
			s.surfaceAt(&b.ray, &h, &sf)
			m, p, n, ns, tc := sf.m, sf.p, sf.ng, sf.ns, &sf.texCoords
			if absorbs(&sf) {
				b.weight = mul(b.weight, absorbed(&sf, from)) // the segment ran inside the glass
			}
			if m.Kind == MaterialEmissive {
				radiance = maddv(radiance, b.weight, s.emitted(m, tc))
				break
			}
			if m.Kind == MaterialUnlit { // as in tracePath
				if b.depth == 0 {
					radiance = maddv(radiance, b.weight, s.color(m, tc))
				}
				break
			}
			if int(b.depth) == s.Settings.MaxDepth {
				break
			}
			d := b.ray.Dir
			var next vec3
			switch m.Kind {
			case MaterialDiffuse, MaterialPhong:
				radiance = maddv(radiance, b.weight, s.phongLocal(&sf, d, smp, int(b.depth), st))
				kr := float32(0)
				if m.Kind == MaterialPhong {
					kr = m.Reflection
				}
				if !(kr > 0) {
					break
				}
				b.weight = scale(b.weight, kr)
				next = reflect(d, ns)
			case MaterialMetal:
				b.weight = mul(b.weight, s.color(m, tc))
				next = reflect(d, ns)
			case MaterialPBR:
				// Lambert for the base, a mirror weighted by the
				// reflectance at normal incidence for the coat or metal.
				radiance = maddv(radiance, b.weight, s.phongLocal(&sf, d, smp, int(b.depth), st).Add(s.emission(m, tc)))
				// (The clear coat does not enter l.f0.)
				f0, _, _ := pbrReflectance(m, s.color(m, tc), sf.metal, sf.specF0, sf.specF90)
				b.weight = mul(b.weight, f0)
				next = reflect(d, ns)
			case MaterialDielectric:
				eta := 1 / m.IOR
				if !sf.front { // leaving the medium
					eta = m.IOR
				}
				fr, refr, ok := refraction(d, ns, eta)
				if ok {
					t := scale(mul(b.weight, s.color(m, tc)), 1-fr)
					stack[sp] = whittedBranch{ray: spawn(p, n, sf.eps, refr), weight: t, depth: b.depth + 1}
					sp++
					b.weight = scale(b.weight, fr)
				}
				next = reflect(d, ns)
			}
			if next == (vec3{}) || sf.mapped && m.Kind != MaterialDielectric && !(dot(next, n) > 0) {
				break // no reflection, or (normal-mapped) one below the surface
			}
			b.ray = spawn(p, n, sf.eps, next)
			b.depth++
		}
	}
	return radiance
}

// phongLocal is the local shading of the scene format's phong model at p:
// ambient (a grey, not multiplied by the colour) + Σ over point lights not
// in shadow of diffuse·max(N·L,0)·colour·light + specular·max(N·H,0)^
// shininess·light. A diffuse material shades as phong with diffuse 1 and
// nothing else. depth is the hit's, for the shadow rays' alpha stream.
func (s *Scene) phongLocal(sf *surfaceHit, d vec3, smp *Sampler, depth int, st *Stats) vec3 {
	m, p, n, ns := sf.m, sf.p, sf.ng, sf.ns
	ambient, kd, ks := float32(0), float32(1), float32(0)
	if m.Kind == MaterialPhong {
		ambient, kd, ks = m.Ambient, m.Diffuse, m.Specular
	}
	c := s.color(m, &sf.texCoords)
	if m.Kind == MaterialPBR {
		c = scale(c, 1-clamp01(sf.metal))
	}
	out := vec3{ambient, ambient, ambient}
	view := vec3{-d[0], -d[1], -d[2]}
	for i := range s.Lights {
		l := &s.Lights[i]
		r, dir, dist := lightRay(l, p, n, sf.eps)
		ndotl := dot(ns, dir)
		if !(ndotl > 0) || sf.mapped && !(dot(n, dir) > 0) {
			continue
		}
		spot := spotFactor(l, dir)
		if !(spot > 0) {
			continue // outside a spot light's cone
		}
		st.Rays++
		if s.occludedSeen(r, smp, alphaStream(depth, alphaRayLight), false, st) {
			continue
		}
		li := pointLightRadiance(l, dist, spot)
		out = maddv(out, mul(c, li), vec3{float32(kd * ndotl), float32(kd * ndotl), float32(kd * ndotl)})
		if ks > 0 {
			hv := normalize(dir.Add(view))
			if ndoth := dot(ns, hv); ndoth > 0 {
				spec := float32(ks * fmath.Pow(ndoth, m.Shininess))
				out = madd(out, li, spec)
			}
		}
	}
	return out
}
