// Command export writes the meshes and rays of `trace bench` for the Embree
// harness (bench/embree/harness.c) into a folder, with trace's own figures
// on them: see scripts/embree-bench.sh.
//
//	go run ./bench/embree/export [-quick] DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tracerender/trace/bench"
)

func main() {
	quick := flag.Bool("quick", false, "small workloads, for a quick check")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: export [-quick] DIR")
		os.Exit(2)
	}
	if err := bench.ExportEmbree(context.Background(), flag.Arg(0), *quick); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}
