package checkpoint

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestAppendRefusesReplacedFile: a file that took the checkpoint's name
// between Read and Append (longer than the intact part Read found) is
// refused, not cut to that part's length.
func TestAppendRefusesReplacedFile(t *testing.T) {
	path, _ := writeCheckpoint(t, 0)
	c, err := Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Repeat([]byte("another file's bytes "), 1000)
	if int64(len(other)) <= c.Size {
		t.Fatalf("the other file (%d bytes) must be longer than %d", len(other), c.Size)
	}
	tmp := path + ".other"
	if err := os.WriteFile(tmp, other, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	w, err := Append(c)
	if err == nil {
		w.Close()
		t.Error("Append wrote into the file that took the checkpoint's name")
	} else if !strings.Contains(err.Error(), "another file took its name") {
		t.Errorf("Append: %v, want an error saying another file took the name", err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, other) {
		t.Errorf("the other file has %d bytes now, had %d", len(data), len(other))
	}
}
