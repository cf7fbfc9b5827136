//go:build cuda

package kernels

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"
	"weak"

	"github.com/tracerender/trace/tracer"
	"gorgonia.org/cu"
)

// The cuda build: a Device on a CUDA GPU through gorgonia.org/cu. Only
// files with the cuda build tag import gorgonia.org/cu, whose package init
// calls cuInit and exits the process if the driver is missing or has no
// device, and which links against libcuda.

const (
	// cudaKernelPath and cudaKernelWhitted are the entry points in PTX
	// (trace.cu) for scenes of each integrator: trace_pixels with the
	// integrator fixed, so that each holds one integrator's registers and
	// stack only.
	cudaKernelPath    = "trace_pixels_path"
	cudaKernelWhitted = "trace_pixels_whitted"
	// cudaKernelReduce sums the sample values of a batch split into
	// parts after the megakernels (trace.cu; the wavefront's wf_finish
	// does it there).
	cudaKernelReduce = "trace_reduce"
	// cudaBlockDim is the threads per block of a launch, unless the loaded
	// function allows fewer. The kernel works with any block size.
	cudaBlockDim = 128
	// cudaStackBytes is the per-thread stack the device is given at least:
	// the kernel's calls and local arrays (the BVH and Whitted stacks) need
	// about 4 KB (trace.cu).
	cudaStackBytes = 8 << 10
	// cudaBatchGrain rounds the per-launch buffers up, so that batches of
	// varying size reuse them.
	cudaBatchGrain = 1 << 16
	// minComputeMajor is the oldest GPU generation the PTX (sm_80) runs on.
	minComputeMajor = 8
)

// cudaKernels are the entries by integrator: path, then Whitted.
var cudaKernels = [2]string{cudaKernelPath, cudaKernelWhitted}

// cudaProbed is a scene's choice of kernel (KernelAuto).
type cudaProbed struct {
	scene   weak.Pointer[Packed]
	useWave bool
	probe   KernelProbe
}

// cudaInfo describes one device the driver reports.
type cudaInfo struct {
	ordinal      int
	name         string
	major, minor int
	memory       int64
}

func (i cudaInfo) usable() bool { return i.major >= minComputeMajor }

func (i cudaInfo) String() string {
	s := fmt.Sprintf("gpu%d %s (sm_%d%d, %.0f GiB)", i.ordinal, i.name, i.major, i.minor, float64(i.memory)/(1<<30))
	if !i.usable() {
		s += " unusable: the kernel needs sm_80 or later"
	}
	return s
}

// cudaDevices lists the devices the driver reports.
func cudaDevices() ([]cudaInfo, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("CUDA: counting devices: %w", err)
	}
	infos := make([]cudaInfo, 0, n)
	for i := 0; i < n; i++ {
		dev, err := cu.GetDevice(i)
		if err != nil {
			return nil, fmt.Errorf("CUDA device %d: %w", i, err)
		}
		info := cudaInfo{ordinal: i}
		if info.name, err = dev.Name(); err != nil {
			return nil, fmt.Errorf("CUDA device %d: name: %w", i, err)
		}
		if info.major, info.minor, err = dev.ComputeCapability(); err != nil {
			return nil, fmt.Errorf("CUDA device %d: compute capability: %w", i, err)
		}
		if info.memory, err = dev.TotalMem(); err != nil {
			return nil, fmt.Errorf("CUDA device %d: memory: %w", i, err)
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// cudaSettings are what the environment asks of the cuda build's devices.
type cudaSettings struct {
	kernel Kernel  // KernelEnv
	lanes  int     // LanesEnv
	parts  int     // PartsEnv: 0 auto
	times  bool    // TimesEnv
	regs   RegCaps // RegsEnv
	ptx    string  // PTX (or PTXEnv's file) with regs' caps
}

// cudaSettingsFromEnv reads the settings, failing on any value it does
// not know.
func cudaSettingsFromEnv() (cudaSettings, error) {
	var set cudaSettings
	var err error
	if set.kernel, err = ParseKernel(os.Getenv(KernelEnv)); err != nil {
		return set, err
	}
	if set.lanes, err = ParseLanes(os.Getenv(LanesEnv)); err != nil {
		return set, err
	}
	if set.parts, err = ParsePartsEnv(os.Getenv(PartsEnv)); err != nil {
		return set, err
	}
	if set.times, err = ParseTimes(os.Getenv(TimesEnv)); err != nil {
		return set, err
	}
	if set.regs, err = ParseRegs(os.Getenv(RegsEnv)); err != nil {
		return set, err
	}
	ptx, err := KernelPTX(os.Getenv(PTXEnv))
	if err != nil {
		return set, err
	}
	set.ptx, err = CapRegisters(ptx, set.regs)
	return set, err
}

// openDevices is OpenDevices in the cuda build.
func openDevices(n int) ([]Device, error) {
	set, err := cudaSettingsFromEnv()
	if err != nil {
		return nil, err
	}
	infos, err := cudaDevices()
	if err != nil {
		return nil, err
	}
	var usable []cudaInfo
	var found []string
	for _, info := range infos {
		found = append(found, info.String())
		if info.usable() {
			usable = append(usable, info)
		}
	}
	v := cu.Version()
	driver := fmt.Sprintf("CUDA driver %d.%d", v/1000, v%1000/10)
	if len(usable) < n {
		if len(infos) == 0 {
			return nil, fmt.Errorf("%w: asked for %d, found none (no CUDA device; %s)", ErrTooFewDevices, n, driver)
		}
		return nil, fmt.Errorf("%w: asked for %d, found %d usable (%s): %s", ErrTooFewDevices, n, len(usable), driver, strings.Join(found, "; "))
	}
	devs := make([]Device, 0, n)
	for _, info := range usable[:n] {
		d, err := openCUDADevice(info, set)
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// cudaDevice is a Device on one CUDA GPU. Every driver call runs on the
// device's own goroutine, locked to its OS thread, on which the device's
// primary context is current: the methods hand it closures and wait for
// them, so the Device may be used from any goroutine (one at a time).
type cudaDevice struct {
	name   string
	calls  chan func()
	exited chan struct{}

	// Owned by the device goroutine.
	dev cu.Device
	ctx cu.CUContext
	// mods are the modules of each Kernel's entries (KernelWavefront's
	// five, KernelMegakernel's two), each loaded when first used (load;
	// KernelAuto loads both).
	mods   [2]cu.Module
	fns    [2]cu.Function // by integrator: cudaKernelPath, cudaKernelWhitted
	fn     cu.Function    // the uploaded scene's entry
	reduce cu.Function    // cudaKernelReduce, in the megakernels' module
	kernel string         // its name
	// fnThreads is a full wave of fn's threads (cudaWaveThreads), the
	// most a megakernel launch has (0: a thread a pixel); the threads
	// take the batch's other pixels as theirs end (trace.cu).
	fnThreads int
	// splitItems are the items a batch of the uploaded scene is split
	// to hold on the megakernels and on the wavefront (SampleParts):
	// MinBatchWaves full waves of fn and of wf_intersect; 0: unsplit.
	// parts is PartsEnv's setting (0: auto).
	splitItems [2]int
	parts      int
	wave       [len(WaveEntries)]cu.Function
	// useWave: the uploaded scene runs on the wavefront entries
	// (RunWavefront), scenes of either integrator, when TRACE_GPU_KERNEL
	// says wavefront or KernelAuto chose it; else on fn,
	// trace_pixels_path or trace_pixels_whitted.
	useWave bool
	choice  Kernel // TRACE_GPU_KERNEL
	// chosen: useWave is the uploaded scene's kernel for good; not yet
	// with KernelAuto until a batch holds 2 × ProbePixels (probeWave: the
	// larger of the scene's kernels' full waves), which probe splits.
	chosen    bool
	probeWave int
	// scene is the uploaded Packed, and probed the choices of the last
	// scenes probed, newest at probedNext-1, so that a scene uploaded
	// again (a worker's jobs take turns on a device) keeps its kernel;
	// weak, they keep no scene in memory.
	packed     weak.Pointer[Packed]
	probed     [4]cudaProbed
	probedNext int
	// said is KernelChoice's answer, under saidMu (read from other
	// goroutines); saidOK once a scene is uploaded.
	saidMu sync.Mutex
	said   KernelChoice
	saidOK bool
	ptx    string         // the kernel it loads: PTX, with TRACE_GPU_REGS's caps
	header TraceScene     // the uploaded scene's header, for WaveRounds
	block  int            // threads per block
	scene  []cu.DevicePtr // the uploaded scene's arrays and header
	hdr    cu.DevicePtr   // the TraceScene header, in device memory
	// lanes split each batch: a stream, device buffers and page-locked
	// staging each (cuda_lane.go).
	lanes  [DefaultLanes]cudaLane
	nlanes int // how many of them a batch uses (TRACE_GPU_LANES)
	// timer is the kernel times (TRACE_GPU_TIMES, cuda_times.go), or nil.
	timer *cudaTimer
	// ctl is the stream of the copies that set the header's Stop word, to
	// cancel a megakernel batch in flight (stopLaunches), and clear it
	// (clearStop); stopWords is page-locked memory holding the words they
	// copy, 1 and 0. stopSet says the uploaded header's Stop is or may be
	// set.
	ctl       cu.Stream
	stopWords unsafe.Pointer
	stopSet   bool
	closed    bool

	batchPixels int // BatchPixels' answer, set by setup (cuda_batch.go)
	// items counts the items of the batch in flight, for its times.
	items int64
}

var _ Device = (*cudaDevice)(nil)

// openCUDADevice starts the goroutine of a device and sets the device up
// on it: the primary context, the stack size, the kernel from set.ptx, a
// stream per lane; set.times says whether it times its launches.
func openCUDADevice(info cudaInfo, set cudaSettings) (*cudaDevice, error) {
	d := &cudaDevice{
		choice: set.kernel,
		parts:  set.parts,
		ptx:    set.ptx,
		nlanes: set.lanes,
		name:   fmt.Sprintf("gpu%d %s", info.ordinal, info.name),
		calls:  make(chan func()),
		exited: make(chan struct{}),
	}
	if set.times {
		d.timer = newCUDATimer(d.name, set.lanes, set.regs)
	}
	ready := make(chan error, 1)
	go d.loop(info.ordinal, ready)
	if err := <-ready; err != nil {
		<-d.exited
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	return d, nil
}

// loop is the device goroutine: it sets the device up, reports to ready,
// then runs the calls until Close closes the channel. The goroutine keeps
// its OS thread locked to the end, so the thread exits with it. Only
// stopLaunches, while this goroutine waits for a batch, makes the
// context current on another thread, for one copy.
func (d *cudaDevice) loop(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	defer close(d.exited)
	err := d.setup(ordinal)
	if err != nil {
		d.release()
		ready <- err
		return
	}
	ready <- nil
	for f := range d.calls {
		f()
	}
	d.release()
}

// setup runs on the device goroutine.
func (d *cudaDevice) setup(ordinal int) error {
	var err error
	if d.dev, err = cu.GetDevice(ordinal); err != nil {
		return err
	}
	if d.ctx, err = d.dev.RetainPrimaryCtx(); err != nil {
		return fmt.Errorf("retaining the primary context: %w", err)
	}
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("making the primary context current: %w", err)
	}
	if stack, err := cu.Limits(cu.StackSize); err == nil && stack < cudaStackBytes {
		if err := cu.SetLimit(cu.StackSize, cudaStackBytes); err != nil {
			return fmt.Errorf("setting the stack to %d bytes per thread: %w", cudaStackBytes, err)
		}
	}
	d.block = cudaBlockDim
	if err := d.load(d.choice, true); err != nil {
		return err
	}
	// The wavefront's batches fill the device for its ray queries
	// (wf_intersect), the megakernel's for its entries; a device that
	// chooses, for all three.
	fill := []cu.Function{d.wave[WaveIntersect]}
	switch d.choice {
	case KernelMegakernel:
		fill = d.fns[:]
	case KernelAuto:
		fill = []cu.Function{d.fns[0], d.fns[1], d.wave[WaveIntersect]}
	}
	d.batchPixels = cudaBatchPixels(d.dev, fill, d.block)
	for i := range d.lanes {
		l := &d.lanes[i]
		l.index, l.of, l.timer = i, d.nlanes, d.timer
		if l.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("creating stream %d of %d: %w", i+1, len(d.lanes), err)
		}
	}
	if d.ctl, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return fmt.Errorf("creating the control stream: %w", err)
	}
	if d.stopWords, err = cudaHostAlloc(8); err != nil {
		return fmt.Errorf("allocating page-locked host memory for the stop word: %w", err)
	}
	*(*[2]uint32)(d.stopWords) = [2]uint32{1, 0}
	return nil
}

// load loads the module of kernel k's entries unless it is loaded: the
// PTX with those entries only (SelectEntries), so that the driver
// compiles none the device does not launch (the JIT of the whole PTX
// takes three times as long as the wavefront's). At setup a function that
// allows fewer threads a block than d.block lowers it; later, when
// batches have been sized by it, it is an error. It runs on the device
// goroutine.
func (d *cudaDevice) load(k Kernel, setup bool) error {
	if k == KernelAuto {
		if err := d.load(KernelMegakernel, setup); err != nil {
			return err
		}
		return d.load(KernelWavefront, setup)
	}
	if d.mods[k] != (cu.Module{}) {
		return nil
	}
	entries, fns := WaveEntries[:], d.wave[:]
	var mega [len(cudaKernels) + 1]cu.Function
	if k == KernelMegakernel {
		entries, fns = append(cudaKernels[:], cudaKernelReduce), mega[:]
	}
	ptx, err := SelectEntries(d.ptx, entries)
	if err != nil {
		return err
	}
	mod, err := loadPTX(ptx)
	if err != nil {
		return err
	}
	for i, name := range entries {
		if fns[i], err = mod.Function(name); err != nil {
			mod.Unload()
			return fmt.Errorf("kernel %s: %w", name, err)
		}
		if most, err := fns[i].Attribute(cu.FnMaxThreadsPerBlock); err == nil && most > 0 && most < d.block {
			if !setup {
				mod.Unload()
				return fmt.Errorf("kernel %s: at most %d threads a block, where the device launches %d", name, most, d.block)
			}
			d.block = most
		}
	}
	if k == KernelMegakernel {
		copy(d.fns[:], mega[:])
		d.reduce = mega[len(cudaKernels)]
	}
	d.mods[k] = mod
	return nil
}

// loadPTX loads ptx into the current context, the driver compiling it for
// the device; a failure carries the compiler's log.
func loadPTX(ptx string) (cu.Module, error) {
	log := make([]byte, 64<<10)
	// The driver writes the log into Go memory during the call; the pin
	// lets the buffer's address pass through cgo.
	var pin runtime.Pinner
	pin.Pin(&log[0])
	defer pin.Unpin()
	mod, err := cu.LoadDataEx(ptx, &cu.JITErrorLogBuffer{Buffer: log})
	if err != nil {
		if i := bytes.IndexByte(log, 0); i >= 0 {
			log = log[:i]
		}
		msg := strings.TrimSpace(string(log))
		if msg == "" {
			msg = "no log"
		}
		return mod, fmt.Errorf("loading the kernel's PTX: %w: %s", err, msg)
	}
	return mod, nil
}

// do runs f on the device goroutine and returns its error. It gives up
// waiting for its turn when ctx is done, but once f runs it runs to the
// end: a kernel launch cannot be abandoned halfway.
func (d *cudaDevice) do(ctx context.Context, f func() error) error {
	errc := make(chan error, 1)
	call := func() { errc <- f() }
	select {
	case d.calls <- call:
	case <-ctx.Done():
		return ctx.Err()
	case <-d.exited:
		return fmt.Errorf("%s: closed", d.name)
	}
	return <-errc
}

// Name implements Device.
func (d *cudaDevice) Name() string { return d.name }

// Upload implements Device: it copies the scene's arrays to device memory,
// then the header with their device addresses filled in, freeing the
// previous scene first.
func (d *cudaDevice) Upload(ctx context.Context, p *Packed) error {
	err := d.do(ctx, func() error {
		d.freeScene()
		d.saidMu.Lock()
		d.saidOK = false // no scene until this one is up
		d.saidMu.Unlock()
		h := p.Scene
		addrs := h.Addrs()
		for i, a := range p.Arrays() {
			*addrs[i] = 0
			if len(a.Bytes) == 0 {
				continue
			}
			ptr, err := d.copyIn(a.Bytes)
			if err != nil {
				d.freeScene()
				return fmt.Errorf("uploading %s (%d bytes): %w", a.Name, len(a.Bytes), err)
			}
			*addrs[i] = uint64(ptr)
		}
		ptr, err := d.copyIn(h.Bytes())
		if err != nil {
			d.freeScene()
			return fmt.Errorf("uploading the scene header: %w", err)
		}
		d.hdr = ptr
		// A copy from pageable memory may return before its bytes
		// reach the device, and the lanes' streams, which do not
		// wait for the legacy stream, could launch before: wait.
		if err := cu.Synchronize(); err != nil {
			d.freeScene()
			return fmt.Errorf("uploading the scene: %w", err)
		}
		// The scene's entries, if the device has not loaded them (a
		// test may change d.choice).
		if err := d.load(d.choice, false); err != nil {
			d.freeScene()
			return err
		}
		// Pack accepts only the two integrators.
		i := 0
		if h.Integrator == uint32(tracer.IntegratorWhitted) {
			i = 1
		}
		d.fn, d.kernel = d.fns[i], cudaKernels[i]
		d.fnThreads = cudaWaveThreads(d.dev, d.fn, d.block)
		d.splitItems = [2]int{MinBatchWaves * d.fnThreads, 0}
		if d.mods[KernelWavefront] != (cu.Module{}) {
			d.splitItems[1] = MinBatchWaves * cudaWaveThreads(d.dev, d.wave[WaveIntersect], d.block)
		}
		d.header = h
		d.stopSet = h.Stop != 0
		// A device that chooses runs the megakernels until a batch is
		// large enough to time both (TracePixels).
		d.useWave = d.choice == KernelWavefront
		d.chosen = d.choice != KernelAuto
		d.probeWave = 0
		d.packed = weak.Make(p)
		if !d.chosen {
			d.probeWave = max(d.fnThreads, cudaWaveThreads(d.dev, d.wave[WaveIntersect], d.block))
			for _, c := range d.probed {
				if c.scene == d.packed && c.scene.Value() != nil {
					d.useWave, d.chosen = c.useWave, true
					d.say(c.probe, true)
					return nil
				}
			}
		}
		d.say(KernelProbe{}, false)
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	return err
}

// copyIn copies b to new device memory, owned by the scene.
func (d *cudaDevice) copyIn(b []byte) (cu.DevicePtr, error) {
	ptr, err := cu.MemAlloc(int64(len(b)))
	if err != nil {
		return 0, err
	}
	d.scene = append(d.scene, ptr)
	if err := cu.MemcpyHtoD(ptr, unsafe.Pointer(unsafe.SliceData(b)), int64(len(b))); err != nil {
		return 0, err
	}
	return ptr, nil
}

// TracePixels implements Device. The batch is split between the
// device's lanes (LaneSizes, in whole blocks but for the last lane), each
// pixel list staged in its lane's page-locked memory and copied in on the
// lane's stream; then the lanes run the wavefront together
// (RunWavefronts: the rounds interleave, each lane's results copied out as
// soon as its wf_finish is queued) or the megakernel, one launch of
// ⌈n/block⌉ blocks per lane; then each lane's results are copied from its
// staging into out, rays and nonfinite once its stream has run.
func (d *cudaDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	n := len(pixels) / 2
	switch {
	case len(pixels)%2 != 0:
		return fmt.Errorf("%s: odd pixel list length %d", d.name, len(pixels))
	case len(out) < 3*n || len(rays) < n || len(nonfinite) < n:
		return fmt.Errorf("%s: %d pixels, output for %d, %d and %d", d.name, n, len(out)/3, len(rays), len(nonfinite))
	case n > 1<<30:
		return fmt.Errorf("%s: %d pixels in one launch", d.name, n)
	case n == 0:
		return ctx.Err()
	}
	err := d.do(ctx, func() error {
		if d.hdr == 0 {
			return errors.New("no scene uploaded")
		}
		start := time.Now()
		d.items = 0
		var err error
		if d.chosen {
			err = d.traceOn(ctx, d.useWave, pixels, out, rays, nonfinite)
		} else {
			err = d.probe(ctx, pixels, out, rays, nonfinite)
		}
		if err != nil {
			return err
		}
		if d.timer != nil {
			d.timer.batch(n, d.items, time.Since(start))
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	return err
}

// traceOn renders pixels on the wavefront (useWave) or the megakernels,
// on the device goroutine.
func (d *cudaDevice) traceOn(ctx context.Context, useWave bool, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	defer func() {
		for i := range d.lanes {
			d.lanes[i].unbind()
		}
	}()
	if err := d.bindLanes(useWave, pixels, out, rays, nonfinite); err != nil {
		return err
	}
	if err := d.runLanes(ctx, useWave, len(pixels)/2); err != nil {
		// Nothing may still run into the staging or the buffers when
		// the next batch comes.
		d.drain()
		return err
	}
	return nil
}

// probe renders a batch of a scene whose kernel is not chosen yet
// (KernelAuto), on the device goroutine: on the megakernels if it is too
// small to choose on (ProbePixels, and split into parts ProbeSplitPixels);
// else those of its first pixels on each kernel, in alternate runs, each
// part timed, then the rest on
// the faster, which the scene's later batches keep, and its next uploads
// (of the same Packed) too. A failed or cancelled probe chooses nothing.
func (d *cudaDevice) probe(ctx context.Context, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	n := len(pixels) / 2
	m := ProbePixels(n, d.probeWave)
	p := KernelProbe{Pixels: m}
	if m == 0 {
		// Too few pixels, but perhaps enough items once split: half
		// the batch on each kernel, in parts.
		half := n / 2 / ProbeRun * ProbeRun
		parts := BatchParts(d.parts, half, d.header.SplitSamples(), 2*d.probeWave)
		if m = ProbeSplitPixels(n, parts, d.probeWave); m == 0 {
			return d.traceOn(ctx, false, pixels, out, rays, nonfinite)
		}
		p = KernelProbe{Pixels: m, Split: true}
	}
	part := struct {
		pixels     []uint32
		out        []float32
		rays, nonf []uint64
	}{make([]uint32, 2*m), make([]float32, 3*m), make([]uint64, m), make([]uint64, m)}
	for side, k := range []Kernel{KernelMegakernel, KernelWavefront} {
		probeCopy(pixels, part.pixels, 2, m, side, true)
		start := time.Now()
		if err := d.traceOn(ctx, k == KernelWavefront, part.pixels, part.out, part.rays, part.nonf); err != nil {
			return err
		}
		p.Time[k] = time.Since(start)
		for _, r := range part.rays {
			p.Rays[k] += r
		}
		probeCopy(out, part.out, 3, m, side, false)
		probeCopy(rays, part.rays, 1, m, side, false)
		probeCopy(nonfinite, part.nonf, 1, m, side, false)
	}
	d.useWave, d.chosen = p.Faster() == KernelWavefront, true
	d.say(p, true)
	d.probed[d.probedNext] = cudaProbed{scene: d.packed, useWave: d.useWave, probe: p}
	d.probedNext = (d.probedNext + 1) % len(d.probed)
	if 2*m == n {
		return nil
	}
	return d.traceOn(ctx, d.useWave, pixels[4*m:], out[6*m:], rays[2*m:], nonfinite[2*m:])
}

// say sets KernelChoice's answer for the uploaded scene.
func (d *cudaDevice) say(p KernelProbe, probed bool) {
	k := KernelMegakernel
	if d.useWave {
		k = KernelWavefront
	}
	d.saidMu.Lock()
	defer d.saidMu.Unlock()
	d.said = KernelChoice{Device: d.name, Set: d.choice, Kernel: k, Probed: probed, Probe: p}
	d.saidOK = true
}

var _ KernelChooser = (*cudaDevice)(nil)

// KernelChoice implements KernelChooser.
func (d *cudaDevice) KernelChoice() (KernelChoice, bool) {
	d.saidMu.Lock()
	defer d.saidMu.Unlock()
	return d.said, d.saidOK
}

// kernelName is the name of the uploaded scene's kernel in errors: its
// megakernel entry, or the wavefront.
func (d *cudaDevice) kernelName(useWave bool) string {
	if useWave {
		return "the wavefront"
	}
	return d.kernel
}

// bindLanes splits a batch between the lanes and makes their buffers hold
// their parts for the wavefront (useWave) or the megakernels, on the
// device goroutine.
func (d *cudaDevice) bindLanes(useWave bool, pixels []uint32, out []float32, rays, nonfinite []uint64) error {
	slotBytes, target := 0, d.splitItems[0]
	if useWave {
		slotBytes, target = SlotBytes(d.header.Integrator), d.splitItems[1]
	}
	// A batch too small to fill the device has its pixels' samples
	// split into parts, each lane's its own (trace.cu).
	samples := int(int32(d.header.Samples))
	// Never under adaptive sampling (SplitSamples).
	parts := BatchParts(d.parts, len(pixels)/2, d.header.SplitSamples(), target)
	sizes := LaneSizes(len(pixels)/2, d.nlanes, d.block) // lanes past nlanes stay empty
	lo := 0
	for i, size := range sizes {
		l := &d.lanes[i]
		if size == 0 {
			continue
		}
		if err := l.reserve(size, size*parts, SplitOutFloats(size, samples, parts), slotBytes); err != nil {
			return l.wrap(err)
		}
		hi := lo + size
		l.bind(pixels[2*lo:2*hi], out[3*lo:3*hi], rays[lo:hi], nonfinite[lo:hi])
		l.parts = parts
		d.items += int64(l.items())
		lo = hi
	}
	return nil
}

// runLanes renders the bound lanes' parts of a batch of n pixels on the
// wavefront (useWave) or the megakernels, on the device goroutine.
func (d *cudaDevice) runLanes(ctx context.Context, useWave bool, n int) error {
	var bound []*cudaLane
	for i := range d.lanes {
		if l := &d.lanes[i]; l.n > 0 {
			bound = append(bound, l)
		}
	}
	for _, l := range bound {
		if err := l.copyIn(); err != nil {
			return err
		}
	}
	if useWave {
		waves := make([]Wavefront, d.nlanes)
		ns := make([]int, d.nlanes)
		for i := range d.nlanes {
			waves[i], ns[i] = cudaWave{d, &d.lanes[i]}, d.lanes[i].items()
		}
		if err := RunWavefronts(ctx, waves, ns, &d.header); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("running the wavefront on %d pixels: %w", n, err)
		}
	} else {
		// Once launched, a megakernel batch runs until its threads
		// have rendered their pixels, seconds at high sample counts; a
		// cancelled one ends at its threads' next sample instead: the
		// header's Stop word is set from another thread (stopLaunches)
		// while this one waits for the lanes, and the batch is dropped.
		if err := d.clearStop(); err != nil {
			return err
		}
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(fired)
			d.stopLaunches()
		})
		defer func() {
			if !stop() {
				<-fired // the Stop word reached the device
				d.stopSet = true
			}
		}()
		for _, l := range bound {
			if err := l.launchMega(d.fn, d.kernel, d.reduce, d.hdr, d.fnThreads, d.block); err != nil {
				return l.wrap(err)
			}
			if err := l.copyOut(); err != nil {
				return l.wrap(err)
			}
		}
	}
	for _, l := range bound {
		if err := l.collect(d.kernelName(useWave)); err != nil {
			return err
		}
	}
	if !useWave {
		// The batch may have been stopped part-way (its context
		// was done): its pixels may be unfinished.
		return ctx.Err()
	}
	return nil
}

// stopAddr is the device address of the uploaded header's Stop word.
func (d *cudaDevice) stopAddr() cu.DevicePtr {
	return d.hdr + cu.DevicePtr(unsafe.Offsetof(d.header.Stop))
}

// clearStop clears the uploaded header's Stop word if a cancelled batch
// set it, on the device goroutine with no launch in flight. The copy is
// from page-locked memory on the control stream, which it waits for: a
// copy from pageable memory may return before its bytes reach the
// device, and the lanes' streams would not wait for it.
func (d *cudaDevice) clearStop() error {
	if !d.stopSet {
		return nil
	}
	if err := cu.MemcpyHtoDAsync(d.stopAddr(), unsafe.Add(d.stopWords, 4), 4, d.ctl); err != nil {
		return fmt.Errorf("clearing the scene's stop word: %w", err)
	}
	if err := d.ctl.Synchronize(); err != nil {
		return fmt.Errorf("clearing the scene's stop word: %w", err)
	}
	d.stopSet = false
	return nil
}

// stopLaunches sets the uploaded header's Stop word in device memory, so
// that the megakernel launches in flight end at their threads' next
// sample (stop_asked, trace.cu). It runs on a goroutine of its own,
// while the device goroutine waits for the lanes' streams: it makes the
// primary context current on its thread and copies the word on the
// control stream, which, as the lanes' streams, waits for no other, and
// returns when the copy has reached the device. If the copy fails, the
// batch runs to its end, as it would without it.
func (d *cudaDevice) stopLaunches() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cu.SetCurrentContext(d.ctx) != nil {
		return
	}
	defer cu.SetCurrentContext(cu.CUContext{})
	if cu.MemcpyHtoDAsync(d.stopAddr(), d.stopWords, 4, d.ctl) == nil {
		d.ctl.Synchronize()
	}
}

// drain waits for every lane's stream, ignoring their errors: after a
// failed batch, so that nothing queued still reads or writes a lane's
// buffers or staging. The launches' times are dropped unread.
func (d *cudaDevice) drain() {
	for i := range d.lanes {
		l := &d.lanes[i]
		if l.stream != (cu.Stream{}) {
			l.stream.Synchronize()
		}
		if d.timer != nil {
			d.timer.drop(l)
		}
	}
}

func (d *cudaDevice) freeScene() {
	for _, p := range d.scene {
		cu.MemFree(p)
	}
	d.scene, d.hdr = nil, 0
}

// release frees everything the device holds, on the device goroutine.
func (d *cudaDevice) release() {
	if d.ctx == (cu.CUContext{}) {
		return
	}
	d.drain()
	if d.timer != nil {
		d.timer.release()
	}
	d.freeScene()
	for i := range d.lanes {
		l := &d.lanes[i]
		l.free()
		if l.stream != (cu.Stream{}) {
			l.stream.Destroy()
		}
	}
	if d.ctl != (cu.Stream{}) {
		d.ctl.Destroy()
	}
	if d.stopWords != nil {
		cu.MemFreeHost(d.stopWords)
	}
	for i, mod := range d.mods {
		if mod != (cu.Module{}) {
			mod.Unload()
			d.mods[i] = cu.Module{}
		}
	}
	d.dev.ReleasePrimaryCtx()
	d.ctx = cu.CUContext{}
}

// Close implements Device: it frees the device's memory, releases its
// context and ends its goroutine. Closing twice is harmless.
func (d *cudaDevice) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	close(d.calls)
	<-d.exited
	return nil
}
