package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: trace validate SCENE...\n\nChecks scene files without rendering: syntax, fields, references, limits.\nPrints one line per file; exit status 2 if any file is bad.\n\nFlags:\n%s", fs.FlagUsages())
	}
	outside := fs.Bool("allow-outside-assets", false, "let scenes read meshes and images outside their folder")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usagef("validate: no scene file given")
	}
	nbad := 0
	for _, path := range fs.Args() {
		desc, err := scenes.LoadWith(path, scenes.Options{AllowOutsideAssets: *outside})
		if err == nil {
			_, err = tracer.Compile(desc)
			if err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "trace: %v\n", err)
			nbad++
			continue
		}
		s := desc.Settings
		ntri := len(desc.Triangles)
		for _, m := range desc.Meshes {
			ntri += len(m.Indices) / 3
		}
		fmt.Fprintf(stdout, "%s: ok (%d×%d, %d samples, %d shapes, %d triangles, %d materials, %d lights, %d images)\n",
			path, s.Width, s.Height, s.Samples,
			len(desc.Spheres)+len(desc.Planes)+len(desc.Quads), ntri,
			len(desc.Materials), len(desc.Lights), len(desc.Images))
	}
	if nbad > 0 {
		return usageError{fmt.Errorf("%d of %d scene files are invalid", nbad, fs.NArg())}
	}
	return nil
}

// parseFlags parses args, turning --help into errHelp and flag mistakes
// into usage errors.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return errHelp
		}
		return usageError{err}
	}
	return nil
}
