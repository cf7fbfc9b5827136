package remote

import (
	"context"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// lyingWorker claims to have every bundle and answers each lease with
// the reply its reply function makes, or ends the stream with fail.
type lyingWorker struct {
	pb.UnimplementedWorkerServer
	reply func(*pb.TileLease) *pb.RenderReply
	fail  error
}

func (l *lyingWorker) HasBundle(context.Context, *pb.BundleRef) (*pb.HasBundleReply, error) {
	return &pb.HasBundleReply{Present: true}, nil
}

func (l *lyingWorker) Render(stream pb.Worker_RenderServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	if l.fail != nil {
		return l.fail
	}
	if err := stream.Send(&pb.RenderReply{Kind: &pb.RenderReply_Ready{Ready: &pb.Ready{Threads: 1, Name: "liar", PixelVersion: tracer.PixelVersion}}}); err != nil {
		return err
	}
	for {
		r, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(l.reply(r.GetTile())); err != nil {
			return err
		}
	}
}

// serve serves srv, a fake worker, at addr on the test network until the
// test ends.
func (n *testNet) serve(t testing.TB, addr string, srv pb.WorkerServer) {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	g := grpc.NewServer()
	pb.RegisterWorkerServer(g, srv)
	go g.Serve(lis)
	n.mu.Lock()
	n.listeners[addr] = lis
	n.mu.Unlock()
	t.Cleanup(g.Stop)
}

// result answers a lease with pixels all of value v and the given counts.
func result(t *pb.TileLease, v float32, rays, samples uint64) *pb.RenderReply {
	pix := make([]float32, 3*int(t.X1-t.X0)*int(t.Y1-t.Y0))
	for i := range pix {
		pix[i] = v
	}
	return &pb.RenderReply{Kind: &pb.RenderReply_Result{Result: &pb.TileResult{
		Lease: t.Lease, Pixels: encodePixels(pix), Rays: rays, Samples: samples, NonFinite: math.MaxUint64,
		Seconds: math.Inf(1), HeldSeconds: math.NaN(),
	}}}
}

// Tiles with NaN, infinite or negative pixels are refused, with a
// warning naming the worker, and rendered elsewhere: the image is the
// local one.
func TestBadPixelsRefused(t *testing.T) {
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(1)), -1} {
		n := newTestNet()
		var leases atomic.Int64
		n.serve(t, "liar:7000", &lyingWorker{reply: func(l *pb.TileLease) *pb.RenderReply {
			leases.Add(1)
			return result(l, v, 1, 1)
		}})
		bundle, scene := testScene(t, 64, 4)
		var logs logBuffer
		opt := n.options()
		opt.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		c := NewCluster([]string{"liar:7000"}, bundle, opt)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		// The CPU thread starts once the liar has had a lease: on a loaded
		// machine it could render the whole frame while the cluster was
		// still connecting.
		cpu := &gatedWorker{Worker: &scheduler.CPUWorker{N: 1}, open: func() bool { return leases.Load() > 0 }}
		res, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8, MaxAttempts: 1000,
			Workers: []scheduler.Worker{c, cpu}})
		cancel()
		if err != nil {
			t.Fatalf("pixels %v: %v", v, err)
		}
		samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
		if tiles, _ := workerShares(res); tiles["liar:7000"] != 0 {
			t.Errorf("pixels %v: %d tiles of the lying worker were taken", v, tiles["liar:7000"])
		}
		if leases.Load() == 0 {
			t.Errorf("pixels %v: the lying worker got no lease", v)
		}
		if !strings.Contains(logs.String(), "refused") || !strings.Contains(logs.String(), "liar:7000") {
			t.Errorf("pixels %v: no warning naming the worker:\n%.500s", v, logs.String())
		}
	}
}

// A worker's counts are cut to what its tiles could cost, so that the
// render's sums cannot overflow, and its reported times are sane.
func TestBadCountsSaturated(t *testing.T) {
	n := newTestNet()
	n.serve(t, "liar:7000", &lyingWorker{reply: func(l *pb.TileLease) *pb.RenderReply {
		return result(l, 0.5, math.MaxUint64, math.MaxUint64)
	}})
	bundle, scene := testScene(t, 32, 2)
	res, err := render(t, scene, NewCluster([]string{"liar:7000"}, bundle, n.options()), false)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Progress.Stats
	if want := uint64(32 * 32 * 2); st.Samples != want || st.NonFinite != want {
		t.Errorf("samples %d, non-finite %d; want both cut to the frame's %d", st.Samples, st.NonFinite, want)
	}
	if st.Rays < st.Samples || st.Rays > 16*maxTileCount {
		t.Errorf("rays %d: want the sum of 16 saturated tiles, not a wrapped one", st.Rays)
	}
}

// A worker's error text reaches the user cut short and without control
// characters (terminal escapes), whether in a tile error or a status.
func TestRemoteErrorTextCleaned(t *testing.T) {
	hostile := "\x1b]0;pwned\x07\x1b[2J" + strings.Repeat("A\x1b[31m\r\n", 300<<10/8)
	for name, l := range map[string]*lyingWorker{
		"tile error": {reply: func(l *pb.TileLease) *pb.RenderReply {
			return &pb.RenderReply{Kind: &pb.RenderReply_Error{Error: &pb.TileError{Lease: l.Lease, Message: hostile}}}
		}},
		"status": {fail: status.Error(codes.Internal, hostile)},
	} {
		n := newTestNet()
		n.serve(t, "liar:7000", l)
		bundle, scene := testScene(t, 16, 1)
		opt := n.options()
		opt.MaxFailures = 1
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8, MaxAttempts: 1, Workers: []scheduler.Worker{NewCluster([]string{"liar:7000"}, bundle, opt)}})
		cancel()
		if err == nil {
			t.Fatalf("%s: the render succeeded", name)
		}
		msg := err.Error()
		if len(msg) > 8<<10 {
			t.Errorf("%s: the error is %d bytes long", name, len(msg))
		}
		if strings.ContainsFunc(msg, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) {
			t.Errorf("%s: the error has control characters: %.200q", name, msg)
		}
		if !strings.Contains(msg, "pwned") {
			t.Errorf("%s: the worker's text is gone: %.200q", name, msg)
		}
	}
}

// clean turns control characters and bad UTF-8 into spaces and cuts
// long text at a character boundary.
func TestClean(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"plain text", 100, "plain text"},
		{"a\x1b[31mred\x1b[0m", 100, "a [31mred [0m"},
		{"two\nlines\r", 100, "two lines "},
		{"bad \xff utf-8", 100, "bad   utf-8"},
		{strings.Repeat("é", 10), 5, "éé…"},
	}
	for _, tc := range tests {
		if got := clean(tc.in, tc.limit); got != tc.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

// gatedWorker is a worker that starts once open says so (it asks every
// millisecond, for ten seconds at most), or when the render is cancelled.
type gatedWorker struct {
	scheduler.Worker
	open func() bool
}

func (w *gatedWorker) Run(ctx context.Context, scene *tracer.Scene, q scheduler.Leases, index int) error {
	for deadline := time.Now().Add(10 * time.Second); !w.open() && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Millisecond):
		}
	}
	return w.Worker.Run(ctx, scene, q, index)
}
