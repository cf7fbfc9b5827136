package checkpoint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A checkpoint never appears at its path without its whole header: a
// process killed, or a machine that lost power, while Create wrote it
// leaves nothing there that --resume must refuse ("header cut short"),
// and the same command line starts the render again.
func TestCreateHeaderBeforeName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck")
	calls := 0
	beforeHeader = func() {
		calls++
		if fi, err := os.Stat(path); err == nil {
			t.Errorf("the checkpoint is at its path, %d bytes, before its header is written", fi.Size())
		}
	}
	defer func() { beforeHeader = func() {} }()
	w, err := Create(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	beforeHeader = func() {}
	if calls != 1 {
		t.Errorf("the header was written %d times, want 1", calls)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the checkpoint", len(entries))
	}
	if _, err := Read(path, testHeader); err != nil {
		t.Error(err)
	}
	if _, err := Create(path, testHeader); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over the checkpoint: %v, want fs.ErrExist", err)
	}
}
