package emulator

import (
	"context"
	"fmt"
	"image"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// The wavefront's census: after each round of wf_shade, what a lane's
// slots ask. It checks the queues' counts against the slots, and says how
// much of each launch has work as a GPU runs it, in blocks of 128 threads
// and warps of 32: over the queues, and, for comparison, as launches over
// every slot of the lane would (the wavefront before it had queues).
// Figures:
//
//	go test ./kernels/emulator -run TestWavefrontCensus -v

// warp and block are a GPU's warp and the cuda device's block: the census
// counts lanes in groups of them.
const (
	warp  = 32
	block = 128
)

// launchCensus adds up the lanes with work over launches of one entry.
type launchCensus struct {
	launches       int
	launched, busy uint64 // lanes: every thread of each launch's blocks, and those with work
	warps          uint64 // warps with a lane with work
}

// add adds a launch of threads threads, busy of them with work, in warps
// warps with work.
func (l *launchCensus) add(threads int, busy, warps uint64) {
	l.launches++
	l.launched += uint64((threads + block - 1) / block * block)
	l.busy += busy
	l.warps += warps
}

// queued adds a launch over a queue of n entries: every entry has work,
// in ⌈n/32⌉ warps.
func (l *launchCensus) queued(n uint64) { l.add(int(n), n, (n+warp-1)/warp) }

// String: the share of the launched lanes with work, and of the lanes of
// the warps with work (the SIMT lanes a GPU keeps busy, at best).
func (l launchCensus) String() string {
	return fmt.Sprintf("%d launches, %.0f%% of lanes busy, %.0f%% in busy warps", l.launches,
		100*float64(l.busy)/float64(max(l.launched, 1)), 100*float64(l.busy)/float64(max(warp*l.warps, 1)))
}

// TestWavefrontCensus renders every gallery scene on one lane, counting
// after each round the live slots and the queries they ask: every live
// slot asks one query, the queue's counts are the slots', and a slot once
// done stays done. It logs, per scene and entry, the share of the lanes
// with work, over the queues and over every slot.
func TestWavefrontCensus(t *testing.T) {
	for _, g := range gallery(t) {
		name, f := g.name, g.file
		t.Run(name, func(t *testing.T) {
			s, p := packScene(t, f, 64, 48, 0)
			if s.Settings.Samples > 16 {
				s, p = packScene(t, f, 64, 48, 16)
			}
			d := New()
			d.Lanes = 1
			d.Parts = -1 // a slot a pixel, as the figures in kernels/README.md were taken
			defer d.Close()
			if err := d.Upload(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			// Over the queues, and over every slot.
			var shade, closest, anyHit, allShade, allClosest, allAny launchCensus
			var tail launchCensus // wf_shade's launches once half the slots are done, over every slot
			rounds := 0
			bySlot, byQueue := 0, 0    // the rounds of wf_shade after the first, over every slot and over the queue (kernels.ShadeThreads)
			var live, liveWarps uint64 // before the round: what wf_shade works on
			d.observe = func(w *wave, q kernels.Queries) {
				c := w.census(warp)
				if rounds == 0 {
					live, liveWarps = uint64(w.n), uint64((w.n+warp-1)/warp) // wf_init starts every slot
				}
				rounds++
				shade.queued(live)
				allShade.add(w.n, live, liveWarps)
				if 2*live < uint64(w.n) {
					tail.add(w.n, live, liveWarps)
				}
				if c.live > live {
					t.Errorf("round %d: %d slots live, %d before", rounds, c.live, live)
				}
				if c.closest+c.any != c.live {
					t.Errorf("round %d: %d live slots ask %d nearest-hit and %d any-hit queries", rounds, c.live, c.closest, c.any)
				}
				if uint64(q.Closest) != c.closest || uint64(q.Any) != c.any {
					t.Errorf("round %d: the queue counts %+v for %d nearest-hit and %d any-hit queries", rounds, q, c.closest, c.any)
				}
				if c.closest > 0 {
					closest.queued(c.closest)
					allClosest.add(w.n, c.closest, c.closestWarps)
				}
				if c.any > 0 {
					anyHit.queued(c.any)
					allAny.add(w.n, c.any, c.anyWarps)
				}
				if q.Closest+q.Any > 0 {
					if kernels.ShadeThreads(q, w.n) == w.n {
						bySlot++
					} else {
						byQueue++
					}
				}
				live, liveWarps = c.live, c.liveWarps
			}
			set := s.Settings
			pixels := kernels.AppendPixels(nil, image.Rect(0, 0, set.Width, set.Height))
			n := len(pixels) / 2
			out, counts := make([]float32, 3*n), make([]uint64, 2*n)
			if err := d.TracePixels(context.Background(), pixels, out, counts[:n], counts[n:]); err != nil {
				t.Fatal(err)
			}
			if rounds == 0 || live != 0 || closest.launches == 0 {
				t.Fatalf("%d rounds, %d slots live at the end, %d nearest-hit launches", rounds, live, closest.launches)
			}
			// The bits are checked by the parity tests, over both kinds of
			// round: each must have run.
			if bySlot == 0 || byQueue == 0 {
				t.Errorf("wf_shade's rounds after the first: %d over every slot, %d over the queue; want some of each", bySlot, byQueue)
			}
			t.Logf("%s %d×%d, %d samples, one lane of %d slots, over the queues: wf_shade %v; wf_intersect %v; wf_occluded %v. "+
				"Over every slot: wf_shade %v (the last %d, once half the slots were done: %v); wf_intersect %v; wf_occluded %v. "+
				"wf_shade's rounds after the first: %d over every slot, %d over the queue",
				name, set.Width, set.Height, set.Samples, n, shade, closest, anyHit, allShade, tail.launches, tail, allClosest, allAny, bySlot, byQueue)
		})
	}
}
