package imageio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracerender/trace/tracer"
)

// TestOutputStream: Stream writes the image to the writer in the
// format asked for, a PNG by default.
func TestOutputStream(t *testing.T) {
	for _, tc := range []struct{ format, magic string }{
		{"", "\x89PNG"}, {FormatPNG, "\x89PNG"}, {FormatPFM, "PF\n4 2\n"}, {FormatEXR, "\x76\x2f\x31\x01"},
		{FormatHDR, "#?RADIANCE\n"}, {FormatJPEG, "\xff\xd8\xff"}, {"jpeg", "\xff\xd8\xff"},
	} {
		var buf bytes.Buffer
		o, err := Stream(&buf, Encoding{Format: tc.format})
		if err != nil {
			t.Fatal(err)
		}
		if o.IsFile(".") {
			t.Error("a stream claims to be a file")
		}
		if err := o.Commit(context.Background(), tracer.NewFramebuffer(4, 2), &tracer.Film{}); err != nil {
			t.Fatal(err)
		}
		o.Abort()
		if !strings.HasPrefix(buf.String(), tc.magic) {
			t.Errorf("format %q: output starts %q, want %q", tc.format, buf.String()[:min(buf.Len(), 8)], tc.magic)
		}
	}
	if _, err := Stream(&bytes.Buffer{}, Encoding{Format: "tiff"}); err == nil || !strings.Contains(err.Error(), "png, pfm, exr, hdr or jpg") {
		t.Errorf("format tiff: %v, want an error listing the formats", err)
	}
}

// blockedWriter is a stream whose reader never reads: Write blocks until
// release is closed.
type blockedWriter struct{ release chan struct{} }

func (w blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

// TestOutputStreamCancel: Commit into a Stream whose reader does not read
// (standard output into a stalled pipe) returns ctx's error once ctx ends,
// so that an interrupted render exits instead of waiting for its reader.
func TestOutputStreamCancel(t *testing.T) {
	w := blockedWriter{make(chan struct{})}
	defer close(w.release)
	o, err := Stream(w, Encoding{Format: FormatPFM})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { done <- o.Commit(ctx, tracer.NewFramebuffer(4, 2), &tracer.Film{}) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Commit: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Commit still blocked on the writer 10 s after ctx ended")
	}
}

// TestOutputFormat: the format goes by the name unless given; a given one
// may not contradict the name's extension, and a name that chooses no
// format is refused with the list of those that are written.
func TestOutputFormat(t *testing.T) {
	for _, tc := range []struct{ path, format, want string }{
		{"a.png", "", FormatPNG}, {"a.PFM", "", FormatPFM}, {"a.exr", "", FormatEXR}, {"a.hdr", "", FormatHDR},
		{"a.jpg", "", FormatJPEG}, {"a.JPEG", "", FormatJPEG}, {"a.img", "pfm", FormatPFM}, {"a", "exr", FormatEXR},
		{"a.pfm", "pfm", FormatPFM}, {"a.jpg", "jpeg", FormatJPEG}, {"a.png", "pfm", ""}, {"a.pfm", "png", ""},
		{"a.exr", "hdr", ""}, {"a", "tiff", ""}, {"a", "", ""}, {"a.tiff", "", ""}, {"a.png.bak", "", ""},
		{os.DevNull, "", FormatPNG}, {"", "", FormatPNG},
	} {
		got, err := OutputFormat(tc.path, tc.format)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("OutputFormat(%q, %q) = %q, %v; want %q", tc.path, tc.format, got, err, tc.want)
		}
		if err != nil && tc.format == "" && !strings.Contains(err.Error(), ".png, .pfm, .exr, .hdr or .jpg") {
			t.Errorf("OutputFormat(%q): %v does not list the extensions", tc.path, err)
		}
	}
}

// TestOutputEncoding: each format takes the depth, compression and quality
// it has, fills in its defaults, and refuses the others before anything
// is written.
func TestOutputEncoding(t *testing.T) {
	for _, tc := range []struct {
		path string
		enc  Encoding
		want Encoding // Format "" means refused
	}{
		{"a.png", Encoding{}, Encoding{Format: FormatPNG, Depth: 8}},
		{"a.png", Encoding{Depth: 16}, Encoding{Format: FormatPNG, Depth: 16}},
		{"a.png", Encoding{Depth: 32}, Encoding{}},
		{"a.png", Encoding{Quality: 80}, Encoding{}},
		{"a.png", Encoding{Compression: "zip"}, Encoding{}},
		{"a.exr", Encoding{}, Encoding{Format: FormatEXR, Depth: 16, Compression: CompressionZIP}},
		{"a.exr", Encoding{Depth: 32, Compression: "none"}, Encoding{Format: FormatEXR, Depth: 32, Compression: CompressionNone}},
		{"a.exr", Encoding{Depth: 8}, Encoding{}},
		{"a.exr", Encoding{Compression: "piz"}, Encoding{}},
		{"a.jpg", Encoding{}, Encoding{Format: FormatJPEG, Quality: DefaultJPEGQuality}},
		{"a.jpg", Encoding{Quality: 100}, Encoding{Format: FormatJPEG, Quality: 100}},
		{"a.jpg", Encoding{Quality: 101}, Encoding{}},
		{"a.jpg", Encoding{Depth: 16}, Encoding{}},
		{"a.hdr", Encoding{}, Encoding{Format: FormatHDR}},
		{"a.pfm", Encoding{Depth: 32}, Encoding{}},
	} {
		dir := t.TempDir()
		o, err := Create(filepath.Join(dir, tc.path), tc.enc)
		if tc.want.Format == "" {
			if err == nil {
				o.Abort()
				t.Errorf("%s %+v: accepted", tc.path, tc.enc)
			}
		} else if err != nil {
			t.Errorf("%s %+v: %v", tc.path, tc.enc, err)
		} else {
			if got := o.Encoding(); got != tc.want {
				t.Errorf("%s %+v: encoding %+v, want %+v", tc.path, tc.enc, got, tc.want)
			}
			o.Abort()
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s %+v: %d files left behind", tc.path, tc.enc, len(entries))
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
	o, err := Create(link, Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	if !o.IsFile(existing) || !o.IsFile(link) || o.IsFile(filepath.Join(dir, "other.png")) {
		t.Errorf("existing output: IsFile wrong")
	}
	n, err := Create(filepath.Join(dir, "new.png"), Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Abort()
	if !n.IsFile(filepath.Join(dir, "sub", "..", "new.png")) || n.IsFile(existing) {
		t.Errorf("new output: IsFile wrong")
	}
}
