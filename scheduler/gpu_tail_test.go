package scheduler

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tracerender/trace/tracer"
)

// This file runs one GPU and a pool of CPU threads over the real Queue in
// virtual time, the GPU leasing its batches with GPUWorker.lease itself,
// to see how a frame's tail goes when the GPU is much faster than the
// threads. A launch costs a fixed overhead plus a time in proportion to
// its pixels; a thread's tile, a time in proportion to its pixels.

// tailConfig describes one simulated frame.
type tailConfig struct {
	tiles       []Tile
	threads     int           // CPU threads; 0: the GPU alone
	cpuTile     time.Duration // a thread's time on a full tile
	tilePixels  int           // a full tile's pixels
	gpu         bool
	batchPixels int           // the GPU's BatchPixels
	gpuBatch    time.Duration // the device's time on batchPixels pixels
	launch      time.Duration // the fixed cost of every launch
	duplicates  bool
}

// tailResult is how a simulated frame went.
type tailResult struct {
	makespan         time.Duration // until the last tile was accepted
	launches         int
	gpuTiles         int // accepted from the GPU
	cpuTiles         int // accepted from the threads
	gpuDups, cpuDups int // duplicate leases taken
	dropped          int // results that lost the race
}

// tailEvent is a launch or a thread's tile ending.
type tailEvent struct {
	at     time.Duration
	seq    int
	thread int // −1: the GPU
	leases []Lease
}

type tailHeap []tailEvent

func (h tailHeap) Len() int { return len(h) }
func (h tailHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h tailHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *tailHeap) Push(x any)   { *h = append(*h, x.(tailEvent)) }
func (h *tailHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// simulateTail renders cfg's frame in virtual time. The threads lease
// first, as they do in a render (the GPU uploads the scene first); after
// that, whoever finishes leases first, then every idle worker tries
// again, as the queue's broadcast wakes every waiting Next. A GPU batch
// reaches the queue as the launch ends, so lease needs no settle.
func simulateTail(cfg tailConfig) (tailResult, error) {
	const cpu, gpuIndex = 0, 1
	var res tailResult
	bounds := cfg.tiles[0].Rect
	for _, t := range cfg.tiles {
		bounds = bounds.Union(t.Rect)
	}
	events := make(chan event, 1)
	q := newQueue(cfg.tiles, tracer.NewFramebuffer(bounds.Max.X, bounds.Max.Y), DefaultMaxAttempts, cfg.duplicates, events, 2)
	var clock time.Duration
	q.now = func() time.Time { return time.Unix(0, 0).Add(clock) }
	pix := make([]float32, 3*cfg.tilePixels)
	complete := func(l Lease) bool {
		ok := q.Complete(l, pix[:3*l.Tile.Rect.Dx()*l.Tile.Rect.Dy()], tracer.Stats{})
		<-events
		if !ok {
			res.dropped++
		}
		return ok
	}

	var h tailHeap
	seq := 0
	push := func(e tailEvent) {
		e.seq = seq
		seq++
		heap.Push(&h, e)
	}
	idle := make([]bool, cfg.threads)
	gpuIdle, gpuDone := cfg.gpu, false
	w := &GPUWorker{BatchPixels: cfg.batchPixels}
	now, cancel := context.WithCancel(context.Background())
	cancel() // lease without waiting: a waiting worker is idle
	startGPU := func() error {
		if !gpuIdle || gpuDone {
			return nil
		}
		b, err := w.lease(now, q, gpuIndex, nil, nil, w.batchPixels())
		switch {
		case errors.Is(err, ErrNoMoreTiles):
			gpuDone = true
			return nil
		case errors.Is(err, context.Canceled):
			return nil // nothing to lease until the queue changes
		case err != nil:
			return err
		}
		px := 0
		for _, l := range b {
			px += l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
			if l.Duplicate {
				res.gpuDups++
			}
		}
		gpuIdle = false
		res.launches++
		d := cfg.launch + time.Duration(float64(cfg.gpuBatch)*float64(px)/float64(cfg.batchPixels))
		push(tailEvent{at: clock + d, thread: -1, leases: b})
		return nil
	}
	startCPU := func(i int) {
		if !idle[i] {
			return
		}
		l, ok, err := q.tryNext(cpu)
		if !ok || err != nil {
			return
		}
		if l.Duplicate {
			res.cpuDups++
		}
		idle[i] = false
		d := time.Duration(float64(cfg.cpuTile) * float64(l.Tile.Rect.Dx()*l.Tile.Rect.Dy()) / float64(cfg.tilePixels))
		push(tailEvent{at: clock + d, thread: i, leases: []Lease{l}})
	}
	startAll := func() error {
		if err := startGPU(); err != nil {
			return err
		}
		for i := range idle {
			startCPU(i)
		}
		return nil
	}

	for i := range idle {
		idle[i] = true
		startCPU(i)
	}
	if err := startGPU(); err != nil {
		return res, err
	}
	for h.Len() > 0 && q.Remaining() > 0 {
		e := heap.Pop(&h).(tailEvent)
		clock = e.at
		if e.thread < 0 {
			for _, l := range e.leases {
				if complete(l) {
					res.gpuTiles++
				}
			}
			gpuIdle = true
			if err := startGPU(); err != nil {
				return res, err
			}
		} else {
			if complete(e.leases[0]) {
				res.cpuTiles++
			}
			idle[e.thread] = true
			startCPU(e.thread)
		}
		if err := startAll(); err != nil {
			return res, err
		}
	}
	if n := q.Remaining(); n > 0 {
		return res, fmt.Errorf("simulation stopped at %v with %d tiles left", clock, n)
	}
	res.makespan = clock
	return res, nil
}

// TestGPUTailDuplicates: with duplicates on, a GPU beside CPU threads
// never ends the frame later than without them, and its tail takes at
// most one launch more: once the queue is dry it races every tile the
// threads hold in one launch, not one launch (with its fixed cost) per
// tile, and it does not lengthen a launch of free tiles with duplicates.
// The frame is the one measured on an H200 with 16 cores: 1920×1080 in
// 2,040 tiles of 32×32, a launch of 396 tiles in 0.22 s plus 10 ms, 16
// threads; a thread's tile takes 0.1 to 0.6 s, a launch 0.15 to 0.3 s.
func TestGPUTailDuplicates(t *testing.T) {
	const tile = DefaultTileSize * DefaultTileSize
	base := tailConfig{
		tiles: Tiles(1920, 1080, DefaultTileSize), threads: 16, cpuTile: 200 * time.Millisecond, tilePixels: tile,
		gpu: true, batchPixels: 396 * tile, gpuBatch: 220 * time.Millisecond, launch: 10 * time.Millisecond,
	}
	run := func(cfg tailConfig) tailResult {
		t.Helper()
		res, err := simulateTail(cfg)
		if err != nil {
			t.Fatalf("CPU tile %v, GPU batch %v, duplicates %v: %v", cfg.cpuTile, cfg.gpuBatch, cfg.duplicates, err)
		}
		if res.gpuTiles+res.cpuTiles != len(cfg.tiles) {
			t.Errorf("%d + %d tiles accepted, want %d", res.gpuTiles, res.cpuTiles, len(cfg.tiles))
		}
		return res
	}
	for cpuTile := 100 * time.Millisecond; cpuTile <= 600*time.Millisecond; cpuTile += 50 * time.Millisecond {
		for gpuBatch := 150 * time.Millisecond; gpuBatch <= 300*time.Millisecond; gpuBatch += 25 * time.Millisecond {
			cfg := base
			cfg.cpuTile, cfg.gpuBatch = cpuTile, gpuBatch
			plain := run(cfg)
			cfg.duplicates = true
			dups := run(cfg)
			if dups.makespan > plain.makespan || dups.launches > plain.launches+1 {
				t.Errorf("CPU tile %v, GPU batch %v: %v in %d launches with duplicates, %v in %d without",
					cpuTile, gpuBatch, dups.makespan, dups.launches, plain.makespan, plain.launches)
			}
		}
	}
	for _, c := range []struct {
		name       string
		threads    int
		cpuTile    time.Duration
		duplicates bool
	}{
		{"GPU alone", 0, 0, false},
		{"GPU + 16 threads", 16, 200 * time.Millisecond, false},
		{"GPU + 16 threads, duplicates", 16, 200 * time.Millisecond, true},
		{"GPU + 16 slower threads", 16, 300 * time.Millisecond, false},
		{"GPU + 16 slower threads, duplicates", 16, 300 * time.Millisecond, true},
	} {
		cfg := base
		cfg.threads, cfg.duplicates = c.threads, c.duplicates
		if c.cpuTile > 0 {
			cfg.cpuTile = c.cpuTile
		}
		r := run(cfg)
		t.Logf("%-36s %.3f s: %d launches, tiles gpu %d cpu %d, duplicates gpu %d cpu %d, %d dropped",
			c.name, r.makespan.Seconds(), r.launches, r.gpuTiles, r.cpuTiles, r.gpuDups, r.cpuDups, r.dropped)
	}
}
