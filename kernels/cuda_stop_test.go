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
// sample, so that they write no pixel (the lanes' buffers keep the last
// batch's), and a batch after a cancelled one clears it (clearStop): the
// pixels it renders, right.
func TestGPUStopWord(t *testing.T) {
	d := openDevice(t)
	defer d.Close()
	d.choice = KernelMegakernel // whatever TRACE_GPU_KERNEL says
	p, pixels := laneScene(t)
	rev := make([]uint32, len(pixels)) // the pixels backwards
	for i := 0; i < len(pixels); i += 2 {
		j := len(pixels) - 2 - i
		rev[i], rev[i+1] = pixels[j], pixels[j+1]
	}
	ctx := context.Background()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	wantRev, wantRevCounts, err := trace(ctx, d, rev)
	if err != nil {
		t.Fatal(err)
	}
	want, wantCounts, err := trace(ctx, d, pixels)
	if err != nil {
		t.Fatal(err)
	}
	if sameBits(want, wantRev) {
		t.Fatal("the pixels backwards render the same bits: the test cannot tell them apart")
	}
	// The word set, as a cancel sets it, but not marked to be cleared.
	d.do(ctx, func() error { d.stopLaunches(); return nil })
	got, counts, err := trace(ctx, d, rev)
	if err != nil || !sameBits(got, want) || !equalCounts(counts, wantCounts) {
		t.Errorf("Stop set: %v, or pixels written (want the last batch's, left in the buffers)", err)
	}
	d.do(ctx, func() error { d.stopSet = true; return nil })
	got, counts, err = trace(ctx, d, rev)
	if err != nil || !sameBits(got, wantRev) || !equalCounts(counts, wantRevCounts) {
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
