//go:build cuda

package kernels

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestGPUStopWord: stopLaunches sets the uploaded header's Stop word on
// the device, which ends the megakernel's threads before their first
// sample (no ray traced), and a batch after a cancelled one clears it
// (clearStop): the same bits as before.
func TestGPUStopWord(t *testing.T) {
	d := openDevice(t)
	defer d.Close()
	d.choice = KernelMegakernel // whatever TRACE_GPU_KERNEL says
	p, pixels := laneScene(t)
	ctx := context.Background()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	want, wantCounts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	// The word set, as a cancel sets it, but not marked to be cleared.
	d.do(ctx, func() error { d.stopLaunches(); return nil })
	_, counts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range counts[:len(pixels)/2] {
		if r != 0 {
			t.Fatalf("Stop set: pixel %d traced %d rays, want none", i, r)
		}
	}
	d.do(ctx, func() error { d.stopSet = true; return nil })
	got, counts, err := trace(ctx, d, pixels)
	if err != nil || !sameBits(got, want) || !equalCounts(counts, wantCounts) {
		t.Errorf("after the Stop word was cleared: %v, or different bits or counts", err)
	}
}

// TestGPUMegakernelCancel: a render cancelled during a megakernel batch
// that would run for hours (4M samples a pixel) returns context.Canceled
// soon after, and the device renders the next scene's batch right and
// holds nothing more than before.
func TestGPUMegakernelCancel(t *testing.T) {
	d := openDevice(t)
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	d.choice = KernelMegakernel
	p, pixels := laneScene(t)
	ctx := context.Background()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	want, wantCounts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	var base stubLive
	stub := strings.Contains(d.Name(), "cudastub")
	if stub {
		base = live(t, d)
	}
	long := *p
	long.Scene.Samples = 1 << 22
	if err := d.Upload(ctx, &long); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, _, err := trace(cctx, d, pixels)
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond) // the batch is running
	cancel()
	start := time.Now()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled batch: error %v, want context.Canceled", err)
		}
		t.Logf("the cancelled batch returned %v after the cancel", time.Since(start))
	case <-time.After(2 * time.Minute):
		closed = true // Close would wait for the batch
		t.Fatal("a cancelled megakernel batch still ran 2 minutes later")
	}
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, counts, err := trace(ctx, d, pixels)
	if err != nil || !sameBits(got, want) || !equalCounts(counts, wantCounts) {
		t.Errorf("the batch after the cancelled one: %v, or different bits or counts", err)
	}
	if stub {
		if now := live(t, d); now != base {
			t.Errorf("live after the cancel %+v, want %+v as before", now, base)
		}
	}
}
