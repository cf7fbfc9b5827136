package main

import (
	"bytes"
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

// gateWriter holds its first Write until release is closed, having
// closed started.
type gateWriter struct {
	started, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	buf              bytes.Buffer
}

func (w *gateWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.started); <-w.release })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *gateWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestLoadGuardWaitsForItsExit: when a signal wins the race with the end
// of the load, done does not return (to the command, which returns to
// main, whose os.Exit ends the process) while the guard is still
// writing "interrupted; no image written": the line is written, and the
// guard's exit called, before done reports false.
func TestLoadGuardWaitsForItsExit(t *testing.T) {
	exited := make(chan int, 1)
	exitProcess = func(code int) { exited <- code }
	defer func() { exitProcess = os.Exit }()
	w := &gateWriter{started: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := exitOnInterrupt(ctx, newConsole(w, false, false))
	cancel()    // the signal
	<-w.started // the guard has won and writes its line
	returned := make(chan bool, 1)
	go func() { returned <- g.done() }()
	var ok bool
	select {
	case ok = <-returned:
		t.Error("done returned while the guard was still writing the interrupted line")
		close(w.release)
		time.Sleep(100 * time.Millisecond) // the line, written after all
	case <-time.After(100 * time.Millisecond): // done waits, as it should
		close(w.release)
		ok = <-returned
	}
	if ok {
		t.Error("done reported the load finished first; the signal came first")
	}
	if got := w.String(); got != "trace: interrupted; no image written\n" {
		t.Errorf("stderr %q when done returned, want the interrupted line", got)
	}
	select {
	case code := <-exited:
		if code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
	default:
		t.Error("done returned before the guard's exit")
	}
}

// TestLoadGuardStderrBlocked: a guard whose stderr never takes its line
// (a pipe nobody reads) holds done only guardWait: the command then
// returns, and exits with 130 without the line, rather than hang.
func TestLoadGuardStderrBlocked(t *testing.T) {
	exitProcess = func(int) {}
	guardWait = 50 * time.Millisecond
	defer func() { exitProcess, guardWait = os.Exit, 5*time.Second }()
	w := &gateWriter{started: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	g := exitOnInterrupt(ctx, newConsole(w, false, false))
	cancel()
	<-w.started
	returned := make(chan bool, 1)
	go func() { returned <- g.done() }()
	select {
	case ok := <-returned:
		if ok {
			t.Error("done reported the load finished first; the signal came first")
		}
	case <-time.After(10 * time.Second):
		t.Error("done still waits 10 s after the signal, its stderr blocked")
	}
	close(w.release) // let the guard finish before exitProcess is restored
	<-g.exited
}
