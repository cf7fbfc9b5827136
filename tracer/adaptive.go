package tracer

import (
	"math"
)

// Adaptive sampling (Settings.NoiseThreshold, Cycles' "Noise Threshold"):
// a pixel stops taking samples once its own samples say it has
// converged. Cycles (kernel/film/adaptive_sampling.h, after "A
// hierarchical automatic stopping condition for Monte Carlo global
// illumination") takes as a pixel's error Σ_c |I_c − A_c|/n over
// (0.0001 + N), with I the sum of its n samples, A twice the sum of a
// half of them and N = √i where i = (Ir + Ig + Ib)/n < 1, else i (from
// Cycles 3.5 on; 3.4 takes √i at any i): a single draw of |I − A|,
// which is often near 0 for a noisy pixel (two colours a sample: exactly
// 0 one test in seven at 64 samples), and which Cycles steadies by
// widening the unconverged region by a pixel around, what would make a
// pixel depend on its tile here (README, Adaptive sampling, measures a
// chain-free 3×3 rule: scripts/adaptive-neighbourhood). trace estimates the
// same quantity from the samples' variance instead: per channel the
// standard error of the mean,
//
//	SE_c = √(max(0, (Q_c − I_c²/n)/(n − 1)))/n,  Q_c = Σ x_c²,
//
// and since |I_c − A_c|/n has the expectation √(2/π)·SE_c for normal
// noise,
//
//	error = √(2/π)·(SE_r + SE_g + SE_b)/(0.0001 + N),
//
// so that the test no longer stops a noisy pixel by chance. The pixel
// has converged when error < 5·NoiseThresholdScale·NoiseThreshold
// (Cycles scales the user's threshold by 5; NoiseThresholdScale makes
// the threshold take what Cycles 3.4's takes, below). The test looks at the pixel alone, at fixed sample counts
// (Settings.adaptiveCheck: first at the minimum, then every AdaptiveStep
// samples), and without the film's exposure (Cycles scales i by it): so a
// pixel's samples, and its value, the mean of the samples it took, depend
// only on the scene, the pixel and the settings, as the determinism
// contract asks. The kernel (wavefront.h, pixel_converged) does the same
// float32 operations.

// NoiseThresholdScale is what the user's noise threshold T is multiplied
// by before trace's test (the limit, NoiseLimit, and the automatic
// minimum, AdaptiveMinSamples), so that T takes about the samples a pixel
// Cycles 3.4 takes at T, with about its median noise. Trace's test alone,
// at the same T, took 0.43 to 0.87 of Cycles' samples: Cycles holds a
// pixel until its whole 3×3 neighbourhood passes its single draw of
// |I − A|, which trace cannot do tile by tile (README, Adaptive sampling).
// 0.34 is the geometric mean, over cornell-box, materials and pbr at
// 0.003, 0.01 and 0.05 (128×128, 256 samples at most), of the threshold
// at which trace's test takes the samples of Cycles 3.4's rule replayed
// on trace's samples, over T (go run ./scripts/adaptive-neighbourhood
// -scale-a 0.34, at pixel version 8, where T was not scaled: 0.94 to
// 1.11 of Cycles' samples). Held out of the fit, mesh, spheres and
// clearcoat at the same thresholds took 1.02 to 1.18 of Cycles' samples,
// each with a median pixel's noise at or below Cycles'
// (scripts/cycles/adaptive_compare.py --scale 0.34 --ref-spp 2048
// --scenes "scenes/examples/mesh.json scripts/cycles/scenes/spheres.json
// scripts/cycles/scenes/clearcoat.json", before the scale). Fitted
// against Cycles 3.4's √i normaliser; 3.5 on takes i above 1, as trace,
// and fewer samples where the image is bright.
const NoiseThresholdScale = 0.34

// AdaptiveStep is the samples between two convergence tests of a pixel:
// Cycles' adaptive_step.
const AdaptiveStep = 16

// MinAdaptiveSamples is the fewest samples a pixel takes under adaptive
// sampling, whatever Settings.MinSamples asks (Cycles' floor).
const MinAdaptiveSamples = 4

// Adaptive reports whether s asks for adaptive sampling.
func (s Settings) Adaptive() bool { return s.NoiseThreshold > 0 }

// AdaptiveMinSamples is the samples a pixel takes before its first
// convergence test: Settings.MinSamples as given, or when that is 0,
// Cycles' automatic ⌈16 / t^0.3⌉ at the scaled threshold t =
// NoiseThresholdScale·NoiseThreshold (0.1: 45, 0.01: 89, 0.001: 176);
// at least MinAdaptiveSamples either way. 0 when s is not adaptive.
func (s Settings) AdaptiveMinSamples() int {
	if !s.Adaptive() {
		return 0
	}
	n := s.MinSamples
	if n == 0 {
		n = int(math.Ceil(16 / math.Pow(NoiseThresholdScale*float64(s.NoiseThreshold), 0.3)))
	}
	return max(MinAdaptiveSamples, n)
}

// adaptiveTest is what a pixel's loop needs to test its convergence: the
// sample count of the first test (0: never), and NoiseLimit.
type adaptiveTest struct {
	first int
	limit float32
}

// adaptiveTest returns s's test.
func (s Settings) adaptiveTest() adaptiveTest {
	if !s.Adaptive() {
		return adaptiveTest{}
	}
	return adaptiveTest{first: s.AdaptiveMinSamples(), limit: s.NoiseLimit()}
}

// NoiseLimit is what converged holds a pixel's Σ_c SE_c/(0.0001 + N)
// below: 5·NoiseThresholdScale·NoiseThreshold (5: Cycles' scale) over
// √(2/π) (the error's factor, moved to this side), in float32; the
// kernel's TraceScene.NoiseLimit.
func (s Settings) NoiseLimit() float32 {
	return float32(5 * NoiseThresholdScale * float64(s.NoiseThreshold) / math.Sqrt(2/math.Pi))
}

// due reports whether a pixel that has taken n samples is tested now:
// at the first test's count and every AdaptiveStep samples after it.
func (a adaptiveTest) due(n int) bool {
	return a.first > 0 && n >= a.first && (n-a.first)%AdaptiveStep == 0
}

// converged reports whether a pixel whose n samples (n ≥ 2) sum to sum,
// and whose squares to sq, has converged: whether Σ_c SE_c/(0.0001 + N)
// is below limit (Settings.NoiseLimit: the error's √(2/π) is on its
// side), in float32, as the kernel's pixel_converged.
func converged(sum, sq vec3, n int, limit float32) bool {
	scale := 1 / float32(n)
	dof := float32(n - 1)
	d := stdErr(sum[0], sq[0], scale, dof) + stdErr(sum[1], sq[1], scale, dof) + stdErr(sum[2], sq[2], scale, dof)
	i := float32((sum[0] + sum[1] + sum[2]) * scale)
	norm := i
	if i < 1 {
		norm = sqrt32(i)
	}
	return d/(0.0001+norm) < limit
}

// SamplesTaken returns how many of a pixel's samples, given in the order
// it takes them (Scene.PixelSample's, Settings.Samples of them), the
// pixel takes under s: RenderPixel's count, by the same tests in the same
// float32 operations; len(samples) when s is not adaptive. It lets a
// measurement evaluate rules of adaptive sampling offline from samples
// rendered once (scripts/adaptive-neighbourhood); the renderer does not
// call it.
func (s Settings) SamplesTaken(samples [][3]float32) int {
	test := s.adaptiveTest()
	n := len(samples)
	if test.first == 0 {
		return n
	}
	var sum, sq vec3
	for i, c := range samples {
		sum = sum.Add(c)
		sq = maddv(sq, c, c)
		if test.due(i+1) && i+1 < n && converged(sum, sq, i+1, test.limit) {
			return i + 1
		}
	}
	return n
}

// PixelConverged reports whether a pixel whose samples are these (at
// least 2) passes s's convergence test after the last of them, whether or
// not a test is due there: converged's float32 operations on the sums
// RenderPixel keeps. Like SamplesTaken, for measurements that evaluate
// rules offline (scripts/adaptive-neighbourhood, which re-tests pixels
// as Cycles does); false when s is not adaptive.
func (s Settings) PixelConverged(samples [][3]float32) bool {
	if !s.Adaptive() {
		return false
	}
	var sum, sq vec3
	for _, c := range samples {
		sum = sum.Add(c)
		sq = maddv(sq, c, c)
	}
	return converged(sum, sq, len(samples), s.NoiseLimit())
}

// stdErr returns the standard error of the mean of n samples of sum s
// and sum of squares q, scale 1/n and dof n − 1: √((q − s²/n)/(n − 1)/n),
// 0 where rounding leaves q − s²/n at or below 0 (or not a number: a
// constant bright pixel's q and s²/n cancel), as the kernel's sample_se.
func stdErr(s, q, scale, dof float32) float32 {
	v := q - float32(float32(s*s)*scale)
	if !(v > 0) {
		v = 0
	}
	return sqrt32(float32(v/dof) * scale)
}
