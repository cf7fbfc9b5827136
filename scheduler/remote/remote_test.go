package remote

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"
)

// net is an in-memory network of workers, reached by name.
type testNet struct {
	mu        sync.Mutex
	listeners map[string]*bufconn.Listener
}

func newTestNet() *testNet { return &testNet{listeners: map[string]*bufconn.Listener{}} }

func (n *testNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: "bufconn", Err: errRefused}
	}
	return l.DialContext(ctx)
}

var errRefused = &net.AddrError{Err: "connection refused"}

// testWorker is a worker serving on the in-memory network.
type testWorker struct {
	srv  *Server
	grpc *grpc.Server
	addr string
}

// pace is how long each test worker's tile takes at least, so that every
// worker of a test has joined before the frame is done.
const pace = 3 * time.Millisecond

// start starts a worker at addr with options opt; it stops with the test.
func (n *testNet) start(t testing.TB, addr string, opt ServerOptions) *testWorker {
	t.Helper()
	l := bufconn.Listen(1 << 20)
	srv := NewServer(opt)
	srv.beforeTile = func(context.Context) { time.Sleep(pace) }
	g := grpc.NewServer(srv.GRPCOptions()...)
	srv.Register(g)
	go g.Serve(l)
	n.mu.Lock()
	n.listeners[addr] = l
	n.mu.Unlock()
	w := &testWorker{srv: srv, grpc: g, addr: addr}
	t.Cleanup(func() { n.kill(w) })
	return w
}

// kill stops a worker at once, breaking its connections.
func (n *testNet) kill(w *testWorker) {
	n.mu.Lock()
	delete(n.listeners, w.addr)
	n.mu.Unlock()
	w.grpc.Stop()
}

// joined waits until every worker in ws has opened a job (a render stream)
// at least jobs times, so that a test's workers all take part however
// slowly a loaded machine connects them. Tile hooks call it.
func joined(jobs int64, ws ...*testWorker) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		all := true
		for _, w := range ws {
			if w.srv.Stats().Jobs < jobs {
				all = false
			}
		}
		if all {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// gate makes every worker in ws hold its tiles until all of them have
// joined the render (their jobs-th).
func gate(jobs *atomic.Int64, ws ...*testWorker) {
	for _, w := range ws {
		next := w.srv.beforeTile
		w.srv.beforeTile = func(ctx context.Context) {
			joined(jobs.Load(), ws...)
			next(ctx)
		}
	}
}

func (n *testNet) options() ClientOptions {
	opt := ClientOptions{Dialer: n.dial, Backoff: 20 * time.Millisecond, ResolveEvery: 50 * time.Millisecond}
	if testing.Verbose() {
		opt.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return opt
}

// testScene is the mesh gallery scene (a mesh file and an image texture
// travel in its bundle) at a small size.
func testScene(t testing.TB, size, samples int) (*EncodedBundle, *tracer.Scene) {
	t.Helper()
	b, desc, err := scenes.ReadBundle("../../scenes/examples/mesh.json", scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = size, size, samples
	scene, err := tracer.Compile(desc)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	return eb, scene
}

// localRender is the reference: the same scene on this process's cores.
func localRender(t testing.TB, scene *tracer.Scene, tile int) []float32 {
	t.Helper()
	res, err := scheduler.Render(context.Background(), scene, scheduler.Options{TileSize: tile, Workers: []scheduler.Worker{&scheduler.CPUWorker{N: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Framebuffer.Pix
}

func samePixels(t testing.TB, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("value %d (pixel %d) is %v, want %v", i, i/3, got[i], want[i])
		}
	}
}

func TestClusterMatchesLocal(t *testing.T) {
	n := newTestNet()
	w1 := n.start(t, "w1:7000", ServerOptions{Threads: 2})
	w2 := n.start(t, "w2:7000", ServerOptions{Threads: 1})
	bundle, scene := testScene(t, 48, 4)
	want := localRender(t, scene, 8)
	var jobs atomic.Int64
	gate(&jobs, w1, w2)
	for run := range 2 {
		jobs.Store(int64(run + 1))
		c := NewCluster([]string{"w1:7000", "w2:7000"}, bundle, n.options())
		res, err := scheduler.Render(context.Background(), scene, scheduler.Options{TileSize: 8, Workers: []scheduler.Worker{c}})
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, res.Framebuffer.Pix, want)
		shares := map[string]int{}
		for _, wp := range res.Progress.Workers {
			shares[wp.Name] = wp.Tiles
		}
		if shares["w1:7000"] == 0 || shares["w2:7000"] == 0 || shares["w1:7000"]+shares["w2:7000"] != 36 {
			t.Errorf("run %d: tiles per worker %v, want both working and 36 in all", run, shares)
		}
		if cs := c.Stats(); cs.Tiles != 36 || cs.BytesReceived < 36*8*8*12 {
			t.Errorf("run %d: cluster stats %+v", run, cs)
		}
	}
	for _, w := range []*testWorker{w1, w2} {
		st := w.srv.Stats()
		if st.CacheMisses != 1 || st.CacheHits != 1 || st.BundlesStored != 1 {
			t.Errorf("%s: cache misses %d, hits %d, stored %d; want 1, 1, 1 (the second render finds the scene)", w.addr, st.CacheMisses, st.CacheHits, st.BundlesStored)
		}
	}
}

// The lease window covers the network's round trip with queued tiles,
// and ignores the time tiles wait on the worker (which a larger window
// would only lengthen).
func TestLeaseWindowAdapts(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		trip, held, render time.Duration
		want               int // per thread
	}{
		{trip: 12 * ms, held: 11 * ms, render: 10 * ms, want: 2},   // LAN
		{trip: 36 * ms, held: 11 * ms, render: 10 * ms, want: 4},   // 25 ms away: 1 + ⌈25/10⌉
		{trip: 200 * ms, held: 190 * ms, render: 10 * ms, want: 2}, // queued on the worker, not the network
		{trip: 500 * ms, held: 1 * ms, render: 1 * ms, want: 16},   // far and fast: the cap
		{trip: 50 * ms, held: 50 * ms, render: 50 * ms, want: 2},   // slow tiles
	}
	for _, tc := range tests {
		w := &session{}
		for range 20 {
			w.observe(tc.trip, tc.held, tc.render)
		}
		if got := w.window(3); got != 3*tc.want {
			t.Errorf("trip %v, held %v, render %v: window %d, want %d", tc.trip, tc.held, tc.render, got, 3*tc.want)
		}
	}
	if got := (&session{}).window(4); got != 8 {
		t.Errorf("window before any tile: %d, want 8", got)
	}
}
