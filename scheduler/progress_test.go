package scheduler

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracerender/trace/tracer"
)

// steppedWorker renders its tiles a pixel at a time when told to, so that
// a test sees the progress inside a tile.
type steppedWorker struct {
	step chan struct{} // one pixel per receive
}

func (w *steppedWorker) Name() string     { return "stepped" }
func (w *steppedWorker) Kind() WorkerKind { return "cpu" }
func (w *steppedWorker) Threads() int     { return 1 }
func (w *steppedWorker) Run(ctx context.Context, scene *tracer.Scene, q Leases, index int) error {
	for {
		l, err := q.Next(ctx, index)
		if err != nil {
			return nil
		}
		n := l.Tile.Rect.Dx() * l.Tile.Rect.Dy()
		for range n {
			select {
			case <-w.step:
				l.Advance(1)
			case <-ctx.Done():
				q.Release(l)
				return ctx.Err()
			}
		}
		q.Complete(l, make([]float32, 3*n), tracer.Stats{Samples: uint64(n * scene.Settings.Samples)})
	}
}

// TestProgressInsideTiles: with ProgressEvery, Progress comes between
// whole tiles, and PixelsInFlight counts the pixels a worker has
// finished (Lease.Advance) inside the tile it is rendering; the count
// ends with the lease.
func TestProgressInsideTiles(t *testing.T) {
	scene := loadScene(t, "cornell-box", 8, 8, 1)
	w := &steppedWorker{step: make(chan struct{})}
	var mu sync.Mutex
	var seen []Progress
	done := make(chan error, 1)
	go func() {
		_, err := Render(context.Background(), scene, Options{TileSize: 8, Workers: []Worker{w}, ProgressEvery: time.Millisecond,
			Progress: func(p Progress) { mu.Lock(); seen = append(seen, p); mu.Unlock() }})
		done <- err
	}()
	// Wait until the progress shows each of the first 10 pixels.
	for k := 1; k <= 10; k++ {
		w.step <- struct{}{}
		for deadline := time.Now().Add(10 * time.Second); ; {
			mu.Lock()
			last := seen[len(seen)-1]
			mu.Unlock()
			if last.PixelsInFlight == k && last.TilesDone == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %d pixels of the tile, the progress says %d in flight, %d tiles done", k, last.PixelsInFlight, last.TilesDone)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for range 64 - 10 {
		w.step <- struct{}{}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if last := seen[len(seen)-1]; last.PixelsInFlight != 0 || last.PixelsDone != 64 || last.TilesDone != 1 {
		t.Errorf("final progress: %d in flight, %d pixels and %d tiles done", last.PixelsInFlight, last.PixelsDone, last.TilesDone)
	}
}

// TestCPUWorkerAdvances: the CPU worker reports the pixels of its tile as
// it renders them, and the tile is the same as rendered in one piece.
func TestCPUWorkerAdvances(t *testing.T) {
	scene := loadScene(t, "cornell-box", 24, 16, 2)
	fb := tracer.NewFramebuffer(24, 16)
	events := make(chan event, 16)
	q := newQueue(Tiles(24, 16, 32), fb, 1, false, events, 1)
	l, err := q.Next(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	pix := make([]float32, 3*24*16)
	var st tracer.Stats
	if err := renderBlock(context.Background(), scene, l, pix, &st); err != nil {
		t.Fatal(err)
	}
	if got := q.inFlight(); got != 24*16 {
		t.Errorf("%d pixels in flight after the tile, want %d", got, 24*16)
	}
	want := make([]float32, len(pix))
	if err := scene.RenderBlock(context.Background(), l.Tile.Rect, want, new(tracer.Stats)); err != nil {
		t.Fatal(err)
	}
	for i := range pix {
		if pix[i] != want[i] {
			t.Fatalf("value %d: %g row by row, %g in one block", i, pix[i], want[i])
		}
	}
	q.Complete(l, pix, st)
	if got := q.inFlight(); got != 0 {
		t.Errorf("%d pixels in flight after Complete, want 0", got)
	}
}

// blockedWorker takes a lease and waits for the render to stop.
type blockedWorker struct{}

func (blockedWorker) Name() string     { return "blocked" }
func (blockedWorker) Kind() WorkerKind { return "cpu" }
func (blockedWorker) Threads() int     { return 1 }
func (blockedWorker) Run(ctx context.Context, _ *tracer.Scene, q Leases, index int) error {
	l, err := q.Next(ctx, index)
	if err != nil {
		return nil
	}
	<-ctx.Done()
	q.Release(l)
	return ctx.Err()
}

// abortingWorker fails the render at once.
type abortingWorker struct{ err error }

func (abortingWorker) Name() string     { return "aborting" }
func (abortingWorker) Kind() WorkerKind { return "remote" }
func (abortingWorker) Threads() int     { return 1 }
func (w abortingWorker) Run(_ context.Context, _ *tracer.Scene, q Leases, _ int) error {
	q.(*Queue).Abort(w.err) // Render hands its workers the Queue
	return w.err
}

// TestAbort: a worker's Abort fails the render with its error while other
// workers still hold tiles, stopping them.
func TestAbort(t *testing.T) {
	scene := loadScene(t, "cornell-box", 16, 16, 1)
	want := errors.New("worker w: it refused the token")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Render(ctx, scene, Options{TileSize: 8, Workers: []Worker{blockedWorker{}, abortingWorker{want}}})
	if !errors.Is(err, want) || ctx.Err() != nil {
		t.Errorf("render: %v, want the worker's error at once", err)
	}
}

// quittingWorker returns at once without rendering, and without an error.
type quittingWorker struct{}

func (quittingWorker) Name() string                                          { return "quitting" }
func (quittingWorker) Kind() WorkerKind                                      { return "remote" }
func (quittingWorker) Threads() int                                          { return 1 }
func (quittingWorker) Run(context.Context, *tracer.Scene, Leases, int) error { return nil }

// TestEveryWorkerQuit: a render whose workers all stop, none with an
// error, before the frame is done fails saying so (it once printed
// "%!w(<nil>)" for the missing cause).
func TestEveryWorkerQuit(t *testing.T) {
	scene := loadScene(t, "cornell-box", 16, 16, 1)
	_, err := Render(context.Background(), scene, Options{TileSize: 8, Workers: []Worker{quittingWorker{}}})
	if err == nil || strings.Contains(err.Error(), "%!") || !strings.Contains(err.Error(), "render stopped with 4 tiles left: every worker stopped") {
		t.Errorf("render: %v, want one saying every worker stopped", err)
	}
}
