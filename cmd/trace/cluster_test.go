package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildTrace builds the trace binary into a test's folder.
func buildTrace(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "trace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer collects a process's output while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// workerProc is a running `trace worker`.
type workerProc struct {
	cmd  *exec.Cmd
	addr string
	log  *lockedBuffer
	read chan struct{} // closed when the log has been read to its end
}

// wait waits for the worker to exit, after its log has been read to the
// end: Wait closes the log's pipe, so waiting first could lose the last
// lines.
func (w *workerProc) wait() error {
	<-w.read
	return w.cmd.Wait()
}

// startWorker starts `trace worker` with args (the command line may start
// with a wrapper such as `ip netns exec NS`) and waits for its address.
func startWorker(t *testing.T, argv []string) *workerProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd: cmd, log: &lockedBuffer{}, read: make(chan struct{})}
	t.Cleanup(func() {
		cmd.Process.Kill()
		w.wait()
	})
	lines := bufio.NewReader(stderr)
	addrc := make(chan string, 1)
	go func() {
		defer close(w.read)
		for {
			line, err := lines.ReadString('\n')
			w.log.Write([]byte(line))
			if a, ok := strings.CutPrefix(line, "trace worker: listening on "); ok {
				addrc <- strings.Fields(a)[0]
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case w.addr = <-addrc:
	case <-time.After(20 * time.Second):
		t.Fatalf("%v did not start: %s", argv, w.log.String())
	}
	return w
}

// renderArgs is the scene and size of the cluster tests: long enough
// (a few seconds) to kill a worker in the middle.
func renderArgs(out string) []string {
	return []string{"render", cornell, "-o", out, "--width", "96", "--height", "96", "--samples", "96", "--tile", "16", "-q"}
}

// TestWorkersProcesses renders with three `trace worker` processes on
// loopback: the PNG is byte-identical to a local render, and again when
// one worker is killed (SIGKILL) mid-render.
func TestWorkersProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and renders with worker processes for several seconds; skipped in -short mode")
	}
	bin := buildTrace(t)
	dir := t.TempDir()
	local := filepath.Join(dir, "local.png")
	if out, err := exec.Command(bin, append(renderArgs(local), "--threads", "2")...).CombinedOutput(); err != nil {
		t.Fatalf("local render: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(local)

	var workers []*workerProc
	var addrs []string
	for range 3 {
		w := startWorker(t, []string{bin, "worker", "--listen", "127.0.0.1:0", "--threads", "1"})
		workers = append(workers, w)
		addrs = append(addrs, w.addr)
	}
	list := strings.Join(addrs, ",")

	remote := filepath.Join(dir, "remote.png")
	if out, err := exec.Command(bin, append(renderArgs(remote), "--threads", "0", "--workers", list)...).CombinedOutput(); err != nil {
		t.Fatalf("render --workers: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(remote); !bytes.Equal(got, want) {
		t.Fatal("the render on three workers differs from the local render")
	}

	killed := filepath.Join(dir, "killed.png")
	cmd := exec.Command(bin, append(renderArgs(killed), "--threads", "0", "--workers", list)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once it has opened this render's job (its second): a fixed
	// sleep lost the race to the render on a fast machine.
	for deadline := time.Now().Add(20 * time.Second); strings.Count(workers[1].log.String(), "job opened") < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("worker %s opened no job for the second render: %s", addrs[1], workers[1].log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	workers[1].cmd.Process.Signal(syscall.SIGKILL)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("render with a worker killed: %v\n%s", err, stderr.String())
	}
	if got, _ := os.ReadFile(killed); !bytes.Equal(got, want) {
		t.Fatal("the render with a killed worker differs from the local render")
	}
	if !strings.Contains(stderr.String(), addrs[1]) {
		t.Errorf("the killed worker %s is not named in the render's warnings: %q", addrs[1], stderr.String())
	}

	// SIGTERM drains a worker: it exits 0, saying so.
	w := workers[0]
	w.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- w.wait() }()
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(w.log.String(), "draining") {
			t.Errorf("worker after SIGTERM: %v; log %q", err, w.log.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the worker did not exit within 10 s of SIGTERM")
	}
}

// TestWorkerFlags: the refusal to serve the network without protection,
// and other flag errors.
func TestWorkerFlags(t *testing.T) {
	code, _, stderr := runCLI("worker", "--listen", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(stderr, "--token") {
		t.Errorf("worker on 0.0.0.0 without a token: exit %d, %q; want 2 and a message about --token", code, stderr)
	}
	code, _, stderr = runCLI("worker", "--gpus", "1")
	if code != exitUsage || !strings.Contains(stderr, "CUDA") {
		t.Errorf("worker --gpus: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI("render", cornell, "-o", filepath.Join(t.TempDir(), "x.png"), "--workers", "nocolon")
	if code != exitUsage || !strings.Contains(stderr, "host:port") {
		t.Errorf("--workers nocolon: exit %d, %q", code, stderr)
	}
}

// TestWorkersNetns runs the workers in network namespaces of their own,
// joined to this one by veth pairs (separate hosts on one machine), and
// cuts one link mid-render: the PNG is still identical. It needs root.
func TestWorkersNetns(t *testing.T) {
	if testing.Short() {
		t.Skip("renders across network namespaces for several seconds; skipped in -short mode")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("network namespaces need the ip command (iproute2)")
	}
	bin := buildTrace(t)
	dir := t.TempDir()
	local := filepath.Join(dir, "local.png")
	if out, err := exec.Command(bin, append(renderArgs(local), "--threads", "2")...).CombinedOutput(); err != nil {
		t.Fatalf("local render: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(local)

	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	id := os.Getpid() % 200
	var addrs []string
	var hostLinks []string
	for i := 1; i <= 2; i++ {
		ns := fmt.Sprintf("trace-test-%d-%d", os.Getpid(), i)
		host, peer := fmt.Sprintf("trv%d-%d", id, i), fmt.Sprintf("trp%d-%d", id, i)
		subnet := fmt.Sprintf("10.%d.%d", 200+i, id)
		ip("netns", "add", ns)
		t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
		ip("link", "add", host, "type", "veth", "peer", "name", peer)
		t.Cleanup(func() { exec.Command("ip", "link", "del", host).Run() })
		ip("link", "set", peer, "netns", ns)
		ip("addr", "add", subnet+".1/24", "dev", host)
		ip("link", "set", host, "up")
		ip("-n", ns, "addr", "add", subnet+".2/24", "dev", peer)
		ip("-n", ns, "link", "set", peer, "up")
		ip("-n", ns, "link", "set", "lo", "up")
		w := startWorker(t, []string{"ip", "netns", "exec", ns, bin, "worker", "--listen", subnet + ".2:7000", "--threads", "1", "--insecure"})
		addrs = append(addrs, w.addr)
		hostLinks = append(hostLinks, host)
	}
	out := filepath.Join(dir, "netns.png")
	cmd := exec.Command(bin, append(renderArgs(out), "--threads", "1", "--workers", strings.Join(addrs, ","))...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	ip("link", "set", hostLinks[0], "down") // the cable is pulled: no reset, no FIN
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("render across namespaces: %v\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the render did not finish after a link was cut: %s", stderr.String())
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Fatal("the render across namespaces differs from the local render")
	}
}
