//go:build unix

package checkpoint

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A checkpoint that a render is writing is refused to a second render —
// to Read, Create and Append — until the first closes it: two renders
// would render every tile twice, and the second's Append could cut a
// record the first was writing.
func TestCheckpointInUseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck")
	w, err := Create(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(testGrid[0], tilePixels(0)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path, testHeader); !errors.Is(err, errInUse) {
		t.Errorf("Read while a writer holds the file: %v, want errInUse", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := Append(c)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := Read(path, testHeader); !errors.Is(err, errInUse) || !strings.Contains(err.Error(), "another render is writing it") {
		t.Errorf("Read while an appender holds the file: %v, want errInUse", err)
	}
	if _, err := Append(c); !errors.Is(err, errInUse) {
		t.Errorf("a second Append: %v, want errInUse", err)
	}
}
