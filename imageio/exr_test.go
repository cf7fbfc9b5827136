package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/internal/exrtest"
	"github.com/tracerender/trace/tracer"
)

// halfValue decodes an IEEE binary16.
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * m * math.Pow(2, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + m/1024) * math.Pow(2, float64(e-15))
}

// TestHalfBits: every finite half converts back to itself; a value between
// two neighbouring halves goes to the nearer, and a tie to the even one;
// what is past the largest half is clamped to it.
func TestHalfBits(t *testing.T) {
	for h := uint16(0); h < 0x7c00; h++ {
		for _, sign := range []uint16{0, 0x8000} {
			v := float32(halfValue(h | sign))
			if got := halfBits(v); got != h|sign {
				t.Fatalf("halfBits(%g) = %#04x, want %#04x", v, got, h|sign)
			}
		}
		if h == 0x7bff {
			break
		}
		lo, hi := halfValue(h), halfValue(h+1)
		mid := float32((lo + hi) / 2) // exact in float32: halves have 11 significant bits
		even := h
		if h&1 == 1 {
			even = h + 1
		}
		if got := halfBits(mid); got != even {
			t.Fatalf("tie %g between %#04x and %#04x: got %#04x, want the even %#04x", mid, h, h+1, got, even)
		}
		if got := halfBits(math.Nextafter32(mid, 0)); got != h {
			t.Fatalf("just below the midpoint %g: got %#04x, want %#04x", mid, got, h)
		}
		if got := halfBits(math.Nextafter32(mid, 1e9)); got != h+1 {
			t.Fatalf("just above the midpoint %g: got %#04x, want %#04x", mid, got, h+1)
		}
	}
	for _, v := range []float32{65519.99, 65520, 1e9, float32(math.Inf(1)), math.MaxFloat32} {
		if got := halfBits(v); got != 0x7bff {
			t.Errorf("halfBits(%g) = %#04x, want 65504 (0x7bff)", v, got)
		}
	}
	if got := halfBits(-1e9); got != 0xfbff {
		t.Errorf("halfBits(-1e9) = %#04x, want -65504", got)
	}
	if got := halfBits(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("halfBits(NaN) = %#04x, not a NaN", got)
	}
	if got := halfBits(1e-10); got != 0 {
		t.Errorf("halfBits(1e-10) = %#04x, want 0", got)
	}
}

// exrTestImage is a framebuffer with what a render can hold: black, dim
// values that are half subnormals, ordinary values, bright ones past the
// largest half, and noise that does not compress.
func exrTestImage(w, h int) *tracer.Framebuffer {
	fb := tracer.NewFramebuffer(w, h)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range fb.Pix {
		switch y := i / (3 * w); {
		case y%4 == 0:
			fb.Pix[i] = float32(i%(3*w)) / float32(3*w) // a smooth ramp
		case y%4 == 1:
			fb.Pix[i] = rng.Float32() * 4 // noise
		case y%4 == 2:
			fb.Pix[i] = []float32{0, 1e-6, 3e-8, 1e-9, 70000, 65504, 1e30, 0.1}[i%8]
		default:
			fb.Pix[i] = float32(math.Exp(rng.NormFloat64() * 3))
		}
	}
	return fb
}

// readEXR decodes what WriteEXR writes (single part, scanlines, B G R,
// one pixel type, ZIP or none), checking the structure as it goes.
func readEXR(t *testing.T, data []byte) (w, h int, float bool, comp byte, pix []float32) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte{0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0}) {
		t.Fatalf("magic and version % x", data[:min(len(data), 8)])
	}
	r := bytes.NewReader(data[8:])
	cstr := func() string {
		var b []byte
		for {
			c, err := r.ReadByte()
			if err != nil {
				t.Fatal("header cut short")
			}
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	attrs := map[string][]byte{}
	for {
		name := cstr()
		if name == "" {
			break
		}
		cstr() // type
		var n uint32
		binary.Read(r, binary.LittleEndian, &n)
		v := make([]byte, n)
		io.ReadFull(r, v)
		attrs[name] = v
	}
	for _, a := range []string{"channels", "compression", "dataWindow", "displayWindow", "lineOrder", "pixelAspectRatio", "screenWindowCenter", "screenWindowWidth"} {
		if _, ok := attrs[a]; !ok {
			t.Fatalf("no %s attribute", a)
		}
	}
	box := attrs["dataWindow"]
	w = int(int32(binary.LittleEndian.Uint32(box[8:]))) + 1
	h = int(int32(binary.LittleEndian.Uint32(box[12:]))) + 1
	ch := attrs["channels"]
	if !bytes.HasPrefix(ch, []byte("B\x00")) || len(ch) != 3*18+1 {
		t.Fatalf("channels % x", ch)
	}
	float = binary.LittleEndian.Uint32(ch[2:]) == exrFloat
	comp = attrs["compression"][0]
	lines := 1
	if comp == exrZIPCompression {
		lines = exrZIPLines
	}
	size := 2
	if float {
		size = 4
	}
	chunks := (h + lines - 1) / lines
	pos := len(data) - r.Len()
	pix = make([]float32, 3*w*h)
	for c := range chunks {
		off := binary.LittleEndian.Uint64(data[pos+8*c:])
		y0 := int(int32(binary.LittleEndian.Uint32(data[off:])))
		n := int(binary.LittleEndian.Uint32(data[off+4:]))
		block := data[off+8 : int(off)+8+n]
		if y0 != c*lines {
			t.Fatalf("chunk %d starts at line %d", c, y0)
		}
		rows := min(lines, h-y0)
		raw := block
		if want := rows * 3 * w * size; n < want {
			zr, err := zlib.NewReader(bytes.NewReader(block))
			if err != nil {
				t.Fatal(err)
			}
			tmp, err := io.ReadAll(zr)
			if err != nil || len(tmp) != want {
				t.Fatalf("chunk %d: %d bytes inflated (%v), want %d", c, len(tmp), err, want)
			}
			for i := 1; i < len(tmp); i++ {
				tmp[i] = tmp[i-1] + tmp[i] - 128
			}
			raw = make([]byte, len(tmp))
			half := (len(tmp) + 1) / 2
			for i := range raw {
				if i%2 == 0 {
					raw[i] = tmp[i/2]
				} else {
					raw[i] = tmp[half+i/2]
				}
			}
		} else if n != want {
			t.Fatalf("chunk %d: %d bytes, more than the %d uncompressed", c, n, want)
		}
		i := 0
		for y := y0; y < y0+rows; y++ {
			for _, k := range []int{2, 1, 0} {
				for x := range w {
					var v float32
					if float {
						v = math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))
					} else {
						v = float32(halfValue(binary.LittleEndian.Uint16(raw[i:])))
					}
					i += size
					pix[3*(y*w+x)+k] = v
				}
			}
		}
	}
	return w, h, float, comp, pix
}

// TestWriteEXR: the file decodes, by the layout the OpenEXR documents
// give, to the framebuffer: bit for bit as float, rounded to half as half;
// ZIP blocks that would not shrink are stored as they are.
func TestWriteEXR(t *testing.T) {
	for _, size := range [][2]int{{37, 21}, {1, 1}, {5, 16}, {64, 33}} {
		fb := exrTestImage(size[0], size[1])
		for _, float := range []bool{false, true} {
			for _, zip := range []bool{false, true} {
				var buf bytes.Buffer
				if err := WriteEXR(&buf, fb, float, zip); err != nil {
					t.Fatal(err)
				}
				w, h, gotFloat, comp, pix := readEXR(t, buf.Bytes())
				wantComp := byte(exrNoCompression)
				if zip {
					wantComp = exrZIPCompression
				}
				if w != fb.Width || h != fb.Height || gotFloat != float || comp != wantComp {
					t.Fatalf("%v float=%v zip=%v: read %d×%d float=%v compression %d", size, float, zip, w, h, gotFloat, comp)
				}
				for i, v := range fb.Pix {
					want := v
					if !float {
						want = float32(halfValue(halfBits(v)))
					}
					if pix[i] != want {
						t.Fatalf("%v float=%v zip=%v: value %d is %g, want %g", size, float, zip, i, pix[i], want)
					}
				}
			}
		}
	}
}

// TestEXROpenEXR: the OpenEXR library reads every kind of file WriteEXR
// makes, with the header exrheader shows, to the same pixels as the PFM
// of the same framebuffer.
func TestEXROpenEXR(t *testing.T) {
	check := exrtest.Build(t, "testdata/exrcheck.cc", true)
	dir := t.TempDir()
	for _, size := range [][2]int{{37, 21}, {1, 1}, {64, 33}} {
		fb := exrTestImage(size[0], size[1])
		pfm := filepath.Join(dir, "image.pfm")
		var buf bytes.Buffer
		WritePFM(&buf, fb)
		os.WriteFile(pfm, buf.Bytes(), 0o644)
		for _, float := range []bool{false, true} {
			for _, zip := range []bool{false, true} {
				exr := filepath.Join(dir, "image.exr")
				buf.Reset()
				if err := WriteEXR(&buf, fb, float, zip); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(exr, buf.Bytes(), 0o644)
				out, err := exec.Command(check, exr, pfm).CombinedOutput()
				typ, comp := "half", "none"
				if float {
					typ = "float"
				}
				if zip {
					comp = "zip"
				}
				want := fmt.Sprintf("%dx%d %s %s\nequal\n", size[0], size[1], typ, comp)
				if err != nil || string(out) != want {
					t.Errorf("%v %s %s: exrcheck: %v\n%s\nwant %q", size, typ, comp, err, out, want)
				}
				hdr, err := exec.Command("exrheader", exr).CombinedOutput()
				wantComp := map[bool]string{false: "compression (type compression): none", true: "compression (type compression): zip, multi-scanline blocks"}[zip]
				wantType := map[bool]string{false: "16-bit floating-point", true: "32-bit floating-point"}[float]
				if err != nil || !strings.Contains(string(hdr), wantComp) || strings.Count(string(hdr), wantType) != 3 {
					t.Errorf("%v %s %s: exrheader (%v) does not show %q and three %q channels:\n%s", size, typ, comp, err, wantComp, wantType, hdr)
				}
			}
		}
	}
}
