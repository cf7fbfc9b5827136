package remote

import (
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// byteBudget is a number of bytes shared by the bundle uploads in flight
// on a worker (ServerOptions.UploadBytes): each upload takes what its
// buffer holds as the data arrives and gives it back when it ends.
type byteBudget struct {
	mu         sync.Mutex
	limit      int64
	used, peak int64
}

// take takes n bytes, or nothing and false when fewer than n are left.
func (b *byteBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.used+n > b.limit {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

// give returns n bytes taken before.
func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse returns the bytes taken now and the most ever taken at once.
func (b *byteBudget) inUse() (used, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.peak
}

// uploadBuffer collects one bundle upload's bytes, growing as they
// arrive (never past the announced size) and holding its capacity
// against the worker's upload budget, so that an upload that announces a
// large bundle and then stalls holds only what it sent.
type uploadBuffer struct {
	budget *byteBudget
	size   int64 // the announced size: the buffer never grows past it
	data   []byte
	held   int64 // bytes of budget taken: cap(data)
}

// minUploadGrowth is the least an upload buffer grows by, so that small
// chunks do not copy the buffer each time.
const minUploadGrowth = 64 << 10

// write appends p, growing the buffer: it doubles, up to the announced
// size, while the budget allows, and grows by just enough otherwise. It
// fails with ResourceExhausted when the budget has not even that left.
func (u *uploadBuffer) write(p []byte) error {
	need := int64(len(u.data) + len(p))
	if need > int64(cap(u.data)) {
		want := min(u.size, max(2*int64(cap(u.data)), need, minUploadGrowth))
		if !u.budget.take(want - u.held) {
			want = need
			if !u.budget.take(want - u.held) {
				return status.Errorf(codes.ResourceExhausted, "the bundle uploads in flight fill this worker's budget of %d bytes (--upload-bytes): try again later", u.budget.limit)
			}
		}
		grown := make([]byte, len(u.data), want)
		copy(grown, u.data)
		u.data, u.held = grown, want
	}
	u.data = append(u.data, p...)
	return nil
}

// release gives the buffer's budget back; the data stays readable.
func (u *uploadBuffer) release() {
	u.budget.give(u.held)
	u.held = 0
}
