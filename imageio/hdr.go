package imageio

import (
	"bufio"
	"fmt"
	"io"
	"math"

	"github.com/tracerender/trace/tracer"
)

// WriteHDR writes the framebuffer f's linear radiance, before exposure and
// tone mapping (as WritePFM), as a Radiance RGBE picture (.hdr): the
// "#?RADIANCE" header, rows top to bottom ("-Y H +X W"), each pixel a
// shared 8-bit exponent and three 8-bit mantissas, about 1% of relative
// precision. Rows 8 to 32767 pixels wide are run-length encoded a
// component at a time, as Radiance writes them; others are written flat.
func WriteHDR(w io.Writer, f *tracer.Framebuffer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "#?RADIANCE\n# trace\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", f.Height, f.Width)
	row := make([]byte, 4*f.Width)
	comp := make([]byte, f.Width)
	rle := f.Width >= 8 && f.Width < 32768
	for y := range f.Height {
		pix := f.Pix[3*y*f.Width : 3*(y+1)*f.Width]
		for x := range f.Width {
			r, g, b, e := rgbe(pix[3*x], pix[3*x+1], pix[3*x+2])
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = r, g, b, e
		}
		if !rle {
			bw.Write(row)
			continue
		}
		bw.Write([]byte{2, 2, byte(f.Width >> 8), byte(f.Width)})
		for c := range 4 {
			for x := range f.Width {
				comp[x] = row[4*x+c]
			}
			writeRLE(bw, comp)
		}
	}
	return bw.Flush()
}

// rgbe encodes a colour as Radiance does: the mantissas of the three
// components over the exponent of the largest. Negative and NaN
// components (which the tracer never makes) are written as black; a
// component beyond what RGBE holds (+Inf: a radiance past float32, from
// a light of intensity near 3e38) as RGBE's largest value.
func rgbe(r, g, b float32) (byte, byte, byte, byte) {
	clean := func(v float32) float64 {
		if !(v > 0) {
			return 0
		}
		return min(float64(v), maxRGBE)
	}
	fr, fg, fb := clean(r), clean(g), clean(b)
	v := max(fr, fg, fb)
	if v < 1e-32 {
		return 0, 0, 0, 0
	}
	m, e := math.Frexp(v) // v = m·2^e, m in [0.5, 1), e at most 127
	scale := m * 256 / v
	return byte(fr * scale), byte(fg * scale), byte(fb * scale), byte(e + 128)
}

// maxRGBE is the largest value RGBE holds: a mantissa of 255/256 over the
// exponent byte 255 (2^127).
var maxRGBE = math.Ldexp(255.0/256, 127)

// writeRLE writes one component of a scanline in Radiance's run-length
// encoding: a count above 128 repeats the next byte count−128 times, a
// count of at most 128 is followed by that many literal bytes. Runs
// shorter than four are written as literals.
func writeRLE(w *bufio.Writer, data []byte) {
	const minRun = 4
	n := len(data)
	for cur := 0; cur < n; {
		// Find the next run of at least minRun bytes.
		start, run := cur, 0
		for start < n {
			run = 1
			for start+run < n && run < 127 && data[start+run] == data[start] {
				run++
			}
			if run >= minRun {
				break
			}
			start += run
		}
		if start >= n {
			start, run = n, 0
		}
		// The literals before it, at most 128 at a time.
		for cur < start {
			k := min(start-cur, 128)
			w.WriteByte(byte(k))
			w.Write(data[cur : cur+k])
			cur += k
		}
		if run >= minRun {
			w.WriteByte(byte(128 + run))
			w.WriteByte(data[start])
			cur += run
		}
	}
}
