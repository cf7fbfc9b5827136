package tracer

import "github.com/tracerender/trace/tracer/fmath"

// Encode maps one linear radiance value to an output value in [0, 1]:
// exposure, then the tone curve, then the transfer function.
func (f *Film) Encode(x float32) float32 {
	x = float32(x * fmath.Pow(2, f.Exposure))
	return f.transfer(f.tonemap(x))
}

func (f *Film) tonemap(x float32) float32 {
	if !(x > 0) { // also NaN
		return 0
	}
	switch f.Tonemap {
	case TonemapReinhard:
		if x > 1<<24 {
			// 1 + x rounds to x from here on: the curve is 1, also
			// for +Inf (a radiance beyond float32), where x/(1+x)
			// would be NaN.
			return 1
		}
		return x / (1 + x)
	case TonemapACES:
		if x > 1e6 {
			// The curve is clamped to 1 from x ≈ 7.3 on; its products
			// overflow from x ≈ 1.8e19 (and +Inf), where n/d would be
			// NaN.
			return 1
		}
		// Narkowicz, "ACES Filmic Tone Mapping Curve" (2016).
		n := float32(x * (float32(2.51*x) + 0.03))
		d := float32(x*(float32(2.43*x)+0.59)) + 0.14
		return clamp01(n / d)
	}
	return min(x, 1)
}

func (f *Film) transfer(x float32) float32 {
	if f.Transfer == TransferLinear {
		return x
	}
	return srgbEncode(x)
}

// srgbEncode is the sRGB transfer function (IEC 61966-2-1) for x in [0, 1].
func srgbEncode(x float32) float32 {
	if x <= 0.0031308 {
		return float32(12.92 * x)
	}
	return float32(1.055*fmath.Pow(x, 1/2.4)) - 0.055
}
