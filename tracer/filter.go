package tracer

import "github.com/tracerender/trace/tracer/fmath"

// The pixel filter: how a pixel's samples spread over the image plane.
// With a box of width 1 (the default) a sample lands anywhere in its
// pixel, uniformly. Other filters are importance-sampled, as Cycles does
// (film.cpp's filter_table): each axis of a sample's position is drawn
// from the filter's profile, so samples fall more often near the pixel's
// centre and some beyond its edges, and every sample still counts once
// in its own pixel's mean. A pixel stays a pure function of its own
// samples (no splatting into neighbours), so tiles, threads, GPUs and
// workers still give the same bits.
//
// The profile is tabulated once per scene as an inverse distribution
// (Camera.FilterTable): entry i is the offset from the pixel's centre, in
// pixels, below which a fraction i/(FilterTableSize−1) of the filter's
// weight lies; a sample's number u in [0, 1) is mapped to an offset by
// linear interpolation between entries (filterOffset, and filter_offset
// in kernels/camera.h). Within each stretch between entries the samples
// are uniform, so the filter drawn is the table's piecewise-linear
// approximation of the profile, each stretch holding 1/256 of its
// weight.

// PixelFilter selects the pixel filter (Film.Filter).
type PixelFilter uint32

const (
	PixelFilterBox            PixelFilter = iota // uniform over the width
	PixelFilterGaussian                          // Cycles' Gaussian: σ = width/4, cut at ±1.5·width
	PixelFilterBlackmanHarris                    // Cycles' Blackman-Harris window over ±width
	NumPixelFilters
)

// FilterTableSize is the number of entries of Camera.FilterTable: odd,
// so that the middle one is the pixel's centre and the table is exactly
// symmetric about it.
const FilterTableSize = 257

// Bounds of Film.FilterWidth, in pixels: Cycles' (its interface takes
// 0.01 to 10).
const (
	MinFilterWidth = 0.01
	MaxFilterWidth = 10
)

// filterCells is the number of cells of the half profile whose sums make
// the distribution that the table inverts.
const filterCells = 4096

// filterRadius returns the half-width, in pixels, beyond which the
// filter of kind k and width w is zero: Cycles' widths (a Gaussian's
// table spans 3 × its width, a Blackman-Harris' 2 ×).
func filterRadius(k PixelFilter, w float32) float32 {
	switch k {
	case PixelFilterGaussian:
		return float32(1.5 * w)
	case PixelFilterBlackmanHarris:
		return w
	}
	return float32(0.5 * w)
}

// filterProfile returns the filter of kind k and width w at offset x ≥ 0
// from the centre (not normalised), in float32 through fmath so that
// every machine tabulates the same numbers: Cycles' filter_func_gaussian
// and filter_func_blackman_harris.
func filterProfile(k PixelFilter, w, x float32) float32 {
	switch k {
	case PixelFilterGaussian:
		v := float32(x * float32(2/w)) // Cycles' v·6/(3w)
		return fmath.Exp(float32(float32(-2*v) * v))
	case PixelFilterBlackmanHarris:
		v := float32(float32(2*pi) * float32(float32(x/float32(2*w))+0.5))
		return float32(float32(float32(0.35875-float32(0.48829*fmath.Cos(v)))+float32(0.14128*fmath.Cos(float32(2*v)))) -
			float32(0.01168*fmath.Cos(float32(3*v))))
	}
	return 1
}

// filterTable returns the inverse distribution of the filter of kind k
// and width w (see above). The half profile over [0, radius] is summed
// over filterCells cells at their midpoints, in float64 (additions and
// explicitly rounded products only: the same bits on every machine), and
// inverted at i/(h) of its weight, h = (FilterTableSize−1)/2, linearly
// within a cell; the other half mirrors it.
func filterTable(k PixelFilter, w float32) [FilterTableSize]float32 {
	var t [FilterTableSize]float32
	r := float64(filterRadius(k, w))
	cell := r / filterCells
	var cdf [filterCells + 1]float64
	for i := range filterCells {
		x := float32(float64(float64(i)+0.5) * cell)
		cdf[i+1] = cdf[i] + max(0, float64(filterProfile(k, w, x)))
	}
	total := cdf[filterCells]
	const h = (FilterTableSize - 1) / 2
	c := 0
	for j := 1; j <= h; j++ {
		target := float64(float64(float64(j)/h) * total)
		for c < filterCells-1 && cdf[c+1] < target {
			c++
		}
		f := 0.0
		if d := cdf[c+1] - cdf[c]; d > 0 {
			f = min(1, max(0, (target-cdf[c])/d))
		}
		x := float32(float64(float64(c)+f) * cell)
		if j == h {
			x = float32(r) // the whole weight lies within the radius
		}
		t[h+j], t[h-j] = x, -x
	}
	return t
}

// filterOffset returns the offset from a pixel's centre, in pixels, of a
// sample whose number is u in [0, 1): the table t interpolated linearly
// at u·(FilterTableSize−1). kernels/camera.h's filter_offset is the same
// operations.
func filterOffset(t *[FilterTableSize]float32, u float32) float32 {
	v := float32(u * (FilterTableSize - 1))
	i := min(int(v), FilterTableSize-2)
	f := v - float32(i)
	return t[i] + float32(f*(t[i+1]-t[i]))
}
