package scenes

import (
	"testing"

	"github.com/tracerender/trace/tracer"
)

// TestFilmFilter: film.filter names Cycles' pixel filters, and
// filter_width defaults as in Cycles: 1 pixel for the box, 1.5 for the
// others.
func TestFilmFilter(t *testing.T) {
	for _, tc := range []struct {
		film string
		want tracer.Film
	}{
		{`{}`, tracer.Film{Filter: tracer.PixelFilterBox, FilterWidth: 1}},
		{`{"filter": "box", "filter_width": 2}`, tracer.Film{Filter: tracer.PixelFilterBox, FilterWidth: 2}},
		{`{"filter": "gaussian"}`, tracer.Film{Filter: tracer.PixelFilterGaussian, FilterWidth: 1.5}},
		{`{"filter": "blackman-harris"}`, tracer.Film{Filter: tracer.PixelFilterBlackmanHarris, FilterWidth: 1.5}},
		{`{"filter": "blackman-harris", "filter_width": 0.75}`, tracer.Film{Filter: tracer.PixelFilterBlackmanHarris, FilterWidth: 0.75}},
	} {
		d, err := Parse("test.json", []byte(sceneWith(`"film": `+tc.film)))
		if err != nil {
			t.Fatalf("%s: %v", tc.film, err)
		}
		if d.Film != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.film, d.Film, tc.want)
		}
	}
}
