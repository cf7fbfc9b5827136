package remote

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// otherVersionWorker is a worker of another build: it holds every bundle,
// takes every job without looking at its pixel version, and answers Ready
// with its own version. It renders nothing; it counts what it is asked.
type otherVersionWorker struct {
	pb.UnimplementedWorkerServer
	version       uint32
	opens, leases atomic.Int32
}

func (w *otherVersionWorker) HasBundle(context.Context, *pb.BundleRef) (*pb.HasBundleReply, error) {
	return &pb.HasBundleReply{Present: true}, nil
}

func (w *otherVersionWorker) Render(stream pb.Worker_RenderServer) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	w.opens.Add(1)
	err := stream.Send(&pb.RenderReply{Kind: &pb.RenderReply_Ready{Ready: &pb.Ready{Threads: 4, Name: "other", PixelVersion: w.version}}})
	if err != nil {
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
		if r.GetTile() != nil {
			w.leases.Add(1)
		}
	}
}

// A worker that renders another pixel version — a newer one, or one from
// before pixel versions — is not used: it is asked once, gets no tile,
// and the coordinator says so in one log line; the other workers render
// the frame, the same as a local render. Alone, it fails the render
// with that reason.
func TestOtherPixelVersionWorkerNotUsed(t *testing.T) {
	bundle, scene := testScene(t, 32, 2)
	want := localRender(t, scene, 8)
	for _, v := range []uint32{tracer.PixelVersion + 1, 0} {
		n := newTestNet()
		n.start(t, "good:7000", ServerOptions{Threads: 2})
		other := &otherVersionWorker{version: v}
		n.serve(t, "other:7000", other)
		var log syncBuffer
		opt := n.options()
		opt.Backoff = time.Hour // a retry would hang the test
		opt.Logger = slog.New(slog.NewTextHandler(&log, nil))
		res, err := render(t, scene, NewCluster([]string{"other:7000", "good:7000"}, bundle, opt), false)
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		samePixels(t, res.Framebuffer.Pix, want)
		if o, l := other.opens.Load(), other.leases.Load(); o != 1 || l != 0 {
			t.Errorf("version %d: the worker was asked %d times and sent %d tile leases; want once, none", v, o, l)
		}
		lines := 0
		for _, line := range strings.Split(log.String(), "\n") {
			if strings.Contains(line, "pixel version") {
				lines++
			}
		}
		if got := lines; got != 1 || !strings.Contains(log.String(), "worker not used") {
			t.Errorf("version %d: %d log lines about the pixel version, want one saying the worker is not used:\n%s", v, got, log.String())
		}
		if len(res.WorkerErrors) != 1 || !strings.Contains(res.WorkerErrors[0].Error(), "other:7000: not used: it renders ") {
			t.Errorf("version %d: worker errors %v, want one saying other:7000 was not used", v, res.WorkerErrors)
		}

		n.serve(t, "alone:7000", &otherVersionWorker{version: v})
		_, err = render(t, scene, NewCluster([]string{"alone:7000"}, bundle, opt), false)
		if err == nil || !strings.Contains(err.Error(), "pixel version") || !strings.Contains(err.Error(), "same version of trace") {
			t.Errorf("version %d alone: %v, want the render to fail naming the pixel version", v, err)
		}
	}
}

// A worker refuses a job whose coordinator renders another pixel version
// (an Open without one comes from a trace from before them), and the
// coordinator reads that refusal as the same mismatch.
func TestWorkerRefusesOtherPixelVersion(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 1})
	c := n.client(t, "w:7000")
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatal(err)
	}
	set := wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})
	for _, v := range []uint32{tracer.PixelVersion + 1, 0} {
		open := &pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{Job: "test", BundleSha256: good.Hash[:], Settings: set, PixelVersion: v}}}
		s, _ := openStream(t, c, open, tileReq(1, 0, 0, 16, 16))
		replies, err := finish(s)
		wantCode(t, "another pixel version", err, codes.FailedPrecondition, "pixel version")
		if len(replies) != 0 {
			t.Errorf("version %d: the worker answered %v", v, replies)
		}
		msg, ok := pixelVersionMismatch(err)
		if !ok || !strings.Contains(msg, "refused this render's pixel version") || !strings.Contains(msg, "same version of trace") {
			t.Errorf("version %d: the coordinator reads the refusal as %q, %v", v, msg, ok)
		}
	}
	if st := w.srv.Stats(); st.Jobs != 0 || st.TilesRendered != 0 {
		t.Errorf("the worker took jobs of another pixel version: %+v", st)
	}
	// Other FailedPrecondition errors are no version mismatch.
	if _, ok := pixelVersionMismatch(status.Error(codes.FailedPrecondition, "this worker renders on GPUs only")); ok {
		t.Error("a GPU-only refusal read as a pixel version mismatch")
	}
	if _, ok := pixelVersionMismatch(errors.New(pixelVersionPrefix)); ok {
		t.Error("a plain error read as a pixel version mismatch")
	}
}
