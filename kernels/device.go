package kernels

import (
	"context"
	"embed"
	"image"
)

// Device renders pixels with the kernel: a CUDA GPU in the cuda build, or
// the kernel's CPU emulator (package kernels/emulator). A Device is used by
// one goroutine at a time.
type Device interface {
	// Name identifies the device in progress reports and errors, e.g.
	// "gpu0 NVIDIA H200" or "emulator".
	Name() string
	// Upload makes p the scene that TracePixels renders, replacing any
	// earlier one. p must not change while it is the device's scene.
	Upload(ctx context.Context, p *Packed) error
	// TracePixels renders the pixels listed in pixels (x, y pairs; see
	// AppendPixels) with one kernel launch, as tracer.Scene.RenderPixel
	// would: out receives three float32 of linear RGB radiance per pixel,
	// rays and nonfinite one count per pixel (tracer.Stats' Rays and
	// NonFinite; under adaptive sampling nonfinite's high 32 bits hold
	// the samples the pixel took: PixelCounts). out, rays and nonfinite
	// must hold at least that many values.
	TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error
	// Close releases the device's memory and context.
	Close() error
}

// AppendPixels appends the (x, y) pairs of the pixels of r to dst, row by
// row from the top, each row left to right: the order of a block of
// tracer.Framebuffer.SetBlock, so a batch of tiles' results are the tiles'
// blocks one after another.
func AppendPixels(dst []uint32, r image.Rectangle) []uint32 {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			dst = append(dst, uint32(x), uint32(y))
		}
	}
	return dst
}

// Source holds the kernel source: trace.cu and the headers it includes.
// Packages that compile it (the emulator) import this package, so that the
// go command rebuilds them when the source changes: cgo itself does not
// track files included from outside a package's directory.
//
//go:embed trace.cu *.h
var Source embed.FS
