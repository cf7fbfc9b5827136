package scheduler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// loadScene loads a gallery scene at a small size for tests.
func loadScene(t testing.TB, name string, w, h, samples int) *tracer.Scene {
	t.Helper()
	d, err := scenes.Load("../scenes/examples/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	d.Settings.Width, d.Settings.Height, d.Settings.Samples = w, h, samples
	s, err := tracer.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func renderPNG(t testing.TB, s *tracer.Scene, opt Options) []byte {
	t.Helper()
	res, err := Render(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.Framebuffer.WritePNG(&buf, &s.Film, 8); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTiles(t *testing.T) {
	tiles := Tiles(70, 33, 32)
	if len(tiles) != 3*2 {
		t.Fatalf("%d tiles, want 6", len(tiles))
	}
	covered := 0
	for i, tl := range tiles {
		if tl.ID != i {
			t.Errorf("tile %d has ID %d", i, tl.ID)
		}
		covered += tl.Rect.Dx() * tl.Rect.Dy()
	}
	if covered != 70*33 {
		t.Errorf("tiles cover %d pixels, want %d", covered, 70*33)
	}
	if r := tiles[5].Rect; r.Min.X != 64 || r.Min.Y != 32 || r.Max.X != 70 || r.Max.Y != 33 {
		t.Errorf("last tile %v, want (64,32)-(70,33)", r)
	}
}

// TestDeterminism: the determinism contract says a pixel depends only on
// the scene and its coordinates, so tile size and thread count must not
// change one byte of the PNG.
//
// Under adaptive sampling (tracer/adaptive.go) too: each pixel stops on
// its own samples alone, so the "adaptive" cases must give the same bytes
// with pixels that stopped early and pixels that did not.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"cornell-box", "whitted", "materials", "cornell-box adaptive", "materials adaptive"} {
		t.Run(name, func(t *testing.T) {
			scene, adaptive := strings.CutSuffix(name, " adaptive")
			samples := 4
			if adaptive {
				samples = 40
			}
			s := loadScene(t, scene, 48, 40, samples)
			if adaptive {
				s.Settings.NoiseThreshold, s.Settings.MinSamples = 0.05, 8
				res, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
				if err != nil {
					t.Fatal(err)
				}
				most, least := uint64(48*40*samples), uint64(48*40*8)
				if got := res.Progress.Stats.Samples; got >= most || got <= least {
					t.Fatalf("%d samples taken: want fewer than %d (some pixels stopped early) and more than %d (some did not)", got, most, least)
				}
			}
			ref := renderPNG(t, s, Options{TileSize: 8, Workers: []Worker{&CPUWorker{N: 1}}})
			for _, opt := range []Options{
				{TileSize: 64, Workers: []Worker{&CPUWorker{N: 1}}},
				{TileSize: 8, Workers: []Worker{&CPUWorker{N: 2}}},
				{TileSize: 7, Workers: []Worker{&CPUWorker{N: 3}}},
				{TileSize: 64, Workers: []Worker{&CPUWorker{N: 2}}},
			} {
				if got := renderPNG(t, s, opt); !bytes.Equal(got, ref) {
					t.Errorf("tile %d, %d threads: PNG differs from tile 8, 1 thread", opt.TileSize, opt.Workers[0].Threads())
				}
			}
		})
	}
}

// flakyWorker fails its first failures leases of every tile, then renders.
type flakyWorker struct {
	failures int
	seen     [1024]atomic.Int32
}

func (w *flakyWorker) Name() string     { return "flaky" }
func (w *flakyWorker) Kind() WorkerKind { return "test" }
func (w *flakyWorker) Threads() int     { return 1 }
func (w *flakyWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	for {
		l, err := q.Next(ctx, index)
		if err != nil {
			if errors.Is(err, ErrNoMoreTiles) {
				return nil
			}
			return err
		}
		if int(w.seen[l.Tile.ID].Add(1)) <= w.failures {
			q.Fail(l, fmt.Errorf("injected failure %d", w.seen[l.Tile.ID].Load()))
			continue
		}
		pix := make([]float32, 3*l.Tile.Rect.Dx()*l.Tile.Rect.Dy())
		var st tracer.Stats
		if err := s.RenderBlock(ctx, l.Tile.Rect, pix, &st); err != nil {
			q.Release(l)
			return err
		}
		q.Complete(l, pix, st)
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 1)
	ref := renderPNG(t, s, Options{TileSize: 16})
	w := &flakyWorker{failures: 2}
	var last Progress
	got := renderPNG(t, s, Options{TileSize: 16, MaxAttempts: 3, Workers: []Worker{w},
		Progress: func(p Progress) { last = p }})
	if !bytes.Equal(got, ref) {
		t.Error("image after retries differs from the direct render")
	}
	if n := len(Tiles(40, 30, 16)); last.Workers[0].Retries != 2*n || last.TilesDone != n {
		t.Errorf("progress: %d retries, %d tiles; want %d and %d", last.Workers[0].Retries, last.TilesDone, 2*n, n)
	}
}

func TestTileFailsTooOften(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 1)
	_, err := Render(context.Background(), s, Options{TileSize: 16, MaxAttempts: 3, Workers: []Worker{&flakyWorker{failures: 3}}})
	if err == nil {
		t.Fatal("render succeeded with a worker that always fails")
	}
	for _, want := range []string{"tile 0", "pixels 0,0–15,15", "failed 3 times", "injected failure 1", "injected failure 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// stallWorker takes one lease and never finishes it until cancelled.
type stallWorker struct{ took atomic.Bool }

func (w *stallWorker) Name() string     { return "stall" }
func (w *stallWorker) Kind() WorkerKind { return "test" }
func (w *stallWorker) Threads() int     { return 1 }
func (w *stallWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	l, err := q.Next(ctx, index)
	if err != nil {
		return nil
	}
	w.took.Store(true)
	<-ctx.Done()
	q.Release(l)
	return nil
}

// TestDuplicateBeatsStalledWorker: once the queue is empty, an idle worker
// duplicates the tile a stalled worker holds, the first result wins, and
// the render ends without waiting for the stalled worker.
func TestDuplicateBeatsStalledWorker(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 1)
	ref := renderPNG(t, s, Options{TileSize: 16})
	stall := &stallWorker{}
	// The stalled worker is first so it takes tile 0 before the CPU starts.
	res, err := Render(context.Background(), s, Options{TileSize: 16, Duplicates: true,
		Workers: []Worker{stall, &CPUWorker{N: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.Framebuffer.WritePNG(&buf, &s.Film, 8)
	if !bytes.Equal(buf.Bytes(), ref) {
		t.Error("image differs from the direct render")
	}
	if stall.took.Load() && res.Progress.Workers[0].Tiles != 0 {
		t.Errorf("stalled worker credited with %d tiles", res.Progress.Workers[0].Tiles)
	}
}

// TestCancelIsPrompt: cancelling the context stops a long render quickly
// and reports the cancellation.
func TestCancelIsPrompt(t *testing.T) {
	s := loadScene(t, "cornell-box", 256, 256, 4096) // minutes of work
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := Render(ctx, s, Options{TileSize: 32, Workers: []Worker{&CPUWorker{N: 2}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A row of a 32-pixel tile at 4096 samples is the longest step between
	// checks; 10 s leaves a wide margin on a loaded machine.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("render took %v to stop", d)
	}
}

// brokenWorker stops at once with an error, as a GPU whose upload fails.
type brokenWorker struct{}

func (brokenWorker) Name() string     { return "broken" }
func (brokenWorker) Kind() WorkerKind { return "test" }
func (brokenWorker) Threads() int     { return 1 }
func (brokenWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	return errors.New("device lost")
}

// TestWorkerErrorReported: a worker that dies costs no pixels, and the
// result says what happened to it.
func TestWorkerErrorReported(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 1)
	ref := renderPNG(t, s, Options{TileSize: 16})
	res, err := Render(context.Background(), s, Options{TileSize: 16, Workers: []Worker{brokenWorker{}, &CPUWorker{N: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.Framebuffer.WritePNG(&buf, &s.Film, 8)
	if !bytes.Equal(buf.Bytes(), ref) {
		t.Error("image differs from the direct render")
	}
	if len(res.WorkerErrors) != 1 || !strings.Contains(res.WorkerErrors[0].Error(), "broken: device lost") {
		t.Errorf("worker errors %v, want the broken worker's", res.WorkerErrors)
	}
}

// clusterWorker stands for a cluster whose machines stopped: one with an
// error, one cancelled as the frame ended; the CPU renders the frame.
type clusterWorker struct{}

func (clusterWorker) Name() string     { return "cluster" }
func (clusterWorker) Kind() WorkerKind { return KindCluster }
func (clusterWorker) Threads() int     { return 1 }
func (clusterWorker) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	return errors.Join(errors.New("worker m1:7000: device lost"), fmt.Errorf("worker m2:7000: %w", context.Canceled))
}

// TestClusterErrorBesideCancellation: a cluster's error joins its
// machines'; one machine's cancellation does not hide another's failure.
func TestClusterErrorBesideCancellation(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 1)
	res, err := Render(context.Background(), s, Options{TileSize: 16, Workers: []Worker{clusterWorker{}, &CPUWorker{N: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.WorkerErrors) != 1 || res.WorkerErrors[0].Error() != "worker m1:7000: device lost" {
		t.Errorf("worker errors %v, want m1's alone", res.WorkerErrors)
	}
}

// Options.Tile sees every tile once, with the pixels the framebuffer ends
// up with, before the progress that counts it.
func TestTileHook(t *testing.T) {
	s := loadScene(t, "whitted", 40, 30, 2)
	seen := map[int]int{}
	var last Progress
	var stale bool
	var pixels []TileDone
	res, err := Render(context.Background(), s, Options{
		TileSize: 8,
		Workers:  []Worker{&CPUWorker{N: 2}},
		Tile: func(d TileDone) {
			seen[d.Tile.ID]++
			if last.TilesDone >= len(seen) {
				stale = true // the progress already counted this tile
			}
			pixels = append(pixels, d)
		},
		Progress: func(p Progress) { last = p },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(Tiles(40, 30, 8)) {
		t.Fatalf("the hook saw %d tiles, want %d", len(seen), len(Tiles(40, 30, 8)))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("tile %d seen %d times", id, n)
		}
	}
	if stale {
		t.Error("a tile reached the hook after the progress that counted it")
	}
	for _, d := range pixels {
		fb := res.Framebuffer
		r := d.Tile.Rect
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				i := 3 * ((y-r.Min.Y)*r.Dx() + x - r.Min.X)
				if c := fb.At(x, y); c[0] != d.Pixels[i] || c[1] != d.Pixels[i+1] || c[2] != d.Pixels[i+2] {
					t.Fatalf("tile %d pixel (%d,%d): hook %v, framebuffer %v", d.Tile.ID, x, y, d.Pixels[i:i+3], c)
				}
			}
		}
	}
}
