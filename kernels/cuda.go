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
	"unsafe"

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

// openDevices is OpenDevices in the cuda build.
func openDevices(n int) ([]Device, error) {
	kernel, err := ParseKernel(os.Getenv(KernelEnv))
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
		d, err := openCUDADevice(info, kernel)
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
	dev    cu.Device
	ctx    cu.CUContext
	mod    cu.Module
	fns    [2]cu.Function // by integrator: cudaKernelPath, cudaKernelWhitted
	fn     cu.Function    // the uploaded scene's entry
	kernel string         // its name
	wave   [len(WaveEntries)]cu.Function
	// useWave: the uploaded scene runs on the wavefront entries
	// (RunWavefront), scenes of either integrator unless TRACE_GPU_KERNEL
	// says megakernel (then fn, trace_pixels_path or
	// trace_pixels_whitted).
	useWave bool
	choice  Kernel     // TRACE_GPU_KERNEL
	header  TraceScene // the uploaded scene's header, for WaveRounds
	flag    *[2]uint32 // the flags word read back, and the 0 that clears it (its own allocation: no Go pointers in it, for cgo)
	stream  cu.Stream
	block   int            // threads per block
	scene   []cu.DevicePtr // the uploaded scene's arrays and header
	hdr     cu.DevicePtr   // the TraceScene header, in device memory
	batch   cudaBatch      // the per-launch buffers
	closed  bool

	batchPixels int // BatchPixels' answer, set by setup (cuda_batch.go)
}

// cudaBatch holds the device buffers of one launch, for up to cap pixels:
// the wavefront's slots, slotBytes apart (none for the megakernel), and
// its flags word too.
type cudaBatch struct {
	cap, slotBytes               int
	pixels, out, rays, nonfinite cu.DevicePtr
	slots, flags                 cu.DevicePtr
}

var _ Device = (*cudaDevice)(nil)

// openCUDADevice starts the goroutine of a device and sets the device up
// on it: the primary context, the stack size, the kernel from PTX, a
// stream.
func openCUDADevice(info cudaInfo, kernel Kernel) (*cudaDevice, error) {
	d := &cudaDevice{
		choice: kernel,
		flag:   new([2]uint32),
		name:   fmt.Sprintf("gpu%d %s", info.ordinal, info.name),
		calls:  make(chan func()),
		exited: make(chan struct{}),
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
// its OS thread locked to the end, so the thread exits with it and no
// other goroutine ever runs with the context current.
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
	if d.mod, err = loadPTX(PTX); err != nil {
		return err
	}
	d.block = cudaBlockDim
	for i, name := range cudaKernels {
		if d.fns[i], err = d.mod.Function(name); err != nil {
			return fmt.Errorf("kernel %s: %w", name, err)
		}
		if most, err := d.fns[i].Attribute(cu.FnMaxThreadsPerBlock); err == nil && most > 0 && most < d.block {
			d.block = most
		}
	}
	for i, name := range WaveEntries {
		if d.wave[i], err = d.mod.Function(name); err != nil {
			return fmt.Errorf("kernel %s: %w", name, err)
		}
		if most, err := d.wave[i].Attribute(cu.FnMaxThreadsPerBlock); err == nil && most > 0 && most < d.block {
			d.block = most
		}
	}
	// The wavefront's batches fill the device for its ray queries
	// (wf_intersect), the megakernel's for its entries.
	d.batchPixels = cudaBatchPixels(d.dev, append(d.fns[:], d.wave[WaveIntersect]), d.block)
	if d.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return fmt.Errorf("creating a stream: %w", err)
	}
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
		// Pack accepts only the two integrators.
		i := 0
		if h.Integrator == uint32(tracer.IntegratorWhitted) {
			i = 1
		}
		d.fn, d.kernel = d.fns[i], cudaKernels[i]
		d.header = h
		d.useWave = d.choice == KernelWavefront
		if d.useWave {
			d.kernel = "the wavefront"
		}
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

// TracePixels implements Device: one launch of ⌈n/block⌉ blocks over the
// n pixels, with the pixel list copied in and the results copied out on
// the device's stream.
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
		slotBytes := 0
		if d.useWave {
			slotBytes = SlotBytes(d.header.Integrator)
		}
		if err := d.reserve(n, slotBytes); err != nil {
			return err
		}
		b := &d.batch
		if err := cu.MemcpyHtoDAsync(b.pixels, unsafe.Pointer(unsafe.SliceData(pixels)), int64(8*n), d.stream); err != nil {
			return fmt.Errorf("copying the pixel list in: %w", err)
		}
		if d.useWave {
			if err := RunWavefront(ctx, cudaWave{d}, n, &d.header); err != nil {
				return fmt.Errorf("running the wavefront on %d pixels: %w", n, err)
			}
			return d.copyOut(n, out, rays, nonfinite)
		}
		// gorgonia.org/cu reads 8 bytes behind each argument pointer:
		// every argument has its own uint64 slot (the driver takes the low
		// 4 bytes of npixels, a little-endian u32).
		args := [6]uint64{uint64(d.hdr), uint64(b.pixels), uint64(uint32(n)), uint64(b.out), uint64(b.rays), uint64(b.nonfinite)}
		params := make([]unsafe.Pointer, len(args))
		for i := range args {
			params[i] = unsafe.Pointer(&args[i])
		}
		grid := (n + d.block - 1) / d.block
		if err := d.fn.Launch(grid, 1, 1, d.block, 1, 1, 0, d.stream, params); err != nil {
			return fmt.Errorf("launching %s on %d pixels (%d blocks of %d): %w", d.kernel, n, grid, d.block, err)
		}
		return d.copyOut(n, out, rays, nonfinite)
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %w", d.name, err)
	}
	return err
}

// copyOut copies a batch's results out after its launches, on the device
// goroutine.
func (d *cudaDevice) copyOut(n int, out []float32, rays, nonfinite []uint64) error {
	b := &d.batch
	// Into pageable Go memory each copy returns only when complete;
	// the synchronisation below reports errors of the launch itself.
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(unsafe.SliceData(out)), b.out, int64(12*n), d.stream); err != nil {
		return fmt.Errorf("copying the radiance out: %w", err)
	}
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(unsafe.SliceData(rays)), b.rays, int64(8*n), d.stream); err != nil {
		return fmt.Errorf("copying the ray counts out: %w", err)
	}
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(unsafe.SliceData(nonfinite)), b.nonfinite, int64(8*n), d.stream); err != nil {
		return fmt.Errorf("copying the non-finite counts out: %w", err)
	}
	if err := d.stream.Synchronize(); err != nil {
		return fmt.Errorf("running %s on %d pixels: %w", d.kernel, n, err)
	}
	return nil
}

// cudaWave is Wavefront on a device's batch buffers, on the device
// goroutine: the launches and copies go in order on the device's stream.
type cudaWave struct{ d *cudaDevice }

// Launch implements Wavefront: one launch of ⌈n/block⌉ blocks.
func (w cudaWave) Launch(e WaveEntry, n int) error {
	d, b := w.d, &w.d.batch
	// One uint64 slot per argument, as for trace_pixels.
	args := [8]uint64{uint64(d.hdr), uint64(b.pixels), uint64(uint32(n)), uint64(b.slots), uint64(b.flags),
		uint64(b.out), uint64(b.rays), uint64(b.nonfinite)}
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	grid := (n + d.block - 1) / d.block
	if err := d.wave[e].Launch(grid, 1, 1, d.block, 1, 1, 0, d.stream, params); err != nil {
		return fmt.Errorf("launching %v on %d slots (%d blocks of %d): %w", e, n, grid, d.block, err)
	}
	return nil
}

// TakeFlags implements Wavefront: it waits for the launches so far, reads
// the flags word and clears it.
func (w cudaWave) TakeFlags() (uint32, error) {
	d, b := w.d, &w.d.batch
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&d.flag[0]), b.flags, 4, d.stream); err != nil {
		return 0, fmt.Errorf("reading the wavefront's flags: %w", err)
	}
	if err := d.stream.Synchronize(); err != nil {
		return 0, err
	}
	d.flag[1] = 0
	if err := cu.MemcpyHtoDAsync(b.flags, unsafe.Pointer(&d.flag[1]), 4, d.stream); err != nil {
		return 0, fmt.Errorf("clearing the wavefront's flags: %w", err)
	}
	return d.flag[0], nil
}

// reserve makes the batch buffers hold at least n pixels, and slots of
// slotBytes each for them.
func (d *cudaDevice) reserve(n, slotBytes int) error {
	if batchFits(d.batch.cap, d.batch.slotBytes, n, slotBytes) {
		return nil
	}
	d.freeBatch()
	c := (n + cudaBatchGrain - 1) / cudaBatchGrain * cudaBatchGrain
	var err error
	alloc := func(p *cu.DevicePtr, bytes int) {
		if err == nil {
			*p, err = cu.MemAlloc(int64(bytes))
		}
	}
	alloc(&d.batch.pixels, 8*c)
	alloc(&d.batch.out, 12*c)
	alloc(&d.batch.rays, 8*c)
	alloc(&d.batch.nonfinite, 8*c)
	if slotBytes > 0 {
		alloc(&d.batch.slots, slotBytes*c)
	}
	alloc(&d.batch.flags, 4)
	if err != nil {
		d.freeBatch()
		return fmt.Errorf("allocating buffers for %d pixels: %w", c, err)
	}
	d.batch.cap, d.batch.slotBytes = c, slotBytes
	return nil
}

func (d *cudaDevice) freeBatch() {
	for _, p := range []cu.DevicePtr{d.batch.pixels, d.batch.out, d.batch.rays, d.batch.nonfinite, d.batch.slots, d.batch.flags} {
		if p != 0 {
			cu.MemFree(p)
		}
	}
	d.batch = cudaBatch{}
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
	d.freeScene()
	d.freeBatch()
	if d.stream != (cu.Stream{}) {
		d.stream.Destroy()
	}
	if d.mod != (cu.Module{}) {
		d.mod.Unload()
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
