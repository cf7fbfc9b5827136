package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tracerender/trace/scheduler"
)

// progressBar draws one self-overwriting line on a terminal: tiles done,
// elapsed, ETA and samples/s. On anything but a terminal it draws nothing.
type progressBar struct {
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer, quiet bool) *progressBar {
	return &progressBar{w: w, on: !quiet && isTerminal(w)}
}

// isTerminal reports whether w is a character device such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (b *progressBar) update(p scheduler.Progress) {
	if !b.on {
		return
	}
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && p.TilesDone < p.TilesTotal {
		return
	}
	b.last = now
	const width = 30
	frac := float64(p.PixelsDone) / float64(max(p.Pixels, 1))
	n := int(frac * width)
	bar := strings.Repeat("█", n) + strings.Repeat("░", width-n)
	rate := float64(p.Stats.Samples) / max(p.Elapsed.Seconds(), 1e-9)
	eta := "?"
	if p.PixelsDone > 0 {
		eta = p.ETA().Round(time.Second).String()
	}
	fmt.Fprintf(b.w, "\r%s %3.0f%% %d/%d tiles  %s elapsed  ETA %s  %s samples/s\x1b[K",
		bar, 100*frac, p.TilesDone, p.TilesTotal, p.Elapsed.Round(time.Second), eta, si(rate))
	b.drawn = true
}

// finish ends the bar's line.
func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
