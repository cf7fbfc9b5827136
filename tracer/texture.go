package tracer

import "math"

// floor32 is floor for float32 (exact, as C's floorf).
func floor32(x float32) float32 { return float32(math.Floor(float64(x))) }

// color returns the material's colour at surface coordinates (u, v): its
// texture's value there, or its constant Color.
func (s *Scene) color(m *Material, u, v float32) vec3 {
	if m.Texture == NoTexture {
		return m.Color
	}
	t := &s.Textures[m.Texture]
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
	if b.Kind == BackgroundGradient {
		t := float32(0.5 * (d[1] + 1))
		return madd(scale(b.Bottom, 1-t), b.Top, t)
	}
	return b.Color
}

// emitted returns the radiance an emissive material sends out (both sides).
func (s *Scene) emitted(m *Material, u, v float32) vec3 {
	return scale(s.color(m, u, v), m.Intensity)
}
