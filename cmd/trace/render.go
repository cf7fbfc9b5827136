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
	"math"
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
	"github.com/tracerender/trace/imageio"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/checkpoint"
	"github.com/tracerender/trace/scheduler/remote"
	"github.com/tracerender/trace/scheduler/watch"
	"github.com/tracerender/trace/tracer"
	"golang.org/x/term"
)

const renderUsage = `Usage: trace render SCENE -o OUT.png [flags]

Renders SCENE (a JSON scene file, format version 1) with every CPU core and
writes the image to OUT, in the format its name ends in: .png (tone-mapped,
8 or 16 bits a channel: --depth), .jpg or .jpeg (tone-mapped, --quality),
or linear radiance, before exposure and tone mapping: .exr (OpenEXR, half
or float: --depth 16 or 32, ZIP or no --compression), .hdr (Radiance RGBE)
or .pfm (Portable Float Map). Any other name is refused before rendering,
unless --format says which format to write. The file appears only when the
render has finished: an interrupted or failed render leaves no file. An
existing OUT is replaced and keeps its permissions; a symbolic link stays
and the file it points to is replaced; a device or named pipe
(/dev/stdout, a FIFO) is written through, never replaced. -o - writes the
image to standard output, as a PNG unless --format says otherwise. OUT may
not be the scene file, a file the scene reads or the checkpoint.

With --checkpoint FILE, every finished tile is recorded in FILE as it lands;
a render that was stopped — interrupted, killed, or cut off by a crash —
continues with the same command line and --resume FILE in place of
--checkpoint FILE, rendering only the missing tiles and recording them into
the same FILE, to the same image byte for byte. A killed render loses only
the tiles it was rendering; a power loss, about the last second of tiles.
--checkpoint never overwrites a file; give both --checkpoint FILE and
--resume FILE to resume FILE if it exists and start it if not. The
checkpoint is kept after the image is written (resuming it again just writes
the image, only reading it: it may be read-only then); delete it when done.
A checkpoint written for another scene (the scene file or an asset changed)
or other settings, or by a trace of another pixel version (trace version
prints it), is refused.

On a terminal, a progress line fits the terminal's width; on anything else
(a pipe, a CI log) a plain line every 10 seconds. --log-format json makes
every line the render prints a JSON record: progress, warnings, the summary
and errors.

Flags:
`

type renderFlags struct {
	output      string
	format      string
	compression string
	quality     int
	threads     int
	tile        int
	samples     int
	noise       float64 // --noise-threshold
	minSamples  int
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

func cmdRender(args []string, stdout, stderr io.Writer) (err error) {
	f, fs := newRenderFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	enc, err := outputEncoding(fs, f)
	if err != nil {
		return err
	}
	if o, ok := stdout.(*os.File); ok && f.output == "-" && term.IsTerminal(int(o.Fd())) {
		return usagef("-o -: standard output is a terminal, and the image is binary: send it to a file or a pipe (trace render SCENE -o - > out.png), or give -o FILE")
	}
	if _, err := newLogger(io.Discard, f.logFormat, f.logLevel); err != nil {
		return err
	}
	// From here on, what the render prints on stderr goes through con:
	// above the progress line while it is shown, and as JSON records
	// with --log-format json.
	con := newConsole(stderr, f.logFormat == "json", f.quiet)
	defer func() { err = con.reported(err) }()
	log, _ := newLogger(con.display, f.logFormat, f.logLevel)
	// Ctrl-C and SIGTERM are caught from here on: while the scene loads
	// (a large mesh takes seconds) one ends the command at once, with the
	// same line and exit status as later, when it cancels the render.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	loading := exitOnInterrupt(ctx, con)
	job, bundle, err := newRenderJob(fs, f, log, func(msg string) { con.info(msg) })
	if !loading.done() {
		return reportedError{errInterrupted} // the exit is under way
	}
	if err != nil {
		return err
	}
	defer job.closeGPUs()
	var out *imageio.Output
	if f.output == "-" {
		out, err = imageio.Stream(stdout, enc)
	} else {
		out, err = imageio.Create(f.output, enc)
	}
	if err != nil {
		return usageError{err}
	}
	defer out.Abort()
	if err := refuseInputs(out, job.path, bundle, cmp.Or(f.resume, f.checkpoint)); err != nil {
		return err
	}

	opt := scheduler.Options{
		TileSize:      f.tile,
		MaxAttempts:   f.maxAttempts,
		Workers:       job.workers,
		Duplicates:    job.raceTail,
		ProgressEvery: progressEvery,
	}
	bar := con.display
	view, ck, err := attachSinks(&opt, f, job, bundle, con)
	if err != nil {
		return view.end(ctx, err, con)
	}
	set := job.scene.Settings
	if job.dark {
		con.warn(fmt.Sprintf("%s: %s", job.path, noLightWarning))
	}
	spp := set.Samples
	if set.Adaptive() {
		spp = 0 // each pixel takes what it needs: measure counts the tiles done
	}
	bar.start(spp)
	res, err := scheduler.RenderLazy(ctx, job.scene, opt)
	bar.finish()
	if ck != nil {
		ck.close(con, err != nil)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return view.end(ctx, errInterrupted, con)
		}
		if _, ok := errors.AsType[*scheduler.CompileError](err); ok {
			return view.end(ctx, usageError{fmt.Errorf("%s: %w", job.path, err)}, con)
		}
		return view.end(ctx, err, con)
	}
	if err := out.Commit(ctx, res.Framebuffer, &job.film); err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			// Interrupted while a pipe waited for its reader.
			return view.end(ctx, errInterrupted, con)
		}
		if ck != nil && ck.err() == nil {
			// The frame is not lost: the checkpoint holds every tile.
			err = con.reported(err) // first what went wrong
			con.info(fmt.Sprintf("checkpoint %s holds every tile: once %s can be written, --resume %s writes the image without rendering",
				ck.path, f.output, ck.path))
		}
		return view.end(ctx, err, con)
	}
	if n := overflowed(res.Framebuffer); n > 0 {
		are := "are"
		if n == 1 {
			are = "is"
		}
		con.warn(fmt.Sprintf("%s: %s %s brighter than float32 holds (+Inf: is an emitter's intensity near 3.4e38?), written as %s",
			f.output, plural(n, "pixel"), are, overflowWritten(enc)))
	}
	for _, werr := range res.WorkerErrors {
		if errors.Is(werr, remote.ErrNotJoined) {
			con.warn(werr.Error()) // it had no tiles
			continue
		}
		con.warn(fmt.Sprintf("%v (its tiles were rendered by the other workers)", werr))
	}
	con.summary(res.Progress, out, set, job.scene.Compiled())
	for _, c := range gpuKernels(job.workers) {
		con.kernel(c)
	}
	for _, t := range gpuTimes(job.workers) {
		con.times(t)
	}
	view.end(ctx, nil, con) // the live view lingers after the summary
	return nil
}

// attachSinks sets opt's Progress and Tile to fan-outs of the sinks of
// what the render reports, each called in turn: its progress goes to the
// progress line and the live view of --serve, its tiles to the live view
// and the checkpoint of --checkpoint or --resume, whose tiles opt.Finished
// then holds. It returns the view and the checkpoint (nil without their
// flags); the view also when the checkpoint cannot be opened, to be ended
// with the error.
func attachSinks(opt *scheduler.Options, f *renderFlags, job *renderJob, bundle *scenes.Bundle, con *console) (*liveView, *renderCheckpoint, error) {
	progress := fanOut[scheduler.Progress]{con.display.update}
	var tiles fanOut[scheduler.TileDone]
	set := job.scene.Settings
	grid := scheduler.Tiles(set.Width, set.Height, f.tile)
	var view *liveView
	if f.serve != "" {
		var err error
		view, err = startView(f.serve, f.serveLinger, watch.Options{
			Scene: job.path, Output: f.output, Film: &job.film, Width: set.Width, Height: set.Height,
			Tiles: len(grid), Collectors: viewCollectors(job.workers),
		}, con)
		if err != nil {
			return nil, nil, err
		}
		progress = append(progress, view.Progress)
		tiles = append(tiles, view.Tile)
	}
	ck, err := openCheckpoint(f, bundle, set, con)
	if err != nil {
		return view, nil, err
	}
	if ck != nil {
		opt.Finished = ck.finished
		if view != nil {
			view.Resumed(grid, ck.finished)
		}
		tiles = append(tiles, ck.add)
	}
	opt.Progress, opt.Tile = progress.callback(), tiles.callback()
	return view, ck, nil
}

// newRenderFlags returns render's flags and the set that parses them,
// printing its usage on stderr.
func newRenderFlags(stderr io.Writer) (*renderFlags, *pflag.FlagSet) {
	f := new(renderFlags)
	fs := pflag.NewFlagSet("render", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&f.output, "output", "o", "", "output image `path`: .png, .jpg, .exr, .hdr or .pfm; - for standard output")
	fs.StringVar(&f.format, "format", "", "output image `format`: png, pfm, exr, hdr or jpg (default: from the output's name; png for -o -)")
	fs.StringVar(&f.compression, "compression", "", "EXR compression: zip or none (default zip)")
	fs.IntVar(&f.quality, "quality", 0, "JPEG quality, 1 to 100 (default 90)")
	fs.IntVar(&f.threads, "threads", runtime.NumCPU(), "CPU threads rendering tiles (0: the GPUs alone)")
	fs.IntVar(&f.tile, "tile", scheduler.DefaultTileSize, "tile side in pixels")
	fs.IntVar(&f.samples, "samples", 0, "samples per pixel (overrides the scene file); under adaptive sampling the most a pixel takes")
	fs.Float64Var(&f.noise, "noise-threshold", 0, "adaptive sampling, Cycles' noise threshold: a pixel stops once its noise estimate says it has converged, taking about the samples Cycles 3.4 takes at the same value, 0 to 1 (0: off; overrides the scene file's render.noise_threshold)")
	fs.IntVar(&f.minSamples, "min-samples", 0, "adaptive sampling: samples a pixel takes before its first test (0: from the threshold, Cycles' rule at 0.34 of it; overrides the scene file's render.min_samples)")
	fs.IntVar(&f.width, "width", 0, "image width in pixels (overrides the scene file)")
	fs.IntVar(&f.height, "height", 0, "image height in pixels (overrides the scene file)")
	fs.Int64Var(&f.seed, "seed", 0, "random seed, 0 to 2^53 (overrides the scene file)")
	fs.IntVar(&f.depth, "depth", 0, "bits per channel: 8 or 16 for PNG (default 8), 16 (half) or 32 (float) for EXR (default 16)")
	fs.IntVar(&f.maxAttempts, "max-attempts", scheduler.DefaultMaxAttempts, "failed tries per tile before the render fails")
	fs.IntVar(&f.gpus, "gpus", 0, "CUDA GPUs to render with (needs a build with CUDA)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress display and no summary")
	fs.BoolVar(&f.outside, "allow-outside-assets", false, "let the scene read meshes and images outside its folder")
	fs.StringVar(&f.workers, "workers", "", "`list` of trace workers, host:port or dns:///name:port, comma-separated")
	fs.StringVar(&f.token, "token", "", "the workers' shared secret (default $TRACE_TOKEN)")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "connect to the workers with TLS, trusting this authority `file` (PEM)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "client certificate `file` for workers that require one (with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "client certificate's private key `file`")
	fs.StringVar(&f.serve, "serve", "", "serve a live view of the render (web page and /metrics) on `host:port`; no host means loopback (:8080 is 127.0.0.1:8080)")
	fs.DurationVar(&f.serveLinger, "serve-linger", 0, "with --serve, keep serving this long after the render ends (the summary comes first)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text, or json for JSON records of everything the render prints on stderr")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "record finished tiles in a new checkpoint `file`, to continue a stopped render with --resume")
	fs.StringVar(&f.resume, "resume", "", "continue the render recorded in checkpoint `file`, rendering only the missing tiles and recording them there")
	fs.Usage = func() { fmt.Fprintf(stderr, "%s%s", renderUsage, fs.FlagUsages()) }
	return f, fs
}

// check checks the parsed flags against each other, before anything is
// read.
func (f *renderFlags) check(fs *pflag.FlagSet) error {
	switch {
	case fs.NArg() != 1:
		if f.logFormat != "json" { // with json, only the record below
			fs.Usage()
		}
		return usagef("render: want exactly one scene file, got %d arguments", fs.NArg())
	case f.output == "":
		return usagef("render: no output file: give -o OUT.png")
	case f.gpus < 0:
		return usagef("--gpus %d: must be 0 or more", f.gpus)
	case f.threads < 0 || f.threads == 0 && f.gpus == 0 && f.workers == "":
		return usagef("--threads %d: must be at least 1, or 0 with --gpus or --workers", f.threads)
	case f.threads > maxThreads:
		return checkThreads(f.threads)
	case f.tile < 1 || f.tile > 4096:
		return usagef("--tile %d: must be in [1, 4096]", f.tile)
	case f.maxAttempts < 1:
		return usagef("--max-attempts %d: must be at least 1", f.maxAttempts)
	case f.workers != "" && f.tile*f.tile > remote.MaxTilePixels:
		return usagef("--tile %d: tiles for --workers have at most %d pixels", f.tile, remote.MaxTilePixels)
	case f.serveLinger < 0 || f.serveLinger > 0 && f.serve == "":
		return usagef("--serve-linger %s: must be positive, and goes with --serve", f.serveLinger)
	case f.workers == "" && (f.tlsCA != "" || f.tlsCert != "" || f.tlsKey != "" || f.token != ""):
		return usagef("--token and the --tls flags are for --workers")
	case f.checkpoint != "" && f.resume != "" && filepath.Clean(f.checkpoint) != filepath.Clean(f.resume):
		return usagef("--checkpoint %s and --resume %s name different files: --resume FILE keeps recording into FILE", f.checkpoint, f.resume)
	}
	return nil
}

// renderJob is what trace render renders: the scene, with the flags'
// overrides, and the workers that render it.
type renderJob struct {
	path      string               // the scene file
	scene     *scheduler.LazyScene // compiled when a worker here first traces it
	film      tracer.Film
	dark      bool // nothing in the scene emits light
	workers   []scheduler.Worker
	raceTail  bool   // idle workers race the last tiles (raceTail)
	closeGPUs func() // closes the devices of --gpus
}

// newRenderJob reads the scene of the flags and builds its workers: the
// CPU threads, the GPUs of --gpus (refusing a scene the kernel cannot
// render exactly) and the machines of --workers, which render the scene
// in the bundle it returns too. Of several mistakes, the first in this
// order is reported: the --workers list, the GPUs, the scene, the
// overrides, the kernel's refusal, the cluster's credentials.
func newRenderJob(fs *pflag.FlagSet, f *renderFlags, log *slog.Logger, note func(string)) (job *renderJob, bundle *scenes.Bundle, err error) {
	var targets []string
	if f.workers != "" {
		if targets, err = remote.ParseTargets(f.workers); err != nil {
			return nil, nil, usagef("--workers: %v", err)
		}
	}
	workers, closeGPUs, err := gpuWorkers(f.gpus, note)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			closeGPUs()
		}
	}()
	if f.threads > 0 {
		workers = append([]scheduler.Worker{&scheduler.CPUWorker{N: f.threads}}, workers...)
	}
	procsForGPUs(f.threads, f.gpus)
	path := fs.Arg(0)
	if loadHook != nil {
		loadHook()
	}
	bundle, desc, err := scenes.ReadBundle(path, scenes.Options{AllowOutsideAssets: f.outside})
	if err != nil {
		return nil, nil, usageError{err}
	}
	if err := applyOverrides(fs, f, &desc.Settings); err != nil {
		return nil, nil, err
	}
	// The scene is compiled when a worker of this process first traces a
	// ray of it: with --threads 0 --workers, never (the workers compile it).
	scene := scheduler.NewLazyScene(desc, compileScene)
	if f.gpus > 0 {
		// A scene the kernel cannot render exactly is refused before any
		// work, rather than rendered by the CPU alone behind the user's back.
		sc, err := scene.Scene()
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("%s: %w", path, err)}
		}
		if err := kernels.Check(sc); err != nil {
			return nil, nil, usageError{fmt.Errorf("%s: --gpus: %w", path, err)}
		}
	}
	if len(targets) > 0 {
		cluster, err := newCluster(f, targets, bundle, log)
		if err != nil {
			return nil, nil, err
		}
		workers = append(workers, cluster)
	}
	// desc itself need not outlive the compile: the job keeps what it
	// needs of it.
	job = &renderJob{path: path, scene: scene, film: desc.Film, dark: countLights(desc, scene.Compiled()).none(),
		workers: workers, raceTail: raceTail(f.threads, f.gpus, len(targets) > 0), closeGPUs: closeGPUs}
	return job, bundle, nil
}

// compileScene compiles the scene of a render: tracer.Compile, but for
// tests that count the compiles.
var compileScene = tracer.Compile

// refuseInputs refuses an output that is one of the render's inputs —
// the scene file, a file the scene reads, or the checkpoint — which
// writing the image would destroy.
func refuseInputs(out *imageio.Output, scene string, bundle *scenes.Bundle, checkpoint string) error {
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
func openCheckpoint(f *renderFlags, bundle *scenes.Bundle, set tracer.Settings, con *console) (*renderCheckpoint, error) {
	path := cmp.Or(f.resume, f.checkpoint)
	if path == "" {
		return nil, nil
	}
	h := checkpoint.Header{Scene: checkpoint.SceneHash(bundle), Settings: set, TileSize: f.tile}
	ck := &renderCheckpoint{path: path, tiles: len(scheduler.Tiles(set.Width, set.Height, f.tile))}
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
		con.warn(msg)
	}
	ck.finished = c.Tiles
	if len(c.Tiles) == ck.tiles {
		// Every tile is there: nothing will be recorded, so the file is
		// only read (Read refused it if a render holds it), and may be on
		// read-only storage.
		return ck, nil
	}
	if ck.w, err = checkpoint.Append(c); err != nil {
		if errno, ok := errors.AsType[syscall.Errno](err); ok && (errors.Is(errno, fs.ErrPermission) || errno == syscall.EROFS) {
			err = fmt.Errorf("checkpoint %s cannot be written (%v), and --resume records into it the %d of %d tiles it lacks: make it writable, or resume a copy of it on storage that is",
				path, errno, ck.tiles-len(c.Tiles), ck.tiles)
		}
		return nil, usageError{err}
	}
	return ck, nil
}

// add records a finished tile. An error stops the writer; close reports
// it.
func (ck *renderCheckpoint) add(d scheduler.TileDone) {
	if ck.w != nil {
		ck.w.Add(d.Tile, d.Pixels)
	}
}

// err is the error that stopped the checkpoint's writer, if any (nil
// when nothing was left to record: no writer).
func (ck *renderCheckpoint) err() error {
	if ck.w == nil {
		return nil
	}
	return ck.w.Err()
}

// close ends the checkpoint after the render; when the render stopped
// early, it tells the user how to continue.
func (ck *renderCheckpoint) close(con *console, stopped bool) {
	written := 0
	if ck.w != nil {
		if err := ck.w.Close(); err != nil {
			con.warn(fmt.Sprintf("%v; it holds the tiles recorded before that", err))
		}
		written = ck.w.Tiles()
	}
	if stopped {
		con.info(fmt.Sprintf("checkpoint %s holds %d of %d tiles; continue with --resume %s",
			ck.path, len(ck.finished)+written, ck.tiles, ck.path))
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
// settings and checks them against the limits, naming the flag.
func applyOverrides(fs *pflag.FlagSet, f *renderFlags, s *tracer.Settings) error {
	for _, o := range []struct {
		flag    string
		value   int64
		lo, hi  int64
		setting *int
	}{
		{"width", int64(f.width), 1, tracer.MaxImageSide, &s.Width},
		{"height", int64(f.height), 1, tracer.MaxImageSide, &s.Height},
		{"samples", int64(f.samples), 1, tracer.MaxSamples, &s.Samples},
		{"min-samples", int64(f.minSamples), 0, tracer.MaxSamples, &s.MinSamples},
	} {
		if !fs.Changed(o.flag) {
			continue
		}
		if o.value < o.lo || o.value > o.hi {
			return usagef("--%s %d: must be %d to %d", o.flag, o.value, o.lo, o.hi)
		}
		*o.setting = int(o.value)
	}
	if fs.Changed("noise-threshold") {
		if !(f.noise >= 0 && f.noise <= 1) {
			return usagef("--noise-threshold %g: must be 0 to 1", f.noise)
		}
		s.NoiseThreshold = float32(f.noise)
	}
	if fs.Changed("seed") {
		if f.seed < 0 || f.seed > 1<<53 {
			return usagef("--seed %d: must be 0 to 2^53 (%d)", f.seed, int64(1)<<53)
		}
		s.Seed = uint64(f.seed)
	}
	if err := scenes.ValidateSettings(*s); err != nil {
		return usageError{fmt.Errorf("the settings with the flags' overrides: %w", err)}
	}
	return nil
}

// outputEncoding checks the output flags against the output's format
// before anything is read or rendered, naming the flag at fault.
func outputEncoding(fs *pflag.FlagSet, f *renderFlags) (imageio.Encoding, error) {
	enc := imageio.Encoding{Format: f.format, Depth: f.depth, Compression: f.compression, Quality: f.quality}
	// 0 is the Encoding's "the default": one given on the command line
	// is checked as the value it is.
	const given0 = -1 << 30
	if fs.Changed("depth") && f.depth == 0 {
		enc.Depth = given0
	}
	if fs.Changed("quality") && f.quality == 0 {
		enc.Quality = given0
	}
	if fs.Changed("compression") && f.compression == "" {
		enc.Compression = `""`
	}
	path := f.output
	if path == "-" {
		path = ""
	}
	res, err := imageio.CheckEncoding(path, enc)
	if e, ok := errors.AsType[*imageio.EncodingError](err); ok {
		if e.Value == fmt.Sprint(given0) {
			e.Value = "0"
		}
		return res, usagef("--%s %s: %s", e.Setting, e.Value, e.Msg)
	}
	if err != nil {
		return res, usagef("%v, or give --format", err)
	}
	return res, nil
}

// overflowed counts fb's pixels with a component of +Inf: a sum of
// samples past float32's range (each sample is finite: the tracer counts
// the others as black).
func overflowed(fb *tracer.Framebuffer) int {
	n := 0
	for i := 0; i+2 < len(fb.Pix); i += 3 {
		if math.IsInf(float64(max(fb.Pix[i], fb.Pix[i+1], fb.Pix[i+2])), 1) {
			n++
		}
	}
	return n
}

// overflowWritten says what an output of enc writes for a radiance of +Inf.
func overflowWritten(enc imageio.Encoding) string {
	switch {
	case enc.Format == imageio.FormatHDR:
		return "RGBE's largest value"
	case enc.Format == imageio.FormatEXR && enc.Depth == 16:
		return "half's largest value, 65504"
	case enc.Format == imageio.FormatEXR || enc.Format == imageio.FormatPFM:
		return "+Inf"
	}
	return "white"
}

// summary is the one line printed after a render of settings set; scene
// is the scene as compiled here, or nil if it was not (the workers
// compiled it). Under adaptive sampling it says the samples a pixel took,
// on average over the pixels rendered here.
func summary(p scheduler.Progress, output string, set tracer.Settings, scene *tracer.Scene) string {
	secs := p.Elapsed.Seconds()
	cpuThreads := 0
	var shares []string
	for _, w := range p.Workers {
		if !w.Kind.Renders() {
			continue // its machines report under their own names
		}
		if w.Kind == scheduler.KindCPU {
			cpuThreads += w.Threads
		}
		if len(p.Workers) > 1 {
			share := fmt.Sprintf("%s %.0f%%", w.Name, 100*float64(w.Pixels)/float64(max(p.Pixels, 1)))
			if w.Kind == scheduler.KindRemote {
				share += fmt.Sprintf(" at %.1f tiles/s", float64(w.Tiles)/secs)
			}
			if w.Retries > 0 {
				share += fmt.Sprintf(" with %d retries", w.Retries)
			}
			shares = append(shares, share)
		}
	}
	line := fmt.Sprintf("%s: %s, %s, %s samples/s, %s rays/s",
		output, roundTime(p.Elapsed), plural(cpuThreads, "thread"),
		si(float64(p.Stats.Samples)/secs), si(float64(p.Stats.Rays)/secs))
	if rendered := p.PixelsDone - p.PixelsResumed; set.Adaptive() && rendered > 0 {
		line += fmt.Sprintf(", %.1f of %d samples a pixel (noise threshold %g)",
			float64(p.Stats.Samples)/float64(rendered), set.Samples, set.NoiseThreshold)
	}
	if len(shares) > 0 {
		line += " [frame by " + strings.Join(shares, ", ") + "]"
	}
	if scene != nil && len(scene.Triangles) > 0 {
		n := len(scene.Triangles)
		line += fmt.Sprintf(" (%s triangles, BVH built in %s)", si(float64(n)), roundTime(scene.BVHBuildTime))
	}
	if p.TilesResumed > 0 {
		line += fmt.Sprintf("; %d of %d tiles resumed from the checkpoint", p.TilesResumed, p.TilesTotal)
	}
	if p.Stats.NonFinite > 0 {
		line += fmt.Sprintf("; %d samples were NaN or infinite and counted as black", p.Stats.NonFinite)
	}
	return line
}

// roundTime rounds d for the summary: to the millisecond, or to the
// microsecond under one (not "0s").
func roundTime(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
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
