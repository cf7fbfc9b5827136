package main

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/tracer"
)

const cornell = "../../scenes/examples/cornell-box.json"

// knotPath is the gallery's mesh, by absolute path: outside a test's folder.
var knotPath, _ = filepath.Abs("../../scenes/examples/assets/knot.obj")

// runCLI runs the command line in-process and returns the exit status and
// what it printed.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// readPNG decodes the PNG file at path.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func TestRenderPNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.png")
	code, _, stderr := runCLI("render", cornell, "-o", out, "--width", "40", "--height", "30", "--samples", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	img := readPNG(t, out)
	if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 30 {
		t.Errorf("image %v, want 40×30", b)
	}
	// The summary line: time, threads, samples/s, rays/s.
	for _, want := range []string{" thread", "samples/s", "rays/s"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary %q lacks %q", stderr, want)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("output folder holds %d files, want only out.png", len(entries))
	}
}

// TestRenderSummaryAdaptive: under adaptive sampling, from the scene
// file or from --noise-threshold, the summary says the samples a pixel
// took on average, fewer than the scene's samples; without it, it says
// nothing of them.
func TestRenderSummaryAdaptive(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(cornell)
	if err != nil {
		t.Fatal(err)
	}
	scene := strings.Replace(string(b), `"render": {`, `"render": {"noise_threshold": 0.05, "min_samples": 8, `, 1)
	if scene == string(b) {
		t.Fatal("the Cornell box has no render section to add the threshold to")
	}
	adaptive := filepath.Join(dir, "adaptive.json") // the Cornell box has no assets to find
	if err := os.WriteFile(adaptive, []byte(scene), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file  string
		flags []string
		want  bool
	}{
		{adaptive, nil, true},
		{cornell, nil, false},
		{cornell, []string{"--noise-threshold", "0.05", "--min-samples", "8"}, true},
	} {
		args := []string{"render", c.file, "-o", filepath.Join(dir, "out.png"), "--width", "32", "--height", "24", "--samples", "40"}
		code, _, stderr := runCLI(append(args, c.flags...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var mean float64
		i := strings.Index(stderr, " of 40 samples a pixel (noise threshold 0.05)")
		if i >= 0 {
			j := strings.LastIndex(stderr[:i], ", ")
			mean, err = strconv.ParseFloat(stderr[j+2:i], 64)
		}
		switch {
		case c.want && (i < 0 || err != nil || mean < 8 || mean >= 40):
			t.Errorf("%s %v: summary %q: want the mean samples a pixel, from 8 to under 40", c.file, c.flags, stderr)
		case !c.want && i >= 0:
			t.Errorf("%s %v: summary %q speaks of samples a pixel without adaptive sampling", c.file, c.flags, stderr)
		}
	}
}

// TestAllowOutsideAssets: a mesh outside the scene's folder is refused
// unless the flag allows it.
func TestAllowOutsideAssets(t *testing.T) {
	dir := t.TempDir()
	scene := writeScene(t, dir, strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`,
		`{"type": "mesh", "file": "`+knotPath+`", "material": "white", "transform": {"scale": 0.3}}`, 1))
	out := filepath.Join(dir, "out.png")
	if code, _, stderr := runCLI("render", scene, "-o", out, "-q"); code != 2 || !strings.Contains(stderr, "outside") {
		t.Errorf("without the flag: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("render", scene, "-o", out, "-q", "--allow-outside-assets"); code != 0 {
		t.Errorf("with the flag: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}

func TestRenderDepthAndPFM(t *testing.T) {
	dir := t.TempDir()
	png16 := filepath.Join(dir, "out16.png")
	if code, _, stderr := runCLI("render", cornell, "-o", png16, "-q", "--width", "8", "--height", "8", "--samples", "1", "--depth", "16"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(png16)
	// IHDR's bit depth byte: 8-byte signature, 4 length, 4 type, 8 size.
	if len(data) < 25 || data[24] != 16 {
		t.Errorf("PNG bit depth byte %v, want 16", data[24])
	}
	pfm := filepath.Join(dir, "out.pfm")
	if code, _, stderr := runCLI("render", cornell, "-o", pfm, "-q", "--width", "8", "--height", "4", "--samples", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ = os.ReadFile(pfm)
	if !bytes.HasPrefix(data, []byte("PF\n8 4\n-1.0\n")) || len(data) != len("PF\n8 4\n-1.0\n")+8*4*12 {
		t.Errorf("PFM of %d bytes starting %q", len(data), data[:min(len(data), 12)])
	}
}

// TestRenderDeterministicFlags: tile size and thread count do not change
// one byte of the PNG.
func TestRenderDeterministicFlags(t *testing.T) {
	dir := t.TempDir()
	var ref []byte
	for i, flags := range [][]string{{"--tile", "8"}, {"--tile", "64"}, {"--threads", "1"}, {"--threads", "2"}} {
		out := filepath.Join(dir, "out.png")
		args := append([]string{"render", cornell, "-o", out, "-q", "--width", "48", "--height", "48", "--samples", "4"}, flags...)
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", flags, code, stderr)
		}
		got, _ := os.ReadFile(out)
		if i == 0 {
			ref = got
		} else if !bytes.Equal(got, ref) {
			t.Errorf("%v: PNG differs from --tile 8", flags)
		}
	}
}

func writeScene(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const okScene = `{"version": 1,
 "render": {"width": 8, "height": 8, "samples": 1},
 "camera": {"position": [0, 1, -4], "look_at": [0, 1, 0]},
 "materials": {"white": {"type": "diffuse"}},
 "objects": [{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}]}`

// TestBadInput: every kind of bad input is one line on stderr naming the
// problem, exit status 2, and no output file created or truncated.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		scene string // scene file contents; "" means a missing file
		flags []string
		want  string // part of the error line
	}{
		{"missing file", "", nil, "no such file"},
		{"malformed JSON", "{\"version\": 1,\n \"render\": {\"width\": 8,,}}", nil, "scene.json:2:"},
		{"unknown field", strings.Replace(okScene, `"radius"`, `"radious"`, 1), nil, `objects[0]`},
		{"undefined material", strings.Replace(okScene, `"material": "white"`, `"material": "whit"`, 1), nil, `objects[0].material`},
		{"negative radius", strings.Replace(okScene, `"radius": 1`, `"radius": -1`, 1), nil, `objects[0].radius`},
		{"camera looks at itself", strings.Replace(okScene, `"look_at": [0, 1, 0]`, `"look_at": [0, 1, -4]`, 1), nil, "camera"},
		{"mesh file missing", strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`, `{"type": "mesh", "file": "bunny.obj", "material": "white"}`, 1), nil, `objects[0].file: "bunny.obj": no such file or directory`},
		{"mesh outside the folder", strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`, `{"type": "mesh", "file": "`+knotPath+`", "material": "white"}`, 1), nil, "--allow-outside-assets"},
		{"malformed OBJ", strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`, `{"type": "mesh", "file": "bad.obj", "material": "white"}`, 1), nil, "bad.obj:2:"},
		{"spot without a direction", strings.Replace(okScene, `"objects"`, `"lights": [{"type": "spot", "position": [0, 3, 0]}],
 "objects"`, 1), nil, `scene.json:5:13: lights[0]: missing required field "direction" (or "look_at")`},
		{"spot cone inside out", strings.Replace(okScene, `"objects"`, `"lights": [{"type": "spot", "position": [0, 3, 0], "look_at": [0, 0, 0], "inner_angle": 30, "outer_angle": 20}],
 "objects"`, 1), nil, `scene.json:5:90: lights[0].inner_angle: 30 is more than outer_angle 20`},
		{"huge width flag", okScene, []string{"--width", "100000"}, "width"},
		{"zero samples flag", okScene, []string{"--samples", "0"}, "samples"},
		{"gpus without a CUDA device", okScene, []string{"--gpus", "1"}, "CUDA"}, // no CUDA support, or (cuda build) no device
		{"bad depth", okScene, []string{"--depth", "12"}, "--depth"},
		{"unknown flag", okScene, []string{"--colour"}, "unknown flag"},
		{"output folder missing", okScene, []string{"-o", "/nonexistent-dir/out.png"}, "cannot write"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			scene := filepath.Join(dir, "scene.json")
			if tc.scene != "" {
				scene = writeScene(t, dir, tc.scene)
			}
			out := filepath.Join(dir, "out.png")
			os.WriteFile(out, []byte("previous image"), 0o644)
			os.WriteFile(filepath.Join(dir, "bad.obj"), []byte("v 0 0 0\nf 1 2 x\n"), 0o644)
			args := append([]string{"render", scene, "-o", out}, tc.flags...)
			code, _, stderr := runCLI(args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 && tc.name != "unknown flag" {
				t.Errorf("error is %d lines, want 1: %q", lines, stderr)
			}
			if got, _ := os.ReadFile(out); string(got) != "previous image" {
				t.Errorf("existing output was changed to %d bytes", len(got))
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 3 {
				t.Errorf("%d files left in the folder, want the scene, bad.obj and the old output", len(entries))
			}
		})
	}
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	good := writeScene(t, dir, okScene)
	code, stdout, stderr := runCLI("validate", good, cornell)
	if code != 0 || strings.Count(stdout, ": ok") != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Under adaptive sampling it says the range of samples a pixel takes.
	adaptive := filepath.Join(dir, "adaptive.json")
	os.WriteFile(adaptive, []byte(strings.Replace(okScene, `"samples": 1}`, `"samples": 100, "noise_threshold": 0.01}`, 1)), 0o644)
	code, stdout, stderr = runCLI("validate", adaptive, good)
	if code != 0 || !strings.Contains(stdout, "adaptive.json: ok (8×8, 89 to 100 samples (noise threshold 0.01), ") ||
		!strings.Contains(stdout, "ok (8×8, 1 samples, ") {
		t.Errorf("adaptive: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 2}`), 0o644)
	code, _, stderr = runCLI("validate", good, bad)
	if code != 2 || !strings.Contains(stderr, "bad.json") || !strings.Contains(stderr, "version") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	if code, stdout, _ := runCLI("version"); code != 0 || !strings.HasPrefix(stdout, "trace ") || !strings.HasSuffix(stdout, fmt.Sprintf(", pixel version %d\n", tracer.PixelVersion)) {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
	if code, _, stderr := runCLI("render", "--help"); code != 0 || !strings.Contains(stderr, "--threads") {
		t.Errorf("render --help: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCLI("frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
}

// TestInterrupt runs the real binary, interrupts a long render and checks
// that it stops promptly, exits 130 and leaves no file behind.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the trace binary; skipped in -short mode")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "trace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out.png")
	cmd := exec.Command(bin, "render", cornell, "-o", out, "--samples", "4096")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to stop after SIGINT", d)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130; stderr %q", err, stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v, want only the binary", names)
	}
}

// TestInterruptWhileLoading: a signal while the scene loads (before the
// render can be cancelled) ends the command with the interrupted line and
// status 130, not with the signal's default death. The test signals its
// own process from inside the load, with the process's exit replaced.
func TestInterruptWhileLoading(t *testing.T) {
	exited := make(chan int, 1)
	exitProcess = func(code int) { exited <- code }
	loadHook = func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Error(err)
		}
		select {
		case <-exited:
			exited <- exitInterrupted
		case <-time.After(10 * time.Second):
			t.Error("no exit 10 s after SIGTERM")
		}
	}
	defer func() { exitProcess, loadHook = os.Exit, nil }()
	out := filepath.Join(t.TempDir(), "out.png")
	code, _, stderr := runCLI("render", cornell, "-o", out, "--width", "8", "--height", "8", "--samples", "1")
	if code != exitInterrupted || len(exited) != 1 || <-exited != exitInterrupted {
		t.Errorf("exit %d, want %d from the signal; stderr %q", code, exitInterrupted, stderr)
	}
	if n := strings.Count(stderr, "interrupted; no image written"); n != 1 {
		t.Errorf("stderr says it was interrupted %d times, want once: %q", n, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want no file", out, err)
	}
}

// TestBenchJSON runs the ray workloads on a user's mesh and checks the
// JSON lines.
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("traces two million rays; skipped in -short mode")
	}
	code, stdout, stderr := runCLI("bench", "--json", "--threads", "1", "--mesh", knotPath, "--gallery", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (build, primary rays, primary packets, random):\n%s", len(lines), stdout)
	}
	for i, want := range []string{`"workload":"bvh build, `, `"workload":"primary rays 1024²`, `"workload":"primary packets 1024²`, `"workload":"random rays, `} {
		if !strings.Contains(lines[i], want) || !strings.Contains(lines[i], `"threads":`) {
			t.Errorf("line %d: %s, want %s", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], `"rays":1048576`) || !strings.Contains(lines[1], `"rays_per_second_per_thread":`) {
		t.Errorf("primary line lacks its counts: %s", lines[1])
	}
	if code, _, stderr := runCLI("bench", "--mesh", "/nonexistent.obj"); code != 2 || !strings.Contains(stderr, "nonexistent.obj") {
		t.Errorf("missing mesh: exit %d, %q", code, stderr)
	}
	// --gpus: the user's error where there is no CUDA (this build) or
	// no device, before any workload runs.
	if code, stdout, stderr := runCLI("bench", "--gpus", "1", "--mesh", knotPath, "--gallery", "../../scenes/examples"); code != 2 || !strings.Contains(stderr, "--gpus 1: ") ||
		!strings.Contains(stderr, "CUDA") || stdout != "" {
		t.Errorf("--gpus 1 without a GPU: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr := runCLI("bench", "--gpus", "1", "--gallery", ""); code != 2 || !strings.Contains(stderr, "give --gallery a folder") {
		t.Errorf("--gpus 1 without a gallery: exit %d, %q", code, stderr)
	}
}

// TestProcsForGPUs: with GPUs beside CPU threads, GOMAXPROCS makes room
// for each GPU's goroutine; not without CPU threads or GPUs, nor when the
// GOMAXPROCS variable sets it.
func TestProcsForGPUs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	t.Setenv("GOMAXPROCS", "")
	for _, c := range []struct{ procs, threads, gpus, want int }{
		{4, 4, 1, 5},
		{4, 4, 2, 6},
		{8, 4, 1, 8}, // room already
		{4, 0, 1, 4}, // the GPUs alone
		{4, 4, 0, 4}, // no GPU
	} {
		runtime.GOMAXPROCS(c.procs)
		procsForGPUs(c.threads, c.gpus)
		if got := runtime.GOMAXPROCS(0); got != c.want {
			t.Errorf("GOMAXPROCS %d, %d threads, %d GPUs: %d, want %d", c.procs, c.threads, c.gpus, got, c.want)
		}
	}
	t.Setenv("GOMAXPROCS", "4")
	runtime.GOMAXPROCS(4)
	if procsForGPUs(4, 1); runtime.GOMAXPROCS(0) != 4 {
		t.Errorf("GOMAXPROCS=4 in the environment: GOMAXPROCS %d, want 4 as set", runtime.GOMAXPROCS(0))
	}
}

// TestRaceTail: the last tiles are raced with a cluster, and with GPUs
// beside CPU threads; not by the threads alone or the GPUs alone.
func TestRaceTail(t *testing.T) {
	for _, c := range []struct {
		threads, gpus int
		remote, want  bool
	}{
		{4, 0, false, false},
		{0, 1, false, false},
		{0, 2, false, false},
		{4, 1, false, true},
		{4, 0, true, true},
		{0, 1, true, true},
	} {
		if got := raceTail(c.threads, c.gpus, c.remote); got != c.want {
			t.Errorf("%d threads, %d GPUs, remote %v: %v, want %v", c.threads, c.gpus, c.remote, got, c.want)
		}
	}
}

// TestNoteSlowOpen: opening GPUs that takes long is explained while it
// waits, then timed; a quick one says nothing; a failed one is not called
// ready.
func TestNoteSlowOpen(t *testing.T) {
	for _, c := range []struct {
		wait  time.Duration
		fail  bool
		notes []string
	}{
		{0, false, nil},
		{300 * time.Millisecond, false, []string{"opening 2 GPU(s): the first time, the driver compiles the GPU kernel", "2 GPU(s) ready after "}},
		{300 * time.Millisecond, true, []string{"opening 2 GPU(s): "}},
	} {
		var notes []string
		open := func(n int) ([]kernels.Device, error) {
			time.Sleep(c.wait)
			if c.fail {
				return nil, errors.New("no")
			}
			return nil, nil
		}
		slow := 20 * time.Millisecond
		if c.wait == 0 {
			slow = time.Hour
		}
		_, err := noteSlowOpen(2, open, func(m string) { notes = append(notes, m) }, slow)
		if (err != nil) != c.fail || len(notes) != len(c.notes) {
			t.Errorf("open taking %v (fail %v): error %v, notes %q, want %q", c.wait, c.fail, err, notes, c.notes)
			continue
		}
		for i, want := range c.notes {
			if !strings.HasPrefix(notes[i], want) {
				t.Errorf("open taking %v: note %q, want %q…", c.wait, notes[i], want)
			}
		}
	}
}
