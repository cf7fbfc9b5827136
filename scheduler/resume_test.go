package scheduler

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// finishedTiles renders s once and returns every tile's pixels by ID, as
// a checkpoint would hold them.
func finishedTiles(t *testing.T, s *tracer.Scene, size int) map[int][]float32 {
	t.Helper()
	all := map[int][]float32{}
	_, err := Render(context.Background(), s, Options{TileSize: size, Workers: []Worker{&CPUWorker{N: 2}},
		Tile: func(d TileDone) { all[d.Tile.ID] = d.Pixels }})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// A render with half its tiles preloaded from an earlier render gives the
// same PNG as a full render, and its workers render only the other half.
func TestFinishedTiles(t *testing.T) {
	const size = 8
	s := loadScene(t, "cornell-box", 40, 30, 4)
	ref := renderPNG(t, s, Options{TileSize: size, Workers: []Worker{&CPUWorker{N: 1}}})
	all := finishedTiles(t, s, size)
	n := len(Tiles(40, 30, size))
	half := map[int][]float32{}
	pixels := 0
	for id, pix := range all {
		if id%2 == 0 {
			half[id] = pix
			pixels += len(pix) / 3
		}
	}
	rendered := map[int]int{}
	var first, last Progress
	got := renderPNG(t, s, Options{TileSize: size, Workers: []Worker{&CPUWorker{N: 2}}, Finished: half,
		Tile: func(d TileDone) { rendered[d.Tile.ID]++ },
		Progress: func(p Progress) {
			if first.TilesTotal == 0 {
				first = p
			}
			last = p
		}})
	if !bytes.Equal(got, ref) {
		t.Error("the render with half its tiles finished differs from the full render")
	}
	for id := range n {
		_, pre := half[id]
		if want := map[bool]int{true: 0, false: 1}[pre]; rendered[id] != want {
			t.Errorf("tile %d (finished: %v) rendered %d times, want %d", id, pre, rendered[id], want)
		}
	}
	if first.TilesDone != len(half) || first.TilesResumed != len(half) || first.PixelsResumed != pixels {
		t.Errorf("first progress: %d done, %d resumed, %d resumed pixels; want %d, %d, %d",
			first.TilesDone, first.TilesResumed, first.PixelsResumed, len(half), len(half), pixels)
	}
	if last.TilesDone != n || last.PixelsDone != 40*30 || last.TilesResumed != len(half) || last.Workers[0].Tiles != n-len(half) {
		t.Errorf("last progress: %d done, %d pixels, %d resumed, worker %d tiles; want %d, %d, %d, %d",
			last.TilesDone, last.PixelsDone, last.TilesResumed, last.Workers[0].Tiles, n, 40*30, len(half), n-len(half))
	}
	if want := 40*30 - pixels; last.Workers[0].Pixels != want {
		t.Errorf("worker rendered %d pixels, want %d", last.Workers[0].Pixels, want)
	}
}

// runCounter is a worker that counts its runs and renders nothing.
type runCounter struct{ runs atomic.Int32 }

func (w *runCounter) Name() string     { return "counter" }
func (w *runCounter) Kind() WorkerKind { return "test" }
func (w *runCounter) Threads() int     { return 1 }
func (w *runCounter) Run(ctx context.Context, s *tracer.Scene, q Leases, index int) error {
	w.runs.Add(1)
	return nil
}

// With every tile finished, no worker starts and the image is the earlier
// render's.
func TestAllTilesFinished(t *testing.T) {
	s := loadScene(t, "whitted", 20, 12, 1)
	ref := renderPNG(t, s, Options{TileSize: 8})
	w := &runCounter{}
	var last Progress
	got := renderPNG(t, s, Options{TileSize: 8, Workers: []Worker{w}, Finished: finishedTiles(t, s, 8),
		Progress: func(p Progress) { last = p }})
	if !bytes.Equal(got, ref) {
		t.Error("the fully resumed image differs from the render")
	}
	if n := w.runs.Load(); n != 0 {
		t.Errorf("the worker ran %d times, want 0", n)
	}
	if n := len(Tiles(20, 12, 8)); last.TilesDone != n || last.TilesResumed != n || last.ETA() != 0 {
		t.Errorf("progress %d done, %d resumed, ETA %v; want %d, %d, 0", last.TilesDone, last.TilesResumed, last.ETA(), n, n)
	}
}

// Finished tiles that do not fit the frame fail the render before it
// starts, naming the tile.
func TestFinishedTilesChecked(t *testing.T) {
	s := loadScene(t, "whitted", 20, 12, 1)
	for _, c := range []struct {
		finished map[int][]float32
		want     string
	}{
		{map[int][]float32{6: make([]float32, 3*64)}, "finished tile 6: the frame has tiles 0 to 5"},
		{map[int][]float32{-1: nil}, "finished tile -1"},
		{map[int][]float32{2: make([]float32, 3*64)}, "finished tile 2: 192 values, want 96 for its 4×8 pixels"},
	} {
		w := &runCounter{}
		_, err := Render(context.Background(), s, Options{TileSize: 8, Workers: []Worker{w}, Finished: c.finished})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
		if w.runs.Load() != 0 {
			t.Error("a worker ran despite the bad finished tiles")
		}
	}
}
