package emulator

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// The parity tests (parity_test.go) run scenes of both integrators on the
// wavefront, the emulator's default; the tests here check the wavefront's
// ABI and that the megakernel, which runs the same state machines with
// their queries answered inline, still gives the same bits.

// TestWavefrontABI: the slot size, query kinds and queue size Go knows
// are the C's.
func TestWavefrontABI(t *testing.T) {
	for i := tracer.Integrator(0); i < tracer.NumIntegrators; i++ {
		if got, want := SlotBytes(i), kernels.SlotBytes(uint32(i)); got != want {
			t.Errorf("integrator %d: slot_bytes = %d, kernels.SlotBytes = %d", i, got, want)
		}
	}
	if kernels.SlotBytes(uint32(tracer.IntegratorPath)) >= kernels.SlotBytes(uint32(tracer.IntegratorWhitted)) {
		t.Errorf("a path scene's slot (%d B) is not smaller than a Whitted scene's (%d B)",
			kernels.SlotBytes(uint32(tracer.IntegratorPath)), kernels.SlotBytes(uint32(tracer.IntegratorWhitted)))
	}
	closest, anyHit := QueryKinds()
	if closest != kernels.WaveClosest || anyHit != kernels.WaveAny {
		t.Errorf("QueryClosest, QueryAny = %d, %d; kernels.WaveClosest, WaveAny = %d, %d",
			closest, anyHit, kernels.WaveClosest, kernels.WaveAny)
	}
	for _, n := range []int{0, 1, 128, 540672} {
		if got, want := QueueWords(n), kernels.QueueWords(n); got != want {
			t.Errorf("WAVE_QUEUE_WORDS(%d) = %d, kernels.QueueWords = %d", n, got, want)
		}
	}
}

// TestMegakernelParity renders every gallery scene and the random scenes
// of both integrators with the megakernel (trace_pixels) against the Go
// tracer, bit for bit, ray counts included.
func TestMegakernelParity(t *testing.T) {
	seen := map[tracer.Integrator]int{}
	for _, g := range gallery(t) {
		name := g.name
		d, err := scenes.Load(g.file)
		if err != nil {
			t.Fatal(err)
		}
		seen[d.Settings.Integrator]++
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d.Settings.Width, d.Settings.Height, d.Settings.Samples = 24, 16, 3
			s, err := tracer.Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			checkParityWith(t, name, s, kernels.KernelMegakernel)
		})
	}
	if seen[tracer.IntegratorPath] == 0 || seen[tracer.IntegratorWhitted] == 0 {
		t.Fatalf("gallery scenes by integrator %v: want both", seen)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		for _, integ := range []tracer.Integrator{tracer.IntegratorPath, tracer.IntegratorWhitted} {
			name := fmt.Sprintf("seed%d-%s", seed, map[tracer.Integrator]string{0: "path", 1: "whitted"}[integ])
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s, err := tracer.Compile(randomScene(seed, integ))
				if err != nil {
					t.Fatal(err)
				}
				checkParityWith(t, name, s, kernels.KernelMegakernel)
			})
		}
	}
}

// TestWavefrontUnevenBatches: the wavefront's result does not depend on
// the batch: scrambled pixel lists cut into uneven batches, with blocks of
// odd sizes, give each pixel the bits and counts of one whole launch.
func TestWavefrontUnevenBatches(t *testing.T) {
	s, err := tracer.Compile(randomScene(3, tracer.IntegratorPath))
	if err != nil {
		t.Fatal(err)
	}
	want, wantRays, wantNonFinite := emulate(t, s)
	p, err := kernels.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	w, h := s.Settings.Width, s.Settings.Height
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
	n := len(pixels) / 2
	perm := rand.New(rand.NewPCG(7, 9)).Perm(n)
	scrambled := make([]uint32, 0, len(pixels))
	for _, i := range perm {
		scrambled = append(scrambled, pixels[2*i], pixels[2*i+1])
	}
	ctx := context.Background()
	d := &Device{BlockDim: 7, Workers: 3}
	defer d.Close()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	out, rays, nonfinite := make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
	for lo, size := 0, 1; lo < n; lo, size = lo+size, size*3+1 {
		hi := min(n, lo+size)
		if err := d.TracePixels(ctx, scrambled[2*lo:2*hi], out[3*lo:3*hi], rays[lo:hi], nonfinite[lo:hi]); err != nil {
			t.Fatal(err)
		}
	}
	for k, i := range perm {
		for c := 0; c < 3; c++ {
			if math.Float32bits(out[3*k+c]) != math.Float32bits(want.Pix[3*i+c]) {
				t.Fatalf("pixel (%d, %d) channel %d: %g in uneven batches, %g in one", i%w, i/w, c, out[3*k+c], want.Pix[3*i+c])
			}
		}
		if rays[k] != wantRays[i] || nonfinite[k] != wantNonFinite[i] {
			t.Fatalf("pixel (%d, %d): counts %d, %d in uneven batches, %d, %d in one", i%w, i/w, rays[k], nonfinite[k], wantRays[i], wantNonFinite[i])
		}
	}
}

// traceWith renders pixels on an emulator d with scene p, returning the
// radiance and the per-pixel counts.
func traceWith(t *testing.T, d *Device, p *kernels.Packed, pixels []uint32) ([]float32, []uint64, []uint64) {
	t.Helper()
	ctx := context.Background()
	defer d.Close()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	n := len(pixels) / 2
	out, rays, nonfinite := make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
	if err := d.TracePixels(ctx, pixels, out, rays, nonfinite); err != nil {
		t.Fatal(err)
	}
	return out, rays, nonfinite
}

// TestWavefrontLanes: a batch split into lanes whose rounds interleave
// (kernels.RunWavefronts) gives every pixel the bits of the Go tracer and
// the counts of one lane, whatever the split: even halves, uneven ones,
// an empty lane first or last, three lanes of odd sizes, and tiny
// batches, in scenes of both integrators.
func TestWavefrontLanes(t *testing.T) {
	for _, integ := range []tracer.Integrator{tracer.IntegratorPath, tracer.IntegratorWhitted} {
		s, err := tracer.Compile(randomScene(5, integ))
		if err != nil {
			t.Fatal(err)
		}
		p, err := kernels.Pack(s)
		if err != nil {
			t.Fatal(err)
		}
		w, h := s.Settings.Width, s.Settings.Height
		want := make([]float32, 3*w*h)
		var st tracer.Stats
		if err := s.RenderBlock(context.Background(), image.Rect(0, 0, w, h), want, &st); err != nil {
			t.Fatal(err)
		}
		pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
		n := w * h
		_, oneRays, oneNonFinite := traceWith(t, &Device{Lanes: 1}, p, pixels)
		var sumRays uint64
		for _, r := range oneRays {
			sumRays += r
		}
		if sumRays != st.Rays {
			t.Fatalf("integrator %d: one lane counted %d rays, Go %d", integ, sumRays, st.Rays)
		}
		fixed := func(sizes ...int) func(int) []int { return func(int) []int { return sizes } }
		for _, c := range []struct {
			name string
			d    *Device
			used []int // the split the device must have made, when not nil
		}{
			{"default", &Device{BlockDim: 5, Workers: 2}, []int{(n + 9) / 10 * 5, n - (n+9)/10*5}},
			{"halves", &Device{Lanes: 2, BlockDim: 1, Workers: 3}, []int{(n + 1) / 2, n / 2}},
			{"one and the rest", &Device{split: fixed(1, n-1)}, nil},
			{"the rest and one", &Device{split: fixed(n-1, 1)}, nil},
			{"empty first", &Device{split: fixed(0, n)}, nil},
			{"empty last", &Device{split: fixed(n, 0)}, nil},
			{"three odd lanes", &Device{BlockDim: 3, split: fixed(37, 0, n-37)}, nil},
			{"three lanes", &Device{Lanes: 3, BlockDim: 7}, nil},
		} {
			if c.used != nil {
				if got := c.d.laneSizes(n); !reflect.DeepEqual(got, c.used) {
					t.Errorf("%s: lanes of %v, want %v", c.name, got, c.used)
				}
			}
			out, rays, nonfinite := traceWith(t, c.d, p, pixels)
			checkSame(t, fmt.Sprintf("integrator %d, %s", integ, c.name), w, 0, out, want, rays, oneRays, nonfinite, oneNonFinite)
		}
		// Tiny batches, from the middle of the frame: a lane of one pixel
		// beside an empty one, two lanes of one, odd halves.
		for _, size := range []int{1, 2, 3, 5} {
			lo := n/2 - size
			out, rays, nonfinite := traceWith(t, &Device{BlockDim: 1}, p, pixels[2*lo:2*(lo+size)])
			checkSame(t, fmt.Sprintf("integrator %d, %d pixels", integ, size), w, lo,
				out, want[3*lo:3*(lo+size)], rays, oneRays[lo:lo+size], nonfinite, oneNonFinite[lo:lo+size])
		}
	}
}

// checkSame fails t unless got has want's bits and the counts theirs;
// the pixels are the frame's from index lo on, w wide.
func checkSame(t *testing.T, what string, w, lo int, got, want []float32, rays, wantRays, nonfinite, wantNonFinite []uint64) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			p := lo + i/3
			t.Errorf("%s: pixel (%d, %d) channel %d: %g, Go tracer %g", what, p%w, p/w, i%3, got[i], want[i])
			return
		}
	}
	for i := range wantRays {
		if rays[i] != wantRays[i] || nonfinite[i] != wantNonFinite[i] {
			p := lo + i
			t.Errorf("%s: pixel (%d, %d): counts %d, %d; one lane %d, %d", what, p%w, p/w, rays[i], nonfinite[i], wantRays[i], wantNonFinite[i])
			return
		}
	}
}

// TestWavefrontLaneSplitErrors: a split that does not cover the batch is
// an error, not a wrong frame.
func TestWavefrontLaneSplitErrors(t *testing.T) {
	s, err := tracer.Compile(randomScene(5, tracer.IntegratorPath))
	if err != nil {
		t.Fatal(err)
	}
	p, err := kernels.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, 4, 1))
	out, counts := make([]float32, 12), make([]uint64, 4)
	for _, sizes := range [][]int{{1, 2}, {3, 2}, {5, -1}} {
		d := &Device{split: func(int) []int { return sizes }}
		if err := d.Upload(ctx, p); err != nil {
			t.Fatal(err)
		}
		err := d.TracePixels(ctx, pixels, out, counts, counts)
		d.Close()
		if err == nil || !strings.Contains(err.Error(), "lanes") {
			t.Errorf("lanes of %v for 4 pixels: error %v", sizes, err)
		}
	}
}

// countdownCtx is a context whose Err turns context.Canceled at its
// n-th call: a cancellation at a known point of a batch.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestWavefrontLanesCancel: a context cancelled at any point of a batch
// on two lanes stops both with context.Canceled, leaves no lane's
// goroutine behind, and the next batch has the bits of one never
// cancelled.
func TestWavefrontLanesCancel(t *testing.T) {
	s, err := tracer.Compile(randomScene(5, tracer.IntegratorPath))
	if err != nil {
		t.Fatal(err)
	}
	p, err := kernels.Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	w, h := s.Settings.Width, s.Settings.Height
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
	want, wantRays, wantNonFinite := traceWith(t, &Device{}, p, pixels)
	ctx := context.Background()
	d := &Device{BlockDim: 16, Workers: 2}
	defer d.Close()
	if err := d.Upload(ctx, p); err != nil {
		t.Fatal(err)
	}
	n := w * h
	before := runtime.NumGoroutine()
	for k := int64(0); k < 400; k += 23 {
		c := &countdownCtx{Context: ctx}
		c.n.Store(k)
		out, rays, nonfinite := make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
		if err := d.TracePixels(c, pixels, out, rays, nonfinite); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d: error %v, want context.Canceled", k, err)
		}
		if err := d.TracePixels(ctx, pixels, out, rays, nonfinite); err != nil {
			t.Fatal(err)
		}
		checkSame(t, fmt.Sprintf("after a batch cancelled at check %d", k), w, 0, out, want, rays, wantRays, nonfinite, wantNonFinite)
	}
	// A lane's goroutine has signalled its end when stop returns, but may
	// not have exited yet: wait a little for the count to come back.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(2 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before {
		t.Errorf("%d goroutines after the cancelled batches, %d before", after, before)
	}
}
