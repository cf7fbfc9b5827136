package tracer

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// fusedOps matches fused multiply-add instructions in the compiler's
// assembly listing: arm64's FMADD family and amd64's VFMADD family.
var fusedOps = regexp.MustCompile(`\b(F(N)?M(ADD|SUB)[SD]|VF(N)?M(ADD|SUB)\w*)\b`)

// TestNoFusedMultiplyAdd compiles this package for targets where the Go
// compiler fuses x*y+z (arm64, and amd64 at GOAMD64=v3) and fails if any
// fused instruction appears: every product on the ray path must be rounded
// on its own (float32(...)), as the kernel's C is, for the CPU and GPU
// images to agree bit for bit.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the package twice; skipped in -short mode")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, target := range [][]string{
		{"GOARCH=arm64"},
		{"GOARCH=amd64", "GOAMD64=v3"},
	} {
		cmd := exec.Command(goBin, "build", "-gcflags=-S", "-o", os.DevNull, ".", "./fmath")
		cmd.Env = append(os.Environ(), append([]string{"GOOS=linux", "CGO_ENABLED=0"}, target...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: go build: %v\n%s", target, err, out)
		}
		funcs := map[string]bool{}
		current := ""
		for _, line := range strings.Split(string(out), "\n") {
			if i := strings.Index(line, " STEXT"); i > 0 {
				current = line[:i]
				continue
			}
			if fusedOps.MatchString(line) && strings.Contains(current, "tracerender/trace/tracer") {
				// The listing names the source line: "(file.go:123)".
				pos := ""
				if i, j := strings.Index(line, "("), strings.Index(line, ")"); i >= 0 && j > i {
					pos = " at " + line[i+1:j]
				}
				funcs[current+pos] = true
			}
		}
		if len(funcs) > 0 {
			var names []string
			for f := range funcs {
				names = append(names, f)
			}
			sort.Strings(names)
			t.Errorf("%v: fused multiply-add in:\n  %s", target, strings.Join(names, "\n  "))
		}
	}
}
