package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
)

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "capped.ptx")
	if err := run("../../trace.ptx", "wf_shade=80", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := kernels.CapRegisters(kernels.PTX, kernels.RegCaps{{Entry: "wf_shade", Registers: 80}})
	if string(got) != want || !strings.Contains(want, ".maxnreg 80") {
		t.Error("capregs wrote other PTX than kernels.CapRegisters gives")
	}
	for _, bad := range []string{"wf_shade=8", "nope=64"} {
		if err := run("../../trace.ptx", bad, filepath.Join(t.TempDir(), "x.ptx")); err == nil {
			t.Errorf("-regs %s: no error", bad)
		}
	}
	if err := run("no-such.ptx", "wf_shade=80", out); err == nil {
		t.Error("a missing PTX: no error")
	}
}
