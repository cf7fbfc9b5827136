package scenes

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracerender/trace/tracer"
	"golang.org/x/image/tiff"
)

// oldLinear is how images were converted before toLinear read each type's
// rows itself: every pixel through At and color.NRGBA64Model (16-bit
// types) or color.NRGBAModel (the others) into the tables, and the alpha
// channel (alphaOf) through At and RGBA, nil when every pixel is opaque.
func oldLinear(m image.Image, srgb bool) (pix, alpha []float32) {
	b := m.Bounds()
	lut8, lut16 := &linear8, linear16()
	if srgb {
		lut8, lut16 = &srgb8, srgb16()
	}
	opaque := true
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			switch m.(type) {
			case *image.RGBA64, *image.NRGBA64, *image.Gray16:
				n := color.NRGBA64Model.Convert(m.At(x, y)).(color.NRGBA64)
				pix = append(pix, lut16[n.R], lut16[n.G], lut16[n.B])
			default:
				n := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
				pix = append(pix, lut8[n.R], lut8[n.G], lut8[n.B])
			}
			_, _, _, a := m.At(x, y).RGBA()
			opaque = opaque && a == 0xffff
			alpha = append(alpha, float32(float64(a)/0xffff))
		}
	}
	if opaque {
		alpha = nil
	}
	return pix, alpha
}

// testPixel is the colour of pixel (x, y) of bitsImages' images: every
// 8-bit value in each channel, and alpha from 0 to 255 with many opaque
// pixels.
func testPixel(x, y int) (r, g, b, a uint16) {
	v := uint16(x*37 + y*101)
	a = 0xffff
	if (x+y)%3 == 0 {
		a = uint16(x*211+y*17) * 0x0101 >> (y % 2) // 16-bit values too
	}
	return v * 0x0101, (v*7 + 3) * 0x0101, uint16(x*y)*0x0101 ^ 0x5a3c, a
}

// bitsImages returns images of every type the decoders give (straight and
// premultiplied, 8 and 16 bits, grey, paletted, YCbCr), w×h pixels,
// keyed by name.
func bitsImages(w, h int) map[string]image.Image {
	r := image.Rect(0, 0, w, h)
	nrgba, rgba := image.NewNRGBA(r), image.NewRGBA(r)
	nrgba64, rgba64 := image.NewNRGBA64(r), image.NewRGBA64(r)
	opaque8, opaque16 := image.NewRGBA(r), image.NewRGBA64(r)
	gray, gray16 := image.NewGray(r), image.NewGray16(r)
	pal := image.NewPaletted(r, color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 0, 40}, color.NRGBA{9, 8, 7, 0}, color.NRGBA{50, 60, 70, 255}})
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			cr, cg, cb, ca := testPixel(x, y)
			n64 := color.NRGBA64{cr, cg, cb, ca}
			nrgba64.Set(x, y, n64)
			rgba64.Set(x, y, n64) // premultiplied by Set
			nrgba.Set(x, y, n64)
			rgba.Set(x, y, n64)
			opaque8.Set(x, y, color.NRGBA64{cr, cg, cb, 0xffff})
			opaque16.Set(x, y, color.NRGBA64{cr, cg, cb, 0xffff})
			gray.Set(x, y, color.Gray16{cg})
			gray16.Set(x, y, color.Gray16{cg})
			pal.SetColorIndex(x, y, uint8(x+y)%4)
		}
	}
	ycc := image.NewYCbCr(r, image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i * 13)
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(i*29), uint8(255-i*31)
	}
	return map[string]image.Image{"NRGBA": nrgba, "RGBA": rgba, "NRGBA64": nrgba64, "RGBA64": rgba64,
		"RGBA opaque": opaque8, "RGBA64 opaque": opaque16, "Gray": gray, "Gray16": gray16, "Paletted": pal, "YCbCr": ycc}
}

// TestToLinearBits checks toLinear, which reads each type's rows itself,
// against the conversion it replaced (oldLinear): the same bits, colours
// and alpha, on every type, whole and as a sub-image; and the alpha lies
// right after the colours, in one array.
func TestToLinearBits(t *testing.T) {
	for name, m := range bitsImages(23, 9) {
		sub := m.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(3, 2, 20, 9))
		for _, m := range []image.Image{m, sub} {
			for _, srgb := range []bool{false, true} {
				got := toLinear(m, srgb)
				pix, alpha := oldLinear(m, srgb)
				if !slicesEqual(got.Pix, pix) {
					t.Errorf("%s %v (srgb %v): colours differ from the old conversion", name, m.Bounds(), srgb)
				}
				if !slicesEqual(got.Alpha, alpha) || (got.Alpha == nil) != (alpha == nil) {
					t.Errorf("%s %v (srgb %v): %d alpha values (nil %v) differ from the old conversion's %d (nil %v)",
						name, m.Bounds(), srgb, len(got.Alpha), got.Alpha == nil, len(alpha), alpha == nil)
				}
				if n := len(got.Pix); got.Alpha != nil && (cap(got.Pix) < n+1 || &got.Pix[:n+1][n] != &got.Alpha[0]) {
					t.Errorf("%s: the alpha is not right after the colours", name)
				}
			}
		}
	}
}

// TestDecodeImageBits checks decodeImage on files of every integer format
// that image.Decode reads, 8 and 16 bits, grey, paletted, with and
// without alpha, against the old conversion of what image.Decode gives.
func TestDecodeImageBits(t *testing.T) {
	ims := bitsImages(40, 24)
	encodePNG := func(m image.Image) func(*bytes.Buffer) error {
		return func(b *bytes.Buffer) error { return png.Encode(b, m) }
	}
	files := []struct {
		name string
		enc  func(*bytes.Buffer) error
	}{
		{"rgb8.png", encodePNG(ims["RGBA opaque"])},
		{"rgba8.png", encodePNG(ims["NRGBA"])},
		{"rgb16.png", encodePNG(ims["RGBA64 opaque"])},
		{"rgba16.png", encodePNG(ims["NRGBA64"])},
		{"gray8.png", encodePNG(ims["Gray"])},
		{"gray16.png", encodePNG(ims["Gray16"])},
		{"paletted.png", encodePNG(ims["Paletted"])},
		{"rgba.jpg", func(b *bytes.Buffer) error { return jpeg.Encode(b, ims["RGBA opaque"], &jpeg.Options{Quality: 90}) }},
		{"gray.jpg", func(b *bytes.Buffer) error { return jpeg.Encode(b, ims["Gray"], nil) }},
		{"paletted.gif", func(b *bytes.Buffer) error { return gif.Encode(b, ims["Paletted"], nil) }},
		{"rgba64.tiff", func(b *bytes.Buffer) error { return tiff.Encode(b, ims["RGBA64"], nil) }},
	}
	for _, f := range files {
		data := encode(t, f.enc)
		m, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, srgb := range []bool{false, true} {
			img, err := decodeImage(data, f.name, srgb)
			if err != nil {
				t.Fatal(err)
			}
			pix, alpha := oldLinear(m, srgb)
			if !slicesEqual(img.Pix, pix) || !slicesEqual(img.Alpha, alpha) || (img.Alpha == nil) != (alpha == nil) {
				t.Errorf("%s (%T, srgb %v): texels differ from the old conversion", f.name, m, srgb)
			}
		}
	}
}

// TestDecodeImageAlphaMemory checks what decoding an image with alpha
// allocates: image/png's image (4 bytes a texel at 8 bits, 8 at 16) and
// the texels kept, colours and alpha, 16 bytes a texel. Reading alpha and
// 16-bit colours through At once allocated 4 to 16 bytes a texel more.
func TestDecodeImageAlphaMemory(t *testing.T) {
	const w, h = 1024, 512
	r := image.Rect(0, 0, w, h)
	m8, m16 := image.NewNRGBA(r), image.NewNRGBA64(r)
	for i := 3; i < len(m8.Pix); i += 4 {
		m8.Pix[i] = 128 // half transparent black
	}
	for i := 6; i < len(m16.Pix); i += 8 {
		m16.Pix[i] = 128
	}
	for _, tt := range []struct {
		name  string
		m     image.Image
		bytes uint64 // a texel
	}{
		{"rgba8.png", m8, 4 + 16},
		{"rgba16.png", m16, 8 + 16},
	} {
		data := encode(t, func(b *bytes.Buffer) error { return png.Encode(b, tt.m) })
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		img, err := decodeImage(data, tt.name, true)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if img.Alpha == nil {
			t.Fatalf("%s: no alpha", tt.name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > tt.bytes*w*h+1<<20 {
			t.Errorf("%s: decoding %d×%d pixels allocated %d bytes, %.1f a texel; want at most %d a texel and 1 MiB", tt.name, w, h, n, float64(n)/(w*h), tt.bytes)
		}
	}
}

// TestLoadPacksImages: a scene of several images loads with their texels
// in one array (tracer.PackImages), which the compiled scene keeps
// rather than copying them.
func TestLoadPacksImages(t *testing.T) {
	ims := bitsImages(40, 24)
	dir := writeFiles(t, map[string]string{
		"a.png": string(encode(t, func(b *bytes.Buffer) error { return png.Encode(b, ims["RGBA opaque"]) })),
		"b.png": string(encode(t, func(b *bytes.Buffer) error { return png.Encode(b, ims["NRGBA"]) })),
		"scene.json": `{"version": 1, "render": {"width": 4, "height": 4, "samples": 1},
  "camera": {"position": [0, 0, -3], "look_at": [0, 0, 0], "fov": 40},
  "materials": {"a": {"type": "diffuse", "texture": {"type": "image", "file": "a.png"}},
                "b": {"type": "diffuse", "texture": {"type": "image", "file": "b.png"}, "alpha_mode": "mask"}},
  "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "a"},
              {"type": "sphere", "center": [0, 2, 0], "radius": 1, "material": "b"}]}`,
	})
	s, err := Load(filepath.Join(dir, "scene.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Images) != 2 || s.Images[1].Alpha == nil {
		t.Fatalf("%d images, the second's alpha %v", len(s.Images), s.Images[1].Alpha != nil)
	}
	sc, err := tracer.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := 40 * 24; len(sc.Texels) != 7*n || &sc.Texels[0] != &s.Images[0].Pix[0] || &sc.Texels[3*n] != &s.Images[1].Pix[0] || &sc.Texels[6*n] != &s.Images[1].Alpha[0] {
		t.Errorf("the compiled scene's %d texels are not the loaded images' (%d)", len(sc.Texels), 7*n)
	}
}
