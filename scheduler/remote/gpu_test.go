package remote

import (
	"context"
	"errors"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/kernels/emulator"
)

// A worker's GPU (here the kernel's CPU emulator, which renders what a GPU
// does, bit for bit) renders batches of the job's tiles beside its CPU
// thread, or alone; the image is the local render's.
func TestWorkerGPU(t *testing.T) {
	bundle, scene := testScene(t, 48, 2)
	want := localRender(t, scene, 8)
	for _, gpusOnly := range []bool{false, true} {
		n := newTestNet()
		dev := emulator.New()
		t.Cleanup(func() { dev.Close() })
		w := n.start(t, "w:7000", ServerOptions{Threads: 1, Devices: []kernels.Device{dev}, GPUsOnly: gpusOnly, BatchPixels: 8 * 64})
		res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, n.options()), false)
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, res.Framebuffer.Pix, want)
		st := w.srv.Stats()
		if st.GPUBatches == 0 {
			t.Errorf("GPUs only %v: the GPU rendered no batch", gpusOnly)
		}
		if gpusOnly && st.GPUBatches < 36/8 {
			t.Errorf("GPUs only: %d batches of at most 8 tiles for 36 tiles", st.GPUBatches)
		}
	}
}

// failingDevice is a GPU whose launches fail.
type failingDevice struct{ kernels.Device }

func (failingDevice) TracePixels(context.Context, []uint32, []float32, []uint64, []uint64) error {
	return errors.New("launch failed: out of resources")
}

// A GPU whose launches fail gives its tiles back: the worker's CPU thread
// renders the frame.
func TestWorkerGPUFails(t *testing.T) {
	bundle, scene := testScene(t, 32, 2)
	n := newTestNet()
	dev := emulator.New()
	t.Cleanup(func() { dev.Close() })
	n.start(t, "w:7000", ServerOptions{Threads: 1, Devices: []kernels.Device{failingDevice{dev}}})
	res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, n.options()), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
}
