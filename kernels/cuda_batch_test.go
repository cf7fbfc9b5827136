//go:build cuda

package kernels_test

import (
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// TestGPUBatchPixels checks the batch size the CUDA device hints: whole
// waves of at least MinBatchWaves blocks of the launch's block size,
// within MaxBatchPixels; on the stub driver, whose one multiprocessor
// holds one block of 128 threads, MinBatchWaves blocks.
func TestGPUBatchPixels(t *testing.T) {
	dev := openGPU(t)
	h, ok := dev.(kernels.BatchHinter)
	if !ok {
		t.Fatalf("%s is not a kernels.BatchHinter", dev.Name())
	}
	n := h.BatchPixels()
	t.Logf("%s: batches of %d pixels", dev.Name(), n)
	if strings.Contains(dev.Name(), "cudastub") && n != kernels.MinBatchWaves*128 {
		t.Errorf("the stub driver holds a block of 128 at a time, yet BatchPixels() = %d, want %d", n, kernels.MinBatchWaves*128)
	}
	if n < kernels.MinBatchWaves*32 || n > kernels.MaxBatchPixels || (n < kernels.MaxBatchPixels && n%(kernels.MinBatchWaves*32) != 0) {
		t.Errorf("BatchPixels() = %d, want MinBatchWaves (%d) whole waves of warps, at most %d", n, kernels.MinBatchWaves, kernels.MaxBatchPixels)
	}
}
