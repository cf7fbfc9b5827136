package checkpoint

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// testHeader is a 5×3 frame in 2-pixel tiles: six tiles of 4, 4, 2, 2, 2
// and 1 pixels, small enough to cut at every byte.
var testHeader = Header{
	Scene:    sha256.Sum256([]byte("scene")),
	Settings: tracer.Settings{Width: 5, Height: 3, Samples: 4, MaxDepth: 8, Integrator: tracer.IntegratorPath, Seed: 7},
	TileSize: 2,
}

var testGrid = scheduler.Tiles(5, 3, 2)

// tilePixels are made-up pixels for tile id, with values whose bits must
// survive: negative zero, the largest float32, a subnormal. (An infinity
// is refused on reading: see TestImpossiblePixelsRefused.)
func tilePixels(id int) []float32 {
	r := testGrid[id].Rect
	pix := make([]float32, 3*r.Dx()*r.Dy())
	for i := range pix {
		pix[i] = float32(id) + float32(i)/16
	}
	switch id {
	case 0:
		pix[0], pix[1] = float32(math.Copysign(0, -1)), math.MaxFloat32
	case 1:
		pix[2] = math.Float32frombits(1)
	}
	return pix
}

// writeCheckpoint writes a checkpoint of the tiles ids, in that order, and
// returns its path and the file's size after each record.
func writeCheckpoint(t *testing.T, ids ...int) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ck")
	w, err := Create(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	ends := []int64{headerEnd}
	for _, id := range ids {
		if err := w.Add(testGrid[id], tilePixels(id)); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, fi.Size())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, ends
}

// checkTiles fails unless c holds exactly the tiles ids, with their bits.
func checkTiles(t *testing.T, c *Checkpoint, ids ...int) {
	t.Helper()
	if len(c.Tiles) != len(ids) {
		t.Errorf("%d tiles, want %d (%v)", len(c.Tiles), len(ids), ids)
	}
	for _, id := range ids {
		got, ok := c.Tiles[id]
		if !ok {
			t.Errorf("tile %d missing", id)
			continue
		}
		for i, v := range tilePixels(id) {
			if math.Float32bits(got[i]) != math.Float32bits(v) {
				t.Errorf("tile %d value %d: %v, want %v", id, i, got[i], v)
				break
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	path, ends := writeCheckpoint(t, 3, 0, 5, 1, 4, 2)
	c, err := Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, c, 0, 1, 2, 3, 4, 5)
	if c.Header != testHeader || c.Size != ends[len(ends)-1] || c.Discarded != 0 || c.Warning() != "" {
		t.Errorf("header %+v, size %d, discarded %d, warning %q; want %+v, %d, 0, none",
			c.Header, c.Size, c.Discarded, c.Warning(), testHeader, ends[len(ends)-1])
	}
	// A tile is 8 bytes of frame, 21 of ID and rectangle, and its pixels:
	// tile 3 has 2×1.
	if n := ends[1] - ends[0]; n != 8+21+12*2 {
		t.Errorf("tile 3 took %d bytes, want %d", n, 8+21+12*2)
	}
}

// A resumed checkpoint keeps its tiles and takes new ones after them.
func TestAppend(t *testing.T) {
	path, _ := writeCheckpoint(t, 0, 1, 2)
	c, err := Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Append(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{5, 3, 4} {
		if err := w.Add(testGrid[id], tilePixels(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, c, 0, 1, 2, 3, 4, 5)
}

func TestCreateNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck")
	if err := os.WriteFile(path, []byte("precious"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, testHeader); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Create over a file: %v, want an error saying it exists", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Errorf("the file now holds %q", b)
	}
}

// A checkpoint is refused for another scene, or when any setting that
// changes pixels, or the tile grid, differs — naming what.
func TestHeaderMismatchRefused(t *testing.T) {
	path, _ := writeCheckpoint(t, 0, 1)
	for _, c := range []struct {
		change func(*Header)
		want   string
	}{
		{func(h *Header) { h.Scene[31]++ }, "written for another scene (scene hash "},
		{func(h *Header) { h.Settings.Width = 6 }, "width 5 (this render: 6)"},
		{func(h *Header) { h.Settings.Height = 4 }, "height 3 (this render: 4)"},
		{func(h *Header) { h.Settings.Samples = 5 }, "samples 4 (this render: 5)"},
		{func(h *Header) { h.Settings.MaxDepth = 3 }, "max depth 8 (this render: 3)"},
		{func(h *Header) { h.Settings.Integrator = tracer.IntegratorWhitted }, "integrator path (this render: whitted)"},
		{func(h *Header) { h.Settings.Seed = 8 }, "seed 7 (this render: 8)"},
		{func(h *Header) { h.TileSize = 4 }, "tile size 2 (this render: 4)"},
		{func(h *Header) { h.Settings.Samples, h.Settings.Seed = 1, 2 }, "samples 4 (this render: 1), seed 7 (this render: 2)"},
	} {
		want := testHeader
		c.change(&want)
		_, err := Read(path, want)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "checkpoint "+path+": ") {
			t.Errorf("error %v, want one naming the file and containing %q", err, c.want)
		}
	}
}

// Cut at every byte, a checkpoint is either refused (the header is cut)
// or recovered with exactly the records before the cut, and a resume from
// it completes the file.
func TestTruncatedAtEveryByte(t *testing.T) {
	ids := []int{4, 0, 5, 2, 1, 3}
	path, ends := writeCheckpoint(t, ids...)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cutPath := filepath.Join(t.TempDir(), "cut")
	for cut := range len(full) {
		if err := os.WriteFile(cutPath, full[:cut], 0o666); err != nil {
			t.Fatal(err)
		}
		c, err := Read(cutPath, testHeader)
		if cut < headerEnd {
			if err == nil || !strings.Contains(err.Error(), "header cut short") {
				t.Fatalf("cut at %d: error %v, want the header cut short", cut, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n := 0
		for n+1 < len(ends) && ends[n+1] <= int64(cut) {
			n++
		}
		checkTiles(t, c, ids[:n]...)
		if c.Size != ends[n] || c.Discarded != int64(cut)-ends[n] {
			t.Fatalf("cut at %d: size %d, discarded %d; want %d, %d", cut, c.Size, c.Discarded, ends[n], int64(cut)-ends[n])
		}
		if w := c.Warning(); c.Discarded > 0 && !strings.Contains(w, "cut short") {
			t.Fatalf("cut at %d: warning %q", cut, w)
		}
		// Resume: the cut record is truncated away and the file completed.
		w, err := Append(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[n:] {
			if err := w.Add(testGrid[id], tilePixels(id)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if c, err = Read(cutPath, testHeader); err != nil || c.Discarded != 0 {
			t.Fatalf("cut at %d, resumed: %v, %d bytes discarded", cut, err, c.Discarded)
		}
		checkTiles(t, c, ids...)
	}
}

// A flipped byte anywhere in a record drops that record and every one
// after it; in the header it refuses the file.
func TestFlippedByte(t *testing.T) {
	ids := []int{0, 1, 2, 3}
	path, ends := writeCheckpoint(t, ids...)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	for i := range full {
		b := append([]byte(nil), full...)
		b[i] ^= 0x10
		if err := os.WriteFile(bad, b, 0o666); err != nil {
			t.Fatal(err)
		}
		c, err := Read(bad, testHeader)
		switch {
		case i < 8:
			if err == nil || !strings.Contains(err.Error(), "not a trace checkpoint") {
				t.Fatalf("byte %d flipped: %v, want not a checkpoint", i, err)
			}
		case i < preambleSize:
			if err == nil || !strings.Contains(err.Error(), "format version") {
				t.Fatalf("byte %d flipped: %v, want the version named", i, err)
			}
		case i < headerEnd:
			if err == nil || !strings.Contains(err.Error(), "header damaged") {
				t.Fatalf("byte %d flipped: %v, want the header damaged", i, err)
			}
		default:
			if err != nil {
				t.Fatalf("byte %d flipped: %v", i, err)
			}
			n := 0
			for ends[n+1] <= int64(i) {
				n++
			}
			checkTiles(t, c, ids[:n]...)
			if c.Size != ends[n] || c.Discarded != int64(len(full))-ends[n] {
				t.Fatalf("byte %d flipped: size %d, discarded %d; want %d, %d", i, c.Size, c.Discarded, ends[n], int64(len(full))-ends[n])
			}
			if w := c.Warning(); !strings.Contains(w, "discarded the last") {
				t.Fatalf("byte %d flipped: warning %q", i, w)
			}
		}
	}
}

// The first record of a tile wins.
func TestDuplicateTileKeepsFirst(t *testing.T) {
	path, _ := writeCheckpoint(t, 1, 2)
	c, _ := Read(path, testHeader)
	w, err := Append(c)
	if err != nil {
		t.Fatal(err)
	}
	other := tilePixels(1)
	other[0] = 42
	if err := w.Add(testGrid[1], other); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = Read(path, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	checkTiles(t, c, 1, 2)
	if c.Duplicates != 1 {
		t.Errorf("%d duplicates, want 1", c.Duplicates)
	}
}

// A record that holds its checksum but not the tile grid is no crash's
// doing: an error, not a warning.
func TestRecordOffGridIsError(t *testing.T) {
	path, ends := writeCheckpoint(t, 0)
	p := append([]byte{'T'}, make([]byte, 20+12)...)
	p[1] = 9 // tile 9 of 6
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(appendRecord(nil, p))
	f.Close()
	_, err = Read(path, testHeader)
	if want := "record at byte " + strconv.FormatInt(ends[1], 10) + ": tile 9 is not in the grid of 6 tiles"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestAddRejectsOffGrid(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "ck"), testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct {
		tile scheduler.Tile
		n    int
	}{
		{scheduler.Tile{ID: 6, Rect: testGrid[5].Rect}, 3},
		{scheduler.Tile{ID: 5, Rect: testGrid[4].Rect}, 6},
		{testGrid[0], 11},
	} {
		if err := w.Add(c.tile, make([]float32, c.n)); err == nil {
			t.Errorf("Add(%v, %d values) accepted", c.tile, c.n)
		}
	}
	if w.Tiles() != 0 {
		t.Errorf("%d tiles written", w.Tiles())
	}
}

func TestNotACheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.png")
	os.WriteFile(path, []byte("\x89PNG\r\n\x1a\n...."), 0o666)
	if _, err := Read(path, testHeader); err == nil || !strings.Contains(err.Error(), "not a trace checkpoint") {
		t.Errorf("error %v, want not a checkpoint", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none"), testHeader); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want a missing file", err)
	}
}

// The scene hash follows the contents of the scene and its assets, not
// the path they were read by.
func TestSceneHash(t *testing.T) {
	b := &scenes.Bundle{Name: "a/scene.json", Dir: "/x/a", Scene: []byte(`{"version": 1}`),
		Files: map[string][]byte{"m.obj": []byte("v 0 0 0"), "t.png": []byte("png")}}
	h := SceneHash(b)
	moved := *b
	moved.Name, moved.Dir = "scene.json", "/y"
	if SceneHash(&moved) != h {
		t.Error("the hash depends on the scene's path")
	}
	for name, change := range map[string]func(*scenes.Bundle){
		"scene": func(b *scenes.Bundle) { b.Scene = []byte(`{"version": 1} `) },
		"asset": func(b *scenes.Bundle) {
			b.Files = map[string][]byte{"m.obj": []byte("v 0 0 1"), "t.png": []byte("png")}
		},
		"asset name": func(b *scenes.Bundle) {
			b.Files = map[string][]byte{"n.obj": []byte("v 0 0 0"), "t.png": []byte("png")}
		},
		"boundary": func(b *scenes.Bundle) {
			b.Files = map[string][]byte{"m.obj": []byte("v 0 0 0t.png"), "": []byte("png")}
		},
	} {
		c := *b
		change(&c)
		if SceneHash(&c) == h {
			t.Errorf("changing the %s keeps the hash", name)
		}
	}
}
