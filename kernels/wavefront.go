package kernels

import (
	"context"
	"fmt"
	"math"

	"github.com/tracerender/trace/tracer"
)

// The wavefront: the kernel's path integrator run as a state machine over
// one slot per pixel (trace.cu, pathstate.h), in rounds of small launches
// instead of one long one, so that the kernels that trace rays hold only
// the traversal's registers. RunWavefront is the one host-side loop; a
// device implements Wavefront to run it (cuda.go, and kernels/emulator).

// WaveEntry is one of the kernel's wavefront entries (trace.cu's ABI
// comment). They share one argument list: the scene header, the pixel
// list, the slot count n, the slots, the flags word, and the radiance, ray
// and non-finite outputs of TracePixels.
type WaveEntry int

// The wavefront entries, in the order RunWavefront launches them.
const (
	WaveInit      WaveEntry = iota // wf_init: slot i takes pixel i and starts its sample 0
	WaveShade                      // wf_shade: every live slot runs to its next query, samples one after another
	WaveIntersect                  // wf_intersect: answers the nearest-hit queries
	WaveOccluded                   // wf_occluded: answers the any-hit (shadow) queries
	WaveFinish                     // wf_finish: writes each slot's pixel mean and counts
)

// WaveEntries are the entries' names in the PTX, indexed by WaveEntry.
var WaveEntries = [...]string{"wf_init", "wf_shade", "wf_intersect", "wf_occluded", "wf_finish"}

// String returns the entry's name in the PTX.
func (e WaveEntry) String() string {
	if e < 0 || int(e) >= len(WaveEntries) {
		return fmt.Sprintf("WaveEntry(%d)", int(e))
	}
	return WaveEntries[e]
}

// The bits of the flags word that wf_shade sets (pathstate.h's
// QueryClosest and QueryAny): which kinds of query the live slots asked.
// A round with no bit set is the last.
const (
	WaveClosest uint32 = 1
	WaveAny     uint32 = 2
)

// PathSlotSize and WhittedSlotSize are the distances in bytes between two
// wavefront slots (the kernel's PathSlot, pathstate.h) of path-traced and
// of Whitted scenes: a path scene's slot ends after its path state, and
// only a Whitted scene's holds the branch stack. The kernel asserts both
// for every compiler; the emulator's tests check them too.
const (
	PathSlotSize    = 448
	WhittedSlotSize = 3248
)

// SlotBytes is the distance between two wavefront slots of scenes of
// integrator (a tracer.Integrator, TraceScene.Integrator).
func SlotBytes(integrator uint32) int {
	if integrator == uint32(tracer.IntegratorWhitted) {
		return WhittedSlotSize
	}
	return PathSlotSize
}

// Wavefront is what RunWavefront needs of a device: a batch's buffers (the
// pixel list, n slots, the flags word, the outputs) already in place.
type Wavefront interface {
	// Launch runs entry e with one thread per slot over the first n slots
	// and waits for it.
	Launch(e WaveEntry, n int) error
	// TakeFlags returns the flags word and clears it.
	TakeFlags() (uint32, error)
}

// RunWavefront renders a batch of n pixels with the wavefront entries, as
// TracePixels does with one launch of the megakernel and with the same
// bits: wf_init, then rounds of wf_shade followed by wf_intersect and
// wf_occluded for the queries it asked, until a round asks none, then
// wf_finish. h is the uploaded scene's header, for a bound on the rounds
// (a slot asks one query a round); its integrator may be either.
func RunWavefront(ctx context.Context, w Wavefront, n int, h *TraceScene) error {
	if n == 0 {
		return ctx.Err()
	}
	if err := w.Launch(WaveInit, n); err != nil {
		return err
	}
	if _, err := w.TakeFlags(); err != nil {
		return err
	}
	rounds := WaveRounds(h)
	for round := uint64(0); ; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if round > rounds {
			return fmt.Errorf("wavefront: %d pixels still tracing after %d rounds, the most their paths can ask", n, rounds)
		}
		if err := w.Launch(WaveShade, n); err != nil {
			return err
		}
		f, err := w.TakeFlags()
		if err != nil {
			return err
		}
		if f == 0 {
			break
		}
		if f&WaveClosest != 0 {
			if err := w.Launch(WaveIntersect, n); err != nil {
				return err
			}
		}
		if f&WaveAny != 0 {
			if err := w.Launch(WaveOccluded, n); err != nil {
				return err
			}
		}
	}
	return w.Launch(WaveFinish, n)
}

// WaveRounds is the most query rounds a pixel of scene h can need: per
// sample and bounce, the nearest hit and its alpha passes, and a shadow
// ray with its passes toward each light, an emitter and the background.
// A Whitted sample shades a binary tree of hits (a dielectric hit forks a
// refracted branch), at most 2^(MaxDepth+1)−1 of them, each with the
// nearest hit's passes and a shadow ray per light; the bound saturates at
// math.MaxUint64.
func WaveRounds(h *TraceScene) uint64 {
	passes := uint64(tracer.MaxAlphaPasses)
	bounce := (1 + passes) + (uint64(h.NumLights)+2)*(passes+2)
	hits := uint64(h.MaxDepth) + 1
	if h.Integrator == uint32(tracer.IntegratorWhitted) {
		bounce = (1 + passes) + uint64(h.NumLights)*(passes+2)
		hits = math.MaxUint64
		if h.MaxDepth < 63 {
			hits = 1<<(h.MaxDepth+1) - 1
		}
	}
	return mulSat(mulSat(uint64(h.Samples), hits), bounce)
}

// mulSat is a·b, or math.MaxUint64 where that overflows.
func mulSat(a, b uint64) uint64 {
	if b != 0 && a > math.MaxUint64/b {
		return math.MaxUint64
	}
	return a * b
}

// Kernel is how a device runs scenes, of either integrator. Both give the
// same bits.
type Kernel int

const (
	// KernelWavefront runs the wavefront entries (RunWavefront): the
	// default.
	KernelWavefront Kernel = iota
	// KernelMegakernel runs trace_pixels_path or trace_pixels_whitted (in
	// the emulator trace_pixels), one launch per batch with the whole
	// integrator in each thread.
	KernelMegakernel
)

// KernelEnv is the environment variable that selects the Kernel of the
// cuda build's devices: "wavefront" (or unset) or "megakernel".
const KernelEnv = "TRACE_GPU_KERNEL"

// String returns the name ParseKernel takes.
func (k Kernel) String() string {
	switch k {
	case KernelWavefront:
		return "wavefront"
	case KernelMegakernel:
		return "megakernel"
	}
	return fmt.Sprintf("Kernel(%d)", int(k))
}

// ParseKernel returns the Kernel named s ("wavefront", "megakernel"); ""
// is the default, KernelWavefront.
func ParseKernel(s string) (Kernel, error) {
	switch s {
	case "", "wavefront":
		return KernelWavefront, nil
	case "megakernel":
		return KernelMegakernel, nil
	}
	return 0, fmt.Errorf("%s=%q: want \"wavefront\" or \"megakernel\"", KernelEnv, s)
}
