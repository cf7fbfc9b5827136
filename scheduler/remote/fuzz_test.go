package remote

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// fakeStream feeds a handler messages from memory and keeps its replies.
type fakeStream[Req, Res any] struct {
	grpc.ServerStream
	ctx  context.Context
	reqs []*Req
	sent []*Res
}

func (s *fakeStream[Req, Res]) Context() context.Context     { return s.ctx }
func (s *fakeStream[Req, Res]) SetHeader(metadata.MD) error  { return nil }
func (s *fakeStream[Req, Res]) SendHeader(metadata.MD) error { return nil }
func (s *fakeStream[Req, Res]) SetTrailer(metadata.MD)       {}
func (s *fakeStream[Req, Res]) Send(r *Res) error            { s.sent = append(s.sent, r); return nil }
func (s *fakeStream[Req, Res]) SendAndClose(r *Res) error    { return s.Send(r) }
func (s *fakeStream[Req, Res]) Recv() (*Req, error) {
	if len(s.reqs) == 0 {
		return nil, io.EOF
	}
	r := s.reqs[0]
	s.reqs = s.reqs[1:]
	return r, nil
}

// messages splits fuzz input into length-prefixed messages of type M,
// skipping those that do not parse.
func messages[M any, P interface {
	*M
	proto.Message
}](data []byte) []*M {
	var out []*M
	for len(data) > 0 {
		n := min(int(data[0]), len(data)-1)
		m := P(new(M))
		if proto.Unmarshal(data[1:1+n], m) == nil {
			out = append(out, (*M)(m))
		}
		data = data[1+n:]
	}
	return out
}

// frame is the inverse of messages, for the seed corpus.
func frame(t testing.TB, ms ...proto.Message) []byte {
	var out []byte
	for _, m := range ms {
		b, err := proto.Marshal(m)
		if err != nil || len(b) > 255 {
			t.Fatalf("seed message: %v, %d bytes", err, len(b))
		}
		out = append(append(out, byte(len(b))), b...)
	}
	return out
}

// FuzzRenderStream sends the render handler any sequence of messages: it
// must end, and answer only well-formed replies to leases it was sent.
func FuzzRenderStream(f *testing.F) {
	good := encoded(f, tinyScene)
	set := wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})
	f.Add(frame(f, openReq(good.Hash[:], set), tileReq(1, 0, 0, 8, 8), tileReq(2, 8, 8, 16, 16)))
	f.Add(frame(f, openReq(good.Hash[:], set), tileReq(1, 0, 0, 16, 17)))
	f.Add(frame(f, tileReq(1, 0, 0, 8, 8)))
	f.Add(frame(f, openReq(good.Hash[:3], set)))
	srv := NewServer(ServerOptions{Threads: 2})
	srv.cache.put(good.Hash, good.Data)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		s := &fakeStream[pb.RenderRequest, pb.RenderReply]{ctx: ctx, reqs: messages[pb.RenderRequest](data)}
		asked := map[uint64]*pb.TileLease{}
		for _, r := range s.reqs {
			if tl := r.GetTile(); tl != nil {
				asked[tl.Lease] = tl
			}
		}
		srv.Render(s)
		for i, r := range s.sent {
			if (i == 0) != (r.GetReady() != nil) {
				t.Fatalf("reply %d: %v; only the first reply is Ready", i, r)
			}
			if res := r.GetResult(); res != nil {
				tl := asked[res.Lease]
				if tl == nil {
					t.Fatalf("a result for lease %d, which was not asked for", res.Lease)
				}
				if want := 12 * int(tl.X1-tl.X0) * int(tl.Y1-tl.Y0); len(res.Pixels) != want {
					t.Fatalf("lease %d: %d bytes of pixels, want %d", res.Lease, len(res.Pixels), want)
				}
			}
		}
	})
}

// FuzzPutBundle uploads any sequence of chunks: nothing is cached unless
// it is a bundle whose data has the hash it was sent under.
func FuzzPutBundle(f *testing.F) {
	good := encoded(f, tinyScene)
	half := len(good.Data) / 2
	f.Add(frame(f, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data[:half]}))
	f.Add(frame(f, &pb.BundleChunk{Sha256: good.Hash[:], Size: 3, Data: []byte("abc")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		srv := NewServer(ServerOptions{Threads: 1, MaxSceneBytes: 1 << 16})
		s := &fakeStream[pb.BundleChunk, pb.PutBundleReply]{ctx: context.Background(), reqs: messages[pb.BundleChunk](data)}
		var h Hash
		if len(s.reqs) > 0 {
			copy(h[:], s.reqs[0].GetSha256())
		}
		err := srv.PutBundle(s)
		stored, ok := srv.cache.get(h)
		if err == nil != ok {
			t.Fatalf("PutBundle returned %v but the cache has the bundle: %v", err, ok)
		}
		if ok {
			if _, err := DecodeBundle(stored); err != nil {
				t.Fatalf("a stored bundle does not decode: %v", err)
			}
		}
	})
}
