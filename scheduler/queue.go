package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracerender/trace/tracer"
)

// Lease is a tile handed to one worker. The worker ends it with exactly one
// call to Queue.Complete or Queue.Fail.
type Lease struct {
	Tile   Tile
	Worker int // index of the leasing worker in the render's worker list
	// Duplicate is true for a second lease of a tile that another worker
	// still holds, taken when nothing else was left to do.
	Duplicate bool
	start     time.Time
	partial   *atomic.Int64 // pixels rendered so far, for Advance
}

// Advance reports that n more pixels of the leased tile are rendered, so
// that the progress reports move inside a tile (Progress.PixelsInFlight).
// A worker that returns a tile in one piece need not call it; the count
// ends with the lease.
func (l Lease) Advance(n int) {
	if l.partial != nil {
		l.partial.Add(int64(n))
	}
}

// tileState is the queue's record of one tile.
type tileState struct {
	done     bool
	out      int       // leases outstanding
	holders  []int     // the workers of those leases, one entry a lease
	failures []string  // causes of failed leases, oldest first
	first    time.Time // when the tile was first leased
	failedBy int       // 1 + the worker of the last failed lease; 0: none
}

// Queue hands out the tiles of one frame as leases, takes finished tiles,
// and re-queues failed ones. It is safe for concurrent use.
type Queue struct {
	mu          sync.Mutex
	tiles       []Tile
	state       []tileState
	pending     []int // tile IDs waiting for a lease, in order
	remaining   int   // tiles not yet done
	maxAttempts int
	duplicates  bool
	err         error
	wake        chan struct{} // closed and replaced on every change
	fb          *tracer.Framebuffer
	events      chan<- event
	workers     int // worker indices handed out: the render's list, then Join's
	// now is the clock of lease times and of the duplicate choice:
	// time.Now, or a simulation's virtual clock (see sim_test.go).
	now func() time.Time
	// partials are the Advance counters of the leases outstanding.
	partials map[*atomic.Int64]struct{}
	// keepPixels copies accepted tiles' pixels into their events.
	keepPixels bool
}

// event is sent to the render loop for each accepted or failed lease.
type event struct {
	worker  int
	tile    Tile
	stats   tracer.Stats
	busy    time.Duration
	failed  bool
	dropped bool            // a later duplicate's result, discarded
	joined  *WorkerProgress // a worker that joined the render (Queue.Join)
	pix     []float32       // an accepted tile's pixels, when Options.Tile wants them
	wake    bool            // no lease: Abort wakes the render loop
}

// ErrNoMoreTiles is returned by Next when every tile is done or the render
// has failed.
var ErrNoMoreTiles = errors.New("no more tiles")

func newQueue(tiles []Tile, fb *tracer.Framebuffer, maxAttempts int, duplicates bool, events chan<- event, workers int) *Queue {
	q := &Queue{
		tiles: tiles, state: make([]tileState, len(tiles)),
		remaining: len(tiles), maxAttempts: maxAttempts, duplicates: duplicates,
		wake: make(chan struct{}), fb: fb, events: events, workers: workers,
		now: time.Now, partials: map[*atomic.Int64]struct{}{},
	}
	for i := range tiles {
		q.pending = append(q.pending, i)
	}
	return q
}

// preload marks the tiles of finished (see Options.Finished) done, with
// their pixels in the framebuffer, and takes them off the pending list. It
// is called before any worker starts, and returns the number of pixels
// preloaded, or an error naming the first tile (by ID) that is not in the
// frame or whose pixel count does not match its rectangle.
func (q *Queue) preload(finished map[int][]float32) (pixels int, err error) {
	if len(finished) == 0 {
		return 0, nil
	}
	ids := slices.Sorted(maps.Keys(finished))
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range ids {
		if id < 0 || id >= len(q.tiles) {
			return 0, fmt.Errorf("finished tile %d: the frame has tiles 0 to %d", id, len(q.tiles)-1)
		}
		r := q.tiles[id].Rect
		if n := len(finished[id]); n != 3*r.Dx()*r.Dy() {
			return 0, fmt.Errorf("finished tile %d: %d values, want %d for its %d×%d pixels", id, n, 3*r.Dx()*r.Dy(), r.Dx(), r.Dy())
		}
	}
	for _, id := range ids {
		r := q.tiles[id].Rect
		q.state[id].done = true
		q.fb.SetBlock(r, finished[id])
		pixels += r.Dx() * r.Dy()
	}
	q.remaining -= len(ids)
	q.pending = slices.DeleteFunc(q.pending, func(id int) bool { return q.state[id].done })
	return pixels, nil
}

// broadcast wakes every waiter. q.mu must be held.
func (q *Queue) broadcast() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// Join adds a worker that appeared during the render — one machine of a
// worker pool that was found later, say — to the progress reports, and
// returns the index it passes to Next.
func (q *Queue) Join(name string, kind WorkerKind, threads int) int {
	q.mu.Lock()
	i := q.workers
	q.workers++
	q.mu.Unlock()
	q.events <- event{worker: i, joined: &WorkerProgress{Name: name, Kind: kind, Threads: threads}}
	return i
}

// Next blocks until a tile can be leased to worker and returns its lease,
// or returns ErrNoMoreTiles when the frame is finished or failed, or ctx's
// error.
func (q *Queue) Next(ctx context.Context, worker int) (Lease, error) {
	for {
		q.mu.Lock()
		l, ok, err := q.nextLocked(worker)
		wake := q.wake
		q.mu.Unlock()
		if ok || err != nil {
			return l, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return Lease{}, ctx.Err()
		}
	}
}

// tryNext is Next without the wait: ok is false when nothing can be leased
// to worker until the queue changes (a tile completes, fails or is
// released).
func (q *Queue) tryNext(worker int) (l Lease, ok bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.nextLocked(worker)
}

// nextLocked leases the next pending tile, or a duplicate of the slowest
// outstanding one, to worker. q.mu must be held.
func (q *Queue) nextLocked(worker int) (Lease, bool, error) {
	if q.err != nil || q.remaining == 0 {
		return Lease{}, false, ErrNoMoreTiles
	}
	if len(q.pending) > 0 {
		// A re-queued tile waits at the front for a worker other than
		// the one it failed on, while this one has other tiles to take.
		// When it has none, it retries the tile re-queued longest ago
		// (the last), so that one worker's failures go round its tiles.
		i := 0
		for i < len(q.pending) && q.state[q.pending[i]].failedBy == worker+1 {
			i++
		}
		if i == len(q.pending) {
			i = len(q.pending) - 1
		}
		id := q.pending[i]
		if i == 0 {
			q.pending = q.pending[1:]
		} else {
			q.pending = slices.Delete(q.pending, i, i+1)
		}
		return q.lease(id, worker, false), true, nil
	}
	if q.duplicates {
		if id := q.slowest(worker); id >= 0 {
			return q.lease(id, worker, true), true, nil
		}
	}
	return Lease{}, false, nil
}

func (q *Queue) lease(id, worker int, dup bool) Lease {
	st := &q.state[id]
	now := q.now()
	if st.first.IsZero() {
		st.first = now
	}
	st.out++
	st.holders = append(st.holders, worker)
	partial := new(atomic.Int64)
	q.partials[partial] = struct{}{}
	return Lease{Tile: q.tiles[id], Worker: worker, Duplicate: dup, start: now, partial: partial}
}

// endLease takes a lease that ended off its tile's count and forgets its
// Advance counter. q.mu must be held.
func (q *Queue) endLease(l Lease) {
	delete(q.partials, l.partial)
	st := &q.state[l.Tile.ID]
	st.out--
	if i := slices.Index(st.holders, l.Worker); i >= 0 {
		st.holders = slices.Delete(st.holders, i, i+1)
	}
}

// inFlight returns the pixels rendered inside the leases outstanding (a
// tile leased twice counts twice).
func (q *Queue) inFlight() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := int64(0)
	for p := range q.partials {
		n += p.Load()
	}
	return int(n)
}

// slowest returns the outstanding tile leased longest ago that has only one
// lease out, held by another worker than worker, or −1. A second lease to
// the worker that holds the first would only queue the tile behind itself
// (a remote worker's window) or render it again beside itself at the same
// speed (another thread of the same pool): work wasted, and never sooner.
// q.mu must be held.
func (q *Queue) slowest(worker int) int {
	best := -1
	for i := range q.state {
		st := &q.state[i]
		if st.done || st.out != 1 || st.holders[0] == worker {
			continue
		}
		if best < 0 || st.first.Before(q.state[best].first) {
			best = i
		}
	}
	return best
}

// Complete delivers a leased tile's pixels (see tracer.Framebuffer.SetBlock)
// and the work it took. The first result for a tile wins; it returns false
// when the tile was already done and the pixels were dropped.
func (q *Queue) Complete(l Lease, pix []float32, st tracer.Stats) bool {
	q.mu.Lock()
	q.endLease(l)
	s := &q.state[l.Tile.ID]
	accepted := !s.done && q.err == nil
	if accepted {
		s.done = true
		q.remaining--
		q.fb.SetBlock(l.Tile.Rect, pix)
		q.broadcast()
	}
	q.mu.Unlock()
	ev := event{worker: l.Worker, tile: l.Tile, stats: st, busy: q.now().Sub(l.start), dropped: !accepted}
	if accepted && q.keepPixels {
		ev.pix = append([]float32(nil), pix...)
	}
	q.events <- ev
	return accepted
}

// Fail reports that a lease could not be finished. The tile goes back to
// the queue unless it has failed maxAttempts times, which fails the render.
func (q *Queue) Fail(l Lease, cause error) {
	q.mu.Lock()
	q.endLease(l)
	s := &q.state[l.Tile.ID]
	if !s.done && q.err == nil {
		s.failures = append(s.failures, cause.Error())
		s.failedBy = l.Worker + 1
		if len(s.failures) >= q.maxAttempts {
			r := l.Tile.Rect
			q.err = fmt.Errorf("tile %d (pixels %d,%d–%d,%d) failed %d times: %s",
				l.Tile.ID, r.Min.X, r.Min.Y, r.Max.X-1, r.Max.Y-1, len(s.failures),
				strings.Join(s.failures, "; "))
		} else if s.out == 0 {
			q.requeue(l.Tile.ID)
		}
		q.broadcast()
	}
	q.mu.Unlock()
	q.events <- event{worker: l.Worker, tile: l.Tile, busy: q.now().Sub(l.start), failed: true}
}

// requeue puts a tile whose lease ended without a result at the front of
// the queue: it was due long ago, and at the back it would be among the last
// tiles handed out, where an expensive one holds up the end of the frame
// (nextLocked keeps it from the worker it just failed on). q.mu must be
// held.
func (q *Queue) requeue(id int) {
	q.pending = slices.Insert(q.pending, 0, id)
}

// Release ends a lease without a result and without counting a failure,
// for a worker that is shutting down: the tile goes back to the queue.
func (q *Queue) Release(l Lease) {
	q.mu.Lock()
	q.endLease(l)
	s := &q.state[l.Tile.ID]
	if !s.done && s.out == 0 {
		q.requeue(l.Tile.ID)
	}
	q.broadcast()
	q.mu.Unlock()
}

// Abort fails the render with err, for a worker that has met an error no
// retry can mend (a worker machine that refuses this coordinator's
// credentials, say): no more leases are handed out, the other workers are
// stopped and Render returns err. A render that has failed already keeps
// its first error.
func (q *Queue) Abort(err error) {
	q.mu.Lock()
	if q.err == nil && q.remaining > 0 {
		q.err = err
		q.broadcast()
	}
	q.mu.Unlock()
	q.events <- event{wake: true}
}

// Err returns the error that failed the render, if any.
func (q *Queue) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Remaining returns the number of tiles not yet done.
func (q *Queue) Remaining() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.remaining
}
