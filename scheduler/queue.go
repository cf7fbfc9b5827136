package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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
}

// tileState is the queue's record of one tile.
type tileState struct {
	done     bool
	out      int       // leases outstanding
	failures []string  // causes of failed leases, oldest first
	first    time.Time // when the tile was first leased
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
}

// ErrNoMoreTiles is returned by Next when every tile is done or the render
// has failed.
var ErrNoMoreTiles = errors.New("no more tiles")

func newQueue(tiles []Tile, fb *tracer.Framebuffer, maxAttempts int, duplicates bool, events chan<- event, workers int) *Queue {
	q := &Queue{
		tiles: tiles, state: make([]tileState, len(tiles)),
		remaining: len(tiles), maxAttempts: maxAttempts, duplicates: duplicates,
		wake: make(chan struct{}), fb: fb, events: events, workers: workers,
	}
	for i := range tiles {
		q.pending = append(q.pending, i)
	}
	return q
}

// broadcast wakes every waiter. q.mu must be held.
func (q *Queue) broadcast() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// Join adds a worker that appeared during the render — one machine of a
// worker pool that was found later, say — to the progress reports, and
// returns the index it passes to Next.
func (q *Queue) Join(name, kind string, threads int) int {
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
		if q.err != nil || q.remaining == 0 {
			q.mu.Unlock()
			return Lease{}, ErrNoMoreTiles
		}
		if len(q.pending) > 0 {
			id := q.pending[0]
			q.pending = q.pending[1:]
			l := q.lease(id, worker, false)
			q.mu.Unlock()
			return l, nil
		}
		if q.duplicates {
			if id := q.slowest(); id >= 0 {
				l := q.lease(id, worker, true)
				q.mu.Unlock()
				return l, nil
			}
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Lease{}, ctx.Err()
		}
	}
}

func (q *Queue) lease(id, worker int, dup bool) Lease {
	st := &q.state[id]
	now := time.Now()
	if st.first.IsZero() {
		st.first = now
	}
	st.out++
	return Lease{Tile: q.tiles[id], Worker: worker, Duplicate: dup, start: now}
}

// slowest returns the outstanding tile leased longest ago that has only one
// lease out, or −1. q.mu must be held.
func (q *Queue) slowest() int {
	best := -1
	for i := range q.state {
		st := &q.state[i]
		if st.done || st.out != 1 {
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
	s := &q.state[l.Tile.ID]
	s.out--
	accepted := !s.done && q.err == nil
	if accepted {
		s.done = true
		q.remaining--
		q.fb.SetBlock(l.Tile.Rect, pix)
		q.broadcast()
	}
	q.mu.Unlock()
	q.events <- event{worker: l.Worker, tile: l.Tile, stats: st, busy: time.Since(l.start), dropped: !accepted}
	return accepted
}

// Fail reports that a lease could not be finished. The tile goes back to
// the queue unless it has failed maxAttempts times, which fails the render.
func (q *Queue) Fail(l Lease, cause error) {
	q.mu.Lock()
	s := &q.state[l.Tile.ID]
	s.out--
	if !s.done && q.err == nil {
		s.failures = append(s.failures, cause.Error())
		if len(s.failures) >= q.maxAttempts {
			r := l.Tile.Rect
			q.err = fmt.Errorf("tile %d (pixels %d,%d–%d,%d) failed %d times: %s",
				l.Tile.ID, r.Min.X, r.Min.Y, r.Max.X-1, r.Max.Y-1, len(s.failures),
				strings.Join(s.failures, "; "))
		} else if s.out == 0 {
			q.pending = append(q.pending, l.Tile.ID)
		}
		q.broadcast()
	}
	q.mu.Unlock()
	q.events <- event{worker: l.Worker, tile: l.Tile, busy: time.Since(l.start), failed: true}
}

// Release ends a lease without a result and without counting a failure,
// for a worker that is shutting down: the tile goes back to the queue.
func (q *Queue) Release(l Lease) {
	q.mu.Lock()
	s := &q.state[l.Tile.ID]
	s.out--
	if !s.done && s.out == 0 {
		q.pending = append(q.pending, l.Tile.ID)
	}
	q.broadcast()
	q.mu.Unlock()
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
