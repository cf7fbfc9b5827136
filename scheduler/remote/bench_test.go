package remote

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// BenchmarkLoopback renders the Cornell box with one worker process's
// worth of threads over TCP on loopback and with the same threads locally,
// alternately, and reports the remote rate as a share of the local one and
// the bytes on the wire per tile.
//
//	go test -run '^$' -bench Loopback -benchtime 5x ./scheduler/remote/
func BenchmarkLoopback(b *testing.B) {
	threads := runtime.NumCPU()
	bundle, desc, err := scenes.ReadBundle("../../scenes/examples/cornell-box.json", scenes.Options{})
	if err != nil {
		b.Fatal(err)
	}
	desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = 256, 256, 16
	scene, err := tracer.Compile(desc)
	if err != nil {
		b.Fatal(err)
	}
	eb, err := EncodeBundle(bundle)
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := NewServer(ServerOptions{Threads: threads})
	g := grpc.NewServer(srv.GRPCOptions()...)
	srv.Register(g)
	go g.Serve(l)
	defer g.Stop()

	run := func(w scheduler.Worker) time.Duration {
		start := time.Now()
		if _, err := scheduler.Render(context.Background(), scene, scheduler.Options{Workers: []scheduler.Worker{w}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	c := NewCluster([]string{l.Addr().String()}, eb, ClientOptions{})
	run(c) // uploads the scene and warms the worker's cache
	before := c.Stats()
	var local, remote time.Duration
	b.ResetTimer()
	for b.Loop() {
		local += run(&scheduler.CPUWorker{N: threads})
		remote += run(c)
	}
	after := c.Stats()
	tiles := after.Tiles - before.Tiles
	b.ReportMetric(100*local.Seconds()/remote.Seconds(), "remote/local-%")
	b.ReportMetric(float64(after.BytesReceived-before.BytesReceived+after.BytesSent-before.BytesSent)/float64(tiles), "wire-B/tile")
	b.ReportMetric(float64(tiles)/remote.Seconds(), "remote-tiles/s")
}

// BenchmarkCoordinatorTile is the coordinator's work for one finished
// 32×32 tile from a remote worker: decoding the message and its pixels.
func BenchmarkCoordinatorTile(b *testing.B) {
	pix := make([]byte, 32*32*12)
	msg, err := proto.Marshal(&pb.RenderReply{Kind: &pb.RenderReply_Result{Result: &pb.TileResult{Lease: 7, Pixels: pix, Rays: 1e5, Samples: 1e4}}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		var r pb.RenderReply
		if err := proto.Unmarshal(msg, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := decodePixels(r.GetResult().Pixels, 32*32); err != nil {
			b.Fatal(err)
		}
	}
}
