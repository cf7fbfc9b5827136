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
func (s *Scene) directLight(sf *surfaceHit, rng *Sampler, st *Stats) vec3 {
	p, n, ns := sf.p, sf.ng, sf.ns
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
	q, nl, area, m, eu, ev := s.sampleEmitter(s.Emitters[k], u1, u2)
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
	// Area sampling turned into solid angle: pdf = d² / (cos_l · area · ne).
	g := float32(float32(float32(cos*cosl)*area)*float32(ne)) / float32(dist*dist)
	return maddv(sum, s.emitted(m, eu, ev), vec3{g, g, g})
}

// sampleEmitter returns a point uniformly distributed over an emitter, its
// unit normal, the emitter's area, its material and the point's surface
// coordinates.
func (s *Scene) sampleEmitter(e Emitter, u1, u2 float32) (p, n vec3, area float32, m *Material, u, v float32) {
	if e.Kind == HitTriangle {
		tr := &s.Triangles[e.Index]
		a := &s.TriangleAttrs[e.Index]
		q, b1, b2 := tr.samplePoint(u1, u2)
		u, v = s.triangleUV(a, b1, b2)
		return q, normalize(cross(tr.E1, tr.E2)), tr.area(), &s.Materials[a.Material], u, v
	}
	sh := &s.Shapes[e.Index]
	q, nl, b1, b2 := sh.samplePoint(u1, u2)
	_, u, v = sh.surface(q, b1, b2)
	return q, nl, sh.Area, &s.Materials[sh.Material], u, v
}
