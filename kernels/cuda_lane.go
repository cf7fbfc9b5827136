//go:build cuda

package kernels

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// A device's lanes: TracePixels splits a batch into DefaultLanes parts
// (LaneSizes), each on its own stream with its own device buffers and
// page-locked host staging, so that the lanes' copies and launches overlap
// one another: on the wavefront (RunWavefronts) one lane's queries round
// trip hides behind the other's kernels, one lane's results are copied
// out while the other still traces, and one lane's pixel list is staged
// while the other's is copied in.

// cudaLaneGrain rounds a lane's buffers up, so that batches of varying
// size reuse them: a batch's cudaBatchGrain shared by the lanes.
const cudaLaneGrain = cudaBatchGrain / DefaultLanes

// cudaLane is one lane of a device, owned by the device goroutine.
type cudaLane struct {
	index  int // in the device's lanes
	of     int // how many lanes the device's batches use (TRACE_GPU_LANES)
	stream cu.Stream
	// timer is the device's kernel times (TRACE_GPU_TIMES), or nil;
	// timed are the lane's launches it timed whose events are unread.
	timer *cudaTimer
	timed []cudaTimed

	// The device buffers, for up to cap pixels and capItems items (a
	// batch split into parts, trace.cu, has a pixel's parts each): the
	// pixel list, the radiance (capOut floats: split, the sample values)
	// and the items' counts, and the wavefront's slots (slotBytes apart)
	// and two queues of QueueWords(capItems) words, an item each (none
	// for the megakernel); cur is the queue the last wf_init or wf_shade
	// queued on the stream fills.
	cap, capItems, capOut, slotBytes int
	pixels, out, rays, nonfinite     cu.DevicePtr
	slots, queues                    cu.DevicePtr
	cur                              int
	// next is the megakernels' pixel counter (trace.cu), a word.
	next cu.DevicePtr
	// host is the lane's page-locked staging, cudaStagingBytes(cap)
	// bytes: every copy in or out goes through it (the layout below).
	host unsafe.Pointer

	// The part of the batch in flight: n pixels in parts parts, and the
	// Go slices its list comes from and its results go to.
	n, parts       int
	goPixels       []uint32
	goOut          []float32
	goRays, goNonf []uint64
}

// The staging's layout, for a lane of cap pixels: the ray counts, the
// non-finite counts and the pixel list (8 bytes a pixel each), the
// radiance (12), then a queue's two counts read back (the first word,
// on the megakernels, the pixel counter's start) and two 0 words that
// clear a queue's counts. Every part is 8-byte aligned.
func cudaStagingBytes(cap int) int              { return 36*cap + 16 }
func (l *cudaLane) stageRays() unsafe.Pointer   { return l.host }
func (l *cudaLane) stageNonf() unsafe.Pointer   { return unsafe.Add(l.host, 8*l.cap) }
func (l *cudaLane) stagePixels() unsafe.Pointer { return unsafe.Add(l.host, 16*l.cap) }
func (l *cudaLane) stageOut() unsafe.Pointer    { return unsafe.Add(l.host, 24*l.cap) }
func (l *cudaLane) stageCounts() *[4]uint32     { return (*[4]uint32)(unsafe.Add(l.host, 36*l.cap)) }

// queue is the device address of the lane's queue k (0 or 1).
func (l *cudaLane) queue(k int) cu.DevicePtr {
	return l.queues + cu.DevicePtr(4*k*QueueWords(l.capItems))
}

// items is the items of the lane's part of the batch: its pixels' parts.
func (l *cudaLane) items() int { return l.n * max(l.parts, 1) }

// wrap says which lane err is of, as RunWavefronts does.
func (l *cudaLane) wrap(err error) error {
	return fmt.Errorf("lane %d of %d: %w", l.index, l.of, err)
}

// reserve makes the lane's buffers hold n pixels of items items, with
// outFloats floats of radiance and slots of slotBytes each, freeing
// smaller ones first. When an allocation fails, what it had allocated is
// freed.
func (l *cudaLane) reserve(n, items, outFloats, slotBytes int) error {
	if batchFits(l.cap, l.slotBytes, n, slotBytes) && items <= l.capItems && outFloats <= l.capOut {
		return nil
	}
	l.free()
	grain := func(n int) int { return (n + cudaLaneGrain - 1) / cudaLaneGrain * cudaLaneGrain }
	c, ci := grain(n), grain(max(items, n))
	co := max(3*c, outFloats)
	var err error
	alloc := func(p *cu.DevicePtr, bytes int) {
		if err == nil {
			*p, err = cu.MemAlloc(int64(bytes))
		}
	}
	alloc(&l.pixels, 8*c)
	alloc(&l.out, 4*co)
	alloc(&l.rays, 8*ci)
	alloc(&l.nonfinite, 8*ci)
	alloc(&l.next, 4)
	if slotBytes > 0 {
		alloc(&l.slots, slotBytes*ci)
		alloc(&l.queues, 2*4*QueueWords(ci))
	}
	if err != nil {
		l.free()
		return fmt.Errorf("allocating device buffers for %d pixels, %d items: %w", c, ci, err)
	}
	if l.host, err = cudaHostAlloc(cudaStagingBytes(c)); err != nil {
		l.free()
		return fmt.Errorf("allocating %d bytes of page-locked host memory for %d pixels: %w", cudaStagingBytes(c), c, err)
	}
	l.cap, l.capItems, l.capOut, l.slotBytes = c, ci, co, slotBytes
	l.stageCounts()[2], l.stageCounts()[3] = 0, 0
	return nil
}

// free frees the lane's buffers; its stream stays.
func (l *cudaLane) free() {
	for _, p := range []cu.DevicePtr{l.pixels, l.out, l.rays, l.nonfinite, l.slots, l.queues, l.next} {
		if p != 0 {
			cu.MemFree(p)
		}
	}
	if l.host != nil {
		cu.MemFreeHost(l.host)
	}
	l.pixels, l.out, l.rays, l.nonfinite, l.slots, l.queues, l.next, l.host = 0, 0, 0, 0, 0, 0, 0, nil
	l.cap, l.capItems, l.capOut, l.slotBytes = 0, 0, 0, 0
}

// unbind forgets the batch's Go slices.
func (l *cudaLane) unbind() {
	l.n, l.parts, l.goPixels, l.goOut, l.goRays, l.goNonf = 0, 0, nil, nil, nil, nil
}

// bind makes the lane's part of the batch the n pixels of pixels, with
// their results to go to out, rays and nonfinite.
func (l *cudaLane) bind(pixels []uint32, out []float32, rays, nonfinite []uint64) {
	l.n = len(pixels) / 2
	l.goPixels, l.goOut, l.goRays, l.goNonf = pixels, out[:3*l.n], rays[:l.n], nonfinite[:l.n]
}

// copyIn stages the lane's pixel list and queues its copy to the device.
func (l *cudaLane) copyIn() error {
	copy(unsafe.Slice((*uint32)(l.stagePixels()), 2*l.n), l.goPixels)
	if err := cu.MemcpyHtoDAsync(l.pixels, l.stagePixels(), int64(8*l.n), l.stream); err != nil {
		return l.wrap(fmt.Errorf("copying the pixel list in: %w", err))
	}
	return nil
}

// copyOut queues the copies of the lane's results into its staging,
// after its launches.
func (l *cudaLane) copyOut() error {
	if err := cu.MemcpyDtoHAsync(l.stageOut(), l.out, int64(12*l.n), l.stream); err != nil {
		return fmt.Errorf("copying the radiance out: %w", err)
	}
	if err := cu.MemcpyDtoHAsync(l.stageRays(), l.rays, int64(8*l.n), l.stream); err != nil {
		return fmt.Errorf("copying the ray counts out: %w", err)
	}
	if err := cu.MemcpyDtoHAsync(l.stageNonf(), l.nonfinite, int64(8*l.n), l.stream); err != nil {
		return fmt.Errorf("copying the non-finite counts out: %w", err)
	}
	return nil
}

// collect waits for the lane's stream, then copies its results from the
// staging into the Go slices; what it waited for is named by what.
func (l *cudaLane) collect(what string) error {
	if err := l.stream.Synchronize(); err != nil {
		return l.wrap(fmt.Errorf("running %s on %d pixels: %w", what, l.n, err))
	}
	if l.timer != nil {
		if err := l.timer.read(l); err != nil {
			return l.wrap(err)
		}
	}
	copy(l.goOut, unsafe.Slice((*float32)(l.stageOut()), 3*l.n))
	copy(l.goRays, unsafe.Slice((*uint64)(l.stageRays()), l.n))
	copy(l.goNonf, unsafe.Slice((*uint64)(l.stageNonf()), l.n))
	return nil
}

// launchMega launches the megakernel fn over the lane's part of the
// batch, in blocks of block, with threads threads at most (0: a thread an
// item): the threads take the part's other items (its pixels, or split,
// their parts) from the lane's counter as theirs end, which starts at the
// threads launched; a split batch's pixels are then summed by reduce.
func (l *cudaLane) launchMega(fn cu.Function, name string, reduce cu.Function, hdr cu.DevicePtr, threads, block int) error {
	items := l.items()
	if threads <= 0 || threads > items {
		threads = items
	}
	l.stageCounts()[0] = uint32(threads)
	if err := cu.MemcpyHtoDAsync(l.next, unsafe.Pointer(&l.stageCounts()[0]), 4, l.stream); err != nil {
		return fmt.Errorf("setting the pixel counter: %w", err)
	}
	// The driver takes the low 4 bytes of npixels and parts, little-endian u32s.
	args := []uint64{uint64(hdr), uint64(l.pixels), uint64(uint32(l.n)), uint64(l.out), uint64(l.rays), uint64(l.nonfinite), uint64(l.next), uint64(uint32(max(l.parts, 1)))}
	if err := l.launch(fn, name, threads, block, args); err != nil || l.parts <= 1 {
		return err
	}
	return l.launch(reduce, cudaKernelReduce, l.n, block, args)
}

// launch launches fn with args (one 8-byte slot each: gorgonia.org/cu
// copies 8 bytes behind each argument pointer) over threads threads in
// blocks of block, on the lane's stream; name is fn's entry point, and
// the launch is timed when the device times its launches.
func (l *cudaLane) launch(fn cu.Function, name string, threads, block int, args []uint64) error {
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	grid := (threads + block - 1) / block
	if l.timer != nil {
		if err := l.timer.begin(l, name); err != nil {
			return err
		}
	}
	if err := fn.Launch(grid, 1, 1, block, 1, 1, 0, l.stream, params); err != nil {
		return fmt.Errorf("launching %s on %d pixels (%d blocks of %d): %w", name, threads, grid, block, err)
	}
	if l.timer != nil {
		return l.timer.end(l)
	}
	return nil
}

// cudaWave is Wavefront on one lane of a device, on the device
// goroutine: the launches and copies go in order on the lane's stream.
type cudaWave struct {
	d *cudaDevice
	l *cudaLane
}

// Launch implements Wavefront: one launch of ⌈threads/block⌉ blocks
// over the lane's queues: wf_init fills queue 0; wf_shade works through
// the queue filled last and fills the other, whose counts are cleared on
// the stream first. After wf_finish, the lane's results are queued to be
// copied out too, so that they travel while the other lanes trace.
func (w cudaWave) Launch(e WaveEntry, threads int) error {
	d, l := w.d, w.l
	items := l.items()
	if threads < 0 || threads > items {
		return fmt.Errorf("%v over %d threads, the lane holds %d slots", e, threads, items)
	}
	qin, qout := l.queue(l.cur), l.queue(1-l.cur)
	switch e {
	case WaveInit:
		l.cur = 0
		qin, qout = l.queue(1), l.queue(0)
	case WaveShade:
		if err := cu.MemcpyHtoDAsync(qout, unsafe.Pointer(&l.stageCounts()[2]), 8, l.stream); err != nil {
			return fmt.Errorf("clearing the wavefront's queue: %w", err)
		}
		l.cur = 1 - l.cur
	}
	args := []uint64{uint64(d.hdr), uint64(l.pixels), uint64(uint32(items)), uint64(l.slots), uint64(qin), uint64(qout),
		uint64(l.out), uint64(l.rays), uint64(l.nonfinite), uint64(uint32(max(l.parts, 1)))}
	if err := l.launch(d.wave[e], e.String(), threads, d.block, args); err != nil {
		return err
	}
	if e == WaveFinish {
		return l.copyOut()
	}
	return nil
}

// TakeQueries implements Wavefront: it waits for the lane's launches so
// far (its stream only) and reads the counts of the queue the last
// wf_shade filled, through the staging.
func (w cudaWave) TakeQueries() (Queries, error) {
	l := w.l
	counts := l.stageCounts()
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&counts[0]), l.queue(l.cur), 8, l.stream); err != nil {
		return Queries{}, fmt.Errorf("reading the wavefront's queue: %w", err)
	}
	if err := l.stream.Synchronize(); err != nil {
		return Queries{}, fmt.Errorf("waiting for the lane's launches: %w", err)
	}
	if l.timer != nil {
		if err := l.timer.read(l); err != nil {
			return Queries{}, err
		}
	}
	return Queries{Closest: int(counts[0]), Any: int(counts[1])}, nil
}
