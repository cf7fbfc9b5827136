package scenes

import (
	"errors"
	"fmt"

	"github.com/tracerender/trace/tracer"
)

// Truevision TGA, the texture format of many game and 3ds Max exports
// (the Crytek Sponza's MTL names TGA files). TGA has no magic number, so
// a file is taken for one only when the formats that have one do not
// claim it and its 18-byte header is consistent (looksTGA). Decoded:
// uncompressed and run-length encoded true colour (16-bit 5-5-5, 24-bit,
// 32-bit) and grey (8-bit), either origin and either direction.
// Colour-mapped files are refused by name. Alpha is ignored, as for the
// other formats.

// TGA image types.
const (
	tgaTrueColor    = 2
	tgaGrey         = 3
	tgaTrueColorRLE = 10
	tgaGreyRLE      = 11
)

// looksTGA reports whether data starts with a plausible TGA header.
func looksTGA(data []byte) bool {
	if len(data) < 18 {
		return false
	}
	cmap, kind, depth := data[1], data[2], data[16]
	w, h := int(data[12])|int(data[13])<<8, int(data[14])|int(data[15])<<8
	switch {
	case cmap > 1 || w == 0 || h == 0:
		return false
	case kind == 1 || kind == 9: // colour-mapped: recognised, to refuse by name
		return true
	case kind == tgaTrueColor || kind == tgaTrueColorRLE:
		return depth == 15 || depth == 16 || depth == 24 || depth == 32
	case kind == tgaGrey || kind == tgaGreyRLE:
		return depth == 8
	}
	return false
}

// decodeTGA decodes a TGA file (looksTGA) into linear RGB, from sRGB when
// srgb says so, holding at most texels texels.
func decodeTGA(data []byte, srgb bool, texels int64) (*tracer.Image, error) {
	idLen, cmap, kind := int(data[0]), data[1], data[2]
	cmapLen, cmapDepth := int(data[5])|int(data[6])<<8, int(data[7])
	w, h := int(data[12])|int(data[13])<<8, int(data[14])|int(data[15])<<8
	depth, desc := int(data[16]), data[17]
	if kind == 1 || kind == 9 {
		return nil, errors.New("TGA: colour-mapped images are not supported (save it as true colour)")
	}
	if err := checkSize(w, h, texels); err != nil {
		return nil, fmt.Errorf("TGA: %w", err)
	}
	off := 18 + idLen
	if cmap == 1 {
		off += cmapLen * ((cmapDepth + 7) / 8) // a map a true-colour image does not use
	}
	if off > len(data) {
		return nil, errors.New("TGA: the file ends inside its header")
	}
	bpp := (depth + 7) / 8
	src := data[off:]
	rle := kind == tgaTrueColorRLE || kind == tgaGreyRLE
	if !rle && len(src) < w*h*bpp {
		return nil, errors.New("TGA: the file ends before the image does")
	}
	// The pixels go straight to their texels: no 8-bit copy of the image
	// is made (a run-length encoded file of 4 MB can hold 16384² pixels).
	img := &tracer.Image{Width: w, Height: h, Pix: make([]float32, 3*w*h)}
	lut := &linear8
	if srgb {
		lut = &srgb8
	}
	top, right := desc&0x20 != 0, desc&0x10 != 0
	put := func(n int, p []byte) { // pixel n of the file, in its order
		y, x := n/w, n%w
		if !top {
			y = h - 1 - y // rows run bottom up unless the descriptor says top down
		}
		if right {
			x = w - 1 - x
		}
		var r, g, b uint8
		switch bpp {
		case 1:
			r, g, b = p[0], p[0], p[0]
		case 2: // A1 R5 G5 B5, little-endian
			v := int(p[0]) | int(p[1])<<8
			r, g, b = uint8((v>>10&31)*255/31), uint8((v>>5&31)*255/31), uint8((v&31)*255/31)
		default: // B G R [A]
			r, g, b = p[2], p[1], p[0]
		}
		o := 3 * (y*w + x)
		img.Pix[o], img.Pix[o+1], img.Pix[o+2] = lut[r], lut[g], lut[b]
	}
	if !rle {
		for n := range w * h {
			put(n, src[n*bpp:])
		}
		return img, nil
	}
	// Packets: a header byte, then one pixel repeated (high bit set) or
	// that many literal pixels, 1 to 128 either way.
	for n, i := 0, 0; n < w*h; {
		if i >= len(src) {
			return nil, errors.New("TGA: the run-length data ends before the image does")
		}
		c := int(src[i]&0x7f) + 1
		rep := src[i]&0x80 != 0
		i++
		if c > w*h-n {
			return nil, errors.New("TGA: a run-length packet runs past the image")
		}
		if rep {
			if i+bpp > len(src) {
				return nil, errors.New("TGA: the run-length data ends before the image does")
			}
			for range c {
				put(n, src[i:i+bpp])
				n++
			}
			i += bpp
		} else {
			if i+c*bpp > len(src) {
				return nil, errors.New("TGA: the run-length data ends before the image does")
			}
			for k := range c {
				put(n, src[i+k*bpp:])
				n++
			}
			i += c * bpp
		}
	}
	return img, nil
}
