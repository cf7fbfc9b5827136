package scenes

import (
	"math"

	"github.com/tracerender/trace/tracer"
)

// bumpToNormal turns a height map into a tangent-space normal map (OpenGL
// convention: +X right, +Y up in the image, values 0.5·n + 0.5), in place:
// img's texels are replaced and img returned. The height of a texel is
// its channel's value (texelChannel: r, g, b, or the luminance) times bm,
// in texel widths; the slopes are central differences in texel space,
// wrapping around the edges as the texture repeats: with dx = (h(x+1) −
// h(x−1))/2 and dy = (h(above) − h(below))/2, n = normalize(−dx, −dy, 1).
// Only the heights of four rows are held besides the image (those around
// the row being written, and row 0's for the last row), not a copy of it.
func bumpToNormal(img *tracer.Image, channel string, bm float32) *tracer.Image {
	w, h := img.Width, img.Height
	heights := func(y int, dst []float64) []float64 {
		for x := range w {
			i := 3 * (y*w + x)
			dst[x] = float64(texelChannel(img.Pix[i:i+3], channel)) * float64(bm)
		}
		return dst
	}
	first := heights(0, make([]float64, w)) // row 0's, for the last row's below
	above := heights(h-1, make([]float64, w))
	cur := heights(0, make([]float64, w))
	below := make([]float64, w)
	for y := range h {
		next := first
		if y+1 < h {
			next = heights(y+1, below) // not written yet
		}
		for x := range w {
			dx := (cur[(x+1)%w] - cur[(x+w-1)%w]) / 2
			dy := (above[x] - next[x]) / 2                      // row 0 is the top: y−1 is above
			l := math.Sqrt(float64(dx*dx) + float64(dy*dy) + 1) // products rounded alone: the same on every machine
			i := 3 * (y*w + x)
			img.Pix[i] = float32(0.5 - float64(0.5*dx)/l)
			img.Pix[i+1] = float32(0.5 - float64(0.5*dy)/l)
			img.Pix[i+2] = float32(0.5 + 0.5/l)
		}
		above, cur, below = cur, next, above
	}
	return img
}
