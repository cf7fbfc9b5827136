package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scheduler"
)

// gpuWorkers opens n CUDA devices (--gpus) and returns a scheduler worker
// for each, and a function that closes the devices. A build without CUDA,
// or a machine with fewer usable devices than asked for, is the user's
// error (exit status 2); a device that fails to start is the render's.
func gpuWorkers(n int, note func(string)) ([]scheduler.Worker, func(), error) {
	devs, err := openDevices(n, note)
	if err != nil {
		return nil, nil, err
	}
	workers := make([]scheduler.Worker, len(devs))
	packer := &scheduler.Packer{} // one Packed for all the GPUs
	for i, d := range devs {
		workers[i] = &scheduler.GPUWorker{Device: d, Packer: packer}
	}
	closeAll := func() {
		for _, d := range devs {
			d.Close()
		}
	}
	return workers, closeAll, nil
}

// raceTail says whether a render's idle workers take second leases of
// the tiles still out once the queue is dry (scheduler.Options.Duplicates,
// the first result winning; every worker gives the same bits): with the
// machines of --workers, whose last tiles may be slow, and with GPUs
// beside CPU threads, where a thread's last tile takes many times a GPU
// batch's share of it. On an H200 with 16 cores the Cornell box at
// 1920×1080, 64 samples, took 0.74 s on the GPU alone and 0.87–0.90 s
// with the cores, which rendered 4 % of its tiles: the frame waited for
// the threads' last tiles. scheduler's TestGPUTailDuplicates simulates
// such tails: never later with duplicates, at most one launch more.
func raceTail(threads, gpus int, remote bool) bool {
	return remote || threads > 0 && gpus > 0
}

// procsForGPUs makes GOMAXPROCS at least threads + gpus, unless the
// GOMAXPROCS variable sets it: a Go processor for each GPU's goroutine
// beside the threads tracing on the CPU. The goroutine spends a batch in
// driver calls (cgo), which give its processor up; coming back from one
// it needs a processor again, and with every one held by a tracing
// goroutine it waits until the runtime preempts one, up to about 10 ms.
// Measured here (go run ./kernels/internal/cgowait, 2 cores): a blocking
// 100 µs call took 290 µs on average with both processors tracing, 180
// µs with a third processor, 160 µs with a core to spare. The wavefront
// makes thousands of calls a frame, the megakernels a few a batch.
func procsForGPUs(threads, gpus int) {
	if threads <= 0 || gpus <= 0 || os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if want := threads + gpus; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// openDevices opens n CUDA devices (--gpus). A build without CUDA, or a
// machine with fewer usable devices than asked for, is the user's error
// (exit status 2); a device that fails to start is the command's. When
// opening takes longer than slowOpen, note says why it waits, and then
// how long it took (noteSlowOpen).
func openDevices(n int, note func(string)) ([]kernels.Device, error) {
	devs, err := noteSlowOpen(n, kernels.OpenDevices, note, slowOpen)
	if err != nil {
		err = fmt.Errorf("--gpus %d: %w", n, err)
		if errors.Is(err, kernels.ErrNoCUDA) || errors.Is(err, kernels.ErrTooFewDevices) {
			return nil, usageError{err}
		}
		return nil, err
	}
	return devs, nil
}

// slowOpen is how long opening the GPUs may take before the command says
// why it waits: a device's driver compiles the kernel's PTX for it the
// first time (some 10 s on an H200 for the megakernels, 20 s for the
// whole PTX), and keeps the result in its cache for the next runs.
const slowOpen = 2 * time.Second

// noteSlowOpen is open(n), with a note once it has taken slow, and
// another when it is done, if that was later.
func noteSlowOpen(n int, open func(int) ([]kernels.Device, error), note func(string), slow time.Duration) ([]kernels.Device, error) {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-time.After(slow):
			note(fmt.Sprintf("opening %d GPU(s): the first time, the driver compiles the GPU kernel for the device, which can take a minute (it keeps the result in its cache, CUDA_CACHE_PATH, for the next runs)", n))
		case <-done:
		}
	})
	devs, err := open(n)
	close(done)
	wg.Wait()
	if took := time.Since(start); err == nil && took >= slow {
		note(fmt.Sprintf("%d GPU(s) ready after %.1f s", n, took.Seconds()))
	}
	return devs, err
}

// gpuTimes are the kernel times of the GPUs among workers that timed
// their launches (TRACE_GPU_TIMES).
func gpuTimes(workers []scheduler.Worker) []kernels.Times {
	return fromGPUs(workers, func(d kernels.Device) (kernels.Times, bool) {
		if timer, ok := d.(kernels.Timer); ok {
			return timer.Times()
		}
		return kernels.Times{}, false
	})
}

// gpuKernels are the kernels the GPUs among workers ran the scene on
// (TRACE_GPU_KERNEL, and what auto chose).
func gpuKernels(workers []scheduler.Worker) []kernels.KernelChoice {
	return fromGPUs(workers, func(d kernels.Device) (kernels.KernelChoice, bool) {
		if ch, ok := d.(kernels.KernelChooser); ok {
			return ch.KernelChoice()
		}
		return kernels.KernelChoice{}, false
	})
}

// fromGPUs is what get says of each GPU worker's device among workers,
// where it says something.
func fromGPUs[T any](workers []scheduler.Worker, get func(kernels.Device) (T, bool)) []T {
	var all []T
	for _, w := range workers {
		if g, ok := w.(*scheduler.GPUWorker); ok {
			if v, ok := get(g.Device); ok {
				all = append(all, v)
			}
		}
	}
	return all
}
