package tracer

import (
	"context"
	"image"
)

// Framebuffer holds an image's linear RGB radiance, three float32 per pixel,
// row-major with the top row first.
type Framebuffer struct {
	Width, Height int
	Pix           []float32
}

// NewFramebuffer returns a black w×h framebuffer.
func NewFramebuffer(w, h int) *Framebuffer {
	return &Framebuffer{Width: w, Height: h, Pix: make([]float32, 3*w*h)}
}

// At returns the radiance of pixel (x, y).
func (f *Framebuffer) At(x, y int) [3]float32 {
	i := 3 * (y*f.Width + x)
	return [3]float32{f.Pix[i], f.Pix[i+1], f.Pix[i+2]}
}

// RenderPixel returns the radiance of pixel (x, y): the mean of its samples.
// It depends only on the scene and (x, y), per the determinism contract.
func (s *Scene) RenderPixel(x, y int, st *Stats) vec3 {
	n := s.Settings.Samples
	var sum vec3
	for i := 0; i < n; i++ {
		rng := NewSampler(s.Settings.Seed, uint32(x), uint32(y), uint32(i))
		px, py := float32(x)+0.5, float32(y)+0.5
		jx, jy := rng.Float2()
		if n > 1 {
			px, py = float32(x)+jx, float32(y)+jy
		}
		lu, lv := rng.Float2()
		r := s.Camera.Ray(px, py, lu, lv)
		var c vec3
		if s.Settings.Integrator == IntegratorWhitted {
			c = s.traceWhitted(r, &rng, st)
		} else {
			c = s.tracePath(r, &rng, st)
		}
		if !finite(c[0]) || !finite(c[1]) || !finite(c[2]) {
			st.NonFinite++
			c = vec3{}
		}
		sum = sum.Add(c)
	}
	st.Samples += uint64(n)
	inv := float32(n)
	return vec3{sum[0] / inv, sum[1] / inv, sum[2] / inv}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float32) bool { return x-x == 0 }

// SetBlock copies a block of pixels rendered for rect (three float32 per
// pixel, row-major, rect.Dx() per row) into the framebuffer.
func (f *Framebuffer) SetBlock(rect image.Rectangle, pix []float32) {
	w := rect.Dx()
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		src := pix[3*(y-rect.Min.Y)*w : 3*(y-rect.Min.Y+1)*w]
		copy(f.Pix[3*(y*f.Width+rect.Min.X):], src)
	}
}

// RenderBlock renders the pixels of rect, which must lie inside the image,
// into pix (three float32 per pixel, row-major, rect.Dx() per row; at least
// 3·rect.Dx()·rect.Dy() long). It checks ctx before each pixel (a pixel of
// many samples can take a while) and returns ctx's error if it was
// cancelled, leaving the block part-done.
func (s *Scene) RenderBlock(ctx context.Context, rect image.Rectangle, pix []float32, st *Stats) error {
	w := rect.Dx()
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		row := pix[3*(y-rect.Min.Y)*w:]
		for x := rect.Min.X; x < rect.Max.X; x++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			c := s.RenderPixel(x, y, st)
			i := 3 * (x - rect.Min.X)
			row[i], row[i+1], row[i+2] = c[0], c[1], c[2]
		}
	}
	return nil
}
