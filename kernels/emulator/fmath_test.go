package emulator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracerender/trace/tracer"
	"github.com/tracerender/trace/tracer/fmath"
)

// fmathInputs returns n argument pairs: special values, every exponent's
// boundaries, random bit patterns (all of float32) and random values in
// the ranges the tracer uses.
func fmathInputs(n int) (a, b []float32) {
	rng := rand.New(rand.NewPCG(7, 11))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 2, 1e-45, 1e-38, 1e5, 1e5 + 8, 1e30,
		math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1.5707964, 3.1415927, 0.7853982, 252.89821, 88.72283, 88.72284, -103.97208, -103.9721}
	for _, x := range special {
		for _, y := range special {
			a, b = append(a, x), append(b, y)
		}
	}
	for len(a) < n {
		var x, y float32
		switch len(a) % 4 {
		case 0: // any float32
			x, y = math.Float32frombits(rng.Uint32()), math.Float32frombits(rng.Uint32())
		case 1: // unit interval and phong exponents
			x, y = rng.Float32(), rng.Float32()*1000
		case 2: // angles and ratios
			x, y = (rng.Float32()-0.5)*20, (rng.Float32()-0.5)*20
		default: // wide magnitudes of both signs
			x = float32(math.Ldexp(rng.Float64(), rng.IntN(80)-40))
			y = float32(math.Ldexp(rng.Float64()-0.5, rng.IntN(20)-10))
		}
		a, b = append(a, x), append(b, y)
	}
	return a, b
}

// TestFmath: the kernel's transcendental functions (fmath.h) return the
// same bits as package fmath's for every input tried, NaNs being equal to
// NaNs.
func TestFmath(t *testing.T) {
	a, b := fmathInputs(200000)
	for _, tc := range []struct {
		name string
		f    Func
		g    func(x, y float32) float32
	}{
		{"Sqrt", Sqrt, func(x, _ float32) float32 { return fmath.Sqrt(x) }},
		{"Sin", Sin, func(x, _ float32) float32 { return fmath.Sin(x) }},
		{"Cos", Cos, func(x, _ float32) float32 { return fmath.Cos(x) }},
		{"Tan", Tan, func(x, _ float32) float32 { return fmath.Tan(x) }},
		{"Exp", Exp, func(x, _ float32) float32 { return fmath.Exp(x) }},
		{"Log", Log, func(x, _ float32) float32 { return fmath.Log(x) }},
		{"Pow", Pow, fmath.Pow},
		{"Atan2", Atan2, fmath.Atan2},
		{"Acos", Acos, func(x, _ float32) float32 { return fmath.Acos(x) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Fmath(tc.f, a, b)
			bad := 0
			for i := range a {
				want := tc.g(a[i], b[i])
				if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
					if bad++; bad <= 5 {
						t.Errorf("%s(%g, %g) [%#x, %#x]: kernel %g [%#x], Go %g [%#x]", tc.name, a[i], b[i],
							math.Float32bits(a[i]), math.Float32bits(b[i]), got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d results differ", bad, len(a))
			}
		})
	}
}

// TestSampler: the kernel's counter-based random numbers equal
// tracer.Sampler's.
func TestSampler(t *testing.T) {
	for _, c := range []struct {
		seed    uint64
		x, y, s uint32
	}{{0, 0, 0, 0}, {1, 2, 3, 4}, {1 << 63, 16383, 16383, 65535}, {0xdeadbeefcafe, 7, 1 << 20, 3}} {
		got := Sampler(c.seed, c.x, c.y, c.s, 99)
		rng := tracer.NewSampler(c.seed, c.x, c.y, c.s)
		for i := 0; i < len(got); i += 3 {
			w0 := rng.Float()
			w1, w2 := rng.Float2()
			for k, w := range []float32{w0, w1, w2} {
				if g := got[i+k]; math.Float32bits(g) != math.Float32bits(w) {
					t.Fatalf("%+v: number %d: kernel %g, Go %g", c, i+k, g, w)
				}
			}
		}
	}
}
