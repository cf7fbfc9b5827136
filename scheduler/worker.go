package scheduler

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync"

	"github.com/tracerender/trace/tracer"
)

// Worker renders leased tiles. Run pulls leases from q until Next reports
// ErrNoMoreTiles or ctx is cancelled, ending each lease with Complete,
// Fail or Release; index is the worker's position in the render's worker
// list, to be passed to Next. q is the render's Queue, or, in trace
// worker, the leases of a render stream: the same Run renders tiles on
// both ends of the wire.
type Worker interface {
	// Name identifies the worker in progress reports, e.g. "cpu".
	Name() string
	// Kind says what renders the tiles (see WorkerKind).
	Kind() WorkerKind
	// Threads is how many tiles the worker renders at once.
	Threads() int
	Run(ctx context.Context, scene *tracer.Scene, q Leases, index int) error
}

// CPUWorker renders tiles on goroutines of this process, one tile per
// goroutine at a time.
type CPUWorker struct {
	// N is the number of goroutines; 0 or less means runtime.NumCPU().
	N int
}

// Name implements Worker.
func (w *CPUWorker) Name() string { return "cpu" }

// Kind implements Worker.
func (w *CPUWorker) Kind() WorkerKind { return KindCPU }

// Threads implements Worker.
func (w *CPUWorker) Threads() int {
	if w.N <= 0 {
		return runtime.NumCPU()
	}
	return w.N
}

// Run implements Worker. Each goroutine leases a tile, renders it and
// ends the lease, until Next says there are no more tiles (nil) or ctx
// ends. A tile that fails, or panics in the tracer, fails its lease; the
// goroutine goes on.
func (w *CPUWorker) Run(ctx context.Context, scene *tracer.Scene, q Leases, index int) error {
	var wg sync.WaitGroup
	errs := make([]error, w.Threads())
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cpuLoop(ctx, scene, q, index)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cpuLoop is one goroutine of a CPUWorker.
func cpuLoop(ctx context.Context, scene *tracer.Scene, q Leases, index int) error {
	var pix []float32
	for {
		l, err := q.Next(ctx, index)
		if err != nil {
			if errors.Is(err, ErrNoMoreTiles) {
				return nil
			}
			return err
		}
		n := 3 * l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
		if cap(pix) < n {
			pix = make([]float32, n)
		}
		pix = pix[:n]
		var st tracer.Stats
		if err := renderBlock(ctx, scene, l, pix, &st); err != nil {
			if ctx.Err() != nil {
				q.Release(l)
				return ctx.Err()
			}
			q.Fail(l, err)
			continue
		}
		q.Complete(l, pix, st)
	}
}

// renderBlock renders one leased tile, two rows at a time (RenderBlock
// traces the camera rays of 2×2 pixels together) so that the progress
// reports follow it (Lease.Advance), turning a panic in the tracer into
// an error so that one bad tile fails its lease, not the process. A
// pixel's value does not depend on the block it is rendered in, so the
// tile is the same as one RenderBlock call's.
func renderBlock(ctx context.Context, scene *tracer.Scene, l Lease, pix []float32, st *tracer.Stats) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tracer panic: %v", r)
		}
	}()
	r := l.Tile.Rect
	w := r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		y1 := min(y+2, r.Max.Y)
		rows := pix[3*(y-r.Min.Y)*w : 3*(y1-r.Min.Y)*w]
		if err := scene.RenderBlock(ctx, image.Rect(r.Min.X, y, r.Max.X, y1), rows, st); err != nil {
			return err
		}
		l.Advance(w * (y1 - y))
	}
	return nil
}
