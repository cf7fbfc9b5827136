package tracer

import (
	"bytes"
	"image/png"
	"math"
	"testing"
)

func TestToneCurves(t *testing.T) {
	tests := []struct {
		name string
		film Film
		in   float32
		want float32
	}{
		{"clamp linear mid", Film{Tonemap: TonemapClamp, Transfer: TransferLinear}, 0.25, 0.25},
		{"clamp linear over", Film{Tonemap: TonemapClamp, Transfer: TransferLinear}, 7, 1},
		{"clamp negative", Film{Tonemap: TonemapClamp, Transfer: TransferLinear}, -1, 0},
		{"NaN is black", Film{Tonemap: TonemapClamp, Transfer: TransferLinear}, float32(math.NaN()), 0},
		{"reinhard 1", Film{Tonemap: TonemapReinhard, Transfer: TransferLinear}, 1, 0.5},
		{"reinhard 3", Film{Tonemap: TonemapReinhard, Transfer: TransferLinear}, 3, 0.75},
		{"aces 0", Film{Tonemap: TonemapACES, Transfer: TransferLinear}, 0, 0},
		{"aces 1", Film{Tonemap: TonemapACES, Transfer: TransferLinear}, 1, 0.803797}, // 2.54 / 3.16
		{"aces huge", Film{Tonemap: TonemapACES, Transfer: TransferLinear}, 1e6, 1},
		// A radiance past what float32 holds (a light of intensity 3e38)
		// or whose curve's products would overflow is white, not NaN.
		{"aces overflow", Film{Tonemap: TonemapACES, Transfer: TransferLinear}, 1e20, 1},
		{"aces +Inf", Film{Tonemap: TonemapACES}, float32(math.Inf(1)), 1},
		{"reinhard 2^24", Film{Tonemap: TonemapReinhard, Transfer: TransferLinear}, 1 << 24, 1},
		{"reinhard max", Film{Tonemap: TonemapReinhard, Transfer: TransferLinear}, math.MaxFloat32, 1},
		{"reinhard +Inf", Film{Tonemap: TonemapReinhard}, float32(math.Inf(1)), 1},
		{"clamp +Inf", Film{Tonemap: TonemapClamp}, float32(math.Inf(1)), 1},
		{"exposure overflow", Film{Exposure: 8, Tonemap: TonemapReinhard}, 1e37, 1},
		{"exposure +1", Film{Exposure: 1, Tonemap: TonemapClamp, Transfer: TransferLinear}, 0.25, 0.5},
		{"exposure -2", Film{Exposure: -2, Tonemap: TonemapClamp, Transfer: TransferLinear}, 1, 0.25},
		{"srgb 0", Film{Transfer: TransferSRGB}, 0, 0},
		{"srgb linear toe", Film{Transfer: TransferSRGB}, 0.002, 0.02584},
		{"srgb 0.5", Film{Transfer: TransferSRGB}, 0.5, 0.735357},
		{"srgb 0.18", Film{Transfer: TransferSRGB}, 0.18, 0.461356},
		{"srgb 1", Film{Transfer: TransferSRGB}, 1, 1},
	}
	for _, tc := range tests {
		if got := tc.film.Encode(tc.in); !near(got, tc.want, 2e-5) {
			t.Errorf("%s: Encode(%v) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
	// Past the thresholds where tonemap answers 1 without the curve, the
	// curve itself gave 1 wherever it did not overflow: the same bytes.
	for x := float32(1 << 24); x < 1e19; x *= 3 {
		if r := x / (1 + x); r != 1 {
			t.Errorf("reinhard's curve at %v = %v, want 1", x, r)
		}
		n := float32(x * (float32(2.51*x) + 0.03))
		d := float32(x*(float32(2.43*x)+0.59)) + 0.14
		if a := clamp01(n / d); a != 1 {
			t.Errorf("ACES's curve at %v = %v, want 1", x, a)
		}
	}
	for x := float32(1e6); x < 1<<24; x *= 1.5 {
		n := float32(x * (float32(2.51*x) + 0.03))
		d := float32(x*(float32(2.43*x)+0.59)) + 0.14
		if a := clamp01(n / d); a != 1 {
			t.Errorf("ACES's curve at %v = %v, want 1", x, a)
		}
	}
	// Every curve is monotonic and stays in [0, 1].
	for _, tm := range []Tonemap{TonemapClamp, TonemapReinhard, TonemapACES} {
		f := Film{Tonemap: tm}
		prev := float32(0)
		for x := float32(0); x < 50; x += 0.01 {
			y := f.Encode(x)
			if y < prev || y > 1 {
				t.Fatalf("tonemap %d: Encode(%v) = %v after %v", tm, x, y, prev)
			}
			prev = y
		}
	}
}

func TestImageDepths(t *testing.T) {
	fb := NewFramebuffer(2, 1)
	copy(fb.Pix, []float32{0.5, 0.25, 1, 2, 0, 0.001})
	film := Film{Transfer: TransferLinear}
	var b8, b16 bytes.Buffer
	if err := fb.WritePNG(&b8, &film, 8); err != nil {
		t.Fatal(err)
	}
	if err := fb.WritePNG(&b16, &film, 16); err != nil {
		t.Fatal(err)
	}
	img8, err := png.Decode(&b8)
	if err != nil {
		t.Fatal(err)
	}
	img16, err := png.Decode(&b16)
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := img8.At(0, 0).RGBA()
	if r>>8 != 128 || g>>8 != 64 || b>>8 != 255 {
		t.Errorf("8-bit pixel (%d, %d, %d), want (128, 64, 255)", r>>8, g>>8, b>>8)
	}
	r, g, b, _ = img16.At(0, 0).RGBA()
	if r != 32768 || g != 16384 || b != 65535 {
		t.Errorf("16-bit pixel (%d, %d, %d), want (32768, 16384, 65535)", r, g, b)
	}
	r, _, b, _ = img16.At(1, 0).RGBA()
	if r != 65535 || b != 66 {
		t.Errorf("16-bit pixel 2 (%d, _, %d), want (65535, _, 66)", r, b)
	}
	if err := fb.WritePNG(&b8, &film, 12); err == nil {
		t.Error("depth 12 accepted")
	}
}
