package emulator

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// The wavefront's census: after each round of wf_shade, what a lane's
// slots ask. It checks the flags word against the slots, and says how
// much of each launch has work, as a GPU would run it in warps of 32:
// what path regeneration keeps busy, and what the last rounds, when few
// pixels still have samples to trace, leave idle. Figures:
//
//	go test ./kernels/emulator -run TestWavefrontCensus -v

// warp is a GPU's warp: the census counts slots in groups of 32.
const warp = 32

// launchCensus adds up the lanes with work over launches of one entry.
type launchCensus struct {
	launches       int
	launched, busy uint64 // lanes: every slot of each launch, and those with work
	warps          uint64 // warps with a lane with work
}

func (l *launchCensus) add(n int, busy, warps uint64) {
	l.launches++
	l.launched += uint64(n)
	l.busy += busy
	l.warps += warps
}

// String: the share of the launched lanes with work, and of the lanes of
// the warps with work (the SIMT lanes a GPU keeps busy, at best).
func (l launchCensus) String() string {
	return fmt.Sprintf("%d launches, %.0f%% of lanes busy, %.0f%% in busy warps", l.launches,
		100*float64(l.busy)/float64(max(l.launched, 1)), 100*float64(l.busy)/float64(max(warp*l.warps, 1)))
}

// TestWavefrontCensus renders every gallery scene on one lane, counting
// after each round the live slots and the queries they ask: every live
// slot asks one query, the flags word has a kind's bit exactly when a
// slot asks it, and a slot once done stays done. It logs, per scene, the
// share of each entry's lanes with work.
func TestWavefrontCensus(t *testing.T) {
	files, _ := filepath.Glob("../../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			desc, err := scenes.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			desc.Settings.Width, desc.Settings.Height = 64, 48
			desc.Settings.Samples = min(desc.Settings.Samples, 16)
			s, err := tracer.Compile(desc)
			if err != nil {
				t.Fatal(err)
			}
			p, err := kernels.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			d := New()
			d.Lanes = 1
			defer d.Close()
			if err := d.Upload(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			var shade, closest, anyHit launchCensus
			var tail launchCensus // wf_shade's launches once half the slots are done
			rounds, started := 0, false
			var live, liveWarps uint64 // before the round: what wf_shade will work on
			d.observe = func(w *wave, flags uint32) {
				c := w.census(warp)
				if !started { // after wf_init: every slot about to start its sample 0
					started = true
					live, liveWarps = c.live, c.liveWarps
					if c.live != uint64(w.n) {
						t.Errorf("after wf_init: %d of %d slots live", c.live, w.n)
					}
					return
				}
				rounds++
				shade.add(w.n, live, liveWarps)
				if 2*live < uint64(w.n) {
					tail.add(w.n, live, liveWarps)
				}
				if c.live > live {
					t.Errorf("round %d: %d slots live, %d before", rounds, c.live, live)
				}
				if c.closest+c.any != c.live {
					t.Errorf("round %d: %d live slots ask %d nearest-hit and %d any-hit queries", rounds, c.live, c.closest, c.any)
				}
				if (flags&kernels.WaveClosest != 0) != (c.closest > 0) || (flags&kernels.WaveAny != 0) != (c.any > 0) {
					t.Errorf("round %d: flags %#x for %d nearest-hit and %d any-hit queries", rounds, flags, c.closest, c.any)
				}
				if c.closest > 0 {
					closest.add(w.n, c.closest, c.closestWarps)
				}
				if c.any > 0 {
					anyHit.add(w.n, c.any, c.anyWarps)
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
			t.Logf("%s %d×%d, %d samples, one lane of %d slots: wf_shade %v (the last %d, once half the slots were done: %v); wf_intersect %v; wf_occluded %v",
				name, set.Width, set.Height, set.Samples, n, shade, tail.launches, tail, closest, anyHit)
		})
	}
}
