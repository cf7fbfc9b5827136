package tracer

// rouletteDepth is the number of bounces after which Russian roulette may
// end a path.
const rouletteDepth = 3

// tracePath returns the radiance along r by unidirectional path tracing
// with next-event estimation (docs/scene-format.md). Emission found by a
// bounce that next-event estimation already accounted for (one leaving a
// diffuse vertex) is not counted again.
func (s *Scene) tracePath(r Ray, rng *Sampler, st *Stats) vec3 {
	var radiance vec3
	beta := vec3{1, 1, 1}
	countEmitted := true
	for depth := 0; ; depth++ {
		h := s.Intersect(r)
		st.Rays++
		if h.Kind == HitNone {
			radiance = maddv(radiance, beta, s.background(r.Dir))
			break
		}
		sf := s.surfaceAt(&r, &h)
		m := sf.m
		if m.Kind == MaterialEmissive {
			if countEmitted {
				radiance = maddv(radiance, beta, s.emitted(m, sf.u, sf.v))
			}
			break
		}
		if depth == s.Settings.MaxDepth {
			break
		}
		ns := sf.ns
		var dir vec3
		switch m.Kind {
		case MaterialDiffuse:
			beta = mul(beta, s.color(m, sf.u, sf.v))
			radiance = maddv(radiance, beta, scale(s.directLight(&sf, rng, st), invPi))
			dir = cosineHemisphere(ns, rng.Float(), rng.Float())
			countEmitted = false
		case MaterialMetal:
			beta = mul(beta, s.color(m, sf.u, sf.v))
			dir = reflect(r.Dir, ns)
			fuzz := uniformSphere(rng.Float(), rng.Float())
			if m.Roughness > 0 {
				dir = normalize(madd(dir, fuzz, m.Roughness))
			}
			countEmitted = true
		case MaterialDielectric:
			eta := 1 / m.IOR
			if !sf.front { // leaving the medium
				eta = m.IOR
			}
			fr, refr, ok := refraction(r.Dir, ns, eta)
			if !ok || rng.Float() < fr {
				dir = reflect(r.Dir, ns)
			} else {
				dir = refr
				beta = mul(beta, s.color(m, sf.u, sf.v))
			}
			countEmitted = true
		case MaterialPhong:
			lobe, u1, u2 := rng.Float(), rng.Float(), rng.Float()
			kd, ks := phongWeights(m)
			kr := clamp01(m.Reflection)
			switch {
			case lobe < kr: // mirror reflection, with probability kr
				dir = reflect(r.Dir, ns)
				countEmitted = true
			case kd+ks == 0:
				return radiance
			case float32((lobe-kr)*(kd+ks)) < float32((1-kr)*kd): // diffuse lobe
				w := min(kd+ks, 1)
				beta = mul(beta, scale(s.color(m, sf.u, sf.v), w))
				radiance = maddv(radiance, beta, scale(s.directLight(&sf, rng, st), invPi))
				dir = cosineHemisphere(ns, u1, u2)
				countEmitted = false
			default: // glossy lobe about the mirror direction
				beta = scale(beta, min(kd+ks, 1))
				dir = phongLobe(reflect(r.Dir, ns), m.Shininess, u1, u2)
				countEmitted = true
			}
		}
		if !(dot(dir, ns) > 0) && m.Kind != MaterialDielectric {
			break // scattered below the surface: absorbed
		}
		r = spawn(sf.p, sf.ng, dir)
		if depth+1 >= rouletteDepth {
			q := max(0.05, 1-maxComponent(beta))
			if rng.Float() < q {
				break
			}
			beta = scale(beta, 1/(1-q))
		}
	}
	return radiance
}
