package tracer

import (
	"math"

	"github.com/tracerender/trace/tracer/fmath"
)

// SpotCone returns the SpotScale and SpotOffset of a spot light whose
// cone is at full intensity within inner radians of its axis and dark
// beyond outer, 0 ≤ inner < outer ≤ π/2 (KHR_lights_punctual's
// innerConeAngle and outerConeAngle); the falloff between them is
// smooth, as glTF specifies.
func SpotCone(inner, outer float64) (scale, offset float32) {
	s := 1 / math.Max(0.001, math.Cos(inner)-math.Cos(outer))
	return float32(s), float32(-math.Cos(outer) * s)
}

// SunDisk returns the DiskOneMinusCos of a directional light whose disk
// has the apparent diameter angle, in degrees in [0, 180] (Blender's sun
// angle): 1 − cos(angle/2), computed in float64.
func SunDisk(angle float64) float32 {
	half := angle * math.Pi / 360
	// 1 − cos x = 2 sin²(x/2), without cancellation for small angles.
	sh := math.Sin(half / 2)
	return float32(2 * sh * sh)
}

// sunDims is the first of the dimensions of the numbers that pick the
// directions toward sun disks: past every bounce's, so that a scene
// without one keeps its numbers; sunDimension gives each light at each
// vertex its own pair.
const sunDims = cameraDims + (MaxDepth+1)*bounceDims

// sunDimension returns the first of the two dimensions that pick the
// direction toward sun light i at the vertex at depth.
func sunDimension(depth, i int) uint32 {
	return sunDims + 2*(uint32(i)*(MaxDepth+1)+uint32(depth))
}

// sampleSunDisk returns a direction uniformly distributed in the cone of
// directions about the unit axis w whose angle θ to it has 1 − cos θ ≤
// omc, from the numbers u1 and u2; sin θ comes from 1 − cos θ, without
// cancellation for the small cones of real suns.
func sampleSunDisk(w vec3, omc, u1, u2 float32) vec3 {
	s := float32(u1 * omc) // 1 − cos θ, uniform in [0, omc]
	sinT := sqrt32(max(0, float32(s*(2-s))))
	t, b := orthonormal(w)
	sinPhi, cosPhi := fmath.SinCos(float32(2*pi) * u2)
	return normalize(madd(madd(scale(w, 1-s), t, float32(sinT*cosPhi)), b, float32(sinT*sinPhi)))
}

// sunRadianceScale is the factor by which a sun disk's sample weighs the
// light's irradiance: over the cone's solid angle 2π·omc, a disk of
// radiance E/(π sin²α), sin²α = omc·(2 − omc), gives E·2/(2 − omc) per
// sample, 1 for a delta light.
func sunRadianceScale(omc float32) float32 { return 2 / (2 - omc) }

// spotFactor returns the share of light l's intensity that leaves it
// toward a point in the unit direction dir from that point to the light:
// 1 for a point light, KHR_lights_punctual's smooth cone for a spot light.
func spotFactor(l *PointLight, dir vec3) float32 {
	if l.SpotDir == (vec3{}) {
		return 1
	}
	cd := -dot(l.SpotDir, dir)
	a := clamp01(float32(cd*l.SpotScale) + l.SpotOffset)
	return float32(a * a)
}

// lightRay returns the shadow ray from p (geometric normal n, pushed eps
// off the surface) toward light l, the unit direction from p toward the
// light and the distance to it: spawnTo's for a point light; for a
// directional light, its direction and a ray with no far end (the
// distance is then infinity, which pointLightRadiance does not use).
func lightRay(l *PointLight, p, n vec3, eps float32) (r Ray, dir vec3, dist float32) {
	if l.Falloff == FalloffDirectional {
		return spawn(p, n, eps, l.Position), l.Position, infinity
	}
	return spawnTo(p, n, eps, l.Position)
}

// pointLightRadiance returns the radiance arriving from light l over the
// distance dist, spot the light's spotFactor toward the point.
func pointLightRadiance(l *PointLight, dist, spot float32) vec3 {
	li := scale(l.Color, float32(l.Intensity*spot))
	if l.Falloff == FalloffInverseSquare {
		d2 := float32(dist * dist)
		li = vec3{li[0] / d2, li[1] / d2, li[2] / d2}
	}
	return li
}

// directLight estimates the light that the surface at sf, of albedo c,
// reflects (rough glass: or transmits) back along the incoming direction
// d straight from the lights: every point and directional light (within
// its cone, for a spot light; toward one direction of its disk, for a sun
// with a DiskOneMinusCos) but those inTree,
// one light picked from the light tree, one point on an emitter (a shape
// or triangle of an emissive material, or of a pbr material with an
// Emission) or one of the point and spot lights inTree, and (for an image
// background) one direction of the environment
// picked in proportion to its brightness. The emitter and environment
// samples are weighted against BSDF sampling by the power heuristic;
// tracePath weighs the emission its bounces find the other way.
// It draws its numbers from the next five dimensions of smp (and leaves
// it at the sixth), whichever of them it uses, and a sun disk's from its
// own (sunDimension); depth is the vertex's, for the sun disks and
// the shadow rays' alpha streams, and at is the hit sf is the surface of.
func (s *Scene) directLight(sf *surfaceHit, at *Hit, d, c vec3, smp *Sampler, depth int, st *Stats) vec3 {
	p, n := sf.p, sf.ng
	var sum vec3
	for i := range s.Lights {
		l := &s.Lights[i]
		if s.inTree(l) {
			continue // picked from the light tree below
		}
		r, dir, dist := lightRay(l, p, n, sf.eps)
		sun := l.Falloff == FalloffDirectional && l.DiskOneMinusCos > 0
		if sun {
			base := smp.dim
			smp.SetDimension(sunDimension(depth, i))
			u1, u2 := smp.Float2()
			smp.SetDimension(base)
			dir = sampleSunDisk(l.Position, l.DiskOneMinusCos, u1, u2)
			r = spawn(p, n, sf.eps, dir)
		}
		spot := spotFactor(l, dir)
		if !(spot > 0) {
			continue // outside a spot light's cone: no shadow ray
		}
		f0, f1, f2, _ := evalScatter(sf, &d, &c, dir[0], dir[1], dir[2])
		if f0 == 0 && f1 == 0 && f2 == 0 {
			continue
		}
		st.Rays++
		if s.occludedSeen(r, smp, alphaStream(depth, alphaRayLight), false, st) {
			continue
		}
		li := pointLightRadiance(l, dist, spot)
		if sun {
			li = scale(li, sunRadianceScale(l.DiskOneMinusCos))
		}
		sum = maddv(sum, vec3{f0, f1, f2}, li)
	}
	base := smp.dim
	if len(s.LightNodes) > 0 {
		u0 := smp.Float()
		u1, u2 := smp.Float2()
		sum = sum.Add(s.emitterLight(sf, at, d, c, u0, u1, u2, smp, depth, st))
	}
	if s.Background.Kind == BackgroundImage && s.Background.Distribution != 0 {
		smp.SetDimension(base + 3)
		e1, e2 := smp.Float2()
		sum = sum.Add(s.environmentLight(sf, d, c, e1, e2, smp, alphaStream(depth, alphaRayEnv), st))
	}
	smp.SetDimension(base + 5)
	return sum
}

// emitterLight is directLight's sample of the light tree, for the
// vertex at depth: an emitter's, whose shadow ray takes the emitters'
// alpha stream, or a point or spot light's (treeLight).
func (s *Scene) emitterLight(sf *surfaceHit, at *Hit, d, c vec3, u0, u1, u2 float32, smp *Sampler, depth int, st *Stats) vec3 {
	k, pick := s.pickEmitterAt(sf.p, sf.ng, u0)
	if !(pick > 0) {
		return vec3{}
	}
	if k >= len(s.Emitters) {
		return s.treeLight(sf, d, c, &s.Lights[k-len(s.Emitters)], pick, smp, depth, st)
	}
	stream := alphaStream(depth, alphaRayEmitter)
	var es emitterSample
	s.sampleEmitter(s.Emitters[k], pick, sf.p, at, u1, u2, &es)
	if !(es.pdf > 0) {
		return vec3{}
	}
	dx, dy, dz := es.q[0]-sf.p[0], es.q[1]-sf.p[1], es.q[2]-sf.p[2]
	dist := sqrt32(float32(dx*dx) + float32(dy*dy) + float32(dz*dz))
	f0, f1, f2, bpdf := evalScatter(sf, &d, &c, dx/dist, dy/dist, dz/dist)
	if f0 == 0 && f1 == 0 && f2 == 0 {
		return vec3{}
	}
	var alpha float32 = 1
	if seeThrough(es.m) {
		if alpha = s.emitterAlpha(es.m, sf.p, es.q, es.n, &es.tc); !(alpha > 0) {
			return vec3{}
		}
	}
	st.Rays++
	if s.occludedSeen(shadowRayFrom(&es.q, &es.n, &sf.p, &sf.ng, sf.eps), smp, stream, true, st) {
		return vec3{}
	}
	w := float32(powerHeuristic(es.pdf, bpdf) / es.pdf)
	if alpha != 1 {
		w = float32(w * alpha)
	}
	return mul(vec3{f0, f1, f2}, scale(s.emitterRadiance(es.m, &es.tc), w))
}

// treeLight is emitterLight's term for the point or spot light l that the
// light tree picked with probability pick: directLight's term for it when
// it samples every light, over pick (a delta light: no MIS weight).
func (s *Scene) treeLight(sf *surfaceHit, d, c vec3, l *PointLight, pick float32, smp *Sampler, depth int, st *Stats) vec3 {
	r, dir, dist := lightRay(l, sf.p, sf.ng, sf.eps)
	spot := spotFactor(l, dir)
	if !(spot > 0) {
		return vec3{}
	}
	f0, f1, f2, _ := evalScatter(sf, &d, &c, dir[0], dir[1], dir[2])
	if f0 == 0 && f1 == 0 && f2 == 0 {
		return vec3{}
	}
	st.Rays++
	if s.occludedSeen(r, smp, alphaStream(depth, alphaRayLight), false, st) {
		return vec3{}
	}
	li := pointLightRadiance(l, dist, spot)
	return mul(vec3{f0, f1, f2}, vec3{li[0] / pick, li[1] / pick, li[2] / pick})
}

// emitterRadiance returns the radiance that a surface of the emitting
// material m (isEmitter) sends out at tc, toward either side: an emissive
// material's colour × intensity, a pbr material's Emission × EmissionMap.
func (s *Scene) emitterRadiance(m *Material, tc *texCoords) vec3 {
	if m.Kind == MaterialPBR {
		return s.emission(m, tc)
	}
	return s.emitted(m, tc)
}

// pickEmitterAt returns the emitter that next-event estimation at p (on a
// surface of unit normal n) samples (or a light inTree, as pickLight
// returns it), picked with the number u in [0, 1), and the probability of
// that pick (0: none): the light tree's (pickLight), or with powerPicks
// the power's (pickEmitter), which never picks a light inTree.
func (s *Scene) pickEmitterAt(p, n vec3, u float32) (int, float32) {
	if s.powerPicks {
		if len(s.Emitters) == 0 {
			return -1, 0
		}
		k := s.pickEmitter(u)
		return k, s.powerPick(k)
	}
	return s.pickLight(p, n, u)
}

// emitterPick returns the probability with which pickEmitterAt at p
// (normal n) picks the emitter that is the triangle or shape of the kind
// and index given (0 for one that is no emitter).
func (s *Scene) emitterPick(p, n vec3, kind HitKind, index uint32) float32 {
	k := s.emitterOf(kind, index)
	if k < 0 {
		return 0
	}
	if s.powerPicks {
		return s.powerPick(k)
	}
	return s.lightPick(p, n, k)
}

// powerPick returns the probability with which pickEmitter picks emitter
// k: its material's LightPDF × its area.
func (s *Scene) powerPick(k int) float32 {
	e := s.Emitters[k]
	if e.Kind == HitTriangle {
		return float32(s.Materials[s.TriangleAttrs[e.Index].Material].LightPDF * s.Triangles[e.Index].area())
	}
	sh := &s.Shapes[e.Index]
	return float32(s.Materials[sh.Material].LightPDF * sh.Area)
}

// pickEmitter returns the index of the emitter whose slice of the
// cumulative distribution holds u in [0, 1): the first with u < CDF.
func (s *Scene) pickEmitter(u float32) int {
	lo, hi := 0, len(s.Emitters)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if u < s.Emitters[mid].CDF {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// emitterSample is a point of an emitter that sampleEmitter picked.
type emitterSample struct {
	q, n vec3      // the point and the emitter's unit normal there
	pdf  float32   // the solid-angle density of picking q (see sampleEmitter)
	m    *Material // the emitter's material
	tc   texCoords // the emitter's texture coordinates at q
}

// sampleEmitter sets *es to a point q of emitter e as seen from p, which
// lies on the surface of hit at, its unit normal, the solid-angle density
// at p of picking it (the emitter's pick probability pick included; 0 if
// the sample is unusable, or the material has no LightPDF), and its
// material and surface coordinates. A sphere
// seen from outside is sampled uniformly in the cone it subtends; a
// triangle or quad that subtends a solid angle in [minSphericalArea,
// maxSphericalArea] uniformly in it (spherical.go); others, a sphere
// around p, and a sphere that p lies on (an emitting pbr sphere lighting
// its own inside: whether p rounded to just outside it must not matter),
// uniformly by area. It fills the caller's emitterSample rather than
// returning one, as surfaceAt does: a result this large is copied
// through the stack.
func (s *Scene) sampleEmitter(e Emitter, pick float32, p vec3, at *Hit, u1, u2 float32, es *emitterSample) {
	var area float32
	var tr *Triangle
	var sh *Shape
	if e.Kind == HitTriangle {
		tr = &s.Triangles[e.Index]
		es.m, es.n, area = &s.Materials[s.TriangleAttrs[e.Index].Material], normalize(cross(tr.E1, tr.E2)), tr.area()
	} else {
		sh = &s.Shapes[e.Index]
		es.m, es.n, area = &s.Materials[sh.Material], sh.N, sh.Area
	}
	if !(es.m.LightPDF > 0) {
		pick = 0 // nothing emits, or the total power is not finite
	}
	if sh != nil {
		if sh.Kind == ShapeSphere {
			if cq, cn, cpdf, ok := sampleSphereCone(sh.P0, sh.P1[0], p, u1, u2); ok && !onEmitter(at, e.Kind, e.Index) {
				_, _, _, u, v := sh.surface(cq[0], cq[1], cq[2], 0, 0)
				es.q, es.n, es.pdf, es.tc = cq, cn, float32(pick*cpdf), shapeCoords(u, v)
				return
			}
			var b1, b2 float32
			es.q, es.n, b1, b2 = sh.samplePoint(u1, u2)
			_, _, _, u, v := sh.surface(es.q[0], es.q[1], es.q[2], b1, b2)
			es.pdf, es.tc = areaToSolidAngle(pick/area, &p, &es.q, &es.n), shapeCoords(u, v)
			return
		}
	}
	// A triangle or a quad: by solid angle from close by, else by area.
	var b1, b2 float32
	if omega, first, ok := s.flatSolidAngle(e.Kind, e.Index, area, p); ok {
		if es.q, b1, b2, ok = s.sampleFlatBySolidAngle(e, p, omega, first, u1, u2); !ok {
			es.pdf, es.tc = 0, shapeCoords(0, 0)
			return
		}
		es.pdf = pick / omega
	} else {
		if tr != nil {
			es.q, b1, b2 = tr.samplePoint(u1, u2)
		} else {
			es.q, es.n, b1, b2 = sh.samplePoint(u1, u2)
		}
		es.pdf = areaToSolidAngle(pick/area, &p, &es.q, &es.n)
	}
	if tr != nil {
		es.tc = s.triangleCoords(&s.TriangleAttrs[e.Index], b1, b2)
	} else {
		es.tc = shapeCoords(b1, b2) // a quad's (u, v) are its edge fractions
	}
}

// onEmitter reports whether the hit at is on the emitter of kind and
// index given.
func onEmitter(at *Hit, kind HitKind, index uint32) bool {
	return at.Kind == kind && at.Index == index
}

// areaToSolidAngle turns a density per unit area at point q (unit normal n)
// into the density per solid angle seen from p: pdf·d²/|cos θ|. It is 0
// when the direction grazes the surface. It takes the vectors by
// pointer, which spares copying them through the stack.
func areaToSolidAngle(pdf float32, p, q, n *vec3) float32 {
	dx, dy, dz := q[0]-p[0], q[1]-p[1], q[2]-p[2]
	d2 := float32(dx*dx) + float32(dy*dy) + float32(dz*dz)
	cos := absf(float32(n[0]*dx)+float32(n[1]*dy)+float32(n[2]*dz)) / sqrt32(d2)
	if !(cos > 0) {
		return 0
	}
	return float32(pdf*d2) / cos
}

// emitterPdf returns the solid-angle density with which emitterLight,
// from point p on the surface of hit at (geometric normal n), picks the
// point q of the emissive surface a ray from p hit (sf, with the hit's
// shape or triangle h): the emitter's pick probability at p
// (emitterPick) over its area, turned to solid angle as sampleEmitter
// samples it.
func (s *Scene) emitterPdf(p, n vec3, at *Hit, sf *surfaceHit, h *Hit) float32 {
	if !(sf.m.LightPDF > 0) {
		return 0
	}
	pick := s.emitterPick(p, n, h.Kind, h.Index)
	if !(pick > 0) {
		return 0
	}
	var area float32
	if h.Kind == HitShape {
		sh := &s.Shapes[h.Index]
		if sh.Kind == ShapeSphere {
			if cpdf, ok := sphereConePdf(sh.P0, sh.P1[0], p); ok && !onEmitter(at, h.Kind, h.Index) {
				return float32(pick * cpdf)
			}
			// Seen from inside or from itself, sampled by area
			// (sampleEmitter).
			return areaToSolidAngle(pick/sh.Area, &p, &sf.p, &sf.ng)
		}
		area = sh.Area
	} else {
		area = s.Triangles[h.Index].area()
	}
	if omega, _, ok := s.flatSolidAngle(h.Kind, h.Index, area, p); ok {
		return pick / omega
	}
	return areaToSolidAngle(pick/area, &p, &sf.p, &sf.ng)
}
