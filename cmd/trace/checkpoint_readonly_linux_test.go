package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// readOnly makes the file at path one that this process cannot open for
// writing, as on read-only storage: its permissions 0444, or for root,
// whom permissions do not stop, the file system's immutable flag (the
// test is skipped where the file system has none). The file is made
// writable again when the test ends.
func readOnly(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	const (
		getFlags  = 0x80086601 // FS_IOC_GETFLAGS
		setFlags  = 0x40086602 // FS_IOC_SETFLAGS
		immutable = 0x10       // FS_IMMUTABLE_FL
	)
	set := func(on bool) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		var flags int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), getFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		if on {
			flags |= immutable
		} else {
			flags &^= immutable
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), setFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		return nil
	}
	if err := set(true); err != nil {
		t.Skipf("cannot make %s immutable here (%v): running as root, permissions would not stop a write", path, err)
	}
	t.Cleanup(func() { set(false) })
}

// TestResumeReadOnlyCheckpoint: a checkpoint that holds every tile is
// resumed from read-only storage, only read, to the same image — unless
// a render holds its lock; one that lacks tiles, which resuming must
// record into it, is refused with one line that says it cannot be written.
func TestResumeReadOnlyCheckpoint(t *testing.T) {
	want, ck := smallCheckpoint(t)
	full, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	readOnly(t, ck)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	code, _, stderr := runCLI(smallArgs(cornell, out, "--resume", ck)...)
	if code != 0 || !strings.Contains(stderr, "16 of 16 tiles resumed") {
		t.Fatalf("complete read-only checkpoint: exit %d, %q; want 0 and 16 of 16 tiles resumed", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("the image from the read-only checkpoint differs from the render's")
	}
	if after, _ := os.ReadFile(ck); !bytes.Equal(after, full) {
		t.Errorf("the checkpoint changed")
	}

	// A render writing it holds its lock: refused, even complete.
	f, err := os.Open(ck)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(smallArgs(cornell, filepath.Join(dir, "locked.png"), "--resume", ck)...)
	f.Close()
	if code != exitUsage || !strings.Contains(stderr, "another render is writing it") {
		t.Errorf("locked complete checkpoint: exit %d, %q; want %d and another render is writing it", code, stderr, exitUsage)
	}

	// Three tiles of sixteen: the other thirteen would be recorded.
	part := filepath.Join(dir, "part.ckpt")
	if err := os.WriteFile(part, full[:ckHeaderBytes+3*ckTile8Bytes], 0o666); err != nil {
		t.Fatal(err)
	}
	readOnly(t, part)
	code, _, stderr = runCLI(smallArgs(cornell, filepath.Join(dir, "part.png"), "--resume", part)...)
	if want := "trace: checkpoint " + part + " cannot be written ("; code != exitUsage || !strings.HasPrefix(stderr, want) ||
		!strings.Contains(stderr, "the 13 of 16 tiles it lacks") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("incomplete read-only checkpoint: exit %d, %q; want %d and one line starting %q", code, stderr, exitUsage, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "part.png")); err == nil {
		t.Errorf("an image was written from an incomplete checkpoint that could not be resumed")
	}
}
