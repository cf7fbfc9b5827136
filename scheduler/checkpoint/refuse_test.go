package checkpoint

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// Records whose checksums hold but whose pixels no render produces —
// NaN, infinite, negative — are refused with a warning, and their tiles
// are rendered again; a later good record of the same tile is taken.
func TestImpossiblePixelsRefused(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -0.5} {
		path, _ := writeCheckpoint(t)
		w, err := Append(mustRead(t, path))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []int{0, 2, 3} {
			pix := tilePixels(id)
			if id != 0 {
				pix[len(pix)-1] = bad
			}
			if err := w.Add(testGrid[id], pix); err != nil {
				t.Fatal(err)
			}
		}
		good := tilePixels(3)
		if err := w.Add(testGrid[3], good); err != nil { // rendered again after a resume
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		c := mustRead(t, path)
		checkTiles(t, c, 0, 3)
		if !slices.Equal(c.Refused, []int{2, 3}) {
			t.Errorf("pixel %v: refused tiles %v, want [2 3]", bad, c.Refused)
		}
		if msg := c.Warning(); !strings.Contains(msg, "refused 2 tile records") || !strings.Contains(msg, "tile 2") {
			t.Errorf("pixel %v: warning %q", bad, msg)
		}
		if c.Duplicates != 0 {
			t.Errorf("pixel %v: %d duplicates; a refused record is not one", bad, c.Duplicates)
		}
	}
}

func mustRead(t *testing.T, path string) *Checkpoint {
	t.Helper()
	c, err := Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A path that is not a regular file is refused before it is opened for
// reading: a folder here; a named pipe in TestFIFORefused.
func TestFolderRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir, testHeader); err == nil || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("Read of a folder: %v", err)
	}
	if _, err := Append(&Checkpoint{Path: dir, Header: testHeader}); err == nil || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("Append to a folder: %v", err)
	}
	if _, err := Read(dir+"/missing", testHeader); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("Read of a missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}
