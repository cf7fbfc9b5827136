// Command export writes the meshes and rays of `trace bench` for the Embree
// harness (bench/embree/harness.c) into a folder, with trace's own figures
// on them: see scripts/embree-bench.sh.
//
//	go run ./bench/embree/export [-quick] [-runs N] [-timing-only] DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tracerender/trace/bench"
)

func main() {
	var opt bench.EmbreeOptions
	flag.BoolVar(&opt.Quick, "quick", false, "small workloads, for a quick check")
	flag.IntVar(&opt.Runs, "runs", 0, "timed runs per query, the median written (default 5)")
	flag.BoolVar(&opt.TimingOnly, "timing-only", false, "only time trace, without writing the ray files")
	flag.Parse()
	if flag.NArg() != 1 || opt.Runs < 0 {
		fmt.Fprintln(os.Stderr, "usage: export [-quick] [-runs N] [-timing-only] DIR")
		os.Exit(2)
	}
	if err := bench.ExportEmbree(context.Background(), flag.Arg(0), opt); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}
