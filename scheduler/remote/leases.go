package remote

import (
	"context"
	"sync"
	"time"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
)

// streamLeases is the tile leases of one render stream as a
// scheduler.Leases, so that a worker's CPU threads render them with the
// scheduler's own CPUWorker loop and its GPUs with its GPUWorker, as a
// local render does. Next hands out the leases the coordinator sent, for
// CPU threads each holding one of the worker's threads (Server.sem, shared
// by all jobs) until it ends; Complete and Fail send the reply, Release
// (the stream is over) sends none.
type streamLeases struct {
	s     *Server
	tiles <-chan leased // from the stream; closed when the coordinator is done
	send  func(*pb.RenderReply)
	js    *jobStats
	// batched is set for a GPU's leases, which end a batch at a time: a
	// tile's render time is then counted from the end of the one before
	// (the batch's launch shared among its tiles), and it holds no
	// thread.
	batched bool

	mu      sync.Mutex
	last    int               // the last local lease number handed out
	held    map[int]heldLease // by Lease.Tile.ID, a local lease number
	lastEnd time.Time         // when the last lease ended, for batched
}

// heldLease is a lease being rendered.
type heldLease struct {
	lease          *pb.TileLease
	arrived, start time.Time
}

var _ scheduler.Leases = (*streamLeases)(nil)

func newStreamLeases(s *Server, tiles <-chan leased, send func(*pb.RenderReply), js *jobStats, batched bool) *streamLeases {
	return &streamLeases{s: s, tiles: tiles, send: send, js: js, batched: batched, held: map[int]heldLease{}}
}

// Next implements scheduler.Leases.
func (l *streamLeases) Next(ctx context.Context, worker int) (scheduler.Lease, error) {
	var t leased
	var ok bool
	select {
	case t, ok = <-l.tiles: // a tile waiting is handed out first
	default:
		select {
		case t, ok = <-l.tiles:
		case <-ctx.Done():
			return scheduler.Lease{}, ctx.Err()
		}
	}
	if !ok {
		return scheduler.Lease{}, scheduler.ErrNoMoreTiles
	}
	if !l.batched {
		select {
		case l.s.sem <- struct{}{}: // a free thread is taken first, too
		default:
			select {
			case l.s.sem <- struct{}{}:
			case <-ctx.Done():
				return scheduler.Lease{}, ctx.Err() // the stream is over: the tile is dropped
			}
		}
	}
	if l.s.beforeTile != nil {
		l.s.beforeTile(ctx)
	}
	l.mu.Lock()
	l.last++
	id := l.last
	l.held[id] = heldLease{lease: t.lease, arrived: t.arrived, start: time.Now()}
	l.mu.Unlock()
	return scheduler.Lease{Tile: scheduler.Tile{ID: id, Rect: rect(t.lease)}, Worker: worker}, nil
}

// end ends a lease, giving its thread back, and returns it and the time
// it took to render.
func (l *streamLeases) end(sl scheduler.Lease) (heldLease, time.Duration) {
	now := time.Now()
	l.mu.Lock()
	h := l.held[sl.Tile.ID]
	delete(l.held, sl.Tile.ID)
	start := h.start
	if l.batched {
		if l.lastEnd.After(start) {
			start = l.lastEnd
		}
		l.lastEnd = now
	}
	l.mu.Unlock()
	if !l.batched {
		<-l.s.sem
	}
	return h, now.Sub(start)
}

// Complete implements scheduler.Leases: it sends the tile's pixels.
func (l *streamLeases) Complete(sl scheduler.Lease, pix []float32, st tracer.Stats) bool {
	h, took := l.end(sl)
	l.js.tile(took, st, true)
	l.s.tiles.Add(1)
	l.send(&pb.RenderReply{Kind: &pb.RenderReply_Result{Result: &pb.TileResult{
		Lease: h.lease.Lease, Pixels: encodePixels(pix), Rays: st.Rays, Samples: st.Samples, NonFinite: st.NonFinite,
		Seconds: took.Seconds(), HeldSeconds: time.Since(h.arrived).Seconds(),
	}}})
	return true
}

// Fail implements scheduler.Leases: it sends the tile's error, for the
// coordinator to render the tile elsewhere.
func (l *streamLeases) Fail(sl scheduler.Lease, cause error) {
	h, took := l.end(sl)
	l.js.tile(took, tracer.Stats{}, false)
	l.s.tileFails.Add(1)
	l.send(&pb.RenderReply{Kind: &pb.RenderReply_Error{Error: &pb.TileError{Lease: h.lease.Lease, Message: cause.Error()}}})
}

// Release implements scheduler.Leases: the stream is over, and the
// lease is dropped without a reply.
func (l *streamLeases) Release(sl scheduler.Lease) {
	l.end(sl)
}
