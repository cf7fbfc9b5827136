package watch

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// The page in a real browser: headless Chromium loads the live view behind
// a path prefix during a render. Set TRACE_SCREENSHOTS to a directory to
// write the README's screenshots there (watch-rendering.png and
// watch-finished.png); they always go to the test's artifact directory too
// (kept with go test -artifacts).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium and renders for seconds; skipped in -short")
	}
	browser := startChromium(t)

	// The page draws the tiles as they land, fills in the worker table and
	// shows the end; at the end its canvas is the rendered image.
	t.Run("render", func(t *testing.T) {
		// Small and noisy, to be quick under the race detector; the
		// README's screenshots get a bigger, cleaner render.
		w, h, size, samples := 160, 120, 16, 4
		if os.Getenv("TRACE_SCREENSHOTS") != "" {
			w, h, size, samples = 320, 240, 32, 64
		}
		scene := loadScene(t, w, h, samples)
		tiles := len(scheduler.Tiles(w, h, size))
		held := &heldWorker{hold: tiles / 2, release: make(chan struct{})}
		ts, rendered := serveRender(t, scene, size, held)
		tab := openPage(t, browser, ts.URL+"/render/")

		p := waitPage(t, tab, "half the tiles drawn and counted", 20*time.Second, func(p pageState) bool {
			return p.TilesDrawn == held.hold && strings.HasPrefix(p.Numbers, fmt.Sprintf("%d/%d tiles", held.hold, tiles)) && len(p.Workers) > 0
		})
		if p.State != "rendering" || p.Status != "Rendering…" || p.Ended || p.FinalShown {
			t.Errorf("mid-render, the page shows %+v", p)
		}
		// The held half is whole rows of full tiles.
		share := fmt.Sprintf("%.1f%%", 100*float64(held.hold*size*size)/float64(w*h))
		if want := []string{"cpu", "cpu", "1", fmt.Sprint(held.hold)}; len(p.Workers) != 1 || len(p.Workers[0]) != 8 || !slices.Equal(p.Workers[0][:4], want) || p.Workers[0][5] != share || p.Workers[0][7] != "rendering" {
			t.Errorf("mid-render, the worker table is %q; want one row starting %q, with a %s share, rendering", p.Workers, want, share)
		}
		screenshot(t, tab, "watch-rendering.png")

		close(held.release)
		p = waitPage(t, tab, "the end shown with every tile drawn", 30*time.Second, func(p pageState) bool {
			return p.State != "rendering" && p.TilesDrawn == tiles
		})
		if p.State != "ended" || !strings.HasPrefix(p.Status, "Finished in ") || !strings.HasSuffix(p.Status, ": written to cornell-box.png") || !p.Ended || !p.FinalShown {
			t.Errorf("at the end, the page shows %+v", p)
		}
		if !strings.HasPrefix(p.Numbers, fmt.Sprintf("%d/%d tiles", tiles, tiles)) || len(p.Workers) != 1 || p.Workers[0][3] != fmt.Sprint(tiles) || p.Workers[0][7] != "done" {
			t.Errorf("at the end, the numbers are %q and the workers %q", p.Numbers, p.Workers)
		}
		r := <-rendered
		if r.err != nil {
			t.Fatal(r.err)
		}
		// Every tile is where it belongs: the canvas is the image. Both are
		// 8-bit sRGB and the browser draws the tiles' PNGs unscaled, so
		// they agree exactly.
		got := canvasImage(t, tab)
		want := image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(want, want.Rect, r.res.Framebuffer.Image(&scene.Film, 8), image.Point{}, draw.Src)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("the canvas is %v, want %v", got.Bounds(), want.Bounds())
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Error("the canvas differs from the rendered image")
		}
		screenshot(t, tab, "watch-finished.png")
	})

	// When the server goes away mid-render, the page says so within a few
	// seconds and keeps the tiles it has.
	t.Run("lost", func(t *testing.T) {
		scene := loadScene(t, 48, 40, 1)
		held := &heldWorker{hold: 3, release: make(chan struct{})}
		ts, _ := serveRender(t, scene, 8, held)
		tab := openPage(t, browser, ts.URL+"/render/")
		waitPage(t, tab, "the tiles before the hold drawn", 20*time.Second, func(p pageState) bool {
			return p.TilesDrawn == held.hold
		})
		ts.Listener.Close() // no reconnecting
		ts.CloseClientConnections()
		start := time.Now()
		p := waitPage(t, tab, "the lost state", 10*time.Second, func(p pageState) bool {
			return p.State != "rendering"
		})
		t.Logf("lost after %v", time.Since(start).Round(time.Millisecond))
		if p.State != "lost" || !strings.HasPrefix(p.Status, "Lost the connection") || p.Ended || p.TilesDrawn != held.hold {
			t.Errorf("with the server gone, the page shows %+v", p)
		}
	})
}

// startChromium starts headless Chromium with a fresh profile for the test
// and returns the context of its first tab. It skips the test where no
// Chromium is installed.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome); install Debian's chromium package, as .ci/run does")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		// Close the browser, and wait for it, before its profile is removed.
		closing, stop := context.WithTimeout(ctx, 10*time.Second)
		defer stop()
		if err := chromedp.Cancel(closing); err != nil {
			t.Logf("closing %s: %v", path, err)
		}
		cancel()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// The browser's viewport, in CSS pixels.
const viewportWidth, viewportHeight = 1000, 700

// openPage opens url in a new tab of browser.
func openPage(t *testing.T, browser context.Context, url string) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(viewportWidth, viewportHeight), chromedp.Navigate(url)); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	return tab
}

// rendered is how a render in the background ended.
type rendered struct {
	res *scheduler.Result
	err error
}

// serveRender starts rendering scene with workers in the background, with a
// view attached and served behind the path prefix /render. The render is
// cancelled, and waited for, when the test ends.
func serveRender(t *testing.T, scene *tracer.Scene, tile int, workers ...scheduler.Worker) (*httptest.Server, <-chan rendered) {
	t.Helper()
	set := scene.Settings
	v := New(Options{Scene: "cornell-box.json", Output: "cornell-box.png", Film: &scene.Film, Width: set.Width, Height: set.Height,
		Tiles: len(scheduler.Tiles(set.Width, set.Height, tile))})
	ts := httptest.NewServer(http.StripPrefix("/render", v.Handler()))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan rendered, 1)
	go func() {
		res, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: tile, Workers: workers, Progress: v.Progress, Tile: v.Tile})
		v.End(err)
		done <- rendered{res, err}
	}()
	t.Cleanup(func() {
		cancel()
		<-v.Done()
	})
	return ts, done
}

// heldWorker is a one-thread CPU worker that renders hold tiles, then waits
// for release before it renders the rest: a render that the test catches in
// the middle without racing the clock.
type heldWorker struct {
	hold    int
	release chan struct{}
}

func (*heldWorker) Name() string               { return "cpu" }
func (*heldWorker) Kind() scheduler.WorkerKind { return "cpu" }
func (*heldWorker) Threads() int               { return 1 }
func (w *heldWorker) Run(ctx context.Context, s *tracer.Scene, q scheduler.Leases, index int) error {
	for n := 0; ; n++ {
		if n == w.hold {
			select {
			case <-w.release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		l, err := q.Next(ctx, index)
		if err != nil {
			return nil // no more tiles, or cancelled
		}
		pix := make([]float32, 3*l.Tile.Rect.Dx()*l.Tile.Rect.Dy())
		var st tracer.Stats
		if err := s.RenderBlock(ctx, l.Tile.Rect, pix, &st); err != nil {
			if ctx.Err() != nil {
				q.Release(l)
				return ctx.Err()
			}
			q.Fail(l, err)
			continue
		}
		if n == w.hold-1 {
			// The view sends progress at most every progressEvery: wait,
			// so that the progress of the last tile before the hold goes
			// out and the page shows the counts of the held render.
			time.Sleep(2 * progressEvery)
		}
		q.Complete(l, pix, st)
	}
}

// pageState is what the page shows, as the test reads it.
type pageState struct {
	State      string     `json:"state"`  // the body's data-state
	Status     string     `json:"status"` // the text of #status
	Numbers    string     `json:"numbers"`
	Workers    [][]string `json:"workers"` // the cells of the worker table's rows
	FinalShown bool       `json:"finalShown"`
	TilesDrawn int        `json:"tilesDrawn"` // traceView.tilesDrawn
	Ended      bool       `json:"ended"`      // traceView.ended
}

const readPage = `(() => {
	const $ = (id) => document.getElementById(id);
	return {
		state: document.body.dataset.state,
		status: $("status").textContent,
		numbers: $("numbers").textContent,
		workers: Array.from($("workers").tBodies[0].rows, (r) => Array.from(r.cells, (c) => c.textContent)),
		finalShown: !$("final").hidden,
		tilesDrawn: traceView.tilesDrawn,
		ended: traceView.ended,
	};
})()`

// waitPage reads the page every 50 ms until ok holds, and fails the test
// with what the page last showed if that takes longer than within.
func waitPage(t *testing.T, tab context.Context, what string, within time.Duration, ok func(pageState) bool) pageState {
	t.Helper()
	deadline := time.Now().Add(within)
	var p pageState
	for {
		read, cancel := context.WithTimeout(tab, 10*time.Second)
		var err error
		p, err = chromedp.Run(read, chromedp.Evaluate[pageState](readPage))
		cancel()
		if err != nil {
			t.Fatalf("waiting for %s: reading the page: %v", what, err)
		}
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not within %v; the page shows %+v", what, within, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// canvasImage is the pixels of the page's canvas.
func canvasImage(t *testing.T, tab context.Context) *image.NRGBA {
	t.Helper()
	url, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("image").toDataURL("image/png")`))
	if err != nil {
		t.Fatal(err)
	}
	b64, ok := strings.CutPrefix(url, "data:image/png;base64,")
	if !ok {
		t.Fatalf("the canvas as %.40q…", url)
	}
	img, err := png.Decode(base64Reader(b64))
	if err != nil {
		t.Fatalf("the canvas's PNG: %v", err)
	}
	nrgba := image.NewNRGBA(img.Bounds())
	draw.Draw(nrgba, nrgba.Rect, img, img.Bounds().Min, draw.Src)
	return nrgba
}

// screenshot saves the page, once its transitions have finished and down
// to the end of its content, as a PNG named name in the test's artifact
// directory, and in $TRACE_SCREENSHOTS when that is set.
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	bottom, err := chromedp.Run(tab, chromedp.Evaluate[float64](`Promise.all(document.getAnimations().map((a) => a.finished)).then(() =>
		document.body.getBoundingClientRect().bottom + parseFloat(getComputedStyle(document.body).marginBottom))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	shot, err := chromedp.Run(tab, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		r, err := cdp.Call(ctx, tg, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{
			Clip: &cdppage.Viewport{Width: viewportWidth, Height: math.Ceil(bottom), Scale: 1}})
		return r.Data, err
	})
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dirs := []string{t.ArtifactDir()}
	if dir := os.Getenv("TRACE_SCREENSHOTS"); dir != "" {
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot %s: %d bytes", name, len(shot))
}
