//go:build unix

package checkpoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// A render killed between writing a checkpoint's header under its
// temporary name and linking it into place leaves .NAME.new-PID-N behind:
// the next Create of NAME removes such files of processes that have
// ended, and nothing else — not a file a live process (or a lock) holds,
// not a name of another pattern or checkpoint, not a link or a folder.
func TestCreateRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	// A process that has ended: its ID is free.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Skip("no process to start:", err)
	}
	dead, me := child.Process.Pid, os.Getpid()
	var header []byte
	{
		w, err := Create(filepath.Join(dir, "model.ckpt"), testHeader)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		header, _ = os.ReadFile(filepath.Join(dir, "model.ckpt"))
		os.Remove(filepath.Join(dir, "model.ckpt"))
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o666); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := []string{
		write(fmt.Sprintf(".c.ckpt.new-%d-1", dead), header),
		write(fmt.Sprintf(".c.ckpt.new-%d-7", dead), header[:10]), // killed mid-header
	}
	kept := []string{
		write(fmt.Sprintf(".c.ckpt.new-%d-999999", me), header),  // a live process
		write(fmt.Sprintf(".c.ckpt.new-%d-3x", dead), header),    // not the pattern
		write(fmt.Sprintf(".c.ckpt.new-%d", dead), header),       // nor this
		write(fmt.Sprintf(".c.ckpt.new--%d-1", dead), header),    // nor this
		write(fmt.Sprintf("c.ckpt.new-%d-1", dead), header),      // nor this
		write(fmt.Sprintf(".c.ckpt.new-%d-1.bak", dead), header), // nor this
		write(fmt.Sprintf(".d.ckpt.new-%d-1", dead), header),     // another checkpoint's
		write(fmt.Sprintf(".C.ckpt.new-%d-1", dead), header),     // another checkpoint's
	}
	locked := write(fmt.Sprintf(".c.ckpt.new-%d-4", dead), header)
	kept = append(kept, locked)
	f, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	target := write("target", header)
	link := filepath.Join(dir, fmt.Sprintf(".c.ckpt.new-%d-5", dead))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, fmt.Sprintf(".c.ckpt.new-%d-6", dead))
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, target, link, folder)

	w, err := Create(filepath.Join(dir, "c.ckpt"), testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range stale {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s, left by a process that ended, is still there", filepath.Base(p))
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := len(kept) + 1; len(names) != want || !slices.Contains(names, "c.ckpt") {
		t.Errorf("the folder holds %q, want the %d kept files and c.ckpt", names, len(kept))
	}
}

// TestTempPID: only names of exactly create's pattern give a process ID.
func TestTempPID(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".c.new-12-3", 12, true}, {".c.new-12-", 0, false}, {".c.new--3", 0, false},
		{".c.new-1a-3", 0, false}, {".c.new-12-3-4", 0, false}, {".c.new-0-1", 0, false},
		{"c.new-12-3", 0, false}, {".cc.new-12-3", 0, false}, {".c.new-+1-2", 0, false},
		{".c.new-99999999999999999999-1", 0, false},
	} {
		if pid, ok := tempPID(tc.name, "c"); pid != tc.pid || ok != tc.ok {
			t.Errorf("tempPID(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}
