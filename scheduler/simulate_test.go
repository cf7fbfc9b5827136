package scheduler

import (
	"container/heap"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/tracerender/trace/tracer"
)

// This file drives the real Queue with simulated workers in virtual time, to
// see how the lease policy scales to more machines than a test has: each
// worker holds a window of leases like a remote worker (scheduler/remote),
// renders them on its threads in arrival order, and every message between
// coordinator and worker takes a fixed one-way latency. Only the queue's
// clock is simulated; its lease, retry and duplicate logic is the real one.

// simConfig describes one simulated render.
type simConfig struct {
	tiles []Tile
	// cost is the time each tile takes on one thread, indexed by tile ID.
	cost    []time.Duration
	rays    []uint64 // reported as the tile's tracer.Stats.Rays; may be nil
	workers int
	threads int // per worker
	// window is how many leases a worker holds at once; 0 means twice its
	// threads, as the remote client does.
	window     int
	latency    time.Duration // one way, for every lease and every result
	duplicates bool
	// failWorker, if ≥ 0, drops its connection at failAt: its leases fail
	// (results in flight are lost, tiles being rendered are abandoned), and
	// it comes back failBack later, or never when failBack < 0.
	failWorker int
	failAt     time.Duration
	failBack   time.Duration
	// fb receives the tiles' pixels, which are all zero; nil means a new
	// framebuffer just large enough for the tiles.
	fb *tracer.Framebuffer
}

// simResult is the outcome of one simulated render.
type simResult struct {
	makespan time.Duration // virtual time until the last tile was accepted
	work     time.Duration // sum of the tiles' costs
	// efficiency is the ideal time (work over all threads) over makespan.
	efficiency float64
	leases     int // leases handed out, duplicates and re-leases included
	duplicates int // leases that were duplicates
	dropped    int // results that lost to an earlier one
	failed     int // leases failed by the failing worker
	accepted   []int
	// coordinator is the wall time spent in Queue calls and in applying
	// their events to the progress, the coordinator's own work.
	coordinator time.Duration
	progress    Progress
}

// simEvent is something that happens at a virtual time.
type simEvent struct {
	at     time.Duration
	seq    int // breaks ties in the order the events were made
	kind   simKind
	worker int
	epoch  int // the worker's connection the event belongs to
	lease  int // index into simulation.leases
}

type simKind int

const (
	simArrive  simKind = iota // a lease reaches its worker
	simFinish                 // a worker's thread finishes a tile
	simDeliver                // a tile's result reaches the coordinator
	simFail                   // a worker's connection breaks
	simRejoin                 // a failed worker is back
)

type simQueue []simEvent

func (h simQueue) Len() int { return len(h) }
func (h simQueue) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h simQueue) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *simQueue) Push(x any)   { *h = append(*h, x.(simEvent)) }
func (h *simQueue) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// simWorker is the state of one simulated worker.
type simWorker struct {
	up       bool
	finished bool  // Next said there are no more tiles
	waiting  bool  // the window has room, but the queue had nothing
	epoch    int   // connection number; events of older ones are void
	out      []int // leases held, as the coordinator sees them
	local    []int // leases arrived and waiting for a thread, in order
	busy     int   // threads rendering
}

// simulation is one simulated render in progress.
type simulation struct {
	cfg     simConfig
	q       *Queue
	events  chan event
	clock   time.Duration
	base    time.Time
	heap    simQueue
	seq     int
	workers []simWorker
	leases  []Lease
	pix     []float32
	res     simResult
}

// simulate runs cfg to the end and returns what happened.
func simulate(cfg simConfig) (simResult, error) {
	if cfg.workers < 1 || cfg.threads < 1 || len(cfg.cost) != len(cfg.tiles) {
		return simResult{}, fmt.Errorf("simulation: %d workers, %d threads, %d costs for %d tiles",
			cfg.workers, cfg.threads, len(cfg.cost), len(cfg.tiles))
	}
	if cfg.window <= 0 {
		cfg.window = max(2*cfg.threads, 2)
	}
	maxPix := 0
	var bounds image.Rectangle
	for _, t := range cfg.tiles {
		maxPix = max(maxPix, 3*t.Rect.Dx()*t.Rect.Dy())
		bounds = bounds.Union(t.Rect)
	}
	if cfg.fb == nil {
		cfg.fb = tracer.NewFramebuffer(bounds.Max.X, bounds.Max.Y)
	}
	s := &simulation{
		cfg:     cfg,
		events:  make(chan event, 4),
		base:    time.Unix(0, 0),
		workers: make([]simWorker, cfg.workers),
		pix:     make([]float32, maxPix),
	}
	s.res.accepted = make([]int, len(cfg.tiles))
	s.res.progress.TilesTotal = len(cfg.tiles)
	s.res.progress.Workers = make([]WorkerProgress, cfg.workers)
	for i := range s.res.progress.Workers {
		s.res.progress.Workers[i] = WorkerProgress{Name: fmt.Sprintf("sim%d", i), Kind: "remote", Threads: cfg.threads}
	}
	for _, c := range cfg.cost {
		s.res.work += c
	}
	s.q = newQueue(cfg.tiles, cfg.fb, DefaultMaxAttempts, cfg.duplicates, s.events, cfg.workers)
	s.q.now = func() time.Time { return s.base.Add(s.clock) }

	for i := range s.workers {
		s.workers[i].up = true
		s.fill(i)
	}
	if cfg.failWorker >= 0 && cfg.failWorker < cfg.workers {
		s.push(simEvent{at: cfg.failAt, kind: simFail, worker: cfg.failWorker})
	}
	for s.heap.Len() > 0 {
		e := heap.Pop(&s.heap).(simEvent)
		s.clock = e.at
		if err := s.step(e); err != nil {
			return s.res, err
		}
		if s.q.Remaining() == 0 {
			break
		}
	}
	if n := s.q.Remaining(); n > 0 {
		return s.res, fmt.Errorf("simulation stopped at %v with %d tiles left", s.clock, n)
	}
	s.res.makespan = s.clock
	total := float64(cfg.workers * cfg.threads)
	s.res.efficiency = float64(s.res.work) / total / float64(s.res.makespan)
	return s.res, nil
}

func (s *simulation) push(e simEvent) {
	e.seq = s.seq
	s.seq++
	heap.Push(&s.heap, e)
}

// step handles one event.
func (s *simulation) step(e simEvent) error {
	w := &s.workers[e.worker]
	if e.kind != simFail && e.kind != simRejoin && e.epoch != w.epoch {
		return nil // belongs to a broken connection
	}
	switch e.kind {
	case simArrive:
		w.local = append(w.local, e.lease)
		s.start(e.worker)
	case simFinish:
		w.busy--
		s.push(simEvent{at: s.clock + s.cfg.latency, kind: simDeliver, worker: e.worker, epoch: w.epoch, lease: e.lease})
		s.start(e.worker)
	case simDeliver:
		s.dropOut(e.worker, e.lease)
		l := s.leases[e.lease]
		n := 3 * l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
		var st tracer.Stats
		if s.cfg.rays != nil {
			st.Rays = s.cfg.rays[l.Tile.ID]
		}
		t0 := time.Now()
		accepted := s.q.Complete(l, s.pix[:n], st)
		s.drain()
		s.res.coordinator += time.Since(t0)
		if accepted {
			s.res.accepted[l.Tile.ID]++
		} else {
			s.res.dropped++
		}
		s.fill(e.worker)
		if accepted {
			s.wakeAll()
		}
	case simFail:
		if !w.up {
			return nil
		}
		w.up, w.waiting = false, false
		w.epoch++
		out := w.out
		w.out, w.local, w.busy = nil, nil, 0
		for _, id := range out {
			t0 := time.Now()
			s.q.Fail(s.leases[id], errors.New("simulated connection failure"))
			s.drain()
			s.res.coordinator += time.Since(t0)
			s.res.failed++
		}
		if s.cfg.failBack >= 0 {
			s.push(simEvent{at: s.clock + s.cfg.failBack, kind: simRejoin, worker: e.worker})
		}
		if err := s.q.Err(); err != nil {
			return err
		}
		s.wakeAll()
	case simRejoin:
		if !w.finished {
			w.up = true
			s.fill(e.worker)
		}
	}
	return nil
}

// start puts the worker's idle threads on its waiting leases.
func (s *simulation) start(worker int) {
	w := &s.workers[worker]
	for w.busy < s.cfg.threads && len(w.local) > 0 {
		id := w.local[0]
		w.local = w.local[1:]
		w.busy++
		cost := s.cfg.cost[s.leases[id].Tile.ID]
		s.push(simEvent{at: s.clock + cost, kind: simFinish, worker: worker, epoch: w.epoch, lease: id})
	}
}

// fill leases tiles to the worker until its window is full, as the remote
// client's sender does, and sends them on their way.
func (s *simulation) fill(worker int) {
	w := &s.workers[worker]
	w.waiting = false
	for w.up && !w.finished && len(w.out) < s.cfg.window {
		t0 := time.Now()
		l, ok, err := s.q.tryNext(worker)
		s.res.coordinator += time.Since(t0)
		if err != nil {
			w.finished = true
			return
		}
		if !ok {
			w.waiting = true
			return
		}
		s.res.leases++
		if l.Duplicate {
			s.res.duplicates++
		}
		id := len(s.leases)
		s.leases = append(s.leases, l)
		w.out = append(w.out, id)
		s.push(simEvent{at: s.clock + s.cfg.latency, kind: simArrive, worker: worker, epoch: w.epoch, lease: id})
	}
}

// wakeAll lets every waiting worker try again after the queue changed, as
// the queue's broadcast wakes every blocked Next.
func (s *simulation) wakeAll() {
	for i := range s.workers {
		if s.workers[i].waiting {
			s.fill(i)
		}
	}
}

// dropOut removes a lease from the worker's window.
func (s *simulation) dropOut(worker, lease int) {
	w := &s.workers[worker]
	for i, id := range w.out {
		if id == lease {
			w.out = append(w.out[:i], w.out[i+1:]...)
			return
		}
	}
}

// drain applies the queue's events to the progress, as Render's loop does.
func (s *simulation) drain() {
	for len(s.events) > 0 {
		s.res.progress.apply(<-s.events)
	}
}
