package scheduler

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/kernels/emulator"
	"github.com/tracerender/trace/tracer"
)

// TestGPUWorkerMatchesCPU: a frame rendered by the GPU worker on the
// kernel's emulator, alone or beside a CPU worker, is the CPU-only frame
// byte for byte, and counts the same work.
func TestGPUWorkerMatchesCPU(t *testing.T) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			checkGPUWorkerMatchesCPU(t, loadScene(t, name, 48, 40, 4))
		})
	}
	// Under adaptive sampling (tracer/adaptive.go), which the GPU worker
	// counts from the kernel's per-pixel sample counts: fewer samples
	// than the frame's pixels' Samples, the CPU's count.
	for _, name := range []string{"cornell-box", "whitted"} {
		t.Run(name+" adaptive", func(t *testing.T) {
			s := loadScene(t, name, 48, 40, 40)
			s.Settings.NoiseThreshold, s.Settings.MinSamples = 0.05, 8
			if prog := checkGPUWorkerMatchesCPU(t, s); prog.Stats.Samples >= 48*40*40 {
				t.Errorf("%d samples taken, all the pixels' %d: nothing stopped early", prog.Stats.Samples, 48*40*40)
			}
		})
	}
}

// checkGPUWorkerMatchesCPU renders s on the CPU, on a GPU worker on the
// emulator, on both, and on both with duplicate leases, and fails unless
// the frames are the CPU's byte for byte and the counts of work the
// CPU's; it returns the CPU's progress.
func checkGPUWorkerMatchesCPU(t *testing.T, s *tracer.Scene) Progress {
	t.Helper()
	ref, refProg := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 2}}})

	gpu := &GPUWorker{Device: newEmulator(t), BatchPixels: 6 * 64}
	got, prog := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{gpu}})
	if !bytes.Equal(got, ref) {
		t.Error("GPU-only frame differs from the CPU frame")
	}
	if prog.Stats != refProg.Stats {
		t.Errorf("GPU-only work %+v, CPU %+v", prog.Stats, refProg.Stats)
	}

	gpu = &GPUWorker{Device: newEmulator(t), BatchPixels: 3 * 64}
	got, prog = renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}, gpu}})
	if !bytes.Equal(got, ref) {
		t.Error("CPU+GPU frame differs from the CPU frame")
	}
	if prog.Stats != refProg.Stats {
		t.Errorf("CPU+GPU work %+v, CPU %+v", prog.Stats, refProg.Stats)
	}
	t.Logf("tiles: cpu %d, gpu %d", prog.Workers[0].Tiles, prog.Workers[1].Tiles)

	// With duplicate leases of the last tiles, the GPU may take a
	// copy of a tile the CPU is rendering, or the other way round.
	gpu = &GPUWorker{Device: newEmulator(t), BatchPixels: 5 * 64}
	got, _ = renderProgress(t, s, Options{TileSize: 8, Duplicates: true, Workers: []Worker{gpu, &CPUWorker{N: 2}}})
	if !bytes.Equal(got, ref) {
		t.Error("CPU+GPU frame with duplicate leases differs from the CPU frame")
	}
	return refProg
}

// newEmulator returns a kernel emulator that is closed when the test ends.
func newEmulator(t *testing.T) *emulator.Device {
	d := emulator.New()
	t.Cleanup(func() { d.Close() })
	return d
}

// renderProgress renders s and returns the 8-bit PNG and the final
// progress.
func renderProgress(t *testing.T, s *tracer.Scene, opt Options) ([]byte, Progress) {
	t.Helper()
	res, err := Render(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.Framebuffer.WritePNG(&buf, &s.Film, 8); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res.Progress
}

// countingDevice counts launches and can fail them.
type countingDevice struct {
	kernels.Device
	launches, pixels int
	fail             error
}

func (d *countingDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	d.launches++
	d.pixels += len(pixels) / 2
	if d.fail != nil {
		return d.fail
	}
	return d.Device.TracePixels(ctx, pixels, out, rays, nonfinite)
}

// TestGPUWorkerBatches: the GPU worker leases as many free tiles as fill
// its batch, and renders each batch with one launch.
func TestGPUWorkerBatches(t *testing.T) {
	s := loadScene(t, "whitted", 48, 40, 1)
	dev := &countingDevice{Device: newEmulator(t)}
	gpu := &GPUWorker{Device: dev, BatchPixels: 8 * 64} // 8 tiles of 8×8
	got, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{gpu}})
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	if !bytes.Equal(got, ref) {
		t.Error("frame differs from the CPU frame")
	}
	// 6×5 = 30 tiles in batches of 8: 4 launches.
	if dev.launches != 4 || dev.pixels != 48*40 {
		t.Errorf("%d launches for %d pixels, want 4 for %d", dev.launches, dev.pixels, 48*40)
	}
	if gpu.Batches() != 4 {
		t.Errorf("Batches() = %d, want 4", gpu.Batches())
	}
}

// hintingDevice is a countingDevice that hints its batch size.
type hintingDevice struct {
	*countingDevice
	hint int
}

var _ kernels.BatchHinter = hintingDevice{}

func (d hintingDevice) BatchPixels() int { return d.hint }

// TestGPUWorkerBatchHint: with BatchPixels 0 the GPU worker leases the
// batches its device asks for (kernels.BatchHinter), else its default; a
// BatchPixels given wins.
func TestGPUWorkerBatchHint(t *testing.T) {
	s := loadScene(t, "whitted", 48, 40, 1) // 6×5 = 30 tiles of 8×8
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	for _, c := range []struct {
		name              string
		batchPixels, hint int
		launches, threads int
	}{
		{"the device's batch", 0, 10 * 64, 3, 1},
		{"BatchPixels wins", 8 * 64, 10 * 64, 4, 1},
		{"a large hint", 0, 8 * DefaultTileSize * DefaultTileSize, 1, 8},
		{"no hint: the default", 0, 0, 1, DefaultGPUBatchPixels / (DefaultTileSize * DefaultTileSize)},
		{"a negative hint: the default", 0, -1, 1, DefaultGPUBatchPixels / (DefaultTileSize * DefaultTileSize)},
	} {
		dev := hintingDevice{&countingDevice{Device: newEmulator(t)}, c.hint}
		gpu := &GPUWorker{Device: dev, BatchPixels: c.batchPixels}
		if got := gpu.Threads(); got != c.threads {
			t.Errorf("%s: Threads() = %d, want %d", c.name, got, c.threads)
		}
		got, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{gpu}})
		if !bytes.Equal(got, ref) {
			t.Errorf("%s: frame differs from the CPU frame", c.name)
		}
		if dev.launches != c.launches || dev.pixels != 48*40 {
			t.Errorf("%s: %d launches for %d pixels, want %d for %d", c.name, dev.launches, dev.pixels, c.launches, 48*40)
		}
	}
}

// TestGPUWorkerLaunchFails: a failed launch gives its tiles back; the CPU
// worker renders them and the frame is whole.
func TestGPUWorkerLaunchFails(t *testing.T) {
	s := loadScene(t, "cornell-box", 32, 32, 2)
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	dev := &countingDevice{Device: newEmulator(t), fail: errors.New("launch failed: out of resources")}
	res, err := Render(context.Background(), s, Options{TileSize: 8,
		Workers: []Worker{&GPUWorker{Device: dev, BatchPixels: 4 * 64}, &CPUWorker{N: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.Framebuffer.WritePNG(&buf, &s.Film, 8)
	if !bytes.Equal(buf.Bytes(), ref) {
		t.Error("frame differs from the CPU frame")
	}
	if dev.launches > 1 || res.Progress.Workers[0].Tiles != 0 {
		t.Errorf("failing GPU: %d launches, %d tiles credited", dev.launches, res.Progress.Workers[0].Tiles)
	}
}

// TestGPUWorkerRefusesScene: a scene the kernel cannot render fails the
// GPU worker before it leases a tile, with the reason.
func TestGPUWorkerRefusesScene(t *testing.T) {
	s := loadScene(t, "whitted", 16, 16, 1)
	s.Materials[0].Kind = tracer.NumMaterialKinds // a material the kernel does not know
	_, err := Render(context.Background(), s, Options{Workers: []Worker{&GPUWorker{Device: newEmulator(t)}}})
	if !errors.Is(err, kernels.ErrUnsupported) {
		t.Fatalf("err = %v, want kernels.ErrUnsupported", err)
	}
	if !strings.Contains(err.Error(), "materials[0]") {
		t.Errorf("error %q does not name the material", err)
	}
}

// slowDevice makes every launch take a while and records, at the end of
// each launch, how many tiles the frame had finished.
type slowDevice struct {
	kernels.Device
	q         func() int // tiles not yet done
	leftAtEnd []int
}

func (d *slowDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	err := d.Device.TracePixels(ctx, pixels, out, rays, nonfinite)
	time.Sleep(30 * time.Millisecond)
	d.leftAtEnd = append(d.leftAtEnd, d.q())
	return err
}

// slowQueueWorker hands its queue to the device so the device can look.
type slowQueueWorker struct {
	*GPUWorker
	dev *slowDevice
}

func (w slowQueueWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	w.dev.q = q.(*Queue).Remaining // Render hands its workers the Queue
	return w.GPUWorker.Run(ctx, s, q, index)
}

// TestGPUWorkerPipeline: with two batches in flight (one on the device,
// the other's tiles being handed to the frame by the completer goroutine),
// the frame is still the CPU's, and every batch is in the frame by the end
// of the launch after it. (That the completer overlaps the next launch is
// a matter of timing, which this test does not assert.)
func TestGPUWorkerPipeline(t *testing.T) {
	s := loadScene(t, "whitted", 32, 32, 1)
	dev := &slowDevice{Device: newEmulator(t)}
	w := slowQueueWorker{GPUWorker: &GPUWorker{Device: dev, BatchPixels: 4 * 64}, dev: dev} // 4 tiles of 8×8
	got, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{w}})
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	if !bytes.Equal(got, ref) {
		t.Error("frame differs from the CPU frame")
	}
	// 16 tiles, 4 launches. By the end of launch k (k ≥ 2), the tiles of
	// launch k−1 are done: 16 − 4(k−1) left at most.
	if len(dev.leftAtEnd) != 4 {
		t.Fatalf("%d launches, want 4", len(dev.leftAtEnd))
	}
	for k := 2; k <= 4; k++ {
		if left := dev.leftAtEnd[k-1]; left > 16-4*(k-1) {
			t.Errorf("end of launch %d: %d tiles left, want at most %d (the previous batch completed meanwhile)", k, left, 16-4*(k-1))
		}
	}
}

// panickingDevice panics in one of its methods, as a broken driver
// binding or a bug in a device might. Just before, it closes reached (if
// not nil), for a worker that must not start before the panic.
type panickingDevice struct {
	kernels.Device
	in      string // "Upload" or "TracePixels"
	reached chan struct{}
}

func (d panickingDevice) Name() string { return "gpu7 broken" }

func (d panickingDevice) Upload(ctx context.Context, p *kernels.Packed) error {
	if d.in == "Upload" {
		d.panicking()
		panic("device lost")
	}
	return d.Device.Upload(ctx, p)
}

func (d panickingDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	if d.in == "TracePixels" {
		d.panicking()
		var table []int
		_ = table[len(pixels)] // a runtime error, not a string
	}
	return d.Device.TracePixels(ctx, pixels, out, rays, nonfinite)
}

// panicking closes d.reached, once: the device panics next.
func (d panickingDevice) panicking() {
	if d.reached != nil {
		select {
		case <-d.reached:
		default:
			close(d.reached)
		}
	}
}

// gatedWorker runs its Worker once gate is closed: a CPU worker that
// starts only when the GPU beside it has failed, so that it cannot
// render the whole frame first on a busy machine.
type gatedWorker struct {
	Worker
	gate chan struct{}
}

func (w gatedWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	select {
	case <-w.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return w.Worker.Run(ctx, s, q, index)
}

// TestGPUWorkerPanics: a panic in the device's Upload or TracePixels is a
// failed GPU, not a crashed process. Beside a CPU worker the frame is the
// CPU's, byte for byte, the launch's tiles having gone back to the queue,
// and the GPU's error is reported naming the device; alone, the render
// fails with that error.
func TestGPUWorkerPanics(t *testing.T) {
	s := loadScene(t, "cornell-box", 32, 32, 2)
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	for _, in := range []string{"Upload", "TracePixels"} {
		wantErr := func(what string, err error) {
			t.Helper()
			p, ok := errors.AsType[*DevicePanic](err)
			if !ok || p.Op != in || len(p.Stack) == 0 {
				t.Errorf("%s, panic in %s: error %v, want a *DevicePanic of %s with its stack", what, in, err, in)
				return
			}
			if msg := err.Error(); !strings.Contains(msg, "gpu7 broken: "+in+" panicked: ") {
				t.Errorf("%s, panic in %s: error %q does not name the device and the panic", what, in, msg)
			}
		}

		// The CPU worker starts when the GPU panics: the GPU leases
		// tiles first, whatever the machine's load.
		reached := make(chan struct{})
		gpu := &GPUWorker{Device: panickingDevice{newEmulator(t), in, reached}, BatchPixels: 4 * 64}
		cpu := gatedWorker{&CPUWorker{N: 1}, reached}
		res, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{gpu, cpu}})
		if err != nil {
			t.Fatalf("panic in %s beside a CPU worker: %v", in, err)
		}
		var buf bytes.Buffer
		res.Framebuffer.WritePNG(&buf, &s.Film, 8)
		if !bytes.Equal(buf.Bytes(), ref) {
			t.Errorf("panic in %s: frame differs from the CPU frame", in)
		}
		g := res.Progress.Workers[0]
		if g.Tiles != 0 || in == "TracePixels" && g.Retries == 0 {
			t.Errorf("panic in %s: the GPU has %d tiles and %d failed leases", in, g.Tiles, g.Retries)
		}
		if len(res.WorkerErrors) != 1 {
			t.Fatalf("panic in %s: worker errors %v, want the GPU's", in, res.WorkerErrors)
		}
		wantErr("beside a CPU worker", res.WorkerErrors[0])

		gpu = &GPUWorker{Device: panickingDevice{newEmulator(t), in, nil}, BatchPixels: 4 * 64}
		_, err = Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{gpu}})
		if err == nil {
			t.Fatalf("panic in %s on the only worker: the render did not fail", in)
		}
		wantErr("the only worker", err)
		t.Logf("panic in %s: %v", in, err)
	}
}

// TestGPUWorkerLeasesDuplicates: once the queue has run dry, one lease
// call takes a duplicate of every slow tile, the slowest first, up to the
// batch's size, rather than one duplicate per batch (one launch, with its
// fixed cost, per tile); a batch of free tiles takes none. A duplicate not
// taken is given back. A tile of the batch rendered last, still on its way
// to the queue, is not duplicated: the lease waits for that batch (settle)
// first.
func TestGPUWorkerLeasesDuplicates(t *testing.T) {
	const cpu, gpu = 0, 1
	for _, c := range []struct {
		name string
		// The frame is a row of tiles of 8×8; the first prev are leased to
		// the GPU's batch on its way, the next held to the CPU, one a
		// millisecond, the rest are free.
		tiles, prev, held int
		duplicates        bool
		batch             int   // BatchPixels, in tiles
		want              []int // the batch's tiles: duplicates those leased before
		settles           int
	}{
		{"a dry queue: every slow tile", 4, 0, 4, true, 64, []int{0, 1, 2, 3}, 1},
		{"a dry queue, a small batch: the slowest", 4, 0, 4, true, 2, []int{0, 1}, 1},
		{"free tiles: no duplicate", 6, 0, 4, true, 64, []int{4, 5}, 0},
		{"the batch rendered last settles first", 6, 2, 4, true, 64, []int{2, 3, 4, 5}, 1},
		{"the batch fills before the queue runs dry", 6, 0, 2, true, 2, []int{2, 3}, 0},
		{"no duplicates", 6, 0, 4, false, 64, []int{4, 5}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tiles := Tiles(8*c.tiles, 8, 8)
			events := make(chan event, 4*c.tiles)
			q := newQueue(tiles, tracer.NewFramebuffer(8*c.tiles, 8), DefaultMaxAttempts, c.duplicates, events, 2)
			var clock time.Duration
			q.now = func() time.Time { return time.Unix(0, 0).Add(clock) }
			var prev []Lease
			for i := range c.prev + c.held {
				worker := cpu
				if i < c.prev {
					worker = gpu
				}
				l, ok, err := q.tryNext(worker)
				if !ok || err != nil || l.Tile.ID != i {
					t.Fatalf("lease %d: tile %d, %v, %v", i, l.Tile.ID, ok, err)
				}
				if worker == gpu {
					prev = append(prev, l)
				}
				clock += time.Millisecond
			}
			settles := 0
			settle := func() {
				settles++
				for _, l := range prev {
					q.Complete(l, make([]float32, 3*64), tracer.Stats{})
				}
			}
			w := &GPUWorker{BatchPixels: c.batch * 64}
			got, err := w.lease(context.Background(), q, gpu, nil, settle, w.batchPixels())
			if err != nil {
				t.Fatal(err)
			}
			var ids []int
			for _, l := range got {
				ids = append(ids, l.Tile.ID)
				if l.Duplicate != (l.Tile.ID < c.prev+c.held) || l.Worker != gpu {
					t.Errorf("tile %d: Duplicate %v, worker %d", l.Tile.ID, l.Duplicate, l.Worker)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Errorf("batch of tiles %v, want %v", ids, c.want)
			}
			if settles != c.settles {
				t.Errorf("settle called %d times, want %d", settles, c.settles)
			}
			// Every lease given back is back: a tile is out once for
			// the CPU and once for the batch, unless done.
			for i := range tiles {
				want := 0
				if i >= c.prev && i < c.prev+c.held {
					want++
				}
				if slices.Contains(ids, i) {
					want++
				}
				if st := q.state[i]; !st.done && st.out != want {
					t.Errorf("tile %d: %d leases out, want %d", i, st.out, want)
				}
			}
		})
	}
}

// scriptedLeases hands out the leases of its script in turn, then says
// there are no more, and records the leases given back.
type scriptedLeases struct {
	Leases   // not called
	script   []Lease
	released []int
}

func (s *scriptedLeases) Next(ctx context.Context, worker int) (Lease, error) {
	if len(s.script) == 0 {
		return Lease{}, ErrNoMoreTiles
	}
	l := s.script[0]
	s.script = s.script[1:]
	return l, nil
}

func (s *scriptedLeases) Release(l Lease) { s.released = append(s.released, l.Tile.ID) }

// TestGPUWorkerLeaseEndsAtTileHeld: a batch of duplicates ends when Next
// offers a duplicate of a tile the batch holds (here one re-queued while
// the batch was leased, which the batch took free), and that lease is
// given back.
func TestGPUWorkerLeaseEndsAtTileHeld(t *testing.T) {
	tiles := Tiles(8*4, 8, 8)
	l := func(id int, dup bool) Lease { return Lease{Tile: tiles[id], Worker: 1, Duplicate: dup} }
	q := &scriptedLeases{script: []Lease{l(0, true), l(1, true), l(2, false), l(2, true), l(3, true)}}
	w := &GPUWorker{BatchPixels: 64 * 64}
	got, err := w.lease(context.Background(), q, 1, nil, nil, w.batchPixels())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, l := range got {
		ids = append(ids, l.Tile.ID)
	}
	if !slices.Equal(ids, []int{0, 1, 2}) || !slices.Equal(q.released, []int{2}) || len(q.script) != 1 {
		t.Errorf("batch of tiles %v, tiles given back %v, %d leases not asked for; want [0 1 2], [2], 1",
			ids, q.released, len(q.script))
	}
}

// sizingDevice renders nothing (black) and records each launch's pixels,
// taking perTile for each 64 pixels.
type sizingDevice struct {
	sizes   []int
	perTile time.Duration
}

func (d *sizingDevice) Name() string                                  { return "sizing" }
func (d *sizingDevice) Upload(context.Context, *kernels.Packed) error { return nil }
func (d *sizingDevice) Close() error                                  { return nil }
func (d *sizingDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	n := len(pixels) / 2
	d.sizes = append(d.sizes, n)
	time.Sleep(time.Duration(n/64) * d.perTile)
	return nil
}

// TestGPUWorkerBatchTime: a render's first batch holds at most
// FirstGPUBatchSamples samples, and each later one at most what the one
// before rendered in BatchTime at its pace; BatchTime < 0 leaves batches
// to BatchPixels.
func TestGPUWorkerBatchTime(t *testing.T) {
	w := &GPUWorker{BatchPixels: 1 << 20} // waves of 1<<17 pixels
	for _, c := range []struct {
		samples, want int
	}{{16, 1 << 20}, {256, FirstGPUBatchSamples / 256}, {1024, 1 << 17}, {tracer.MaxSamples, 1 << 17}} {
		if got := w.firstBatch(c.samples); got != c.want {
			t.Errorf("first batch at %d samples: %d pixels, want %d", c.samples, got, c.want)
		}
	}
	for _, c := range []struct {
		pixels int
		took   time.Duration
		want   int
	}{
		{1 << 17, time.Second, 1 << 20},      // 10 s: 8 times as many, all
		{1 << 18, 10 * time.Second, 1 << 18}, // 10 s: as many
		{3 << 18, 30 * time.Second, 1 << 18}, // 30 s: a third
		{1 << 20, 20 * time.Second, 1 << 19}, // 20 s: half
		{5 << 18, 25 * time.Second, 1 << 19}, // 25 s: two fifths
		{1 << 20, 5 * time.Second, 1 << 20},  // never past BatchPixels
		{1 << 20, time.Hour, 1 << 17},        // never below a wave
		{1 << 17, 40 * time.Second, 1 << 17}, // a wave that takes long: a wave
		{1000, 0, 1 << 20},                   // no pace measured
		{1 << 19, time.Millisecond, 1 << 20}, // a quick one grows it
	} {
		if got := w.nextBatch(c.pixels, c.took); got != c.want {
			t.Errorf("after %d pixels in %v: %d pixels, want %d", c.pixels, c.took, got, c.want)
		}
	}
	if got := (&GPUWorker{BatchPixels: 4096, BatchTime: -1}).firstBatch(tracer.MaxSamples); got != 4096 {
		t.Errorf("BatchTime < 0: first batch %d pixels, want BatchPixels, 4096", got)
	}

	// A render at 65,536 samples: the first batch is 1,024 pixels (16
	// tiles of 8×8, two waves of 512), the next ones BatchPixels (the
	// device is quick).
	s := loadScene(t, "whitted", 96, 80, 1) // 120 tiles
	s.Settings.Samples = tracer.MaxSamples
	dev := &sizingDevice{}
	if _, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{&GPUWorker{Device: dev, BatchPixels: 4096}}}); err != nil {
		t.Fatal(err)
	}
	if len(dev.sizes) < 2 || dev.sizes[0] != 1024 || dev.sizes[1] != 4096 {
		t.Errorf("batches of %v pixels, want 1024, then 4096", dev.sizes)
	}
	// A slow device: 8 tiles take 40 ms or more, so with BatchTime 25
	// ms no batch after the first holds more than 5.
	s.Settings.Samples = 1
	dev = &sizingDevice{perTile: 5 * time.Millisecond}
	if _, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{&GPUWorker{Device: dev, BatchPixels: 512, BatchTime: 25 * time.Millisecond}}}); err != nil {
		t.Fatal(err)
	}
	if dev.sizes[0] != 512 || slices.Max(dev.sizes[1:]) > 320 || slices.Min(dev.sizes) < 64 {
		t.Errorf("batches of %v pixels, want 512, then at most 320, each at least a wave (64, a tile)", dev.sizes)
	}
	// A device far slower than BatchTime: after the first batch, a wave
	// each (BatchPixels 1,024: 128 pixels, two tiles), never less.
	dev = &sizingDevice{perTile: 2 * time.Millisecond}
	if _, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{&GPUWorker{Device: dev, BatchPixels: 1024, BatchTime: time.Millisecond}}}); err != nil {
		t.Fatal(err)
	}
	if dev.sizes[0] != 1024 || slices.Min(dev.sizes[1:]) != 128 || slices.Max(dev.sizes[1:]) != 128 {
		t.Errorf("batches of %v pixels, want 1024, then waves of 128", dev.sizes)
	}
}

// packedDevice records the Packed each Upload gets.
type packedDevice struct {
	kernels.Device
	mu     *sync.Mutex
	got    *[]*kernels.Packed
	before func() // called before the upload, if set
}

func (d packedDevice) Upload(ctx context.Context, p *kernels.Packed) error {
	if d.before != nil {
		d.before()
	}
	d.mu.Lock()
	*d.got = append(*d.got, p)
	d.mu.Unlock()
	return d.Device.Upload(ctx, p)
}

// TestGPUWorkersSharePacked: the GPU workers of a render that share a
// Packer upload one Packed, packed once, and render the CPU's frame;
// without one, each packs its own.
func TestGPUWorkersSharePacked(t *testing.T) {
	s := loadScene(t, "mesh", 32, 24, 2)
	ref, _ := renderProgress(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
	for _, shared := range []bool{true, false} {
		var mu sync.Mutex
		var got []*kernels.Packed
		var packer *Packer
		if shared {
			packer = &Packer{}
		}
		// Every worker reaches Upload before any uploads: they ask for
		// the Packed together, as a render's GPUs do.
		var arrived sync.WaitGroup
		arrived.Add(3)
		var workers []Worker
		for range 3 {
			d := packedDevice{Device: newEmulator(t), mu: &mu, got: &got, before: func() { arrived.Done(); arrived.Wait() }}
			workers = append(workers, &GPUWorker{Device: d, BatchPixels: 4 * 64, Packer: packer})
		}
		frame, _ := renderProgress(t, s, Options{TileSize: 8, Workers: workers})
		if !bytes.Equal(frame, ref) {
			t.Errorf("shared %v: the frame differs from the CPU's", shared)
		}
		if len(got) != 3 {
			t.Fatalf("shared %v: %d uploads, want 3", shared, len(got))
		}
		same := got[0] == got[1] && got[1] == got[2]
		if same != shared {
			t.Errorf("shared %v: the workers uploaded the same Packed: %v", shared, same)
		}
		if shared && packer.Packs() != 1 {
			t.Errorf("the shared Packer packed %d times, want once", packer.Packs())
		}
	}
	// A nil Packer packs; a scene the kernel refuses is refused through
	// a Packer too, with the same error again, packed once.
	var none *Packer
	if p, err := none.Pack(s); err != nil || p == nil {
		t.Errorf("nil Packer: %v, %v", p, err)
	}
	bad := loadScene(t, "whitted", 16, 16, 1)
	bad.Materials[0].Kind = tracer.NumMaterialKinds
	packer := &Packer{}
	_, err1 := packer.Pack(bad)
	_, err2 := packer.Pack(bad)
	if !errors.Is(err1, kernels.ErrUnsupported) || err2 != err1 || packer.Packs() != 1 {
		t.Errorf("a refused scene: errors %v and %v, packed %d times; want kernels.ErrUnsupported twice, once", err1, err2, packer.Packs())
	}
}
