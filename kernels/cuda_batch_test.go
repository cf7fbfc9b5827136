//go:build cuda

package kernels_test

import (
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// TestGPUBatchPixels checks the batch size the CUDA device hints: on a GPU
// whole waves of at least MinBatchWaves blocks of the launch's block size,
// within MaxBatchPixels; on the stub driver, which reports neither
// occupancy nor registers, no hint, so that a GPUWorker keeps its
// default.
func TestGPUBatchPixels(t *testing.T) {
	dev := openGPU(t)
	h, ok := dev.(kernels.BatchHinter)
	if !ok {
		t.Fatalf("%s is not a kernels.BatchHinter", dev.Name())
	}
	n := h.BatchPixels()
	t.Logf("%s: batches of %d pixels", dev.Name(), n)
	if strings.Contains(dev.Name(), "cudastub") {
		if n != 0 {
			t.Errorf("the stub driver reports no occupancy, yet BatchPixels() = %d, want 0", n)
		}
		return
	}
	if n < kernels.MinBatchWaves*32 || n > kernels.MaxBatchPixels || (n < kernels.MaxBatchPixels && n%(kernels.MinBatchWaves*32) != 0) {
		t.Errorf("BatchPixels() = %d, want MinBatchWaves (%d) whole waves of warps, at most %d", n, kernels.MinBatchWaves, kernels.MaxBatchPixels)
	}
}
