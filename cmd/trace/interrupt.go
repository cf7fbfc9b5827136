package main

import (
	"context"
	"os"
	"sync/atomic"
	"time"
)

// loadGuard ends a command that is interrupted before it can stop by
// itself: while trace render loads its scene, which reads files and
// does not watch for cancellation, Ctrl-C or SIGTERM prints the line an
// interrupted render prints and exits with status 130 at once (nothing
// has been written yet). Without it the signal's default action would
// kill the process without a word, with status 143 for SIGTERM.
type loadGuard struct {
	state  atomic.Int32  // guardLoading, then guardDone or guardExiting
	exited chan struct{} // closed once guardExiting's report and exit returned (in tests)
}

const (
	guardLoading int32 = iota
	guardDone
	guardExiting
)

// exitProcess is os.Exit; loadHook, when set, runs as the render starts
// loading its scene. Tests set both.
var (
	exitProcess = os.Exit
	loadHook    func()
)

// exitOnInterrupt watches ctx, which a signal cancels, until done is
// called.
func exitOnInterrupt(ctx context.Context, con *console) *loadGuard {
	g := &loadGuard{exited: make(chan struct{})}
	go func() {
		<-ctx.Done() // a signal, or the command's end
		if g.state.CompareAndSwap(guardLoading, guardExiting) {
			con.reported(errInterrupted)
			exitProcess(exitInterrupted)
			close(g.exited)
		}
	}()
	return g
}

// done ends the watch. It reports false when a signal came first: the
// process is exiting, and done waits for that (for ever, but in tests),
// so that the command cannot return, and main exit, before the
// interrupted line is written; but not longer than guardWait, so that a
// stderr that nobody reads (a full pipe) cannot hang the command: it
// then exits with 130 all the same, without the line.
func (g *loadGuard) done() bool {
	if g.state.CompareAndSwap(guardLoading, guardDone) {
		return true
	}
	select {
	case <-g.exited:
	case <-time.After(guardWait):
	}
	return false
}

// guardWait is the longest done waits for the guard's report.
var guardWait = 5 * time.Second
