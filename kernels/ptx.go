package kernels

import (
	_ "embed" // for PTX
	"fmt"
	"regexp"
	"strings"
)

// PTX is the kernel (trace.cu and its headers) compiled to PTX 7.0 for
// sm_80 by Debian's clang-19, which any CUDA driver from 11.1 on compiles
// for its GPU (compute capability 8.0 or later) when the module is loaded.
// It is generated: `make kernels` rebuilds trace.ptx from the source and CI
// fails when the committed file differs from what the source gives
// (`make check-ptx`). Only the cuda build loads it; every build embeds it.
//
//go:embed trace.ptx
var PTX string

// SelectEntries returns ptx with only the entry points named: every other
// entry's declaration and body (from its `.entry` line to the `}` that
// closes it at the start of a line, as clang writes them) is left out,
// and all else is kept. A device loads only the entries it launches, so
// the driver compiles only those: the wavefront's five, or the two
// megakernels (ptxas, sm_90: about 10 s for either where the whole
// PTX takes 30 s). The functions only the dropped entries called stay,
// and cost the driver next to nothing (the wavefront's entries take as
// long with them as in a PTX built without them). It fails when an entry
// named is not in ptx.
func SelectEntries(ptx string, entries []string) (string, error) {
	keep := make(map[string]bool, len(entries))
	for _, e := range entries {
		keep[e] = false
	}
	var b strings.Builder
	b.Grow(len(ptx))
	dropping := false
	for line := range strings.SplitAfterSeq(ptx, "\n") {
		if !dropping {
			if m := ptxEntry.FindStringSubmatch(line); m != nil {
				if _, ok := keep[m[1]]; ok {
					keep[m[1]] = true
				} else {
					dropping = true
				}
			}
		}
		if !dropping {
			b.WriteString(line)
		} else if strings.TrimRight(line, "\n") == "}" {
			dropping = false
		}
	}
	if dropping {
		return "", fmt.Errorf("the PTX ends inside an entry it drops")
	}
	var missing []string
	for _, e := range entries {
		if !keep[e] {
			missing = append(missing, e)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("the kernel has no entry %s (its entries: %s)", strings.Join(missing, ", "), strings.Join(ptxEntries(ptx), ", "))
	}
	return b.String(), nil
}

var ptxEntry = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// ptxEntries lists the entry points ptx declares, in its order.
func ptxEntries(ptx string) []string {
	var names []string
	for _, m := range ptxEntry.FindAllStringSubmatch(ptx, -1) {
		names = append(names, m[1])
	}
	return names
}
