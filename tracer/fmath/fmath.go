// Package fmath is the project's own float32 transcendental functions.
//
// The CPU tracer and the CUDA kernel must agree bit for bit (the
// determinism contract), so neither may call a platform math library for the
// functions on the ray path. Every function here is built only from IEEE-754
// float32 basic operations (+, −, ×, ÷, sqrt), comparisons, float32↔int32
// conversions of in-range values and bit manipulation, written so that it
// can be transcribed line for line into the kernel's C.
//
// # No fused multiply-add
//
// Go may fuse x*y + z into one FMA instruction (arm64, amd64 with
// GOAMD64=v3), which rounds once instead of twice and so changes the bits.
// The Go spec guarantees that an explicit conversion rounds and prevents
// that fusion, so in this file EVERY product is written float32(a*b), even
// one that is only stored in a variable, because fusion may happen across
// statements. TestNoFusedMultiplyAdd checks the generated arm64 and
// amd64/v3 assembly. The C twin must be compiled with -ffp-contract=off
// (gcc, clang) and --fmad=false (nvcc) for the same reason, and without
// -ffast-math.
//
// # Algorithms
//
// Sin, Cos and Tan reduce the argument modulo π/2 with an exact Cody–Waite
// scheme (π/2 split into seven float32 pieces, the first six with 8
// significant bits so that n·piece is exact for n < 2¹⁶, the tail summed with
// compensated TwoSum) and evaluate the Cephes single-precision minimax
// polynomials on [−π/4, π/4], using the low part of the reduced argument as
// fdlibm's kernels do. Exp and Log are Cephes polynomials with fdlibm-style
// hi/lo range reduction; Pow, Atan2 (via atan) and Acos are the fdlibm
// float32 algorithms (FreeBSD msun e_powf.c, s_atanf.c, e_acosf.c).
//
// # Accuracy
//
// Bounds are in units in the last place (ulp) of the float32 result: "within
// 1 ulp" means the result is the correctly rounded value or one of its two
// neighbours. The reference is package math in float64; the figure in
// parentheses is the largest distance measured from that unrounded value.
// The tests enforce the bounds on sweeps and random inputs; "exhaustive"
// means every float32 input of the stated domain was checked
// (FMATH_EXHAUSTIVE=1 go test -run Exhaustive, about 20 minutes).
//
//	Sqrt   correctly rounded                 all x
//	Sin    1 ulp (0.80), exhaustive          |x| ≤ 1e5
//	Cos    1 ulp (0.79), exhaustive          |x| ≤ 1e5
//	Tan    2 ulp (1.51), exhaustive          |x| ≤ 1e5
//	Exp    1 ulp (0.90), exhaustive          all x, subnormal results too
//	Log    1 ulp (0.89), exhaustive          all x > 0, subnormals too
//	Pow    1 ulp (0.84), tested              x in [0, 1], y in [1/2.4, 1e4];
//	                                         x in [1e-4, 1e4], |y| ≤ 30
//	Atan2  2 ulp (1.42), tested              all quadrants, 1e-30..1e30
//	Acos   1 ulp (0.92), exhaustive          [−1, 1]
package fmath

import "math"

// Bit patterns and constants shared by several functions.
const (
	signMask = 0x80000000
	absMask  = 0x7fffffff
	expMask  = 0x7f800000 // also the bits of +Inf

	ln2Hi = float32(6.9314575195e-01) // 0x3f317200, 15 significant bits: k*ln2Hi is exact for |k| < 2^9
	ln2Lo = float32(1.4286067653e-06) // 0x35bfbe8e, ln2 - ln2Hi rounded
)

// abs returns |x| by clearing the sign bit.
func abs(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) & absMask)
}

// signBit reports whether the sign bit of x is set (true for −0).
func signBit(x float32) bool {
	return math.Float32bits(x)&signMask != 0
}

// inf returns +Inf.
func inf() float32 { return math.Float32frombits(expMask) }

// nan returns a quiet NaN.
func nan() float32 { return math.Float32frombits(0x7fc00000) }

// scale2 returns y·2^k for y in [0.5, 2) and k in [−150, 128], rounding once.
func scale2(y float32, k int32) float32 {
	if k > 127 {
		return float32(float32(y*2) * 0x1p127)
	}
	if k >= -125 {
		return float32(y * math.Float32frombits(uint32(k+127)<<23))
	}
	// The first product is exact and normal; the second rounds once.
	return float32(float32(y*math.Float32frombits(uint32(k+100+127)<<23)) * 0x1p-100)
}

// Sqrt returns the square root of x, correctly rounded (0 ulp error), for all
// float32 x. Sqrt(+Inf) = +Inf, Sqrt(±0) = ±0, Sqrt(x < 0) = NaN and
// Sqrt(NaN) = NaN. It is IEEE-754 sqrt, identical to C's sqrtf and CUDA's
// __fsqrt_rn: the float64 square root of a float32, rounded to float32, is
// the correctly rounded float32 square root.
func Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// ---------------------------------------------------------------------------
// Trigonometric functions.

const (
	pio4      = float32(7.8539818525e-01) // 0x3f490fdb, π/4 rounded up
	twoOverPi = float32(6.3661974669e-01) // 0x3f22f983
	twoPi     = float32(6.2831854820e+00) // 0x40c90fdb, 2π rounded
	// trigMax is the largest |x| reduced accurately: n = round(|x|·2/π)
	// stays below 2^16, so n times an 8-bit piece of π/2 is exact.
	trigMax = float32(1e5)

	// π/2 = pio2a + pio2b + ... + pio2g to about 2^-73. pio2a..pio2f have at
	// most 8 significant bits (lowest bit 2^-7, 2^-15, ..., 2^-47).
	pio2a = float32(1.5703125)              // 0x3fc90000
	pio2b = float32(4.57763671875e-04)      // 0x39f00000
	pio2c = float32(2.5987625122070312e-05) // 0x37da0000
	pio2d = float32(7.543712854385376e-08)  // 0x33a20000
	pio2e = float32(6.002665031701326e-11)  // 0x2e840000
	pio2f = float32(7.389644451905042e-13)  // 0x2b500000
	pio2g = float32(5.3903029534742380e-15) // 0x27c234c5, rest rounded

	// Cephes sinf: sin(r) ≈ r + r³(s1 + s2·r² + s3·r⁴) on [−π/4, π/4].
	sinS1 = float32(-1.6666654611e-1)
	sinS2 = float32(8.3321608736e-3)
	sinS3 = float32(-1.9515295891e-4)
	// Cephes cosf: cos(r) ≈ 1 − r²/2 + r⁴(c1 + c2·r² + c3·r⁴).
	cosC1 = float32(4.166664568298827e-2)
	cosC2 = float32(-1.388731625493765e-3)
	cosC3 = float32(2.443315711809948e-5)
	// Cephes tanf: tan(r) ≈ r + r³(t1 + t2·r² + ... + t6·r¹⁰).
	tanT1 = float32(3.33331568548e-1)
	tanT2 = float32(1.33387994085e-1)
	tanT3 = float32(5.34112807005e-2)
	tanT4 = float32(2.44301354525e-2)
	tanT5 = float32(3.11992232697e-3)
	tanT6 = float32(9.38540185543e-3)
)

// pio2Tail are the pieces of π/2 whose products with n are subtracted with
// compensated (TwoSum) arithmetic.
var pio2Tail = [3]float32{pio2d, pio2e, pio2f}

// reducePio2 returns n mod 4 and r = rh + rl ≈ ax − n·π/2 with
// n = round(ax·2/π), for π/4 < ax ≤ trigMax. |rh| ≤ π/4 + 0.007 and the
// error of rh + rl is below 2^-72·n, tiny even when r is near its smallest
// value, about 2^-28 (at ax = 252.89821).
func reducePio2(ax float32) (rh, rl float32, q int32) {
	n := int32(float32(ax*twoOverPi) + 0.5)
	fn := float32(n)
	// Exact: n·pio2a..c are exact (≤ 24 bits), the first difference is exact
	// by Sterbenz's lemma and the next two fit in 24 bits of ax's grid.
	hi := ax - float32(fn*pio2a)
	hi = hi - float32(fn*pio2b)
	hi = hi - float32(fn*pio2c)
	// hi − n·(pio2d + pio2e + pio2f) with Knuth's TwoSum; errors go to lo.
	lo := float32(0)
	for i := 0; i < 3; i++ {
		p := -float32(fn * pio2Tail[i]) // exact
		s := hi + p
		b := s - hi
		lo = lo + ((hi - (s - b)) + (p - b))
		hi = s
	}
	lo = lo - float32(fn*pio2g)
	rh = hi + lo
	rl = lo - (rh - hi)
	return rh, rl, n & 3
}

// foldTwoPi returns ax mod twoPi, computed exactly (ax finite, ax ≥ 0) by
// binary long division: every subtraction d ≤ ax < 2d is exact by
// Sterbenz's lemma. It takes at most about 250 iterations.
func foldTwoPi(ax float32) float32 {
	d := twoPi
	for d <= float32(ax*0.5) {
		d = d + d
	}
	for d >= twoPi {
		if ax >= d {
			ax = ax - d
		}
		d = float32(d * 0.5)
	}
	return ax
}

// sinKernel returns sin(rh + rl) for |rh + rl| ≲ π/4 + 0.007, |rl| ≤ ulp(rh)/2.
func sinKernel(rh, rl float32) float32 {
	z := float32(rh * rh)
	v := float32(z * rh)
	r := sinS2 + float32(z*sinS3)
	// rh + v·s1 + v·z·r + rl·(1 − z/2), fdlibm's __kernel_sin order.
	return rh - ((float32(z*(float32(0.5*rl)-float32(v*r))) - rl) - float32(v*sinS1))
}

// cosKernel returns cos(rh + rl) for |rh + rl| ≲ π/4 + 0.007, |rl| ≤ ulp(rh)/2.
func cosKernel(rh, rl float32) float32 {
	z := float32(rh * rh)
	r := float32(z * (cosC1 + float32(z*(cosC2+float32(z*cosC3)))))
	hz := float32(0.5 * z)
	w := 1 - hz
	// (1 − w) − hz is the exact rounding error of w = 1 − hz.
	return w + (((1 - w) - hz) + (float32(z*r) - float32(rh*rl)))
}

// reduceLarge maps |x| to an equivalent argument in [0, trigMax]; for
// |x| > trigMax that is |x| mod float32(2π) (see Sin).
func reduceLarge(ax float32) float32 {
	if ax > trigMax {
		return foldTwoPi(ax)
	}
	return ax
}

// Sin returns the sine of x (radians).
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.80 ulp from
// the exact value) for |x| ≤ 1e5, checked exhaustively; the reduction is
// exact there, even next to multiples of π/2. Sin(±0) = ±0, odd symmetry
// is exact.
//
// For 1e5 < |x| < +Inf, x is first reduced exactly modulo float32(2π) =
// 6.2831855 (not 2π), so the result is finite, in [−1, 1] and deterministic
// but not an accurate sin(x) (neighbouring float32 values are ≥ 2^-7
// apart there anyway). Sin(±Inf) = Sin(NaN) = NaN.
func Sin(x float32) float32 {
	ax := abs(x)
	if !(ax <= math.MaxFloat32) {
		return x - x // NaN for NaN and ±Inf
	}
	ax = reduceLarge(ax)
	var s float32
	if ax <= pio4 {
		s = sinKernel(ax, 0)
	} else {
		rh, rl, q := reducePio2(ax)
		switch q {
		case 0:
			s = sinKernel(rh, rl)
		case 1:
			s = cosKernel(rh, rl)
		case 2:
			s = -sinKernel(rh, rl)
		default:
			s = -cosKernel(rh, rl)
		}
	}
	if signBit(x) {
		return -s
	}
	return s
}

// Cos returns the cosine of x (radians).
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.79 ulp from
// the exact value) for |x| ≤ 1e5, checked exhaustively. Cos(0) = 1, Cos is
// exactly even.
//
// For 1e5 < |x| < +Inf, x is first reduced exactly modulo float32(2π), so
// the result is finite, in [−1, 1] and deterministic but not an accurate
// cos(x). Cos(±Inf) = Cos(NaN) = NaN.
func Cos(x float32) float32 {
	ax := abs(x)
	if !(ax <= math.MaxFloat32) {
		return x - x
	}
	ax = reduceLarge(ax)
	if ax <= pio4 {
		return cosKernel(ax, 0)
	}
	rh, rl, q := reducePio2(ax)
	switch q {
	case 0:
		return cosKernel(rh, rl)
	case 1:
		return -sinKernel(rh, rl)
	case 2:
		return -cosKernel(rh, rl)
	default:
		return sinKernel(rh, rl)
	}
}

// SinCos returns Sin(x) and Cos(x), the same bits, with one argument
// reduction for the two.
func SinCos(x float32) (sin, cos float32) {
	ax := abs(x)
	if !(ax <= math.MaxFloat32) {
		return x - x, x - x
	}
	ax = reduceLarge(ax)
	if ax <= pio4 {
		sin, cos = sinKernel(ax, 0), cosKernel(ax, 0)
	} else {
		rh, rl, q := reducePio2(ax)
		sk, ck := sinKernel(rh, rl), cosKernel(rh, rl)
		switch q {
		case 0:
			sin, cos = sk, ck
		case 1:
			sin, cos = ck, -sk
		case 2:
			sin, cos = -sk, -ck
		default:
			sin, cos = -ck, sk
		}
	}
	if signBit(x) {
		sin = -sin
	}
	return sin, cos
}

// Tan returns the tangent of x (radians).
//
// Accuracy: within 2 ulp of the correctly rounded result (max 1.51 ulp from
// the exact value) for |x| ≤ 1e5, checked exhaustively, including the
// arguments next to the poles: Tan(float32(π/2)) = −22877332, correctly
// rounded. Tan(±0) = ±0, odd symmetry is exact.
//
// For 1e5 < |x| < +Inf, x is first reduced exactly modulo float32(2π): the
// result is finite and deterministic but not accurate.
// Tan(±Inf) = Tan(NaN) = NaN.
func Tan(x float32) float32 {
	ax := abs(x)
	if !(ax <= math.MaxFloat32) {
		return x - x
	}
	ax = reduceLarge(ax)
	rh, rl, q := ax, float32(0), int32(0)
	if ax > pio4 {
		rh, rl, q = reducePio2(ax)
	}
	z := float32(rh * rh)
	p := tanT1 + float32(z*(tanT2+float32(z*(tanT3+float32(z*(tanT4+float32(z*(tanT5+float32(z*tanT6)))))))))
	t := float32(float32(rh*z) * p) // tan(rh) − rh
	// tan(rh + rl) ≈ tan(rh) + rl·(1 + tan²(rh)).
	u := rh + t
	tail := t + (rl + float32(rl*float32(u*u)))
	th := rh + tail
	tl := tail - (th - rh) // th + tl = rh + tail exactly
	if q&1 != 0 {
		// w = −1/(th + tl). v = −1/th rounded; the residual
		// d = −1 − v·(th + tl), with v·th exact in 12-bit halves, gives
		// w = v + d/(th + tl) ≈ v − d·v.
		v := -1 / th
		vh, thh := trunc12(v), trunc12(th)
		vl, thl := v-vh, th-thh
		d := -1 - float32(vh*thh)
		d = d - float32(vh*thl)
		d = d - float32(vl*thh)
		d = d - float32(vl*thl)
		d = d - float32(v*tl)
		th = v - float32(d*v)
	}
	if signBit(x) {
		return -th
	}
	return th
}

// ---------------------------------------------------------------------------
// Exponential, logarithm and power.

const (
	log2e = float32(1.4426950216e+00) // 0x3fb8aa3b
	// Exp overflows for x > expMax (0x42b17217; e^x is then ≥ the rounding
	// threshold of MaxFloat32) and underflows to 0 for x < expMin (0xc2cff1b5,
	// e^x < 2^-150).
	expMax = float32(88.72283172607421875)
	expMin = float32(-103.97208404541015625)

	// Cephes expf: e^r ≈ 1 + r + r²(e0 + e1·r + ... + e5·r⁵), |r| ≤ ln2/2.
	expE0 = float32(5.0000001201e-1)
	expE1 = float32(1.6666665459e-1)
	expE2 = float32(4.1665795894e-2)
	expE3 = float32(8.3334519073e-3)
	expE4 = float32(1.3981999507e-3)
	expE5 = float32(1.9875691500e-4)

	sqrtHalf = float32(0.70710678118654752440) // 0x3f3504f3

	// Cephes logf: log(1+f) ≈ f − f²/2 + f³·P(f), −0.29 ≤ f < 0.42.
	logP0 = float32(3.3333331174e-1)
	logP1 = float32(-2.4999993993e-1)
	logP2 = float32(2.0000714765e-1)
	logP3 = float32(-1.6668057665e-1)
	logP4 = float32(1.4249322787e-1)
	logP5 = float32(-1.2420140846e-1)
	logP6 = float32(1.1676998740e-1)
	logP7 = float32(-1.1514610310e-1)
	logP8 = float32(7.0376836292e-2)
)

// Exp returns e**x.
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.90 ulp from
// the exact value) for all x, checked exhaustively; that includes the
// subnormal results of x in [−103.97, −87.34), where the ulp is 2^-149.
//
// Exp(0) = 1, Exp(x) = +Inf for x > 88.7228317 (overflow), Exp(x) = +0 for
// x < −103.972084 (underflow), Exp(+Inf) = +Inf, Exp(−Inf) = +0,
// Exp(NaN) = NaN.
func Exp(x float32) float32 {
	if x != x {
		return x
	}
	if x > expMax {
		return inf()
	}
	if x < expMin {
		return 0
	}
	// k = round(x/ln2); r = hi − lo = x − k·ln2 with k·ln2Hi and hi exact.
	t := float32(x * log2e)
	var k int32
	if t >= 0 {
		k = int32(t + 0.5)
	} else {
		k = int32(t - 0.5)
	}
	fk := float32(k)
	hi := x - float32(fk*ln2Hi)
	lo := float32(fk * ln2Lo)
	r := hi - lo
	p := expE4 + float32(r*expE5)
	p = expE3 + float32(r*p)
	p = expE2 + float32(r*p)
	p = expE1 + float32(r*p)
	p = expE0 + float32(r*p)
	p = float32(float32(r*r) * p) // e^r − 1 − r
	y := 1 - ((lo - p) - hi)      // 1 + r + p, with r = hi − lo unrounded
	return scale2(y, k)
}

// Log returns the natural logarithm of x.
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.89 ulp from
// the exact value) for all positive x, normal and subnormal, checked
// exhaustively.
//
// Log(1) = 0, Log(±0) = −Inf, Log(x < 0) = NaN (−Inf too), Log(+Inf) = +Inf,
// Log(NaN) = NaN.
func Log(x float32) float32 {
	if x != x {
		return x
	}
	if x <= 0 {
		if x == 0 {
			return -inf()
		}
		return nan()
	}
	ix := math.Float32bits(x)
	if ix == expMask {
		return x // +Inf
	}
	e := int32(0)
	if ix < 0x00800000 { // subnormal: scale by 2^25 (exact)
		ix = math.Float32bits(float32(x * 0x1p25))
		e = -25
	}
	// x = m·2^e with m in [√½, √2); f = m − 1 is exact.
	e += int32(ix>>23) - 126
	m := math.Float32frombits(ix&0x007fffff | 0x3f000000) // in [0.5, 1)
	var f float32
	if m < sqrtHalf {
		e--
		f = (m + m) - 1
	} else {
		f = m - 1
	}
	z := float32(f * f)
	p := logP7 + float32(f*logP8)
	p = logP6 + float32(f*p)
	p = logP5 + float32(f*p)
	p = logP4 + float32(f*p)
	p = logP3 + float32(f*p)
	p = logP2 + float32(f*p)
	p = logP1 + float32(f*p)
	p = logP0 + float32(f*p)
	y := float32(float32(f*z)*p) - float32(0.5*z) // log(1+f) − f
	if e == 0 {
		return f + y
	}
	// e·ln2 + f + y, with e·ln2Hi exact and e·ln2Hi + f summed by Fast2Sum.
	fe := float32(e)
	hi := float32(fe * ln2Hi)
	s := hi + f
	err := (hi - s) + f
	return s + ((y + float32(fe*ln2Lo)) + err)
}

// Constants of fdlibm's e_powf.c.
const (
	powDpH1 = float32(5.84960938e-01) // 0x3f15c000, log2(1.5) high
	powDpL1 = float32(1.56322085e-06) // 0x35d1cfdc, log2(1.5) low
	powL1   = float32(6.0000002384e-01)
	powL2   = float32(4.2857143283e-01)
	powL3   = float32(3.3333334327e-01)
	powL4   = float32(2.7272811532e-01)
	powL5   = float32(2.3066075146e-01)
	powL6   = float32(2.0697501302e-01)
	powP1   = float32(1.6666667163e-01)
	powP2   = float32(-2.7777778450e-03)
	powP3   = float32(6.6137559770e-05)
	powP4   = float32(-1.6533901999e-06)
	powP5   = float32(4.1381369442e-08)
	powLg2  = float32(6.9314718246e-01) // 0x3f317218
	powLg2H = float32(6.93145752e-01)   // 0x3f317200
	powLg2L = float32(1.42860654e-06)   // 0x35bfbe8c
	powOvt  = float32(4.2995665694e-08) // −(128 − log2(MaxFloat32 + ulp/2))
	powCp   = float32(9.6179670095e-01) // 2/(3·ln2)
	powCpH  = float32(9.6191406250e-01) // 0x3f764000, 12 bits of cp
	powCpL  = float32(-1.1736857402e-04)
	ivln2   = float32(1.4426950216e+00) // 0x3fb8aa3b
	ivln2H  = float32(1.4426879883e+00) // 0x3fb8aa00, 16 bits
	ivln2L  = float32(7.0526075433e-06) // 0x36eca570
)

// trunc12 clears the low 12 bits of x's significand (a 12-bit "high part"
// whose products with other such parts are exact).
func trunc12(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) & 0xfffff000)
}

// Pow returns x**y for x ≥ 0.
//
// Method (fdlibm e_powf.c): log2(x) is computed to about 2^-36 relative as
// t1 + t2 (t1 with 12 significant bits), multiplied by y in split form, and
// 2^(y·log2 x) evaluated with an fdlibm exp kernel, so the error does not
// grow with |y·log x|.
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.84 ulp from
// the exact value), tested on the tracer's ranges, x in [0, 1] with y = 1/2.4
// (sRGB encoding), 5, 50, 1000 and random y in [1, 10000] (Phong exponents),
// subnormal results included, and on random x in [1e-4, 1e4] with y in
// [−30, 30]. The method does not lose accuracy for large |y·log x|.
// y = 2 gives x*x and y = 0.5 gives Sqrt(x), both correctly rounded.
//
// Domain and special cases (as math.Pow where it is defined):
//   - Pow(x, ±0) = 1 for any x, even NaN; Pow(1, y) = 1 for any y, even NaN.
//   - Pow(x, 1) = x.
//   - NaN x or y otherwise gives NaN.
//   - x < 0 (including −Inf) gives NaN, even for integer y (unlike math.Pow).
//   - The sign of a zero x is ignored: Pow(±0, y) = +0 for y > 0 and +Inf
//     for y < 0.
//   - Pow(+Inf, y) = +Inf for y > 0 and +0 for y < 0.
//   - Pow(x, +Inf) = +Inf for x > 1 and +0 for x < 1; Pow(x, −Inf) = +0 for
//     x > 1 and +Inf for x < 1.
//   - Results beyond MaxFloat32 are +Inf; results below 2^-150 are +0.
func Pow(x, y float32) float32 {
	hx := int32(math.Float32bits(x))
	hy := int32(math.Float32bits(y))
	ix := hx & absMask
	iy := hy & absMask

	if iy == 0 { // y = ±0
		return 1
	}
	if hx == 0x3f800000 { // x = 1
		return 1
	}
	if ix > expMask || iy > expMask { // NaN
		return nan()
	}
	if hx < 0 && ix != 0 { // x < 0 (not −0)
		return nan()
	}
	if iy == expMask { // y = ±Inf
		if ix > 0x3f800000 { // x > 1
			if hy >= 0 {
				return inf()
			}
			return 0
		}
		if hy < 0 { // x < 1
			return inf()
		}
		return 0
	}
	ax := abs(x)
	if iy == 0x3f800000 { // y = ±1
		if hy < 0 {
			return 1 / ax
		}
		return ax
	}
	if hy == 0x40000000 { // y = 2
		return float32(ax * ax)
	}
	if hy == 0x3f000000 { // y = 0.5
		return Sqrt(ax)
	}
	if ix == expMask || ix == 0 { // x = +Inf or ±0
		if hy < 0 {
			return 1 / ax
		}
		return ax
	}

	// log2(ax) = t1 + t2, t1 with 12 significant bits.
	var t1, t2 float32
	if iy > 0x4d000000 { // |y| > 2^27
		// Over- or underflow unless x is within 2^-20 of 1.
		if ix < 0x3f7ffff8 {
			if hy < 0 {
				return inf()
			}
			return 0
		}
		if ix > 0x3f800007 {
			if hy > 0 {
				return inf()
			}
			return 0
		}
		// log(x) by x − x²/2 + x³/3 − x⁴/4 (t has 20 trailing zero bits).
		t := ax - 1
		w := float32(float32(t*t) * (0.5 - float32(t*(0.333333333333-float32(t*0.25)))))
		u := float32(ivln2H * t) // ivln2H has 16 significant bits: exact
		v := float32(t*ivln2L) - float32(w*ivln2)
		t1 = trunc12(u + v)
		t2 = v - (t1 - u)
	} else {
		n := int32(0)
		if ix < 0x00800000 { // subnormal x
			ax = float32(ax * 0x1p24)
			n -= 24
			ix = int32(math.Float32bits(ax))
		}
		n += (ix >> 23) - 0x7f
		j := ix & 0x007fffff
		// Normalize to [1, √3): k = 0 for [1, √1.5), k = 1 for [√1.5, √3).
		ix = j | 0x3f800000
		var k int32
		if j <= 0x1cc471 {
			k = 0
		} else if j < 0x5db3d7 {
			k = 1
		} else {
			k = 0
			n++
			ix -= 0x00800000
		}
		ax = math.Float32frombits(uint32(ix))
		bp, dpH, dpL := float32(1), float32(0), float32(0)
		if k == 1 {
			bp, dpH, dpL = 1.5, powDpH1, powDpL1
		}

		// s = sH + sL = (ax − bp)/(ax + bp).
		u := ax - bp
		v := 1 / (ax + bp)
		s := float32(u * v)
		sH := trunc12(s)
		// tH = ax + bp, high part (computed from the bits).
		tH := math.Float32frombits(uint32((((ix >> 1) &^ 0xfff) | 0x20000000) + 0x00400000 + (k << 21)))
		tL := ax - (tH - bp)
		sL := float32(v * ((u - float32(sH*tH)) - float32(sH*tL)))
		// log(ax) in terms of s.
		s2 := float32(s * s)
		r := powL5 + float32(s2*powL6)
		r = powL4 + float32(s2*r)
		r = powL3 + float32(s2*r)
		r = powL2 + float32(s2*r)
		r = powL1 + float32(s2*r)
		r = float32(float32(s2*s2) * r)
		r = r + float32(sL*(sH+s))
		s2 = float32(sH * sH)
		tH = trunc12((3 + s2) + r)
		tL = r - ((tH - 3) - s2)
		// u + v = s·(1 + ...)
		u = float32(sH * tH)
		v = float32(sL*tH) + float32(tL*s)
		// 2/(3·ln2)·(s + ...)
		pH := trunc12(u + v)
		pL := v - (pH - u)
		zH := float32(powCpH * pH)
		zL := (float32(powCpL*pH) + float32(pL*powCp)) + dpL
		// log2(ax) = n + dpH + zH + zL.
		tn := float32(n)
		t1 = trunc12(((zH + zL) + dpH) + tn)
		t2 = zL - (((t1 - tn) - dpH) - zH)
	}

	// (y1 + y2)·(t1 + t2) with y1 = y's high 12 bits.
	y1 := trunc12(y)
	pL := float32((y-y1)*t1) + float32(y*t2)
	pH := float32(y1 * t1) // exact
	z := pL + pH
	j := int32(math.Float32bits(z))
	if j > 0x43000000 { // z > 128
		return inf()
	} else if j == 0x43000000 { // z == 128
		if pL+powOvt > z-pH {
			return inf()
		}
	} else if j&absMask > 0x43160000 { // z < −150
		return 0
	} else if uint32(j) == 0xc3160000 { // z == −150
		if pL <= z-pH {
			return 0
		}
	}

	// 2^(pH + pL) = 2^n · 2^(rest), |rest| ≤ 0.5.
	i := j & absMask
	k := (i >> 23) - 0x7f
	n := int32(0)
	if i > 0x3f000000 { // |z| > 0.5: n = round(z)
		n = j + (0x00800000 >> (k + 1))
		k = ((n & absMask) >> 23) - 0x7f // new k for n
		tn := math.Float32frombits(uint32(n &^ (0x007fffff >> k)))
		n = ((n & 0x007fffff) | 0x00800000) >> (23 - k)
		if j < 0 {
			n = -n
		}
		pH = pH - tn
	}
	t := math.Float32frombits(math.Float32bits(pL+pH) & 0xffff8000)
	u := float32(t * powLg2H)
	v := float32((pL-(t-pH))*powLg2) + float32(t*powLg2L)
	z = u + v
	w := v - (z - u)
	t = float32(z * z)
	q := powP4 + float32(t*powP5)
	q = powP3 + float32(t*q)
	q = powP2 + float32(t*q)
	q = powP1 + float32(t*q)
	t1 = z - float32(t*q)
	r := (float32(z*t1) / (t1 - 2)) - (w + float32(z*w))
	z = 1 - (r - z)
	return scale2(z, n)
}

// ---------------------------------------------------------------------------
// Inverse trigonometric functions.

const (
	piF     = float32(3.1415927410e+00)  // 0x40490fdb, π rounded
	piLo    = float32(-8.7422776573e-08) // 0xb3bbbd2e, π − piF
	pio2F   = float32(1.5707963705e+00)  // 0x3fc90fdb, π/2 rounded
	pio4F   = float32(7.8539818525e-01)  // 0x3f490fdb, π/4 rounded
	pio34F  = float32(2.3561944962e+00)  // 0x4016cbe4, 3π/4 rounded
	pio2Hi  = float32(1.5707962513e+00)  // 0x3fc90fda, π/2 rounded down
	pio2Lo  = float32(7.5497894159e-08)  // 0x33a22168, π/2 − pio2Hi
	piHi    = float32(3.1415925026e+00)  // 0x40490fda, π rounded down
	atanHi0 = float32(4.6364760399e-01)  // atan(0.5) high, 0x3eed6338
	atanHi1 = float32(7.8539812565e-01)  // atan(1.0) high, 0x3f490fda
	atanHi2 = float32(9.8279368877e-01)  // atan(1.5) high, 0x3f7b985e
	atanHi3 = float32(1.5707962513e+00)  // atan(inf) high, 0x3fc90fda
	atanLo0 = float32(5.0121582440e-09)  // 0x31ac3769
	atanLo1 = float32(3.7748947079e-08)  // 0x33222168
	atanLo2 = float32(3.4473217170e-08)  // 0x33140fb4
	atanLo3 = float32(7.5497894159e-08)  // 0x33a22168
	// fdlibm s_atanf.c: atan(x) ≈ x − x(aT0·x² + aT1·x⁴ + ...), |x| ≤ 7/16.
	aT0 = float32(3.3333328366e-01)
	aT1 = float32(-1.9999158382e-01)
	aT2 = float32(1.4253635705e-01)
	aT3 = float32(-1.0648017377e-01)
	aT4 = float32(6.1687607318e-02)
	// fdlibm e_acosf.c: asin(s)/s − 1 ≈ s²·pS(s²)/qS(s²).
	pS0 = float32(1.6666586697e-01)
	pS1 = float32(-4.2743422091e-02)
	pS2 = float32(-8.6563630030e-03)
	qS1 = float32(-7.0662963390e-01)
)

// atanPos returns atan(x) for 0 ≤ x ≤ +Inf (fdlibm s_atanf.c).
func atanPos(x float32) float32 {
	ix := math.Float32bits(x)
	if ix >= 0x4c800000 { // x ≥ 2^26 (or +Inf)
		return atanHi3 + atanLo3
	}
	var hi, lo float32
	id := -1
	if ix < 0x3ee00000 { // x < 0.4375
		if ix < 0x39800000 { // x < 2^-12
			return x
		}
	} else if ix < 0x3f300000 { // 7/16 ≤ x < 11/16
		id, hi, lo = 0, atanHi0, atanLo0
		x = ((x + x) - 1) / (2 + x)
	} else if ix < 0x3f980000 { // 11/16 ≤ x < 19/16
		id, hi, lo = 1, atanHi1, atanLo1
		x = (x - 1) / (x + 1)
	} else if ix < 0x401c0000 { // 19/16 ≤ x < 39/16
		id, hi, lo = 2, atanHi2, atanLo2
		x = (x - 1.5) / (1 + float32(1.5*x))
	} else { // 39/16 ≤ x < 2^26
		id, hi, lo = 3, atanHi3, atanLo3
		x = -1 / x
	}
	z := float32(x * x)
	w := float32(z * z)
	s1 := float32(z * (aT0 + float32(w*(aT2+float32(w*aT4)))))
	s2 := float32(w * (aT1 + float32(w*aT3)))
	if id < 0 {
		return x - float32(x*(s1+s2))
	}
	return hi - ((float32(x*(s1+s2)) - lo) - x)
}

// Atan2 returns the arc tangent of y/x in [−π, π], using the signs of both
// to determine the quadrant.
//
// Accuracy: within 2 ulp of the correctly rounded result (max 1.42 ulp from
// the exact value), tested on a 1001×1001 grid over [−10, 10]² (all four
// quadrants and the axes) and on random inputs of both signs with
// magnitudes from 1e-30 to 1e30.
//
// Special values (as math.Atan2): a NaN argument gives NaN;
// Atan2(±0, x ≥ +0) = ±0, Atan2(±0, x ≤ −0) = ±π, Atan2(y > 0, ±0) = π/2,
// Atan2(y < 0, ±0) = −π/2, Atan2(±Inf, +Inf) = ±π/4, Atan2(±Inf, −Inf) =
// ±3π/4, Atan2(y, +Inf) = ±0, Atan2(y > 0, −Inf) = π, Atan2(y < 0, −Inf) = −π,
// Atan2(±Inf, x) = ±π/2. Here π, π/2, π/4 and 3π/4 are the correctly rounded
// float32 values.
func Atan2(y, x float32) float32 {
	if x != x || y != y {
		return nan()
	}
	hx := math.Float32bits(x)
	hy := math.Float32bits(y)
	ix := hx & absMask
	iy := hy & absMask
	negY := hy&signMask != 0
	negX := hx&signMask != 0

	var z float32
	switch {
	case iy == 0: // y = ±0
		if negX {
			z = piF
		} else {
			return y
		}
	case ix == 0: // x = ±0, y ≠ 0
		z = pio2F
	case ix == expMask: // x = ±Inf
		if iy == expMask {
			if negX {
				z = pio34F
			} else {
				z = pio4F
			}
		} else if negX {
			z = piF
		} else {
			z = 0
		}
	case iy == expMask: // y = ±Inf, x finite
		z = pio2F
	default:
		k := int32(iy>>23) - int32(ix>>23)
		if k > 26 { // |y/x| > 2^26
			z = pio2F // atan2 rounds to π/2 on both sides
		} else if k < -26 && negX { // |y/x| < 2^-26, x < 0
			z = piF
		} else {
			z = atanPos(abs(y) / abs(x))
			if negX {
				z = piF - (z - piLo)
			}
		}
	}
	if negY {
		return -z
	}
	return z
}

// Acos returns the arc cosine of x, in [0, π].
//
// Accuracy: within 1 ulp of the correctly rounded result (max 0.92 ulp from
// the exact value) for all x in [−1, 1], checked exhaustively.
// Acos(1) = 0, Acos(−1) = float32(π), Acos(0) = float32(π/2).
//
// Inputs outside [−1, 1], such as a dot product of unit vectors that rounded
// to 1.0000001, are clamped: Acos(x) = 0 for x > 1 (including +Inf) and
// float32(π) for x < −1 (including −Inf), unlike math.Acos, which returns
// NaN. Acos(NaN) = NaN.
func Acos(x float32) float32 {
	if x != x {
		return x
	}
	hx := math.Float32bits(x)
	ix := hx & absMask
	if ix >= 0x3f800000 { // |x| ≥ 1: clamp
		if hx&signMask == 0 {
			return 0
		}
		return piF
	}
	if ix < 0x3f000000 { // |x| < 0.5
		if ix <= 0x32800000 { // |x| ≤ 2^-26
			return pio2Hi + pio2Lo
		}
		z := float32(x * x)
		p := float32(z * (pS0 + float32(z*(pS1+float32(z*pS2)))))
		q := 1 + float32(z*qS1)
		r := p / q
		return pio2Hi - (x - (pio2Lo - float32(x*r)))
	}
	if hx&signMask != 0 { // −1 < x ≤ −0.5
		z := float32((1 + x) * 0.5)
		p := float32(z * (pS0 + float32(z*(pS1+float32(z*pS2)))))
		q := 1 + float32(z*qS1)
		s := Sqrt(z)
		r := p / q
		w := float32(r*s) - pio2Lo
		return piHi - float32(2*(s+w))
	}
	// 0.5 ≤ x < 1.
	z := float32((1 - x) * 0.5)
	s := Sqrt(z)
	df := trunc12(s)
	c := (z - float32(df*df)) / (s + df)
	p := float32(z * (pS0 + float32(z*(pS1+float32(z*pS2)))))
	q := 1 + float32(z*qS1)
	r := p / q
	w := float32(r*s) + c
	return float32(2 * (df + w))
}
