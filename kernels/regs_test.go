package kernels

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseRegs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RegCaps
	}{
		{"", nil},
		{"wf_shade=128", RegCaps{{"wf_shade", 128}}},
		{"wf_shade=80, wf_intersect=48", RegCaps{{"wf_shade", 80}, {"wf_intersect", 48}}},
		{"trace_pixels_path=16,wf_init=255", RegCaps{{"trace_pixels_path", 16}, {"wf_init", 255}}},
	} {
		got, err := ParseRegs(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseRegs(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if err == nil && got.String() != strings.ReplaceAll(tc.in, " ", "") {
			t.Errorf("ParseRegs(%q).String() = %q", tc.in, got.String())
		}
	}
	for _, tc := range []struct{ in, why string }{
		{"wf_shade", "want entry=registers"},
		{"=128", "want entry=registers"},
		{"wf-shade=128", "want entry=registers"},
		{"wf_shade=128,", "want entry=registers"},
		{"wf_shade=", "from 16 to 255"},
		{"wf_shade=15", "from 16 to 255"},
		{"wf_shade=256", "from 16 to 255"},
		{"wf_shade=12x", "from 16 to 255"},
		{"wf_shade=-1", "from 16 to 255"},
		{"wf_shade=128,wf_shade=64", "capped twice"},
	} {
		got, err := ParseRegs(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), RegsEnv) {
			t.Errorf("ParseRegs(%q) = %v, %v; want an error naming %s and saying %q", tc.in, got, err, RegsEnv, tc.why)
		}
	}
}

// TestCapRegisters caps entries of the committed PTX: each gets one
// .maxnreg line between its parameters and its body, after any launch
// bounds, and nothing else changes.
func TestCapRegisters(t *testing.T) {
	caps := RegCaps{{"wf_shade", 128}, {"wf_occluded", 32}, {"trace_pixels", 96}}
	got, err := CapRegisters(PTX, caps)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ptxEntries(got), ptxEntries(PTX)) || len(ptxEntries(PTX)) < len(WaveEntries)+3 {
		t.Fatalf("entries %v, want %v", ptxEntries(got), ptxEntries(PTX))
	}
	var kept []string
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, ".maxnreg") {
			kept = append(kept, line)
		}
	}
	if strings.Join(kept, "\n") != PTX {
		t.Error("CapRegisters changed more than the .maxnreg lines")
	}
	for _, c := range caps {
		decl := got[strings.Index(got, ".entry "+c.Entry+"("):]
		decl = decl[:strings.Index(decl, "\n{")+2]
		lines := strings.Split(decl, "\n")
		if n := len(lines); n < 3 || lines[n-2] != fmt.Sprintf(".maxnreg %d", c.Registers) || lines[n-1] != "{" {
			t.Errorf("%s is declared\n%s\nwant .maxnreg %d last before its body", c.Entry, decl, c.Registers)
		}
		if strings.Count(decl, ".maxnreg") != 1 {
			t.Errorf("%s has %d .maxnreg lines, want 1", c.Entry, strings.Count(decl, ".maxnreg"))
		}
	}
	if strings.Count(got, ".maxnreg") != len(caps) {
		t.Errorf("%d .maxnreg lines in all, want %d", strings.Count(got, ".maxnreg"), len(caps))
	}
	// wf_occluded keeps clang's launch bounds beside the cap.
	occ := got[strings.Index(got, ".entry wf_occluded("):]
	if i := strings.Index(occ, ".maxnreg"); !strings.Contains(occ[:i], ".minnctapersm") {
		t.Error("wf_occluded lost its launch bounds")
	}

	if same, err := CapRegisters(PTX, nil); err != nil || same != PTX {
		t.Errorf("no caps: %v; the PTX changed: %v", err, same != PTX)
	}
	if _, err := CapRegisters(got, RegCaps{{"wf_shade", 64}}); err == nil || !strings.Contains(err.Error(), "already has a .maxnreg") {
		t.Errorf("capping wf_shade twice: %v", err)
	}
	_, err = CapRegisters(PTX, RegCaps{{"wf_shad", 64}})
	if err == nil || !strings.Contains(err.Error(), "no entry wf_shad") || !strings.Contains(err.Error(), "wf_shade, ") {
		t.Errorf("an entry the kernel lacks: %v; want its name and the kernel's entries", err)
	}
	// A prefix of an entry's name is not that entry.
	if _, err := CapRegisters(PTX, RegCaps{{"trace_pixels_pat", 64}}); err == nil {
		t.Error("trace_pixels_pat capped trace_pixels_path")
	}
}
