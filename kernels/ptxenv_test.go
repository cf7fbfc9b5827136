package kernels

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestKernelPTX(t *testing.T) {
	got, err := KernelPTX("")
	if err != nil || got != PTX {
		t.Fatalf(`KernelPTX(""): %d bytes, %v; want the embedded PTX`, len(got), err)
	}
	dir := t.TempDir()
	write := func(name, ptx string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(ptx), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A variant: the same entries, other code (a comment stands for it).
	variant := strings.Replace(PTX, "\n.visible .entry trace_pixels_path(", "\n// a variant\n.visible .entry trace_pixels_path(", 1)
	if variant == PTX {
		t.Fatal("no trace_pixels_path entry in the PTX to vary")
	}
	if got, err := KernelPTX(write("variant.ptx", variant)); err != nil || got != variant {
		t.Errorf("a variant with the same entries: %d bytes, %v; want it as is", len(got), err)
	}
	dropped, err := SelectEntries(PTX, slices.DeleteFunc(ptxEntries(PTX), func(e string) bool { return e == "wf_shade" }))
	if err != nil {
		t.Fatal(err)
	}
	fewer := write("fewer.ptx", dropped)
	if _, err := KernelPTX(fewer); err == nil || !strings.Contains(err.Error(), "no entry wf_shade") {
		t.Errorf("a PTX without wf_shade: %v", err)
	}
	// trace_pixels_path's last parameter (unsigned int* next) made a u32.
	i := strings.Index(PTX, ".param .u64 trace_pixels_path_param_6")
	if i < 0 {
		t.Fatal("no trace_pixels_path_param_6 in the PTX")
	}
	changed := PTX[:i] + ".param .u32 trace_pixels_path_param_6" + PTX[i+len(".param .u64 trace_pixels_path_param_6"):]
	_, err = KernelPTX(write("params.ptx", changed))
	if err == nil || !strings.Contains(err.Error(), "entry trace_pixels_path takes (.u64, .u64, .u32, .u64, .u64, .u64, .u32, .u32), the host launches it with (.u64, .u64, .u32, .u64, .u64, .u64, .u64, .u32)") {
		t.Errorf("a parameter of another type: %v", err)
	}
	if _, err := KernelPTX(filepath.Join(dir, "absent.ptx")); err == nil || !strings.Contains(err.Error(), PTXEnv) {
		t.Errorf("a file that is not there: %v", err)
	}
}
