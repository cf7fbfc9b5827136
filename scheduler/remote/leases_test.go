package remote

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
)

// A render stream's leases, rendered by the scheduler's CPUWorker: every
// lease gets one reply, with the pixels a local render gives its
// rectangle, and every thread token goes back.
func TestStreamLeasesRunTheCPUWorker(t *testing.T) {
	_, scene := testScene(t, 24, 2)
	want := localRender(t, scene, 8)
	srv := NewServer(ServerOptions{Threads: 3})
	tiles := make(chan leased, 16)
	var mu sync.Mutex
	var replies []*pb.RenderReply
	src := newStreamLeases(srv, tiles, func(r *pb.RenderReply) {
		mu.Lock()
		replies = append(replies, r)
		mu.Unlock()
	}, nil, false)
	grid := scheduler.Tiles(24, 24, 8)
	for i, tl := range grid {
		r := tl.Rect
		tiles <- leased{&pb.TileLease{Lease: uint64(100 + i), X0: int32(r.Min.X), Y0: int32(r.Min.Y), X1: int32(r.Max.X), Y1: int32(r.Max.Y)}, time.Now()}
	}
	close(tiles)
	if err := (&scheduler.CPUWorker{N: 3}).Run(context.Background(), scene, src, 0); err != nil {
		t.Fatal(err)
	}
	if len(replies) != len(grid) || len(srv.sem) != 0 || len(src.held) != 0 {
		t.Fatalf("%d replies for %d leases; %d threads and %d leases still held", len(replies), len(grid), len(srv.sem), len(src.held))
	}
	for _, r := range replies {
		res := r.GetResult()
		if res == nil || res.Lease < 100 || res.Lease >= uint64(100+len(grid)) {
			t.Fatalf("reply %v", r)
		}
		rc := grid[res.Lease-100].Rect
		pix, err := decodePixels(res.Pixels, rc.Dx()*rc.Dy())
		if err != nil {
			t.Fatal(err)
		}
		var ref []float32
		for y := rc.Min.Y; y < rc.Max.Y; y++ {
			ref = append(ref, want[3*(y*24+rc.Min.X):3*(y*24+rc.Max.X)]...)
		}
		if !slices.Equal(pix, ref) || res.Samples != uint64(2*rc.Dx()*rc.Dy()) || res.Rays == 0 {
			t.Errorf("lease %d: pixels or counts (%d samples, %d rays) differ from a local render's", res.Lease, res.Samples, res.Rays)
		}
	}
}

// Next hands out a waiting lease even when asked with a cancelled
// context (as the GPU batcher asks), then says there are no more; Fail
// answers with the cause, Release with nothing, and both give the thread
// back.
func TestStreamLeasesContract(t *testing.T) {
	srv := NewServer(ServerOptions{Threads: 2})
	tiles := make(chan leased, 2)
	var replies []*pb.RenderReply
	src := newStreamLeases(srv, tiles, func(r *pb.RenderReply) { replies = append(replies, r) }, nil, false)
	tiles <- leased{&pb.TileLease{Lease: 7, X0: 0, Y0: 0, X1: 4, Y1: 2}, time.Now()}
	tiles <- leased{&pb.TileLease{Lease: 8, X0: 4, Y0: 0, X1: 8, Y1: 2}, time.Now()}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	a, err := src.Next(cancelled, 0)
	if err != nil || a.Tile.Rect.Dx() != 4 || a.Tile.Rect.Dy() != 2 {
		t.Fatalf("Next with a cancelled context and a lease waiting: %+v, %v", a, err)
	}
	b, err := src.Next(context.Background(), 0)
	if err != nil || a.Tile.ID == b.Tile.ID || len(srv.sem) != 2 {
		t.Fatalf("second Next: %+v, %v (%d threads held)", b, err, len(srv.sem))
	}
	if _, err := src.Next(cancelled, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with nothing waiting and a cancelled context: %v", err)
	}
	src.Fail(a, errors.New("boom"))
	src.Release(b)
	if len(replies) != 1 || replies[0].GetError().GetLease() != 7 || replies[0].GetError().GetMessage() != "boom" {
		t.Errorf("replies %v, want one error for lease 7 saying boom", replies)
	}
	if len(srv.sem) != 0 {
		t.Errorf("%d threads still held", len(srv.sem))
	}
	close(tiles)
	if _, err := src.Next(context.Background(), 0); !errors.Is(err, scheduler.ErrNoMoreTiles) {
		t.Errorf("Next after the stream's last lease: %v, want ErrNoMoreTiles", err)
	}

	// A GPU's leases hold no thread.
	tiles = make(chan leased, 1)
	gpu := newStreamLeases(srv, tiles, func(r *pb.RenderReply) { replies = append(replies, r) }, nil, true)
	tiles <- leased{&pb.TileLease{Lease: 9, X0: 0, Y0: 0, X1: 4, Y1: 2}, time.Now()}
	c, err := gpu.Next(cancelled, 0)
	if err != nil || len(srv.sem) != 0 {
		t.Fatalf("a GPU's Next: %v, %d threads held", err, len(srv.sem))
	}
	gpu.Complete(c, make([]float32, 3*8), tracer.Stats{Samples: 8})
	if r := replies[len(replies)-1].GetResult(); r.GetLease() != 9 || len(r.GetPixels()) != 12*8 || r.GetSamples() != 8 {
		t.Errorf("a GPU's Complete sent %v", replies[len(replies)-1])
	}
}

// A cluster joins its machines to the render's Queue: given the leases of
// a render stream (a cluster worker nested in trace worker, say), Run
// refuses them with an error, without a panic and without a connection.
func TestClusterRunNeedsTheQueue(t *testing.T) {
	_, scene := testScene(t, 8, 1)
	tiles := make(chan leased)
	close(tiles)
	src := newStreamLeases(NewServer(ServerOptions{Threads: 1}), tiles, func(*pb.RenderReply) {}, nil, false)
	c := NewCluster([]string{"127.0.0.1:1"}, nil, ClientOptions{})
	err := c.Run(context.Background(), scene, src, 0)
	if err == nil || !strings.Contains(err.Error(), "render's queue") {
		t.Errorf("Run on a render stream's leases: %v, want an error saying it needs the render's queue", err)
	}
}
