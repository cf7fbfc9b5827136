//go:build cuda

package kernels

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"gorgonia.org/cu"
)

// A device's kernel times (TimesEnv, times.go): each launch between two
// CUDA events recorded on its lane's stream; once the stream has run
// (TakeQueries, collect), the time between each pair is added to its
// entry's sum for the batch and the events go back to a pool for the
// next launches. A batch's sums join the times when it succeeds; a
// failed batch's are dropped, as it is not counted.

// cudaTimer is a device's kernel times: the pool and the sums are owned
// by the device goroutine, the sums copied under mu for Times.
type cudaTimer struct {
	free []cu.Event // events recorded and read, or never recorded
	// The batch in flight's launches read so far, by entry: added to
	// the times when the batch succeeds (batch), dropped when it fails.
	ms       []float64
	launches []int

	mu    sync.Mutex
	times Times // Entries indexed as TimedEntries
}

// cudaTimed is a launch in flight: its events, and its entry's index in
// TimedEntries.
type cudaTimed struct {
	start, end cu.Event
	entry      int
}

func newCUDATimer(device string, lanes int, regs RegCaps) *cudaTimer {
	t := &cudaTimer{times: Times{Device: device, Lanes: lanes, Regs: regs, Entries: make([]EntryTime, len(TimedEntries))},
		ms: make([]float64, len(TimedEntries)), launches: make([]int, len(TimedEntries))}
	for i, name := range TimedEntries {
		t.times.Entries[i].Entry = name
	}
	return t
}

// event returns an event from the pool, or a new one.
func (t *cudaTimer) event() (cu.Event, error) {
	if n := len(t.free); n > 0 {
		e := t.free[n-1]
		t.free = t.free[:n-1]
		return e, nil
	}
	return cu.MakeEvent(cu.DefaultEvent)
}

// begin records an event on l's stream before a launch of entry; end
// records its pair after the launch. From begin on, the pair is l's, back
// in the pool through read, after the stream ran, or drop.
func (t *cudaTimer) begin(l *cudaLane, entry string) error {
	i := slices.Index(TimedEntries, entry)
	if i < 0 {
		return fmt.Errorf("%s: %s is not an entry the device times", TimesEnv, entry)
	}
	p := cudaTimed{entry: i}
	var err error
	if p.start, err = t.event(); err != nil {
		return fmt.Errorf("%s: creating a CUDA event: %w", TimesEnv, err)
	}
	if p.end, err = t.event(); err != nil {
		t.free = append(t.free, p.start)
		return fmt.Errorf("%s: creating a CUDA event: %w", TimesEnv, err)
	}
	l.timed = append(l.timed, p)
	if err := p.start.Record(l.stream); err != nil {
		return fmt.Errorf("%s: recording a CUDA event: %w", TimesEnv, err)
	}
	return nil
}

// end records the event after the launch begin was called for.
func (t *cudaTimer) end(l *cudaLane) error {
	if err := l.timed[len(l.timed)-1].end.Record(l.stream); err != nil {
		return fmt.Errorf("%s: recording a CUDA event: %w", TimesEnv, err)
	}
	return nil
}

// read adds the time of each launch l timed to the batch's, once l's
// stream has run; the events go back to the pool.
func (t *cudaTimer) read(l *cudaLane) error {
	var err error
	for _, p := range l.timed {
		if err == nil {
			var ms float64
			if ms, err = p.start.Elapsed(p.end); err == nil {
				t.ms[p.entry] += ms
				t.launches[p.entry]++
			}
		}
		t.free = append(t.free, p.start, p.end)
	}
	l.timed = l.timed[:0]
	if err != nil {
		return fmt.Errorf("%s: reading the launches' CUDA events: %w", TimesEnv, err)
	}
	return nil
}

// drop puts l's pairs back in the pool unread, and forgets the batch's
// launches: after a failed batch, once its streams are drained.
func (t *cudaTimer) drop(l *cudaLane) {
	for _, p := range l.timed {
		t.free = append(t.free, p.start, p.end)
	}
	l.timed = l.timed[:0]
	clear(t.ms)
	clear(t.launches)
}

// batch adds a batch of n pixels that succeeded in wall, and its
// launches, to the times.
func (t *cudaTimer) batch(n int, items int64, wall time.Duration) {
	t.mu.Lock()
	t.times.Batches++
	t.times.Pixels += int64(n)
	t.times.Items += items
	t.times.Wall += wall
	for i := range t.ms {
		t.times.Entries[i].Launches += t.launches[i]
		t.times.Entries[i].GPU += time.Duration(t.ms[i] * float64(time.Millisecond))
	}
	t.mu.Unlock()
	clear(t.ms)
	clear(t.launches)
}

// release destroys the pool's events, on the device goroutine after the
// lanes' pairs were dropped.
func (t *cudaTimer) release() {
	for i := range t.free {
		cu.DestroyEvent(&t.free[i])
	}
	t.free = nil
}

// Times implements Timer: the entries launched, in TimedEntries' order.
func (d *cudaDevice) Times() (Times, bool) {
	if d.timer == nil {
		return Times{}, false
	}
	d.timer.mu.Lock()
	defer d.timer.mu.Unlock()
	t := d.timer.times
	t.Entries = nil
	for _, e := range d.timer.times.Entries {
		if e.Launches > 0 {
			t.Entries = append(t.Entries, e)
		}
	}
	return t, true
}

var _ Timer = (*cudaDevice)(nil)
