package imageio

import (
	"image"
	"image/jpeg"
	"io"

	"github.com/tracerender/trace/tracer"
)

// WriteJPEG encodes the framebuffer f as a baseline JPEG of the given
// quality (1 to 100): the pixels of an 8-bit PNG (the film's exposure,
// tone curve and transfer, sRGB by default), with JPEG's 4:2:0 chroma
// subsampling.
func WriteJPEG(w io.Writer, f *tracer.Framebuffer, film *tracer.Film, quality int) error {
	img := f.Image(film, 8).(*image.NRGBA)
	// Every pixel is opaque, so the non-premultiplied pixels are the
	// premultiplied ones, which the encoder reads fastest.
	rgba := &image.RGBA{Pix: img.Pix, Stride: img.Stride, Rect: img.Rect}
	return jpeg.Encode(w, rgba, &jpeg.Options{Quality: quality})
}
