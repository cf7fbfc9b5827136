//go:build e2e

// Package e2e runs trace for real on what users run it on when one machine
// is not enough: a one-node Slurm cluster that deploy/slurm/trace.sbatch is
// submitted to (slurm_test.go), and podman containers of the FROM-scratch
// image, brought up from the Kubernetes manifests (podman_test.go). Each
// test compares the PNG with a local render, byte for byte.
//
// They need root and daemons, so they are not part of `go test ./...`
// (build tag e2e) but of CI: deploy/e2e/run.sh installs Debian's packages
// and runs them. Without root, or without the packages, they skip and say
// why. Every daemon and container a test starts is stopped by its PID or
// ID, and the test fails if any process, mount or container of its own is
// left behind.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// root is the repository's root, where the Go module of trace lives.
var root = func() string {
	r, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return r
}()

// binDir holds the trace binary the tests share; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// traceBinary returns a static trace (CGO_ENABLED=0, as the image holds),
// built once for all the tests, or $TRACE_BIN when set.
func traceBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if b := os.Getenv("TRACE_BIN"); b != "" {
			buildBin, buildErr = filepath.Abs(b)
			return
		}
		if binDir, buildErr = os.MkdirTemp("", "trace-e2e-bin-"); buildErr != nil {
			return
		}
		// 0755: the munge and container users must be able to reach it.
		os.Chmod(binDir, 0o755)
		buildBin = filepath.Join(binDir, "trace")
		start := time.Now()
		// The flags of the Dockerfile's build stage and of build.sh.
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w", "-o", buildBin, "./cmd/trace")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/trace: %v\n%s", err, out)
			return
		}
		fmt.Printf("e2e: built %s (CGO_ENABLED=0) in %.1fs\n", buildBin, time.Since(start).Seconds())
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// needRoot skips the test unless it runs as root.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: needs root (daemons, container storage, other users' processes); run deploy/e2e/run.sh as root")
	}
}

// need returns the paths of the commands, looked up in PATH and the sbin
// folders (a non-login root shell may lack them), or skips the test naming
// the missing ones.
func need(t *testing.T, names ...string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	var missing []string
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			for _, d := range []string{"/usr/sbin", "/sbin", "/usr/bin"} {
				if st, err := os.Stat(filepath.Join(d, n)); err == nil && st.Mode().IsRegular() {
					p = filepath.Join(d, n)
					break
				}
			}
		}
		if p == "" {
			missing = append(missing, n)
			continue
		}
		paths[n] = p
	}
	if len(missing) > 0 {
		t.Skipf("skipped: %s not installed (deploy/e2e/run.sh installs them with apt-get)", strings.Join(missing, ", "))
	}
	return paths
}

// workDir makes a fresh folder that other users can traverse (munged runs
// as munge, containers as 65532) and removes it at the end, after the
// leftover check has run.
func workDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("TRACE_E2E_KEEP") != "" {
			t.Logf("kept %s (TRACE_E2E_KEEP)", dir)
			return
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

// freePorts returns n consecutive TCP ports free on every interface now,
// as trace.sbatch gives a node's tasks TRACE_PORT_BASE, +1, ...
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for range 100 {
		if base := 30000 + rand.IntN(25000); portsFree(base, n) {
			return base
		}
	}
	t.Fatalf("no %d consecutive free ports", n)
	return 0
}

// portsFree reports whether ports base to base+n-1 are free on every
// interface now.
func portsFree(base, n int) bool {
	for i := range n {
		l, err := net.Listen("tcp", ":"+strconv.Itoa(base+i))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}

// daemon is a process the test started and stops by its PID.
type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

// startDaemon starts cmd with its output in dir/NAME.out, and registers its
// stop (SIGTERM, then SIGKILL after 15 s) with t.Cleanup.
func startDaemon(t *testing.T, dir, name string, cmd *exec.Cmd) *daemon {
	t.Helper()
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{}), log: filepath.Join(dir, name+".out")}
	f, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	f.Close()
	go func() { cmd.Wait(); close(d.done) }()
	t.Cleanup(func() { d.stop(t) })
	return d
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

func (d *daemon) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

func (d *daemon) stop(t *testing.T) {
	if d.exited() {
		return
	}
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(15 * time.Second):
		t.Errorf("%s (PID %d) ignored SIGTERM for 15 s: killed", d.name, d.pid())
		d.cmd.Process.Kill()
		<-d.done
	}
}

// tail returns the last lines of a log, for failure messages.
func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	l := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// run runs a command to its end and returns its combined output.
func run(ctx context.Context, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	return b.String(), err
}

// must is run that fails the test on an error.
func must(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := run(ctx, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// environ is the test's environment less the TRACE_ settings a developer
// may have exported, so that only what a test sets reaches trace.
func environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TRACE_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// renderLocal renders the scene on this machine's cores, the reference the
// distributed renders must match byte for byte.
func renderLocal(t *testing.T, bin, scene, out string, flags ...string) []byte {
	t.Helper()
	start := time.Now()
	must(t, environ(), bin, append([]string{"render", scene, "-o", out, "-q"}, flags...)...)
	t.Logf("local render %s in %.2fs", filepath.Base(out), time.Since(start).Seconds())
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// samePNG fails unless the file holds exactly want.
func samePNG(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the render's output: %v", err)
	}
	if bytes.Equal(got, want) {
		t.Logf("%s: %d bytes, identical to the local render", filepath.Base(path), len(got))
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s differs from the local render: %d bytes against %d, first difference at byte %d", path, len(got), len(want), i)
}

// checkLeftovers fails the test for any process still running that is
// its own — one of pids, one running the trace binary the tests built, or
// one whose command line or working folder is under dir — and for any
// mount under dir, and kills such processes by PID so that a failing test
// still leaves the machine clean.
func checkLeftovers(t *testing.T, dir string, pids []int) {
	t.Helper()
	bin := ""
	if binDir != "" {
		bin = buildBin // never a $TRACE_BIN that others may be running
	}
	own := map[int]bool{}
	for _, p := range pids {
		own[p] = true
	}
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // gone
		}
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // a zombie holds nothing
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if own[pid] || bin != "" && exe == bin || bytes.Contains(cmdline, []byte(dir)) ||
			cwd == dir || strings.HasPrefix(cwd, dir+"/") {
			t.Errorf("left running: PID %d %s (killed now)", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	for line := range strings.Lines(string(mounts)) {
		if strings.Contains(line, dir) {
			t.Errorf("left mounted: %s", strings.TrimSpace(line))
		}
	}
}
