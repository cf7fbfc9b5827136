// Command trace renders a JSON scene into a PNG.
//
//	trace render scene.json -o out.png
//	trace render scene.json -o out.png --workers host:7000,host2:7000
//	trace worker --listen :7000
//	trace validate scene.json
//	trace bench
//	trace version
//
// The command only parses flags and calls the scenes, scheduler and tracer
// packages; everything it does can be done with them.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailure     = 1   // the render itself failed
	exitUsage       = 2   // bad flags, bad scene, unwritable output
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM
)

// usageError marks an error caused by the user's input (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

const topUsage = `trace renders a JSON scene file into an image.

Usage:
  trace render SCENE -o OUT.png [flags]   render a scene (see trace render --help)
  trace worker [--listen ADDR]            render tiles for 'trace render --workers'
  trace validate SCENE...                 check scene files without rendering
  trace bench [--threads N] [--json]      measure ray tracing speed on fixed workloads
  trace version                           print the version

Run 'trace COMMAND --help' (or 'trace help COMMAND') for a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// commands are the subcommands, for suggestions.
var commands = []string{"render", "worker", "validate", "bench", "version", "help"}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return exitUsage
	}
	// The commands with --log-format print even the errors of their flags
	// as JSON records when it says json, so it is read before they parse.
	json := (args[0] == "render" || args[0] == "worker") && logFormatJSON(args[1:])
	var err error
	switch args[0] {
	case "render":
		err = cmdRender(args[1:], stdout, stderr)
	case "worker":
		err = cmdWorker(args[1:], stdout, stderr)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "version", "--version":
		err = cmdVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) == 2 && slices.Contains(commands[:5], args[1]) {
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		if len(args) > 1 {
			msg := fmt.Sprintf("trace help: no command %q", strings.Join(args[1:], " "))
			if s := suggest(args[1], commands[:5]); s != "" && len(args) == 2 {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			fmt.Fprintf(stderr, "%s\n\n%s", msg, topUsage)
			return exitUsage
		}
		fmt.Fprint(stdout, topUsage)
		return exitOK
	default:
		msg := fmt.Sprintf("trace: unknown command %q", args[0])
		if strings.HasPrefix(args[0], "-") {
			msg = fmt.Sprintf("trace: %s is a flag; the command comes first: trace COMMAND [flags]", args[0])
		} else if s := suggest(args[0], commands); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		fmt.Fprintf(stderr, "%s\n\n%s", msg, topUsage)
		return exitUsage
	}
	return exitStatus(err, stderr, json)
}

// logFormatJSON reports whether a command's arguments ask for
// --log-format json (or --log-format=json), the last of several winning as
// when they are parsed; arguments after "--" are not flags.
func logFormatJSON(args []string) bool {
	json := false
	for i, a := range args {
		switch {
		case a == "--":
			return json
		case a == "--log-format" && i+1 < len(args):
			json = args[i+1] == "json"
		case strings.HasPrefix(a, "--log-format="):
			json = a == "--log-format=json"
		}
	}
	return json
}

// exitStatus prints err, if any, as one line (a JSON record when json is
// set) and maps it to an exit status.
func exitStatus(err error, stderr io.Writer, json bool) int {
	say := func(msg string) { fmt.Fprintf(stderr, "trace: %s\n", msg) }
	if json {
		rec := slog.New(slog.NewJSONHandler(stderr, nil))
		say = func(msg string) { rec.Error(msg) }
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errInterrupted):
		if !errors.As(err, new(reportedError)) {
			say("interrupted; no image written")
		}
		return exitInterrupted
	}
	if !errors.As(err, new(reportedError)) {
		say(err.Error())
	}
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

var (
	errHelp        = errors.New("help shown")
	errInterrupted = errors.New("interrupted")
)

// reportedError is an error the command has printed already (as a JSON
// record, with --log-format json): exitStatus only maps it to a status.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }
