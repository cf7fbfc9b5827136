package remote

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// render renders scene with the cluster alone, 8-pixel tiles.
func render(t *testing.T, scene *tracer.Scene, c *Cluster, dup bool) (*scheduler.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8, Workers: []scheduler.Worker{c}, Duplicates: dup})
}

// workerShares returns the tiles and retries of each worker by name.
func workerShares(res *scheduler.Result) (tiles, retries map[string]int) {
	tiles, retries = map[string]int{}, map[string]int{}
	for _, w := range res.Progress.Workers {
		tiles[w.Name] += w.Tiles
		retries[w.Name] += w.Retries
	}
	return tiles, retries
}

// A worker without the token, or with a wrong one, renders nothing and
// gets no scene; the render fails naming the token.
func TestTokenRequired(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w1:7000", ServerOptions{Threads: 2, Token: "s3cret"})
	bundle, scene := testScene(t, 32, 2)
	for _, tok := range []string{"", "wrong"} {
		opt := n.options()
		opt.Token, opt.MaxFailures = tok, 2
		_, err := render(t, scene, NewCluster([]string{"w1:7000"}, bundle, opt), false)
		if err == nil || !strings.Contains(err.Error(), "token") {
			t.Errorf("token %q: render error %v, want one about the token", tok, err)
		}
	}
	if st := w.srv.Stats(); st.BundlesStored != 0 || st.TilesRendered != 0 || st.Jobs != 0 || st.CacheMisses != 0 {
		t.Errorf("a caller without the token got work done: %+v", st)
	}
	opt := n.options()
	opt.Token = "s3cret"
	res, err := render(t, scene, NewCluster([]string{"w1:7000"}, bundle, opt), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
}

// A worker that dies mid-render costs its tiles in flight, which other
// workers render: the image is the same.
func TestWorkerDiesMidRender(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 2})
	w3 := n.start(t, "w3:7000", ServerOptions{Threads: 1})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 2})
	// The order of events, whatever the machine's load: w1 and w3 each
	// start a tile (so both have joined the render) and hold it; then w2
	// renders four tiles and dies at its fifth; then w1 and w3 render the
	// rest. A worker's tile waits on the render's end at the latest.
	var rendered atomic.Int32
	var once sync.Once
	died := make(chan struct{}) // closed when w2 starts its fifth tile
	var started sync.WaitGroup  // w1's and w3's first tiles
	started.Add(2)
	startedAll := make(chan struct{})
	go func() { started.Wait(); close(startedAll) }()
	w2.srv.beforeTile = func(ctx context.Context) {
		select {
		case <-startedAll:
		case <-ctx.Done():
			return
		}
		time.Sleep(pace)
		if rendered.Add(1) >= 5 {
			once.Do(func() {
				close(died)
				go n.kill(w2)
			})
			<-ctx.Done() // it is dead: no tile from its fifth on finishes
		}
	}
	for _, w := range []*testWorker{w1, w3} {
		var first sync.Once
		w.srv.beforeTile = func(ctx context.Context) {
			first.Do(started.Done)
			select {
			case <-died:
			case <-ctx.Done():
			}
			time.Sleep(pace)
		}
	}
	bundle, scene := testScene(t, 64, 2)
	res, err := render(t, scene, NewCluster([]string{"w1:7000", "w2:7000", "w3:7000"}, bundle, n.options()), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	tiles, retries := workerShares(res)
	// It died at its fifth tile: only the four before it can have landed.
	if tiles["w2:7000"] > 4 || retries["w2:7000"] == 0 {
		t.Errorf("the dead worker: %d tiles, %d retries; want at most 4 and some failed leases", tiles["w2:7000"], retries["w2:7000"])
	}
	if len(res.WorkerErrors) != 1 || !strings.Contains(res.WorkerErrors[0].Error(), "w2:7000") {
		t.Errorf("worker errors %v, want one naming w2", res.WorkerErrors)
	}
}

// A worker that dies is named in the result's errors even when the others
// finish the frame before its goroutine sees the failure, as on a loaded
// machine (the user heard nothing of it when that goroutine was late).
func TestWorkerDiesAsFrameEnds(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 2})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 1})
	// w1 holds its tiles until w2 has died at its second tile, so that
	// w2 has tiles to lose; then it renders the rest.
	died := make(chan struct{})
	var rendered atomic.Int32
	var once sync.Once
	w2.srv.beforeTile = func(ctx context.Context) {
		if rendered.Add(1) >= 2 {
			once.Do(func() {
				close(died)
				go n.kill(w2)
			})
			<-ctx.Done()
		}
	}
	w1.srv.beforeTile = func(ctx context.Context) {
		select {
		case <-died:
		case <-ctx.Done():
		}
		time.Sleep(pace)
	}
	bundle, scene := testScene(t, 32, 1)
	c := NewCluster([]string{"w1:7000", "w2:7000"}, bundle, n.options())
	var failed error
	c.streamEnded = func(ctx context.Context, addr string, err error) {
		if addr == "w2:7000" && err != nil && !canceled(err) && failed == nil {
			failed = err
			<-ctx.Done() // w1 finishes the frame meanwhile
		}
	}
	res, err := render(t, scene, c, false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	if failed == nil {
		t.Fatal("w2's stream did not fail")
	}
	if len(res.WorkerErrors) != 1 || !strings.Contains(res.WorkerErrors[0].Error(), "worker w2:7000: ") {
		t.Errorf("worker errors %v, want one naming w2 (its stream failed: %v)", res.WorkerErrors, failed)
	}
}

// A worker that stalls on a tile: once the queue is empty, another worker
// takes a duplicate lease of it, and the first result wins.
func TestStalledWorkerDuplicateWins(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 2})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 1})
	var first atomic.Bool
	w2.srv.beforeTile = func(ctx context.Context) {
		time.Sleep(pace)
		if first.CompareAndSwap(false, true) {
			<-ctx.Done() // stalls until the render ends
		}
	}
	var one atomic.Int64
	one.Store(1)
	gate(&one, w1, w2)
	bundle, scene := testScene(t, 48, 2)
	start := time.Now()
	res, err := render(t, scene, NewCluster([]string{"w1:7000", "w2:7000"}, bundle, n.options()), true)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the render took %s: the duplicate did not win", d)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	if tiles, _ := workerShares(res); tiles["w1:7000"] == 0 || tiles["w1:7000"]+tiles["w2:7000"] != 36 {
		t.Errorf("tiles %v", tiles)
	}
}

// A lone worker, duplicates on (as trace render has them with
// --workers), is not sent duplicates of its own tiles near the end: each
// tile once, every lease answered, and its job ends done.
func TestLoneWorkerNoDuplicates(t *testing.T) {
	var log syncBuffer
	n := newTestNet()
	w := n.start(t, "w1:7000", ServerOptions{Threads: 2, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	bundle, scene := testScene(t, 32, 2)
	res, err := render(t, scene, NewCluster([]string{"w1:7000"}, bundle, n.options()), true)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "job closed") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := log.String(); !strings.Contains(got, `reason="done: `) || strings.Contains(got, "unanswered") {
		t.Errorf("the worker's log:\n%s", got)
	}
	tiles, _ := workerShares(res)
	dropped := 0
	for _, wp := range res.Progress.Workers {
		dropped += wp.Dropped
	}
	if st := w.srv.Stats(); tiles["w1:7000"] != 16 || dropped != 0 || st.TilesRendered != 16 {
		t.Errorf("%d tiles accepted, %d dropped, %d rendered by the worker; want 16, 0, 16", tiles["w1:7000"], dropped, st.TilesRendered)
	}
}

// Without duplicates, a stalled lease times out: the worker's leases go
// back to the queue, and it reconnects.
func TestLeaseTimeout(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 1})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 1})
	var first atomic.Bool
	w2.srv.beforeTile = func(ctx context.Context) {
		time.Sleep(pace)
		if first.CompareAndSwap(false, true) {
			<-ctx.Done()
		}
	}
	var one atomic.Int64
	one.Store(1)
	gate(&one, w1, w2)
	bundle, scene := testScene(t, 48, 2)
	opt := n.options()
	opt.LeaseTimeout = 300 * time.Millisecond
	res, err := render(t, scene, NewCluster([]string{"w1:7000", "w2:7000"}, bundle, opt), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	if _, retries := workerShares(res); retries["w2:7000"] == 0 {
		t.Errorf("retries %v: want w2's timed-out leases counted", retries)
	}
}

// A worker whose tiles keep coming back is not timed out, however long
// its leases wait in its queue: here 32 leases for its one thread, 25 ms
// a tile, so the last waits some 800 ms, twice a LeaseTimeout of 400 ms,
// while a reply comes every 25 ms (a GPU's batches at high sample counts
// look so to the coordinator).
func TestLeaseTimeoutDeepQueue(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 1})
	w.srv.beforeTile = func(context.Context) { time.Sleep(25 * time.Millisecond) }
	bundle, scene := testScene(t, 48, 1)
	opt := n.options()
	opt.LeaseTimeout, opt.Window = 400*time.Millisecond, 32
	res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, opt), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	if _, retries := workerShares(res); retries["w:7000"] != 0 {
		t.Errorf("%d retries: the leases of a worker that kept replying timed out", retries["w:7000"])
	}
}

// A worker that is shut down (SIGTERM: Drain) finishes its tiles in flight
// and leaves the render without an error; the others finish the frame.
func TestWorkerDrains(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 1})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 1})
	var rendered atomic.Int32
	w2.srv.beforeTile = func(ctx context.Context) {
		time.Sleep(pace)
		if rendered.Add(1) == 3 {
			go w2.srv.Drain()
			time.Sleep(50 * time.Millisecond) // drain starts while this tile renders
		}
	}
	var one atomic.Int64
	one.Store(1)
	gate(&one, w1, w2)
	bundle, scene := testScene(t, 48, 2)
	res, err := render(t, scene, NewCluster([]string{"w1:7000", "w2:7000"}, bundle, n.options()), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
	tiles, retries := workerShares(res)
	if tiles["w2:7000"] < 3 || retries["w2:7000"] != 0 || len(res.WorkerErrors) != 0 {
		t.Errorf("drained worker: %d tiles, %d retries, errors %v; want its 3 tiles in flight delivered, no retries, no errors",
			tiles["w2:7000"], retries["w2:7000"], res.WorkerErrors)
	}
}

// A render whose only worker is shut down mid-frame fails naming it and
// saying it shut down (not "%!w(<nil>)", as when a drain was no error).
func TestOnlyWorkerDrains(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w1:7000", ServerOptions{Threads: 1})
	var rendered atomic.Int32
	w.srv.beforeTile = func(ctx context.Context) {
		if rendered.Add(1) == 2 {
			go w.srv.Drain()
			time.Sleep(50 * time.Millisecond) // drain starts while this tile renders
		}
	}
	bundle, scene := testScene(t, 48, 2)
	_, err := render(t, scene, NewCluster([]string{"w1:7000"}, bundle, n.options()), false)
	if err == nil || strings.Contains(err.Error(), "%!") || !strings.Contains(err.Error(), "no worker left: worker w1:7000: it shut down") {
		t.Errorf("render: %v, want one saying worker w1:7000 shut down", err)
	}
}

// A worker whose --max-scene-bytes is below the scene's size is not used,
// at once and saying why in words, rather than tried again and again for
// the same refusal; the other workers render the frame, and with none the
// render fails naming the flag.
func TestSceneTooLargeForWorker(t *testing.T) {
	n := newTestNet()
	n.start(t, "small:7000", ServerOptions{Threads: 1, MaxSceneBytes: 1 << 10})
	n.start(t, "big:7000", ServerOptions{Threads: 1})
	bundle, scene := testScene(t, 32, 1)
	res, err := render(t, scene, NewCluster([]string{"small:7000", "big:7000"}, bundle, n.options()), false)
	if err != nil {
		t.Fatal(err)
	}
	if tiles, _ := workerShares(res); tiles["small:7000"] != 0 || len(res.WorkerErrors) != 1 ||
		!strings.Contains(res.WorkerErrors[0].Error(), "worker small:7000: not used: it refused the scene") {
		t.Errorf("small worker: %d tiles, errors %v; want none, and one error saying it refused the scene", tiles["small:7000"], res.WorkerErrors)
	}
	_, err = render(t, scene, NewCluster([]string{"small:7000"}, bundle, n.options()), false)
	if err == nil || !strings.Contains(err.Error(), "start it with a larger --max-scene-bytes") || strings.Contains(err.Error(), "gave up") ||
		strings.Contains(err.Error(), "rpc error") {
		t.Errorf("render with the small worker alone: %v, want one saying to raise --max-scene-bytes, without retries", err)
	}
}

// fakeResolver answers from a list that the test changes.
type fakeResolver struct {
	mu    sync.Mutex
	hosts []string
	calls int
}

func (r *fakeResolver) LookupHost(_ context.Context, host string) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	return append([]string(nil), r.hosts...), nil
}

func (r *fakeResolver) set(hosts ...string) {
	r.mu.Lock()
	r.hosts = hosts
	r.mu.Unlock()
}

// Workers found through DNS join the render as the name comes to resolve
// to them, and leave it when it stops: the image is the same.
func TestDNSWorkersJoinAndLeave(t *testing.T) {
	n := newTestNet()
	var done atomic.Int32
	res := &fakeResolver{hosts: []string{"w1"}}
	var mu sync.Mutex
	inRender := map[string]bool{}  // workers the render's progress lists
	waitFor := func(name string) { // holds the frame until name has joined
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			ok := inRender[name]
			mu.Unlock()
			if ok {
				return
			}
		}
	}
	// After 8 tiles the name also resolves to w2, after 30 to w2 and w3
	// only; each tile after a change waits until the new worker is in.
	slow := func(ctx context.Context) {
		switch n := done.Add(1); {
		case n == 8:
			res.set("w1", "w2")
		case n == 30:
			res.set("w2", "w3")
		case n > 30:
			waitFor("w3:7000")
		case n > 8:
			waitFor("w2:7000")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, a := range []string{"w1:7000", "w2:7000", "w3:7000"} {
		n.start(t, a, ServerOptions{Threads: 1}).srv.beforeTile = slow
	}
	bundle, scene := testScene(t, 64, 2)
	opt := n.options()
	opt.Resolver = res
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8,
		Workers: []scheduler.Worker{NewCluster([]string{"dns:///workers:7000"}, bundle, opt)},
		Progress: func(p scheduler.Progress) {
			mu.Lock()
			for _, w := range p.Workers {
				inRender[w.Name] = true
			}
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, out.Framebuffer.Pix, localRender(t, scene, 8))
	tiles, _ := workerShares(out)
	if tiles["w1:7000"] == 0 || tiles["w2:7000"] == 0 || tiles["w3:7000"] == 0 {
		t.Errorf("tiles by worker %v: want all three to have joined; progress %+v", tiles, out.Progress.Workers)
	}
	if len(out.WorkerErrors) != 0 {
		t.Errorf("worker errors: %v", out.WorkerErrors)
	}
}

// When every worker is gone the render fails, naming them, instead of
// waiting for ever.
func TestAllWorkersGone(t *testing.T) {
	n := newTestNet()
	bundle, scene := testScene(t, 32, 2)
	opt := n.options()
	opt.MaxFailures = 2
	_, err := render(t, scene, NewCluster([]string{"nowhere:7000"}, bundle, opt), false)
	if err == nil || !strings.Contains(err.Error(), "nowhere:7000") {
		t.Errorf("render with no reachable worker: %v, want an error naming it", err)
	}
	opt.Resolver = &fakeResolver{}
	_, err = render(t, scene, NewCluster([]string{"dns:///empty:7000"}, bundle, opt), false)
	if err == nil || !strings.Contains(err.Error(), "empty:7000") {
		t.Errorf("render with a name that resolves to nothing: %v, want an error naming it", err)
	}
}
