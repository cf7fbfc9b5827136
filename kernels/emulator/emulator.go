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

// Device is the kernel's CPU emulator. The scene lives in C memory from
// Upload to Close (or the next Upload), as it would in device memory.
type Device struct {
	// Workers is the number of goroutines that emulate blocks in parallel;
	// 0 means runtime.GOMAXPROCS(0).
	Workers int
	// BlockDim is the number of threads per block; 0 means
	// DefaultBlockDim. The result does not depend on it.
	BlockDim int

	mem   []unsafe.Pointer // C allocations of the current scene
	scene unsafe.Pointer   // the TraceScene header, in C memory
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

// TracePixels implements kernels.Device: it runs the kernel over a grid of
// ⌈n/BlockDim⌉ blocks, blocks shared out among Workers goroutines.
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
	case n == 0:
		return nil
	}
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

	px := (*C.uint)(unsafe.Pointer(unsafe.SliceData(pixels)))
	po := (*C.float)(unsafe.Pointer(unsafe.SliceData(out)))
	pr := (*C.ulonglong)(unsafe.Pointer(unsafe.SliceData(rays)))
	pn := (*C.ulonglong)(unsafe.Pointer(unsafe.SliceData(nonfinite)))
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
				C.emu_run(d.scene, px, C.uint(n), po, pr, pn, C.uint(bdim), C.uint(b), C.uint(b+1))
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
