package imageio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/tracerender/trace/tracer"
)

// WritePFM writes the framebuffer f's linear radiance, before exposure and
// tone mapping, as a little-endian colour Portable Float Map (rows bottom to
// top, as the format says).
func WritePFM(w io.Writer, f *tracer.Framebuffer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "PF\n%d %d\n-1.0\n", f.Width, f.Height)
	var b [4]byte
	for y := f.Height - 1; y >= 0; y-- {
		row := f.Pix[3*y*f.Width : 3*(y+1)*f.Width]
		for _, v := range row {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
