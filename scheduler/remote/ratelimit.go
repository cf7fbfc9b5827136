package remote

import (
	"log/slog"
	"sync"
	"time"
)

// warnEvery is the least time between two log lines of one warnLimiter.
const warnEvery = 10 * time.Second

// warnLimiter logs a warning at most once every warnEvery, counting the
// occurrences it did not log and reporting that count on its next line,
// so that a flood of bad calls cannot flood the log.
type warnLimiter struct {
	mu         sync.Mutex
	last       time.Time // when it last logged; zero before the first line
	suppressed int       // occurrences since then, not logged
}

// warn logs msg with args on log unless a line was logged less than
// warnEvery before now; then it only counts it.
func (w *warnLimiter) warn(log *slog.Logger, now time.Time, msg string, args ...any) {
	w.mu.Lock()
	if !w.last.IsZero() && now.Sub(w.last) < warnEvery {
		w.suppressed++
		w.mu.Unlock()
		return
	}
	n := w.suppressed
	w.last, w.suppressed = now, 0
	w.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n, "suppressed_over", warnEvery.String())
	}
	log.Warn(msg, args...)
}
