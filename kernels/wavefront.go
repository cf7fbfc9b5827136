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
// list, the slot count n, the slots, the queue worked through and the
// queue filled, and the radiance, ray and non-finite outputs of
// TracePixels.
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

// The kernel's kinds of query (pathstate.h's QueryClosest and QueryAny),
// which a slot's state holds while it waits for an answer.
const (
	WaveClosest uint32 = 1
	WaveAny     uint32 = 2
)

// QueueWords is the size in 32-bit words of one of the wavefront's
// queues for a lane of n slots (wavefront.h's WAVE_QUEUE_WORDS): the
// counts of the slots asking a nearest-hit and an any-hit query, then
// the slots' indices. A lane has two, in turn the one a round of
// wf_shade works through and the one it fills.
func QueueWords(n int) int { return 2 + n }

// Queries is what a round of wf_shade asked: the number of slots asking
// a nearest-hit query and the number asking an any-hit query (its
// queue's counts). A round that asks none is the batch's last.
type Queries struct{ Closest, Any int }

// PathSlotSize and WhittedSlotSize are the distances in bytes between two
// wavefront slots (the kernel's PathSlot, pathstate.h) of path-traced and
// of Whitted scenes: a path scene's slot ends after its path state, and
// only a Whitted scene's holds the branch stack. The kernel asserts both
// for every compiler; the emulator's tests check them too.
const (
	PathSlotSize    = 480
	WhittedSlotSize = 3264
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
// pixel list, n slots, two queues, the outputs) already in place. Its
// launches may run asynchronously, in order (a CUDA stream): a launch's
// error may show at the next TakeQueries.
type Wavefront interface {
	// Launch runs entry e with threads threads, after the launches
	// before it: wf_init and wf_finish one per slot; wf_shade one per
	// slot the last wf_init or wf_shade queued, working through that
	// queue and filling the other, its counts cleared first;
	// wf_intersect and wf_occluded one per query of their kind in the
	// queue the last wf_shade filled.
	Launch(e WaveEntry, threads int) error
	// TakeQueries waits for the launches so far and returns the counts
	// of the queue the last wf_shade filled.
	TakeQueries() (Queries, error)
}

// RunWavefront renders a batch of n pixels with the wavefront entries, as
// TracePixels does with one launch of the megakernel and with the same
// bits: wf_init, then rounds of wf_shade followed by wf_intersect and
// wf_occluded for the queries it asked, each launch as wide as its queue,
// until a round asks none, then wf_finish. h is the uploaded scene's
// header, for a bound on the rounds (a slot asks one query a round); its
// integrator may be either. It is RunWavefronts with one lane.
func RunWavefront(ctx context.Context, w Wavefront, n int, h *TraceScene) error {
	return RunWavefronts(ctx, []Wavefront{w}, []int{n}, h)
}

// RunWavefronts renders len(lanes) batches at once, ns[i] pixels on
// lanes[i], each as RunWavefront would and with its bits: every lane has
// its own slots and queues (on a GPU its own stream), and its rounds are
// bounded by WaveRounds on their own. The rounds interleave: wf_init and
// the first wf_shade on every lane, then, lane after lane, take a lane's
// queries (waiting for that lane only) and launch its next round, so that
// while the host waits for one lane's queries and launches its round, the
// other lanes' launches run. A lane whose round asked no query gets
// wf_finish and leaves the rotation; an empty lane (ns[i] = 0) is never
// launched. On the first error, or when ctx is done, no lane gets another
// launch; an error of lane i of several says which.
func RunWavefronts(ctx context.Context, lanes []Wavefront, ns []int, h *TraceScene) error {
	if len(ns) != len(lanes) {
		return fmt.Errorf("wavefront: %d lanes, %d batch sizes", len(lanes), len(ns))
	}
	laneErr := func(i int, err error) error {
		if len(lanes) == 1 {
			return err
		}
		return fmt.Errorf("lane %d of %d: %w", i, len(lanes), err)
	}
	// live are the lanes still tracing, in rotation order; shades counts
	// each lane's rounds of wf_shade.
	live := make([]int, 0, len(lanes))
	shades := make([]uint64, len(lanes))
	for i, n := range ns {
		if n < 0 {
			return fmt.Errorf("wavefront: lane %d has %d pixels", i, n)
		}
	}
	for i, n := range ns {
		if n == 0 {
			continue
		}
		// wf_init queues every slot for the first wf_shade.
		if err := lanes[i].Launch(WaveInit, n); err != nil {
			return laneErr(i, err)
		}
		if err := lanes[i].Launch(WaveShade, n); err != nil {
			return laneErr(i, err)
		}
		shades[i]++
		live = append(live, i)
	}
	if len(live) == 0 {
		return ctx.Err()
	}
	rounds := WaveRounds(h)
	for len(live) > 0 {
		next := live[:0]
		for _, i := range live {
			w, n := lanes[i], ns[i]
			q, err := w.TakeQueries()
			if err != nil {
				return laneErr(i, err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if q.Closest < 0 || q.Any < 0 || q.Closest+q.Any > n {
				return laneErr(i, fmt.Errorf("wavefront: a round of %d slots asked %d nearest-hit and %d any-hit queries", n, q.Closest, q.Any))
			}
			if q.Closest+q.Any == 0 {
				if err := w.Launch(WaveFinish, n); err != nil {
					return laneErr(i, err)
				}
				continue
			}
			if q.Closest > 0 {
				if err := w.Launch(WaveIntersect, q.Closest); err != nil {
					return laneErr(i, err)
				}
			}
			if q.Any > 0 {
				if err := w.Launch(WaveOccluded, q.Any); err != nil {
					return laneErr(i, err)
				}
			}
			if shades[i] > rounds {
				return laneErr(i, fmt.Errorf("wavefront: %d pixels still tracing after %d rounds, the most their paths can ask", n, rounds))
			}
			if err := w.Launch(WaveShade, ShadeThreads(q, n)); err != nil {
				return laneErr(i, err)
			}
			shades[i]++
			next = append(next, i)
		}
		live = next
	}
	return nil
}

// ShadeThreads is the threads of the round of wf_shade after one that
// asked q, on a lane of n slots: one per slot while at least half of them
// asked (every live slot asks), so that a warp shades 32 consecutive
// slots, whose words lie together in a path scene's batch, and queues
// their queries in runs of such slots; else one per query asked, from
// the queue. wavefront.h's wave_shade_all is the kernel's rule on the
// queue's counts: the same, or (a variant of the kernel) a higher share,
// the threads past the queue then idle.
func ShadeThreads(q Queries, n int) int {
	if 2*(q.Closest+q.Any) >= n {
		return n
	}
	return q.Closest + q.Any
}

// DefaultLanes is the number of lanes a device splits a wavefront batch
// into (the cuda device: one stream each; the emulator by default): two,
// so that one lane's host round trip hides behind the other's launches.
const DefaultLanes = 2

// LanesEnv is the environment variable that sets how many lanes the cuda
// build's devices split a batch into: 1 or 2 (unset: DefaultLanes), for
// measuring what the second lane gains. The bits do not depend on it.
const LanesEnv = "TRACE_GPU_LANES"

// ParseLanes returns the lanes LanesEnv's value s asks for; "" is
// DefaultLanes.
func ParseLanes(s string) (int, error) {
	switch s {
	case "":
		return DefaultLanes, nil
	case "1":
		return 1, nil
	case "2":
		return 2, nil
	}
	return 0, fmt.Errorf("%s=%q: want 1 or 2", LanesEnv, s)
}

// LaneSizes splits a batch of n pixels into lanes parts for
// RunWavefronts, in order: each but the last ⌈n/lanes⌉ rounded up to a
// multiple of grain (a launch's block, so that only the last lane's grid
// ends in a partial block), or what is left; the last takes the rest.
// Lanes past the end get 0. lanes and grain below 1 count as 1.
func LaneSizes(n, lanes, grain int) []int {
	lanes, grain = max(lanes, 1), max(grain, 1)
	sizes := make([]int, lanes)
	per := (n + lanes - 1) / lanes
	per = (per + grain - 1) / grain * grain
	for i := range sizes {
		sizes[i] = min(per, n)
		if i == lanes-1 {
			sizes[i] = n
		}
		n -= sizes[i]
	}
	return sizes
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
	// emulator's default (emulator.Device's zero Kernel).
	KernelWavefront Kernel = iota
	// KernelMegakernel runs trace_pixels_path or trace_pixels_whitted (in
	// the emulator trace_pixels), one launch per batch with the whole
	// integrator in each thread.
	KernelMegakernel
	// KernelAuto times both on each uploaded scene and keeps the faster
	// (a cuda device's ProbeKernels): the cuda device's default. The
	// emulator does not choose; it refuses it.
	KernelAuto
)

// DefaultKernel is the Kernel of a CUDA device when KernelEnv is unset:
// each scene on the faster of the two, timed on its first large batch
// (auto.go). Which one is faster depends on the scene and on the frame:
// on an H200 (scripts/gpu-check.sh, 2026-12-04) the megakernels traced
// the 256² gallery's rays at 0.7 to 2.8 times the wavefront's rate
// (Whitted 439 M rays/s against 156 M, the PBR scene 158 M against 99 M,
// the Cornell box 220 M against 314 M), and the Cornell box's 1920×1080
// frame at 64 samples took 1.51 s on the megakernels, 0.74 s on the
// wavefront.
const DefaultKernel = KernelAuto

// KernelEnv is the environment variable that selects the Kernel of the
// cuda build's devices: "auto" (or unset: DefaultKernel), "megakernel"
// or "wavefront".
const KernelEnv = "TRACE_GPU_KERNEL"

// String returns the name ParseKernel takes.
func (k Kernel) String() string {
	switch k {
	case KernelWavefront:
		return "wavefront"
	case KernelMegakernel:
		return "megakernel"
	case KernelAuto:
		return "auto"
	}
	return fmt.Sprintf("Kernel(%d)", int(k))
}

// ParseKernel returns the Kernel named s ("auto", "wavefront",
// "megakernel"); "" is DefaultKernel.
func ParseKernel(s string) (Kernel, error) {
	switch s {
	case "":
		return DefaultKernel, nil
	case "wavefront":
		return KernelWavefront, nil
	case "megakernel":
		return KernelMegakernel, nil
	case "auto":
		return KernelAuto, nil
	}
	return 0, fmt.Errorf("%s=%q: want \"auto\", \"wavefront\" or \"megakernel\"", KernelEnv, s)
}
