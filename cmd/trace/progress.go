package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tracerender/trace/scheduler"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// How the progress is shown. On a terminal, a line redrawn in place
// (drawEvery) from snapshots the scheduler sends every progressEvery,
// which count the pixels finished inside tiles; elsewhere (a pipe, a CI
// log) a plain line every plainEvery.
var (
	progressEvery = 100 * time.Millisecond
	drawEvery     = 150 * time.Millisecond
	plainEvery    = 10 * time.Second
)

// progressDisplay shows a render's progress on stderr: on a terminal, one
// line that fits the terminal's width, measured at every redraw, redrawn
// about seven times a second by github.com/vbauerster/mpb; elsewhere a
// plain line (a JSON record with --log-format json) every plainEvery.
// While the line is up, everything else written to stderr (Writer) goes
// above it, so that log lines and warnings are not overwritten.
type progressDisplay struct {
	stderr io.Writer
	spp    int          // samples per pixel
	rec    *slog.Logger // json: the plain lines as records; nil for text

	mu        sync.Mutex
	last      scheduler.Progress
	seen      bool
	nextPlain time.Time
	mode      int // displayOff, displayTerminal or displayPlain

	mp  *mpb.Progress
	bar *mpb.Bar
}

const (
	displayOff = iota
	displayTerminal
	displayPlain
)

// newProgressDisplay returns the display of a render; quiet turns it
// off. rec, if set, writes the plain lines as records (--log-format json).
// Nothing is drawn before start.
func newProgressDisplay(stderr io.Writer, quiet bool, rec *slog.Logger) *progressDisplay {
	d := &progressDisplay{stderr: stderr, rec: rec}
	switch {
	case quiet:
		d.mode = displayOff
	case isTerminal(stderr):
		d.mode = displayTerminal
	default:
		d.mode = displayPlain
	}
	return d
}

// start shows the display of a render of spp samples per pixel (0:
// adaptive sampling, as many as each pixel takes).
func (d *progressDisplay) start(spp int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.spp = spp
	d.nextPlain = time.Now().Add(plainEvery)
	if d.mode != displayTerminal || d.mp != nil {
		return
	}
	d.mp = mpb.New(mpb.WithOutput(d.stderr), mpb.WithRefreshRate(drawEvery), mpb.WithWidth(80))
	filler := mpb.BarFillerFunc(func(w io.Writer, st decor.Statistics) error {
		width := st.AvailableWidth
		if width <= 0 {
			width = 80 // a terminal that does not know its size
		}
		d.mu.Lock()
		line := ""
		if d.seen {
			// One column short of the width: a line that fills the last
			// column wraps at once on some terminals.
			line = progressLine(d.last, d.spp, width-1)
		}
		d.mu.Unlock()
		_, err := io.WriteString(w, line)
		return err
	})
	bar, err := d.mp.Add(1, filler, mpb.BarFillerTrim(), mpb.BarRemoveOnComplete())
	if err != nil {
		d.mp = nil
		return
	}
	d.bar = bar
}

// isTerminal reports whether w is a terminal that knows its size (one
// that says 0×0, as some do, gets plain lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	return err == nil && cols > 0 && rows > 0
}

// update takes a snapshot from the scheduler (scheduler.Options.Progress).
func (d *progressDisplay) update(p scheduler.Progress) {
	if d.mode == displayOff {
		return
	}
	d.mu.Lock()
	p.Workers = append([]scheduler.WorkerProgress(nil), p.Workers...)
	d.last, d.seen = p, true
	plain := d.mode == displayPlain && time.Now().After(d.nextPlain) && p.TilesDone < p.TilesTotal
	if plain {
		d.nextPlain = time.Now().Add(plainEvery)
	}
	d.mu.Unlock()
	if plain {
		d.plain(p)
	}
}

// plain writes one plain progress line (or record).
func (d *progressDisplay) plain(p scheduler.Progress) {
	s := measure(p, d.spp)
	if d.rec != nil {
		attrs := []any{"percent", roundTo(100*s.frac, 1), "tiles_done", p.TilesDone, "tiles", p.TilesTotal,
			"elapsed_seconds", roundTo(p.Elapsed.Seconds(), 3), "samples_per_second", roundTo(s.rate, 0)}
		if s.eta >= 0 {
			attrs = append(attrs, "eta_seconds", roundTo(s.eta.Seconds(), 3))
		}
		d.rec.Info("progress", attrs...)
		return
	}
	fmt.Fprintf(d.stderr, "trace: %.0f%% rendered (%d of %d tiles), %s elapsed, ETA %s, %s samples/s\n",
		100*s.frac, p.TilesDone, p.TilesTotal, p.Elapsed.Round(time.Second), s.etaText(), si(s.rate))
}

// Write writes above the progress line while it is shown, else to stderr.
func (d *progressDisplay) Write(b []byte) (int, error) {
	d.mu.Lock()
	mp := d.mp
	d.mu.Unlock()
	if mp != nil {
		if n, err := mp.Write(b); err == nil {
			return n, nil
		}
	}
	return d.stderr.Write(b)
}

// finish takes the progress line off the terminal, leaving the cursor at
// the start of the line it was on.
func (d *progressDisplay) finish() {
	d.mu.Lock()
	mp, bar := d.mp, d.bar
	d.mp, d.bar = nil, nil
	d.mu.Unlock()
	if mp != nil {
		bar.Abort(true)
		mp.Wait()
	}
}

// speed is what a snapshot says about the rate of the render.
type speed struct {
	frac float64       // of the frame's pixels, those inside unfinished tiles included
	eta  time.Duration // −1: unknown
	rate float64       // samples per second
}

func (s speed) etaText() string {
	if s.eta < 0 {
		return "?"
	}
	return s.eta.Round(time.Second).String()
}

// measure counts the pixels finished inside tiles still rendering as done:
// a frame of a few big tiles moves as its pixels finish, each of spp
// samples; spp 0 (adaptive sampling, where a pixel takes what it needs)
// counts them at the finished tiles' samples a pixel.
func measure(p scheduler.Progress, spp int) speed {
	total := max(p.Pixels, 1)
	inside := min(p.PixelsInFlight, max(p.Pixels-p.PixelsDone, 0))
	done := p.PixelsDone + inside
	rendered := done - p.PixelsResumed
	secs := p.Elapsed.Seconds()
	s := speed{frac: min(float64(done)/float64(total), 1), eta: -1}
	perPixel := float64(spp)
	if finished := p.PixelsDone - p.PixelsResumed; spp <= 0 && finished > 0 {
		perPixel = float64(p.Stats.Samples) / float64(finished)
	}
	if secs > 0 {
		s.rate = (float64(p.Stats.Samples) + float64(inside)*perPixel) / secs
	}
	if rendered > 0 && secs > 0 {
		s.eta = time.Duration(float64(p.Elapsed) * float64(total-done) / float64(rendered))
	}
	return s
}

// progressLine lays the progress out in at most width columns: the
// longest of its forms that fits, and a bar in what is left.
func progressLine(p scheduler.Progress, spp, width int) string {
	s := measure(p, spp)
	pct := fmt.Sprintf("%3.0f%%", 100*s.frac)
	tiles := fmt.Sprintf("%d/%d tiles", p.TilesDone, p.TilesTotal)
	elapsed := p.Elapsed.Round(time.Second).String()
	eta := "ETA " + s.etaText()
	rate := si(s.rate) + " samples/s"
	extra := ""
	// With several workers (a cluster, GPUs): how many and their retries;
	// each one's share is in the summary at the end.
	workers, retries := 0, 0
	for _, w := range p.Workers {
		if w.Kind.Renders() {
			workers++
			retries += w.Retries
		}
	}
	if workers > 1 {
		extra = fmt.Sprintf("  %d workers", workers)
	}
	if retries > 0 {
		extra += fmt.Sprintf("  %d retries", retries)
	}
	full := pct + "  " + tiles + "  " + elapsed + " elapsed  " + eta + "  " + rate + extra
	short := pct + "  " + tiles + "  " + elapsed + "  " + eta + "  " + rate
	noTime := pct + "  " + tiles + "  " + eta + "  " + rate
	least := pct + "  " + eta + "  " + rate
	// From the most said to the least, a bar where one fits beside the
	// text, the ETA and the throughput kept as long as they fit.
	forms := []struct {
		text string
		bar  bool
	}{
		{full, true}, {short, true}, {full, false}, {noTime, true}, {short, false},
		{least, true}, {noTime, false}, {least, false}, {pct + "  " + eta, false}, {pct, false},
	}
	const minBar, maxBar = 12, 40
	for _, f := range forms {
		n := utf8.RuneCountInString(f.text)
		left := width - n - 1
		switch {
		case f.bar && left >= minBar:
			return progressBar(s.frac, min(left, maxBar)) + " " + f.text
		case !f.bar && n <= width:
			return f.text
		}
	}
	return ""
}

// progressBar draws frac of a bar width columns wide: [=====>    ].
func progressBar(frac float64, width int) string {
	in := width - 2
	n := int(frac * float64(in))
	switch {
	case n >= in:
		return "[" + strings.Repeat("=", in) + "]"
	case n == 0:
		return "[" + strings.Repeat(" ", in) + "]"
	}
	return "[" + strings.Repeat("=", n-1) + ">" + strings.Repeat(" ", in-n) + "]"
}

// roundTo rounds x to digits decimals, for JSON records.
func roundTo(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
