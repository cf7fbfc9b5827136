package tracer

import (
	"context"
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// wallScene is a diffuse quad facing the camera, filling the view, under
// a point light, on a black background: a camera sample sees the wall
// and the light's direct light, without noise (one bounce, nothing else
// to see). A checker texture of checks far smaller than a pixel
// (checker > 0) makes each sample's colour the one or the other at
// random: a noisy pixel.
func wallScene(t *testing.T, spp int, threshold float32, checker float32) *Scene {
	d := &SceneDesc{
		Settings: Settings{Width: 8, Height: 6, Samples: spp, MaxDepth: 2, Seed: 3, NoiseThreshold: threshold},
		Camera:   CameraDesc{Position: vec3{0, 0, -2}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{0.6, 0.6, 0.6}, Texture: NoTexture},
		},
		Lights: []PointLight{{Position: vec3{0.3, 0.5, -1.5}, Color: vec3{1, 1, 1}, Intensity: 7}},
		Quads:  []QuadDesc{{Corner: vec3{-3, -3, 0}, Edge1: vec3{6, 0, 0}, Edge2: vec3{0, 6, 0}}},
	}
	if checker > 0 {
		// Under a sky of black to white as well: the samples' values
		// spread over a range, not two.
		d.Background = Background{Kind: BackgroundGradient, Top: vec3{4, 4, 4}}
		d.Textures = []Texture{{Kind: TextureChecker, Scale: checker, Even: vec3{1, 1, 1}, Odd: vec3{0, 0, 0}}}
		d.Materials[0].Texture = 0
	}
	return compileTest(t, d)
}

// samplesTaken renders every pixel of s with RenderPixel and returns the
// samples each took.
func samplesTaken(s *Scene) []uint64 {
	w, h := s.Settings.Width, s.Settings.Height
	n := make([]uint64, w*h)
	for y := range h {
		for x := range w {
			var st Stats
			s.RenderPixel(x, y, &st)
			n[y*w+x] = st.Samples
		}
	}
	return n
}

// Converged pixels stop at the minimum, noisy ones go on: a flat
// background, a bright one (constant samples, whose sums of squares and
// squared sums cancel: TestConvergedConstantBright), and a wall under a
// point light (noise-free direct light), stop at the automatic minimum of
// the threshold Cycles uses by default (0.01: 89 samples of 1024, Cycles'
// ⌈16/t^0.3⌉ at t = NoiseThresholdScale·0.01), every pixel; with the
// threshold 0 (off) every pixel takes all 1024. The wall
// under a checker of checks far below a pixel (each sample dark or bright
// at random) goes on to the maximum: 9 in 10 of its pixels or more take
// all 192. Cycles' single draw of |I − A| stopped 28 of the 48 early
// (134 samples a pixel), since it is 0 whenever the two halves saw the
// same count of bright checks, or small by chance.
func TestAdaptiveStopsConvergedPixels(t *testing.T) {
	flat := func(c vec3) *Scene {
		return compileTest(t, &SceneDesc{
			Settings:   Settings{Width: 5, Height: 4, Samples: 1024, MaxDepth: 2, NoiseThreshold: 0.01},
			Camera:     CameraDesc{Position: vec3{0, 0, -2}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
			Background: Background{Color: c},
		})
	}
	background := flat(vec3{0.2, 0.4, 0.8})
	if m := background.Settings.AdaptiveMinSamples(); m != 89 {
		t.Fatalf("automatic min samples at threshold 0.01: %d, want Cycles' at 0.34·0.01, 89", m)
	}
	for _, c := range []struct {
		name string
		s    *Scene
		want uint64
	}{
		{"background", background, 89},
		{"bright background", flat(vec3{37.3, 10.1, 123.4}), 89},
		{"wall", wallScene(t, 1024, 0.01, 0), 89},
		{"wall, threshold 0", wallScene(t, 1024, 0, 0), 1024},
	} {
		for i, n := range samplesTaken(c.s) {
			if n != c.want {
				t.Errorf("%s: pixel %d took %d samples, want %d", c.name, i, n, c.want)
			}
		}
	}
	var all uint64
	taken := samplesTaken(wallScene(t, 192, 0.01, 4000))
	for _, n := range taken {
		if n == 192 {
			all++
		}
	}
	if 10*all < 9*uint64(len(taken)) {
		t.Errorf("checker wall: %d of %d pixels took all 192 samples: want 9 in 10 or more (%v)", all, len(taken), taken)
	}
}

// TestAdaptiveTwoValuedSamples: pixels whose samples are each black or
// grey 1 at even odds (mean 0.5, standard error 0.5/8 a channel at 64
// samples: Cycles' error is about 0.1 on average, twice the limit at
// 0.01) do not converge at 64 samples, however their samples fall: not
// one of 2000. Cycles' |I − A|, one draw, stopped 606 of them (0 for
// about one in seven: as many bright samples in each half; small by
// chance for more).
func TestAdaptiveTwoValuedSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	stopped := 0
	for range 2000 {
		var sum, sq vec3
		for range 64 {
			if rng.IntN(2) == 1 {
				c := vec3{1, 1, 1}
				sum, sq = sum.Add(c), maddv(sq, c, c)
			}
		}
		if converged(sum, sq, 64, Settings{NoiseThreshold: 0.01}.NoiseLimit()) {
			stopped++
		}
	}
	if stopped > 0 {
		t.Errorf("%d of 2000 two-valued pixels stopped at 64 samples, want none", stopped)
	}
}

// TestConverged: the error √(2/π)·Σ SE_c/(0.0001 + N) against
// hand-computed values, on both sides of the normalisation's switch (√i
// below an intensity of 1, i above) and of 5·0.34·threshold (Cycles'
// scale times NoiseThresholdScale).
func TestConverged(t *testing.T) {
	samples := func(v ...vec3) (sum, sq vec3) {
		for _, c := range v {
			sum, sq = sum.Add(c), maddv(sq, c, c)
		}
		return sum, sq
	}
	for _, c := range []struct {
		samples   []vec3
		threshold float32
		want      bool
	}{
		// Red 0, 1, 0, 1: variance 1/3, SE √(1/12); green and blue
		// 0. i = 2/4 = 0.5: error √(2/π)·√(1/12)/(0.0001 + √0.5) =
		// 0.325689 = 5·0.34·0.191582.
		{[]vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {1, 0, 0}}, 0.19165, true},
		{[]vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {1, 0, 0}}, 0.19151, false},
		// Red 2, 4, 2, 4: variance 4/3, SE √(1/3); green 3 and blue 1
		// throughout. i = 28/4 = 7 (linear): error √(2/π)·√(1/3)/7.0001 =
		// 0.0658075 = 5·0.34·0.0387103.
		{[]vec3{{2, 3, 1}, {4, 3, 1}, {2, 3, 1}, {4, 3, 1}}, 0.038719, true},
		{[]vec3{{2, 3, 1}, {4, 3, 1}, {2, 3, 1}, {4, 3, 1}}, 0.038701, false},
		// Black: 0 / 0.0001, below any limit.
		{make([]vec3, 16), 1e-6, true},
	} {
		sum, sq := samples(c.samples...)
		limit := Settings{NoiseThreshold: c.threshold}.NoiseLimit()
		if got := converged(sum, sq, len(c.samples), limit); got != c.want {
			t.Errorf("converged(%v, %v, %d) at threshold %g = %v", sum, sq, len(c.samples), c.threshold, got)
		}
	}
}

// TestConvergedConstantBright: 64 samples of a constant bright colour
// sum, in float32, to sums of squares that fall below the squared sum
// over n (37.3: by 0.15) or above it (123.4: by 1.2), where the variance
// is 0: the standard error is then 0 (not the square root of a negative
// number, NaN, which would keep the pixel from ever converging) or
// negligible, and the pixel converges at the tightest threshold.
func TestConvergedConstantBright(t *testing.T) {
	c := vec3{37.3, 10.1, 123.4}
	var sum, sq vec3
	for range 64 {
		sum, sq = sum.Add(c), maddv(sq, c, c)
	}
	scale := 1 / float32(64)
	if v := sq[0] - float32(float32(sum[0]*sum[0])*scale); v >= 0 {
		t.Fatalf("red: Σx² − (Σx)²/n = %g: want below 0, the case under test", v)
	}
	for k := range 3 {
		if se := stdErr(sum[k], sq[k], scale, 63); !(se >= 0 && se < 1e-3*c[k]) {
			t.Errorf("channel %d: standard error %g, want 0 or below a thousandth of %g", k, se, c[k])
		}
	}
	if !converged(sum, sq, 64, Settings{NoiseThreshold: 0.0001}.NoiseLimit()) {
		t.Error("a constant bright pixel did not converge at threshold 0.0001")
	}
}

// TestAdaptiveMinSamples: Cycles' automatic minimum at the scaled
// threshold, ⌈16/(0.34·T)^0.3⌉ (0.1: 45, 0.01: 89, 0.001: 176, where
// Cycles' at T is 32, 64, 128), a set one as given (not scaled), and the
// floor of 4.
func TestAdaptiveMinSamples(t *testing.T) {
	for _, c := range []struct {
		threshold float32
		min, want int
	}{
		{0.1, 0, 45}, {0.01, 0, 89}, {0.001, 0, 176}, {1, 0, 23}, {0.01, 20, 20}, {0.01, 1, 4}, {0, 20, 0},
	} {
		s := Settings{NoiseThreshold: c.threshold, MinSamples: c.min}
		if got := s.AdaptiveMinSamples(); got != c.want {
			t.Errorf("threshold %g, min_samples %d: %d, want %d", c.threshold, c.min, got, c.want)
		}
	}
}

// TestAdaptiveTestsAtFixedCounts: a pixel is tested at the minimum and
// every AdaptiveStep samples after, never between, and stops at one of
// those counts or at Samples: a pixel that converges at the minimum
// (min_samples 8) takes 8, a noisy one stops at 8 + 16k.
func TestAdaptiveTestsAtFixedCounts(t *testing.T) {
	s := wallScene(t, 100, 0.06, 4000)
	s.Settings.MinSamples = 8
	seen := map[uint64]bool{}
	for _, n := range samplesTaken(s) {
		seen[n] = true
		if n != 100 && (n < 8 || (n-8)%AdaptiveStep != 0) {
			t.Errorf("a pixel took %d samples: not 8 + 16k nor 100", n)
		}
	}
	if len(seen) < 2 {
		t.Errorf("every pixel took the same samples (%v): the test does not see a pixel stop later than another", seen)
	}
}

// TestAdaptiveMeanUnbiased: over the pixels of a scene with noise of
// every kind (renderTestScene: area and point lights, glossy and
// diffuse surfaces, a mesh), an adaptive render's mean differs from a
// reference's of 16 times the samples by less than three standard errors
// of the per-pixel differences, while it takes fewer samples than the
// fixed-count render of its Samples; the fixed-count render is held to
// the same bound, for scale.
func TestAdaptiveMeanUnbiased(t *testing.T) {
	render := func(spp int, threshold float32, seed uint64) ([]vec3, uint64) {
		d := renderTestScene(IntegratorPath, spp, 0)
		d.Settings.Width, d.Settings.Height = 24, 20
		d.Settings.NoiseThreshold, d.Settings.Seed = threshold, seed
		s := compileTest(t, d)
		var st Stats
		out := make([]vec3, 24*20)
		for i := range out {
			out[i] = s.RenderPixel(i%24, i/24, &st)
		}
		return out, st.Samples
	}
	ref, _ := render(2048, 0, 99)
	check := func(name string, img []vec3) float64 {
		var sum, sum2 float64
		for i, c := range img {
			d := float64(c[0]+c[1]+c[2]) - float64(ref[i][0]+ref[i][1]+ref[i][2])
			sum += d
			sum2 += d * d
		}
		n := float64(len(img))
		mean := sum / n
		se := math.Sqrt((sum2/n - mean*mean) / n)
		if math.Abs(mean) > 3*se {
			t.Errorf("%s: mean difference from the reference %.5f, more than 3 standard errors (%.5f)", name, mean, se)
		}
		return mean
	}
	adaptive, taken := render(128, 0.01, 1)
	fixed, all := render(128, 0, 1)
	if taken >= all {
		t.Errorf("adaptive render took %d samples, the fixed-count one %d", taken, all)
	}
	t.Logf("samples %d of %d; mean differences %.5f (adaptive), %.5f (fixed)", taken, all, check("adaptive", adaptive), check("fixed", fixed))
}

// TestRenderBlockAdaptiveCounts: RenderBlock counts the samples its
// pixels took under adaptive sampling, RenderPixel's, and a render
// cancelled at its first check counts none.
func TestRenderBlockAdaptiveCounts(t *testing.T) {
	s := wallScene(t, 200, 0.05, 0)
	var want uint64
	for _, n := range samplesTaken(s) {
		want += n
	}
	var st Stats
	pix := make([]float32, 3*8*6)
	if err := s.RenderBlock(context.Background(), image.Rect(0, 0, 8, 6), pix, &st); err != nil {
		t.Fatal(err)
	}
	if st.Samples != want || want >= 200*8*6 {
		t.Errorf("RenderBlock counted %d samples, RenderPixel %d (of %d)", st.Samples, want, 200*8*6)
	}
}

// Settings.SamplesTaken over a pixel's Scene.PixelSample samples is what
// RenderPixel does: the same count, and the mean of that many samples is
// its value bit for bit (and Settings.PixelConverged holds there), at thresholds and minimums where the pixels stop
// at several counts (what scripts/adaptive-neighbourhood relies on to
// evaluate rules offline).
func TestSamplesTakenIsRenderPixels(t *testing.T) {
	for _, c := range []struct {
		threshold float32
		min       int
	}{{0.06, 0}, {0.06, 64}, {0.09, 0}, {0, 0}} {
		s := wallScene(t, 200, c.threshold, 4000)
		s.Settings.MinSamples = c.min
		counts := map[int]int{}
		for y := range s.Settings.Height {
			for x := range s.Settings.Width {
				var st, st2 Stats
				want := s.RenderPixel(x, y, &st)
				samples := make([][3]float32, s.Settings.Samples)
				for i := range samples {
					samples[i] = s.PixelSample(x, y, i, &st2)
				}
				n := s.Settings.SamplesTaken(samples)
				var sum vec3
				for _, c := range samples[:n] {
					sum = sum.Add(c)
				}
				got := vec3{sum[0] / float32(n), sum[1] / float32(n), sum[2] / float32(n)}
				if got != want || uint64(n) != st.Samples || st2.Samples != uint64(len(samples)) {
					t.Errorf("threshold %g, min %d, pixel (%d, %d): %d samples, %v; RenderPixel %d, %v",
						c.threshold, c.min, x, y, n, got, st.Samples, want)
				}
				if c.threshold > 0 && n < len(samples) && !s.Settings.PixelConverged(samples[:n]) {
					t.Errorf("threshold %g, min %d, pixel (%d, %d): stops at %d, where PixelConverged is false",
						c.threshold, c.min, x, y, n)
				}
				counts[n]++
			}
		}
		if c.threshold > 0 && len(counts) < 2 {
			t.Errorf("threshold %g, min %d: every pixel takes the same count (%v): nothing tested", c.threshold, c.min, counts)
		}
		t.Logf("threshold %g, min %d: %v", c.threshold, c.min, counts)
	}
}
