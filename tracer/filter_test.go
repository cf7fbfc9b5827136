package tracer

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// filterCDF returns the fraction of the weight of the filter of kind k
// and width w that lies below offset x, integrating Cycles' profiles
// (written out here again in float64, not through filterProfile) by the
// midpoint rule.
func filterCDF(k PixelFilter, w, x float64) float64 {
	profile := func(v float64) float64 {
		switch k {
		case PixelFilterGaussian:
			v *= 6 / (3 * w)
			return math.Exp(-2 * v * v)
		case PixelFilterBlackmanHarris:
			v = 2 * math.Pi * (v/(2*w) + 0.5)
			return 0.35875 - 0.48829*math.Cos(v) + 0.14128*math.Cos(2*v) - 0.01168*math.Cos(3*v)
		}
		return 1
	}
	r := map[PixelFilter]float64{PixelFilterBox: w / 2, PixelFilterGaussian: 1.5 * w, PixelFilterBlackmanHarris: w}[k]
	const n = 20000
	var below, total float64
	for i := range n {
		v := -r + (float64(i)+0.5)*2*r/n
		f := profile(v)
		total += f
		if v < x {
			below += f
		}
	}
	return below / total
}

// TestFilterTable: the table of each filter is symmetric about the
// pixel's centre, increasing, spans the filter's support, and maps
// evenly spread numbers to offsets distributed as the filter's profile
// (within 0.3 % of its weight anywhere).
func TestFilterTable(t *testing.T) {
	for _, tc := range []struct {
		k PixelFilter
		w float32
	}{
		{PixelFilterBox, 2}, {PixelFilterBox, 0.5}, {PixelFilterGaussian, 1.5}, {PixelFilterGaussian, 0.7},
		{PixelFilterBlackmanHarris, 1.5}, {PixelFilterBlackmanHarris, 3},
	} {
		tab := filterTable(tc.k, tc.w)
		const h = (FilterTableSize - 1) / 2
		r := filterRadius(tc.k, tc.w)
		if tab[h] != 0 || tab[0] != -r || tab[FilterTableSize-1] != r {
			t.Errorf("%v %g: centre %g, ends %g and %g, want 0, ±%g", tc.k, tc.w, tab[h], tab[0], tab[FilterTableSize-1], r)
		}
		for i := 1; i < FilterTableSize; i++ {
			if !(tab[i] > tab[i-1]) || tab[i] != -tab[FilterTableSize-1-i] {
				t.Fatalf("%v %g: entries %d and %d: %g, %g (mirror %g)", tc.k, tc.w, i-1, i, tab[i-1], tab[i], tab[FilterTableSize-1-i])
			}
		}
		// The offsets of 20000 evenly spread numbers, against the
		// profile's distribution at 41 points across the support.
		const n = 20000
		offsets := make([]float32, n)
		for i := range offsets {
			offsets[i] = filterOffset(&tab, (float32(i)+0.5)/n)
		}
		for j := 0; j <= 40; j++ {
			x := float64(-r) + float64(j)*float64(2*r)/40
			below := 0
			for _, o := range offsets {
				if float64(o) < x {
					below++
				}
			}
			if got, want := float64(below)/n, filterCDF(tc.k, float64(tc.w), x); math.Abs(got-want) > 0.003 {
				t.Errorf("%v %g: %.4f of the samples below offset %.3f, want %.4f", tc.k, tc.w, got, x, want)
			}
		}
	}
}

// TestFilterEdge: the camera looks at the edge of an emitter that covers
// the left half of the image exactly, at a pixel boundary; under each
// filter a pixel's value is the share of the filter's weight on the
// emitter's side of the edge (its offsets from the pixel's centre),
// within 0.5 %. The default box of width 1 leaves the pixels beside the
// edge whole, the filters spread the edge over neighbours.
func TestFilterEdge(t *testing.T) {
	for _, tc := range []struct {
		k PixelFilter
		w float32
	}{{PixelFilterBox, 0}, {PixelFilterBox, 3}, {PixelFilterGaussian, 1.5}, {PixelFilterBlackmanHarris, 1.5}, {PixelFilterBlackmanHarris, 2.5}} {
		const width = 16
		d := &SceneDesc{
			Settings: Settings{Width: width, Height: 2, Samples: 1024, MaxDepth: 0, Seed: 7},
			// Looking along +z, +x is on the image's left: the quad over
			// x ≥ 0 covers the columns left of the centre.
			Camera:    CameraDesc{Position: mgl32.Vec3{0, 0, 0}, LookAt: mgl32.Vec3{0, 0, 1}, Up: mgl32.Vec3{0, 1, 0}, FOV: 10},
			Film:      Film{Filter: tc.k, FilterWidth: tc.w},
			Materials: []Material{{Kind: MaterialEmissive, Texture: NoTexture, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1}},
			Quads:     []QuadDesc{{Corner: mgl32.Vec3{0, -50, 10}, Edge1: mgl32.Vec3{50, 0, 0}, Edge2: mgl32.Vec3{0, 100, 0}}},
		}
		s, err := Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		for x := width/2 - 4; x < width/2+4; x++ {
			var st Stats
			got := s.RenderPixel(x, 0, &st)[0]
			// The edge lies at width/2, offset width/2 − (x + ½) from
			// the pixel's centre; the emitter is below it.
			edge := float64(width/2) - (float64(x) + 0.5)
			want := 0.0
			if edge > 0 {
				want = 1
			}
			if tc.w != 0 {
				want = filterCDF(tc.k, float64(tc.w), edge)
			}
			if math.Abs(float64(got)-want) > 0.005 {
				t.Errorf("%v %g: pixel %d: %.4f, want %.4f", tc.k, tc.w, x, got, want)
			}
		}
	}
}

// TestFilterChecked: Compile refuses unknown filters and widths outside
// [0.01, 10] pixels; a box of width 1, given or by default, is the
// uniform jitter (no table).
func TestFilterChecked(t *testing.T) {
	base := func(f Film) *SceneDesc {
		return &SceneDesc{
			Settings: Settings{Width: 4, Height: 4, Samples: 4, MaxDepth: 1},
			Camera:   CameraDesc{Position: mgl32.Vec3{0, 0, 0}, LookAt: mgl32.Vec3{0, 0, 1}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
			Film:     f,
		}
	}
	for _, f := range []Film{
		{Filter: NumPixelFilters, FilterWidth: 1}, {Filter: PixelFilterGaussian}, {Filter: PixelFilterGaussian, FilterWidth: 0.001},
		{Filter: PixelFilterBlackmanHarris, FilterWidth: 11}, {Filter: PixelFilterBox, FilterWidth: float32(math.NaN())},
	} {
		if _, err := Compile(base(f)); err == nil {
			t.Errorf("%+v compiled", f)
		}
	}
	for _, f := range []Film{{}, {Filter: PixelFilterBox, FilterWidth: 1}} {
		s, err := Compile(base(f))
		if err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if s.Camera.Filtered != 0 {
			t.Errorf("%+v: filtered: want the uniform jitter", f)
		}
	}
}
