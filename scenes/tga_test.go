package scenes

import (
	"strings"
	"testing"
)

// tgaFile builds a TGA file: the header, then body (pixels or packets).
func tgaFile(kind byte, w, h int, depth, desc byte, body []byte) []byte {
	hd := []byte{0, 0, kind, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(w), byte(w >> 8), byte(h), byte(h >> 8), depth, desc}
	return append(hd, body...)
}

// TestDecodeTGA: every supported kind decodes to the same 2×2 picture
// (top row red, green; bottom row blue, white), whatever its origin,
// direction and encoding; grey files to their grey.
func TestDecodeTGA(t *testing.T) {
	want := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1} // top row first
	// Rows bottom up (the default origin), pixels B G R.
	bottomUp24 := []byte{255, 0, 0, 255, 255, 255, 0, 0, 255, 0, 255, 0}
	topDown32 := []byte{0, 0, 255, 9, 0, 255, 0, 9, 255, 0, 0, 9, 255, 255, 255, 9}
	rightLeft24 := []byte{255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255} // bottom up, each row right to left
	// 5-5-5: red 0x7c00, green 0x03e0, blue 0x001f, white 0x7fff.
	bottomUp16 := []byte{0x1f, 0x00, 0xff, 0x7f, 0x00, 0x7c, 0xe0, 0x03}
	// RLE: the bottom row as a literal packet of 2, the top row as two
	// one-pixel runs.
	rle24 := []byte{0x01, 255, 0, 0, 255, 255, 255, 0x80, 0, 0, 255, 0x80, 0, 255, 0}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"24-bit", tgaFile(tgaTrueColor, 2, 2, 24, 0, bottomUp24)},
		{"32-bit top down", tgaFile(tgaTrueColor, 2, 2, 32, 0x28, topDown32)},
		{"24-bit right to left", tgaFile(tgaTrueColor, 2, 2, 24, 0x10, rightLeft24)},
		{"16-bit", tgaFile(tgaTrueColor, 2, 2, 16, 0, bottomUp16)},
		{"24-bit RLE", tgaFile(tgaTrueColorRLE, 2, 2, 24, 0, rle24)},
	} {
		img, err := decodeImageWithin(tc.data, "t.tga", false, 1<<20, false)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if img.Width != 2 || img.Height != 2 || !equalFloats(img.Pix, want) {
			t.Errorf("%s: %d×%d %v, want 2×2 %v", tc.name, img.Width, img.Height, img.Pix, want)
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"grey", tgaFile(tgaGrey, 2, 1, 8, 0, []byte{0, 255})},
		{"grey RLE", tgaFile(tgaGreyRLE, 2, 1, 8, 0, []byte{0x00, 0, 0x00, 255})},
	} {
		img, err := decodeImageWithin(tc.data, "g.tga", false, 1<<20, false)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !equalFloats(img.Pix, []float32{0, 0, 0, 1, 1, 1}) {
			t.Errorf("%s: %v", tc.name, img.Pix)
		}
	}
	// sRGB decoding applies as for the other 8-bit formats.
	img, err := decodeImageWithin(tgaFile(tgaGrey, 1, 1, 8, 0, []byte{128}), "s.tga", true, 1<<20, false)
	if err != nil || img.Pix[0] != srgb8[128] {
		t.Errorf("sRGB grey 128: %v, %v; want %g", img, err, srgb8[128])
	}
}

// TestDecodeTGAErrors: broken and hostile files get one clear error, and
// the memory allocated is bounded by the header's size check.
func TestDecodeTGAErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"colour-mapped", tgaFile(1, 2, 2, 8, 0, nil), "colour-mapped images are not supported"},
		{"truncated", tgaFile(tgaTrueColor, 2, 2, 24, 0, []byte{1, 2, 3}), "the file ends before the image does"},
		{"RLE runs past", tgaFile(tgaTrueColorRLE, 2, 1, 24, 0, []byte{0x82, 1, 2, 3}), "runs past the image"},
		{"RLE ends", tgaFile(tgaTrueColorRLE, 2, 1, 24, 0, []byte{0x01, 1, 2, 3}), "ends before the image does"},
		{"huge", tgaFile(tgaTrueColor, 65535, 65535, 24, 0, nil), "a side is longer than the limit"},
		{"over the budget", tgaFile(tgaTrueColor, 1000, 1000, 24, 0, nil), "would pass the limit of 268435456"},
	} {
		_, err := decodeImageWithin(tc.data, "x.tga", false, 1<<16, false)
		if err == nil || !strings.HasPrefix(err.Error(), "x.tga: TGA: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want x.tga: TGA: …%s…", tc.name, err, tc.want)
		}
	}
	// Data that is no TGA either is still "not an image".
	if _, err := decodeImageWithin([]byte("hello, world, this is text"), "n.txt", false, 1<<16, false); err == nil || !strings.Contains(err.Error(), "not an image in a supported format") {
		t.Errorf("text: %v", err)
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
