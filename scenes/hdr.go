package scenes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracerender/trace/tracer"
)

// The two high dynamic range formats that texture images and backgrounds
// may use besides those of the image package: Radiance HDR (RGBE) and the
// Portable Float Map. Both hold linear radiance, taken as it is.

// isHDR reports whether data looks like a Radiance HDR file: its first
// line is "#?RADIANCE" (or "#?" and another program's name, e.g. "#?RGBE").
func isHDR(data []byte) bool { return bytes.HasPrefix(data, []byte("#?")) }

// decodeHDR decodes a Radiance HDR file of at most texels texels: header
// lines up to an empty line, a resolution line "-Y H +X W" (rows top to
// bottom; "+Y H +X W", bottom to top, is read too), then H scanlines of W
// RGBE pixels, each flat, run-length encoded the old way (a (1, 1, 1, n)
// pixel repeats the previous one) or the new way (per channel). A pixel
// (r, g, b, e) is (r, g, b)·2^(e−136), and black when e is 0 (as in Bruce
// Walter's rgbe.c and stb_image, without Radiance's +0.5 per component, so
// that 1 reads back as 1). EXPOSURE and other header lines are ignored.
// RGBE cannot hold a negative, infinite or NaN value.
func decodeHDR(data []byte, texels int64, background bool) (*tracer.Image, error) {
	img, err := readHDR(data, texels, background)
	if err != nil {
		return nil, fmt.Errorf("Radiance HDR: %w", err)
	}
	return img, nil
}

// readHDR is decodeHDR without the format's name in errors.
func readHDR(data []byte, texels int64, background bool) (*tracer.Image, error) {
	rest := data
	line := func() (string, bool) {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return "", false
		}
		l := string(rest[:i])
		rest = rest[i+1:]
		return strings.TrimSuffix(l, "\r"), true
	}
	line() // "#?RADIANCE"
	for {
		l, ok := line()
		if !ok {
			return nil, errors.New("the header does not end (with an empty line)")
		}
		if l == "" {
			break
		}
		if f, ok := strings.CutPrefix(l, "FORMAT="); ok && strings.TrimSpace(f) != "32-bit_rle_rgbe" {
			return nil, fmt.Errorf("unsupported pixel format %s (only 32-bit_rle_rgbe is read)", quote(strings.TrimSpace(f)))
		}
	}
	l, ok := line()
	if !ok {
		return nil, errors.New("no resolution line after the header")
	}
	res := strings.Fields(l)
	if len(res) != 4 || (res[0] != "-Y" && res[0] != "+Y") || res[2] != "+X" {
		return nil, fmt.Errorf("unsupported resolution line %s (expected \"-Y height +X width\")", quote(l))
	}
	h, err1 := strconv.Atoi(res[1])
	w, err2 := strconv.Atoi(res[3])
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("bad resolution line %s", quote(l))
	}
	if err := checkSize(w, h, texels); err != nil {
		return nil, err
	}
	img := newFloatImage(w, h, background)
	scan := make([]byte, 4*w)
	for y := range h {
		var err error
		if rest, err = readScanline(rest, scan); err != nil {
			return nil, fmt.Errorf("scanline %d: %w", y, err)
		}
		row := y
		if res[0] == "+Y" {
			row = h - 1 - y
		}
		out := img.Pix[3*w*row : 3*w*(row+1)]
		for x := range w {
			p := scan[4*x : 4*x+4]
			if p[3] == 0 {
				continue // black; out is zero already
			}
			f := math.Ldexp(1, int(p[3])-136) // exact, as are the products
			out[3*x] = float32(float64(p[0]) * f)
			out[3*x+1] = float32(float64(p[1]) * f)
			out[3*x+2] = float32(float64(p[2]) * f)
		}
	}
	return img, nil
}

// errTruncated is the error for data that ends inside the pixels.
var errTruncated = errors.New("the file ends early")

// readScanline decodes one scanline of len(scan)/4 pixels from data into
// scan, interleaved RGBE, and returns the data after it.
func readScanline(data, scan []byte) ([]byte, error) {
	w := len(scan) / 4
	if w >= 8 && w < 0x8000 && len(data) >= 4 && data[0] == 2 && data[1] == 2 && data[2]&0x80 == 0 {
		return readRLEScanline(data, scan)
	}
	// Flat pixels, or the old run-length encoding.
	shift := 0
	for x := 0; x < w; {
		if len(data) < 4 {
			return nil, errTruncated
		}
		p := data[:4]
		data = data[4:]
		if p[0] == 1 && p[1] == 1 && p[2] == 1 {
			n := int(p[3]) << shift
			switch {
			case x == 0:
				return nil, errors.New("a run repeats a pixel before the first")
			case n > w-x:
				return nil, errors.New("a run goes past the end of the scanline")
			}
			for range n {
				copy(scan[4*x:4*x+4], scan[4*x-4:4*x])
				x++
			}
			shift = min(shift+8, 24)
			continue
		}
		copy(scan[4*x:4*x+4], p)
		x++
		shift = 0
	}
	return data, nil
}

// readRLEScanline decodes a scanline in the new run-length encoding: the
// bytes 2, 2, then the width (big-endian), then each channel in turn as
// runs (a count byte over 128: count−128 copies of the next byte) and
// literals (a count byte of 1 to 128: that many bytes).
func readRLEScanline(data, scan []byte) ([]byte, error) {
	w := len(scan) / 4
	if n := int(data[2])<<8 | int(data[3]); n != w {
		return nil, fmt.Errorf("the scanline says it is %d pixels wide, not %d", n, w)
	}
	data = data[4:]
	for c := range 4 {
		for x := 0; x < w; {
			if len(data) < 1 {
				return nil, errTruncated
			}
			n := int(data[0])
			data = data[1:]
			if n > 128 {
				n -= 128
				if n > w-x {
					return nil, errors.New("a run goes past the end of the scanline")
				}
				if len(data) < 1 {
					return nil, errTruncated
				}
				for range n {
					scan[4*x+c] = data[0]
					x++
				}
				data = data[1:]
				continue
			}
			switch {
			case n == 0:
				return nil, errors.New("a run of length 0")
			case n > w-x:
				return nil, errors.New("a run goes past the end of the scanline")
			case len(data) < n:
				return nil, errTruncated
			}
			for i := range n {
				scan[4*x+c] = data[i]
				x++
			}
			data = data[n:]
		}
	}
	return data, nil
}

// isPFM reports whether data looks like a Portable Float Map: "PF" (colour)
// or "Pf" (grey), then white space.
func isPFM(data []byte) bool {
	return len(data) >= 3 && data[0] == 'P' && (data[1] == 'F' || data[1] == 'f') && isPFMSpace(data[2])
}

// isPFMSpace reports whether c is white space in a PFM header.
func isPFMSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// decodePFM decodes a Portable Float Map of at most texels texels: "PF"
// (RGB) or "Pf" (grey), the width, the height and a scale, separated by
// white space, one white space character, then float32 pixels, rows bottom
// to top. A negative scale means little-endian floats, a positive one
// big-endian; its magnitude is ignored (the values are radiance as they
// are). A NaN, infinite or negative value is an error.
func decodePFM(data []byte, texels int64, background bool) (*tracer.Image, error) {
	img, err := readPFM(data, texels, background)
	if err != nil {
		return nil, fmt.Errorf("PFM: %w", err)
	}
	return img, nil
}

// readPFM is decodePFM without the format's name in errors.
func readPFM(data []byte, texels int64, background bool) (*tracer.Image, error) {
	channels := 3
	if data[1] == 'f' {
		channels = 1
	}
	pos := 2
	// token returns the next white-space-separated word of the header; its
	// end is left at the white space after it.
	token := func() string {
		for pos < len(data) && isPFMSpace(data[pos]) {
			pos++
		}
		start := pos
		for pos < len(data) && !isPFMSpace(data[pos]) && pos-start <= 32 {
			pos++
		}
		return string(data[start:pos])
	}
	ws, hs, ss := token(), token(), token()
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	scale, err3 := strconv.ParseFloat(ss, 64)
	if err1 != nil || err2 != nil || err3 != nil || pos >= len(data) || !isPFMSpace(data[pos]) {
		return nil, fmt.Errorf("bad header (expected \"PF width height scale\")")
	}
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("bad scale %s (negative for little-endian, positive for big-endian)", quote(ss))
	}
	pos++ // the one white space character before the pixels
	if err := checkSize(w, h, texels); err != nil {
		return nil, err
	}
	var order binary.ByteOrder = binary.BigEndian
	if scale < 0 {
		order = binary.LittleEndian
	}
	px := data[pos:]
	if need := int64(w) * int64(h) * int64(channels) * 4; int64(len(px)) < need {
		return nil, fmt.Errorf("%d bytes of pixels, %d×%d needs %d", len(px), w, h, need)
	}
	img := newFloatImage(w, h, background)
	for r := range h {
		y := h - 1 - r // the file's first row is the bottom one
		out := img.Pix[3*w*y : 3*w*(y+1)]
		for x := range w {
			for c := range 3 {
				i := (r*w+x)*channels + min(c, channels-1)
				v := math.Float32frombits(order.Uint32(px[4*i:]))
				switch {
				case math.IsNaN(float64(v)) || math.IsInf(float64(v), 0):
					return nil, fmt.Errorf("pixel (%d, %d) from the top left is %v", x, y, v)
				case v < 0:
					return nil, fmt.Errorf("pixel (%d, %d) from the top left has a negative component, %v", x, y, v)
				}
				if v == 0 {
					v = 0 // −0 becomes +0
				}
				out[3*x+c] = v
			}
		}
	}
	return img, nil
}

// newFloatImage returns a w×h image for an HDR or PFM file's pixels, with
// room after them for an image background's sampling table when
// background says so (decodeImageWithin).
func newFloatImage(w, h int, background bool) *tracer.Image {
	room := 0
	if background {
		room = tracer.EnvironmentTableSize(w, h)
	}
	return &tracer.Image{Width: w, Height: h, Pix: make([]float32, 3*w*h, 3*w*h+room)}
}
