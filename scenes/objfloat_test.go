package scenes

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPlainFloat32: the plain-decimal fast path of parseFloat32 gives the
// bits strconv.ParseFloat gives, on hand-picked numbers (halfway cases,
// signed zeros, the largest mantissa, ten places) and a million random
// ones of every length, and declines what it does not read.
func TestPlainFloat32(t *testing.T) {
	inputs := []string{"0", "-0", "+0", "0.0", "-0.000000", "1", "-1", "+.5", "5.", ".25", "0.1", "0.3",
		"16777215", "1677721.5", "0.0000000001", "9999999.9", "3.4028235", "0.30000001192092896",
		"16777216", "1e3", "1.5e-3", "0x10", "inf", "nan", "1_0", ".", "-", "+", "", "1.2.3", "--1", "0.00000000001"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000000 {
		m := rng.Uint32N(1 << uint(1+rng.IntN(25)))
		k := rng.IntN(12)
		s := strconv.Itoa(int(m))
		for len(s) <= k {
			s = "0" + s
		}
		if k > 0 {
			s = s[:len(s)-k] + "." + s[len(s)-k:]
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		inputs = append(inputs, s)
	}
	fast := 0
	for _, s := range inputs {
		x, ok := plainFloat32([]byte(s))
		if !ok {
			continue
		}
		fast++
		want, err := strconv.ParseFloat(s, 32)
		if err != nil {
			t.Fatalf("%q: read as %g, but ParseFloat refuses it: %v", s, x, err)
		}
		if math.Float32bits(x) != math.Float32bits(float32(want)) {
			t.Fatalf("%q: %g (%#x), ParseFloat %g (%#x)", s, x, math.Float32bits(x), want, math.Float32bits(float32(want)))
		}
	}
	for _, s := range []string{"16777216", "1e3", "0x10", "inf", ".", "", "1.2.3", "0.00000000001", "+"} {
		if x, ok := plainFloat32([]byte(s)); ok {
			t.Errorf("%q: read as %g, want it left to ParseFloat", s, x)
		}
	}
	if fast < len(inputs)/2 {
		t.Errorf("only %d of %d numbers took the fast path", fast, len(inputs))
	}
}
