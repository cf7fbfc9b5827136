// Package emulator runs the GPU kernel on the CPU: the kernel source of
// package kernels compiled as C11 by the system's C compiler through cgo,
// and a loop that walks the grid, thread by thread, as a GPU would run it
// in parallel. Device implements kernels.Device with it, so the scheduler's
// GPU worker, and the tests that prove the kernel renders exactly what
// package tracer renders, run without a GPU.
//
// The C is compiled with -std=c11, which turns off the contraction of
// a*b+c into fused multiply-adds (cgo does not accept -ffp-contract), and
// without -ffast-math: every operation is the IEEE float32 operation the
// Go tracer performs.
package emulator

/*
#cgo CFLAGS: -std=c11 -O2 -fno-fast-math -Wall -Wdouble-promotion
#cgo LDFLAGS: -lm
#include <stdlib.h>
#include <string.h>
#include "emulator.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tracerender/trace/kernels"
)

// DefaultBlockDim is the number of threads per emulated block.
const DefaultBlockDim = 64

// DefaultItems is the items (kernels.SampleParts) an emulated batch is
// split to hold: a batch of fewer pixels has its samples split, as a GPU
// splits a batch too small to fill it, so that the emulator's tests on
// small frames run the split batches.
const DefaultItems = 4096

// Device is the kernel's CPU emulator. The scene lives in C memory from
// Upload to Close (or the next Upload), as it would in device memory.
type Device struct {
	// Workers is the number of goroutines that emulate blocks in parallel;
	// 0 means runtime.GOMAXPROCS(0).
	Workers int
	// BlockDim is the number of threads per block; 0 means
	// DefaultBlockDim. The result does not depend on it.
	BlockDim int
	// Kernel selects how scenes run: the wavefront (the zero value) or
	// the megakernel (KernelAuto is refused: a cuda device's choice). The
	// result does not depend on it.
	Kernel kernels.Kernel
	// Threads is how many threads a megakernel launch has: 0 means a
	// quarter of the batch's pixels, a negative value one per pixel;
	// the threads take the other pixels as theirs end (trace.cu). The
	// result does not depend on it.
	Threads int
	// Lanes is the number of lanes a wavefront batch is split into
	// (kernels.LaneSizes in blocks of BlockDim), each with its own slots
	// and queues, whose rounds kernels.RunWavefronts interleaves as
	// the cuda device's two streams do; 0 means kernels.DefaultLanes. The
	// result does not depend on it.
	Lanes int
	// Parts is how many parts a batch's pixels' samples are split into
	// (kernels.SampleParts, trace.cu): 0 means as a device splits them,
	// to at least DefaultItems items; a negative value never; a positive
	// value that many (1: never), more than a pixel's samples leaving
	// some parts empty. The result does not depend on it.
	Parts int

	// split, when set (by tests), splits a batch of n pixels into lanes
	// in place of kernels.LaneSizes.
	split func(n int) []int
	// observe, when set (by tests), is called with a lane and what its
	// last round asked each time the lane's queries are taken, its
	// launches run.
	observe func(w *wave, q kernels.Queries)

	mem    []unsafe.Pointer   // C allocations of the current scene
	scene  unsafe.Pointer     // the TraceScene header, in C memory
	header kernels.TraceScene // its Go copy
}

var _ kernels.Device = (*Device)(nil)

// New returns an emulator that uses every core.
func New() *Device { return &Device{} }

// Name implements kernels.Device.
func (d *Device) Name() string { return "emulator" }

// Upload implements kernels.Device: it copies the scene's arrays and header
// into C memory.
func (d *Device) Upload(ctx context.Context, p *kernels.Packed) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.free()
	h := p.Scene
	addrs := h.Addrs()
	for i, a := range p.Arrays() {
		if len(a.Bytes) == 0 {
			*addrs[i] = 0
			continue
		}
		m, err := d.alloc(a.Bytes)
		if err != nil {
			d.free()
			return fmt.Errorf("emulator: %s: %w", a.Name, err)
		}
		*addrs[i] = uint64(uintptr(m))
	}
	m, err := d.alloc(h.Bytes())
	if err != nil {
		d.free()
		return fmt.Errorf("emulator: scene header: %w", err)
	}
	d.scene = m
	d.header = h
	return nil
}

// alloc copies b into new C memory, owned by d until free.
func (d *Device) alloc(b []byte) (unsafe.Pointer, error) {
	m := C.malloc(C.size_t(len(b)))
	if m == nil {
		return nil, fmt.Errorf("out of memory for %d bytes", len(b))
	}
	copy(unsafe.Slice((*byte)(m), len(b)), b)
	d.mem = append(d.mem, m)
	return m, nil
}

func (d *Device) free() {
	for _, m := range d.mem {
		C.free(m)
	}
	d.mem, d.scene = nil, nil
}

// TracePixels implements kernels.Device: it renders the pixels with the
// wavefront entries, the batch split into d.Lanes lanes whose rounds
// interleave (kernels.RunWavefronts), or with one launch of the megakernel
// trace_pixels when d.Kernel is kernels.KernelMegakernel. Each launch runs
// a grid of ⌈n/BlockDim⌉ blocks (n the lane's pixels), shared out among
// Workers goroutines; each lane runs its launches in order on a goroutine
// of its own, so that the lanes' grids overlap as on a GPU's streams.
func (d *Device) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	if d.scene == nil {
		return errors.New("emulator: no scene uploaded")
	}
	n := len(pixels) / 2
	switch {
	case len(pixels)%2 != 0:
		return fmt.Errorf("emulator: odd pixel list length %d", len(pixels))
	case len(out) < 3*n || len(rays) < n || len(nonfinite) < n:
		return fmt.Errorf("emulator: %d pixels, output for %d, %d and %d", n, len(out)/3, len(rays), len(nonfinite))
	case n > 1<<30:
		return fmt.Errorf("emulator: %d pixels in one launch", n)
	case d.Kernel != kernels.KernelWavefront && d.Kernel != kernels.KernelMegakernel:
		return fmt.Errorf("emulator: kernel %s: the emulator runs the wavefront or the megakernel, it does not choose", d.Kernel)
	case n == 0:
		return nil
	}
	px := (*C.uint)(unsafe.Pointer(unsafe.SliceData(pixels)))
	po := (*C.float)(unsafe.Pointer(unsafe.SliceData(out)))
	pr := (*C.ulonglong)(unsafe.Pointer(unsafe.SliceData(rays)))
	pn := (*C.ulonglong)(unsafe.Pointer(unsafe.SliceData(nonfinite)))
	samples := int(int32(d.header.Samples))
	parts := d.parts(n, d.header.SplitSamples())
	if d.Kernel == kernels.KernelMegakernel {
		if parts > 1 {
			// A split batch's sample values and its items' counts, in
			// C memory; the pixels' means and counts end in their
			// first parts, copied out after.
			sp, err := newSplit(n, samples, parts)
			if err != nil {
				return err
			}
			defer sp.free()
			defer func() {
				if ctx.Err() == nil {
					sp.copyOut(n, out, rays, nonfinite)
				}
			}()
			po, pr, pn = sp.out, sp.rays, sp.nonfinite
		}
		// A grid of fewer threads than pixels, as the cuda device
		// launches a wave of a batch of several: the threads take the
		// rest of the pixels from the counter as theirs end (pixel
		// regeneration), so that every test on the megakernel runs it.
		items := n * parts
		threads := items
		if d.Threads > 0 {
			threads = min(items, d.Threads)
		} else if d.Threads == 0 {
			threads = max(1, items/4)
		}
		next := (*C.uint)(C.malloc(C.size_t(unsafe.Sizeof(C.uint(0)))))
		if next == nil {
			return errors.New("emulator: out of memory for the pixel counter")
		}
		defer C.free(unsafe.Pointer(next))
		*next = C.uint(threads)
		if err := d.grid(ctx, threads, func(bdim, first, end int) {
			C.emu_run(0, d.scene, px, C.uint(n), po, pr, pn, next, C.uint(parts), C.uint(bdim), C.uint(first), C.uint(end))
		}); err != nil || parts == 1 {
			return err
		}
		return d.grid(ctx, n, func(bdim, first, end int) {
			C.emu_run(1, d.scene, px, C.uint(n), po, pr, pn, next, C.uint(parts), C.uint(bdim), C.uint(first), C.uint(end))
		})
	}
	sizes := d.laneSizes(n)
	if sum := sumInts(sizes); sum != n {
		return fmt.Errorf("emulator: lanes of %v pixels for a batch of %d", sizes, n)
	}
	lanes := make([]kernels.Wavefront, len(sizes))
	slotBytes := kernels.SlotBytes(d.header.Integrator)
	var streams []*wave
	var cmem []unsafe.Pointer // the lanes' slots and queues
	defer func() {
		// Every queued launch has run before the memory it writes is
		// freed (on an error too: a cancelled batch's lanes may still be
		// running a launch).
		for _, w := range streams {
			w.stop()
		}
		for _, m := range cmem {
			C.free(m)
		}
	}()
	lo := 0
	items := make([]int, len(sizes)) // the lanes' slots
	for i, size := range sizes {
		if size == 0 {
			lanes[i] = &wave{d: d, ctx: ctx} // never launched
			continue
		}
		// Each lane has its own slots and two queues, and its part of the
		// pixel list and of the outputs (split, its own).
		items[i] = size * parts
		slots := C.calloc(C.size_t(items[i]), C.size_t(slotBytes))
		queues := (*C.uint)(C.calloc(C.size_t(2*kernels.QueueWords(items[i])), C.size_t(unsafe.Sizeof(C.uint(0)))))
		var sp *split
		if parts > 1 && slots != nil && queues != nil {
			sp, _ = newSplit(size, samples, parts)
		}
		if slots == nil || queues == nil || (parts > 1 && sp == nil) {
			C.free(slots)
			C.free(unsafe.Pointer(queues))
			return fmt.Errorf("emulator: out of memory for the slots of %d pixels", size)
		}
		cmem = append(cmem, slots, unsafe.Pointer(queues))
		if sp != nil {
			cmem = append(cmem, unsafe.Pointer(sp.out), unsafe.Pointer(sp.rays), unsafe.Pointer(sp.nonfinite))
		}
		w := &wave{d: d, ctx: ctx, px: elem(px, 2*lo), n: items[i], parts: parts, slots: slots,
			queues: [2]*C.uint{queues, elem(queues, kernels.QueueWords(items[i]))},
			out:    elem(po, 3*lo), rays: elem(pr, lo), nonfinite: elem(pn, lo)}
		if sp != nil {
			w.split, w.out, w.rays, w.nonfinite = sp, sp.out, sp.rays, sp.nonfinite
		}
		w.start()
		lanes[i], streams = w, append(streams, w)
		lo += size
	}
	if err := kernels.RunWavefronts(ctx, lanes, items, &d.header); err != nil {
		return err
	}
	for _, w := range streams {
		if err := w.stop(); err != nil {
			return err
		}
	}
	lo = 0
	for i, l := range lanes {
		if w := l.(*wave); w.split != nil {
			w.split.copyOut(sizes[i], out[3*lo:], rays[lo:], nonfinite[lo:])
		}
		lo += sizes[i]
	}
	return nil
}

// parts is how many parts d splits a batch of n pixels of samples
// samples each into (Device.Parts): samples is the scene's
// TraceScene.SplitSamples, 1 (never split, whatever Parts asks) under
// adaptive sampling.
func (d *Device) parts(n, samples int) int {
	switch {
	case d.Parts < 0:
		return 1
	case d.Parts > 0:
		if samples <= 1 {
			return 1
		}
		return d.Parts
	}
	return kernels.SampleParts(n, samples, DefaultItems, kernels.MaxSplitBytes)
}

// split is a split batch's outputs in C memory: its sample values and
// its items' counts, the pixels' means and counts ending in their first
// parts (trace.cu).
type split struct {
	out             *C.float
	rays, nonfinite *C.ulonglong
}

// newSplit allocates the outputs of a batch of n pixels of samples
// samples each in parts parts.
func newSplit(n, samples, parts int) (*split, error) {
	floats := kernels.SplitOutFloats(n, samples, parts)
	sp := &split{
		out:       (*C.float)(C.calloc(C.size_t(floats), C.size_t(unsafe.Sizeof(C.float(0))))),
		rays:      (*C.ulonglong)(C.calloc(C.size_t(n*parts), C.size_t(unsafe.Sizeof(C.ulonglong(0))))),
		nonfinite: (*C.ulonglong)(C.calloc(C.size_t(n*parts), C.size_t(unsafe.Sizeof(C.ulonglong(0))))),
	}
	if sp.out == nil || sp.rays == nil || sp.nonfinite == nil {
		sp.free()
		return nil, fmt.Errorf("emulator: out of memory for the %d sample values of %d pixels", n*samples, n)
	}
	return sp, nil
}

// copyOut copies the n pixels' means and counts into out, rays and
// nonfinite.
func (sp *split) copyOut(n int, out []float32, rays, nonfinite []uint64) {
	copy(out[:3*n], unsafe.Slice((*float32)(unsafe.Pointer(sp.out)), 3*n))
	copy(rays[:n], unsafe.Slice((*uint64)(unsafe.Pointer(sp.rays)), n))
	copy(nonfinite[:n], unsafe.Slice((*uint64)(unsafe.Pointer(sp.nonfinite)), n))
}

// free frees sp's memory.
func (sp *split) free() {
	C.free(unsafe.Pointer(sp.out))
	C.free(unsafe.Pointer(sp.rays))
	C.free(unsafe.Pointer(sp.nonfinite))
}

// laneSizes splits a batch of n pixels into d's lanes.
func (d *Device) laneSizes(n int) []int {
	if d.split != nil {
		return d.split(n)
	}
	lanes, bdim := d.Lanes, d.BlockDim
	if lanes <= 0 {
		lanes = kernels.DefaultLanes
	}
	if bdim <= 0 {
		bdim = DefaultBlockDim
	}
	return kernels.LaneSizes(n, lanes, bdim)
}

// sumInts is the sum of a, or -1 if a holds a negative number.
func sumInts(a []int) int {
	s := 0
	for _, v := range a {
		if v < 0 {
			return -1
		}
		s += v
	}
	return s
}

// elem is &p[i] for a C array p.
func elem[T any](p *T, i int) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(p), uintptr(i)*unsafe.Sizeof(*p)))
}

// wave is kernels.Wavefront on the emulator, for one lane of a batch.
// Like a CUDA stream, it runs its launches in order on a goroutine of its
// own (from start to stop), so that the lanes' grids run at once: Launch
// queues, and a launch's error shows at the next TakeQueries or at stop.
type wave struct {
	d     *Device
	ctx   context.Context
	px    *C.uint
	n     int // the lane's slots: its pixels times parts
	parts int
	// split is the lane's outputs when its batch is split (parts > 1):
	// out, rays and nonfinite are its.
	split *split
	slots unsafe.Pointer
	// queues are the lane's two queues; cur is the one the last wf_init
	// or wf_shade filled (written by the lane's goroutine, read by
	// TakeQueries once the launches have run).
	queues          [2]*C.uint
	cur             int
	out             *C.float
	rays, nonfinite *C.ulonglong

	queue   chan waveLaunch
	pending sync.WaitGroup // launches queued and not yet run
	done    chan struct{}  // closed when the goroutine has ended
	err     error          // the first launch's error, written by the goroutine
}

// waveLaunch is a launch queued on a wave: entry e over threads threads.
type waveLaunch struct {
	e       kernels.WaveEntry
	threads int
}

// start starts the lane's goroutine.
func (w *wave) start() {
	q, done := make(chan waveLaunch, 8), make(chan struct{})
	w.queue, w.done = q, done
	go func() { // reads neither field: stop clears queue
		defer close(done)
		for l := range q {
			if w.err == nil {
				w.err = w.run(l.e, l.threads)
			}
			w.pending.Done()
		}
	}()
}

// stop waits for the queued launches, ends the goroutine and returns the
// first launch's error. Stopping twice is harmless.
func (w *wave) stop() error {
	if w.queue != nil {
		close(w.queue)
		w.queue = nil
		<-w.done
	}
	return w.err
}

// Launch implements kernels.Wavefront: it queues the launch.
func (w *wave) Launch(e kernels.WaveEntry, threads int) error {
	if w.queue == nil {
		return errors.New("emulator: a launch on a stopped lane")
	}
	if threads < 0 || threads > w.n {
		return fmt.Errorf("emulator: %v over %d threads, the lane holds %d slots", e, threads, w.n)
	}
	w.pending.Add(1)
	w.queue <- waveLaunch{e, threads}
	return nil
}

// run runs a launch's grid and returns when it has run. wf_init fills the
// first queue; wf_shade works through the queue filled last and fills
// the other, its counts cleared first, as the cuda device's stream does.
func (w *wave) run(e kernels.WaveEntry, threads int) error {
	qin, qout := w.queues[w.cur], w.queues[1-w.cur]
	switch e {
	case kernels.WaveInit:
		w.cur = 0
		qin, qout = w.queues[1], w.queues[0]
	case kernels.WaveShade:
		*qout, *elem(qout, 1) = 0, 0
		w.cur = 1 - w.cur
	}
	var bad atomic.Bool
	err := w.d.grid(w.ctx, threads, func(bdim, first, end int) {
		if C.emu_wave(C.int(e), w.d.scene, w.px, C.uint(w.n), w.slots, qin, qout, w.out, w.rays, w.nonfinite,
			C.uint(w.parts), C.uint(bdim), C.uint(first), C.uint(end)) != 0 {
			bad.Store(true)
		}
	})
	if bad.Load() {
		return fmt.Errorf("emulator: no wavefront entry %v", e)
	}
	return err
}

// TakeQueries implements kernels.Wavefront: it waits for the lane's
// launches, so the counts are read after all of wf_shade's writes.
func (w *wave) TakeQueries() (kernels.Queries, error) {
	w.pending.Wait()
	if w.err != nil {
		return kernels.Queries{}, w.err
	}
	q := w.queues[w.cur]
	got := kernels.Queries{Closest: int(*q), Any: int(*elem(q, 1))}
	if w.d.observe != nil {
		w.d.observe(w, got)
	}
	return got, nil
}

// grid runs a grid of ⌈n/BlockDim⌉ blocks: Workers goroutines take blocks
// one after another and call run(blockDim, b, b+1) for each.
func (d *Device) grid(ctx context.Context, n int, run func(bdim, first, end int)) error {
	bdim := d.BlockDim
	if bdim <= 0 {
		bdim = DefaultBlockDim
	}
	blocks := (n + bdim - 1) / bdim
	workers := d.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				run(bdim, b, b+1)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Close implements kernels.Device: it frees the scene's C memory.
func (d *Device) Close() error {
	d.free()
	return nil
}
