package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tracerender/trace/tracer"
)

// DefaultTileSize is the side of a tile in pixels when Options.TileSize is 0.
const DefaultTileSize = 32

// DefaultMaxAttempts is how many times a tile may fail before the render
// fails, when Options.MaxAttempts is 0.
const DefaultMaxAttempts = 3

// Options control a render.
type Options struct {
	TileSize    int      // pixels; 0 means DefaultTileSize
	MaxAttempts int      // failed leases per tile before the render fails; 0 means DefaultMaxAttempts
	Workers     []Worker // who renders; empty means one CPUWorker on every core
	// Duplicates lets idle workers take second leases of the slowest
	// outstanding tiles once the queue is empty, each of a tile another
	// worker holds (never the one that holds it); the first result wins.
	Duplicates bool
	// Progress, if set, is called once before the first tile and after
	// every finished or failed tile, from one goroutine at a time.
	Progress func(Progress)
	// ProgressEvery, if positive, also calls Progress this often while
	// the tiles render, so that a display can follow the pixels finished
	// inside tiles (Progress.PixelsInFlight) between whole tiles.
	ProgressEvery time.Duration
	// Tile, if set, is called with every accepted tile, before the
	// Progress call that counts it, from the same goroutine.
	Tile func(TileDone)
	// Finished holds tiles rendered before this render began — read back
	// from a checkpoint, say — by tile ID (see Tiles, with TileSize), each
	// one's pixels in linear RGB row by row, as TileDone carries them.
	// Render puts them in the framebuffer and counts them done before any
	// worker starts; the workers render only the other tiles. They are
	// counted in Progress.TilesResumed, not as any worker's work, and are
	// not passed to Tile. Render does not keep or change the slices.
	Finished map[int][]float32
}

// TileDone is an accepted tile.
type TileDone struct {
	Tile   Tile
	Worker int           // index into Progress.Workers
	Pixels []float32     // linear RGB, row by row; the callee may keep it
	Busy   time.Duration // from lease to result
	Stats  tracer.Stats
}

// WorkerProgress is one worker's share of the render so far.
type WorkerProgress struct {
	Name    string
	Kind    WorkerKind
	Threads int
	Tiles   int           // tiles accepted from this worker
	Pixels  int           // pixels in those tiles
	Dropped int           // duplicate results that lost the race
	Retries int           // leases that failed
	Stats   tracer.Stats  // work in accepted and dropped tiles
	Busy    time.Duration // summed lease time of its tiles
}

// Progress is a snapshot of a render.
type Progress struct {
	TilesDone, TilesTotal int
	PixelsDone, Pixels    int
	Elapsed               time.Duration
	Stats                 tracer.Stats // all workers' work so far
	Workers               []WorkerProgress
	// TilesResumed and PixelsResumed count the tiles of Options.Finished:
	// they are part of TilesDone and PixelsDone, but no worker's work.
	TilesResumed, PixelsResumed int
	// PixelsInFlight counts the pixels rendered inside tiles still out
	// (see Lease.Advance; a tile leased twice counts twice): not part of
	// PixelsDone. Each of them took Settings.Samples samples.
	PixelsInFlight int
}

// ETA estimates the time left from the pixels rendered so far (resumed
// pixels took no time here, so they do not count toward the rate).
func (p Progress) ETA() time.Duration {
	rendered := p.PixelsDone - p.PixelsResumed
	if rendered <= 0 {
		return 0
	}
	left := float64(p.Pixels-p.PixelsDone) / float64(rendered)
	return time.Duration(left * float64(p.Elapsed))
}

// Result is a finished render.
type Result struct {
	Framebuffer *tracer.Framebuffer
	Progress    Progress // the final counts
	// WorkerErrors holds the errors of workers that stopped early while
	// the others finished the frame, each prefixed with the worker's name:
	// the image is complete, but the user should hear of them.
	WorkerErrors []error
}

// Render renders scene with the given options and returns the stitched
// framebuffer. It returns ctx's error promptly when ctx is cancelled, and
// an error naming the tile when a tile keeps failing.
func Render(ctx context.Context, scene *tracer.Scene, opt Options) (*Result, error) {
	return RenderLazy(ctx, CompiledScene(scene), opt)
}

// RenderLazy is Render for a scene that is compiled only if a worker that
// traces rays in this process needs it: not when every worker is a
// RemoteWorker.
func RenderLazy(ctx context.Context, scene *LazyScene, opt Options) (*Result, error) {
	w, h := scene.Settings.Width, scene.Settings.Height
	size := opt.TileSize
	if size == 0 {
		size = DefaultTileSize
	}
	if size < 1 {
		return nil, fmt.Errorf("tile size %d: must be at least 1", size)
	}
	attempts := opt.MaxAttempts
	if attempts == 0 {
		attempts = DefaultMaxAttempts
	}
	workers := opt.Workers
	if len(workers) == 0 {
		workers = []Worker{&CPUWorker{}}
	}
	tiles := Tiles(w, h, size)
	fb := tracer.NewFramebuffer(w, h)
	events := make(chan event, 256)
	q := newQueue(tiles, fb, attempts, opt.Duplicates, events, len(workers))
	q.keepPixels = opt.Tile != nil
	resumed, err := q.preload(opt.Finished)
	if err != nil {
		return nil, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	prog := Progress{TilesTotal: len(tiles), Pixels: w * h,
		TilesDone: len(opt.Finished), TilesResumed: len(opt.Finished), PixelsDone: resumed, PixelsResumed: resumed}
	for _, wk := range workers {
		prog.Workers = append(prog.Workers, WorkerProgress{Name: wk.Name(), Kind: wk.Kind(), Threads: wk.Threads()})
	}
	if opt.Progress != nil {
		opt.Progress(prog) // the workers, before any tile
	}

	apply := func(ev event) {
		prog.apply(ev)
		if ev.pix != nil {
			opt.Tile(TileDone{Tile: ev.tile, Worker: ev.worker, Pixels: ev.pix, Busy: ev.busy, Stats: ev.stats})
		}
	}

	var wg sync.WaitGroup
	werrs := make([]error, len(workers))
	for i, wk := range workers {
		if q.Remaining() == 0 {
			break // all resumed: no worker need start (or dial a machine)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			werrs[i] = runWorker(ctx, wk, scene, q, i)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var tick <-chan time.Time
	if opt.ProgressEvery > 0 && opt.Progress != nil {
		t := time.NewTicker(opt.ProgressEvery)
		defer t.Stop()
		tick = t.C
	}

	for running := true; running; {
		select {
		case ev := <-events:
			apply(ev)
		case <-tick:
		case <-done:
			running = false
		}
		if q.Err() != nil || q.Remaining() == 0 {
			cancel() // stop the other workers' tiles, and any duplicates
		}
		prog.Elapsed = time.Since(start)
		if opt.Progress != nil {
			prog.PixelsInFlight = q.inFlight()
			opt.Progress(prog)
		}
	}
	for len(events) > 0 {
		apply(<-events)
	}
	prog.Elapsed = time.Since(start)
	prog.PixelsInFlight = 0
	if opt.Progress != nil {
		opt.Progress(prog)
	}

	if err := q.Err(); err != nil {
		return nil, err
	}
	if q.Remaining() > 0 && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if n := q.Remaining(); n > 0 {
		if err := errors.Join(werrs...); err != nil {
			return nil, fmt.Errorf("render stopped with %d tiles left: %w", n, err)
		}
		return nil, fmt.Errorf("render stopped with %d tiles left: every worker stopped, none with an error", n)
	}
	res := &Result{Framebuffer: fb, Progress: prog}
	for i, err := range werrs {
		switch {
		case err == nil:
		case !workers[i].Kind().Renders():
			// A cluster's errors are its machines', each named already;
			// one machine's cancellation hides no other machine's error.
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				if e != nil && !errors.Is(e, context.Canceled) {
					res.WorkerErrors = append(res.WorkerErrors, e)
				}
			}
		case errors.Is(err, context.Canceled):
		default:
			res.WorkerErrors = append(res.WorkerErrors, fmt.Errorf("worker %s: %w", workers[i].Name(), err))
		}
	}
	return res, nil
}

func (p *Progress) apply(ev event) {
	if ev.wake {
		return
	}
	if ev.joined != nil {
		for len(p.Workers) <= ev.worker {
			p.Workers = append(p.Workers, WorkerProgress{})
		}
		p.Workers[ev.worker] = *ev.joined
		return
	}
	wp := &p.Workers[ev.worker]
	wp.Busy += ev.busy
	switch {
	case ev.failed:
		wp.Retries++
	case ev.dropped:
		wp.Dropped++
		wp.Stats.Add(ev.stats)
		p.Stats.Add(ev.stats)
	default:
		n := ev.tile.Rect.Dx() * ev.tile.Rect.Dy()
		wp.Tiles++
		wp.Pixels += n
		wp.Stats.Add(ev.stats)
		p.TilesDone++
		p.PixelsDone += n
		p.Stats.Add(ev.stats)
	}
}
