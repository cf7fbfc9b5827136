package checkpoint

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that reading any bytes as a checkpoint never panics or
// allocates past the file's size, and that what it accepts is usable:
// tiles of the frame's grid, each with its tile's number of pixels, every
// value finite and not negative, and an intact size within the file.
func FuzzRead(f *testing.F) {
	path := filepath.Join(f.TempDir(), "ck")
	w, err := Create(path, testHeader)
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []int{0, 3, 5} {
		if err := w.Add(testGrid[id], tilePixels(id)); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-5])
	f.Add(data[:headerEnd])
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-9] ^= 0x80
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := read(bytes.NewReader(data), int64(len(data)), testHeader)
		if err != nil {
			return
		}
		if c.Size < 0 || c.Size > int64(len(data)) || c.Discarded < 0 || c.Size+c.Discarded > int64(len(data)) {
			t.Fatalf("intact size %d and %d discarded of a %d-byte file", c.Size, c.Discarded, len(data))
		}
		for id, pix := range c.Tiles {
			if id < 0 || id >= len(testGrid) {
				t.Fatalf("tile %d is not in the grid of %d", id, len(testGrid))
			}
			r := testGrid[id].Rect
			if len(pix) != 3*r.Dx()*r.Dy() {
				t.Fatalf("tile %d: %d values for %d pixels", id, len(pix), r.Dx()*r.Dy())
			}
			for _, v := range pix {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || v < 0 {
					t.Fatalf("tile %d: pixel value %v accepted", id, v)
				}
			}
		}
	})
}
