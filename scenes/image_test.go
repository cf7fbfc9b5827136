package scenes

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tracerender/trace/tracer"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// quad8 is the 2×2 test image of every 8-bit format, top row first: red,
// green / blue, (128, 64, 32). testdata/images/2x2-lossless.webp holds the
// same pixels (made with cwebp -lossless -exact from a PNG of them).
var quad8 = [4]color.NRGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {128, 64, 32, 255}}

// quadImage returns quad8 as an *image.NRGBA.
func quadImage() *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i, c := range quad8 {
		m.SetNRGBA(i%2, i/2, c)
	}
	return m
}

// quadPaletted returns quad8 as an *image.Paletted, for GIF.
func quadPaletted() *image.Paletted {
	pal := make(color.Palette, len(quad8))
	for i, c := range quad8 {
		pal[i] = c
	}
	m := image.NewPaletted(image.Rect(0, 0, 2, 2), pal)
	for i := range quad8 {
		m.SetColorIndex(i%2, i/2, uint8(i))
	}
	return m
}

// wantPix returns the linear RGB pixels that 8-bit colours decode to.
func wantPix(srgb bool, cs ...color.NRGBA) []float32 {
	var pix []float32
	for _, c := range cs {
		for _, v := range []uint8{c.R, c.G, c.B} {
			x := float64(v) / 255
			if srgb {
				x = srgbToLinear(x)
			}
			pix = append(pix, float32(x))
		}
	}
	return pix
}

// encode returns m encoded by enc.
func encode(t *testing.T, enc func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDecodeImageLossless decodes the same 2×2 image from every lossless
// format and checks the exact linear values, top row first.
func TestDecodeImageLossless(t *testing.T) {
	webp, err := os.ReadFile(filepath.Join("testdata", "images", "2x2-lossless.webp"))
	if err != nil {
		t.Fatal(err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{"a.png", encode(t, func(b *bytes.Buffer) error { return png.Encode(b, quadImage()) })},
		{"a.bmp", encode(t, func(b *bytes.Buffer) error { return bmp.Encode(b, quadImage()) })},
		{"a.tiff", encode(t, func(b *bytes.Buffer) error { return tiff.Encode(b, quadImage(), nil) })},
		{"a-deflate.tiff", encode(t, func(b *bytes.Buffer) error {
			return tiff.Encode(b, quadImage(), &tiff.Options{Compression: tiff.Deflate})
		})},
		{"a.gif", encode(t, func(b *bytes.Buffer) error { return gif.Encode(b, quadPaletted(), nil) })},
		{"a.webp", webp},
	}
	for _, f := range files {
		for _, srgb := range []bool{true, false} {
			img, err := decodeImage(f.data, f.name, srgb)
			if err != nil {
				t.Errorf("%s: %v", f.name, err)
				continue
			}
			if img.Width != 2 || img.Height != 2 {
				t.Errorf("%s: %d×%d, want 2×2", f.name, img.Width, img.Height)
				continue
			}
			if want := wantPix(srgb, quad8[:]...); !slicesEqual(img.Pix, want) {
				t.Errorf("%s (srgb %v): pixels %v, want %v", f.name, srgb, img.Pix, want)
			}
		}
	}
}

// slicesEqual compares float32 slices bit for bit.
func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestDecodeImageJPEG decodes a JPEG of one flat colour: lossy, so within a
// level or two of the colour.
func TestDecodeImageJPEG(t *testing.T) {
	c := color.NRGBA{200, 100, 50, 255}
	m := image.NewNRGBA(image.Rect(0, 0, 16, 8))
	for i := range m.Pix {
		m.Pix[i] = []uint8{c.R, c.G, c.B, c.A}[i%4]
	}
	data := encode(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, m, &jpeg.Options{Quality: 100}) })
	img, err := decodeImage(data, "a.jpg", true)
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 16 || img.Height != 8 {
		t.Fatalf("%d×%d, want 16×8", img.Width, img.Height)
	}
	// 2 levels of 255 of sRGB-encoded value: JPEG's colour conversion
	// rounds twice.
	for i, v := range img.Pix {
		want := []uint8{c.R, c.G, c.B}[i%3]
		got := linearToSRGB(float64(v)) * 255
		if math.Abs(got-float64(want)) > 2 {
			t.Fatalf("pixel %d channel %d: %.2f/255 encoded, want %d", i/3, i%3, got, want)
		}
	}
}

// linearToSRGB is the sRGB encoding curve, the inverse of srgbToLinear.
func linearToSRGB(x float64) float64 {
	if x <= 0.0031308 {
		return 12.92 * x
	}
	return 1.055*math.Pow(x, 1/2.4) - 0.055
}

// TestSRGBTable checks decoded values of the sRGB curve against values
// computed independently to 7 digits.
func TestSRGBTable(t *testing.T) {
	tests := []struct {
		v    uint8
		want float32
	}{
		{0, 0},
		{10, 0.003035270}, // the linear segment: 10/255/12.92
		{11, 0.003346536}, // the curve's first value
		{128, 0.2158605},
		{188, 0.5028865},
		{255, 1},
	}
	for _, tt := range tests {
		if got := srgb8[tt.v]; math.Abs(float64(got-tt.want)) > 5e-8 {
			t.Errorf("srgb8[%d] = %.9g, want %.9g", tt.v, got, tt.want)
		}
	}
	if srgb8[128] != 0.2158605 {
		t.Errorf("srgb8[128] = %.9g, want 0.2158605 as float32", srgb8[128])
	}
}

// TestDecodeImage16 decodes 16-bit PNGs, colour and grey, with their 16
// bits: values that 8 bits cannot hold come out as computed in float64.
func TestDecodeImage16(t *testing.T) {
	rgb := image.NewNRGBA64(image.Rect(0, 0, 2, 1))
	rgb.SetNRGBA64(0, 0, color.NRGBA64{0x8080, 0x1234, 0xffff, 0xffff})
	rgb.SetNRGBA64(1, 0, color.NRGBA64{0, 1, 0x0a0b, 0x8000}) // alpha ignored
	grey := image.NewGray16(image.Rect(0, 0, 1, 2))
	grey.SetGray16(0, 0, color.Gray16{0x4321})
	grey.SetGray16(0, 1, color.Gray16{0xfedc})
	tests := []struct {
		name string
		m    image.Image
		vals []uint16 // the 16-bit values, three per pixel
	}{
		{"rgb16.png", rgb, []uint16{0x8080, 0x1234, 0xffff, 0, 1, 0x0a0b}},
		{"grey16.png", grey, []uint16{0x4321, 0x4321, 0x4321, 0xfedc, 0xfedc, 0xfedc}},
	}
	for _, tt := range tests {
		data := encode(t, func(b *bytes.Buffer) error { return png.Encode(b, tt.m) })
		for _, srgb := range []bool{true, false} {
			img, err := decodeImage(data, tt.name, srgb)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, len(tt.vals))
			for i, v := range tt.vals {
				x := float64(v) / 65535
				if srgb {
					x = srgbToLinear(x)
				}
				want[i] = float32(x)
			}
			if !slicesEqual(img.Pix, want) {
				t.Errorf("%s (srgb %v): %v, want %v", tt.name, srgb, img.Pix, want)
			}
		}
	}
}

// TestDecodeImageAlpha checks that alpha is ignored: colours are straight,
// whether the decoder hands out straight or premultiplied pixels.
func TestDecodeImageAlpha(t *testing.T) {
	// A PNG with alpha decodes to *image.NRGBA: straight already.
	n := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	n.SetNRGBA(0, 0, color.NRGBA{200, 100, 50, 0})
	n.SetNRGBA(1, 0, color.NRGBA{200, 100, 50, 128})
	img, err := decodeImage(encode(t, func(b *bytes.Buffer) error { return png.Encode(b, n) }), "a.png", false)
	if err != nil {
		t.Fatal(err)
	}
	c := color.NRGBA{200, 100, 50, 255}
	if want := wantPix(false, c, c); !slicesEqual(img.Pix, want) {
		t.Errorf("NRGBA: %v, want %v", img.Pix, want)
	}
	// Premultiplied pixels are divided by alpha; fully transparent is
	// black.
	p := image.NewRGBA(image.Rect(0, 0, 3, 1))
	p.SetRGBA(0, 0, color.RGBA{100, 50, 25, 128})
	p.SetRGBA(1, 0, color.RGBA{0, 0, 0, 0})
	p.SetRGBA(2, 0, color.RGBA{10, 20, 30, 255})
	out := toLinear(p, false)
	straight := color.NRGBAModel.Convert(color.RGBA{100, 50, 25, 128}).(color.NRGBA)
	if want := wantPix(false, straight, color.NRGBA{}, color.NRGBA{10, 20, 30, 255}); !slicesEqual(out.Pix, want) {
		t.Errorf("RGBA: %v, want %v", out.Pix, want)
	}
}

// TestToLinearTypes checks the fast loops against the plain one (At and
// color.NRGBAModel) on sub-images, whose Rect does not start at (0, 0).
func TestToLinearTypes(t *testing.T) {
	r := image.Rect(0, 0, 7, 5)
	nrgba := image.NewNRGBA(r)
	rgba := image.NewRGBA(r)
	gray := image.NewGray(r)
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	pal := image.NewPaletted(r, color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 0, 40}})
	for i := range nrgba.Pix {
		nrgba.Pix[i] = uint8(i * 37)
		rgba.Pix[i] = uint8(i * 53)
	}
	for i := range rgba.Pix {
		if i%4 == 3 {
			for k := 1; k <= 3; k++ {
				rgba.Pix[i-k] = min(rgba.Pix[i-k], rgba.Pix[i]) // valid premultiplied
			}
		}
	}
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 11)
	}
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 13)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(i*29), uint8(255-i*31)
	}
	for i := range pal.Pix {
		pal.Pix[i] = uint8(i % 3) // 2 is past the palette: black
	}
	sub := image.Rect(1, 2, 6, 5)
	for _, m := range []interface {
		image.Image
		SubImage(image.Rectangle) image.Image
	}{nrgba, rgba, gray, ycc, pal} {
		s := m.SubImage(sub)
		got := toLinear(s, true)
		var want []float32
		for y := sub.Min.Y; y < sub.Max.Y; y++ {
			for x := sub.Min.X; x < sub.Max.X; x++ {
				var c color.NRGBA
				if p, ok := s.(*image.Paletted); !ok || int(p.ColorIndexAt(x, y)) < len(p.Palette) {
					c = color.NRGBAModel.Convert(s.At(x, y)).(color.NRGBA)
				}
				want = append(want, wantPix(true, c)...)
			}
		}
		if got.Width != sub.Dx() || got.Height != sub.Dy() || !slicesEqual(got.Pix, want) {
			t.Errorf("%T: %d×%d %v, want %d×%d %v", m, got.Width, got.Height, got.Pix, sub.Dx(), sub.Dy(), want)
		}
	}
}

// pngHeader returns the start of a PNG file, up to its IHDR chunk, of the
// given size; DecodeConfig needs no more.
func pngHeader(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB
	b = binary.BigEndian.AppendUint32(b, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b = append(b, chunk...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(chunk))
}

// TestDecodeImageLimits checks the size limits from headers alone: the
// image is refused before its pixels (which these files do not even have)
// are allocated.
func TestDecodeImageLimits(t *testing.T) {
	tests := []struct {
		name   string
		data   []byte
		texels int64
		want   string
	}{
		{"wide.png", pngHeader(tracer.MaxImageSide+1, 1), tracer.MaxImageTexels,
			"wide.png: 16385×1 pixels: a side is longer than the limit of 16384"},
		{"tall.hdr", []byte("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16385 +X 1\n"), tracer.MaxImageTexels,
			"tall.hdr: Radiance HDR: 1×16385 pixels: a side is longer than the limit of 16384"},
		{"tall.pfm", []byte("PF\n1 16385\n-1\n"), tracer.MaxImageTexels,
			"tall.pfm: PFM: 1×16385 pixels: a side is longer than the limit of 16384"},
		// Within the sides, past what the scene's other images left.
		{"big.png", pngHeader(16384, 16384), 1 << 20,
			"big.png: 16384×16384 pixels: the scene's other images hold 267386880 texels, and with this one's 268435456 they would pass the limit of 268435456 (2^28) for all images together"},
		{"big.hdr", []byte("#?RADIANCE\n\n-Y 16384 +X 16384\n"), 1 << 20,
			"big.hdr: Radiance HDR: 16384×16384 pixels: the scene's other images hold 267386880 texels, and with this one's 268435456 they would pass the limit of 268435456 (2^28) for all images together"},
		{"big.pfm", []byte("PF\n16384 16384\n-1\n"), 1 << 20,
			"big.pfm: PFM: 16384×16384 pixels: the scene's other images hold 267386880 texels, and with this one's 268435456 they would pass the limit of 268435456 (2^28) for all images together"},
		{"empty.pfm", []byte("Pf 0 1 1\n"), tracer.MaxImageTexels, "empty.pfm: PFM: the image is empty (0×1 pixels)"},
	}
	for _, tt := range tests {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeImageWithin(tt.data, tt.name, true, tt.texels, false)
		runtime.ReadMemStats(&after)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: %d bytes allocated before the error", tt.name, n)
		}
	}
}

// TestDecodeImageMemory checks what decoding an image allocates: a file
// that compresses a black image 64 to one (run-length TGA) only the
// texels the scene keeps, 12 bytes a texel (linear float32 RGB; an 8-bit
// buffer and an RGBA copy once took it to 17), and one that compresses it
// a thousand to one (PNG) those and image/png's 8-bit RGBA, 16 a texel.
func TestDecodeImageMemory(t *testing.T) {
	const side = 2048
	rle := make([]byte, 0, 2*side*side/128)
	for range side * side / 128 {
		rle = append(rle, 0xff, 0) // 128 black pixels
	}
	for _, tt := range []struct {
		name  string
		data  []byte
		bytes uint64 // a texel
	}{
		{"black.png", blackPNG(side, side), 16},
		{"black.tga", tgaFile(tgaGreyRLE, side, side, 8, 0, rle), 12},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := decodeImage(tt.data, tt.name, true)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if img.Width != side || img.Height != side || img.Alpha != nil {
			t.Fatalf("%s: %d×%d, alpha %v", tt.name, img.Width, img.Height, img.Alpha != nil)
		}
		texels := uint64(side * side)
		if n := after.TotalAlloc - before.TotalAlloc; n > tt.bytes*texels+1<<20 {
			t.Errorf("%s: decoding %d×%d pixels allocated %d bytes, %.1f a texel; want at most %d a texel and 1 MiB", tt.name, side, side, n, float64(n)/float64(texels), tt.bytes)
		}
	}
}

// blackPNG is a w×h opaque black PNG, 8-bit RGB.
func blackPNG(w, h int) []byte {
	black := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 3; i < len(black.Pix); i += 4 {
		black.Pix[i] = 255 // opaque: written as RGB
	}
	var b bytes.Buffer
	if err := png.Encode(&b, black); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// TestDecodeImageNotImage checks the errors for files that are not images
// or are broken ones.
func TestDecodeImageNotImage(t *testing.T) {
	good := encode(t, func(b *bytes.Buffer) error { return png.Encode(b, quadImage()) })
	tests := []struct {
		name string
		data []byte
		want string // the error, or its start when it ends with "…"
	}{
		{"notes.txt", []byte("hello, world\n"), "notes.txt: not an image in a supported format (PNG, JPEG, GIF, BMP, TIFF, WebP, Radiance HDR, PFM, TGA)"},
		{"empty.png", nil, "empty.png: not an image in a supported format (PNG, JPEG, GIF, BMP, TIFF, WebP, Radiance HDR, PFM, TGA)"},
		{"cut.png", good[:len(good)-20], "cut.png: …"},
		{"header.png", pngHeader(4, 4), "header.png: …"},
	}
	for _, tt := range tests {
		_, err := decodeImage(tt.data, tt.name, true)
		switch {
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case strings.HasSuffix(tt.want, "…"):
			if !strings.HasPrefix(err.Error(), strings.TrimSuffix(tt.want, "…")) {
				t.Errorf("%s: error %q, want it to start with %q", tt.name, err, tt.want)
			}
		case err.Error() != tt.want:
			t.Errorf("%s: error %q, want %q", tt.name, err, tt.want)
		}
	}
}

// TestUnpremultiply checks unpremultiply against color.NRGBAModel for
// every valid premultiplied value.
func TestUnpremultiply(t *testing.T) {
	for a := range 256 {
		for v := 0; v <= a; v++ {
			want := color.NRGBAModel.Convert(color.RGBA{uint8(v), 0, 0, uint8(a)}).(color.NRGBA).R
			if got := unpremultiply(uint8(v), uint8(a)); got != want {
				t.Fatalf("unpremultiply(%d, %d) = %d, want %d", v, a, got, want)
			}
		}
	}
}
