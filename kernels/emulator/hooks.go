package emulator

/*
#include "emulator.h"
*/
import "C"

import (
	"unsafe"

	"github.com/tracerender/trace/tracer"
)

// The functions here expose parts of the compiled kernel to tests.

// Func selects one of the kernel's fmath functions.
type Func int

// The kernel's fmath functions, twins of package tracer/fmath's.
const (
	Sqrt  Func = iota // fmath.Sqrt(a)
	Sin               // fmath.Sin(a)
	Cos               // fmath.Cos(a)
	Tan               // fmath.Tan(a)
	Exp               // fmath.Exp(a)
	Log               // fmath.Log(a)
	Pow               // fmath.Pow(a, b)
	Atan2             // fmath.Atan2(a, b)
	Acos              // fmath.Acos(a)
)

// Fmath returns the kernel's f(a[i], b[i]) for every i; b is ignored by
// functions of one argument and must be as long as a.
func Fmath(f Func, a, b []float32) []float32 {
	out := make([]float32, len(a))
	if len(a) == 0 {
		return out
	}
	if len(b) < len(a) {
		panic("emulator.Fmath: b shorter than a")
	}
	C.emu_fmath(C.int(f), (*C.float)(unsafe.Pointer(&a[0])), (*C.float)(unsafe.Pointer(&b[0])),
		(*C.float)(unsafe.Pointer(&out[0])), C.int(len(a)))
	return out
}

// Sampler returns the first n numbers (a multiple of 3) that the kernel's
// sampler of pixel sample (seed, x, y, s) draws, in threes: one by
// sampler_float (Sampler.Float), then a pair by sampler_float2
// (Sampler.Float2).
func Sampler(seed uint64, x, y, s uint32, n int) []float32 {
	out := make([]float32, n)
	if n > 0 {
		C.emu_sampler(C.ulonglong(seed), C.uint(x), C.uint(y), C.uint(s), (*C.float)(unsafe.Pointer(&out[0])), C.int(n))
	}
	return out
}

// SlotBytes returns the kernel's distance between two wavefront slots for
// scenes of integrator i (slot_bytes), which must equal kernels.SlotBytes.
func SlotBytes(i tracer.Integrator) int { return int(C.emu_slot_bytes(C.uint(i))) }

// QueryKinds returns the kernel's QueryClosest and QueryAny, which must
// equal kernels.WaveClosest and kernels.WaveAny.
func QueryKinds() (closest, any uint32) {
	return uint32(C.emu_query_kind(0)), uint32(C.emu_query_kind(1))
}

// QueueWords returns the kernel's words of a wavefront queue for a lane of
// n slots (WAVE_QUEUE_WORDS), which must equal kernels.QueueWords.
func QueueWords(n int) int { return int(C.emu_queue_words(C.uint(n))) }

// census is what a lane's slots ask after a round of wf_shade: the live
// slots (a sample in flight), those asking a nearest-hit query and those
// asking an any-hit query, and for each the warps (groups of warp
// consecutive slots, as a GPU runs them) holding at least one.
type census struct {
	live, liveWarps       uint64
	closest, closestWarps uint64
	any, anyWarps         uint64
}

// census counts w's slots, its launches having run.
func (w *wave) census(warp int) census {
	var c [6]C.ulonglong
	C.emu_census(w.d.scene, w.slots, C.uint(w.n), C.uint(warp), &c[0])
	return census{uint64(c[0]), uint64(c[1]), uint64(c[2]), uint64(c[3]), uint64(c[4]), uint64(c[5])}
}
