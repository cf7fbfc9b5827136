package emulator

import (
	"testing"

	"github.com/tracerender/trace/tracer"
)

// TestRandomScenesUseEveryKind: the scenes of TestRandomSceneParity use
// every material kind, alpha mode, texture kind, background kind and
// falloff below its count sentinel, with both integrators. Pack accepts
// any kind below the sentinel (scene_gen.h gives the kernel every kind
// by name), so it is the parity test that proves the kernel renders a
// kind as the Go tracer does: a kind added to package tracer fails here
// until randomScene renders it.
func TestRandomScenesUseEveryKind(t *testing.T) {
	used := map[string]map[uint32]bool{}
	mark := func(what string, v uint32) {
		if used[what] == nil {
			used[what] = map[uint32]bool{}
		}
		used[what][v] = true
	}
	for seed := uint64(1); seed <= 12; seed++ {
		for _, integ := range []tracer.Integrator{tracer.IntegratorPath, tracer.IntegratorWhitted} {
			d := randomScene(seed, integ)
			mark("integrator", uint32(d.Settings.Integrator))
			for _, m := range d.Materials {
				mark("material kind", uint32(m.Kind))
				mark("alpha mode", uint32(m.AlphaMode))
			}
			for _, x := range d.Textures {
				mark("texture kind", uint32(x.Kind))
			}
			mark("background kind", uint32(d.Background.Kind))
			for _, l := range d.Lights {
				mark("falloff", uint32(l.Falloff))
			}
		}
	}
	for _, c := range []struct {
		what string
		n    uint32
	}{
		{"integrator", uint32(tracer.NumIntegrators)},
		{"material kind", uint32(tracer.NumMaterialKinds)},
		{"alpha mode", uint32(tracer.NumAlphaModes)},
		{"texture kind", uint32(tracer.NumTextureKinds)},
		{"background kind", uint32(tracer.NumBackgroundKinds)},
		{"falloff", uint32(tracer.NumFalloffs)},
	} {
		for k := uint32(0); k < c.n; k++ {
			if !used[c.what][k] {
				t.Errorf("%s %d is in no random parity scene: add it to randomScene", c.what, k)
			}
		}
	}
}
