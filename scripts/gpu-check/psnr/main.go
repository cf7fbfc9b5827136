// Command psnr compares two linear PFM images written by trace render, for
// scripts/gpu-check.sh: it prints "identical" when every float has the same
// bits, else the PSNR of the values clamped to [0, 1], how many floats
// differ, the largest difference and the first differing pixel (counted
// from the top left, as in the PNG). Exit status 0 when identical or at
// least 50 dB (the floor of the determinism contract), 1 below it, 2 when
// the files cannot be compared.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

func readPFM(path string) (w, h int, pix []float32, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, nil, err
	}
	r := bufio.NewReader(bytes.NewReader(data))
	var magic string
	var scale float64
	if _, err = fmt.Fscan(r, &magic, &w, &h, &scale); err != nil || magic != "PF" || w <= 0 || h <= 0 {
		return 0, 0, nil, fmt.Errorf("%s: not a colour PFM", path)
	}
	if _, err = r.ReadByte(); err != nil { // the single whitespace after the scale
		return 0, 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if scale > 0 {
		order = binary.BigEndian
	}
	pix = make([]float32, 3*w*h)
	if err = binary.Read(r, order, pix); err != nil {
		return 0, 0, nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, h, pix, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: psnr A.pfm B.pfm")
		os.Exit(2)
	}
	wa, ha, a, err := readPFM(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	wb, hb, b, err := readPFM(os.Args[2])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	if wa != wb || ha != hb {
		fmt.Printf("sizes differ: %dx%d and %dx%d\n", wa, ha, wb, hb)
		os.Exit(2)
	}
	clamp := func(x float32) float64 { return math.Min(math.Max(float64(x), 0), 1) }
	var se, maxd float64
	differ, first := 0, -1
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			differ++
			if first < 0 {
				first = i
			}
		}
		d := clamp(a[i]) - clamp(b[i])
		se += d * d
		maxd = math.Max(maxd, math.Abs(float64(a[i])-float64(b[i])))
	}
	if differ == 0 {
		fmt.Println("identical")
		return
	}
	psnr := math.Inf(1)
	if se > 0 {
		psnr = 10 * math.Log10(float64(len(a))/se)
	}
	px := first / 3 // rows run bottom to top in a PFM
	fmt.Printf("PSNR %.2f dB, %d of %d floats differ, max |diff| %.3g, first at pixel (%d, %d) channel %d: %g vs %g\n",
		psnr, differ, len(a), maxd, px%wa, ha-1-px/wa, first%3, a[first], b[first])
	if psnr < 50 {
		os.Exit(1)
	}
}
