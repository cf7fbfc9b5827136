package scheduler

import (
	"context"

	"github.com/tracerender/trace/tracer"
)

// Leases is where a worker's tiles come from and where they go back: the
// render's Queue, or, in trace worker, the tile leases a coordinator sends
// over its render stream (scheduler/remote), so that one engine — the
// CPUWorker's loop — renders tiles on both ends of the wire.
type Leases interface {
	// Next waits for a tile and leases it to worker (an index for the
	// progress reports). It hands out a free tile before it looks at
	// ctx, so that asking with a cancelled ctx asks without waiting. It
	// returns ErrNoMoreTiles when there will be no more, or ctx's error.
	Next(ctx context.Context, worker int) (Lease, error)
	// Complete delivers a lease's pixels (linear RGB, row by row; the
	// callee does not keep the slice) and the work they took; false if
	// they were not needed (another lease of the tile won).
	Complete(l Lease, pix []float32, st tracer.Stats) bool
	// Fail ends a lease that could not be finished: its tile is
	// rendered again, here or elsewhere.
	Fail(l Lease, cause error)
	// Release ends a lease without a result and without counting a
	// failure, for a worker that is stopping.
	Release(l Lease)
}

var _ Leases = (*Queue)(nil)
