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
	// With several workers (a cluster, GPUs): how many and their retries;
	// each one's share is in the summary at the end.
	workers, retries := 0, 0
	for _, w := range p.Workers {
		if w.Kind != "cluster" {
			workers++
			retries += w.Retries
		}
	}
	extra := ""
	if workers > 1 {
		extra = fmt.Sprintf("  %d workers", workers)
	}
	if retries > 0 {
		extra += fmt.Sprintf("  %d retries", retries)
	}
	fmt.Fprintf(b.w, "\r%s %3.0f%% %d/%d tiles  %s elapsed  ETA %s  %s samples/s%s\x1b[K",
		bar, 100*frac, p.TilesDone, p.TilesTotal, p.Elapsed.Round(time.Second), eta, si(rate), extra)
	b.drawn = true
}

// finish ends the bar's line.
func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
