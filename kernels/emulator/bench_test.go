package emulator

import (
	"context"
	"image"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// BenchmarkEmulatorCornellBox renders the Cornell box at 64×64, 4 samples,
// with the kernel on the emulator, on every core, and reports rays/s (the
// Go tracer's figure is trace bench's): on the wavefront, the emulator's
// default (two lanes), on the wavefront with one lane, and on the
// megakernel.
func BenchmarkEmulatorCornellBox(b *testing.B) {
	for _, k := range []kernels.Kernel{kernels.KernelWavefront, kernels.KernelMegakernel} {
		b.Run(k.String(), func(b *testing.B) { benchCornellBox(b, k, 0) })
	}
	b.Run("wavefront-one-lane", func(b *testing.B) { benchCornellBox(b, kernels.KernelWavefront, 1) })
}

func benchCornellBox(b *testing.B, k kernels.Kernel, lanes int) {
	_, p := packScene(b, "../../scenes/examples/cornell-box.json", 64, 64, 4)
	dev := New()
	dev.Kernel, dev.Lanes = k, lanes
	defer dev.Close()
	ctx := context.Background()
	if err := dev.Upload(ctx, p); err != nil {
		b.Fatal(err)
	}
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 64, 64))
	out, rays, bad := make([]float32, 3*64*64), make([]uint64, 64*64), make([]uint64, 64*64)
	var total uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := dev.TracePixels(ctx, pixels, out, rays, bad); err != nil {
			b.Fatal(err)
		}
		for _, r := range rays {
			total += r
		}
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "rays/s")
}
