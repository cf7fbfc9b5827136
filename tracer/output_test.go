package tracer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputStream: StreamOutput writes the image to the writer, a PNG
// unless asked for a PFM.
func TestOutputStream(t *testing.T) {
	for _, tc := range []struct{ format, magic string }{{"", "\x89PNG"}, {FormatPNG, "\x89PNG"}, {FormatPFM, "PF\n4 2\n"}} {
		var buf bytes.Buffer
		o, err := StreamOutput(&buf, tc.format, 8)
		if err != nil {
			t.Fatal(err)
		}
		if o.IsFile(".") {
			t.Error("a stream claims to be a file")
		}
		if err := o.Commit(NewFramebuffer(4, 2), &Film{}); err != nil {
			t.Fatal(err)
		}
		o.Abort()
		if !strings.HasPrefix(buf.String(), tc.magic) {
			t.Errorf("format %q: output starts %q, want %q", tc.format, buf.String()[:min(buf.Len(), 8)], tc.magic)
		}
	}
	if _, err := StreamOutput(&bytes.Buffer{}, "jpeg", 8); err == nil {
		t.Error("format jpeg accepted")
	}
}

// TestOutputFormat: the format goes by the name unless given, and a given
// one may not contradict a .png or .pfm name.
func TestOutputFormat(t *testing.T) {
	for _, tc := range []struct{ path, format, want string }{
		{"a.png", "", FormatPNG}, {"a.PFM", "", FormatPFM}, {"a", "", FormatPNG}, {"a.img", "pfm", FormatPFM},
		{"a.pfm", "pfm", FormatPFM}, {"a.png", "pfm", ""}, {"a.pfm", "png", ""}, {"a", "tiff", ""},
	} {
		got, err := OutputFormat(tc.path, tc.format)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("OutputFormat(%q, %q) = %q, %v; want %q", tc.path, tc.format, got, err, tc.want)
		}
	}
}

// TestOutputIsFile: an output is the file at a path by identity where it
// exists and by cleaned absolute path where it does not.
func TestOutputIsFile(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.png")
	os.WriteFile(existing, []byte("x"), 0o644)
	link := filepath.Join(dir, "link.png")
	os.Symlink("old.png", link)
	o, err := CreateOutput(link, "", 8)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	if !o.IsFile(existing) || !o.IsFile(link) || o.IsFile(filepath.Join(dir, "other.png")) {
		t.Errorf("existing output: IsFile wrong")
	}
	n, err := CreateOutput(filepath.Join(dir, "new.png"), "", 8)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Abort()
	if !n.IsFile(filepath.Join(dir, "sub", "..", "new.png")) || n.IsFile(existing) {
		t.Errorf("new output: IsFile wrong")
	}
}
