package main

import (
	"slices"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// Cycles 3.4 tests first at the multiple of 16 above its minimum (96, 80
// and 48 samples at 0.003, 0.01 and 0.05), and at 16 above min_samples
// when that is a multiple of 16 less 1.
func TestCyclesFirstTest(t *testing.T) {
	for _, c := range []struct {
		threshold float32
		min, want int
	}{{0.003, 0, 96}, {0.01, 0, 80}, {0.05, 0, 48}, {0.01, 63, 80}, {0.01, 62, 64}} {
		s := tracer.Settings{NoiseThreshold: c.threshold, MinSamples: c.min}
		if got := cyclesFirstTest(s); got != c.want {
			t.Errorf("threshold %g, min_samples %d: first test at %d, want %d", c.threshold, c.min, got, c.want)
		}
	}
}

// The 3×3 max and the apron's cost on a 4×4 image of one pixel that
// takes 100 samples, the others 10: tiles of 2 a side; the apron of each
// tile is the pixels around it in the image.
func TestDilateApron(t *testing.T) {
	m := measurement{size: 4}
	own := slices.Repeat([]int{10}, 16)
	own[1*4+1] = 100 // (1, 1)
	got := m.dilate(own)
	for y := range 4 {
		for x := range 4 {
			want := 10
			if x <= 2 && y <= 2 {
				want = 100
			}
			if got[y*4+x] != want {
				t.Errorf("dilate: pixel (%d, %d) takes %d, want %d", x, y, got[y*4+x], want)
			}
		}
	}
	// The tiles take 9·100 + 7·10 = 970 samples. Aprons: the top left
	// tile's 5 pixels (10 each), the others' 5 each with (1, 1) in them:
	// 3·(4·10 + 100) + 50 = 470.
	if a := m.apron(2, got, own); a != 470.0/970 {
		t.Errorf("apron of tiles of 2: %g, want %g", a, 470.0/970)
	}
	if a := m.apron(4, got, own); a != 0 {
		t.Errorf("apron of one tile: %g, want 0", a)
	}
}

// Cycles' own rule (e) re-activates a pixel that has converged: A at
// (0, 0) and its neighbour B at (1, 0) pass the first test, but B is kept
// going by C at (2, 0), which never converges, and fails its next test,
// which un-marks A again; under the 3×3 max (d) A stops at the first test.
func TestCyclesRuleReactivates(t *testing.T) {
	const size, spp, first = 5, 128, 48
	m := measurement{size: size, spp: spp, samples: make([][3]float32, size*size*spp)}
	for p := range size * size {
		for i := range spp {
			v := float32(0.5)
			if p == 2 || p == 1 && i >= first {
				v = 0 // noisy: 40 one sample in 16, never converges
				if i%16 == 0 {
					v = 40
				}
			}
			m.samples[p*spp+i] = [3]float32{v, v, v}
		}
	}
	s := tracer.Settings{Samples: spp, NoiseThreshold: 0.05, MinSamples: first}
	own := m.counts(s)
	if own[0] != first || own[1] != first || own[2] != spp {
		t.Fatalf("own counts A, B, C: %v, want %d, %d, %d", own[:3], first, first, spp)
	}
	e, d := m.cycles(s, s.PixelConverged), m.dilate(own)
	if d[0] != first || e[0] <= first || e[2] != spp {
		t.Errorf("A takes %d under the 3×3 max, want %d; %d under Cycles' rule, want more; C %d, want %d",
			d[0], first, e[0], e[2], spp)
	}
}

// Cycles' test is one draw of |I − A|, A twice the class A samples' sum
// (2 and 3 of each 4, or 0 and 1, by the bits above): 16 samples, 1 at
// samples 0 and 2 (class B and A) and 0 elsewhere, give I = A and pass at
// any threshold, where trace's estimator finds them noisy; 1 at 2 and 3
// (both class A) fail. A bright pixel (1 everywhere, 4.2 at sample 2: i =
// 3.6) fails over Cycles 3.4's √i and passes over 3.5's i.
func TestCyclesTest(t *testing.T) {
	s := tracer.Settings{Samples: 16, NoiseThreshold: 0.05}
	for _, c := range []struct {
		ones []int
		want bool
	}{{[]int{0, 2}, true}, {[]int{2, 3}, false}, {[]int{0, 1}, false}, {[]int{4, 6}, true}} {
		samples := make([][3]float32, 16)
		for _, i := range c.ones {
			samples[i] = [3]float32{1, 1, 1}
		}
		for _, bright := range []bool{false, true} {
			if got := cyclesTest(0.05, bright)(samples); got != c.want {
				t.Errorf("ones at %v: Cycles' test (bright %v) %v, want %v", c.ones, bright, got, c.want)
			}
		}
		if s.PixelConverged(samples) {
			t.Errorf("ones at %v: trace's test passes", c.ones)
		}
	}
	samples := slices.Repeat([][3]float32{{1, 1, 1}}, 16)
	samples[2] = [3]float32{4.2, 4.2, 4.2}
	if cyclesTest(0.05, false)(samples) || !cyclesTest(0.05, true)(samples) {
		t.Errorf("bright pixel: Cycles 3.4's test %v, want false; 3.5's %v, want true",
			cyclesTest(0.05, false)(samples), cyclesTest(0.05, true)(samples))
	}
}
