package scheduler

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/tracer"
)

// DefaultGPUBatchPixels is how many pixels a GPUWorker renders per kernel
// launch when GPUWorker.BatchPixels is 0: 64 tiles of 32×32, a thread per
// pixel, enough to fill a large GPU.
const DefaultGPUBatchPixels = 64 * DefaultTileSize * DefaultTileSize

// DefaultGPUBatchTime is GPUWorker.BatchTime's default, and
// FirstGPUBatchSamples the most samples (pixels × samples per pixel) a
// render's first batch holds, before the device's pace is known: about
// half a second of an H200 on the Cornell box, half a minute of a GPU 60
// times slower.
const (
	DefaultGPUBatchTime  = 10 * time.Second
	FirstGPUBatchSamples = 1 << 26
)

// GPUWorker renders tiles on a kernels.Device: a CUDA GPU, or the kernel's
// CPU emulator. It uploads the scene once per render, then leases tiles in
// batches and renders each batch with one TracePixels call, so that a
// launch has tens of thousands of pixels (threads) however small the
// tiles. The pixels are the CPU's, bit for bit (the kernel is the tracer's
// twin), so CPU and GPU workers can share a frame.
type GPUWorker struct {
	// Device renders the batches; the caller opens and closes it.
	Device kernels.Device
	// BatchPixels is the number of pixels leased per launch: tiles are
	// leased until their pixels reach it or no tile is free. 0 means the
	// device's own size when it is a kernels.BatchHinter that gives one
	// (a CUDA GPU: enough for kernels.MinBatchWaves full waves), else
	// DefaultGPUBatchPixels.
	BatchPixels int
	// BatchTime bounds how long a batch runs, whatever the samples per
	// pixel, so that tiles come back at least that often: to the frame,
	// its progress and checkpoints, and, on trace worker, to the
	// coordinator, which takes a worker it has not heard from in a minute
	// for stalled. A render's first batch holds at most
	// FirstGPUBatchSamples samples; each later one at most the pixels
	// that the batch before rendered in BatchTime at its pace. But never
	// less than a wave, batchPixels / kernels.MinBatchWaves: a thread
	// renders all of a pixel's samples, so a smaller batch takes as long
	// and leaves the device idle (at tens of thousands of samples a
	// pixel, a wave alone may take longer than BatchTime). 0 means
	// DefaultGPUBatchTime; a negative value leaves batches to
	// BatchPixels alone.
	BatchTime time.Duration
	// Packer, if set, packs the scene (kernels.Pack) for this worker and
	// the others that share it: the local GPUs of one render share one
	// Packed, one copy of the scene's GPU-side arrays, where each packed
	// its own. nil: the worker packs its own.
	Packer *Packer

	batches atomic.Int64 // kernel launches that rendered a batch
}

// Batches returns the number of batches the device has rendered.
func (w *GPUWorker) Batches() int64 { return w.batches.Load() }

// Name implements Worker: the device's name.
func (w *GPUWorker) Name() string { return w.Device.Name() }

// Kind implements Worker.
func (w *GPUWorker) Kind() WorkerKind { return KindGPU }

// Threads implements Worker: the tiles of the default size in one batch.
func (w *GPUWorker) Threads() int {
	return max(1, w.batchPixels()/(DefaultTileSize*DefaultTileSize))
}

func (w *GPUWorker) batchPixels() int {
	if w.BatchPixels > 0 {
		return w.BatchPixels
	}
	if h, ok := w.Device.(kernels.BatchHinter); ok {
		if n := h.BatchPixels(); n > 0 {
			return n
		}
	}
	return DefaultGPUBatchPixels
}

// Run implements Worker. A scene the kernel cannot render is an error
// before any tile is leased. A failed launch fails its tiles' leases (they
// go back to the queue for the other workers) and ends the worker with the
// error. A panic in the device's Upload or TracePixels is such an error
// (a *DevicePanic), not the process's end: this is the one place where a
// GPU's panics are recovered, for a local render's GPUs and trace
// worker's alike.
func (w *GPUWorker) Run(ctx context.Context, scene *tracer.Scene, q Leases, index int) error {
	p, err := w.Packer.Pack(scene)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name(), err)
	}
	if err := w.upload(ctx, p); err != nil {
		return fmt.Errorf("%s: %w", w.Name(), err)
	}
	// Two batches in flight: while the device renders one, the other's
	// tiles are completed (copied into the frame) by a second goroutine
	// and the next batch is leased, so the device waits on neither.
	free := make(chan *gpuBatch, 2)
	free <- &gpuBatch{}
	free <- &gpuBatch{}
	done := make(chan *gpuBatch)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for b := range done {
			b.complete(q, scene.Settings.Samples)
			free <- b
		}
	}()
	defer func() { close(done); wg.Wait() }()
	// settle waits until the batch handed to the completer last is
	// back in free, its tiles in the queue's hands.
	settle := func() { o := <-free; free <- o }
	most := w.firstBatch(scene.Settings.Samples)
	for {
		b := <-free
		b.leases, err = w.lease(ctx, q, index, b.leases[:0], settle, most)
		if err != nil {
			if errors.Is(err, ErrNoMoreTiles) {
				return nil
			}
			return err
		}
		b.prepare()
		start := time.Now()
		err := w.trace(ctx, b)
		if err == nil {
			w.batches.Add(1)
			most = w.nextBatch(len(b.pixels)/2, time.Since(start))
		}
		if err != nil {
			if ctx.Err() != nil {
				for _, l := range b.leases {
					q.Release(l)
				}
				return ctx.Err()
			}
			err = fmt.Errorf("%s: %w", w.Name(), err)
			for _, l := range b.leases {
				q.Fail(l, err)
			}
			return err
		}
		done <- b
	}
}

// Packer packs scenes for the GPUWorkers that share it, once for those
// that ask while the scene's Packed is in use: a render's GPU workers start
// together, the first packs, the others wait for it and upload the same
// Packed. It keeps the Packed weakly, so that once every device has
// uploaded it the memory is free, and a worker that asks after that packs
// again. Its zero value is ready; a nil *Packer packs every time.
type Packer struct {
	mu    sync.Mutex
	scene *tracer.Scene
	p     weak.Pointer[kernels.Packed]
	err   error
	packs int
}

// Pack returns scene packed (kernels.Pack): the Packed or the error of
// the last call for the same scene, if that Packed is still in use.
func (k *Packer) Pack(scene *tracer.Scene) (*kernels.Packed, error) {
	if k == nil {
		return kernels.Pack(scene)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.scene == scene {
		if k.err != nil {
			return nil, k.err
		}
		if p := k.p.Value(); p != nil {
			return p, nil
		}
	}
	p, err := kernels.Pack(scene)
	k.scene, k.p, k.err = scene, weak.Make(p), err
	k.packs++
	return p, err
}

// Packs is how many times the Packer has packed a scene.
func (k *Packer) Packs() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.packs
}

// upload is the device's Upload, a panic in it recovered as a *DevicePanic.
func (w *GPUWorker) upload(ctx context.Context, p *kernels.Packed) (err error) {
	defer recoverDevice(&err, "Upload")
	if err := w.Device.Upload(ctx, p); err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	return nil
}

// trace is the device's TracePixels on batch b, a panic in it recovered
// as a *DevicePanic.
func (w *GPUWorker) trace(ctx context.Context, b *gpuBatch) (err error) {
	defer recoverDevice(&err, "TracePixels")
	return w.Device.TracePixels(ctx, b.pixels, b.out, b.rays, b.bad)
}

// recoverDevice, deferred by a call into a device, turns a panic in it
// into a *DevicePanic in *err.
func recoverDevice(err *error, op string) {
	if r := recover(); r != nil {
		*err = &DevicePanic{Op: op, Value: r, Stack: debug.Stack()}
	}
}

// DevicePanic is a panic in a kernels.Device (its driver binding, the
// emulator, a bug) that GPUWorker recovered: it fails the batch's leases
// as a failed launch does, so the tiles are rendered elsewhere.
type DevicePanic struct {
	// Op is the Device method that panicked: "Upload" or "TracePixels"
	// (in trace worker, a launch's TracePixels uploads its job's scene
	// first, so a panic in that upload is TracePixels').
	Op    string
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack, for logs
}

// Error says which method panicked, with what; the caller adds the device.
func (e *DevicePanic) Error() string { return fmt.Sprintf("%s panicked: %v", e.Op, e.Value) }

// gpuBatch is one launch's tiles and buffers.
type gpuBatch struct {
	leases    []Lease
	pixels    []uint32
	out       []float32
	rays, bad []uint64
}

// prepare lists the batch's pixels, tile after tile, and sizes the result
// buffers.
func (b *gpuBatch) prepare() {
	b.pixels = b.pixels[:0]
	for _, l := range b.leases {
		b.pixels = kernels.AppendPixels(b.pixels, l.Tile.Rect)
	}
	n := len(b.pixels) / 2
	if cap(b.out) < 3*n {
		b.out, b.rays, b.bad = make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
	}
	b.out, b.rays, b.bad = b.out[:3*n], b.rays[:n], b.bad[:n]
}

// complete hands each tile's block of the results to the queue.
func (b *gpuBatch) complete(q Leases, samples int) {
	off := 0
	for _, l := range b.leases {
		np := l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
		var st tracer.Stats
		for i := off; i < off+np; i++ {
			bad, taken := kernels.PixelCounts(b.bad[i], samples)
			st.Rays += b.rays[i]
			st.NonFinite += bad
			st.Samples += taken
		}
		q.Complete(l, b.out[3*off:3*(off+np)], st)
		off += np
	}
}

// firstBatch is the most pixels of a render's first batch at samples
// per pixel (BatchTime).
func (w *GPUWorker) firstBatch(samples int) int {
	if w.BatchTime < 0 || samples <= 0 {
		return w.batchPixels()
	}
	return max(w.wave(), min(w.batchPixels(), FirstGPUBatchSamples/samples))
}

// wave is the fewest pixels of a batch (BatchTime).
func (w *GPUWorker) wave() int { return max(1, w.batchPixels()/kernels.MinBatchWaves) }

// nextBatch is the most pixels of the batch after one of pixels pixels
// that took d (BatchTime): as many as it would render in BatchTime at
// that pace, and a wave at least. The pace of a batch that fills the
// device less is lower, so the bound errs short, and grows back as
// batches grow.
func (w *GPUWorker) nextBatch(pixels int, d time.Duration) int {
	limit := w.BatchTime
	if limit == 0 {
		limit = DefaultGPUBatchTime
	}
	if limit < 0 || d <= 0 {
		return w.batchPixels()
	}
	n := float64(pixels) * limit.Seconds() / d.Seconds()
	return max(w.wave(), int(min(n, float64(w.batchPixels()))))
}

// lease waits for one tile, then takes more without waiting until the
// batch holds most pixels or no tile is free. Asking Next with a
// cancelled context is asking without waiting: Next hands out a free tile
// before it looks at the context.
//
// Once the queue has run dry, Next offers duplicates of the tiles still
// out, the slowest first and a different one each time (it skips a tile
// with two leases out). A batch that begins with a duplicate takes them
// all, until Next offers a tile the batch holds already: in the frame's
// tail one launch races every slow tile, where a launch per tile would
// pay the launch's fixed cost each time. A batch of free tiles takes no
// duplicate: it would only make that launch longer for tiles others
// started before it. A duplicate not taken is given back. Before taking
// the first duplicate, lease calls settle, which waits until the batch
// rendered last has reached the queue (its tiles, out until then, would be
// offered back), and asks again; settle may be nil when no batch is on its
// way.
func (w *GPUWorker) lease(ctx context.Context, q Leases, index int, batch []Lease, settle func(), most int) ([]Lease, error) {
	now, cancel := context.WithCancel(ctx)
	cancel()
	for px := 0; px < most; {
		ask := now
		if len(batch) == 0 {
			ask = ctx
		}
		l, err := q.Next(ask, index)
		if err != nil {
			if len(batch) == 0 {
				return batch, err
			}
			break // ErrNoMoreTiles, or no tile free now
		}
		if l.Duplicate && len(batch) > 0 && (!batch[0].Duplicate || holds(batch, l.Tile.ID)) {
			q.Release(l)
			break
		}
		if l.Duplicate && settle != nil {
			q.Release(l)
			settle()
			settle = nil
			continue
		}
		batch = append(batch, l)
		px += l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
	}
	return batch, nil
}

// holds reports whether one of leases is of tile id.
func holds(leases []Lease, id int) bool {
	for _, l := range leases {
		if l.Tile.ID == id {
			return true
		}
	}
	return false
}
