package remote

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/kernels/emulator"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
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

// hintingDevice is a GPU that gives its own batch size, as a CUDA device
// does from its multiprocessors (kernels.BatchHinter), and records the
// pixels of each launch.
type hintingDevice struct {
	kernels.Device
	hint int

	mu       sync.Mutex
	launches []int
}

var _ kernels.BatchHinter = (*hintingDevice)(nil)

func (d *hintingDevice) BatchPixels() int { return d.hint }

func (d *hintingDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, bad []uint64) error {
	d.mu.Lock()
	d.launches = append(d.launches, len(pixels)/2)
	d.mu.Unlock()
	return d.Device.TracePixels(ctx, pixels, out, rays, bad)
}

// A worker's GPU batches are sized as a local GPU's: with BatchPixels 0
// the device's own size (kernels.BatchHinter), else the default; a
// BatchPixels given wins. The worker announces the tiles of its batches
// as its threads, and no launch is larger than a batch.
func TestWorkerGPUBatchHint(t *testing.T) {
	bundle, scene := testScene(t, 48, 1) // 36 tiles of 8×8
	want := localRender(t, scene, 8)
	tile := scheduler.DefaultTileSize * scheduler.DefaultTileSize
	for _, c := range []struct {
		name              string
		batchPixels, hint int
		threads, batch    int // the worker's announced threads, the most pixels a launch may have
	}{
		{"the device's batch", 0, 4 * 64, 1, 4 * 64},
		{"the device's large batch", 0, 6 * tile, 6, 6 * tile},
		{"BatchPixels wins", 2 * 64, 4 * 64, 1, 2 * 64},
		{"BatchPixels wins over a large batch", 3 * tile, 6 * tile, 3, 3 * tile},
		{"no hint: the default", 0, 0, scheduler.DefaultGPUBatchPixels / tile, scheduler.DefaultGPUBatchPixels},
	} {
		n := newTestNet()
		dev := &hintingDevice{Device: emulator.New(), hint: c.hint}
		t.Cleanup(func() { dev.Device.Close() })
		w := n.start(t, "w:7000", ServerOptions{Threads: 1, GPUsOnly: true, Devices: []kernels.Device{dev}, BatchPixels: c.batchPixels})
		res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, n.options()), false)
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, res.Framebuffer.Pix, want)
		threads := 0
		for _, wp := range res.Progress.Workers {
			if wp.Name == "w:7000" {
				threads = wp.Threads
			}
		}
		if threads != c.threads {
			t.Errorf("%s: the worker announced %d threads, want %d", c.name, threads, c.threads)
		}
		dev.mu.Lock()
		sum := 0
		for _, px := range dev.launches {
			sum += px
			if px > c.batch {
				t.Errorf("%s: a launch of %d pixels, want at most %d", c.name, px, c.batch)
			}
		}
		if sum != 48*48 || int64(len(dev.launches)) != w.srv.Stats().GPUBatches {
			t.Errorf("%s: %d launches of %d pixels in all, %d batches counted; want 48×48 pixels", c.name, len(dev.launches), sum, w.srv.Stats().GPUBatches)
		}
		dev.mu.Unlock()
	}
}

// panickingDevice is a GPU that panics in one of its methods, as a broken
// driver binding or a bug in a device might.
type panickingDevice struct {
	kernels.Device
	in string // "Upload" or "TracePixels"
}

func (panickingDevice) Name() string { return "gpu7 broken" }

func (d panickingDevice) Upload(ctx context.Context, p *kernels.Packed) error {
	if d.in == "Upload" {
		panic("device lost")
	}
	return d.Device.Upload(ctx, p)
}

func (d panickingDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, bad []uint64) error {
	if d.in == "TracePixels" {
		panic("device lost")
	}
	return d.Device.TracePixels(ctx, pixels, out, rays, bad)
}

// A worker whose GPU panics (in the upload a launch begins with, or in
// the launch) keeps serving: the panic fails the GPU's tiles, which go
// back. Beside a CPU thread the frame is the local render's; on a
// worker with the GPU alone the render fails with the worker's error,
// naming the worker, the device and the panic, not with a dropped
// connection, and the worker still answers.
func TestWorkerGPUPanics(t *testing.T) {
	bundle, scene := testScene(t, 32, 2)
	want := localRender(t, scene, 8)
	for _, in := range []string{"Upload", "TracePixels"} {
		n := newTestNet()
		dev := emulator.New()
		t.Cleanup(func() { dev.Close() })
		w := n.start(t, "w:7000", ServerOptions{Threads: 1, Devices: []kernels.Device{panickingDevice{dev, in}}, BatchPixels: 4 * 64})
		res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, n.options()), false)
		if err != nil {
			t.Fatalf("panic in %s beside a CPU thread: %v", in, err)
		}
		samePixels(t, res.Framebuffer.Pix, want)
		if st := w.srv.Stats(); st.TilesFailed == 0 || st.GPUBatches != 0 {
			t.Errorf("panic in %s beside a CPU thread: %d tiles failed, %d batches; want the GPU's tiles failed and no batch", in, st.TilesFailed, st.GPUBatches)
		}

		w = n.start(t, "w2:7000", ServerOptions{Threads: 1, GPUsOnly: true, Devices: []kernels.Device{panickingDevice{dev, in}}, BatchPixels: 4 * 64})
		opt := n.options()
		opt.MaxFailures = 1
		_, err = render(t, scene, NewCluster([]string{"w2:7000"}, bundle, opt), false)
		if err == nil {
			t.Fatalf("panic in %s on a GPU-only worker: the render did not fail", in)
		}
		t.Logf("panic in %s on a GPU-only worker: %v", in, err)
		if msg := err.Error(); !strings.Contains(msg, "worker w2:7000: gpu7 broken: TracePixels panicked: device lost") {
			t.Errorf("panic in %s on a GPU-only worker: error %q, want the worker's error naming it, the device and the panic", in, msg)
		}
		if st := w.srv.Stats(); st.TilesFailed == 0 {
			t.Errorf("panic in %s on a GPU-only worker: no tile failed on the worker", in)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, err := n.client(t, "w2:7000").HasBundle(ctx, &pb.BundleRef{Sha256: bundle.Hash[:]})
		cancel()
		if err != nil || !r.Present {
			t.Errorf("panic in %s: the worker answers HasBundle with %v, %v; want the bundle present", in, r, err)
		}
	}
}

// uploadsDevice counts its uploads, and panics in one while panics is set.
type uploadsDevice struct {
	kernels.Device
	uploads int
	panics  bool
}

func (d *uploadsDevice) Upload(ctx context.Context, p *kernels.Packed) error {
	d.uploads++
	if d.panics {
		panic("device lost")
	}
	return d.Device.Upload(ctx, p)
}

// An upload that panics half-way leaves no scene on the shared device: the
// next launch of the job whose scene was there before uploads it again,
// rather than render what the broken upload left.
func TestSharedDeviceUploadPanics(t *testing.T) {
	_, a := testScene(t, 8, 1)
	_, b := testScene(t, 8, 1)
	dev := &uploadsDevice{Device: emulator.New()}
	t.Cleanup(func() { dev.Device.Close() })
	d := &device{dev: dev}
	job := func(s *tracer.Scene) gpuJob {
		p, err := kernels.Pack(s)
		if err != nil {
			t.Fatal(err)
		}
		return gpuJob{d: d, packed: p}
	}
	ja, jb := job(a), job(b)
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 8, 8))
	out, rays, bad := make([]float32, 3*64), make([]uint64, 64), make([]uint64, 64)
	launch := func(g gpuJob, s *tracer.Scene) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return g.launch(context.Background(), s, pixels, out, rays, bad)
	}
	if err := launch(ja, a); err != nil || dev.uploads != 1 {
		t.Fatalf("first launch: %v, %d uploads", err, dev.uploads)
	}
	dev.panics = true
	if err := launch(jb, b); err == nil {
		t.Fatal("the other job's upload did not panic")
	}
	dev.panics = false
	if err := launch(ja, a); err != nil || dev.uploads != 3 {
		t.Errorf("the first job's launch after a panicked upload: %v, %d uploads in all, want 3 (its scene uploaded again)", err, dev.uploads)
	}
}
