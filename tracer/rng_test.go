package tracer

import (
	"math"
	"testing"
)

// TestSamplerStratified: over 2^k samples of a pixel, every 1-D dimension
// puts one number in each interval [j/2^k, (j+1)/2^k), and every pair of
// dimensions drawn by Float2 is a (0, k, 2)-net: each of the 2^k boxes of
// any shape 2^-a × 2^-(k−a) holds exactly one point.
func TestSamplerStratified(t *testing.T) {
	const k = 8
	const n = 1 << k
	for _, px := range [][2]uint32{{0, 0}, {17, 3}, {16383, 9000}} {
		for _, dim := range []uint32{0, 2, 4, 13, 40, 301} {
			xs, ys, zs := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := uint32(0); i < n; i++ {
				s := NewSampler(5, px[0], px[1], i)
				s.SetDimension(dim)
				xs[i], ys[i] = s.Float2()
				zs[i] = s.Float()
			}
			seen := make([]bool, n)
			for _, z := range zs {
				j := int(z * n)
				if seen[j] {
					t.Fatalf("pixel %v dimension %d: two numbers in stratum %d of %d", px, dim+2, j, n)
				}
				seen[j] = true
			}
			for a := 0; a <= k; a++ {
				boxes := make([]bool, n)
				for i := range xs {
					bx, by := int(xs[i]*float32(int(1)<<a)), int(ys[i]*float32(int(1)<<(k-a)))
					b := bx<<(k-a) | by
					if boxes[b] {
						t.Fatalf("pixel %v dimensions %d, %d: box %d of shape 2^-%d × 2^-%d holds two points", px, dim, dim+1, b, a, k-a)
					}
					boxes[b] = true
				}
			}
		}
	}
}

// TestSamplerPure: a number depends only on (seed, pixel, sample,
// dimension), not on what was drawn before; pixels, samples, seeds and
// dimensions are decorrelated.
func TestSamplerPure(t *testing.T) {
	a := NewSampler(1, 2, 3, 4)
	a.Float()
	a.Float2()
	a.Float()
	want := a.Float()
	b := NewSampler(1, 2, 3, 4)
	b.SetDimension(4)
	if got := b.Float(); got != want {
		t.Fatalf("dimension 4 drawn directly: %v, drawn in order: %v", got, want)
	}
	// Means and correlations over many pixels at sample 0: a hash that
	// repeats itself across pixels or dimensions fails here.
	const n = 1 << 14
	var sx, sy, sxy, sxz float64
	for i := uint32(0); i < n; i++ {
		s := NewSampler(1, i%128, i/128, 0)
		s.SetDimension(6)
		x := float64(s.Float())
		y := float64(s.Float())
		o := NewSampler(2, i%128, i/128, 0)
		o.SetDimension(6)
		z := float64(o.Float())
		sx, sy, sxy, sxz = sx+x, sy+y, sxy+(x-0.5)*(y-0.5), sxz+(x-0.5)*(z-0.5)
	}
	// Standard error of a mean of uniforms: sqrt(1/12/n) ≈ 0.0023; of the
	// covariance, 1/12/sqrt(n) ≈ 0.00065.
	for name, v := range map[string]float64{"mean x": sx/n - 0.5, "mean y": sy/n - 0.5, "cov(dim 6, dim 7)": sxy / n, "cov(seed 1, seed 2)": sxz / n} {
		if math.Abs(v) > 0.01 {
			t.Errorf("%s off by %.4f", name, v)
		}
	}
}

// TestSobol1Reversed: the superset-sum form of Sobol's second dimension
// equals the sum of its direction numbers.
func TestSobol1Reversed(t *testing.T) {
	direct := func(i uint32) uint32 {
		v, x := uint32(1), uint32(0)
		for ; i != 0; i >>= 1 {
			if i&1 != 0 {
				x ^= v
			}
			v ^= v << 1
		}
		return x
	}
	x := uint32(12345)
	for k := 0; k < 100000; k++ {
		i := x
		if k < 1024 {
			i = uint32(k)
		}
		if got, want := sobol1Reversed(i), direct(i); got != want {
			t.Fatalf("index %#x: %#x, want %#x", i, got, want)
		}
		x = hash32(x)
	}
}
