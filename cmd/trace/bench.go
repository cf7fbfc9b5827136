package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/spf13/pflag"
	"github.com/tracerender/trace/bench"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

const benchUsage = `Usage: trace bench [flags]

Runs fixed workloads and prints a table (or, with --json, one JSON object per
line): the BVH build (the median of three; the JSON also gives the first,
which pays for first touching fresh memory) and nearest-hit queries for
coherent primary rays (one per pixel of a 1024×1024 camera; traced one by
one, then in packets of four neighbours as the renderer traces camera
rays) and incoherent random rays (2^20), against a procedural mesh of
50,000 triangles and one of 1,300,500 (or a mesh of yours, --mesh); then
every gallery scene in --gallery rendered at 256×256 with 16 samples per
pixel. Rays/s are per thread; nodes/ray and tests/ray are the ray
workloads' BVH work per ray (interior node fetches, a packet's counted once
for its four rays; primitives tested in leaves, per ray; the JSON also
gives leaves visited), counted in a pass of their own.

With --gpus N (a build made with make cuda), each gallery scene is then
rendered on the N GPUs alone, the median of three renders; the row's
threads column says how many GPUs, and its rate is rays/s per GPU.

Flags:
`

func cmdBench(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	threads := fs.Int("threads", runtime.NumCPU(), "threads tracing rays and rendering")
	asJSON := fs.Bool("json", false, "one JSON object per line instead of a table")
	meshFile := fs.String("mesh", "", "trace the ray workloads against this mesh `file` (.obj, .gltf, .glb, .ply, .stl)")
	gallery := fs.String("gallery", "scenes/examples", "`folder` of scenes to render; empty to skip")
	gpus := fs.Int("gpus", 0, "also render the gallery on this many CUDA GPUs (a build made with make cuda)")
	fs.Usage = func() { fmt.Fprintf(stderr, "%s%s", benchUsage, fs.FlagUsages()) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench: unexpected argument %q", fs.Arg(0))
	}
	if *threads < 1 {
		return usagef("--threads %d: must be at least 1", *threads)
	}
	if err := checkThreads(*threads); err != nil {
		return err
	}
	if *gpus < 0 {
		return usagef("--gpus %d: must be at least 0", *gpus)
	}
	if *gpus > 0 && *gallery == "" {
		return usagef("--gpus %d renders the gallery: give --gallery a folder", *gpus)
	}
	opt := bench.Options{Threads: *threads, GalleryDir: *gallery}
	if *meshFile != "" {
		m, err := scenes.LoadMesh(*meshFile)
		if err != nil {
			return usageError{err}
		}
		opt.Mesh, opt.MeshName = m, *meshFile
	}
	if *gallery != "" {
		if fi, err := os.Stat(*gallery); err != nil || !fi.IsDir() {
			return usagef("--gallery %s: not a folder (run from the repository root, or pass --gallery \"\")", *gallery)
		}
	}
	if *gpus > 0 {
		devs, err := openDevices(*gpus, func(msg string) { fmt.Fprintf(stderr, "trace: %s\n", msg) })
		if err != nil {
			return err
		}
		defer func() {
			for _, d := range devs {
				d.Close()
			}
		}()
		opt.Devices = devs
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	const row = "%-38s %7s %9s %8s %15s %15s %9s %10s %10s\n"
	if !*asJSON {
		fmt.Fprintf(stdout, "BVH traversal: %s\n", tracer.Traversal())
		fmt.Fprintf(stdout, row, "workload", "threads", "rays", "seconds", "M rays/s/thread", "build M tris/s", "bytes/tri", "nodes/ray", "tests/ray")
	}
	enc := json.NewEncoder(stdout)
	err := bench.Run(ctx, opt, func(r bench.Result) {
		if *asJSON {
			enc.Encode(struct {
				bench.Result
				Traversal string `json:"traversal"`
			}{r, tracer.Traversal()})
			return
		}
		build, bpt, rate := "", "", ""
		if r.BuildPerSecond > 0 {
			build = fmt.Sprintf("%.2f", r.BuildPerSecond/1e6)
			bpt = fmt.Sprintf("%.0f", r.BytesPerTriangle)
		}
		who := fmt.Sprint(r.Threads)
		switch {
		case r.GPUs > 0:
			who, rate = fmt.Sprintf("%d GPU", r.GPUs), fmt.Sprintf("%.2f", r.RaysPerGPU/1e6)
		case r.Rays > 0:
			rate = fmt.Sprintf("%.2f", r.RaysPerThread/1e6)
		}
		rays := ""
		if r.Rays > 0 {
			rays = fmt.Sprint(r.Rays)
		}
		nodes, tests := "", ""
		if r.NodesPerRay > 0 {
			nodes, tests = fmt.Sprintf("%.2f", r.NodesPerRay), fmt.Sprintf("%.2f", r.TestsPerRay)
		}
		fmt.Fprintf(stdout, row, r.Workload, who, rays, fmt.Sprintf("%.3f", r.Seconds), rate, build, bpt, nodes, tests)
	})
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}
