package imageio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// TestPFM: a little-endian colour PFM, rows bottom to top.
func TestPFM(t *testing.T) {
	fb := tracer.NewFramebuffer(2, 2)
	for i := range fb.Pix {
		fb.Pix[i] = float32(i) + 0.5
	}
	var buf bytes.Buffer
	if err := WritePFM(&buf, fb); err != nil {
		t.Fatal(err)
	}
	header := "PF\n2 2\n-1.0\n"
	if !bytes.HasPrefix(buf.Bytes(), []byte(header)) {
		t.Fatalf("header %q", buf.Bytes()[:12])
	}
	data := buf.Bytes()[len(header):]
	if len(data) != 2*2*3*4 {
		t.Fatalf("%d data bytes, want 48", len(data))
	}
	// The first stored row is the image's bottom row (y = 1).
	first := math.Float32frombits(binary.LittleEndian.Uint32(data))
	if first != fb.Pix[6] {
		t.Errorf("first value %v, want bottom-left red %v", first, fb.Pix[6])
	}
}
