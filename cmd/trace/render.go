package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/checkpoint"
	"github.com/tracerender/trace/scheduler/remote"
	"github.com/tracerender/trace/scheduler/watch"
	"github.com/tracerender/trace/tracer"
)

const renderUsage = `Usage: trace render SCENE -o OUT.png [flags]

Renders SCENE (a JSON scene file, format version 1) with every CPU core and
writes the image to OUT. OUT ending in .pfm gets the linear radiance as a
Portable Float Map; anything else a PNG (--format png or pfm chooses
otherwise, for a name that ends in neither). The file appears only when the
render has finished: an interrupted or failed render leaves no file. An
existing OUT is replaced and keeps its permissions; a symbolic link stays
and the file it points to is replaced; a device or named pipe
(/dev/stdout, a FIFO) is written through, never replaced. -o - writes the
image to standard output, as a PNG unless --format pfm. OUT may not be the
scene file, a file the scene reads or the checkpoint.

With --checkpoint FILE, every finished tile is recorded in FILE as it lands;
a render that was stopped — interrupted, killed, or cut off by a crash —
continues with the same command line and --resume FILE in place of
--checkpoint FILE, rendering only the missing tiles and recording them into
the same FILE, to the same image byte for byte. A killed render loses only
the tiles it was rendering; a power loss, about the last second of tiles.
--checkpoint never overwrites a file; give both --checkpoint FILE and
--resume FILE to resume FILE if it exists and start it if not. The
checkpoint is kept after the image is written (resuming it again just writes
the image); delete it when done. A checkpoint written for another scene
(the scene file or an asset changed) or other settings is refused.

Flags:
`

type renderFlags struct {
	output      string
	format      string
	threads     int
	tile        int
	samples     int
	width       int
	height      int
	seed        int64
	depth       int
	maxAttempts int
	gpus        int
	quiet       bool
	outside     bool
	workers     string
	token       string
	tlsCA       string
	tlsCert     string
	tlsKey      string
	serve       string
	serveLinger time.Duration
	logFormat   string
	logLevel    string
	checkpoint  string
	resume      string
}

func cmdRender(args []string, stdout, stderr io.Writer) error {
	var f renderFlags
	fs := pflag.NewFlagSet("render", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&f.output, "output", "o", "", "output image `path` (.png, or .pfm for linear float; - for standard output)")
	fs.StringVar(&f.format, "format", "", "output image `format`, png or pfm (default: from the output's name; png for -o -)")
	fs.IntVar(&f.threads, "threads", runtime.NumCPU(), "CPU threads rendering tiles (0: the GPUs alone)")
	fs.IntVar(&f.tile, "tile", scheduler.DefaultTileSize, "tile side in pixels")
	fs.IntVar(&f.samples, "samples", 0, "samples per pixel (overrides the scene file)")
	fs.IntVar(&f.width, "width", 0, "image width in pixels (overrides the scene file)")
	fs.IntVar(&f.height, "height", 0, "image height in pixels (overrides the scene file)")
	fs.Int64Var(&f.seed, "seed", -1, "random seed (overrides the scene file)")
	fs.IntVar(&f.depth, "depth", 8, "PNG bits per channel: 8 or 16")
	fs.IntVar(&f.maxAttempts, "max-attempts", scheduler.DefaultMaxAttempts, "failed tries per tile before the render fails")
	fs.IntVar(&f.gpus, "gpus", 0, "CUDA GPUs to render with (needs a build with CUDA)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar and no summary")
	fs.BoolVar(&f.outside, "allow-outside-assets", false, "let the scene read meshes and images outside its folder")
	fs.StringVar(&f.workers, "workers", "", "`list` of trace workers, host:port or dns:///name:port, comma-separated")
	fs.StringVar(&f.token, "token", "", "the workers' shared secret (default $TRACE_TOKEN)")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "connect to the workers with TLS, trusting this authority `file` (PEM)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate `file` for workers that require one (with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "client certificate's private key `file`")
	fs.StringVar(&f.serve, "serve", "", "serve a live view of the render (web page and /metrics) on `host:port`; no host means loopback (:8080 is 127.0.0.1:8080)")
	fs.DurationVar(&f.serveLinger, "serve-linger", 0, "with --serve, keep serving this long after the render ends")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "record finished tiles in a new checkpoint `file`, to continue a stopped render with --resume")
	fs.StringVar(&f.resume, "resume", "", "continue the render recorded in checkpoint `file`, rendering only the missing tiles and recording them there")
	fs.Usage = func() { fmt.Fprintf(stderr, "%s%s", renderUsage, fs.FlagUsages()) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		fs.Usage()
		return usagef("render: want exactly one scene file, got %d arguments", fs.NArg())
	case f.output == "":
		return usagef("render: no output file: give -o OUT.png")
	case f.gpus < 0:
		return usagef("--gpus %d: must be 0 or more", f.gpus)
	case f.threads < 0 || f.threads == 0 && f.gpus == 0 && f.workers == "":
		return usagef("--threads %d: must be at least 1, or 0 with --gpus or --workers", f.threads)
	case f.tile < 1 || f.tile > 4096:
		return usagef("--tile %d: must be in [1, 4096]", f.tile)
	case f.maxAttempts < 1:
		return usagef("--max-attempts %d: must be at least 1", f.maxAttempts)
	case f.depth != 8 && f.depth != 16:
		return usagef("--depth %d: must be 8 or 16", f.depth)
	case f.workers != "" && f.tile*f.tile > remote.MaxTilePixels:
		return usagef("--tile %d: tiles for --workers have at most %d pixels", f.tile, remote.MaxTilePixels)
	case f.serveLinger < 0 || f.serveLinger > 0 && f.serve == "":
		return usagef("--serve-linger %s: must be positive, and goes with --serve", f.serveLinger)
	case f.workers == "" && (f.tlsCA != "" || f.tlsCert != "" || f.tlsKey != "" || f.token != ""):
		return usagef("--token and the --tls flags are for --workers")
	case f.checkpoint != "" && f.resume != "" && filepath.Clean(f.checkpoint) != filepath.Clean(f.resume):
		return usagef("--checkpoint %s and --resume %s name different files: --resume FILE keeps recording into FILE", f.checkpoint, f.resume)
	}
	if _, err := tracer.OutputFormat(f.output, f.format); err != nil {
		return usageError{err}
	}
	log, err := newLogger(stderr, f.logFormat, f.logLevel)
	if err != nil {
		return err
	}
	var targets []string
	if f.workers != "" {
		var err error
		if targets, err = remote.ParseTargets(f.workers); err != nil {
			return usagef("--workers: %v", err)
		}
	}
	workers, closeGPUs, err := gpuWorkers(f.gpus)
	if err != nil {
		return err
	}
	defer closeGPUs()
	if f.threads > 0 {
		workers = append([]scheduler.Worker{&scheduler.CPUWorker{N: f.threads}}, workers...)
	}
	path := fs.Arg(0)
	bundle, desc, err := scenes.ReadBundle(path, scenes.Options{AllowOutsideAssets: f.outside})
	if err != nil {
		return usageError{err}
	}
	if err := applyOverrides(fs, &f, &desc.Settings); err != nil {
		return err
	}
	scene, err := tracer.Compile(desc)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", path, err)}
	}
	if f.gpus > 0 {
		// A scene the kernel cannot render exactly is refused before any
		// work, rather than rendered by the CPU alone behind the user's back.
		if _, err := kernels.Pack(scene); err != nil {
			return usageError{fmt.Errorf("%s: --gpus: %w", path, err)}
		}
	}
	if len(targets) > 0 {
		cluster, err := newCluster(&f, targets, bundle, log)
		if err != nil {
			return err
		}
		workers = append(workers, cluster)
	}
	var out *tracer.Output
	if f.output == "-" {
		out, err = tracer.StreamOutput(stdout, f.format, f.depth)
	} else {
		out, err = tracer.CreateOutput(f.output, f.format, f.depth)
	}
	if err != nil {
		return usageError{err}
	}
	defer out.Abort()
	if err := refuseInputs(out, path, bundle, cmp.Or(f.resume, f.checkpoint)); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar := newProgressBar(stderr, f.quiet)
	opt := scheduler.Options{
		TileSize:    f.tile,
		MaxAttempts: f.maxAttempts,
		Workers:     workers,
		Duplicates:  len(targets) > 0, // a slow machine's last tiles are raced
		Progress:    bar.update,
	}
	end := func(err error) error { return err }
	var view *liveView
	if f.serve != "" {
		set := scene.Settings
		view, err = startView(f.serve, f.serveLinger, watch.Options{
			Scene: path, Output: f.output, Film: &scene.Film, Width: set.Width, Height: set.Height,
			Tiles: len(scheduler.Tiles(set.Width, set.Height, f.tile)), Collectors: viewCollectors(workers),
		}, stderr)
		if err != nil {
			return err
		}
		opt.Progress = func(p scheduler.Progress) { bar.update(p); view.Progress(p) }
		opt.Tile = view.Tile
		end = func(err error) error { view.finish(ctx, err); return err }
	}
	ck, err := openCheckpoint(&f, bundle, scene, stderr)
	if err != nil {
		return end(err)
	}
	if ck != nil {
		opt.Finished = ck.finished
		if view != nil {
			view.Resumed(scheduler.Tiles(scene.Settings.Width, scene.Settings.Height, f.tile), ck.finished)
		}
		show := opt.Tile
		opt.Tile = func(d scheduler.TileDone) {
			if show != nil {
				show(d)
			}
			ck.w.Add(d.Tile, d.Pixels) // an error stops the writer; Close reports it
		}
	}
	res, err := scheduler.Render(ctx, scene, opt)
	bar.finish()
	if ck != nil {
		ck.close(stderr, err != nil)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return end(errInterrupted)
		}
		return end(err)
	}
	if err := out.Commit(res.Framebuffer, &scene.Film); err != nil {
		return end(err)
	}
	end(nil)
	for _, werr := range res.WorkerErrors {
		fmt.Fprintf(stderr, "trace: warning: %v (its tiles were rendered by the other workers)\n", werr)
	}
	if !f.quiet {
		fmt.Fprintln(stderr, summary(res.Progress, out.Path(), scene))
	}
	return nil
}

// refuseInputs refuses an output that is one of the render's inputs —
// the scene file, a file the scene reads, or the checkpoint — which
// writing the image would destroy.
func refuseInputs(out *tracer.Output, scene string, bundle *scenes.Bundle, checkpoint string) error {
	if out.IsFile(scene) {
		return usagef("output %s: is the scene file; refusing to overwrite it", out.Path())
	}
	if checkpoint != "" && out.IsFile(checkpoint) {
		return usagef("output %s: is the checkpoint; refusing to overwrite it", out.Path())
	}
	for _, rel := range slices.Sorted(maps.Keys(bundle.Files)) {
		if out.IsFile(filepath.Join(bundle.Dir, filepath.FromSlash(rel))) {
			return usagef("output %s: is %s, a file the scene reads; refusing to overwrite it", out.Path(), strconv.Quote(rel))
		}
	}
	return nil
}

// renderCheckpoint is the checkpoint of --checkpoint or --resume.
type renderCheckpoint struct {
	path     string
	w        *checkpoint.Writer
	finished map[int][]float32 // the tiles resumed
	tiles    int               // in the frame
}

// openCheckpoint starts the checkpoint of --checkpoint, or reads the one of
// --resume and reopens it to record the rest; nil without either flag. A
// checkpoint that cannot be used is a usage error; a damaged end that was
// discarded is a warning.
func openCheckpoint(f *renderFlags, bundle *scenes.Bundle, scene *tracer.Scene, stderr io.Writer) (*renderCheckpoint, error) {
	path := cmp.Or(f.resume, f.checkpoint)
	if path == "" {
		return nil, nil
	}
	h := checkpoint.Header{Scene: checkpoint.SceneHash(bundle), Settings: scene.Settings, TileSize: f.tile}
	ck := &renderCheckpoint{path: path, tiles: len(scheduler.Tiles(scene.Settings.Width, scene.Settings.Height, f.tile))}
	_, statErr := os.Stat(path)
	exists := !errors.Is(statErr, fs.ErrNotExist)
	switch {
	case f.resume == "" && exists:
		return nil, usagef("--checkpoint %s: the file exists; continue that render with --resume %s, or delete the file to start again", path, path)
	case f.resume != "" && !exists && f.checkpoint == "":
		return nil, usagef("--resume %s: no such checkpoint; start one with --checkpoint %s (or give both flags to start it if it is missing)", path, path)
	case !exists:
		w, err := checkpoint.Create(path, h)
		if err != nil {
			return nil, usageError{err}
		}
		ck.w = w
		return ck, nil
	}
	c, err := checkpoint.Read(path, h)
	if err != nil {
		return nil, usageError{err}
	}
	if msg := c.Warning(); msg != "" {
		fmt.Fprintf(stderr, "trace: warning: %s\n", msg)
	}
	if ck.w, err = checkpoint.Append(c); err != nil {
		return nil, usageError{err}
	}
	ck.finished = c.Tiles
	return ck, nil
}

// close ends the checkpoint after the render; when the render stopped
// early, it tells the user how to continue.
func (ck *renderCheckpoint) close(stderr io.Writer, stopped bool) {
	if err := ck.w.Close(); err != nil {
		fmt.Fprintf(stderr, "trace: warning: %v; it holds the tiles recorded before that\n", err)
	}
	if stopped {
		fmt.Fprintf(stderr, "trace: checkpoint %s holds %d of %d tiles; continue with --resume %s\n",
			ck.path, len(ck.finished)+ck.w.Tiles(), ck.tiles, ck.path)
	}
}

// newCluster connects the remote workers of --workers.
func newCluster(f *renderFlags, targets []string, bundle *scenes.Bundle, log *slog.Logger) (*remote.Cluster, error) {
	eb, err := remote.EncodeBundle(bundle)
	if err != nil {
		return nil, err
	}
	opt := remote.ClientOptions{Token: f.token, Logger: log}
	if opt.Token == "" {
		opt.Token = os.Getenv("TRACE_TOKEN")
	}
	if f.tlsCA != "" || f.tlsCert != "" || f.tlsKey != "" {
		if opt.TLS, err = remote.ClientTLS(f.tlsCA, f.tlsCert, f.tlsKey); err != nil {
			return nil, usageError{err}
		}
	}
	return remote.NewCluster(targets, eb, opt), nil
}

// applyOverrides applies the flags that override the scene file's render
// settings and checks the result against the limits.
func applyOverrides(fs *pflag.FlagSet, f *renderFlags, s *tracer.Settings) error {
	if fs.Changed("samples") {
		s.Samples = f.samples
	}
	if fs.Changed("width") {
		s.Width = f.width
	}
	if fs.Changed("height") {
		s.Height = f.height
	}
	if fs.Changed("seed") {
		if f.seed < 0 {
			return usagef("--seed %d: must be 0 or more", f.seed)
		}
		s.Seed = uint64(f.seed)
	}
	if err := scenes.ValidateSettings(*s); err != nil {
		return usageError{fmt.Errorf("command line: %w", err)}
	}
	return nil
}

// summary is the one line printed after a render.
func summary(p scheduler.Progress, output string, scene *tracer.Scene) string {
	secs := p.Elapsed.Seconds()
	cpuThreads := 0
	var shares []string
	for _, w := range p.Workers {
		if w.Kind == "cluster" {
			continue // its machines report under their own names
		}
		if w.Kind == "cpu" {
			cpuThreads += w.Threads
		}
		if len(p.Workers) > 1 {
			share := fmt.Sprintf("%s %.0f%%", w.Name, 100*float64(w.Pixels)/float64(max(p.Pixels, 1)))
			if w.Kind == "remote" {
				share += fmt.Sprintf(" at %.1f tiles/s", float64(w.Tiles)/secs)
			}
			if w.Retries > 0 {
				share += fmt.Sprintf(" with %d retries", w.Retries)
			}
			shares = append(shares, share)
		}
	}
	line := fmt.Sprintf("%s: %s, %d threads, %s samples/s, %s rays/s",
		output, p.Elapsed.Round(time.Millisecond), cpuThreads,
		si(float64(p.Stats.Samples)/secs), si(float64(p.Stats.Rays)/secs))
	if len(shares) > 0 {
		line += " [frame by " + strings.Join(shares, ", ") + "]"
	}
	if n := len(scene.Triangles); n > 0 {
		line += fmt.Sprintf(" (%s triangles, BVH built in %s)", si(float64(n)), scene.BVHBuildTime.Round(time.Millisecond))
	}
	if p.TilesResumed > 0 {
		line += fmt.Sprintf("; %d of %d tiles resumed from the checkpoint", p.TilesResumed, p.TilesTotal)
	}
	if p.Stats.NonFinite > 0 {
		line += fmt.Sprintf("; %d samples were NaN or infinite and counted as black", p.Stats.NonFinite)
	}
	return line
}

// si formats x with an SI prefix: 1.23M.
func si(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("%.2fG", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.2fk", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}
