package tracer

import (
	"fmt"
	"slices"
)

// Alpha (cut-outs and stochastic transparency) and single-sided surfaces.
//
// A ray whose nearest hit is a surface that is not there at that point —
// the back of a single-sided material, or a point where the alpha test
// fails — goes on from just past it without counting a bounce, and so do
// shadow rays, so a cut-out casts the shadow of its opaque part only. The
// BVH traversal stays as it is: Intersect and Occluded know nothing of
// alpha, and scenes without see-through materials (Scene.SeeThrough false)
// take them as before, with the same bits.

// MaxAlphaPasses bounds the surfaces one ray passes through: past that
// many, the next surface it meets stops it (a camera or bounce ray hits
// it; a shadow ray is blocked), whatever its alpha.
const MaxAlphaPasses = 16

// Alpha streams: which ray of a path vertex a blended surface's random
// number is for (alphaFloat). A bounce's rays are told apart by the depth
// of the vertex they leave (0 for the camera ray) and by these roles.
const (
	alphaRayPath    = 0 // the camera ray, or a bounce ray
	alphaRayLight   = 1 // a shadow ray toward a point light
	alphaRayEmitter = 2 // a shadow ray toward an emissive shape
	alphaRayEnv     = 3 // a shadow ray toward the environment
	alphaRoles      = 4
)

// alphaStream returns the stream of the ray with the role given leaving
// the vertex at depth.
func alphaStream(depth int, role uint32) uint32 { return uint32(depth)*alphaRoles + role }

// alphaFloat returns the number, uniform in [0, 1), that decides whether a
// blended surface is there for the pass-th surface a ray of the stream
// given meets: a pure function of (seed, pixel, sample index, stream,
// pass), drawn apart from the sampler's dimensions so that scenes without
// blending keep their numbers.
func (smp *Sampler) alphaFloat(stream, pass uint32) float32 {
	return unitFloat(hash32(smp.seed ^ hash32(smp.index^hash32(stream*0x9e3779b9+pass*0x85ebca6b+0x632be5ab))))
}

// seeThrough reports whether material m may let rays through.
// An unlit material lets through every ray but the camera's.
func seeThrough(m *Material) bool {
	return m.AlphaMode != AlphaOpaque || m.SingleSided != 0 || m.Kind == MaterialUnlit
}

// hitMaterial returns the material of hit h.
func (s *Scene) hitMaterial(h *Hit) *Material {
	if h.Kind == HitTriangle {
		return &s.Materials[s.TriangleAttrs[h.Index].Material]
	}
	return &s.Materials[s.Shapes[h.Index].Material]
}

// alphaAt returns material m's alpha at the texture coordinates tc:
// Alpha × the colour texture's alpha × AlphaMap's alpha.
func (s *Scene) alphaAt(m *Material, tc *texCoords) float32 {
	a := m.Alpha
	if m.Texture != NoTexture {
		a = float32(a * s.textureAlpha(m.Texture, tc))
	}
	if m.AlphaMap != 0 {
		a = float32(a * s.textureAlpha(int32(m.AlphaMap-1), tc))
	}
	return a
}

// present reports whether the surface of material m is there at tc for
// the pass-th surface a ray of the stream meets. An unlit material is
// there for the camera ray alone (stream 0, alphaStream(0, alphaRayPath),
// also past the surfaces it passed): bounce and shadow rays go through it.
func (s *Scene) present(m *Material, tc *texCoords, smp *Sampler, stream, pass uint32) bool {
	if m.Kind == MaterialUnlit && stream != 0 {
		return false
	}
	switch m.AlphaMode {
	case AlphaMask:
		return s.alphaAt(m, tc) >= m.AlphaCutoff
	case AlphaBlend:
		return smp.alphaFloat(stream, pass) < s.alphaAt(m, tc)
	}
	return true
}

// passThrough reports whether a ray r passes through the surface at its
// hit h (see the top of this file), and returns that surface. A ray
// fromLight (a shadow ray traced from the light toward the shaded point)
// sees a single-sided surface as a ray the other way would: the back is
// the side it leaves by.
func (s *Scene) passThrough(r *Ray, h *Hit, smp *Sampler, stream, pass uint32, fromLight bool) (bool, surfaceHit) {
	if !seeThrough(s.hitMaterial(h)) {
		return false, surfaceHit{}
	}
	var sf surfaceHit
	s.surfaceAt(r, h, &sf)
	if back := sf.front == fromLight; sf.m.SingleSided != 0 && back {
		return true, sf
	}
	return !s.present(sf.m, &sf.texCoords, smp, stream, pass), sf
}

// intersectSeen is Intersect for a ray with no far end that passes
// through surfaces that are not there: it returns the nearest hit of one
// that is (or the MaxAlphaPasses+1-th surface met), and leaves in *r the
// ray that found it, which starts past the surfaces passed. It counts the
// extra queries in st.
func (s *Scene) intersectSeen(r *Ray, smp *Sampler, stream uint32, st *Stats) Hit {
	if !s.SeeThrough { // small enough to inline: no cost without alpha
		return s.Intersect(*r)
	}
	return s.passFrom(r, s.Intersect(*r), smp, stream, st)
}

// seenFrom is intersectSeen for a ray whose nearest hit, h, is known
// (Intersect's, as a packet of camera rays finds it).
func (s *Scene) seenFrom(r *Ray, h Hit, smp *Sampler, stream uint32, st *Stats) Hit {
	if !s.SeeThrough {
		return h
	}
	return s.passFrom(r, h, smp, stream, st)
}

// passFrom is intersectSeen in a scene with see-through surfaces, from
// the ray's nearest hit h.
func (s *Scene) passFrom(r *Ray, h Hit, smp *Sampler, stream uint32, st *Stats) Hit {
	for pass := uint32(0); h.Kind != HitNone && pass < MaxAlphaPasses; pass++ {
		through, sf := s.passThrough(r, &h, smp, stream, pass, false)
		if !through {
			break
		}
		*r = spawn(sf.p, sf.ng, sf.eps, r.Dir)
		h = s.Intersect(*r)
		st.Rays++
	}
	return h
}

// occludedSeen is Occluded for a shadow ray that passes through surfaces
// that are not there: whether a surface that is lies along r within
// (0, r.TMax). Past a surface the ray goes on toward its old end point;
// the MaxAlphaPasses+1-th surface met blocks it. fromLight says that r
// runs from the light to the shaded point (see passThrough). It counts
// the extra queries in st.
func (s *Scene) occludedSeen(r Ray, smp *Sampler, stream uint32, fromLight bool, st *Stats) bool {
	if !s.SeeThrough { // small enough to inline: no cost without alpha
		return s.Occluded(r)
	}
	return s.occludedPassing(r, smp, stream, fromLight, st)
}

// occludedPassing is occludedSeen in a scene with see-through surfaces.
func (s *Scene) occludedPassing(r Ray, smp *Sampler, stream uint32, fromLight bool, st *Stats) bool {
	if !s.Occluded(r) {
		return false
	}
	end := r.At(r.TMax)
	for pass := uint32(0); ; pass++ {
		h := s.Intersect(r)
		st.Rays++
		if h.Kind == HitNone {
			return false
		}
		if pass == MaxAlphaPasses {
			return true
		}
		through, sf := s.passThrough(&r, &h, smp, stream, pass, fromLight)
		if !through {
			return true
		}
		o := spawn(sf.p, sf.ng, sf.eps, r.Dir).Origin
		d := end.Sub(o)
		if !(dot(d, r.Dir) > 0) {
			return false // pushed past the end
		}
		l := length(d)
		r = Ray{Origin: o, Dir: vec3{d[0] / l, d[1] / l, d[2] / l}, TMax: l}
	}
}

// emitterAlpha returns the share of an emitter's light of material m
// that reaches p from its point q (unit normal nq, texture coordinates
// tc): 0 from
// behind a single-sided one; for a mask, 0 or 1 by the alpha test; for a
// blend, the probability that a ray sees it, alpha clamped to [0, 1].
// Next-event estimation weighs the emission with it, so that it agrees in
// expectation with the rays that hit the emitter.
func (s *Scene) emitterAlpha(m *Material, p, q, nq vec3, tc *texCoords) float32 {
	if m.SingleSided != 0 && dot(nq, p.Sub(q)) < 0 {
		return 0
	}
	switch m.AlphaMode {
	case AlphaMask:
		if s.alphaAt(m, tc) >= m.AlphaCutoff {
			return 1
		}
		return 0
	case AlphaBlend:
		return clamp01(s.alphaAt(m, tc))
	}
	return 1
}

// textureAlpha returns texture ti's alpha at the coordinate set it names
// in tc: its image's alpha channel, looked up as textureAt looks up the
// colour (the UV transform, wrap modes and filter), or 1 for a checker or
// an image without one.
func (s *Scene) textureAlpha(ti int32, tc *texCoords) float32 {
	t := &s.Textures[ti]
	if t.Kind != TextureImage || t.AlphaOffset == 0 {
		return 1
	}
	u, v := tc.u, tc.v
	if t.TexCoord == 1 {
		u, v = tc.u1, tc.v1
	}
	u, v = t.transformUV(u, v)
	return s.sampleAlpha(t, u, v)
}

// sampleAlpha is sampleWrapped for the alpha values at t.AlphaOffset.
func (s *Scene) sampleAlpha(t *Texture, u, v float32) float32 {
	W, H := int(t.Width), int(t.Height)
	w, h := float32(t.Width), float32(t.Height)
	u, v = wrapCoord(u, t.WrapS), wrapCoord(v, t.WrapT)
	a := s.Texels[int(t.AlphaOffset):]
	if t.Filter == FilterNearest {
		ix := wrapIndex(int(floor32(float32(u*w))), W, t.WrapS)
		iy := wrapIndex(int(floor32(float32((1-v)*h))), H, t.WrapT)
		return a[iy*W+ix]
	}
	x := float32(u*w) - 0.5
	y := float32((1-v)*h) - 0.5
	x0, y0 := floor32(x), floor32(y)
	fx, fy := x-x0, y-y0
	ix0, iy0 := int(x0), int(y0)
	ix0, ix1 := wrapIndex(ix0, W, t.WrapS), wrapIndex(ix0+1, W, t.WrapS)
	iy0, iy1 := wrapIndex(iy0, H, t.WrapT), wrapIndex(iy0+1, H, t.WrapT)
	top := float32(a[iy0*W+ix0]*(1-fx)) + float32(a[iy0*W+ix1]*fx)
	bottom := float32(a[iy1*W+ix0]*(1-fx)) + float32(a[iy1*W+ix1]*fx)
	return float32(top*(1-fy)) + float32(bottom*fy)
}

// compileAlpha appends to s.Texels the alpha of each image that a
// material reads alpha from (alphaTextures),
// sets those textures' AlphaOffset, and sets s.SeeThrough. Other images'
// alpha costs nothing. Texels that compileTextures copied have room for
// the alpha; an image's own (a lone image's) are not written past.
func (s *Scene) compileAlpha(d *SceneDesc) {
	own := len(s.Texels) == 0 || len(d.Images) == 0 || &s.Texels[0] != &d.Images[0].Pix[0]
	offsets := make([]uint32, len(d.Images)) // 0: not stored
	use := func(ti int32) {
		if ti < 0 || int(ti) >= len(s.Textures) {
			return
		}
		t := &s.Textures[ti]
		if t.Kind != TextureImage {
			return
		}
		img := &d.Images[t.Image]
		if len(img.Alpha) == 0 {
			return
		}
		if offsets[t.Image] == 0 {
			offsets[t.Image] = uint32(len(s.Texels))
			if a := img.Alpha[:img.Width*img.Height]; own {
				s.Texels = append(s.Texels, a...)
			} else {
				s.Texels = appendTexels(s.Texels, a)
			}
		}
		t.AlphaOffset = offsets[t.Image]
	}
	for i := range s.Materials {
		if seeThrough(&s.Materials[i]) {
			s.SeeThrough = true
		}
	}
	alphaTextures(s.Materials, use)
	// What follows the texels may be an image's memory: nothing that
	// appends to them later may write there.
	s.Texels = slices.Clip(s.Texels)
}

// alphaTextures calls f with the index of each texture that a material
// reads alpha from: a material not opaque, its colour texture and
// AlphaMap; a pbr material with DielectricSpecular, its SpecularMap
// (Scene.dielectricSpecular). It goes in the materials' order; the index
// may be out of range or not an image's.
func alphaTextures(materials []Material, f func(ti int32)) {
	for i := range materials {
		m := &materials[i]
		if m.AlphaMode != AlphaOpaque {
			f(m.Texture)
			if m.AlphaMap != 0 {
				f(int32(m.AlphaMap - 1))
			}
		}
		if m.Kind == MaterialPBR && m.DielectricSpecular != 0 && m.SpecularMap != 0 {
			f(int32(m.SpecularMap - 1))
		}
	}
}

// checkAlpha checks a material's alpha fields, ntex being the number of
// textures.
func checkAlpha(m *Material, ntex int) error {
	switch {
	case m.AlphaMode >= NumAlphaModes:
		return fmt.Errorf("unknown alpha mode %d", m.AlphaMode)
	case int64(m.AlphaMap) > int64(ntex):
		return fmt.Errorf("alpha map %d out of range", m.AlphaMap)
	case m.AlphaMode != AlphaOpaque && !(m.Alpha >= 0 && m.Alpha <= 1):
		return fmt.Errorf("alpha %g: must be in [0, 1]", m.Alpha)
	case m.AlphaMode == AlphaMask && !(m.AlphaCutoff >= 0 && m.AlphaCutoff <= 1):
		return fmt.Errorf("alpha cutoff %g: must be in [0, 1]", m.AlphaCutoff)
	}
	return nil
}
