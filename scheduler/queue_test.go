package scheduler

import (
	"testing"
	"time"

	"github.com/tracerender/trace/tracer"
)

// TestDuplicateGoesToAnotherWorker: once the queue is dry, a worker is
// offered duplicates only of tiles another worker holds, the slowest
// first: a second lease to the worker that holds the first (a remote
// worker's window, another thread of the same pool) is work wasted. A
// tile whose lease ends is the other holder's alone from then on.
func TestDuplicateGoesToAnotherWorker(t *testing.T) {
	const a, b = 0, 1
	tiles := Tiles(8*3, 8, 8)
	q := newQueue(tiles, tracer.NewFramebuffer(8*3, 8), DefaultMaxAttempts, true, make(chan event, 16), 2)
	var clock time.Duration
	q.now = func() time.Time { return time.Unix(0, 0).Add(clock) }
	leases := map[[2]int]Lease{} // by worker and tile
	// step asks for a lease for worker and checks the tile it gets, or
	// that it gets none (tile −1).
	step := func(what string, worker, tile int, dup bool) {
		t.Helper()
		l, ok, err := q.tryNext(worker)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if tile < 0 {
			if ok {
				t.Errorf("%s: worker %d leased tile %d (duplicate %v), want none", what, worker, l.Tile.ID, l.Duplicate)
			}
			return
		}
		if !ok || l.Tile.ID != tile || l.Duplicate != dup || l.Worker != worker {
			t.Fatalf("%s: worker %d got tile %d (ok %v, duplicate %v), want tile %d (duplicate %v)", what, worker, l.Tile.ID, ok, l.Duplicate, tile, dup)
		}
		leases[[2]int{worker, tile}] = l
		clock += time.Millisecond
	}
	step("a's first tile", a, 0, false)
	step("a's second tile", a, 1, false)
	step("b's tile", b, 2, false)
	step("a, the queue dry: b's tile, not its own older ones", a, 2, true)
	step("a again: every other tile is its own", a, -1, false)
	step("b: a's slowest tile", b, 0, true)
	step("b: a's next tile", b, 1, true)
	step("b again: every tile has two leases out", b, -1, false)

	// a gives tile 0 back: b holds it alone, and a may race it again.
	q.Release(leases[[2]int{a, 0}])
	step("b, holding tile 0 alone", b, -1, false)
	step("a, after giving tile 0 back", a, 0, true)
}
