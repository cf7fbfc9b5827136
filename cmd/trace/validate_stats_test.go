package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidateStats: --stats adds a line per scene with the load and
// compile times and the compiled scene's size, and without it there is
// none.
func TestValidateStats(t *testing.T) {
	const scene = "../../scenes/examples/mesh.json"
	code, stdout, stderr := runCLI("validate", "--stats", scene)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := regexp.MustCompile(`(?m)^.*mesh\.json: load [0-9.]+ s, compile [0-9.]+ s \(BVH [0-9.]+ s\), compiled scene [1-9][0-9]* bytes \([0-9.]+ B/triangle\)$`)
	if !want.MatchString(stdout) {
		t.Errorf("no stats line in %q", stdout)
	}
	_, stdout, _ = runCLI("validate", scene)
	if strings.Contains(stdout, "compiled scene") {
		t.Errorf("stats without --stats: %q", stdout)
	}
}
