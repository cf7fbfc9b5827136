package tracer

import (
	"math"
	"math/bits"
)

// Adaptive sampling (Settings.NoiseThreshold, Cycles' "Noise Threshold"):
// a pixel stops taking samples once its own samples say it has
// converged. The test is Cycles' (kernel/film/adaptive_sampling.h, the
// per-pixel error of "A hierarchical automatic stopping condition for
// Monte Carlo global illumination"): with I the sum of the pixel's n
// samples and A twice the sum of its class-A half (sampleClassA), both
// linear RGB,
//
//	error = (|Ir − Ar| + |Ig − Ag| + |Ib − Ab|)/n / (0.0001 + N),
//	N = √i where i = (Ir + Ig + Ib)/n < 1, else i,
//
// and the pixel has converged when error < 5·NoiseThreshold (Cycles
// scales the user's threshold by 5). Unlike Cycles, the test looks at the
// pixel alone (Cycles then widens the unconverged region by a pixel
// around, which would make a pixel depend on its tile), at fixed sample
// counts (Settings.adaptiveCheck: first at the minimum, then every
// AdaptiveStep samples), and without the film's exposure (Cycles scales
// i by it): so a pixel's samples, and its value, the mean of the
// samples it took, depend only on the scene, the pixel and the settings,
// as the determinism contract asks. The kernel (wavefront.h,
// pixel_converged) does the same float32 operations.

// AdaptiveStep is the samples between two convergence tests of a pixel:
// Cycles' adaptive_step.
const AdaptiveStep = 16

// MinAdaptiveSamples is the fewest samples a pixel takes under adaptive
// sampling, whatever Settings.MinSamples asks (Cycles' floor).
const MinAdaptiveSamples = 4

// Adaptive reports whether s asks for adaptive sampling.
func (s Settings) Adaptive() bool { return s.NoiseThreshold > 0 }

// AdaptiveMinSamples is the samples a pixel takes before its first
// convergence test: Settings.MinSamples, or when that is 0, Cycles'
// automatic ⌈16 / NoiseThreshold^0.3⌉ (0.1: 32, 0.01: 64, 0.001: 128);
// at least MinAdaptiveSamples either way. 0 when s is not adaptive.
func (s Settings) AdaptiveMinSamples() int {
	if !s.Adaptive() {
		return 0
	}
	n := s.MinSamples
	if n == 0 {
		n = int(math.Ceil(16 / math.Pow(float64(s.NoiseThreshold), 0.3)))
	}
	return max(MinAdaptiveSamples, n)
}

// adaptiveTest is what a pixel's loop needs to test its convergence: the
// sample count of the first test (0: never), and 5·NoiseThreshold.
type adaptiveTest struct {
	first int
	limit float32
}

// adaptiveTest returns s's test.
func (s Settings) adaptiveTest() adaptiveTest {
	if !s.Adaptive() {
		return adaptiveTest{}
	}
	return adaptiveTest{first: s.AdaptiveMinSamples(), limit: float32(5 * s.NoiseThreshold)}
}

// due reports whether a pixel that has taken n samples is tested now:
// at the first test's count and every AdaptiveStep samples after it.
func (a adaptiveTest) due(n int) bool {
	return a.first > 0 && n >= a.first && (n-a.first)%AdaptiveStep == 0
}

// sampleClassA reports whether sample i joins the half sum A of the
// convergence test: Cycles' class A, an odd count of the odd bits of i
// (after Christensen et al., progressive multi-jittered sequences, 10.2.1;
// Cycles uses it for its shuffled Owen-scrambled Sobol points too, which
// are rng.go's).
func sampleClassA(i int) bool { return bits.OnesCount32(uint32(i)&0xaaaaaaaa)&1 == 1 }

// converged reports whether a pixel whose n samples sum to sum, and
// whose class-A samples to half, has converged below limit (5 times the
// noise threshold), in float32, as the kernel's pixel_converged.
func converged(sum, half vec3, n int, limit float32) bool {
	scale := 1 / float32(n)
	a0, a1, a2 := float32(half[0]*2), float32(half[1]*2), float32(half[2]*2)
	d := absf(sum[0]-a0) + absf(sum[1]-a1) + absf(sum[2]-a2)
	diff := float32(d * scale)
	i := float32((sum[0] + sum[1] + sum[2]) * scale)
	norm := i
	if i < 1 {
		norm = sqrt32(i)
	}
	return diff/(0.0001+norm) < limit
}
