package kernels

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// PTXEnv is the environment variable that has the cuda build load the
// kernel from a PTX file instead of the embedded one (PTX): a variant of
// trace.cu to measure on a GPU without building trace again, e.g. one with
// line directives, for a profiler's source view (scripts/ptx-variants.sh
// makes them; gpu-check's ptx-variants step runs them). "" loads PTX.
// The file must declare every entry point PTX declares, each with the
// same parameters: the host code launches them as it knows them.
const PTXEnv = "TRACE_GPU_PTX"

// maxPTXBytes bounds the file PTXEnv names: the embedded PTX is about
// 1 MB, with line directives about 2.
const maxPTXBytes = 64 << 20

// KernelPTX is the PTX the cuda build loads: PTX when path is "", else
// the file at path, checked against PTX's entry points and parameters.
func KernelPTX(path string) (string, error) {
	if path == "" {
		return PTX, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", PTXEnv, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPTXBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", PTXEnv, err)
	}
	if len(b) > maxPTXBytes {
		return "", fmt.Errorf("%s=%s: larger than %d MiB", PTXEnv, path, maxPTXBytes>>20)
	}
	ptx := string(b)
	want, got := ptxEntryParams(PTX), ptxEntryParams(ptx)
	for _, e := range ptxEntries(PTX) {
		params, ok := got[e]
		if !ok {
			return "", fmt.Errorf("%s=%s: no entry %s (it declares: %s)", PTXEnv, path, e, strings.Join(ptxEntries(ptx), ", "))
		}
		if !slices.Equal(params, want[e]) {
			return "", fmt.Errorf("%s=%s: entry %s takes (%s), the host launches it with (%s)", PTXEnv, path, e,
				strings.Join(params, ", "), strings.Join(want[e], ", "))
		}
	}
	return ptx, nil
}

var ptxParam = regexp.MustCompile(`\.param\s+(\.[a-z0-9]+)`)

// ptxEntryParams gives each entry point ptx declares its parameters'
// types, in order: the lines from its `.entry name(` to the `)` that
// ends the list, as clang writes them.
func ptxEntryParams(ptx string) map[string][]string {
	params := map[string][]string{}
	entry := ""
	for line := range strings.SplitSeq(ptx, "\n") {
		if entry == "" {
			if m := ptxEntry.FindStringSubmatch(line); m != nil {
				entry = m[1]
				params[entry] = []string{}
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), ")") {
			entry = ""
			continue
		}
		for _, m := range ptxParam.FindAllStringSubmatch(line, -1) {
			params[entry] = append(params[entry], m[1])
		}
	}
	return params
}
