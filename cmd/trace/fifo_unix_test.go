//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptWaitingForReader: a render whose output is a named pipe
// that no reader opens waits for one after the frame is done; SIGINT ends
// that wait as it ends a render (exit 130), and the pipe stays a pipe.
func TestInterruptWaitingForReader(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the trace binary; skipped in -short mode")
	}
	bin := buildTrace(t)
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	cmd := exec.Command(bin, "render", cornell, "-o", fifo, "--format", "png", "--width", "8", "--height", "8", "--samples", "1")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The frame is done in 1.5 s; the write waits for a reader.
	signalAfter(t, cmd, &stderr, 1500*time.Millisecond, syscall.SIGINT)
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q does not say it was interrupted", stderr.String())
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v", err)
	}
}

// TestInterruptStdoutNotRead: with -o - into a pipe whose reader never
// reads, the image outgrows the pipe's buffer and the write blocks;
// SIGTERM still ends the render, with exit status 130.
func TestInterruptStdoutNotRead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the trace binary; skipped in -short mode")
	}
	bin := buildTrace(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A PFM of 256×256 is 768 KiB, more than a pipe holds.
	cmd := exec.Command(bin, "render", cornell, "-o", "-", "--format", "pfm", "--width", "256", "--height", "256", "--samples", "1", "-q")
	cmd.Stdout = w
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The frame is done in 3 s; the write waits for the reader.
	signalAfter(t, cmd, &stderr, 3*time.Second, syscall.SIGTERM)
}

// signalAfter sends sig to the started cmd after wait and checks that it
// then exits with status 130 within 10 s.
func signalAfter(t *testing.T, cmd *exec.Cmd, stderr *lockedBuffer, wait time.Duration, sig os.Signal) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	time.Sleep(wait)
	cmd.Process.Signal(sig)
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want 130; stderr %q", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running 10 s after %v; stderr %q", sig, stderr.String())
	}
}
