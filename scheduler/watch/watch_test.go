package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

func loadScene(t testing.TB, w, h, samples int) *tracer.Scene {
	t.Helper()
	d, err := scenes.Load("../../scenes/examples/cornell-box.json")
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

// watched renders scene with a view attached and returns both.
func watched(t testing.TB, scene *tracer.Scene, tile int, workers ...scheduler.Worker) (*Server, *scheduler.Result) {
	t.Helper()
	set := scene.Settings
	v := New(Options{Scene: "cornell-box.json", Output: "out.png", Film: &scene.Film, Width: set.Width, Height: set.Height,
		Tiles: len(scheduler.Tiles(set.Width, set.Height, tile))})
	res, err := scheduler.Render(context.Background(), scene, scheduler.Options{TileSize: tile, Workers: workers, Progress: v.Progress, Tile: v.Tile})
	v.End(err)
	if err != nil {
		t.Fatal(err)
	}
	return v, res
}

// sse reads server-sent events until the stream ends.
func sse(t testing.TB, r io.Reader) (names []string, data []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			names = append(names, name)
			data = append(data, line[len("data: "):])
		}
	}
	return names, data
}

// A viewer during the render gets hello, every tile once as a PNG the
// size of the tile, progress, and the end; the tiles are the image.
func TestEventStream(t *testing.T) {
	scene := loadScene(t, 48, 40, 4)
	set := scene.Settings
	v := New(Options{Scene: "cornell-box.json", Output: "out.png", Film: &scene.Film, Width: set.Width, Height: set.Height,
		Tiles: len(scheduler.Tiles(set.Width, set.Height, 8))})
	ts := httptest.NewServer(v.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	slow := &slowWorker{} // so that the viewer is connected while tiles land
	res, err := scheduler.Render(context.Background(), scene, scheduler.Options{TileSize: 8, Workers: []scheduler.Worker{slow}, Progress: v.Progress, Tile: v.Tile})
	v.End(err)
	if err != nil {
		t.Fatal(err)
	}
	names, data := sse(t, resp.Body)
	if len(names) == 0 || names[0] != "hello" || names[len(names)-1] != "end" {
		t.Fatalf("events %v: want hello first and end last", names)
	}
	canvas := tracer.NewFramebuffer(48, 40)
	ids := map[int]bool{}
	progress := 0
	for i, n := range names {
		switch n {
		case "tile":
			var te tileEvent
			if err := json.Unmarshal([]byte(data[i]), &te); err != nil {
				t.Fatal(err)
			}
			if ids[te.ID] {
				t.Errorf("tile %d sent twice", te.ID)
			}
			ids[te.ID] = true
			img, err := png.Decode(base64Reader(te.PNG))
			if err != nil {
				t.Fatalf("tile %d: %v", te.ID, err)
			}
			if b := img.Bounds(); b.Dx() != te.W || b.Dy() != te.H {
				t.Errorf("tile %d: a %v PNG for a %d×%d tile", te.ID, b, te.W, te.H)
			}
			_ = canvas
		case "progress":
			progress++
		}
	}
	if len(ids) != 30 {
		t.Errorf("%d tiles streamed, want 30", len(ids))
	}
	if progress == 0 || progress > 30 {
		t.Errorf("%d progress events for 30 tiles", progress)
	}
	var end endEvent
	json.Unmarshal([]byte(data[len(data)-1]), &end)
	if !end.OK || end.Output != "out.png" {
		t.Errorf("end %+v", end)
	}
	// The image so far, at the end, is the render's.
	resp2, err := http.Get(ts.URL + "/image.png")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	var want bytes.Buffer
	png.Encode(&want, res.Framebuffer.Image(&scene.Film, 8))
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("/image.png differs from the rendered image")
	}
}

// A viewer who comes after the end gets the whole story at once, and the
// stream closes.
func TestLateViewer(t *testing.T) {
	scene := loadScene(t, 32, 32, 1)
	v, _ := watched(t, scene, 16, &scheduler.CPUWorker{N: 2})
	ts := httptest.NewServer(http.StripPrefix("/render", v.Handler()))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/render/events")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := sse(t, resp.Body)
	resp.Body.Close()
	tiles := 0
	for _, n := range names {
		if n == "tile" {
			tiles++
		}
	}
	if tiles != 4 || names[len(names)-1] != "end" {
		t.Errorf("late viewer got %v", names)
	}
	// Behind a prefix, the page is served and refers to nothing absolute.
	resp, err = http.Get(ts.URL + "/render/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte(`new EventSource("events")`)) {
		t.Fatalf("page: %d, %d bytes", resp.StatusCode, len(page))
	}
	for _, abs := range []string{`"/events`, `"/image.png`, `src="/`, `href="/`} {
		if bytes.Contains(page, []byte(abs)) {
			t.Errorf("the page has an absolute URL (%s): it would break behind a path prefix", abs)
		}
	}
}

// The metrics after a render with a known number of tiles.
func TestMetrics(t *testing.T) {
	scene := loadScene(t, 40, 24, 2)
	v, res := watched(t, scene, 8, &scheduler.CPUWorker{N: 2})
	const tiles = 5 * 3
	problems, err := testutil.CollectAndLint(v.metrics)
	if err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", err, problems)
	}
	want := `
# HELP trace_tiles Tiles of the frame by state: done or remaining (pending or in flight).
# TYPE trace_tiles gauge
trace_tiles{state="done"} 15
trace_tiles{state="remaining"} 0
# HELP trace_tiles_done_total Tiles accepted from each worker.
# TYPE trace_tiles_done_total counter
trace_tiles_done_total{kind="cpu",worker="cpu"} 15
`
	if err := testutil.CollectAndCompare(v.metrics, strings.NewReader(want), "trace_tiles", "trace_tiles_done_total"); err != nil {
		t.Error(err)
	}
	if got := testutil.CollectAndCount(v.metrics, "trace_tile_duration_seconds"); got != 1 {
		t.Errorf("%d tile duration series, want 1 (one worker)", got)
	}
	mfs, err := v.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				found[mf.GetName()] += m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				found[mf.GetName()+"_count"] += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	if found["trace_tile_duration_seconds_count"] != tiles {
		t.Errorf("tile duration histogram counted %v tiles, want %d", found["trace_tile_duration_seconds_count"], tiles)
	}
	if found["trace_samples_total"] != float64(res.Progress.Stats.Samples) || found["trace_rays_total"] != float64(res.Progress.Stats.Rays) {
		t.Errorf("samples %v and rays %v, want %d and %d", found["trace_samples_total"], found["trace_rays_total"], res.Progress.Stats.Samples, res.Progress.Stats.Rays)
	}
}

// slowWorker is a one-thread CPU worker that takes at least 2 ms a tile.
type slowWorker struct{}

func (slowWorker) Name() string               { return "slow" }
func (slowWorker) Kind() scheduler.WorkerKind { return "cpu" }
func (slowWorker) Threads() int               { return 1 }
func (w *slowWorker) Run(ctx context.Context, s *tracer.Scene, q scheduler.Leases, index int) error {
	for {
		l, err := q.Next(ctx, index)
		if err != nil {
			return nil
		}
		time.Sleep(2 * time.Millisecond)
		pix := make([]float32, 3*l.Tile.Rect.Dx()*l.Tile.Rect.Dy())
		var st tracer.Stats
		if err := s.RenderBlock(ctx, l.Tile.Rect, pix, &st); err != nil {
			q.Fail(l, err)
			continue
		}
		q.Complete(l, pix, st)
	}
}

func base64Reader(s string) io.Reader {
	return base64.NewDecoder(base64.StdEncoding, strings.NewReader(s))
}

// Tiles resumed from a checkpoint are in the image and the event stream
// from the start.
func TestResumedTiles(t *testing.T) {
	scene := loadScene(t, 32, 16, 1)
	grid := scheduler.Tiles(32, 16, 16)
	v := New(Options{Scene: "s", Film: &scene.Film, Width: 32, Height: 16, Tiles: len(grid)})
	pix := make([]float32, 3*16*16)
	for i := range pix {
		pix[i] = 0.5
	}
	v.Resumed(grid, map[int][]float32{1: pix})
	if len(v.tiles) != 1 || !bytes.Contains(v.tiles[0], []byte(`"worker":"checkpoint"`)) || !bytes.Contains(v.tiles[0], []byte(`"x":16`)) {
		t.Fatalf("resumed tile events: %q", v.tiles)
	}
	if c := v.fb.At(20, 3); c[0] != 0.5 {
		t.Errorf("the resumed tile is not in the image: %v", c)
	}
}

// A progress event that Progress holds back (it came within progressEvery
// of the last one sent) reaches the viewer all the same once
// progressEvery has passed, though no later progress comes to send it:
// a render waiting on a slow tile shows its latest count (the page
// showed 39 of 80 tiles with 40 drawn for as long as the 40th's render
// held its worker).
func TestLateProgress(t *testing.T) {
	v := New(Options{Scene: "s.json", Width: 8, Height: 8, Tiles: 4})
	ts := httptest.NewServer(v.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan int, 16)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		name := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: ") && name == "progress":
				var p progressEvent
				if err := json.Unmarshal([]byte(line[len("data: "):]), &p); err != nil {
					t.Error(err)
					return
				}
				done <- p.TilesDone
			}
		}
	}()
	v.Progress(scheduler.Progress{TilesDone: 1, TilesTotal: 4})
	v.Progress(scheduler.Progress{TilesDone: 2, TilesTotal: 4}) // held back
	timeout := time.After(10 * time.Second)
	var got []int
	for len(got) == 0 || got[len(got)-1] != 2 {
		select {
		case n, ok := <-done:
			if !ok {
				t.Fatalf("the stream ended after progress %v", got)
			}
			got = append(got, n)
		case <-timeout:
			t.Fatalf("progress %v after 10 s: the held-back count of 2 never came", got)
		}
	}
	if len(got) != 2 || got[0] != 1 {
		t.Errorf("progress events %v, want 1 then 2", got)
	}
	v.End(nil)
}
