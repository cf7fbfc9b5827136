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

// TestRenderSceneNotRegular: a scene file or mesh that is a named pipe is
// refused at once (exit 2, the file named), not waited on.
func TestRenderSceneNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	meshFifo := filepath.Join(dir, "pipe.obj")
	if err := syscall.Mkfifo(meshFifo, 0o600); err != nil {
		t.Fatal(err)
	}
	scene := writeScene(t, dir, strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`,
		`{"type": "mesh", "file": "pipe.obj", "material": "white"}`, 1))
	for _, tc := range []struct{ cmd, scene, want string }{
		{"render", fifo, "pipe.json: not a regular file (a named pipe)"},
		{"validate", fifo, "pipe.json: not a regular file (a named pipe)"},
		{"render", scene, `objects[0].file: "pipe.obj": not a regular file (a named pipe)`},
	} {
		type result struct {
			code   int
			stderr string
		}
		done := make(chan result, 1)
		go func() {
			code, _, stderr := runCLI(tc.cmd, tc.scene, "-o", filepath.Join(dir, "out.png"), "-q")
			if tc.cmd == "validate" {
				code, _, stderr = runCLI(tc.cmd, tc.scene)
			}
			done <- result{code, stderr}
		}()
		select {
		case r := <-done:
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%s %s: exit %d, %q; want 2 and %q", tc.cmd, tc.scene, r.code, r.stderr, tc.want)
			}
		case <-time.After(10 * time.Second):
			for _, p := range []string{fifo, meshFifo} { // release the reader
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
			t.Fatalf("%s %s: blocked on the named pipe", tc.cmd, tc.scene)
		}
	}
}
