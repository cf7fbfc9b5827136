package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSuggestions: a mistyped command or flag gets one line that names
// it and what was probably meant; a flag given a bad value is named, as
// the flag, with what it wants.
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rendr", "scene.json"}, `trace: unknown command "rendr"; did you mean "render"?`},
		{[]string{"valdate"}, `did you mean "validate"?`},
		{[]string{"wroker"}, `did you mean "worker"?`},
		{[]string{"frobnicate"}, `trace: unknown command "frobnicate"`},
		{[]string{"--samples", "4"}, "trace: --samples is a flag; the command comes first"},
		{[]string{"render", cornell, "-o", "x.png", "--sampels", "4"}, "trace: unknown flag --sampels: did you mean --samples? ('trace render --help' lists the flags)"},
		{[]string{"render", cornell, "-o", "x.png", "--treads", "4"}, "did you mean --threads?"},
		{[]string{"render", cornell, "-o", "x.png", "--colour"}, "trace: unknown flag --colour ('trace render --help' lists the flags)"},
		{[]string{"worker", "--listn", ":7000"}, "did you mean --listen?"},
		{[]string{"bench", "--jsn"}, "did you mean --json?"},
		{[]string{"render", cornell, "-o", "x.png", "--width", "0"}, "trace: --width 0: must be 1 to 16384"},
		{[]string{"render", cornell, "-o", "x.png", "--height", "20000"}, "trace: --height 20000: must be 1 to 16384"},
		{[]string{"render", cornell, "-o", "x.png", "--samples", "0"}, "trace: --samples 0: must be 1 to 65536"},
		{[]string{"render", cornell, "-o", "x.png", "--noise-threshold", "1.5"}, "trace: --noise-threshold 1.5: must be 0 to 1"},
		{[]string{"render", cornell, "-o", "x.png", "--min-samples", "-1"}, "trace: --min-samples -1: must be 0 to 65536"},
		{[]string{"render", cornell, "-o", "x.png", "--seed", "-1"}, "trace: --seed -1: must be 0 to 2^53"},
		{[]string{"render", cornell, "-o", "x.png", "--width", "wide"}, `trace: --width "wide": want a whole number`},
		{[]string{"render", cornell, "-o", "x.png", "--serve-linger", "soon"}, `trace: --serve-linger "soon": want a duration such as 30s or 5m`},
		{[]string{"render", cornell, "-o"}, "trace: --output needs a value"},
	} {
		code, _, stderr := runCLI(tc.args...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.Contains(first, tc.want) {
			t.Errorf("%q: exit %d, first line %q; want 2 and %q", tc.args, code, first, tc.want)
		}
		if strings.HasPrefix(tc.args[0], "render") && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: %d lines, want one: %q", tc.args, strings.Count(stderr, "\n"), stderr)
		}
		if regexp.MustCompile(`\b(tracer|scenes|scheduler|remote)\.[A-Z]`).MatchString(stderr) {
			t.Errorf("%q: an internal Go name in %q", tc.args, stderr)
		}
	}
}

// TestHelpEverywhere: --help, -h and 'trace help COMMAND' on every
// command print its usage and exit 0.
func TestHelpEverywhere(t *testing.T) {
	for _, cmd := range []string{"render", "worker", "validate", "bench", "version"} {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			code, stdout, stderr := runCLI(args...)
			if code != 0 || !strings.Contains(stdout+stderr, "Usage: trace "+cmd) {
				t.Errorf("%q: exit %d, %q", args, code, stdout+stderr)
			}
		}
	}
	if code, stdout, _ := runCLI("help"); code != 0 || !strings.Contains(stdout, "trace render SCENE") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
	for _, tc := range []struct{ args, want string }{
		{"help nope", `trace help: no command "nope"` + "\n"},
		{"help rendr", `trace help: no command "rendr"; did you mean "render"?`},
		{"help render extra", `trace help: no command "render extra"`},
	} {
		code, stdout, stderr := runCLI(strings.Fields(tc.args)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) || !strings.Contains(stderr, "trace render SCENE") {
			t.Errorf("%s: exit %d, %q, %q; want 2 and %q, then the usage", tc.args, code, stdout, stderr, tc.want)
		}
	}
	_, _, stderr := runCLI("render", "--help")
	if strings.Contains(stderr, "(default -1)") || !strings.Contains(stderr, "--seed") || !strings.Contains(stderr, "exr") {
		t.Errorf("render --help: %q", stderr)
	}
}

// TestValidateLights: validate counts point and directional lights,
// emissive shapes and a
// background that gives light, and warns of a scene where nothing does;
// a render of such a scene warns before rendering.
func TestValidateLights(t *testing.T) {
	dir := t.TempDir()
	scene := func(name, lights, objects, background string) string {
		body := `{"version": 1, "render": {"width": 8, "height": 8, "samples": 1},
 "camera": {"position": [0, 1, -4], "look_at": [0, 1, 0]},` + background + `
 "materials": {"white": {"type": "diffuse"}, "lamp": {"type": "emissive", "intensity": 5}, "off": {"type": "emissive", "intensity": 0}},
 "lights": [` + lights + `],
 "objects": [{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}` + objects + `]}`
		return writeSceneAs(t, dir, name, body)
	}
	point := `{"type": "point", "position": [0, 3, 0], "intensity": 10}`
	sun := `{"type": "directional", "direction": [1, -2, 0.5], "color": [1, 0.9, 0.8], "intensity": 3}`
	spot := `{"type": "spot", "position": [0, 3, 0], "direction": [0, -1, 0], "intensity": 10}`
	wide := `{"type": "spot", "position": [0, 3, 0], "direction": [0, -1, 0], "intensity": 10, "outer_angle": 90}`
	quad := `, {"type": "quad", "corner": [-1, 3, -1], "edge1": [2, 0, 0], "edge2": [0, 0, 2], "material": "lamp"}`
	for _, tc := range []struct {
		file string
		want string
		dark bool
	}{
		{scene("dark.json", "", `, {"type": "sphere", "center": [2, 1, 0], "radius": 1, "material": "off"}`, ""), "no light", true},
		{scene("point.json", point+", "+point, "", ""), "2 point lights", false},
		{scene("area.json", "", quad+quad, ""), "2 emissive shapes", false},
		{scene("sky.json", point, quad, `"background": {"type": "gradient", "bottom": [1, 1, 1], "top": [0.5, 0.7, 1]},`), "1 point light, 1 emissive shape, a lit background", false},
		{cornell, "1 emissive shape", false},
		{scene("sun.json", point+", "+sun+", "+sun, "", ""), "1 point light, 2 directional lights", false},
		{scene("bulbs.json", strings.Repeat(point+", ", 8)+point, "", ""), "9 point lights (picked from the light tree)", false},
		{scene("bulbs8.json", strings.Repeat(point+", ", 7)+point, "", ""), "8 point lights", false},
		{scene("bulbsmixed.json", strings.Repeat(point+", ", 8)+point+`, {"type": "point", "position": [0, 3, 0], "intensity": 10, "falloff": "none"}`, "", ""), "10 point lights (9 of these 10 picked from the light tree)", false},
		{scene("spots.json", point+", "+spot+", "+spot, "", ""), "1 point light, 2 spot lights", false},
		{scene("spot.json", spot, "", ""), "1 spot light", false},
		{scene("spotbulbs.json", strings.Repeat(point+", ", 8)+wide, "", ""), "8 point lights, 1 spot light (picked from the light tree)", false},
		{scene("spotbulbsnarrow.json", strings.Repeat(point+", ", 5)+strings.Repeat(spot+", ", 3)+spot, "", ""), "5 point lights, 4 spot lights (sampled all: they count as 5.4 point lights)", false},
		{scene("downlights.json", strings.Repeat(spot+", ", 35)+spot, "", ""), "36 spot lights (sampled all: they count as 3.5 point lights)", false},
		{scene("spotbulbs8.json", strings.Repeat(point+", ", 4)+strings.Repeat(spot+", ", 3)+spot, "", ""), "4 point lights, 4 spot lights", false},
		{scene("spotsmixed.json", point+", "+strings.Repeat(wide+", ", 24)+`{"type": "spot", "position": [0, 3, 0], "direction": [0, -1, 0], "falloff": "none"}`, "", ""), "1 point light, 25 spot lights (25 of these 26 picked from the light tree)", false},
		{scene("darksun.json", `{"type": "directional", "direction": [0, -1, 0], "intensity": 0}`, "", ""), "no light", true},
	} {
		code, stdout, stderr := runCLI("validate", tc.file)
		if code != 0 || !strings.Contains(stdout, ", "+tc.want+", ") {
			t.Errorf("%s: exit %d, %q, want %q", tc.file, code, stdout, tc.want)
		}
		if warned := strings.Contains(stderr, "nothing in the scene emits light"); warned != tc.dark {
			t.Errorf("%s: warning %v, want %v: %q", tc.file, warned, tc.dark, stderr)
		}
	}
	out := filepath.Join(dir, "dark.png")
	code, _, stderr := runCLI("render", filepath.Join(dir, "dark.json"), "-o", out)
	if code != 0 || !strings.HasPrefix(stderr, "trace: warning: "+filepath.Join(dir, "dark.json")+": nothing in the scene emits light") {
		t.Errorf("render of a dark scene: exit %d, %q; want the warning first", code, stderr)
	}
}

func writeSceneAs(t *testing.T, dir, name, body string) string {
	t.Helper()
	q := filepath.Join(dir, name)
	if err := os.WriteFile(q, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return q
}

// stampedWriter records when each line was written.
type stampedWriter struct {
	mu    sync.Mutex
	lines []string
	at    []time.Time
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			w.lines = append(w.lines, l)
			w.at = append(w.at, time.Now())
		}
	}
	return len(p), nil
}

// TestServeLingerSummaryFirst: with --serve-linger, the summary comes when
// the image is written, then a line says until when the view stays up,
// and the command returns after the linger.
func TestServeLingerSummaryFirst(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.png")
	var w stampedWriter
	start := time.Now()
	code := run([]string{"render", cornell, "-o", out, "--width", "16", "--height", "16", "--samples", "1",
		"--serve", "127.0.0.1:0", "--serve-linger", "2s"}, &w, &w)
	end := time.Now()
	if code != 0 {
		t.Fatalf("exit %d: %q", code, w.lines)
	}
	if len(w.lines) != 3 || !strings.HasPrefix(w.lines[0], "trace: watch the render at http://127.0.0.1:") ||
		!strings.HasPrefix(w.lines[1], out+": ") ||
		!regexp.MustCompile(`^trace: the live view at http://127\.0\.0\.1:\d+/ stays up until \d\d:\d\d:\d\d \(--serve-linger 2s\); Ctrl-C ends it now\n$`).MatchString(w.lines[2]) {
		t.Fatalf("lines %q, want the address, the summary, then until when the view stays up", w.lines)
	}
	if lag := end.Sub(w.at[1]); lag < 1500*time.Millisecond {
		t.Errorf("the summary came %v before the end, want it before the 2s linger", lag)
	}
	if end.Sub(start) < 2*time.Second {
		t.Errorf("returned after %v, before the linger ended", end.Sub(start))
	}
}

// TestWorkerRefusalFailsFast: a render whose worker wants a token it was
// not given fails at once, with local threads too, in one line that says
// to set TRACE_TOKEN; a job the worker finished is logged with its
// reason (not "context canceled"). An unreachable worker gets
// plain lines, no gRPC dump.
func TestWorkerRefusalFailsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a worker process; skipped in -short mode")
	}
	bin := buildTrace(t)
	w := startWorker(t, []string{bin, "worker", "--listen", "127.0.0.1:0", "--threads", "1", "--token", "s3cret"})
	out := filepath.Join(t.TempDir(), "out.png")
	// Big enough that two local threads cannot finish the frame before
	// the worker's answer.
	args := []string{"render", cornell, "-o", out, "--width", "96", "--height", "96", "--samples", "32", "-q", "--workers", w.addr}
	for _, threads := range []string{"0", "2"} {
		t.Setenv("TRACE_TOKEN", "")
		code, _, stderr := runCLI(append(args, "--threads", threads)...)
		want := "trace: worker " + w.addr + ": it requires a token (missing or wrong token: a call must carry the worker's --token): set TRACE_TOKEN (or --token) to the secret the worker was started with\n"
		if code != 1 || stderr != want {
			t.Errorf("--threads %s without the token: exit %d, %q; want 1 and %q", threads, code, stderr, want)
		}
	}
	t.Setenv("TRACE_TOKEN", "s3cret")
	if code, _, stderr := runCLI("render", cornell, "-o", out, "--width", "32", "--height", "32", "--samples", "2", "-q", "--workers", w.addr, "--threads", "0"); code != 0 {
		t.Fatalf("with the token: exit %d, %q", code, stderr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(w.log.String(), "job closed") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if log := w.log.String(); !regexp.MustCompile(`reason="(done: |the coordinator hung up with 1 tiles unanswered \(duplicates)`).MatchString(log) || strings.Contains(log, "context canceled") {
		t.Errorf("the worker's log:\n%s", log)
	}

	code, _, stderr := runCLI("render", cornell, "-o", out, "-q", "--threads", "0", "--workers", "127.0.0.1:1")
	if code != 1 || strings.Contains(stderr, "rpc error") || strings.Contains(stderr, "desc =") ||
		!strings.Contains(stderr, "worker 127.0.0.1:1: cannot connect: connection refused (is trace worker running there, listening on that port?) (gave up after 5 failures in a row)") {
		t.Errorf("an unreachable worker: exit %d, %q", code, stderr)
	}
}

// TestThreadsBound: --threads past maxThreads is refused before anything
// runs (a typo of 100000000 took 49 s for a tiny frame); maxThreads
// itself renders.
func TestThreadsBound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.png")
	over := strconv.Itoa(maxThreads + 1)
	for _, args := range [][]string{
		append([]string{"render", cornell, "-o", out, "--threads", over}, tinyFlags...),
		{"worker", "--threads", over},
		{"bench", "--threads", over},
	} {
		code, _, stderr := runCLI(args...)
		if want := "trace: --threads " + over + ": at most 4096 (this machine has "; code != 2 || !strings.HasPrefix(stderr, want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", args[0], code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(append([]string{"render", cornell, "-o", out, "--threads", strconv.Itoa(maxThreads)}, tinyFlags...)...); code != 0 {
		t.Errorf("--threads %d: exit %d, %q", maxThreads, code, stderr)
	}
}
