package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// logBuffer collects a logger's lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// heapPeak samples the live heap (the heap in use right after a
// collection, so that garbage does not count) every 10 ms until stop is
// called, which returns the most it grew by over its size at the start.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// Hostile uploads that announce large bundles and stall, and render
// streams whose replies are never read, hold the worker's memory to its
// budgets and are ended by its timeouts; the worker serves on.
func TestHostileUploadsAndStalledStreamsBounded(t *testing.T) {
	const (
		budget    = 4 << 20  // --upload-bytes
		announced = 64 << 20 // each hostile upload's announced size (--max-scene-bytes)
		sends     = 2 << 20  // what each sends before it stalls
		chunk     = 256 << 10
		hostile   = 8 // uploads, and as many stalled render streams
		// heapBound is the most the live heap of this process, worker and
		// hostile clients together, may grow by: the upload budget, the
		// stalled streams' replies, and both sides' gRPC buffers and
		// buffer pools (most of it: 20 to 70 MiB measured). The uploads
		// alone would hold hostile·announced = 512 MiB if their
		// announced sizes were reserved.
		heapBound = 128 << 20
	)
	// Over loopback TCP, so that the in-memory network's buffers do not
	// count.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(ServerOptions{Threads: 2, MaxSceneBytes: announced, UploadBytes: budget,
		UploadIdle: 2 * time.Second, UploadTimeout: 8 * time.Second, ReplyTimeout: 300 * time.Millisecond})
	g := grpc.NewServer(srv.GRPCOptions()...)
	srv.Register(g)
	go g.Serve(l)
	defer g.Stop()
	addr := l.Addr().String()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	c := pb.NewWorkerClient(cc)
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatal(err)
	}
	// A client that grants the worker no more than 64 KiB of flow control
	// window, so that replies it does not read stall the worker's sends.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(1<<16), grpc.WithInitialConnWindowSize(1<<16),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	slow := pb.NewWorkerClient(conn)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stop := heapPeak()
	start := time.Now()
	var wg sync.WaitGroup
	uploads := make([]error, hostile)
	for i := range hostile {
		wg.Go(func() {
			up, err := c.PutBundle(ctx)
			if err != nil {
				uploads[i] = err
				return
			}
			h := sha256.Sum256([]byte(fmt.Sprint("hostile ", i)))
			data := make([]byte, chunk)
			for sent := 0; sent < sends; sent += chunk {
				m := &pb.BundleChunk{Data: data}
				if sent == 0 {
					m.Sha256, m.Size = h[:], announced
				}
				if up.Send(m) != nil {
					break
				}
			}
			// Stall: never close, wait for the worker's verdict.
			uploads[i] = up.RecvMsg(new(pb.PutBundleReply))
		})
	}
	set := wireSettings(tracer.Settings{Width: 512, Height: 512, Samples: 1, MaxDepth: 2})
	streams := make([]error, hostile)
	replies := make([]int, hostile)
	drain := make(chan struct{}) // closed once the worker has ended the streams
	for i := range hostile {
		wg.Go(func() {
			sctx := metadata.AppendToOutgoingContext(ctx, jobMetadataKey, fmt.Sprint("stalled-", i))
			s, err := slow.Render(sctx)
			if err != nil {
				streams[i] = err
				return
			}
			open := &pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{BundleSha256: good.Hash[:], Settings: set, PixelVersion: tracer.PixelVersion}}}
			if err := s.Send(open); err != nil {
				streams[i] = err
				return
			}
			for id := range 64 { // 64 tiles of 64×64: 3 MiB of replies, never read
				x, y := int32(id%8)*64, int32(id/8)*64
				if s.Send(tileReq(uint64(id+1), x, y, x+64, y+64)) != nil {
					break
				}
			}
			select {
			case <-drain:
			case <-ctx.Done():
			}
			for {
				if _, err := s.Recv(); err != nil {
					streams[i] = err
					return
				}
				replies[i]++
			}
		})
	}

	// The worker ends every stalled stream by itself.
	for {
		jobs := len(metricsOf(t, srv).jobs())
		srv.jobsMu.Lock()
		live := len(srv.byJob)
		srv.jobsMu.Unlock()
		if jobs == 0 && live == 0 && time.Since(start) > 500*time.Millisecond {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%d stalled render streams still open 10 s on (reply timeout 300 ms)", live)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ended := time.Since(start)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if up, _ := srv.uploads.inUse(); up == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("uploads still hold budget 10 s after they stalled (idle timeout 2 s)")
		}
	}
	grew := stop()
	close(drain)
	wg.Wait()
	cancel()
	for i, err := range streams {
		if status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "--reply-timeout") {
			t.Errorf("stalled stream %d, after %d replies: %v, want DeadlineExceeded naming --reply-timeout", i, replies[i], err)
		}
	}

	refused := 0
	for i, err := range uploads {
		switch status.Code(err) {
		case codes.ResourceExhausted:
			refused++
		case codes.DeadlineExceeded:
		default:
			t.Errorf("hostile upload %d: %v, want ResourceExhausted (budget) or DeadlineExceeded (idle)", i, err)
		}
	}
	if refused == 0 {
		t.Errorf("no upload was refused, though they sent %d bytes against a budget of %d", hostile*sends, budget)
	}
	st := srv.Stats()
	t.Logf("replies the stalled streams got once they read: %v", replies)
	t.Logf("%d uploads announcing %d MiB and %d unread render streams: upload budget peak %d bytes (budget %d), live heap grew by at most %.1f MiB (bound %d MiB); streams ended within %v",
		hostile, announced>>20, hostile, st.UploadBytesPeak, budget, float64(grew)/(1<<20), heapBound>>20, ended.Round(10*time.Millisecond))
	if st.UploadBytesPeak > budget {
		t.Errorf("uploads held %d bytes at once, past the budget of %d", st.UploadBytesPeak, budget)
	}
	if grew > heapBound {
		t.Errorf("the heap grew by %d bytes, past the bound of %d", grew, heapBound)
	}

	// The worker serves on.
	s, _ := openStream(t, c, openReq(good.Hash[:], wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})), tileReq(1, 0, 0, 16, 16))
	s.CloseSend()
	if replies, err := finish(s); err != nil || len(replies) != 2 || replies[1].GetResult() == nil {
		t.Errorf("a good stream after the hostile ones: %v, %v", replies, err)
	}
}

// An upload that grows past what the budget has left is refused with
// ResourceExhausted, and gives its bytes back.
func TestUploadBufferBudget(t *testing.T) {
	b := &byteBudget{limit: 1 << 20}
	u := &uploadBuffer{budget: b, size: 4 << 20}
	chunk := make([]byte, 300<<10)
	var err error
	for range 4 {
		if err = u.write(chunk); err != nil {
			break
		}
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("writing 1.2 MiB against a 1 MiB budget: %v, want ResourceExhausted", err)
	}
	if used, peak := b.inUse(); used > 1<<20 || peak > 1<<20 {
		t.Errorf("budget used %d, peak %d; want at most %d", used, peak, 1<<20)
	}
	u.release()
	if used, _ := b.inUse(); used != 0 {
		t.Errorf("after release, %d bytes of budget still taken", used)
	}
	// The buffer never grows past the announced size.
	u = &uploadBuffer{budget: &byteBudget{limit: 1 << 30}, size: 1000}
	if err := u.write(make([]byte, 1000)); err != nil || cap(u.data) != 1000 {
		t.Errorf("a 1000-byte upload: %v, capacity %d", err, cap(u.data))
	}
}

// An upload that ends before its first chunk is InvalidArgument.
func TestEmptyUpload(t *testing.T) {
	n := newTestNet()
	n.start(t, "w:7000", ServerOptions{Threads: 1})
	wantCode(t, "an empty upload", put(t, n.client(t, "w:7000")), codes.InvalidArgument, "empty")
}

// Methods the worker does not serve need the token like the others, and
// calls without it are logged at most once every 10 s, with a count.
func TestUnknownMethodsAndRefusedCallsLog(t *testing.T) {
	n := newTestNet()
	var logs logBuffer
	w := n.start(t, "w:7000", ServerOptions{Threads: 1, Token: "s3cret", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var clock atomic.Int64
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	w.srv.now = func() time.Time { return time.Unix(0, clock.Load()) }
	conn, err := grpc.NewClient("passthrough:///w:7000", grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithContextDialer(n.dial))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call := func(ctx context.Context, method string) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return conn.Invoke(ctx, method, &pb.BundleRef{}, new(pb.HasBundleReply))
	}
	authed := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer s3cret")
	wantCode(t, "an unknown method without the token", call(context.Background(), "/trace.Worker/Nonsense"), codes.Unauthenticated, "token")
	wantCode(t, "an unknown service without the token", call(context.Background(), "/other.Service/Method"), codes.Unauthenticated, "token")
	wantCode(t, "an unknown method with the token", call(authed, "/trace.Worker/Nonsense"), codes.Unimplemented, "Nonsense")
	for range 98 {
		call(context.Background(), "/trace.Worker/HasBundle")
	}
	if got := w.srv.Stats().Unauthenticated; got != 100 {
		t.Errorf("%d calls counted as refused, want 100", got)
	}
	if lines := bytes.Count([]byte(logs.String()), []byte("call without a valid token")); lines != 1 {
		t.Errorf("100 refused calls in 10 s logged %d lines, want 1:\n%s", lines, logs.String())
	}
	clock.Add(int64(10 * time.Second))
	call(context.Background(), "/trace.Worker/HasBundle")
	if lines := bytes.Count([]byte(logs.String()), []byte("call without a valid token")); lines != 2 || !bytes.Contains([]byte(logs.String()), []byte("suppressed=99")) {
		t.Errorf("after 10 s, want a second line counting the 99 not logged:\n%s", logs.String())
	}
}

// Only jobs that opened a render stream get metrics series: a flood of
// HasBundle calls naming made-up jobs adds none, and the jobs waiting
// for a stream are bounded; the live jobs' series are capped.
func TestJobSeriesBounded(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 3, MaxJobSeries: 2})
	c := n.client(t, "w:7000")
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		ctx := metadata.AppendToOutgoingContext(context.Background(), jobMetadataKey, fmt.Sprint("made-up-", i))
		if _, err := c.HasBundle(ctx, &pb.BundleRef{Sha256: good.Hash[:]}); err != nil {
			t.Fatal(err)
		}
	}
	if jobs := metricsOf(t, w.srv).jobs(); len(jobs) != 0 {
		t.Errorf("3000 HasBundle calls of made-up jobs made series for %d jobs, want none", len(jobs))
	}
	w.srv.jobsMu.Lock()
	pending := len(w.srv.pending)
	w.srv.jobsMu.Unlock()
	if pending > maxPendingJobs {
		t.Errorf("%d jobs wait for a stream, past the bound of %d", pending, maxPendingJobs)
	}

	// Three streams open at once with MaxJobSeries 2: two jobs get series
	// (one of them counting its HasBundle call), the third renders
	// uncounted.
	hold := make(chan struct{})
	var held sync.WaitGroup
	held.Add(3)
	w.srv.beforeTile = func(context.Context) { held.Done(); <-hold }
	set := wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, job := range []string{"made-up-1", "b", "c"} {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx = metadata.AppendToOutgoingContext(ctx, jobMetadataKey, job)
			s, err := c.Render(ctx)
			if err == nil {
				s.Send(openReq2(good.Hash[:], set))
				s.Send(tileReq(1, 0, 0, 16, 16))
				s.CloseSend()
				_, err = finish(s)
			}
			errs[i] = err
		})
	}
	held.Wait()
	ms := metricsOf(t, w.srv)
	if jobs := ms.jobs(); len(jobs) != 2 {
		t.Errorf("3 streams with MaxJobSeries 2: series of %v", jobs)
	}
	if got, _ := ms.value("trace_worker_untracked_jobs_total"); got != 1 {
		t.Errorf("trace_worker_untracked_jobs_total = %v, want 1", got)
	}
	if got, ok := ms.value("trace_worker_scene_cache_misses_total", "job", "made-up-1"); ok && got != 0 {
		t.Errorf("job made-up-1's cache hits: %v", got)
	}
	if got, ok := ms.value("trace_worker_scene_cache_hits_total", "job", "made-up-1"); ok && got != 1 {
		t.Errorf("job made-up-1's HasBundle call, counted before its stream: %v hits, want 1", got)
	}
	close(hold)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("stream %d: %v", i, err)
		}
	}
	if jobs := jobsEnded(t, w).jobs(); len(jobs) != 0 {
		t.Errorf("series of %v remain after the streams ended", jobs)
	}
}

// openReq2 is an Open that leaves the job to the call's metadata.
func openReq2(h []byte, set []byte) *pb.RenderRequest {
	return &pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{BundleSha256: h, Settings: set, PixelVersion: tracer.PixelVersion}}}
}
