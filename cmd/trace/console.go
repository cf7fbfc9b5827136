package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/tracerender/trace/imageio"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// console is what a render prints on stderr besides the library's logs:
// the progress display, notes, warnings, the summary and the error that
// ends it. In text, lines that start "trace: "; with --log-format json,
// JSON records (the level is the --log-level's business only for the
// logs). While the progress line is shown, everything goes above it.
type console struct {
	stderr  io.Writer
	display *progressDisplay
	rec     *slog.Logger // json records; nil for text
	quiet   bool
}

func newConsole(stderr io.Writer, json, quiet bool) *console {
	c := &console{stderr: stderr, quiet: quiet}
	c.display = newProgressDisplay(stderr, quiet, nil)
	if json {
		c.rec = slog.New(slog.NewJSONHandler(c.display, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.display.rec = c.rec
	}
	return c
}

// info prints a note.
func (c *console) info(msg string, attrs ...any) {
	if c.rec != nil {
		c.rec.Info(msg, attrs...)
		return
	}
	fmt.Fprintf(c.display, "trace: %s\n", msg)
}

// warn prints a warning.
func (c *console) warn(msg string) {
	if c.rec != nil {
		c.rec.Warn(msg)
		return
	}
	fmt.Fprintf(c.display, "trace: warning: %s\n", msg)
}

// reported prints the error that ends the command now, rather than
// leaving it to exitStatus, and returns it marked as printed.
func (c *console) reported(err error) error {
	if err == nil || errors.Is(err, errHelp) || errors.As(err, new(reportedError)) {
		return err
	}
	msg := err.Error()
	if errors.Is(err, errInterrupted) {
		msg = "interrupted; no image written"
	}
	if c.rec != nil {
		c.rec.Error(msg)
	} else {
		fmt.Fprintf(c.display, "trace: %s\n", msg)
	}
	return reportedError{err}
}

// summary prints the line (or record) that sums a finished render up;
// scene is the scene as compiled here, or nil if it was not.
func (c *console) summary(p scheduler.Progress, out *imageio.Output, set tracer.Settings, scene *tracer.Scene) {
	if c.quiet {
		return
	}
	if c.rec == nil {
		fmt.Fprintln(c.display, summary(p, out.Path(), set, scene))
		return
	}
	secs := max(p.Elapsed.Seconds(), 1e-9)
	threads := 0
	var workers []any
	for _, w := range p.Workers {
		if !w.Kind.Renders() {
			continue
		}
		if w.Kind == scheduler.KindCPU {
			threads += w.Threads
		}
		workers = append(workers, map[string]any{
			"name": w.Name, "kind": string(w.Kind), "threads": w.Threads, "tiles": w.Tiles,
			"share": roundTo(float64(w.Pixels)/float64(max(p.Pixels, 1)), 4), "retries": w.Retries,
		})
	}
	triangles := 0 // none compiled here when the workers traced every ray
	if scene != nil {
		triangles = len(scene.Triangles)
	}
	c.rec.Info("rendered", "output", out.Path(), "format", out.Format(),
		"width", set.Width, "height", set.Height, "samples_per_pixel", set.Samples,
		"seconds", roundTo(p.Elapsed.Seconds(), 3), "threads", threads,
		"samples", p.Stats.Samples, "rays", p.Stats.Rays, "noise_threshold", set.NoiseThreshold,
		"samples_per_second", roundTo(float64(p.Stats.Samples)/secs, 0), "rays_per_second", roundTo(float64(p.Stats.Rays)/secs, 0),
		"tiles", p.TilesTotal, "tiles_resumed", p.TilesResumed, "non_finite_samples", p.Stats.NonFinite,
		"triangles", triangles, "workers", workers)
}

// kernel prints which kernel a GPU ran the scene on, after the summary:
// a line, or a "gpu kernel" record.
func (c *console) kernel(k kernels.KernelChoice) {
	if c.quiet {
		return
	}
	if c.rec == nil {
		fmt.Fprintf(c.display, "trace: %s\n", k)
		return
	}
	attrs := []any{"device", k.Device, "set", k.Set.String(), "kernel", k.Kernel.String(), "probed", k.Probed}
	if k.Probed {
		attrs = append(attrs, "probe_pixels", k.Probe.Pixels,
			"wavefront_rays_per_second", roundTo(k.Probe.Rate(kernels.KernelWavefront), 0),
			"megakernel_rays_per_second", roundTo(k.Probe.Rate(kernels.KernelMegakernel), 0))
	}
	c.rec.Info("gpu kernel", attrs...)
}

// times prints a GPU's kernel times (TRACE_GPU_TIMES), after the
// summary: a line, or a "kernel times" record.
func (c *console) times(t kernels.Times) {
	if c.quiet {
		return
	}
	if c.rec == nil {
		fmt.Fprintf(c.display, "trace: %s\n", t)
		return
	}
	var entries []any
	for _, e := range t.Entries {
		entries = append(entries, map[string]any{"entry": e.Entry, "launches": e.Launches, "seconds": roundTo(e.GPU.Seconds(), 6)})
	}
	attrs := []any{"device", t.Device, "lanes", t.Lanes}
	if len(t.Regs) > 0 {
		attrs = append(attrs, "registers", t.Regs.String())
	}
	attrs = append(attrs, "batches", t.Batches, "pixels", t.Pixels,
		"seconds", roundTo(t.Wall.Seconds(), 6), "kernel_seconds", roundTo(t.GPU().Seconds(), 6), "entries", entries)
	c.rec.Info("kernel times", attrs...)
}

// lingerNote tells when the live view that outlives the render ends.
func lingerNote(url string, linger time.Duration, now time.Time) string {
	until := now.Add(linger)
	when := until.Format("15:04:05")
	if until.YearDay() != now.YearDay() {
		when = until.Format("2006-01-02 15:04:05")
	}
	return fmt.Sprintf("the live view at %s stays up until %s (--serve-linger %s); Ctrl-C ends it now", url, when, linger)
}
