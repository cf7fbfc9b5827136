// Package exrtest builds the OpenEXR reader the EXR tests check trace's
// files with (imageio/testdata/exrcheck.cc), for imageio's and the
// command's tests alike.
package exrtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build compiles src (exrcheck.cc) against the OpenEXR library (Debian's
// libopenexr-dev) and returns the program, or skips the test saying what
// is missing; with tools, the openexr command-line tools (exrheader) are
// needed too. Under CI (CI set) a missing tool fails the test instead:
// .ci/run installs them.
func Build(t testing.TB, src string, tools bool) string {
	t.Helper()
	var missing []string
	cxx, err := exec.LookPath("c++")
	if err != nil {
		missing = append(missing, "a C++ compiler (g++)")
	}
	if _, err := exec.LookPath("exrheader"); tools && err != nil {
		missing = append(missing, "exrheader (openexr)")
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "OpenEXR").Output()
	if err != nil {
		missing = append(missing, "the OpenEXR library's headers and pkg-config file (libopenexr-dev, pkg-config)")
	}
	if len(missing) > 0 {
		msg := "reading EXR files with the OpenEXR library needs " + strings.Join(missing, ", ") +
			": apt-get install g++ openexr libopenexr-dev pkg-config"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (.ci/run installs them)")
		}
		t.Skip(msg)
	}
	bin := filepath.Join(t.TempDir(), "exrcheck")
	args := append([]string{"-O1", "-o", bin, src}, strings.Fields(string(flags))...)
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	return bin
}
