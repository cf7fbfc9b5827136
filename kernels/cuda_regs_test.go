//go:build cuda

package kernels

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"gorgonia.org/cu"
)

// TestGPURegs: with TRACE_GPU_REGS a device loads the PTX with those
// entries' registers capped (on a GPU, the driver's compiler keeps to the
// caps) and renders the bits of a device without caps; its kernel times
// name the caps. A value it cannot apply fails OpenDevices, naming the
// variable. It runs on a GPU too.
func TestGPURegs(t *testing.T) {
	p, pixels := laneScene(t)
	ctx := context.Background()
	// The caps below name wavefront entries, which a device loads only
	// when it runs the wavefront, whatever the suite's KernelEnv says.
	t.Setenv(KernelEnv, KernelWavefront.String())
	t.Setenv(RegsEnv, "")
	t.Setenv(TimesEnv, "")
	plain := openDevice(t)
	if plain.ptx != PTX {
		t.Errorf("%s unset: the device loads other PTX than the committed", RegsEnv)
	}
	err := plain.Upload(ctx, p)
	var want []float32
	var wantCounts []uint64
	if err == nil {
		want, wantCounts, err = trace(ctx, plain, pixels)
	}
	plain.Close()
	if err != nil {
		t.Fatal(err)
	}

	caps := RegCaps{{"wf_shade", 128}, {"wf_occluded", 32}}
	t.Setenv(RegsEnv, caps.String())
	t.Setenv(TimesEnv, "1")
	d := openDevice(t)
	defer d.Close()
	if capped, err := CapRegisters(PTX, caps); err != nil || d.ptx != capped {
		t.Fatalf("%s=%s: the device does not load the capped PTX (%v)", RegsEnv, caps, err)
	}
	for _, c := range caps {
		for i, name := range WaveEntries {
			if name != c.Entry {
				continue
			}
			// The stub driver reports 0 registers; a GPU's, what its
			// compiler gave.
			regs, err := d.wave[i].Attribute(cu.NumRegs)
			if err != nil || regs > c.Registers {
				t.Errorf("%s: %d registers (%v), capped at %d", name, regs, err, c.Registers)
			}
			t.Logf("%s: %d registers, capped at %d", name, regs, c.Registers)
		}
	}
	got, counts := uploadTrace(ctx, t, d, p, pixels)
	if !sameBits(got, want) || !equalCounts(counts, wantCounts) {
		t.Error("the capped device's bits differ from the uncapped one's")
	}
	times, ok := d.Times()
	if !ok || !reflect.DeepEqual(times.Regs, caps) || !strings.Contains(times.String(), "("+RegsEnv+"="+caps.String()+")") {
		t.Errorf("the kernel times do not name the caps: %s", times)
	}

	for _, bad := range []string{"wf_shade=8", "wf_shad=64", "wf_shade"} {
		t.Setenv(RegsEnv, bad)
		devs, err := OpenDevices(1)
		for _, d := range devs {
			d.Close()
		}
		if err == nil || !strings.Contains(err.Error(), RegsEnv) {
			t.Errorf("%s=%s: got %v, want an error naming %s", RegsEnv, bad, err, RegsEnv)
		}
	}
}
