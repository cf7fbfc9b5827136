//go:build cuda

package kernels

import (
	"context"
	"strings"
	"testing"

	"gorgonia.org/cu"
)

// TestGPUModules: a device loads the module of the kernel it runs, with
// that kernel's entries only, and the other one's when a scene first
// needs it; both render the same bits, and Close unloads both. It runs on
// a GPU too (the module counts on the stub driver only).
func TestGPUModules(t *testing.T) {
	p, pixels := laneScene(t)
	ctx := context.Background()
	for _, first := range []Kernel{KernelWavefront, KernelMegakernel} {
		t.Run(first.String(), func(t *testing.T) {
			t.Setenv(KernelEnv, first.String())
			d := openDevice(t)
			defer d.Close()
			other := KernelMegakernel
			if first == KernelMegakernel {
				other = KernelWavefront
			}
			if d.mods[first] == (cu.Module{}) || d.mods[other] != (cu.Module{}) {
				t.Fatalf("open: modules %v, want the %s's only", d.mods, first)
			}
			// The module holds its kernel's entries and no other.
			mine, theirs := WaveEntries[:], cudaKernels[:]
			if first == KernelMegakernel {
				mine, theirs = theirs, mine
			}
			err := d.do(ctx, func() error {
				for _, name := range mine {
					if _, err := d.mods[first].Function(name); err != nil {
						t.Errorf("the %s module lacks %s: %v", first, name, err)
					}
				}
				for _, name := range theirs {
					if _, err := d.mods[first].Function(name); err == nil {
						t.Errorf("the %s module holds %s", first, name)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			stub := strings.Contains(d.Name(), "cudastub")
			var before stubLive
			if stub {
				before = live(t, d)
				if before.modules < 1 {
					t.Errorf("live modules %d with the device open", before.modules)
				}
			}
			var want []float32
			for i, k := range []Kernel{first, other, first} {
				d.choice = k
				if err := d.Upload(ctx, p); err != nil {
					t.Fatal(err)
				}
				got, _, err := trace(ctx, d, pixels)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					want = got
				} else if !sameBits(got, want) {
					t.Errorf("the %s's bits differ from the %s's", k, first)
				}
			}
			if d.mods[other] == (cu.Module{}) {
				t.Errorf("a scene on the %s: its module is not loaded", other)
			}
			if stub {
				if now := live(t, d); now.modules != before.modules+1 {
					t.Errorf("live modules %d after the %s's scene, want %d", now.modules, other, before.modules+1)
				}
				d.Close()
				e := openStub(t)
				defer e.Close()
				if now := live(t, e); now.modules != before.modules {
					t.Errorf("after Close and a fresh open: live modules %d, want %d", now.modules, before.modules)
				}
			}
		})
	}
}
