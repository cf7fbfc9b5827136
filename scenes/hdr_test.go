package scenes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// rgbe returns the linear value of RGBE mantissa m and exponent e.
func rgbe(m, e uint8) float32 {
	if e == 0 {
		return 0
	}
	return float32(math.Ldexp(float64(m), int(e)-136))
}

// hdrPixels are test pixels, RGBE, with the values they decode to.
func hdrPixels(n int) (px [][4]uint8, want []float32) {
	for i := range n {
		// Runs of equal values and changing ones, in every channel.
		p := [4]uint8{uint8(128 + i/3), uint8(200 - i%2), uint8(i * 7), uint8(120 + i/4)}
		if i == 5 {
			p = [4]uint8{0, 0, 0, 0} // black
		}
		px = append(px, p)
		want = append(want, rgbe(p[0], p[3]), rgbe(p[1], p[3]), rgbe(p[2], p[3]))
	}
	return px, want
}

// hdrFile returns a Radiance HDR file of w×h pixels, written flat
// (rle false) or in the new run-length encoding.
func hdrFile(w, h int, px [][4]uint8, rle bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#?RADIANCE\n# made by a test\nFORMAT=32-bit_rle_rgbe\nEXPOSURE=2\n\n-Y %d +X %d\n", h, w)
	for y := range h {
		row := px[y*w : (y+1)*w]
		if !rle {
			for _, p := range row {
				b.Write(p[:])
			}
			continue
		}
		b.Write([]byte{2, 2, byte(w >> 8), byte(w)})
		for c := range 4 {
			b.Write(rleChannel(row, c))
		}
	}
	return b.Bytes()
}

// rleChannel encodes channel c of row: runs of three or more equal bytes
// as runs, the rest as literals, each at most 127 long (128 for literals).
func rleChannel(row [][4]uint8, c int) []byte {
	var out, lit []byte
	flush := func() {
		for len(lit) > 0 {
			n := min(len(lit), 128)
			out = append(out, byte(n))
			out = append(out, lit[:n]...)
			lit = lit[n:]
		}
	}
	for x := 0; x < len(row); {
		run := 1
		for x+run < len(row) && run < 127 && row[x+run][c] == row[x][c] {
			run++
		}
		if run >= 3 {
			flush()
			out = append(out, byte(128+run), row[x][c])
			x += run
			continue
		}
		lit = append(lit, row[x][c])
		x++
	}
	flush()
	return out
}

// TestDecodeHDR decodes flat and run-length encoded files, and one with
// the old encoding's repeats, bottom-up or top-down.
func TestDecodeHDR(t *testing.T) {
	const w, h = 12, 3
	px, want := hdrPixels(w * h)
	for _, rle := range []bool{false, true} {
		data := hdrFile(w, h, px, rle)
		for _, srgb := range []bool{true, false} { // ignored
			img, err := decodeImage(data, "sky.hdr", srgb)
			if err != nil {
				t.Fatalf("rle %v: %v", rle, err)
			}
			if img.Width != w || img.Height != h || !slicesEqual(img.Pix, want) {
				t.Errorf("rle %v: %d×%d %v, want %d×%d %v", rle, img.Width, img.Height, img.Pix, w, h, want)
			}
		}
	}
	// A run-length encoded row is recognised only from 8 pixels wide; a
	// 4-wide file starting with (2, 2, x, y) is flat.
	narrow := [][4]uint8{{2, 2, 0, 130}, {128, 128, 128, 129}, {3, 4, 5, 6}, {255, 255, 255, 255}}
	img, err := decodeImage(hdrFile(4, 1, narrow, false), "narrow.hdr", true)
	if err != nil {
		t.Fatal(err)
	}
	wantNarrow := []float32{rgbe(2, 130), rgbe(2, 130), 0, 1, 1, 1, rgbe(3, 6), rgbe(4, 6), rgbe(5, 6), rgbe(255, 255), rgbe(255, 255), rgbe(255, 255)}
	if !slicesEqual(img.Pix, wantNarrow) {
		t.Errorf("flat 4-wide: %v, want %v", img.Pix, wantNarrow)
	}
	// Old run-length encoding: (1, 1, 1, n) repeats the previous pixel n
	// times; a second repeat in a row counts 256 times as much.
	old := []byte("#?RADIANCE\n\n+Y 2 +X 4\n")
	old = append(old, 128, 64, 32, 130, 1, 1, 1, 3) // bottom row: one pixel and 3 repeats
	old = append(old, 10, 20, 30, 140, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0)
	img, err = decodeImage(old, "old.hdr", true)
	if err != nil {
		t.Fatal(err)
	}
	a := []float32{rgbe(10, 140), rgbe(20, 140), rgbe(30, 140)}
	b := []float32{rgbe(128, 130), rgbe(64, 130), rgbe(32, 130)}
	var wantOld []float32
	for _, p := range [][]float32{a, a, {0, 0, 0}, {0, 0, 0}, b, b, b, b} {
		wantOld = append(wantOld, p...)
	}
	if !slicesEqual(img.Pix, wantOld) {
		t.Errorf("old RLE, +Y: %v, want %v", img.Pix, wantOld)
	}
}

// TestDecodeHDRErrors checks broken and unsupported files.
func TestDecodeHDRErrors(t *testing.T) {
	px, _ := hdrPixels(8 * 2)
	rle := hdrFile(8, 2, px, true)
	head := "#?RADIANCE\n\n-Y 1 +X 8\n"
	tests := []struct {
		name string
		data string
		want string
	}{
		{"no end", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n", "the header does not end (with an empty line)"},
		{"no resolution", "#?RADIANCE\n\n", "no resolution line after the header"},
		{"xyze", "#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n", `unsupported pixel format "32-bit_rle_xyze" (only 32-bit_rle_rgbe is read)`},
		{"columns", "#?RADIANCE\n\n+X 1 -Y 1\n", `unsupported resolution line "+X 1 -Y 1" (expected "-Y height +X width")`},
		{"number", "#?RADIANCE\n\n-Y one +X 1\n", `bad resolution line "-Y one +X 1"`},
		{"truncated flat", "#?RADIANCE\n\n-Y 2 +X 1\n\x80\x80\x80\x80", "scanline 1: the file ends early"},
		{"truncated rle", string(rle[:len(rle)-3]), "scanline 1: the file ends early"},
		{"width", head + "\x02\x02\x00\x09", "scanline 0: the scanline says it is 9 pixels wide, not 8"},
		{"long run", head + "\x02\x02\x00\x08\x89\x00", "scanline 0: a run goes past the end of the scanline"},
		{"long literal", head + "\x02\x02\x00\x08\x09", "scanline 0: a run goes past the end of the scanline"},
		{"zero run", head + "\x02\x02\x00\x08\x00", "scanline 0: a run of length 0"},
		{"first repeat", "#?RADIANCE\n\n-Y 1 +X 2\n\x01\x01\x01\x01", "scanline 0: a run repeats a pixel before the first"},
		{"long repeat", "#?RADIANCE\n\n-Y 1 +X 2\n\x80\x80\x80\x80\x01\x01\x01\x02", "scanline 0: a run goes past the end of the scanline"},
	}
	for _, tt := range tests {
		_, err := decodeImage([]byte(tt.data), "x.hdr", false)
		if want := "x.hdr: Radiance HDR: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", tt.name, err, want)
		}
	}
}

// pfmFile returns a PFM file of w×h pixels of channels channels; vals
// holds them bottom row first, as the file does.
func pfmFile(w, h, channels int, little bool, vals []float32) []byte {
	magic, scale := "PF", "1.0"
	if channels == 1 {
		magic = "Pf"
	}
	var order binary.AppendByteOrder = binary.BigEndian
	if little {
		order, scale = binary.LittleEndian, "-1.0"
	}
	b := fmt.Appendf(nil, "%s\n%d %d\n%s\n", magic, w, h, scale)
	for _, v := range vals {
		b = order.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// TestDecodePFM decodes colour and grey maps in both byte orders; rows are
// stored bottom first and come out top first.
func TestDecodePFM(t *testing.T) {
	rgb := []float32{1, 2, 3, 0.5, 0, 1e30, 7, 8, 9, 0.25, 0.125, 100} // 2×2, bottom row first
	wantRGB := []float32{7, 8, 9, 0.25, 0.125, 100, 1, 2, 3, 0.5, 0, 1e30}
	grey := []float32{0.5, 2, 3} // 1×3
	wantGrey := []float32{3, 3, 3, 2, 2, 2, 0.5, 0.5, 0.5}
	for _, little := range []bool{true, false} {
		img, err := decodeImage(pfmFile(2, 2, 3, little, rgb), "a.pfm", true)
		if err != nil {
			t.Fatal(err)
		}
		if img.Width != 2 || img.Height != 2 || !slicesEqual(img.Pix, wantRGB) {
			t.Errorf("PF little %v: %d×%d %v, want %v", little, img.Width, img.Height, img.Pix, wantRGB)
		}
		img, err = decodeImage(pfmFile(1, 3, 1, little, grey), "g.pfm", true)
		if err != nil {
			t.Fatal(err)
		}
		if img.Width != 1 || img.Height != 3 || !slicesEqual(img.Pix, wantGrey) {
			t.Errorf("Pf little %v: %d×%d %v, want %v", little, img.Width, img.Height, img.Pix, wantGrey)
		}
	}
	// The scale's magnitude is ignored; −0 becomes 0; the header's white
	// space may be any.
	data := append([]byte("PF 1\t1  -4.5\r"), pfmFile(1, 1, 3, true, []float32{float32(math.Copysign(0, -1)), 2, 3})[len("PF\n1 1\n-1.0\n"):]...)
	img, err := decodeImage(data, "s.pfm", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 2, 3}; !slicesEqual(img.Pix, want) {
		t.Errorf("scale -4.5: %v, want %v", img.Pix, want)
	}
}

// TestDecodePFMErrors checks broken files and values that are not
// radiance.
func TestDecodePFMErrors(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"nan", pfmFile(2, 1, 3, true, []float32{1, 1, 1, 1, nan, 1}), "pixel (1, 0) from the top left is NaN"},
		{"inf", pfmFile(1, 2, 1, false, []float32{1, inf}), "pixel (0, 0) from the top left is +Inf"},
		{"negative", pfmFile(1, 2, 3, true, []float32{1, 1, -2, 1, 1, 1}), "pixel (0, 1) from the top left has a negative component, -2"},
		{"short", pfmFile(2, 2, 3, true, make([]float32, 11)), "44 bytes of pixels, 2×2 needs 48"},
		{"scale", []byte("PF\n1 1\n0\n"), `bad scale "0" (negative for little-endian, positive for big-endian)`},
		{"header", []byte("PF\n1 x\n-1\n"), `bad header (expected "PF width height scale")`},
		{"no space", []byte("PF\n1 1\n-1"), `bad header (expected "PF width height scale")`},
	}
	for _, tt := range tests {
		_, err := decodeImage(tt.data, "x.pfm", false)
		if want := "x.pfm: PFM: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", tt.name, err, want)
		}
	}
}

// FuzzDecodeImage checks that no input makes the decoders panic, and that
// what they return is consistent.
func FuzzDecodeImage(f *testing.F) {
	px, _ := hdrPixels(24)
	f.Add(hdrFile(8, 3, px, true))
	f.Add(hdrFile(8, 3, px, false))
	f.Add(pfmFile(1, 2, 3, true, []float32{1, 2, 3, 4, 5, 6}))
	f.Add([]byte("Pf 1 1 1\n\x00\x00\x00\x00"))
	f.Add(tgaFile(tgaTrueColorRLE, 2, 2, 24, 0, []byte{0x01, 255, 0, 0, 255, 255, 255, 0x80, 0, 0, 255, 0x80, 0, 255, 0}))
	f.Add(tgaFile(tgaTrueColor, 2, 2, 32, 0x28, make([]byte, 16)))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := decodeImageWithin(data, "f", true, 1<<16, false)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Errorf("error %q does not start with the name", err)
			}
			return
		}
		if len(img.Pix) != 3*img.Width*img.Height || img.Width*img.Height > 1<<16 {
			t.Errorf("%d×%d with %d floats", img.Width, img.Height, len(img.Pix))
		}
	})
}
