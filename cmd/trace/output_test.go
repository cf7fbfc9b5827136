package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// tinyFlags render the Cornell box small and fast.
var tinyFlags = []string{"-q", "--width", "8", "--height", "6", "--samples", "1"}

// TestRenderOutputStdout: -o - writes the image to standard output, a PNG
// unless --format says pfm, and no file.
func TestRenderOutputStdout(t *testing.T) {
	scene, err := filepath.Abs(cornell)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		flags []string
		magic string
	}{
		{nil, "\x89PNG\r\n\x1a\n"},
		{[]string{"--format", "png", "--depth", "16"}, "\x89PNG\r\n\x1a\n"},
		{[]string{"--format", "pfm"}, "PF\n8 6\n"},
		{[]string{"--format", "exr", "--depth", "32"}, "\x76\x2f\x31\x01"},
		{[]string{"--format", "hdr"}, "#?RADIANCE\n"},
		{[]string{"--format", "jpg", "--quality", "70"}, "\xff\xd8\xff"},
	} {
		args := append(append([]string{"render", scene, "-o", "-"}, tinyFlags...), tc.flags...)
		code, stdout, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.flags, code, stderr)
		}
		if !strings.HasPrefix(stdout, tc.magic) {
			t.Errorf("%v: standard output starts %q, want %q", tc.flags, stdout[:min(len(stdout), 8)], tc.magic)
		}
		if entries, _ := os.ReadDir("."); len(entries) != 0 {
			t.Errorf("%v: %d files written, want none", tc.flags, len(entries))
		}
	}
	if code, _, stderr := runCLI(append([]string{"render", scene, "-o", "-", "--format", "tiff"}, tinyFlags...)...); code != 2 || !strings.Contains(stderr, "--format tiff: must be png, pfm, exr, hdr or jpg") {
		t.Errorf("--format tiff: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(append([]string{"render", scene, "-o", "out.png", "--format", "pfm"}, tinyFlags...)...); code != 2 || !strings.Contains(stderr, "--format pfm") {
		t.Errorf("--format pfm -o out.png: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("render", "--help"); code != 0 || !strings.Contains(stderr, "-o - writes the") {
		t.Errorf("render --help does not describe -o -: %q", stderr)
	}
}

// TestRenderOutputStdoutTerminal: -o - to a terminal is refused before
// anything is rendered: the image is binary, and nothing is written to it.
func TestRenderOutputStdoutTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var errb bytes.Buffer
	code := run(append([]string{"render", cornell, "-o", "-"}, tinyFlags...), tty, &errb)
	want := "trace: -o -: standard output is a terminal, and the image is binary: send it to a file or a pipe"
	if code != 2 || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, errb.String(), want)
	}
	tty.Close()
	if b, _ := io.ReadAll(ptmx); len(b) != 0 {
		t.Errorf("%d bytes written to the terminal: %q", len(b), b[:min(len(b), 16)])
	}
}

// TestRenderOutputThroughLink: an output that is a link to a device is
// written through, the link kept; a link to a regular file keeps the link
// and replaces its target.
func TestRenderOutputThroughLink(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null.png")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real.png")
	os.WriteFile(real, []byte("old"), 0o600)
	link := filepath.Join(dir, "link.png")
	os.Symlink("real.png", link)
	for _, out := range []string{null, link} {
		if code, _, stderr := runCLI(append([]string{"render", cornell, "-o", out}, tinyFlags...)...); code != 0 {
			t.Fatalf("-o %s: exit %d: %s", out, code, stderr)
		}
		if fi, err := os.Lstat(out); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("-o %s: the link was replaced", out)
		}
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device")
	}
	data, _ := os.ReadFile(real)
	if fi, _ := os.Stat(real); !bytes.HasPrefix(data, []byte("\x89PNG")) || fi.Mode().Perm() != 0o600 {
		t.Errorf("the link's target: %d bytes, mode %v; want a PNG, mode 0600", len(data), fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files in the folder, want the two links and the target", len(entries))
	}
}

// TestRenderOutputIsInput: the output may not be the scene file, one of
// its files or the checkpoint; each is refused before rendering and left
// as it was.
func TestRenderOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	obj := "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
	os.WriteFile(filepath.Join(dir, "tri.obj"), []byte(obj), 0o644)
	body := strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`,
		`{"type": "mesh", "file": "tri.obj", "material": "white"}`, 1)
	scene := writeScene(t, dir, body)
	os.Symlink("scene.json", filepath.Join(dir, "link.json"))
	ck := filepath.Join(dir, "render.ckpt")
	old := filepath.Join(dir, "old.ckpt")
	os.WriteFile(old, []byte("a checkpoint"), 0o644)
	tests := []struct {
		name  string
		out   string
		flags []string
		want  string
	}{
		{"scene", scene, nil, "is the scene file"},
		{"scene by another name", filepath.Join(dir, "sub", "..", "scene.json"), nil, "is the scene file"},
		{"link to the scene", filepath.Join(dir, "link.json"), nil, "is the scene file"},
		{"mesh", filepath.Join(dir, "tri.obj"), nil, `is "tri.obj", a file the scene reads`},
		{"new checkpoint", ck, []string{"--checkpoint", ck}, "is the checkpoint"},
		{"resumed checkpoint", filepath.Join(dir, ".", "old.ckpt"), []string{"--resume", old}, "is the checkpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// --format png: without it, the name's extension alone is
			// refused (TestRenderOutputFormats).
			args := append([]string{"render", scene, "-o", tc.out, "-q", "--format", "png"}, tc.flags...)
			code, _, stderr := runCLI(args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if got, _ := os.ReadFile(scene); string(got) != body {
				t.Errorf("the scene file was changed")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "tri.obj")); string(got) != obj {
				t.Errorf("the mesh was changed")
			}
			if got, _ := os.ReadFile(old); string(got) != "a checkpoint" {
				t.Errorf("the checkpoint was changed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 4 {
				t.Errorf("%d files in the folder, want the scene, its link, the mesh and the checkpoint", len(entries))
			}
		})
	}
}

// TestRenderQuotesFileNames: a file name from the scene is printed quoted,
// so that escape sequences in it do not reach the terminal.
func TestRenderQuotesFileNames(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "\x1b[2Jbad.obj"), []byte("v 0 0 0\nf 1 2 x\n"), 0o644)
	for _, file := range []string{`\u001b[2Jmissing.obj`, `\u001b[2Jbad.obj`} {
		scene := writeScene(t, dir, strings.Replace(okScene, `{"type": "sphere", "center": [0, 1, 0], "radius": 1, "material": "white"}`,
			`{"type": "mesh", "file": "`+file+`", "material": "white"}`, 1))
		for _, args := range [][]string{{"render", scene, "-o", filepath.Join(dir, "out.png")}, {"validate", scene}} {
			code, _, stderr := runCLI(args...)
			if code != 2 || strings.ContainsRune(stderr, '\x1b') || !strings.Contains(stderr, `\x1b[2J`) {
				t.Errorf("%s %s: exit %d, stderr %q; want 2 and the name quoted", args[0], file, code, stderr)
			}
		}
	}
}
