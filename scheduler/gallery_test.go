package scheduler

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/golden")

// goldenSize and goldenSamples keep the golden renders small and quick.
const (
	goldenSize    = 64
	goldenSamples = 16
)

// Golden-image tolerance. The determinism contract makes a render
// bit-identical on every platform, so today the images match exactly; the
// tolerance exists so that a deliberate change of low-level arithmetic (a
// float32 polynomial rewritten, an offset retuned) that moves some pixels by
// a few codes does not force new goldens, while any visible change fails:
// PSNR at least 40 dB over the image and no channel off by more than 16 of
// 255 (a lone changed path sample moves a 16-sample pixel by up to 1/16 of
// full scale).
const (
	goldenMinPSNR = 40
	goldenMaxDiff = 16
)

// TestGalleryGolden renders every gallery scene small and compares it with
// testdata/golden. Run with -update to rewrite the goldens after a change
// you have looked at.
func TestGalleryGolden(t *testing.T) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	for _, f := range files {
		name := filepath.Base(f[:len(f)-len(".json")])
		t.Run(name, func(t *testing.T) {
			s := loadScene(t, name, goldenSize, goldenSize, goldenSamples)
			got := renderPNG(t, s, Options{Workers: []Worker{&CPUWorker{N: runtime.NumCPU()}}})
			path := filepath.Join("..", "testdata", "golden", name+".png")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./scheduler -run Golden -update to create it)", err)
			}
			psnr, maxDiff, err := comparePNG(got, want)
			if err != nil {
				t.Fatal(err)
			}
			if psnr < goldenMinPSNR || maxDiff > goldenMaxDiff {
				os.WriteFile(filepath.Join(t.TempDir(), name+".png"), got, 0o644)
				t.Errorf("differs from %s: PSNR %.1f dB (min %d), max channel difference %d (max %d)",
					path, psnr, goldenMinPSNR, maxDiff, goldenMaxDiff)
			}
		})
	}
}

// comparePNG returns the PSNR in dB (+Inf when identical) and the largest
// 8-bit channel difference of two same-sized PNGs.
func comparePNG(a, b []byte) (psnr float64, maxDiff int, err error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, 0, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 0, 0, fmt.Errorf("sizes differ: %v and %v", ia.Bounds(), ib.Bounds())
	}
	var se float64
	n := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca, cb := rgb8(ia, x, y), rgb8(ib, x, y)
			for i := 0; i < 3; i++ {
				d := ca[i] - cb[i]
				se += float64(d * d)
				maxDiff = max(maxDiff, d, -d)
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1), 0, nil
	}
	return 10 * math.Log10(255*255/(se/float64(n))), maxDiff, nil
}

func rgb8(img image.Image, x, y int) [3]int {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}
