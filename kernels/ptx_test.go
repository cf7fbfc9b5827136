package kernels

import (
	"strings"
	"testing"
)

// ptxOps counts the instructions of the committed PTX by opcode (the
// first word of each instruction line, with its type suffixes).
func ptxOps(ptx string) map[string]int {
	ops := make(map[string]int)
	for _, line := range strings.Split(ptx, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "//") || strings.HasPrefix(f[0], ".") ||
			strings.HasSuffix(f[0], ":") || strings.HasPrefix(f[0], "@") {
			continue
		}
		ops[f[0]]++
	}
	return ops
}

// TestPTXSceneLoads checks that the committed PTX reads the scene the way
// intersect.h means it to on the GPU: BVH nodes in 16-byte read-only
// vector loads (ld.global.nc.v4, two per node: a traversal step loads
// both children), never a node's 16-bit Count or Info on its own, and
// triangles and shapes in read-only scalar loads (ld.global.nc).
func TestPTXSceneLoads(t *testing.T) {
	ops := ptxOps(PTX)
	for _, c := range []struct {
		what     string
		op       string
		min, max int // max -1: no upper bound
	}{
		{"16-byte read-only loads (BVH nodes)", "ld.global.nc.v4.f32", 4, -1},
		{"read-only scalar loads (a triangle's nine floats, shapes)", "ld.global.nc.f32", 9, -1},
		{"generic 16-bit loads (a node's Count or Info alone)", "ld.u16", 0, 0},
		{"global 16-bit loads (a node's Count or Info alone)", "ld.global.u16", 0, 0},
	} {
		n := ops[c.op]
		switch {
		case c.max < 0 && n < c.min:
			t.Errorf("%s: %d %s in trace.ptx, want at least %d", c.what, n, c.op, c.min)
		case c.max >= 0 && (n < c.min || n > c.max):
			t.Errorf("%s: %d %s in trace.ptx, want %d to %d", c.what, n, c.op, c.min, c.max)
		}
	}
}
