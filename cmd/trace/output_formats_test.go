package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		{"out.exr", []string{"--quality", "80"}, "--quality 80: only JPEG output has a quality, and the output is an EXR file"},
		{"out.hdr", []string{"--format", "png"}, "--format png: the output " + filepath.Join(dir, "out.hdr") + " names an HDR file"},
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

// TestRenderOverflow: a lamp so bright (3e38) that a pixel's sum of
// samples passes float32's range: the render says so, naming what each
// format writes for it, and the PNG holds it white where the PFM holds
// +Inf (the tone curves made it NaN, and black, before).
func TestRenderOverflow(t *testing.T) {
	dir := t.TempDir()
	scene := writeSceneAs(t, dir, "hot.json", `{"version": 1,
 "render": {"width": 32, "height": 24, "samples": 2, "max_depth": 4, "seed": 1},
 "camera": {"position": [0, 1, -4], "look_at": [0, 3, 0], "fov": 40},
 "film": {"tonemap": "aces"},
 "materials": {"floor": {"type": "diffuse"}, "lamp": {"type": "emissive", "intensity": 3e38}},
 "objects": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 1, 0], "material": "floor"},
  {"type": "quad", "corner": [-1, 3, -1], "edge1": [2, 0, 0], "edge2": [0, 0, 2], "material": "lamp"}]}`)
	for _, tc := range []struct{ out, written string }{
		{"hot.png", "white"}, {"hot.jpg", "white"}, {"hot.hdr", "RGBE's largest value"},
		{"hot.exr", "half's largest value, 65504"}, {"hot.pfm", "+Inf"},
	} {
		out := filepath.Join(dir, tc.out)
		code, _, stderr := runCLI("render", scene, "-o", out, "--threads", "1")
		if code != 0 || !regexp.MustCompile(`trace: warning: .*: [0-9]+ pixels? (is|are) brighter than float32 holds \(\+Inf.*written as `+regexp.QuoteMeta(tc.written)+"\n").MatchString(stderr) {
			t.Errorf("%s: exit %d, %q; want the warning, written as %s", tc.out, code, stderr, tc.written)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "hot.pfm"))
	if err != nil {
		t.Fatal(err)
	}
	pix := data[len(data)-32*24*12:] // PFM: rows bottom up, little-endian float32
	img := readPNG(t, filepath.Join(dir, "hot.png"))
	infs := 0
	for y := range 24 {
		for x := range 32 {
			row := pix[(23-y)*32*12:]
			v := math.Float32frombits(binary.LittleEndian.Uint32(row[x*12:]))
			if !math.IsInf(float64(v), 1) {
				continue
			}
			infs++
			if r, g, b, _ := img.At(x, y).RGBA(); r != 0xffff || g != 0xffff || b != 0xffff {
				t.Errorf("pixel (%d, %d): +Inf in the PFM, (%d, %d, %d) in the PNG; want white", x, y, r>>8, g>>8, b>>8)
			}
		}
	}
	if infs == 0 {
		t.Error("no pixel of the PFM is +Inf: the scene does not test an overflow")
	}
}
