package emulator

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestNoFusedMultiplyAdd compiles the kernel as the emulator does, and
// again with -mfma (as a CGO_CFLAGS of -march=native would on a recent
// x86-64), and fails if the assembly has a fused multiply-add: -std=c11
// must keep every product rounded on its own, as the Go tracer's are.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the kernel twice; skipped in -short mode")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("checks x86-64 assembly")
	}
	src, err := os.ReadFile("emulator.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#cgo CFLAGS:(.*)$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no #cgo CFLAGS line in emulator.go")
	}
	flags := strings.Fields(string(m[1]))
	cc := "gcc"
	if out, err := exec.Command("go", "env", "CC").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		cc = strings.Fields(string(out))[0]
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler %q", cc)
	}
	fused := regexp.MustCompile(`(?i)\bvfn?m(add|sub)`)
	for _, extra := range [][]string{nil, {"-mfma"}} {
		args := append(append(append([]string{}, flags...), extra...), "-S", "-o", "-", "kernel.c")
		out, err := exec.Command(cc, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", cc, args, err)
		}
		if n := len(fused.FindAll(out, -1)); n > 0 {
			t.Errorf("%s %v: %d fused multiply-add instructions", cc, strings.Join(args, " "), n)
		}
	}
}
