package imageio_test

import (
	"bytes"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracerender/trace/imageio"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// hdrTestImage holds black, a ramp over many exponents, and flat runs.
func hdrTestImage(w, h int) *tracer.Framebuffer {
	fb := tracer.NewFramebuffer(w, h)
	for y := range h {
		for x := range w {
			i := 3 * (y*w + x)
			switch y % 3 {
			case 0:
				v := float32(math.Ldexp(1+float64(x)/float64(w), x%40-20))
				fb.Pix[i], fb.Pix[i+1], fb.Pix[i+2] = v, v/3, v*7
			case 1:
				fb.Pix[i], fb.Pix[i+1], fb.Pix[i+2] = 0.5, 0.25, 1 // runs
			}
		}
	}
	return fb
}

// TestWriteHDR: the scene reader's Radiance decoder (used for image
// backgrounds) reads what WriteHDR writes, run-length encoded or flat, to
// the framebuffer within RGBE's precision: each component within one unit
// of the 8-bit mantissas that share the largest component's exponent.
func TestWriteHDR(t *testing.T) {
	dir := t.TempDir()
	for _, w := range []int{40, 5} { // RLE rows, and rows too short for it
		fb := hdrTestImage(w, 7)
		var buf bytes.Buffer
		if err := imageio.WriteHDR(&buf, fb); err != nil {
			t.Fatal(err)
		}
		if w == 40 && buf.Len() >= 4*w*7 {
			t.Errorf("%d bytes for %d pixels: not run-length encoded", buf.Len(), w*7)
		}
		os.WriteFile(filepath.Join(dir, "sky.hdr"), buf.Bytes(), 0o644)
		scene := filepath.Join(dir, "scene.json")
		os.WriteFile(scene, []byte(`{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
			"background": {"type": "image", "file": "sky.hdr"}, "objects": []}`), 0o644)
		desc, err := scenes.Load(scene)
		if err != nil {
			t.Fatal(err)
		}
		if len(desc.Images) != 1 {
			t.Fatalf("%d images decoded", len(desc.Images))
		}
		img := desc.Images[0]
		if img.Width != fb.Width || img.Height != fb.Height {
			t.Fatalf("decoded %d×%d, want %d×%d", img.Width, img.Height, fb.Width, fb.Height)
		}
		for p := 0; p < w*7; p++ {
			want := fb.Pix[3*p : 3*p+3]
			got := img.Pix[len(img.Pix)/(w*7)*p:][:3]
			_, e := math.Frexp(float64(max(want[0], want[1], want[2])))
			tol := math.Ldexp(1, e-8) // one unit of the shared mantissas
			for c := range 3 {
				if d := math.Abs(float64(got[c] - want[c])); d > tol {
					t.Fatalf("width %d: pixel %d channel %d is %g, want %g (±%g)", w, p, c, got[c], want[c], tol)
				}
			}
		}
	}
}

// TestWriteHDRBeyond: a component past what RGBE holds (+Inf, a radiance
// beyond float32) is written as RGBE's largest value, the others over
// the same exponent; negative and NaN components as black.
func TestWriteHDRBeyond(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	for _, tc := range []struct {
		in   [3]float32
		want [4]byte
	}{
		{[3]float32{inf, 0, 0}, [4]byte{255, 0, 0, 255}},
		{[3]float32{inf, inf, inf}, [4]byte{255, 255, 255, 255}},
		{[3]float32{math.MaxFloat32, 0, 0}, [4]byte{255, 0, 0, 255}},
		{[3]float32{0.5, -1, nan}, [4]byte{128, 0, 0, 128}},
		{[3]float32{-1, nan, 0}, [4]byte{0, 0, 0, 0}},
	} {
		fb := tracer.NewFramebuffer(1, 1)
		copy(fb.Pix, tc.in[:])
		var buf bytes.Buffer
		if err := imageio.WriteHDR(&buf, fb); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if got := [4]byte(b[len(b)-4:]); got != tc.want {
			t.Errorf("%v: RGBE %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestWriteJPEG: a JPEG decodes to the 8-bit PNG's pixels within the
// loss of the quality asked for, and a lower quality makes a smaller file.
func TestWriteJPEG(t *testing.T) {
	fb := tracer.NewFramebuffer(64, 48)
	for i := range fb.Pix {
		fb.Pix[i] = float32(i%192) / 192
	}
	film := &tracer.Film{}
	ref := fb.Image(film, 8)
	sizes := map[int]int{}
	for _, q := range []int{95, 30} {
		var buf bytes.Buffer
		if err := imageio.WriteJPEG(&buf, fb, film, q); err != nil {
			t.Fatal(err)
		}
		sizes[q] = buf.Len()
		img, err := jpeg.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds() != ref.Bounds() {
			t.Fatalf("bounds %v, want %v", img.Bounds(), ref.Bounds())
		}
		var sum float64
		for y := range 48 {
			for x := range 64 {
				r, g, b, _ := img.At(x, y).RGBA()
				r0, g0, b0, _ := ref.At(x, y).RGBA()
				for _, d := range []float64{float64(r) - float64(r0), float64(g) - float64(g0), float64(b) - float64(b0)} {
					sum += (d / 257) * (d / 257)
				}
			}
		}
		if rmse := math.Sqrt(sum / (64 * 48 * 3)); q == 95 && rmse > 4 {
			t.Errorf("quality %d: RMSE %.1f of 255 from the PNG's pixels", q, rmse)
		}
	}
	if sizes[30] >= sizes[95] {
		t.Errorf("quality 30 gives %d bytes, quality 95 %d", sizes[30], sizes[95])
	}
}
