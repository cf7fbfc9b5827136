package main

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/internal/exrtest"
)

// TestRenderOutputFormats: the output's extension chooses the format;
// --depth, --compression and --quality go with the formats that have
// them; any other name, or a flag the format lacks, is refused before
// rendering with what is accepted, and nothing is written.
func TestRenderOutputFormats(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		flags []string
		magic string
	}{
		{"out.png", []string{"--depth", "16"}, "\x89PNG\r\n\x1a\n"},
		{"out.pfm", nil, "PF\n"},
		{"out.exr", nil, "\x76\x2f\x31\x01"},
		{"out.EXR", []string{"--depth", "32", "--compression", "none"}, "\x76\x2f\x31\x01"},
		{"out.hdr", nil, "#?RADIANCE\n"},
		{"out.jpg", []string{"--quality", "80"}, "\xff\xd8\xff"},
		{"out.jpeg", nil, "\xff\xd8\xff"},
		{"out.img", []string{"--format", "exr"}, "\x76\x2f\x31\x01"},
	} {
		out := filepath.Join(dir, tc.name)
		if code, _, stderr := runCLI(append(append([]string{"render", cornell, "-o", out}, tinyFlags...), tc.flags...)...); code != 0 {
			t.Fatalf("%s %v: exit %d: %s", tc.name, tc.flags, code, stderr)
		}
		data, _ := os.ReadFile(out)
		if !bytes.HasPrefix(data, []byte(tc.magic)) {
			t.Errorf("%s %v: starts %q, want %q", tc.name, tc.flags, data[:min(len(data), 8)], tc.magic)
		}
		os.Remove(out)
	}
	jpg := filepath.Join(dir, "q.jpg")
	runCLI(append([]string{"render", cornell, "-o", jpg}, tinyFlags...)...)
	if f, err := os.Open(jpg); err != nil {
		t.Error(err)
	} else if img, err := jpeg.Decode(f); err != nil || img.Bounds().Dx() != 8 {
		t.Errorf("the JPEG does not decode to 8 pixels wide: %v", err)
	}

	for _, tc := range []struct {
		out   string
		flags []string
		want  string
	}{
		{"out.tiff", nil, `".tiff" is not an image format trace writes: end the name in .png, .pfm, .exr, .hdr or .jpg, or give --format`},
		{"out", nil, "the name has no extension to tell the image format: end it in .png, .pfm, .exr, .hdr or .jpg"},
		{"out.png", []string{"--format", "webp"}, "--format webp: must be png, pfm, exr, hdr or jpg"},
		{"out.png", []string{"--format", "exr"}, "--format exr: the output"},
		{"out.png", []string{"--depth", "32"}, "--depth 32: a PNG has 8 or 16 bits a channel"},
		{"out.exr", []string{"--depth", "8"}, "--depth 8: an EXR has 16 (half) or 32 (float) bits a channel"},
		{"out.exr", []string{"--compression", "piz"}, "--compression piz: an EXR is written with zip or none"},
		{"out.png", []string{"--compression", "zip"}, "--compression zip: only EXR output has a choice of compression"},
		{"out.jpg", []string{"--quality", "0"}, "--quality 0: a JPEG's quality is 1 to 100"},
		{"out.exr", []string{"--quality", "80"}, "--quality 80: only JPEG output has a quality"},
		{"out.hdr", []string{"--depth", "16"}, "--depth 16: only PNG (8 or 16) and EXR (16 or 32) output have a choice of depth"},
	} {
		out := filepath.Join(dir, tc.out)
		code, _, stderr := runCLI(append(append([]string{"render", cornell, "-o", out}, tinyFlags...), tc.flags...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s %v: exit %d, %q; want 2 and one line with %q", tc.out, tc.flags, code, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the one JPEG", len(entries))
	}
}

// TestRenderEXROpenEXR renders the Cornell box to a PFM and to EXRs of
// half and float, compressed with ZIP and not, and reads each EXR with
// the OpenEXR library (imageio/testdata/exrcheck.cc): the same pixels as
// the PFM, bit for bit in float, rounded by the library's own half in
// half.
func TestRenderEXROpenEXR(t *testing.T) {
	check := exrtest.Build(t, "../../imageio/testdata/exrcheck.cc", false)
	dir := t.TempDir()
	size := []string{"--width", "37", "--height", "29", "--samples", "8", "-q"} // odd sizes: a partial ZIP block
	pfm := filepath.Join(dir, "ref.pfm")
	if code, _, stderr := runCLI(append([]string{"render", cornell, "-o", pfm}, size...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, depth := range []string{"16", "32"} {
		for _, comp := range []string{"zip", "none"} {
			exr := filepath.Join(dir, fmt.Sprintf("out-%s-%s.exr", depth, comp))
			args := append([]string{"render", cornell, "-o", exr, "--depth", depth, "--compression", comp}, size...)
			if code, _, stderr := runCLI(args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			out, err := exec.Command(check, exr, pfm).CombinedOutput()
			typ := map[string]string{"16": "half", "32": "float"}[depth]
			want := fmt.Sprintf("37x29 %s %s\nequal\n", typ, comp)
			if err != nil || string(out) != want {
				t.Errorf("--depth %s --compression %s: exrcheck: %v\n%s\nwant %q", depth, comp, err, out, want)
			} else {
				t.Logf("--depth %s --compression %s: the OpenEXR library reads %s", depth, comp, strings.ReplaceAll(string(out), "\n", "; "))
			}
		}
	}
}
