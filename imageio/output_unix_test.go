//go:build unix

package imageio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracerender/trace/tracer"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// commitOutput renders a black 4×2 image into path through Create
// and Commit.
func commitOutput(t *testing.T, path string) error {
	t.Helper()
	o, err := Create(path, Encoding{})
	if err != nil {
		return err
	}
	defer o.Abort()
	return o.Commit(context.Background(), tracer.NewFramebuffer(4, 2), &tracer.Film{})
}

// TestOutputRegularFile: a new file appears whole with no temporary file
// left beside it; an existing one is replaced.
func TestOutputRegularFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	for range 2 {
		if err := commitOutput(t, out); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(out); !bytes.HasPrefix(data, pngMagic) {
			t.Fatalf("%s is not a PNG", out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only out.png", len(entries))
	}
}

// TestOutputNotRegular: an output that exists and is not a regular file
// is written through (a character device, a named pipe) or refused (a
// directory, a socket, a link to nothing), never replaced.
func TestOutputNotRegular(t *testing.T) {
	t.Run("link to /dev/null", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "null.png")
		if err := os.Symlink("/dev/null", link); err != nil {
			t.Fatal(err)
		}
		if err := commitOutput(t, link); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
		}
		if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("/dev/null is no longer a character device: %v %v", fi.Mode(), err)
		}
	})
	t.Run("named pipe", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "pipe.png")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		o, err := Create(fifo, Encoding{}) // no reader yet: must not block
		if err != nil {
			t.Fatal(err)
		}
		defer o.Abort()
		got := make(chan []byte, 1)
		go func() {
			data, _ := os.ReadFile(fifo) // waits for the writer
			got <- data
		}()
		done := make(chan error, 1)
		go func() { done <- o.Commit(context.Background(), tracer.NewFramebuffer(4, 2), &tracer.Film{}) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Commit blocked on the pipe")
		}
		select {
		case data := <-got:
			if !bytes.HasPrefix(data, pngMagic) {
				t.Errorf("the reader got %d bytes, not a PNG", len(data))
			}
		case <-time.After(10 * time.Second):
			t.Error("the reader got nothing")
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
		}
	})
	t.Run("named pipe cancelled", func(t *testing.T) {
		// Commit into a pipe ends with ctx: while no reader has opened
		// it, and while a reader that opened it reads nothing (a PNG
		// larger than the pipe's buffer).
		for _, reader := range []bool{false, true} {
			fifo := filepath.Join(t.TempDir(), "pipe.png")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("mkfifo:", err)
			}
			o, err := Create(fifo, Encoding{})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Abort()
			if reader {
				r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close() // never read
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			fb := tracer.NewFramebuffer(512, 512)
			x := uint32(1)
			for i := range fb.Pix {
				x = x*1664525 + 1013904223
				fb.Pix[i] = float32(x>>8) / (1 << 24) // noise: a PNG far larger than the pipe holds
			}
			go func() { done <- o.Commit(ctx, fb, &tracer.Film{}) }()
			time.Sleep(200 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("reader %v: Commit returned %v, want context.Canceled", reader, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("reader %v: Commit still blocked 10 s after its context ended", reader)
			}
		}
	})
	refused := []struct {
		name string
		make func(p string) error
		want string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "is a directory"},
		{"socket", func(p string) error { _, err := net.Listen("unix", p); return err }, "is a socket"},
		{"dangling link", func(p string) error { return os.Symlink("missing.png", p) }, "which does not exist"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "out.png")
			if err := tc.make(p); err != nil {
				t.Skip(err)
			}
			before, _ := os.Lstat(p)
			err := commitOutput(t, p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			if after, _ := os.Lstat(p); after == nil || after.Mode() != before.Mode() {
				t.Errorf("out.png was replaced")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the folder holds %d files, want only out.png", len(entries))
			}
		})
	}
}

// TestOutputSymlink: a link to a regular file stays a link, and its target
// gets the image, atomically and with its permissions kept.
func TestOutputSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "images", "real.png")
	os.Mkdir(filepath.Dir(real), 0o755)
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.png")
	if err := os.Symlink("images/real.png", link); err != nil {
		t.Fatal(err)
	}
	if err := commitOutput(t, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a %v", fi.Mode())
	}
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(real); !bytes.HasPrefix(data, pngMagic) {
		t.Errorf("the link's target is not a PNG")
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode is %v, want 0600 as before", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(real)); len(entries) != 1 {
		t.Errorf("the target's folder holds %d files, want only real.png", len(entries))
	}
}

// TestOutputMode: a new file gets 0666 less the umask; a replaced file
// keeps its mode.
func TestOutputMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	out := filepath.Join(dir, "new.png")
	if err := commitOutput(t, out); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o640 {
		t.Errorf("new file: mode %v, want 0640 (umask 027)", fi.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept.png")
	os.WriteFile(kept, nil, 0o600)
	os.Chmod(kept, 0o604)
	if err := commitOutput(t, kept); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o604 {
		t.Errorf("replaced file: mode %v, want 0604 as before", fi.Mode().Perm())
	}
}

// TestOutputStaleTemps: the temporary file of a render that was killed is
// removed by the next render of the same output; those of live processes
// and of other outputs stay.
func TestOutputStaleTemps(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	name := func(base string, pid int) string {
		return filepath.Join(dir, tempPrefix(base)+tempHost()+"-"+strconv.Itoa(pid)+"-1")
	}
	stale := name("out.png", gone.Process.Pid)
	live := name("out.png", os.Getppid())
	other := name("other.png", gone.Process.Pid)
	for _, p := range []string{stale, live, other} {
		if err := os.WriteFile(p, []byte("half an image"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The temporary file Create makes is named so, too.
	o, err := Create(filepath.Join(dir, "out.png"), Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	if !strings.HasPrefix(filepath.Base(o.tmp.Name()), tempPrefix("out.png")+tempHost()+"-"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("temporary file %s is not named for its process", o.tmp.Name())
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the killed render's temporary file is still there")
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}

// TestOutputKilled: a render killed with SIGKILL leaves its temporary file;
// the next Create of the same path removes it.
func TestOutputKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary as a child process")
	}
	if p := os.Getenv("TRACE_OUTPUT_CHILD"); p != "" {
		if _, err := Create(p, Encoding{}); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutputKilled$")
	cmd.Env = append(os.Environ(), "TRACE_OUTPUT_CHILD="+out)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(stdout, buf); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the killed child left %d files, want its temporary file", len(entries))
	}
	if err := commitOutput(t, out); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "out.png" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v, want only out.png", names)
	}
}

// TestOutputPipeReplaced: a named pipe that had no reader at Create and
// is replaced by a regular file before Commit (a render lasts long
// enough) is refused, the file left as it was, not written over.
func TestOutputPipeReplaced(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	o, err := Create(fifo, Encoding{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Abort()
	precious := []byte("precious data that is no image")
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fifo, precious, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = o.Commit(ctx, tracer.NewFramebuffer(4, 2), &tracer.Film{})
	if err == nil || !strings.Contains(err.Error(), "no longer the named pipe") {
		t.Errorf("Commit into a pipe replaced by a file: %v, want an error saying so", err)
	}
	if data, _ := os.ReadFile(fifo); !bytes.Equal(data, precious) {
		t.Errorf("the file that took the pipe's place now holds %q", data[:min(len(data), 16)])
	}
}
