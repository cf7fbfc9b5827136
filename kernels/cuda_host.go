//go:build cuda

package kernels

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
*/
import "C"

import (
	"reflect"
	"unsafe"

	"gorgonia.org/cu"
)

// Page-locked host memory, for the lanes' staging buffers: gorgonia.org/cu
// v0.9.6 wraps cuMemFreeHost (cu.MemFreeHost) but not the allocation, so
// this file calls the driver's cuMemHostAlloc itself, against the same
// cuda.h and libcuda as gorgonia.org/cu (the real toolkit's, or
// kernels/cudastub's).

// cudaHostAlloc returns bytes of page-locked host memory, which the
// device reaches by DMA: an asynchronous copy from or to it returns at
// once and runs in its stream's order, where one from pageable Go memory
// is staged by the driver and, out of the device, waits for the copy.
// The memory is not Go's (cgo may pass it freely) and is not zeroed; free
// it with cu.MemFreeHost.
func cudaHostAlloc(bytes int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if err := cudaResult(C.cuMemHostAlloc(&p, C.size_t(bytes), 0)); err != nil {
		return nil, err
	}
	return p, nil
}

// cudaResult is the error gorgonia.org/cu gives for the driver's result r
// (its cu.OutOfMemory and the rest, with their messages), or nil for
// success.
func cudaResult(r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	// cu's result type is unexported; its constants are not.
	err := cu.Success
	reflect.ValueOf(&err).Elem().SetInt(int64(r))
	return err
}
