package tracer

// rouletteDepth is the number of bounces after which Russian roulette may
// end a path.
const rouletteDepth = 3

// Dimensions of a pixel sample's numbers (Sampler): the camera takes the
// first cameraDims, then each bounce takes bounceDims from
// cameraDims + depth·bounceDims on, whatever it uses of them, so that a
// given dimension always serves the same purpose and stays stratified
// across the pixel's samples.
const (
	cameraDims = 4 // pixel position (2), lens position (2)
	bounceDims = 9 // light pick (1), light point (2), environment (2), lobe (1), direction (2), roulette (1)
)

// tracePath returns the radiance along r, whose nearest hit is first
// (Intersect's), by unidirectional path tracing
// (docs/scene-format.md). At every vertex with a diffuse or glossy lobe,
// rough glass included, next-event estimation samples the lights, and the
// bounce samples the BSDF; emission found either way is weighed by the
// power heuristic against the other, so neither small bright lights nor
// large dim ones make fireflies. Mirror and smooth glass bounces see
// emission in full.
func (s *Scene) tracePath(r Ray, first Hit, smp *Sampler, st *Stats) vec3 {
	var radiance vec3
	beta := vec3{1, 1, 1}
	// The last bounce's density (0 after a mirror or the camera: emission
	// then counts in full), the vertex it left from, its geometric normal
	// and its hit.
	var lastPdf float32
	var lastP, lastN vec3
	var lastAt Hit
	for depth := 0; ; depth++ {
		var h Hit
		from := r.Origin // the segment's start, before any alpha passes move r
		if depth == 0 {
			h = s.seenFrom(&r, first, smp, alphaStream(depth, alphaRayPath), st)
		} else {
			h = s.intersectSeen(&r, smp, alphaStream(depth, alphaRayPath), st)
		}
		st.Rays++
		if h.Kind == HitNone {
			bg := s.background(r.Dir)
			if lastPdf > 0 && s.Background.Kind == BackgroundImage && s.Background.Distribution != 0 {
				bg = scale(bg, powerHeuristic(lastPdf, s.environmentPdf(r.Dir)))
			}
			radiance = maddv(radiance, beta, bg)
			break
		}
		var sf surfaceHit
		s.surfaceAt(&r, &h, &sf)
		m := sf.m
		if absorbs(&sf) {
			beta = mul(beta, absorbed(&sf, from)) // the segment ran inside the glass
		}
		if m.Kind == MaterialEmissive {
			le := s.emitted(m, &sf.texCoords)
			if lastPdf > 0 {
				le = scale(le, powerHeuristic(lastPdf, s.emitterPdf(lastP, lastN, &lastAt, &sf, &h)))
			}
			radiance = maddv(radiance, beta, le)
			break
		}
		if m.Kind == MaterialUnlit {
			// Only a camera ray stops here (present): its colour as
			// radiance. Any other ray meets it only past MaxAlphaPasses
			// surfaces, and ends with nothing.
			if depth == 0 {
				radiance = maddv(radiance, beta, s.color(m, &sf.texCoords))
			}
			break
		}
		if m.Kind == MaterialPBR && m.Emission != (vec3{}) {
			// An emitter that also scatters: its emission is weighed as
			// an emissive material's, and the path goes on.
			le := s.emission(m, &sf.texCoords)
			if lastPdf > 0 {
				le = scale(le, powerHeuristic(lastPdf, s.emitterPdf(lastP, lastN, &lastAt, &sf, &h)))
			}
			radiance = maddv(radiance, beta, le)
		}
		if depth == s.Settings.MaxDepth {
			break
		}
		base := cameraDims + uint32(depth)*bounceDims
		smp.SetDimension(base)
		ns := sf.ns
		var dir vec3
		lastPdf = 0
		switch m.Kind {
		case MaterialDiffuse, MaterialPhong, MaterialMetal, MaterialPBR:
			c := s.color(m, &sf.texCoords)
			if isGlossy(m, sf.metal, sf.rough, sf.clear, sf.clearRough) {
				radiance = maddv(radiance, beta, s.directLight(&sf, &h, r.Dir, c, smp, depth, st))
			} else {
				smp.SetDimension(base + 5)
			}
			lobe := smp.Float()
			u1, u2 := smp.Float2()
			d, w, pdf, ok := sampleScatter(&sf, r.Dir, c, lobe, u1, u2)
			if !ok {
				return radiance
			}
			dir, beta, lastPdf, lastP, lastN, lastAt = d, mul(beta, w), pdf, sf.p, sf.ng, h
		case MaterialDielectric:
			c := s.color(m, &sf.texCoords)
			alpha := ggxAlpha(clamp01(m.Roughness))
			rough := !(alpha < ggxMinAlpha) && !s.glassBSDFOnly
			if rough {
				radiance = maddv(radiance, beta, s.directLight(&sf, &h, r.Dir, c, smp, depth, st))
			} else {
				smp.SetDimension(base + 5)
			}
			lobe := smp.Float()
			u1, u2 := smp.Float2()
			d, w, refracted, pdf, ok := sampleDielectric(ns, r.Dir, dielectricEta(&sf), alpha, lobe, u1, u2)
			// On a normal-mapped surface, a rough reflection below the
			// geometric surface or refraction above it is absorbed, as
			// evalScatter gives it nothing.
			if !ok || rough && sf.mapped && refracted == (dot(d, sf.ng) > 0) {
				return radiance
			}
			dir, beta = d, scale(beta, w)
			if refracted {
				beta = mul(beta, c)
			}
			if rough {
				lastPdf, lastP, lastN, lastAt = pdf, sf.p, sf.ng, h
			}
		}
		if (!(dot(dir, ns) > 0) || sf.mapped && !(dot(dir, sf.ng) > 0)) && m.Kind != MaterialDielectric {
			break // scattered below the surface: absorbed
		}
		r = spawn(sf.p, sf.ng, sf.eps, dir)
		if depth+1 >= rouletteDepth {
			// A path goes on with probability √(max β) (at most 1), as
			// in Cycles: milder than max β, so fewer paths end while
			// they still carry light. Measured on the gallery at equal
			// CPU time (scripts/cycles-compare.sh, noise² × CPU s): the
			// Cornell box 13 % better than max β, materials 16 %, mesh 8 %.
			smp.SetDimension(base + 8)
			survive := min(1, sqrt32(maxComponent(beta)))
			if !(smp.Float() < survive) {
				break
			}
			beta = scale(beta, 1/survive)
		}
	}
	return radiance
}
