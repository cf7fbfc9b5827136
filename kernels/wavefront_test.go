package kernels

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fakeWave is a Wavefront whose wf_shade asks the queries of a script,
// one round after another, and records the launches.
type fakeWave struct {
	rounds   []uint32 // the flags each wf_shade sets
	shades   int
	flags    uint32
	launches []string
	fail     WaveEntry // an entry whose launch fails, or -1
}

func (f *fakeWave) Launch(e WaveEntry, n int) error {
	f.launches = append(f.launches, e.String())
	if e == f.fail {
		return errors.New("launch failed")
	}
	if e == WaveShade {
		if f.shades < len(f.rounds) {
			f.flags |= f.rounds[f.shades]
		}
		f.shades++
	}
	return nil
}

func (f *fakeWave) TakeFlags() (uint32, error) {
	v := f.flags
	f.flags = 0
	return v, nil
}

// TestRunWavefront: the launch sequence follows the flags wf_shade sets:
// each query kernel only in rounds that asked its kind, wf_finish after
// the first round that asked nothing.
func TestRunWavefront(t *testing.T) {
	h := &TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}
	f := &fakeWave{rounds: []uint32{WaveClosest, WaveAny | WaveClosest, WaveAny}, fail: -1}
	if err := RunWavefront(context.Background(), f, 5, h); err != nil {
		t.Fatal(err)
	}
	want := []string{"wf_init", "wf_shade", "wf_intersect", "wf_shade", "wf_intersect", "wf_occluded",
		"wf_shade", "wf_occluded", "wf_shade", "wf_finish"}
	if !reflect.DeepEqual(f.launches, want) {
		t.Errorf("launches %v, want %v", f.launches, want)
	}
}

// TestRunWavefrontErrors: a failed launch, a cancelled context and a batch
// that never ends (a kernel bug) end the loop with an error.
func TestRunWavefrontErrors(t *testing.T) {
	h := &TraceScene{Samples: 1, MaxDepth: 0}
	f := &fakeWave{rounds: []uint32{WaveClosest}, fail: WaveIntersect}
	if err := RunWavefront(context.Background(), f, 1, h); err == nil || !strings.Contains(err.Error(), "launch failed") {
		t.Errorf("failed launch: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f = &fakeWave{rounds: []uint32{WaveClosest}, fail: -1}
	if err := RunWavefront(ctx, f, 1, h); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	forever := make([]uint32, 1000)
	for i := range forever {
		forever[i] = WaveAny
	}
	f = &fakeWave{rounds: forever, fail: -1}
	err := RunWavefront(context.Background(), f, 1, h)
	if err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("endless batch: error %v", err)
	}
	if f.shades != int(WaveRounds(h))+1 {
		t.Errorf("endless batch: %d rounds of wf_shade, want the bound %d + 1", f.shades, WaveRounds(h))
	}
}

// TestWaveRounds: the bound on a pixel's query rounds, per integrator: a
// path's bounces, a Whitted sample's tree of hits, saturating where the
// tree's size overflows.
func TestWaveRounds(t *testing.T) {
	const passes = 16 // tracer.MaxAlphaPasses
	whitted := uint32(1)
	for _, c := range []struct {
		h    TraceScene
		want uint64
	}{
		// 2 samples · 4 bounces · (17 + 3 shadow rays of 18)
		{TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}, 2 * 4 * ((1 + passes) + 3*(passes+2))},
		// 2 samples · 15 hits · (17 + 1 shadow ray of 18)
		{TraceScene{Integrator: whitted, Samples: 2, MaxDepth: 3, NumLights: 1}, 2 * 15 * ((1 + passes) + (passes + 2))},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 0}, 1 + passes},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 58}, (1<<59 - 1) * (1 + passes)},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 62}, math.MaxUint64}, // (2^63−1)·17 overflows
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: MaxDepth, NumLights: 4}, math.MaxUint64},
	} {
		if got := WaveRounds(&c.h); got != c.want {
			t.Errorf("WaveRounds(%+v) = %d, want %d", c.h, got, c.want)
		}
	}
}

// TestParseKernel: the names of TRACE_GPU_KERNEL, and a clear error for
// any other.
func TestParseKernel(t *testing.T) {
	for s, want := range map[string]Kernel{"": KernelWavefront, "wavefront": KernelWavefront, "megakernel": KernelMegakernel} {
		k, err := ParseKernel(s)
		if err != nil || k != want {
			t.Errorf("ParseKernel(%q) = %v, %v; want %v", s, k, err, want)
		}
		if s != "" && k.String() != s {
			t.Errorf("%v.String() = %q, want %q", k, k.String(), s)
		}
	}
	if _, err := ParseKernel("mega"); err == nil || !strings.Contains(err.Error(), KernelEnv) {
		t.Errorf("ParseKernel(\"mega\"): error %v, want one naming %s", err, KernelEnv)
	}
}
