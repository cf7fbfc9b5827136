package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A bad --metrics address is a usage error, found before anything listens.
func TestWorkerMetricsFlag(t *testing.T) {
	code, _, stderr := runCLI("worker", "--listen", "127.0.0.1:0", "--metrics", "nonsense")
	if code != exitUsage || !strings.Contains(stderr, "--metrics") {
		t.Errorf("--metrics nonsense: exit %d, %q; want %d naming --metrics", code, stderr, exitUsage)
	}
}

// `trace worker --metrics` serves the worker's metrics, with the Go
// runtime's and the process's, and stops serving them when it drains.
func TestWorkerMetricsServed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a worker process; skipped in -short mode")
	}
	bin := buildTrace(t)
	w := startWorker(t, []string{bin, "worker", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--threads", "3"})
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(w.log.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "trace worker: metrics on "); ok {
				url = strings.TrimSpace(u)
			}
		}
		if url == "" && time.Now().After(deadline) {
			t.Fatalf("no metrics address in the worker's log: %q", w.log.String())
		}
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	for _, want := range []string{"\ntrace_worker_threads 3\n", "\ntrace_worker_jobs 0\n", "\ngo_goroutines ", "\nprocess_cpu_seconds_total "} {
		if !strings.Contains(string(body), want) {
			t.Errorf("GET %s has no %q:\n%s", url, strings.TrimSpace(want), body)
		}
	}

	w.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- w.wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("worker after SIGTERM: %v; log %q", err, w.log.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not exit within 10 s of SIGTERM")
	}
	if _, err := client.Get(url); err == nil {
		t.Errorf("GET %s still answers after the worker drained", url)
	}
}

// `trace worker --metrics :PORT` serves on loopback only, as `trace
// render --serve :PORT` does.
func TestWorkerMetricsLoopbackByDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a worker process; skipped in -short mode")
	}
	bin := buildTrace(t)
	w := startWorker(t, []string{bin, "worker", "--listen", "127.0.0.1:0", "--metrics", ":0", "--threads", "1"})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(w.log.String(), "\n") {
			if u, ok := strings.CutPrefix(line, "trace worker: metrics on "); ok {
				if !strings.HasPrefix(u, "http://127.0.0.1:") {
					t.Errorf("--metrics :0 serves at %s, want loopback (http://127.0.0.1:…)", u)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics address in the worker's log: %q", w.log.String())
		}
	}
}

// With --log-format json every line a worker prints is a JSON record,
// where it listens too (with its address as a field, for scripts), at any
// --log-level.
func TestWorkerJSONLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a worker process; skipped in -short mode")
	}
	bin := buildTrace(t)
	cmd := exec.Command(bin, "worker", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--threads", "1",
		"--log-format", "json", "--log-level", "error")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), "/metrics"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the worker printed no metrics address: %q", stderr.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("worker after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the worker did not exit within 10 s of SIGTERM")
	}
	addr := ""
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON record: %q", line)
			continue
		}
		if a, ok := rec["addr"].(string); ok {
			addr = a
		}
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("no record gave the address listened on: %q", stderr.String())
	}
}
