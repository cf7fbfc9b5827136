package emulator

import (
	"context"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// The parity tests (parity_test.go) run scenes of both integrators on the
// wavefront, the emulator's default; the tests here check the wavefront's
// ABI and that the megakernel, which runs the same state machines with
// their queries answered inline, still gives the same bits.

// TestWavefrontABI: the slot size and flag bits Go knows are the C's.
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
}

// TestMegakernelParity renders every gallery scene and the random scenes
// of both integrators with the megakernel (trace_pixels) against the Go
// tracer, bit for bit, ray counts included.
func TestMegakernelParity(t *testing.T) {
	files, _ := filepath.Glob("../../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	seen := map[tracer.Integrator]int{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		d, err := scenes.Load(f)
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
