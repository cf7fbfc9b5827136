package scenes

import (
	"math"

	"github.com/tracerender/trace/tracer"
)

// bumpToNormal turns a height map into a tangent-space normal map (OpenGL
// convention: +X right, +Y up in the image, values 0.5·n + 0.5), in a new
// image of the same size. The height of a texel is its channel's value
// (texelChannel: r, g, b, or the luminance) times bm, in texel widths; the
// slopes are central differences in texel space, wrapping around the
// edges as the texture repeats: with dx = (h(x+1) − h(x−1))/2 and dy =
// (h(above) − h(below))/2, n = normalize(−dx, −dy, 1).
func bumpToNormal(img *tracer.Image, channel string, bm float32) *tracer.Image {
	w, h := img.Width, img.Height
	height := make([]float64, w*h)
	for i := range height {
		height[i] = float64(texelChannel(img.Pix[3*i:3*i+3], channel)) * float64(bm)
	}
	at := func(x, y int) float64 { return height[((y+h)%h)*w+(x+w)%w] }
	out := &tracer.Image{Width: w, Height: h, Pix: make([]float32, 3*w*h)}
	for y := range h {
		for x := range w {
			dx := (at(x+1, y) - at(x-1, y)) / 2
			dy := (at(x, y-1) - at(x, y+1)) / 2                 // row 0 is the top: y−1 is above
			l := math.Sqrt(float64(dx*dx) + float64(dy*dy) + 1) // products rounded alone: the same on every machine
			i := 3 * (y*w + x)
			out.Pix[i] = float32(0.5 - float64(0.5*dx)/l)
			out.Pix[i+1] = float32(0.5 - float64(0.5*dy)/l)
			out.Pix[i+2] = float32(0.5 + 0.5/l)
		}
	}
	return out
}
