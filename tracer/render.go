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

// RenderPixel returns the radiance of pixel (x, y): the mean of its samples,
// Settings.Samples of them, or under adaptive sampling (adaptive.go) as
// many as the pixel takes until it has converged. It depends only on the
// scene and (x, y), per the determinism contract.
func (s *Scene) RenderPixel(x, y int, st *Stats) vec3 {
	n := s.Settings.Samples
	test := s.Settings.adaptiveTest()
	var sum, sq vec3
	taken := n
	for i := 0; i < n; i++ {
		rng, r := s.cameraSample(x, y, i)
		c := s.sampleRadiance(r, s.Intersect(r), &rng, st)
		sum = sum.Add(c)
		if test.first == 0 {
			continue
		}
		sq = maddv(sq, c, c)
		if test.due(i+1) && i+1 < n && converged(sum, sq, i+1, test.limit) {
			taken = i + 1
			break
		}
	}
	st.Samples += uint64(taken)
	inv := float32(taken)
	return vec3{sum[0] / inv, sum[1] / inv, sum[2] / inv}
}

// PixelSample returns the radiance of sample i of pixel (x, y) as
// RenderPixel takes it (0, counted in st.NonFinite, where not finite), and
// counts it in st.Samples: the mean of a pixel's first n samples, summed
// in their order and divided by n in float32, is RenderPixel's value when
// it takes n. It lets a measurement render a pixel's samples once and
// evaluate rules of adaptive sampling offline (Settings.SamplesTaken,
// scripts/adaptive-neighbourhood); the renderer does not call it.
func (s *Scene) PixelSample(x, y, i int, st *Stats) [3]float32 {
	rng, r := s.cameraSample(x, y, i)
	st.Samples++
	return s.sampleRadiance(r, s.Intersect(r), &rng, st)
}

// cameraSample returns the numbers of sample i of pixel (x, y), having
// drawn its camera ray's, and that ray: through the pixel's centre for a
// render of one sample, else jittered inside the pixel or spread by the
// pixel filter (Camera.pixelPoint).
func (s *Scene) cameraSample(x, y, i int) (Sampler, Ray) {
	rng := NewSampler(s.Settings.Seed, uint32(x), uint32(y), uint32(i))
	jx, jy := rng.Float2()
	px, py := s.Camera.pixelPoint(x, y, jx, jy, s.Settings.Samples)
	lu, lv := rng.Float2()
	return rng, s.Camera.Ray(px, py, lu, lv)
}

// sampleRadiance returns the radiance a camera ray r brings, whose nearest
// hit is h, by the scene's integrator; 0, counted in st.NonFinite, when
// that is not finite.
func (s *Scene) sampleRadiance(r Ray, h Hit, rng *Sampler, st *Stats) vec3 {
	var c vec3
	if s.Settings.Integrator == IntegratorWhitted {
		c = s.traceWhitted(r, h, rng, st)
	} else {
		c = s.tracePath(r, h, rng, st)
	}
	if !finite(c[0]) || !finite(c[1]) || !finite(c[2]) {
		st.NonFinite++
		c = vec3{}
	}
	return c
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
// 3·rect.Dx()·rect.Dy() long), the same values as RenderPixel. It renders
// runs of up to runW×runH pixels together (renderRun), and checks ctx
// before each sample of a run (a pixel of many samples can take a while),
// returning ctx's error if it was cancelled, leaving the block part-done.
func (s *Scene) RenderBlock(ctx context.Context, rect image.Rectangle, pix []float32, st *Stats) error {
	for y := rect.Min.Y; y < rect.Max.Y; y += runH {
		for x := rect.Min.X; x < rect.Max.X; x += runW {
			run := image.Rect(x, y, min(x+runW, rect.Max.X), min(y+runH, rect.Max.Y))
			if err := s.renderRun(ctx, run, rect, pix, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// runW and runH bound the runs of pixels that RenderBlock renders
// together: a row of four quads of 2×2 pixels.
const (
	runW = 8
	runH = 2
)

// renderRun renders the pixels of run, inside block, into pix (block's
// layout, as RenderBlock's): sample by sample, the camera rays of all its
// pixels are traced together (IntersectPacket), in quads of 2×2 pixels
// where run has them, then each ray's path on its own. A pixel's samples
// are summed in their order, and under adaptive sampling a pixel that
// has converged leaves the run, so its value is RenderPixel's, bit for
// bit. It checks ctx before each sample and returns its error, having
// counted in st the samples it rendered, if it was cancelled.
func (s *Scene) renderRun(ctx context.Context, run, block image.Rectangle, pix []float32, st *Stats) error {
	var at [runW * runH]image.Point
	n := 0
	for qy := run.Min.Y; qy < run.Max.Y; qy += 2 {
		for qx := run.Min.X; qx < run.Max.X; qx += 2 {
			for _, p := range [4]image.Point{{qx, qy}, {qx + 1, qy}, {qx, qy + 1}, {qx + 1, qy + 1}} {
				if p.In(run) {
					at[n] = p
					n++
				}
			}
		}
	}
	var (
		rngs [runW * runH]Sampler
		rays [runW * runH]Ray
		hits [runW * runH]Hit
		sums [runW * runH]vec3
		sqs  [runW * runH]vec3
	)
	w := block.Dx()
	put := func(p image.Point, sum vec3, taken int) {
		inv := float32(taken)
		i := 3 * ((p.Y-block.Min.Y)*w + p.X - block.Min.X)
		pix[i], pix[i+1], pix[i+2] = sum[0]/inv, sum[1]/inv, sum[2]/inv
	}
	ns := s.Settings.Samples
	test := s.Settings.adaptiveTest()
	for i := 0; i < ns && n > 0; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, p := range at[:n] {
			rngs[k], rays[k] = s.cameraSample(p.X, p.Y, i)
		}
		s.IntersectPacket(rays[:n], hits[:n])
		for k := range at[:n] {
			c := s.sampleRadiance(rays[k], hits[k], &rngs[k], st)
			sums[k] = sums[k].Add(c)
			if test.first > 0 {
				sqs[k] = maddv(sqs[k], c, c)
			}
		}
		st.Samples += uint64(n)
		if test.due(i+1) && i+1 < ns {
			// The pixels that have converged are done; the others keep
			// their order (and their quads, where both stay).
			m := 0
			for k := range at[:n] {
				if converged(sums[k], sqs[k], i+1, test.limit) {
					put(at[k], sums[k], i+1)
					continue
				}
				at[m], sums[m], sqs[m] = at[k], sums[k], sqs[k]
				m++
			}
			n = m
		}
	}
	for k, p := range at[:n] {
		put(p, sums[k], ns)
	}
	return nil
}
