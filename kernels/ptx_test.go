package kernels

import (
	"slices"
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
// both children), never a node's 16-bit Count or Info on its own,
// triangles in three (TestPTXTriangleRecords) and shapes in read-only
// scalar loads (ld.global.nc).
func TestPTXSceneLoads(t *testing.T) {
	ops := ptxOps(PTX)
	for _, c := range []struct {
		what     string
		op       string
		min, max int // max -1: no upper bound
	}{
		{"16-byte read-only loads (BVH nodes)", "ld.global.nc.v4.f32", 4, -1},
		{"read-only scalar loads (shapes)", "ld.global.nc.f32", 9, -1},
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

// TestPTXTriangleRecords: wf_intersect and wf_occluded, which hold the
// traversals alone, read a triangle as a TriangleRecord, three 16-byte
// loads, beside a node's four: seven vector loads each, and no more than
// the shapes' scalar loads (32: nine floats a triangle, before, made 41).
func TestPTXTriangleRecords(t *testing.T) {
	for _, e := range []string{"wf_intersect", "wf_occluded"} {
		i := strings.Index(PTX, ".entry "+e+"(")
		if i < 0 {
			t.Fatalf("no entry %s in the PTX", e)
		}
		body := PTX[i:]
		body = body[:strings.Index(body, "\n}\n")]
		ops := ptxOps(body)
		if v4, f32 := ops["ld.global.nc.v4.f32"], ops["ld.global.nc.f32"]; v4 != 7 || f32 > 32 {
			t.Errorf("%s: %d 16-byte and %d 4-byte read-only loads, want 7 and at most 32", e, v4, f32)
		}
	}
}

// TestSelectEntries keeps the entries asked for, whole, and everything
// outside the entries, line for line.
func TestSelectEntries(t *testing.T) {
	all := ptxEntries(PTX)
	for _, entries := range [][]string{
		WaveEntries[:],
		{"trace_pixels_path", "trace_pixels_whitted"},
		{"wf_shade"},
		all,
	} {
		got, err := SelectEntries(PTX, entries)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, e := range all {
			if slices.Contains(entries, e) {
				want = append(want, e)
			}
		}
		if !slices.Equal(ptxEntries(got), want) {
			t.Errorf("%v: entries %v", entries, ptxEntries(got))
		}
		if strings.Count(got, "{") != strings.Count(got, "}") {
			t.Errorf("%v: %d { and %d }", entries, strings.Count(got, "{"), strings.Count(got, "}"))
		}
		// Every line kept is the PTX's next one but for the entries left out.
		lines, src := strings.Split(got, "\n"), strings.Split(PTX, "\n")
		j := 0
		for _, l := range lines {
			for j < len(src) && src[j] != l {
				j++
			}
			if j == len(src) {
				t.Fatalf("%v: line %q is not the PTX's, or out of its order", entries, l)
			}
			j++
		}
		// All but the entries: the header, the functions' declarations and bodies.
		for _, want := range []string{".version 7.0", ".target sm_80", ".address_size 64", ".func  (.param .b32 func_retval0) _ZL9path_step"} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: lost %q", entries, want)
			}
		}
		if strings.Count(got, "\n.func") != strings.Count(PTX, "\n.func") {
			t.Errorf("%v: %d functions of %d", entries, strings.Count(got, "\n.func"), strings.Count(PTX, "\n.func"))
		}
		if len(entries) == len(all) && got != PTX {
			t.Error("every entry kept: the PTX changed")
		}
	}
	if _, err := SelectEntries(PTX, []string{"wf_shade", "wf_shad"}); err == nil || !strings.Contains(err.Error(), "no entry wf_shad (") {
		t.Errorf("an entry the kernel lacks: %v", err)
	}
	cut := PTX[:strings.Index(PTX, ".entry trace_pixels_path(")+200]
	if _, err := SelectEntries(cut, []string{"trace_pixels"}); err == nil {
		t.Error("a PTX cut inside an entry it drops: no error")
	}
}
