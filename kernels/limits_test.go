package kernels

import (
	"testing"

	"github.com/tracerender/trace/tracer"
)

// TestLimits: the kernel's limits (scene_gen.h has them from here) let it
// render every scene the CPU tracer accepts.
func TestLimits(t *testing.T) {
	if MaxDepth < tracer.MaxDepth {
		t.Errorf("kernel MaxDepth %d < tracer.MaxDepth %d: scenes the CPU renders would be refused", MaxDepth, tracer.MaxDepth)
	}
}
