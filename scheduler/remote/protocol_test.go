package remote

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// tinyScene is a small valid scene file.
const tinyScene = `{"version": 1,
  "render": {"width": 16, "height": 16, "samples": 1},
  "camera": {"position": [0, 0, -3], "look_at": [0, 0, 0]},
  "materials": {"m": {"type": "diffuse", "color": [0.5, 0.5, 0.5]}},
  "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}]}`

// encoded serializes a bundle of one scene file.
func encoded(t testing.TB, scene string) *EncodedBundle {
	t.Helper()
	eb, err := EncodeBundle(&scenes.Bundle{Name: "/scenes/s.json", Dir: "/scenes", Scene: []byte(scene)})
	if err != nil {
		t.Fatal(err)
	}
	return eb
}

// client connects to a test worker directly.
func (n *testNet) client(t testing.TB, addr string) pb.WorkerClient {
	t.Helper()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(n.dial), grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewWorkerClient(conn)
}

// put uploads chunks and returns the worker's status.
func put(t testing.TB, c pb.WorkerClient, chunks ...*pb.BundleChunk) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := c.PutBundle(ctx)
	if err != nil {
		return err
	}
	for _, ch := range chunks {
		if err := up.Send(ch); err != nil {
			break // the status comes from CloseAndRecv
		}
	}
	_, err = up.CloseAndRecv()
	return err
}

func wantCode(t *testing.T, what string, err error, code codes.Code, words string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), words) {
		t.Errorf("%s: got %v, want %s mentioning %q", what, err, code, words)
	}
}

// Bad bundles are refused with a clear status and never cached; the
// worker keeps serving.
func TestBadBundles(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 1, MaxSceneBytes: 1 << 16})
	c := n.client(t, "w:7000")
	good := encoded(t, tinyScene)
	bad := encoded(t, strings.Replace(tinyScene, `"radius": 1`, `"radius": -1`, 1))
	other := sha256.Sum256([]byte("something else"))
	garbage := []byte("\xff\xff\xff not a protocol buffer")
	gh := sha256.Sum256(garbage)
	tests := []struct {
		name   string
		chunks []*pb.BundleChunk
		code   codes.Code
		words  string
	}{
		{"hash mismatch", []*pb.BundleChunk{{Sha256: other[:], Size: int64(len(good.Data)), Data: good.Data}}, codes.DataLoss, "does not match"},
		{"too large", []*pb.BundleChunk{{Sha256: good.Hash[:], Size: 1 << 20, Data: good.Data}}, codes.ResourceExhausted, "--max-scene-bytes"},
		{"more than announced", []*pb.BundleChunk{{Sha256: good.Hash[:], Size: 10, Data: good.Data}}, codes.InvalidArgument, "more bytes"},
		{"fewer than announced", []*pb.BundleChunk{{Sha256: good.Hash[:], Size: int64(len(good.Data)) + 5, Data: good.Data}}, codes.InvalidArgument, "received"},
		{"short hash", []*pb.BundleChunk{{Sha256: good.Hash[:5], Size: int64(len(good.Data)), Data: good.Data}}, codes.InvalidArgument, "SHA-256"},
		{"hash repeated", []*pb.BundleChunk{{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data[:10]}, {Sha256: good.Hash[:], Data: good.Data[10:]}}, codes.InvalidArgument, "repeated"},
		{"not a bundle", []*pb.BundleChunk{{Sha256: gh[:], Size: int64(len(garbage)), Data: garbage}}, codes.InvalidArgument, "bundle"},
		{"scene fails validation", []*pb.BundleChunk{{Sha256: bad.Hash[:], Size: int64(len(bad.Data)), Data: bad.Data}}, codes.InvalidArgument, "radius"},
	}
	for _, tc := range tests {
		wantCode(t, tc.name, put(t, c, tc.chunks...), tc.code, tc.words)
	}
	if st := w.srv.Stats(); st.BundlesStored != 0 {
		t.Errorf("%d bad bundles were stored", st.BundlesStored)
	}
	for _, h := range [][]byte{good.Hash[:], bad.Hash[:], gh[:]} {
		if r, err := c.HasBundle(context.Background(), &pb.BundleRef{Sha256: h}); err != nil || r.Present {
			t.Errorf("HasBundle after a refused upload: %v, %v", r, err)
		}
	}
	// In two chunks, the good one goes in.
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data[:7]}, &pb.BundleChunk{Data: good.Data[7:]}); err != nil {
		t.Fatal(err)
	}
	if r, err := c.HasBundle(context.Background(), &pb.BundleRef{Sha256: good.Hash[:]}); err != nil || !r.Present {
		t.Errorf("HasBundle after the upload: %v, %v", r, err)
	}
}

// openStream starts a render stream and sends reqs.
func openStream(t *testing.T, c pb.WorkerClient, reqs ...*pb.RenderRequest) (pb.Worker_RenderClient, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	s, err := c.Render(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if err := s.Send(r); err != nil {
			break
		}
	}
	return s, nil
}

// finish reads a stream to its end and returns its status and replies.
func finish(s pb.Worker_RenderClient) ([]*pb.RenderReply, error) {
	var out []*pb.RenderReply
	for {
		r, err := s.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

func openReq(h []byte, set []byte) *pb.RenderRequest {
	return &pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{Job: "test", BundleSha256: h, Settings: set, PixelVersion: tracer.PixelVersion}}}
}

func tileReq(id uint64, x0, y0, x1, y1 int32) *pb.RenderRequest {
	return &pb.RenderRequest{Kind: &pb.RenderRequest_Tile{Tile: &pb.TileLease{Lease: id, X0: x0, Y0: y0, X1: x1, Y1: y1}}}
}

// Hostile or broken render streams end with a clear status; the worker
// keeps serving others.
func TestBadRenderStreams(t *testing.T) {
	n := newTestNet()
	n.start(t, "w:7000", ServerOptions{Threads: 1})
	c := n.client(t, "w:7000")
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatal(err)
	}
	set := wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})
	unknown := sha256.Sum256([]byte("x"))
	tests := []struct {
		name  string
		reqs  []*pb.RenderRequest
		code  codes.Code
		words string
	}{
		{"tile before open", []*pb.RenderRequest{tileReq(1, 0, 0, 8, 8)}, codes.InvalidArgument, "Open"},
		{"unknown bundle", []*pb.RenderRequest{openReq(unknown[:], set)}, codes.NotFound, "not in this worker's cache"},
		{"no settings", []*pb.RenderRequest{openReq(good.Hash[:], nil)}, codes.InvalidArgument, "settings"},
		{"bad settings", []*pb.RenderRequest{openReq(good.Hash[:], wireSettings(tracer.Settings{Width: 0, Height: 16, Samples: 1}))}, codes.InvalidArgument, "width"},
		{"tile outside the image", []*pb.RenderRequest{openReq(good.Hash[:], set), tileReq(1, 8, 8, 24, 16)}, codes.InvalidArgument, "not a part of the 16×16 image"},
		{"empty tile", []*pb.RenderRequest{openReq(good.Hash[:], set), tileReq(1, 8, 8, 8, 16)}, codes.InvalidArgument, "tile lease 1"},
		{"negative tile", []*pb.RenderRequest{openReq(good.Hash[:], set), tileReq(1, -8, 0, 8, 8)}, codes.InvalidArgument, "tile lease 1"},
		{"open twice", []*pb.RenderRequest{openReq(good.Hash[:], set), openReq(good.Hash[:], set)}, codes.InvalidArgument, "tile leases"},
	}
	for _, tc := range tests {
		s, _ := openStream(t, c, tc.reqs...)
		_, err := finish(s)
		wantCode(t, tc.name, err, tc.code, tc.words)
	}
	// A good stream on the same worker still renders.
	s, _ := openStream(t, c, openReq(good.Hash[:], set), tileReq(7, 0, 0, 16, 16))
	s.CloseSend()
	replies, err := finish(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(replies) != 2 || replies[0].GetReady() == nil || replies[1].GetResult().GetLease() != 7 || len(replies[1].GetResult().GetPixels()) != 16*16*12 {
		t.Errorf("a good stream after the bad ones: %v", replies)
	}
}

// A message past the size bound is refused before it is read; random
// bytes on the port are dropped; the worker serves on.
func TestHostilePeers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(ServerOptions{Threads: 1})
	g := grpc.NewServer(srv.GRPCOptions()...)
	srv.Register(g)
	go g.Serve(l)
	defer g.Stop()
	addr := l.Addr().String()

	for _, junk := range [][]byte{randomBytes(t, 1<<16), []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\xff\xff\xff\x04\x00\x00\x00\x00")} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write(junk)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		io.Copy(io.Discard, conn) // the server hangs up
		conn.Close()
	}

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := pb.NewWorkerClient(conn)
	huge := make([]byte, 8<<20)
	h := sha256.Sum256(huge)
	wantCode(t, "an 8 MiB chunk", put(t, c, &pb.BundleChunk{Sha256: h[:], Size: int64(len(huge)), Data: huge}), codes.ResourceExhausted, "")
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatalf("a good upload after the hostile ones: %v", err)
	}
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// wireSettings is set as Open carries it.
func wireSettings(set tracer.Settings) []byte {
	b, _ := set.MarshalBinary()
	return b
}

// The worker compiles the scene with exactly the settings Open carries,
// every field of them, and keys its compiled scenes by all of them.
func TestOpenSettingsReachTheScene(t *testing.T) {
	srv := NewServer(ServerOptions{Threads: 1})
	good := encoded(t, tinyScene)
	srv.cache.put(good.Hash, good.Data)
	set := tracer.Settings{Width: 12, Height: 7, Samples: 3, MaxDepth: 5, Integrator: tracer.IntegratorWhitted, Seed: 99}
	sc, err := srv.scene(good.Hash, wireSettings(set))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Settings != set {
		t.Errorf("compiled with %+v, Open asked for %+v", sc.Settings, set)
	}
	other := set
	other.Seed++
	sc2, err := srv.scene(good.Hash, wireSettings(other))
	if err != nil {
		t.Fatal(err)
	}
	if sc2 == sc || sc2.Settings != other {
		t.Errorf("another seed got the first job's scene (settings %+v)", sc2.Settings)
	}
	if again, _ := srv.scene(good.Hash, wireSettings(set)); again != sc {
		t.Errorf("the same settings again compiled the scene again")
	}
	if _, err := srv.scene(good.Hash, wireSettings(set)[1:]); err == nil || !strings.Contains(err.Error(), "another version of trace") {
		t.Errorf("settings cut short: %v, want a refusal naming another version of trace", err)
	}
}
