package tracer

import (
	"math"

	"github.com/tracerender/trace/tracer/fmath"
)

// floor32 is floor for float32 (exact, as C's floorf).
func floor32(x float32) float32 { return float32(math.Floor(float64(x))) }

// color returns the material's colour at texture coordinates tc: its
// texture's value there, or its constant Color, times the vertex colour.
func (s *Scene) color(m *Material, tc *texCoords) vec3 {
	c := m.Color
	if m.Texture != NoTexture {
		c = s.textureOf(m.Texture, tc)
	}
	return mul(c, tc.tint)
}

// pbrParams returns a metal's or pbr material's metallic and roughness at
// tc: its factors, times the blue and green of its RoughMap there.
func (s *Scene) pbrParams(m *Material, tc *texCoords) (metal, rough float32) {
	metal, rough = m.Metallic, m.Roughness
	if m.RoughMap != 0 {
		c := s.textureOf(int32(m.RoughMap-1), tc)
		metal, rough = float32(metal*c[2]), float32(rough*c[1])
	}
	return metal, rough
}

// clearcoatParams returns a pbr material's clear coat and its roughness
// at tc: its factors, times the red of its ClearcoatMap and the green of
// its ClearcoatRoughnessMap there (glTF's clearcoatTexture and
// clearcoatRoughnessTexture); 0 and 0 for the other materials.
// Materials without the maps take no lookup.
func (s *Scene) clearcoatParams(m *Material, tc *texCoords) (clear, rough float32) {
	if m.Kind != MaterialPBR {
		return 0, 0
	}
	clear, rough = m.Clearcoat, m.ClearcoatRoughness
	if m.ClearcoatMap != 0 {
		clear = float32(clear * s.textureOf(int32(m.ClearcoatMap-1), tc)[0])
	}
	if m.ClearcoatRoughnessMap != 0 {
		rough = float32(rough * s.textureOf(int32(m.ClearcoatRoughnessMap-1), tc)[1])
	}
	return clear, rough
}

// pbrSpecular returns the dielectric F0 and F90 of a material with no
// specular of its own (glTF's default: ior 1.5, specular 1, white), and a
// metal's (which has no dielectric part).
func pbrSpecular(m *Material) (f0 vec3, f90 float32) {
	if m.Kind == MaterialPBR && m.DielectricSpecular != 0 {
		return m.SpecularF0, m.SpecularF90
	}
	return vec3{0.04, 0.04, 0.04}, 1
}

// dielectricSpecular returns a metal's or pbr material's dielectric F0
// and F90 at tc (pbrSpecular), a pbr material's F0 times its
// SpecularColorMap's colour there and clamped to F90, and both times its
// SpecularMap's alpha there (Material.SpecularMap). Materials without the
// maps take no lookup.
func (s *Scene) dielectricSpecular(m *Material, tc *texCoords) (f0 vec3, f90 float32) {
	f0, f90 = pbrSpecular(m)
	if m.Kind != MaterialPBR || m.DielectricSpecular == 0 || m.SpecularMap|m.SpecularColorMap == 0 {
		return f0, f90
	}
	if m.SpecularColorMap != 0 {
		t := s.textureOf(int32(m.SpecularColorMap-1), tc)
		f0 = vec3{min(float32(f0[0]*t[0]), f90), min(float32(f0[1]*t[1]), f90), min(float32(f0[2]*t[2]), f90)}
	}
	if m.SpecularMap != 0 {
		a := s.textureAlpha(int32(m.SpecularMap-1), tc)
		f0, f90 = scale(f0, a), float32(f90*a)
	}
	return f0, f90
}

// emission returns a pbr material's emitted radiance at tc: Emission,
// times its EmissionMap there.
func (s *Scene) emission(m *Material, tc *texCoords) vec3 {
	if m.EmissionMap == 0 {
		return m.Emission
	}
	return mul(m.Emission, s.textureOf(int32(m.EmissionMap-1), tc))
}

// textureOf returns texture ti's value at the coordinate set it names.
func (s *Scene) textureOf(ti int32, tc *texCoords) vec3 {
	if s.Textures[ti].TexCoord == 1 {
		return s.textureAt(ti, tc.u1, tc.v1)
	}
	return s.textureAt(ti, tc.u, tc.v)
}

// textureAt returns texture ti's value at surface coordinates (u, v).
func (s *Scene) textureAt(ti int32, u, v float32) vec3 {
	t := &s.Textures[ti]
	u, v = t.transformUV(u, v)
	if t.Kind == TextureImage {
		if t.WrapS != WrapRepeat || t.WrapT != WrapRepeat || t.Filter != FilterLinear {
			return mul(s.sampleWrapped(t, u, v), t.Even)
		}
		return mul(s.sampleImage(t, u, v, false), t.Even) // Even: the tint
	}
	// Parity of ⌊u·scale⌋ + ⌊v·scale⌋, computed in float32 so that huge
	// coordinates (far along a plane) stay defined: f − 2⌊f/2⌋ is 0 or 1.
	f := floor32(float32(u*t.Scale)) + floor32(float32(v*t.Scale))
	if f-2*floor32(f*0.5) == 0 {
		return t.Even
	}
	return t.Odd
}

// background returns the radiance of a ray leaving the scene along the
// unit direction d.
func (s *Scene) background(d vec3) vec3 {
	b := &s.Background
	switch b.Kind {
	case BackgroundGradient:
		t := float32(0.5 * (d[1] + 1))
		return madd(scale(b.Bottom, 1-t), b.Top, t)
	case BackgroundImage:
		// Equirectangular: u = (atan2(−x, z) + π)/2π puts +z at the
		// centre column and −x (the right of a camera looking along +z)
		// to its right; v = 1 − acos(y)/π puts straight up on the top row.
		d = b.toMap(d)
		u := (fmath.Atan2(-d[0], d[2]) + pi) / float32(2*pi)
		v := 1 - fmath.Acos(max(-1, min(1, d[1])))/pi
		return s.sampleImage(&s.Textures[b.Texture], u, v, true)
	}
	return b.Color
}

// sampleImage filters an image texture bilinearly at (u, v), repeating it
// with period 1 in both directions (or, with clampV, only in u, as an
// environment map must: its top and bottom rows are the poles); (0, 0) is
// the image's bottom-left corner and texel centres lie at ((i + ½)/W,
// 1 − (j + ½)/H).
func (s *Scene) sampleImage(t *Texture, u, v float32, clampV bool) vec3 {
	w, h := float32(t.Width), float32(t.Height)
	// Wrap first, in float32, so that huge coordinates stay defined.
	u -= floor32(u)
	if !clampV {
		v -= floor32(v)
	}
	if !(u >= 0 && u <= 1) { // NaN or infinite coordinates
		u = 0
	}
	if !(v >= 0 && v <= 1) {
		v = 0
	}
	x := float32(u*w) - 0.5
	y := float32((1-v)*h) - 0.5
	x0, y0 := floor32(x), floor32(y)
	fx, fy := x-x0, y-y0
	ix0, iy0 := int(x0), int(y0) // in [−1, W−1] and [−1, H]
	ix1, iy1 := ix0+1, iy0+1
	W, H := int(t.Width), int(t.Height)
	ix0, ix1 = repeatIndex(ix0, W), repeatIndex(ix1, W)
	if clampV {
		iy0, iy1 = max(iy0, 0), min(iy1, H-1)
	} else {
		iy0, iy1 = repeatIndex(iy0, H), repeatIndex(iy1, H)
	}
	top := madd(scale(s.texel(t, ix0, iy0), 1-fx), s.texel(t, ix1, iy0), fx)
	bottom := madd(scale(s.texel(t, ix0, iy1), 1-fx), s.texel(t, ix1, iy1), fx)
	return madd(scale(top, 1-fy), bottom, fy)
}

// repeatIndex brings a texel index in [−1, n] into [0, n), wrapping around.
func repeatIndex(i, n int) int {
	if i < 0 {
		return i + n
	}
	if i >= n {
		return i - n
	}
	return i
}

// texel returns texel (ix, iy) of image texture t.
func (s *Scene) texel(t *Texture, ix, iy int) vec3 {
	i := int(t.Offset) + 3*(iy*int(t.Width)+ix)
	return vec3{s.Texels[i], s.Texels[i+1], s.Texels[i+2]}
}

// emitted returns the radiance an emissive material sends out (both sides).
func (s *Scene) emitted(m *Material, tc *texCoords) vec3 {
	return scale(s.color(m, tc), m.Intensity)
}

// transformUV returns (u, v) through the texture's UV transform, or as
// they are when it has none (a zero UV).
func (t *Texture) transformUV(u, v float32) (float32, float32) {
	if t.UV == ([6]float32{}) {
		return u, v
	}
	return float32(float32(t.UV[0]*u)+float32(t.UV[1]*v)) + t.UV[4], float32(float32(t.UV[2]*u)+float32(t.UV[3]*v)) + t.UV[5]
}
