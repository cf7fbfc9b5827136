package tracer

// pointLightRadiance returns the radiance arriving from light l over the
// distance dist.
func pointLightRadiance(l *PointLight, dist float32) vec3 {
	li := scale(l.Color, l.Intensity)
	if l.Falloff == FalloffInverseSquare {
		d2 := float32(dist * dist)
		li = vec3{li[0] / d2, li[1] / d2, li[2] / d2}
	}
	return li
}

// directLight estimates the light arriving at point p (geometric normal n,
// shading normal ns facing the viewer) from every point light and from one
// emissive shape chosen at random, as Σ Li·cos θ / pdf. The caller
// multiplies by the BSDF. It draws exactly three numbers from rng.
func (s *Scene) directLight(p, n, ns vec3, rng *Sampler, st *Stats) vec3 {
	var sum vec3
	for i := range s.Lights {
		l := &s.Lights[i]
		r, dist := spawnTo(p, n, l.Position)
		cos := dot(ns, r.Dir)
		if !(cos > 0) {
			continue
		}
		st.Rays++
		if s.Occluded(r) {
			continue
		}
		sum = madd(sum, pointLightRadiance(l, dist), cos)
	}
	u0, u1, u2 := rng.Float(), rng.Float(), rng.Float()
	ne := len(s.Emitters)
	if ne == 0 {
		return sum
	}
	k := min(int(u0*float32(ne)), ne-1)
	e := &s.Shapes[s.Emitters[k]]
	q, nl, b1, b2 := e.samplePoint(u1, u2)
	r, dist := spawnTo(p, n, q)
	cos := dot(ns, r.Dir)
	cosl := absf(dot(nl, r.Dir))
	if !(cos > 0 && cosl > 0 && dist > 0) {
		return sum
	}
	st.Rays++
	if s.Occluded(r) {
		return sum
	}
	m := &s.Materials[e.Material]
	// Area sampling turned into solid angle: pdf = d² / (cos_l · area · ne).
	g := float32(float32(float32(cos*cosl)*e.Area)*float32(ne)) / float32(dist*dist)
	_, eu, ev := e.surface(q, b1, b2)
	return maddv(sum, s.emitted(m, eu, ev), vec3{g, g, g})
}
