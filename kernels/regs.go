package kernels

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Register caps: the kernel's registers per thread, entry by entry, as
// the GPU's driver compiles the PTX, for measuring on a GPU what ptxas
// alone cannot say: whether an entry runs faster with more warps per
// multiprocessor and a few bytes of spills, or with fewer and none
// (make ptx-report REGS=... gives the registers and spills a cap costs).
// The committed PTX has no spills (make check-ptxas); a cap is an
// experiment on a GPU, never a default. The bits do not depend on it:
// ptxas allocates registers, it does not change a float operation.

// RegsEnv is the environment variable that caps entries' registers in the
// cuda build: "entry=N[,entry=N...]", e.g. TRACE_GPU_REGS=wf_shade=128;
// "" caps none.
const RegsEnv = "TRACE_GPU_REGS"

// The registers a cap may give a thread: ptxas needs 16 at least, and no
// thread has more than 255.
const (
	minRegCap = 16
	maxRegCap = 255
)

// RegCap caps the registers per thread of one entry point.
type RegCap struct {
	Entry     string // its name in the PTX: wf_shade, wf_intersect, ...
	Registers int
}

// RegCaps are register caps, in the order given.
type RegCaps []RegCap

// String is the caps as RegsEnv spells them.
func (c RegCaps) String() string {
	parts := make([]string, len(c))
	for i, rc := range c {
		parts[i] = fmt.Sprintf("%s=%d", rc.Entry, rc.Registers)
	}
	return strings.Join(parts, ",")
}

var entryName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseRegs parses RegsEnv's value s: nil for "", else one cap per
// comma-separated entry=N, each entry at most once and N from 16 to 255.
// Whether the entries are the kernel's is CapRegisters' to say.
func ParseRegs(s string) (RegCaps, error) {
	if s == "" {
		return nil, nil
	}
	var caps RegCaps
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		entry, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || !entryName.MatchString(entry) {
			return nil, fmt.Errorf("%s=%q: want entry=registers[,entry=registers...], e.g. wf_shade=128", RegsEnv, s)
		}
		regs, err := strconv.Atoi(n)
		if err != nil || regs < minRegCap || regs > maxRegCap {
			return nil, fmt.Errorf("%s=%q: %s's registers must be a whole number from %d to %d, not %q", RegsEnv, s, entry, minRegCap, maxRegCap, n)
		}
		if seen[entry] {
			return nil, fmt.Errorf("%s=%q: %s is capped twice", RegsEnv, s, entry)
		}
		seen[entry] = true
		caps = append(caps, RegCap{Entry: entry, Registers: regs})
	}
	return caps, nil
}

// CapRegisters returns ptx with each cap's entry declared with a
// `.maxnreg` directive (PTX ISA, performance-tuning directives: the most
// registers per thread the driver's compiler may give it), between the
// entry's parameters and its body, beside any launch bounds clang wrote
// there. It fails when an entry is not in ptx or already has a .maxnreg.
func CapRegisters(ptx string, caps RegCaps) (string, error) {
	for _, c := range caps {
		decl := ".entry " + c.Entry + "("
		at := strings.Index(ptx, decl)
		if at < 0 {
			return "", fmt.Errorf("%s: the kernel has no entry %s (its entries: %s)", RegsEnv, c.Entry, strings.Join(ptxEntries(ptx), ", "))
		}
		body := strings.Index(ptx[at:], "\n{")
		if body < 0 {
			return "", fmt.Errorf("%s: entry %s has no body in the PTX", RegsEnv, c.Entry)
		}
		body += at + 1
		if strings.Contains(ptx[at:body], ".maxnreg") {
			return "", fmt.Errorf("%s: entry %s already has a .maxnreg in the PTX", RegsEnv, c.Entry)
		}
		ptx = ptx[:body] + fmt.Sprintf(".maxnreg %d\n", c.Registers) + ptx[body:]
	}
	return ptx, nil
}
