package main

import (
	"bytes"
	"image/png"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeMarker precedes each code block of README.md that
// TestREADMECommands runs.
const readmeMarker = "<!-- README test: run -->"

// runnableBlocks returns the command lines of the README's marked code
// blocks (indented by four spaces), in order, as printed.
func runnableBlocks(readme string) [][]string {
	var blocks [][]string
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != readmeMarker {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		var block []string
		for ; j < len(lines) && (strings.HasPrefix(lines[j], "    ") || strings.TrimSpace(lines[j]) == ""); j++ {
			if l := strings.TrimPrefix(lines[j], "    "); strings.TrimSpace(l) != "" {
				block = append(block, l)
			}
		}
		blocks = append(blocks, block)
		i = j
	}
	return blocks
}

// TestREADMECommands runs the README's marked examples — the quick start
// (make install, trace on the PATH, a validation and a render) and the
// output formats — exactly as printed, one bash for all, in a copy of the
// tree as a fresh clone has it (the files git tracks, and those it would
// track), with a GOPATH of its own so that make install installs there.
// It takes a minute or so: .ci/run runs it (TRACE_README=1).
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := runnableBlocks(string(readme))
	var script []string
	for _, b := range blocks {
		script = append(script, b...)
	}
	if len(blocks) < 2 || !strings.Contains(strings.Join(script, "\n"), "make install") {
		t.Fatalf("the README's runnable blocks: %q", blocks)
	}
	if os.Getenv("TRACE_README") == "" {
		t.Skip("runs the README's commands in a copy of the tree for a minute or so: set TRACE_README=1 (.ci/run does)")
	}
	root := cloneTree(t, "../..")
	gopath := t.TempDir()
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"GOPATH=" + gopath, "GOMODCACHE=" + strings.TrimSpace(string(modcache)), "GOBIN="}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOPATH" && k != "GOMODCACHE" && k != "GOBIN" && k != "GOFLAGS" {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("bash", "-c", "set -ex\n"+strings.Join(script, "\n"))
	cmd.Dir, cmd.Env = root, env
	out, err := cmd.CombinedOutput()
	t.Logf("ran, as printed:\n%s\n%s", strings.Join(script, "\n"), out)
	if err != nil {
		t.Fatalf("the README's commands: %v", err)
	}
	if _, err := os.Stat(filepath.Join(gopath, "bin", "trace")); err != nil {
		t.Errorf("make install did not install into $(go env GOPATH)/bin: %v", err)
	}
	f, err := os.Open(filepath.Join(root, "cornell-box.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if img, err := png.Decode(f); err != nil || img.Bounds().Dx() < 64 {
		t.Errorf("cornell-box.png: %v", err)
	}
	for _, name := range []string{"whitted.exr", "whitted.jpg"} {
		if fi, err := os.Stat(filepath.Join(root, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !bytes.Contains(out, []byte("ok (")) {
		t.Errorf("trace validate printed no verdict")
	}
}

// cloneTree copies into a new folder the files of the git work tree at
// dir that a clone of it would have once committed: those git tracks and
// the new ones it does not ignore.
func cloneTree(t *testing.T, dir string) string {
	t.Helper()
	list, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the test copies a git work tree)", err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(dir, name)
		fi, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the work tree
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to); err != nil {
				t.Fatal(err)
			}
		case fi.Mode().IsRegular():
			copyFile(t, src, to, fi.Mode().Perm())
		}
	}
	return dst
}

func copyFile(t *testing.T, src, dst string, mode fs.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInstall: make install PREFIX=DIR puts a trace that runs into
// DIR/bin and says how to put it on the PATH; go install ./cmd/trace from
// the clone puts one into GOBIN.
func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice; skipped in -short mode")
	}
	prefix := t.TempDir()
	out, err := exec.Command("make", "-C", "../..", "--no-print-directory", "install", "PREFIX="+prefix).CombinedOutput()
	bin := filepath.Join(prefix, "bin", "trace")
	if err != nil || !strings.Contains(string(out), "installed "+bin) || !strings.Contains(string(out), `export PATH="`+filepath.Join(prefix, "bin")+`:$PATH"`) {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/trace")
	cmd.Dir, cmd.Env = "../..", append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/trace: %v\n%s", err, out)
	}
	for _, b := range []string{bin, filepath.Join(gobin, "trace")} {
		if out, err := exec.Command(b, "version").Output(); err != nil || !strings.HasPrefix(string(out), "trace ") {
			t.Errorf("%s version: %v, %q", b, err, out)
		}
	}
}
