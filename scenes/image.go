package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // first frame
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"math"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/tracerender/trace/tracer"
	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// Texture images are read from PNG, JPEG, GIF (the first frame), BMP, TIFF
// and WebP files through image.Decode (its 8- or 16-bit image read row by
// row into the texels, then freed), and from Radiance HDR, PFM (hdr.go) and TGA files (tga.go)
// by this package's own decoders, which write the texels as they read.
// Every image becomes a tracer.Image in linear RGB. Integer images (8 or
// 16 bits a channel) are sRGB-encoded unless the scene says otherwise:
// their values go through the exact sRGB decoding curve. HDR and PFM files
// hold linear radiance and
// are taken as they are. A colour is its straight (un-premultiplied)
// value whatever its opacity, and black where a premultiplied pixel is
// fully transparent. The alpha channel of a PNG, GIF, BMP, TIFF or WebP
// image that has one and is not opaque everywhere is kept, linear, in
// tracer.Image.Alpha, for the materials that read alpha (alpha.go); TGA,
// HDR and PFM alpha is not read.

// supportedFormats names the image formats in the error for a file that is
// none of them.
const supportedFormats = "PNG, JPEG, GIF, BMP, TIFF, WebP, Radiance HDR, PFM, TGA"

// errNotImage is decodeStd's error for data in no format it knows.
var errNotImage = errors.New("not an image in a supported format")

// loadImage reads the image file, a path written in a file in folder base
// (see assets.resolve), and decodes it as assets.decodeImage does. Its
// errors start with file as written, quoted.
func loadImage(a *assets, base, file string, srgb bool) (*tracer.Image, error) {
	return loadImageRoom(a, base, file, srgb, false)
}

// loadImageRoom is loadImage for an image background too: background
// says to leave room after an HDR or PFM image's colours for its sampling
// table (decodeImageWithin).
func loadImageRoom(a *assets, base, file string, srgb, background bool) (*tracer.Image, error) {
	p, err := a.resolve(base, file)
	if err != nil {
		return nil, fileErr(file, err)
	}
	data, err := a.read(p)
	if err != nil {
		return nil, fileErr(file, err)
	}
	return a.decodeImageRoom(data, quoteFile(file), srgb, background)
}

// decodeImage decodes data as decodeImage does, refusing from its header
// an image of more texels than the scene's images have left
// (assets.texelsLeft), and counts its texels against them: the images of
// a scene and of its mesh files together, those decoded and not used
// included, hold at most tracer.MaxImageTexels texels.
func (a *assets) decodeImage(data []byte, name string, srgb bool) (*tracer.Image, error) {
	return a.decodeImageRoom(data, name, srgb, false)
}

// decodeImageRoom is assets.decodeImage, leaving room for an image
// background's sampling table when background says so.
func (a *assets) decodeImageRoom(data []byte, name string, srgb, background bool) (*tracer.Image, error) {
	img, err := decodeImageWithin(data, name, srgb, a.texelsLeft(), background)
	if err != nil {
		return nil, err
	}
	a.texels += int64(img.Width) * int64(img.Height)
	return img, nil
}

// fileErr prefixes an error from resolving or reading file with its name,
// dropping the absolute path that a *fs.PathError repeats. The error still
// wraps the original one, so errors.Is(err, fs.ErrNotExist) holds.
func fileErr(file string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return fmt.Errorf("%s: %w", quoteFile(file), pe.Err)
	}
	if file == "" || strings.HasPrefix(err.Error(), quoteFile(file)+" ") {
		return err // the message names the file already, or cannot
	}
	return fmt.Errorf("%s: %w", quoteFile(file), err)
}

// decodeImage decodes data, the contents of the image file name (for
// messages), into linear RGB. srgb says that 8- and 16-bit values are
// sRGB-encoded (the usual case for colour textures); otherwise they are
// linear fractions of their maximum. HDR and PFM images are linear
// whatever srgb says. The image's size is checked against
// tracer.MaxImageSide and tracer.MaxImageTexels from its header, before its
// pixels are decoded. Every error starts with name.
func decodeImage(data []byte, name string, srgb bool) (*tracer.Image, error) {
	return decodeImageWithin(data, name, srgb, tracer.MaxImageTexels, false)
}

// decodeImageWithin is decodeImage for an image of at most texels texels.
// background says that the image is an image background's: an HDR or PFM
// image, decoded straight into its texels, is given room after its colours
// for the background's sampling table (tracer.EnvironmentTableSize), which
// tracer.PackImages fills, so that Compile keeps the texels rather than
// copy them into an array with room for it.
func decodeImageWithin(data []byte, name string, srgb bool, texels int64, background bool) (*tracer.Image, error) {
	var (
		img *tracer.Image
		err error
	)
	switch {
	case isHDR(data):
		img, err = decodeHDR(data, texels, background)
	case isPFM(data):
		img, err = decodePFM(data, texels, background)
	default:
		img, err = decodeStd(data, srgb, texels)
		if errors.Is(err, errNotImage) && looksTGA(data) {
			img, err = decodeTGA(data, srgb, texels)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return img, nil
}

// checkSize checks an image's size, read from its header, against the
// limits: each side in [1, tracer.MaxImageSide], and at most texels texels
// (what the scene's other images left of tracer.MaxImageTexels).
func checkSize(w, h int, texels int64) error {
	switch {
	case w < 1 || h < 1:
		return fmt.Errorf("the image is empty (%d×%d pixels)", w, h)
	case w > tracer.MaxImageSide || h > tracer.MaxImageSide:
		return fmt.Errorf("%d×%d pixels: a side is longer than the limit of %d", w, h, tracer.MaxImageSide)
	case int64(w)*int64(h) > texels:
		return fmt.Errorf("%d×%d pixels: the scene's other images hold %d texels, and with this one's %d they would pass the limit of %d (2^28) for all images together",
			w, h, tracer.MaxImageTexels-texels, int64(w)*int64(h), tracer.MaxImageTexels)
	}
	return nil
}

// decodeStd decodes the formats that image.Decode knows.
func decodeStd(data []byte, srgb bool, texels int64) (*tracer.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return nil, fmt.Errorf("%w (%s)", errNotImage, supportedFormats)
	}
	if err != nil {
		return nil, err
	}
	if err := checkSize(cfg.Width, cfg.Height, texels); err != nil {
		return nil, err
	}
	m, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	img := toLinear(m, srgb)
	if int64(cfg.Width)*int64(cfg.Height) >= releaseMinTexels {
		// The decoded 8- or 16-bit image is garbage now: return it to
		// the operating system before the next image (or Compile)
		// allocates, rather than beside it.
		debug.FreeOSMemory()
	}
	return img, nil
}

// releaseMinTexels is the size from which decodeStd returns the decoded
// 8- or 16-bit image's memory to the operating system at once (a garbage
// collection, milliseconds: the scene's arrays hold no pointers).
const releaseMinTexels = 1 << 20

// toLinear converts m to a linear RGB tracer.Image, with its alpha channel
// (alphaInto) unless m is opaque. The colours and the alpha are one
// allocation, the alpha right after the colours, so that tracer.Compile
// can keep both as they are (see tracer.Image). 16-bit images keep
// their 16 bits; every other kind is read as 8 bits a channel. Each row is
// read straight from m's pixels into the texels, with no copy of m in
// between.
func toLinear(m image.Image, srgb bool) *tracer.Image {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	n := w * h
	mayHaveAlpha := true
	if o, ok := m.(interface{ Opaque() bool }); ok && o.Opaque() {
		mayHaveAlpha = false
	}
	size := 3 * n
	if mayHaveAlpha {
		size += n
	}
	buf := make([]float32, size)
	out := &tracer.Image{Width: w, Height: h, Pix: buf[:3*n]}
	switch m.(type) {
	case *image.RGBA64, *image.NRGBA64, *image.Gray16:
		lut := linear16()
		if srgb {
			lut = srgb16()
		}
		convert16(m, out.Pix, lut)
	default:
		lut := &linear8
		if srgb {
			lut = &srgb8
		}
		convert8(m, out.Pix, lut)
	}
	if mayHaveAlpha && alphaInto(m, buf[3*n:]) {
		out.Alpha = buf[3*n : 4*n : 4*n]
	}
	return out
}

// convert8 writes the straight 8-bit colours of m, through lut, into pix.
// The common decoded types have a loop of their own; the others go through
// At and color.NRGBAModel, which give the same values.
func convert8(m image.Image, pix []float32, lut *[256]float32) {
	b := m.Bounds()
	i := 0
	put := func(r, g, b uint8) {
		pix[i], pix[i+1], pix[i+2] = lut[r], lut[g], lut[b]
		i += 3
	}
	switch m := m.(type) {
	case *image.NRGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(row[4*x], row[4*x+1], row[4*x+2])
			}
		}
	case *image.RGBA:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				r, g, bl, a := row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]
				if a != 0xff {
					r, g, bl = unpremultiply(r, a), unpremultiply(g, a), unpremultiply(bl, a)
				}
				put(r, g, bl)
			}
		}
	case *image.Gray:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				put(row[x], row[x], row[x])
			}
		}
	case *image.YCbCr:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				yi, ci := m.YOffset(x, y), m.COffset(x, y)
				put(color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci]))
			}
		}
	case *image.Paletted:
		pal := make([][3]uint8, len(m.Palette))
		for j, c := range m.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[j] = [3]uint8{n.R, n.G, n.B}
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				var c [3]uint8 // an index past the palette is black
				if int(row[x]) < len(pal) {
					c = pal[row[x]]
				}
				put(c[0], c[1], c[2])
			}
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				n := color.NRGBAModel.Convert(m.At(x, y)).(color.NRGBA)
				put(n.R, n.G, n.B)
			}
		}
	}
}

// unpremultiply returns the straight value of the premultiplied 8-bit
// value v of alpha a, as color.NRGBAModel computes it; 0 when a is 0.
func unpremultiply(v, a uint8) uint8 {
	if a == 0 {
		return 0
	}
	return uint8(uint32(v) * 0x101 * 0xffff / (uint32(a) * 0x101) >> 8)
}

// convert16 writes the straight 16-bit colours of m, through lut (65536
// entries), into pix. The types that image/png and TIFF decode to have a
// loop of their own, computing what color.NRGBA64Model gives; the others
// go through At and the model.
func convert16(m image.Image, pix []float32, lut []float32) {
	b := m.Bounds()
	i := 0
	put := func(r, g, b uint32) {
		pix[i], pix[i+1], pix[i+2] = lut[r], lut[g], lut[b]
		i += 3
	}
	be := func(p []uint8) uint32 { return uint32(p[0])<<8 | uint32(p[1]) }
	switch m := m.(type) {
	case *image.NRGBA64:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				p := row[8*x:]
				put(be(p), be(p[2:]), be(p[4:]))
			}
		}
	case *image.RGBA64:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				p := row[8*x:]
				r, g, bl, a := be(p), be(p[2:]), be(p[4:]), be(p[6:])
				switch a { // as color.NRGBA64Model divides by alpha
				case 0xffff:
				case 0:
					r, g, bl = 0, 0, 0
				default:
					r, g, bl = r*0xffff/a, g*0xffff/a, bl*0xffff/a
				}
				put(r, g, bl)
			}
		}
	case *image.Gray16:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := m.Pix[m.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				v := be(row[2*x:])
				put(v, v, v)
			}
		}
	default:
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				n := color.NRGBA64Model.Convert(m.At(x, y)).(color.NRGBA64)
				put(uint32(n.R), uint32(n.G), uint32(n.B))
			}
		}
	}
}

// srgbToLinear is the exact sRGB decoding curve (IEC 61966-2-1) for an
// encoded value c in [0, 1].
func srgbToLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// Conversion tables from 8-bit values to linear float32. math.Pow gives
// the same result on every platform, so the tables, and the images, are
// the same everywhere.
var (
	srgb8, linear8 = func() (s, l [256]float32) {
		for i := range 256 {
			s[i] = float32(srgbToLinear(float64(i) / 255))
			l[i] = float32(float64(i) / 255)
		}
		return s, l
	}()
)

// srgb16 and linear16 are the tables for 16-bit values, built the first
// time a 16-bit image is decoded (256 KiB each).
var (
	srgb16 = sync.OnceValue(func() []float32 {
		t := make([]float32, 1<<16)
		for i := range t {
			t[i] = float32(srgbToLinear(float64(i) / 65535))
		}
		return t
	})
	linear16 = sync.OnceValue(func() []float32 {
		t := make([]float32, 1<<16)
		for i := range t {
			t[i] = float32(float64(i) / 65535)
		}
		return t
	})
)
