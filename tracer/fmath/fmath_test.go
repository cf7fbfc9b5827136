package fmath

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// ordered maps a float32 to an integer that is monotonic in its value, so
// that adjacent floats differ by 1 (−0 and +0 both map to 0).
func ordered(f float32) int64 {
	b := math.Float32bits(f)
	if b&signMask != 0 {
		return -int64(b &^ signMask)
	}
	return int64(b)
}

// ulpDist returns the number of float32 values between got and want (0 when
// equal, 1 for neighbours). Two NaNs are 0 apart; a NaN and a number are
// math.MaxInt64 apart.
func ulpDist(got, want float32) int64 {
	gn, wn := got != got, want != want
	if gn || wn {
		if gn && wn {
			return 0
		}
		return math.MaxInt64
	}
	d := ordered(got) - ordered(want)
	if d < 0 {
		d = -d
	}
	return d
}

// ulpErr returns |got − exact| in ulps of the float32 result, as a real
// number (exact is the float64 reference).
func ulpErr(got float32, exact float64) float64 {
	if math.IsInf(exact, 0) || math.IsNaN(exact) {
		if float64(got) == exact || (got != got && exact != exact) {
			return 0
		}
		return math.Inf(1)
	}
	e := math.Ilogb(float64(float32(exact)))
	if exact == 0 || e < -126 {
		e = -126
	}
	return math.Abs(float64(got)-exact) / math.Ldexp(1, e-23)
}

// errStats collects the worst error of one function over many inputs.
// The input is formatted only when it is a new worst case, so that the
// exhaustive test stays fast.
type errStats struct {
	n         int
	maxUlp    int64   // max ulpDist to the rounded reference
	maxFrac   float64 // max ulpErr to the unrounded reference
	worst     string  // an input with error maxUlp
	worstFrac string  // the input with error maxFrac
}

func (s *errStats) add(got float32, exact float64, in func() string) {
	s.n++
	if d := ulpDist(got, float32(exact)); d > s.maxUlp || s.worst == "" {
		s.maxUlp = d
		s.worst = fmt.Sprintf("%s = %v (%#08x), want %v", in(), got, math.Float32bits(got), float32(exact))
	}
	if f := ulpErr(got, exact); f > s.maxFrac || s.worstFrac == "" {
		s.maxFrac = f
		s.worstFrac = fmt.Sprintf("%s = %v, exact %.9g", in(), got, exact)
	}
}

func (s *errStats) merge(o *errStats) {
	s.n += o.n
	if o.maxUlp > s.maxUlp || s.worst == "" {
		s.maxUlp, s.worst = o.maxUlp, o.worst
	}
	if o.maxFrac > s.maxFrac || s.worstFrac == "" {
		s.maxFrac, s.worstFrac = o.maxFrac, o.worstFrac
	}
}

func (s *errStats) String() string {
	return fmt.Sprintf("%d inputs: max error %d ulp (%s); %.3f ulp vs exact (%s)", s.n, s.maxUlp, s.worst, s.maxFrac, s.worstFrac)
}

// linspace returns n evenly spaced float32 values from lo to hi.
func linspace(lo, hi float64, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(lo + (hi-lo)*float64(i)/float64(n-1))
	}
	return xs
}

// uniform returns n random float32 values in [lo, hi) from a fixed seed.
func uniform(seed uint64, lo, hi float64, n int) []float32 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return xs
}

// nearPio2Multiples returns, for k = 1..kmax, the float32 nearest to k·π/2
// and its two neighbours (and their negations): the arguments whose reduced
// value is smallest and that therefore need the most precise reduction.
func nearPio2Multiples(kmax int) []float32 {
	var xs []float32
	for k := 1; k <= kmax; k++ {
		f := float32(float64(k) * (math.Pi / 2))
		b := math.Float32bits(f)
		for _, c := range []uint32{b - 1, b, b + 1} {
			x := math.Float32frombits(c)
			xs = append(xs, x, -x)
		}
	}
	return xs
}

// allExponents returns, for every binade of positive normal float32 values
// (and the subnormals), its two ends and perBinade random values.
func allExponents(seed uint64, perBinade int) []float32 {
	r := rand.New(rand.NewPCG(seed, 0xe0))
	var xs []float32
	for e := uint32(0); e < 255; e++ {
		lo := e << 23
		xs = append(xs, math.Float32frombits(lo|1), math.Float32frombits(lo|0x7fffff))
		for i := 0; i < perBinade; i++ {
			xs = append(xs, math.Float32frombits(lo|r.Uint32N(1<<23)))
		}
	}
	return xs
}

func concat(parts ...[]float32) []float32 {
	var xs []float32
	for _, p := range parts {
		xs = append(xs, p...)
	}
	return xs
}

// The unary functions, their float64 references and their error bounds in
// ulps, each over the dense sweeps of the tracer's domains and random inputs.
var unaryTests = []struct {
	name   string
	f      func(float32) float32
	ref    func(float64) float64
	maxUlp int64
	inputs [][]float32 // each slice is one sweep
}{
	{"Sin", Sin, math.Sin, 1, [][]float32{
		linspace(-4*math.Pi, 4*math.Pi, 1<<20),
		linspace(-1e4, 1e4, 1<<18),
		uniform(1, -1e4, 1e4, 1<<18),
		uniform(2, -1e5, 1e5, 1<<16),
		uniform(3, -1e-3, 1e-3, 1<<12),
		nearPio2Multiples(63661),
	}},
	{"Cos", Cos, math.Cos, 1, [][]float32{
		linspace(-4*math.Pi, 4*math.Pi, 1<<20),
		linspace(-1e4, 1e4, 1<<18),
		uniform(4, -1e4, 1e4, 1<<18),
		uniform(5, -1e5, 1e5, 1<<16),
		uniform(6, -1e-3, 1e-3, 1<<12),
		nearPio2Multiples(63661),
	}},
	{"Tan", Tan, math.Tan, 2, [][]float32{
		linspace(-4*math.Pi, 4*math.Pi, 1<<20),
		linspace(-1e4, 1e4, 1<<18),
		uniform(7, -1e4, 1e4, 1<<18),
		uniform(8, -1e5, 1e5, 1<<16),
		nearPio2Multiples(63661),
	}},
	{"Exp", Exp, math.Exp, 1, [][]float32{
		linspace(-87, 88, 1<<20),
		linspace(-1, 1, 1<<16),
		uniform(9, -87.3, 88.7, 1<<18),
		linspace(-103.9, -87.4, 1<<14), // subnormal results
	}},
	{"Log", Log, math.Log, 1, [][]float32{
		allExponents(10, 1<<12),
		linspace(0.5, 2, 1<<18),
		uniform(11, 0, 1, 1<<18),
		uniform(12, 1, 1e6, 1<<16),
	}},
	{"Acos", Acos, math.Acos, 1, [][]float32{
		linspace(-1, 1, 1<<20),
		linspace(0.999, 1, 1<<14),
		linspace(-1, -0.999, 1<<14),
		uniform(13, -1, 1, 1<<18),
	}},
}

func TestUnaryAccuracy(t *testing.T) {
	for _, tc := range unaryTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var st errStats
			for _, xs := range tc.inputs {
				for _, x := range xs {
					st.add(tc.f(x), tc.ref(float64(x)), func() string { return fmt.Sprintf("%s(%v)", tc.name, x) })
				}
			}
			t.Log(&st)
			if st.maxUlp > tc.maxUlp {
				t.Errorf("max error %d ulp > bound %d: %s", st.maxUlp, tc.maxUlp, st.worst)
			}
		})
	}
}

// Phong exponents and sRGB: x in [0, 1] with the exponents the tracer uses.
func TestPowAccuracy(t *testing.T) {
	type pair struct{ x, y float32 }
	dense := linspace(0, 1, 1<<16)
	r := rand.New(rand.NewPCG(14, 0x70))
	tests := []struct {
		name   string
		maxUlp int64
		pairs  []pair
	}{
		{"sRGB", 1, nil},
		{"y=2", 0, nil},
		{"y=5", 1, nil},
		{"y=50", 1, nil},
		{"y=1000", 1, nil},
		{"phong-random", 1, nil},
		{"general-random", 1, nil},
	}
	for i, y := range []float32{1 / 2.4, 2, 5, 50, 1000} {
		for _, x := range dense {
			tests[i].pairs = append(tests[i].pairs, pair{x, y})
		}
	}
	for i := 0; i < 1<<18; i++ {
		x := float32(r.Float64())
		y := float32(1 + 9999*r.Float64())
		tests[5].pairs = append(tests[5].pairs, pair{x, y})
	}
	for len(tests[6].pairs) < 1<<18 {
		x := float32(math.Exp(r.Float64()*math.Log(1e4*1e4)) / 1e4) // log-uniform in [1e-4, 1e4]
		y := float32(-30 + 60*r.Float64())
		if v := math.Pow(float64(x), float64(y)); v < 0x1p-126 || v > math.MaxFloat32 {
			continue // keep to normal results
		}
		tests[6].pairs = append(tests[6].pairs, pair{x, y})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var st errStats
			for _, p := range tc.pairs {
				st.add(Pow(p.x, p.y), math.Pow(float64(p.x), float64(p.y)), func() string { return fmt.Sprintf("Pow(%v, %v)", p.x, p.y) })
			}
			t.Log(&st)
			if st.maxUlp > tc.maxUlp {
				t.Errorf("max error %d ulp > bound %d: %s", st.maxUlp, tc.maxUlp, st.worst)
			}
		})
	}
}

func TestAtan2Accuracy(t *testing.T) {
	const bound = 2
	var grid, random errStats
	g := linspace(-10, 10, 1001) // includes ±10 and values near 0, all quadrants
	for _, y := range g {
		for _, x := range g {
			grid.add(Atan2(y, x), math.Atan2(float64(y), float64(x)), func() string { return fmt.Sprintf("Atan2(%v, %v)", y, x) })
		}
	}
	r := rand.New(rand.NewPCG(15, 0xa2))
	logUniform := func() float32 {
		v := float32(math.Exp(math.Log(1e-30) + r.Float64()*math.Log(1e60)))
		if r.IntN(2) == 0 {
			v = -v
		}
		return v
	}
	for i := 0; i < 1<<19; i++ {
		y, x := logUniform(), logUniform()
		if i%2 == 0 { // similar magnitudes exercise the reductions of atan
			x = float32(float64(y) * (0.01 + 100*r.Float64()))
			if r.IntN(2) == 0 {
				x = -x
			}
		}
		random.add(Atan2(y, x), math.Atan2(float64(y), float64(x)), func() string { return fmt.Sprintf("Atan2(%v, %v)", y, x) })
	}
	for _, s := range []struct {
		name string
		st   *errStats
	}{{"grid", &grid}, {"random", &random}} {
		t.Logf("%s: %v", s.name, s.st)
		if s.st.maxUlp > bound {
			t.Errorf("%s: max error %d ulp > bound %d: %s", s.name, s.st.maxUlp, bound, s.st.worst)
		}
	}
}

// TestLargeTrigArguments checks that beyond the accurate domain the
// trigonometric functions stay finite (and bounded for Sin and Cos).
func TestLargeTrigArguments(t *testing.T) {
	xs := concat(uniform(16, 1e5, 1e6, 1<<12), uniform(17, 1e6, 1e38, 1<<12),
		[]float32{1e5 + 0.0078125, math.MaxFloat32, -math.MaxFloat32, 1 << 24, 1<<24 + 2, 3e9, -7e20})
	for _, x := range xs {
		s, c, tn := Sin(x), Cos(x), Tan(x)
		if !(s >= -1 && s <= 1) || !(c >= -1 && c <= 1) || math.IsNaN(float64(tn)) || math.IsInf(float64(tn), 0) {
			t.Fatalf("x = %v: Sin %v, Cos %v, Tan %v", x, s, c, tn)
		}
		if Sin(-x) != -s || Cos(-x) != c || Tan(-x) != -tn {
			t.Fatalf("x = %v: symmetry broken", x)
		}
		// The documented fold: x is reduced exactly modulo float32(2π).
		if xr := float32(math.Mod(float64(abs(x)), float64(twoPi))); abs(x) > trigMax && Sin(abs(x)) != Sin(xr) {
			t.Fatalf("x = %v: Sin(x) = %v, Sin(x mod 2π_f) = %v", x, Sin(abs(x)), Sin(xr))
		}
	}
}

func TestSpecialValues(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	pi := float32(math.Pi)
	tests := []struct {
		name      string
		got, want float32
	}{
		{"Sqrt(4)", Sqrt(4), 2},
		{"Sqrt(2)", Sqrt(2), float32(math.Sqrt2)},
		{"Sqrt(+Inf)", Sqrt(inf), inf},
		{"Sqrt(-0)", Sqrt(negZero), negZero},
		{"Sqrt(-1)", Sqrt(-1), nan},
		{"Sqrt(NaN)", Sqrt(nan), nan},

		{"Sin(0)", Sin(0), 0},
		{"Sin(-0)", Sin(negZero), negZero},
		{"Sin(1e-30)", Sin(1e-30), 1e-30},
		{"Sin(+Inf)", Sin(inf), nan},
		{"Sin(-Inf)", Sin(-inf), nan},
		{"Sin(NaN)", Sin(nan), nan},
		{"Sin(π/2)", Sin(pi / 2), 1},
		{"Sin(π)", Sin(pi), float32(math.Sin(float64(pi)))},
		{"Cos(0)", Cos(0), 1},
		{"Cos(-0)", Cos(negZero), 1},
		{"Cos(+Inf)", Cos(inf), nan},
		{"Cos(NaN)", Cos(nan), nan},
		{"Cos(π)", Cos(pi), -1},
		{"Tan(0)", Tan(0), 0},
		{"Tan(-0)", Tan(negZero), negZero},
		{"Tan(+Inf)", Tan(inf), nan},
		{"Tan(NaN)", Tan(nan), nan},
		{"Tan(π/2)", Tan(pi / 2), float32(math.Tan(float64(pi / 2)))},
		{"Tan(π/4)", Tan(pi / 4), 1},

		{"Exp(0)", Exp(0), 1},
		{"Exp(-0)", Exp(negZero), 1},
		{"Exp(1)", Exp(1), float32(math.E)},
		{"Exp(+Inf)", Exp(inf), inf},
		{"Exp(-Inf)", Exp(-inf), 0},
		{"Exp(NaN)", Exp(nan), nan},
		{"Exp(88.72283)", Exp(expMax), float32(math.Exp(float64(expMax)))},
		{"Exp(overflow)", Exp(math.Nextafter32(expMax, 100)), inf},
		{"Exp(100)", Exp(100), inf},
		{"Exp(-103.972)", Exp(math.Nextafter32(expMin, 0)), 0x1p-149},
		{"Exp(underflow)", Exp(math.Nextafter32(expMin, -200)), 0},
		{"Exp(-200)", Exp(-200), 0},

		{"Log(1)", Log(1), 0},
		{"Log(e)", Log(float32(math.E)), float32(math.Log(float64(float32(math.E))))}, // 0.99999994
		{"Log(0)", Log(0), -inf},
		{"Log(-0)", Log(negZero), -inf},
		{"Log(-1)", Log(-1), nan},
		{"Log(-Inf)", Log(-inf), nan},
		{"Log(+Inf)", Log(inf), inf},
		{"Log(NaN)", Log(nan), nan},
		{"Log(2^-149)", Log(0x1p-149), float32(-149 * math.Ln2)},
		{"Log(MaxFloat32)", Log(math.MaxFloat32), float32(math.Log(math.MaxFloat32))},

		{"Pow(x, 0)", Pow(0.3, 0), 1},
		{"Pow(NaN, 0)", Pow(nan, 0), 1},
		{"Pow(1, NaN)", Pow(1, nan), 1},
		{"Pow(1, Inf)", Pow(1, inf), 1},
		{"Pow(NaN, 2)", Pow(nan, 2), nan},
		{"Pow(2, NaN)", Pow(2, nan), nan},
		{"Pow(0, 2.5)", Pow(0, 2.5), 0},
		{"Pow(-0, 3)", Pow(negZero, 3), 0},
		{"Pow(0, -1.5)", Pow(0, -1.5), inf},
		{"Pow(0, 1/2.4)", Pow(0, 1/2.4), 0},
		{"Pow(-2, 2)", Pow(-2, 2), nan},
		{"Pow(-0.5, 0.5)", Pow(-0.5, 0.5), nan},
		{"Pow(-Inf, 1)", Pow(-inf, 1), nan},
		{"Pow(+Inf, 2)", Pow(inf, 2), inf},
		{"Pow(+Inf, -2)", Pow(inf, -2), 0},
		{"Pow(2, +Inf)", Pow(2, inf), inf},
		{"Pow(0.5, +Inf)", Pow(0.5, inf), 0},
		{"Pow(2, -Inf)", Pow(2, -inf), 0},
		{"Pow(0.5, -Inf)", Pow(0.5, -inf), inf},
		{"Pow(x, 1)", Pow(0.7, 1), 0.7},
		{"Pow(x, 0.5)", Pow(2, 0.5), float32(math.Sqrt2)},
		{"Pow(2, 10)", Pow(2, 10), 1024},
		{"Pow(3, 5)", Pow(3, 5), 243},
		{"Pow(2, 128)", Pow(2, 128), inf},
		{"Pow(2, 127)", Pow(2, 127), 0x1p127},
		{"Pow(2, -149)", Pow(2, -149), 0x1p-149},
		{"Pow(2, -151)", Pow(2, -151), 0},
		{"Pow(0.5, 1e10)", Pow(0.5, 1e10), 0},
		{"Pow(1.5, 1e10)", Pow(1.5, 1e10), inf},
		{"Pow(1+2^-23, 2^28)", Pow(1+0x1p-23, 0x1p28), float32(math.Pow(1+0x1p-23, 0x1p28))},
		{"Pow(2^-149, 0.5)", Pow(0x1p-149, 0.25), float32(math.Pow(0x1p-149, 0.25))},

		{"Atan2(0, 1)", Atan2(0, 1), 0},
		{"Atan2(-0, 1)", Atan2(negZero, 1), negZero},
		{"Atan2(0, 0)", Atan2(0, 0), 0},
		{"Atan2(-0, 0)", Atan2(negZero, 0), negZero},
		{"Atan2(0, -0)", Atan2(0, negZero), pi},
		{"Atan2(-0, -0)", Atan2(negZero, negZero), -pi},
		{"Atan2(0, -1)", Atan2(0, -1), pi},
		{"Atan2(-0, -1)", Atan2(negZero, -1), -pi},
		{"Atan2(1, 0)", Atan2(1, 0), pi / 2},
		{"Atan2(-1, -0)", Atan2(-1, negZero), -pi / 2},
		{"Atan2(1, 1)", Atan2(1, 1), pi / 4},
		{"Atan2(-1, -1)", Atan2(-1, -1), float32(-3 * math.Pi / 4)},
		{"Atan2(Inf, Inf)", Atan2(inf, inf), pi / 4},
		{"Atan2(-Inf, Inf)", Atan2(-inf, inf), -pi / 4},
		{"Atan2(Inf, -Inf)", Atan2(inf, -inf), float32(3 * math.Pi / 4)},
		{"Atan2(-Inf, -Inf)", Atan2(-inf, -inf), float32(-3 * math.Pi / 4)},
		{"Atan2(1, Inf)", Atan2(1, inf), 0},
		{"Atan2(-1, Inf)", Atan2(-1, inf), negZero},
		{"Atan2(1, -Inf)", Atan2(1, -inf), pi},
		{"Atan2(-1, -Inf)", Atan2(-1, -inf), -pi},
		{"Atan2(Inf, 1)", Atan2(inf, 1), pi / 2},
		{"Atan2(-Inf, -1)", Atan2(-inf, -1), -pi / 2},
		{"Atan2(1e30, -1e-30)", Atan2(1e30, -1e-30), pi / 2},
		{"Atan2(1e-30, -1e30)", Atan2(1e-30, -1e30), pi},
		{"Atan2(1e-30, 1e30)", Atan2(1e-30, 1e30), float32(math.Atan2(1e-30, 1e30))},
		{"Atan2(NaN, 1)", Atan2(nan, 1), nan},
		{"Atan2(1, NaN)", Atan2(1, nan), nan},

		{"Acos(1)", Acos(1), 0},
		{"Acos(-1)", Acos(-1), pi},
		{"Acos(0)", Acos(0), pi / 2},
		{"Acos(-0)", Acos(negZero), pi / 2},
		{"Acos(0.5)", Acos(0.5), float32(math.Pi / 3)},
		{"Acos(1.0000001)", Acos(math.Nextafter32(1, 2)), 0},
		{"Acos(-1.0000001)", Acos(math.Nextafter32(-1, -2)), pi},
		{"Acos(2)", Acos(2), 0},
		{"Acos(+Inf)", Acos(inf), 0},
		{"Acos(-Inf)", Acos(-inf), pi},
		{"Acos(NaN)", Acos(nan), nan},
	}
	for _, tc := range tests {
		same := math.Float32bits(tc.got) == math.Float32bits(tc.want) ||
			(tc.got != tc.got && tc.want != tc.want)
		if !same {
			t.Errorf("%s = %v (%#08x), want %v (%#08x)", tc.name, tc.got, math.Float32bits(tc.got), tc.want, math.Float32bits(tc.want))
		}
	}
}

func TestUlpDist(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	tests := []struct {
		a, b float32
		want int64
	}{
		{1, 1, 0},
		{0, negZero, 0},
		{1, math.Nextafter32(1, 2), 1},
		{1, math.Nextafter32(1, 0), 1},
		{0x1p-149, -0x1p-149, 2},
		{math.MaxFloat32, float32(math.Inf(1)), 1},
		{-1, 1, 2 * int64(math.Float32bits(1))},
		{float32(math.NaN()), float32(math.NaN()), 0},
		{float32(math.NaN()), 1, math.MaxInt64},
	}
	for _, tc := range tests {
		if got := ulpDist(tc.a, tc.b); got != tc.want {
			t.Errorf("ulpDist(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestExhaustive checks every float32 input of the unary functions (several
// billion evaluations, minutes). Run it with FMATH_EXHAUSTIVE=1.
func TestExhaustive(t *testing.T) {
	if os.Getenv("FMATH_EXHAUSTIVE") == "" {
		t.Skip("set FMATH_EXHAUSTIVE=1 to check all float32 inputs")
	}
	tests := []struct {
		name   string
		f      func(float32) float32
		ref    func(float64) float64
		maxUlp int64
		lo, hi float32 // domain |x| in [lo, hi] (both signs) or x in [lo, hi]
		signed bool
	}{
		{"Sin", Sin, math.Sin, 1, 0, trigMax, true},
		{"Cos", Cos, math.Cos, 1, 0, trigMax, true},
		{"Tan", Tan, math.Tan, 2, 0, trigMax, true},
		{"Exp", Exp, math.Exp, 1, 0, 105, true},
		{"Log", Log, math.Log, 1, 0, math.MaxFloat32, false},
		{"Acos", Acos, math.Acos, 1, 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := math.Float32bits(tc.lo), math.Float32bits(tc.hi)
			workers := runtime.GOMAXPROCS(0)
			stats := make([]errStats, workers)
			check := func(st *errStats, x float32) {
				st.add(tc.f(x), tc.ref(float64(x)), func() string { return fmt.Sprintf("%s(%v)", tc.name, x) })
			}
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					st := &stats[w]
					for b := lo + uint32(w); b <= hi && b >= lo; b += uint32(workers) {
						x := math.Float32frombits(b)
						check(st, x)
						if tc.signed {
							check(st, -x)
						}
					}
				}(w)
			}
			wg.Wait()
			var st errStats
			for i := range stats {
				st.merge(&stats[i])
			}
			t.Log(&st)
			if st.maxUlp > tc.maxUlp {
				t.Errorf("max error %d ulp > bound %d: %s", st.maxUlp, tc.maxUlp, st.worst)
			}
		})
	}
}

// fmaPatterns are the fused multiply-add mnemonics of Go's assembly output.
var fmaPatterns = []struct {
	name string
	env  []string
	re   *regexp.Regexp
}{
	{"arm64", []string{"GOOS=linux", "GOARCH=arm64"},
		regexp.MustCompile(`\bFN?M(ADD|SUB)[SD]\b`)},
	{"amd64v3", []string{"GOOS=linux", "GOARCH=amd64", "GOAMD64=v3"},
		regexp.MustCompile(`\bVFN?M(ADD|SUB)\w*\b`)},
}

// fusedFunctions compiles the package in dir with -gcflags=-S for the given
// target and returns the functions whose assembly matches re, and the
// number of functions seen.
func fusedFunctions(t *testing.T, dir string, env []string, re *regexp.Regexp) (fused []string, seen int) {
	t.Helper()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "build", "-gcflags=-S", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"CGO_ENABLED=0", "GOFLAGS="}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-S (%v): %v\n%s", env, err, out)
	}
	header := regexp.MustCompile(`^(\S+) STEXT`)
	set := map[string]bool{}
	fn := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := header.FindStringSubmatch(line); m != nil {
			fn = m[1]
			seen++
			continue
		}
		if re.MatchString(line) {
			set[fn] = true
		}
	}
	for f := range set {
		fused = append(fused, f)
	}
	sort.Strings(fused)
	return fused, seen
}

// TestNoFusedMultiplyAdd proves the no-fusion rule: the package, compiled for
// the targets where Go fuses x*y+z, contains no FMA instruction. A control
// package with an unwrapped x*y+z shows that the check can see a fusion.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package twice; skipped in -short mode")
	}
	control := t.TempDir()
	files := map[string]string{
		"go.mod": "module fmacontrol\n\ngo 1.21\n",
		"c.go":   "package fmacontrol\n\nfunc F(x, y, z float32) float32 { return x*y + z }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(control, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range fmaPatterns {
		t.Run(p.name, func(t *testing.T) {
			if fused, _ := fusedFunctions(t, control, p.env, p.re); len(fused) == 0 {
				t.Fatalf("control x*y+z was not fused for %v: the check is blind", p.env)
			}
			fused, seen := fusedFunctions(t, ".", p.env, p.re)
			if seen < 10 {
				t.Fatalf("saw the assembly of only %d functions; is the compiler output missing?", seen)
			}
			if len(fused) > 0 {
				t.Errorf("fused multiply-add for %v in: %s", p.env, strings.Join(fused, ", "))
			}
		})
	}
}

var sink float32

// benchInputs returns 1024 inputs in [lo, hi).
func benchInputs(lo, hi float64) []float32 { return uniform(99, lo, hi, 1024) }

func benchUnary(b *testing.B, f func(float32) float32, lo, hi float64) {
	xs := benchInputs(lo, hi)
	var s float32
	for i := 0; b.Loop(); i++ {
		s += f(xs[i&1023])
	}
	sink = s
}

func BenchmarkSqrt(b *testing.B) { benchUnary(b, Sqrt, 0, 100) }
func BenchmarkSin(b *testing.B)  { benchUnary(b, Sin, -2*math.Pi, 2*math.Pi) }
func BenchmarkCos(b *testing.B)  { benchUnary(b, Cos, -2*math.Pi, 2*math.Pi) }
func BenchmarkTan(b *testing.B)  { benchUnary(b, Tan, -2*math.Pi, 2*math.Pi) }
func BenchmarkExp(b *testing.B)  { benchUnary(b, Exp, -80, 80) }
func BenchmarkLog(b *testing.B)  { benchUnary(b, Log, 1e-6, 1e6) }
func BenchmarkAcos(b *testing.B) { benchUnary(b, Acos, -1, 1) }

func BenchmarkPow(b *testing.B) {
	xs := benchInputs(0, 1)
	ys := uniform(98, 1, 1000, 1024)
	var s float32
	for i := 0; b.Loop(); i++ {
		s += Pow(xs[i&1023], ys[i&1023])
	}
	sink = s
}

func BenchmarkAtan2(b *testing.B) {
	ys := benchInputs(-10, 10)
	xs := uniform(97, -10, 10, 1024)
	var s float32
	for i := 0; b.Loop(); i++ {
		s += Atan2(ys[i&1023], xs[i&1023])
	}
	sink = s
}

// TestSinCosMatchesSinAndCos: SinCos returns Sin's and Cos's bits, on
// every 997th float32 bit pattern (both signs, subnormals, huge
// arguments, ±Inf and NaNs) and on
// the multiples of π/4 around which the reduction switches quadrants.
func TestSinCosMatchesSinAndCos(t *testing.T) {
	check := func(x float32) {
		s, c := SinCos(x)
		if ws, wc := Sin(x), Cos(x); math.Float32bits(s) != math.Float32bits(ws) || math.Float32bits(c) != math.Float32bits(wc) {
			t.Fatalf("SinCos(%v) = %v, %v; Sin, Cos = %v, %v", x, s, c, ws, wc)
		}
	}
	step := uint32(997)
	if testing.Short() {
		step = 9973
	}
	for b := uint64(0); b <= math.MaxUint32; b += uint64(step) {
		check(math.Float32frombits(uint32(b)))
	}
	for k := -64; k <= 64; k++ {
		x := float32(float64(k) * math.Pi / 4)
		for _, y := range []float32{math.Nextafter32(x, -10), x, math.Nextafter32(x, 10)} {
			check(y)
		}
	}
}
