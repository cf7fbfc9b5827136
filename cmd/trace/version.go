package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"
	"github.com/tracerender/trace/tracer"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: trace version\n\nPrints the version of trace, the commit it was built from, the Go release, the platform\nand the pixel version (docs/pixel-version.md).\n")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	fmt.Fprintf(stdout, "trace %s%s %s %s/%s, pixel version %d\n", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH, tracer.PixelVersion)
	return nil
}
