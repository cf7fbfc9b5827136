package tracer

// sampleWrapped filters an image texture at (u, v) under its sampler:
// WrapS and WrapT map u and v into [0, 1] (wrapCoord), then Filter picks
// the texel the point lies in or blends the four nearest texel centres,
// the neighbours of an edge texel found by the same wrap (wrapIndex).
// Texel (i, j) covers x = u·W in [i, i + 1) and y = (1 − v)·H in
// [j, j + 1), its centre at (i + ½, j + ½); j = 0 is the top row.
// With repeat on both axes and linear filtering it gives sampleImage's
// bits (textureAt calls that for the default sampler).
func (s *Scene) sampleWrapped(t *Texture, u, v float32) vec3 {
	W, H := int(t.Width), int(t.Height)
	w, h := float32(t.Width), float32(t.Height)
	u, v = wrapCoord(u, t.WrapS), wrapCoord(v, t.WrapT)
	if t.Filter == FilterNearest {
		ix := wrapIndex(int(floor32(float32(u*w))), W, t.WrapS) // in [0, W]
		iy := wrapIndex(int(floor32(float32((1-v)*h))), H, t.WrapT)
		return s.texel(t, ix, iy)
	}
	x := float32(u*w) - 0.5
	y := float32((1-v)*h) - 0.5
	x0, y0 := floor32(x), floor32(y)
	fx, fy := x-x0, y-y0
	ix0, iy0 := int(x0), int(y0) // in [−1, W] and [−1, H]
	ix0, ix1 := wrapIndex(ix0, W, t.WrapS), wrapIndex(ix0+1, W, t.WrapS)
	iy0, iy1 := wrapIndex(iy0, H, t.WrapT), wrapIndex(iy0+1, H, t.WrapT)
	top := madd(scale(s.texel(t, ix0, iy0), 1-fx), s.texel(t, ix1, iy0), fx)
	bottom := madd(scale(s.texel(t, ix0, iy1), 1-fx), s.texel(t, ix1, iy1), fx)
	return madd(scale(top, 1-fy), bottom, fy)
}

// wrapCoord maps a texture coordinate into [0, 1] under wrap mode m:
// repeat takes u − ⌊u⌋, clamp min(max(u, 0), 1), mirror folds
// f = u − 2⌊u/2⌋ in [0, 2) to f ≤ 1 ? f : 2 − f. NaN and infinities
// give 0. All in float32, exact.
func wrapCoord(u float32, m Wrap) float32 {
	switch m {
	case WrapClamp:
		if u > 1 {
			u = 1
		} else if !(u >= 0) {
			u = 0
		}
	case WrapMirror:
		u -= float32(2 * floor32(float32(u*0.5)))
		if u > 1 {
			u = 2 - u
		}
	default:
		u -= floor32(u)
	}
	if !(u >= 0 && u <= 1) {
		u = 0
	}
	return u
}

// wrapIndex maps a texel index in [−1, n] onto [0, n): repeat wraps it
// around (−1 is n − 1, n is 0), clamp and mirror keep to the edge texel
// (mirror's −1 is 0 and n is n − 1, the texels beyond the fold).
func wrapIndex(i, n int, m Wrap) int {
	switch m {
	case WrapClamp, WrapMirror:
		return max(0, min(i, n-1))
	}
	return repeatIndex(i, n)
}
