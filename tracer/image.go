package tracer

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
)

// Image converts the framebuffer to an 8-bit (depth 8) or 16-bit (depth 16)
// image through the film's exposure, tone curve and transfer function.
func (f *Framebuffer) Image(film *Film, depth int) image.Image {
	r := image.Rect(0, 0, f.Width, f.Height)
	if depth == 16 {
		img := image.NewNRGBA64(r)
		for y := 0; y < f.Height; y++ {
			for x := 0; x < f.Width; x++ {
				c := f.At(x, y)
				img.SetNRGBA64(x, y, color.NRGBA64{
					quantize(film.Encode(c[0]), 65535), quantize(film.Encode(c[1]), 65535),
					quantize(film.Encode(c[2]), 65535), 65535})
			}
		}
		return img
	}
	img := image.NewNRGBA(r)
	for y := 0; y < f.Height; y++ {
		for x := 0; x < f.Width; x++ {
			c := f.At(x, y)
			i := img.PixOffset(x, y)
			img.Pix[i+0] = uint8(quantize(film.Encode(c[0]), 255))
			img.Pix[i+1] = uint8(quantize(film.Encode(c[1]), 255))
			img.Pix[i+2] = uint8(quantize(film.Encode(c[2]), 255))
			img.Pix[i+3] = 255
		}
	}
	return img
}

// quantize rounds v in [0, 1] to the nearest of 0..maxv.
func quantize(v float32, maxv float32) uint16 {
	return uint16(float32(clamp01(v)*maxv) + 0.5)
}

// WritePNG encodes the framebuffer as a PNG of the given bit depth (8 or 16).
// Package imageio writes it, and the other formats, to files.
func (f *Framebuffer) WritePNG(w io.Writer, film *Film, depth int) error {
	if depth != 8 && depth != 16 {
		return fmt.Errorf("PNG bit depth %d: must be 8 or 16", depth)
	}
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	return enc.Encode(w, f.Image(film, depth))
}
