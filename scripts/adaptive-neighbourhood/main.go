// Command adaptive-neighbourhood measures, offline, what rules of adaptive
// sampling other than trace's would give: the samples a pixel and the
// noise left, beside Cycles 3.4's figures in README's Adaptive sampling
// table. The renderer is not changed: every pixel's samples are rendered
// once, up to the most a pixel may take (tracer.Scene.PixelSample), and
// each rule is evaluated from the per-pixel prefixes of those samples
// (tracer.Settings.SamplesTaken, PixelConverged: trace's own estimator
// and float32 operations). Rules, at each noise threshold:
//
//	a  trace today: a pixel stops at the first test its own error passes
//	   (first at min_samples, ⌈16/T^0.3⌉ when 0, then every 16; since
//	   pixel version 12 the tracer takes both at
//	   tracer.NoiseThresholdScale·T, 0.34·T: README's table, measured at
//	   version 8, has that rule as "a at 0.34·T", and the rules below
//	   that use trace's test, c, d and e, take it at 0.34·T now too);
//	   checked against the real renderer (RenderBlock): the same samples
//	   in total and the same pixels bit for bit, or the program fails;
//	b  Cycles' first test: as a, first at the multiple of 16 above
//	   Cycles' minimum, ((min + 1) | 15) + 1 (96, 80 and 48 at 0.003,
//	   0.01 and 0.05), then every 16;
//	c  3×3 max: s(q) is pixel q's count under a; pixel p takes the most
//	   s(q) over q in its 3×3 neighbourhood (clipped to the image). Each
//	   s(q) depends on q's samples alone, so the frame is the same however
//	   it is tiled; a tile renders a 1-pixel apron around itself to know
//	   its edge pixels' neighbours, the apron's samples thrown away;
//	d  both: c over b's counts;
//	e  Cycles' own rule with trace's estimator, for reference (not
//	   tile-invariant): tests at b's counts, a pixel whose own test
//	   passes is marked converged, the unconverged dilated by the 3×3 box
//	   (Cycles' filter_x then filter_y passes), unmarked pixels take 16
//	   more samples; a marked pixel is not re-tested but is unmarked
//	   again (and resumes) when a neighbour, re-tested, fails; each test
//	   at the pixel's own count;
//	f  Cycles 3.4 on trace's samples: e with Cycles' estimator, one draw
//	   of |I − A| (A twice the sum of Cycles' class A samples) over
//	   0.0001 + √i, i the pixel's mean R + G + B;
//	g  Cycles 3.5 on, as trace: f over 0.0001 + i where i ≥ 1;
//	h  d with g's single draw as each pixel's own test (chain-free);
//
// then a and d again at the threshold T' at which they take f's samples
// a pixel (bisection; d's first test moves with T', in steps of 16, so
// it may only come near): the noise each leaves for the same work; and
// with -scale-a K or -scale-d K, a or d at K times each threshold (a
// fixed remapping of the threshold towards Cycles': README's 0.34 and
// 0.72 are the geometric means of T'/T over its nine renders, measured
// at pixel version 8; the tracer now applies the 0.34 itself, so K
// multiplies 0.34·T).
//
// For each: samples a pixel; RMSE² against a REF-sample reference of
// trace's own (another seed, as scripts/adaptive-noise.sh) as a factor of
// the RMSE² with every pixel at SPP samples (×none), the same for the
// median over pixels of a pixel's squared error (med×, as
// scripts/cycles/adaptive_compare.py); for the chain-free 3×3 rules (c,
// d, h, d at K·T), the apron's extra samples for tiles of 32 and 64
// pixels a side: over all the frame's tiles, the apron pixels' own s(q)
// over the samples the tiles take. It
// also prints the share of pixels whose mean R + G + B, i, is 1 or more,
// where trace's normaliser (i) and Cycles 3.4's (√i) differ. f against
// Cycles' own figures says how much of the rest is the renderers'
// different noise (materials, light sampling) rather than the rule.
//
//	go run ./scripts/adaptive-neighbourhood [-size 128] [-spp 256] [-ref 4096] \
//		[-t "0.003 0.01 0.05"] [-tiles "32 64"] [-scale-a K] [-scale-d K] [-work DIR] [SCENE...]
//
// from the repository's root. SCENE is a name in scenes/examples (default
// cornell-box materials pbr) or a path. References are kept in DIR
// (default ${TMPDIR:-/tmp}/adaptive-neighbourhood) and reused: remove
// them after changing the renderer. README's table (the defaults,
// -scale-a 0.34 -scale-d 0.72) on 2 shared cores: 3 minutes (178 s), 154
// s of it the three 4096-sample references (20 s when they are kept); it
// holds SIZE²·SPP samples (50 MB at the defaults).
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"image"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// refSeed is the references' seed, scripts/adaptive-noise.sh's.
const refSeed = 777

func main() {
	size := flag.Int("size", 128, "image side, pixels")
	spp := flag.Int("spp", 256, "the most samples a pixel takes")
	ref := flag.Int("ref", 4096, "the reference's samples a pixel")
	ts := flag.String("t", "0.003 0.01 0.05", "noise thresholds")
	tileList := flag.String("tiles", "32 64", "tile sides for the apron's cost, pixels")
	scaleA := flag.Float64("scale-a", 0, "also rule a at this times each threshold (0: not)")
	scaleD := flag.Float64("scale-d", 0, "also rule d at this times each threshold (0: not)")
	work := flag.String("work", filepath.Join(os.TempDir(), "adaptive-neighbourhood"), "where references are kept")
	flag.Parse()
	thresholds, err := floats(*ts)
	if err != nil {
		fail(fmt.Errorf("-t: %w", err))
	}
	tiles, err := floats(*tileList)
	if err != nil {
		fail(fmt.Errorf("-tiles: %w", err))
	}
	names := flag.Args()
	if len(names) == 0 {
		names = []string{"cornell-box", "materials", "pbr"}
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		fail(err)
	}
	start := time.Now()
	fmt.Printf("%-11s %-6s %-12s %9s %7s %7s", "scene", "T", "rule", "spp/pixel", "RMSE²×", "med×")
	for _, t := range tiles {
		fmt.Printf(" %9s", fmt.Sprintf("apron %g", t))
	}
	fmt.Println()
	for _, name := range names {
		m := measurement{size: *size, spp: *spp, ref: *ref, work: *work, scaleA: *scaleA, scaleD: *scaleD}
		if err := m.run(name, thresholds, tiles); err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
	}
	fmt.Printf("(%.0f s; RMSE²× and med×: over the render with every pixel at %d samples; apron N: the "+
		"apron's samples over the tiles' for tiles of N pixels a side)\n", time.Since(start).Seconds(), *spp)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "adaptive-neighbourhood:", err)
	os.Exit(1)
}

func floats(s string) ([]float64, error) {
	var v []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x > 0) {
			return nil, fmt.Errorf("%q: not a positive number", f)
		}
		v = append(v, x)
	}
	return v, nil
}

// measurement is one scene's: its samples, rendered once, and its
// reference.
type measurement struct {
	size, spp, ref int
	work           string
	scaleA, scaleD float64 // -scale-a, -scale-d
	bundle         *scenes.Bundle
	settings       tracer.Settings // the scene's, at size and spp, no threshold
	samples        [][3]float32    // pixel p's sample i at p·spp + i
	refPix         []float32       // the reference, three float32 a pixel
}

// scene compiles the scene at m's size with settings s (a fresh
// description each time: Compile may release it).
func (m *measurement) scene(s tracer.Settings) (*tracer.Scene, error) {
	d, err := m.bundle.Load()
	if err != nil {
		return nil, err
	}
	d.Settings = s
	return tracer.Compile(d)
}

func (m *measurement) run(name string, thresholds, tiles []float64) error {
	path := name
	if !strings.ContainsAny(name, "/.") {
		path = filepath.Join("scenes", "examples", name+".json")
	}
	bundle, d, err := scenes.ReadBundle(path, scenes.Options{})
	if err != nil {
		return err
	}
	m.bundle = bundle
	m.settings = d.Settings
	m.settings.Width, m.settings.Height, m.settings.Samples = m.size, m.size, m.spp
	m.settings.NoiseThreshold = 0
	if err := m.reference(filepath.Base(strings.TrimSuffix(path, ".json"))); err != nil {
		return err
	}
	if err := m.renderSamples(); err != nil {
		return err
	}
	n := m.size * m.size
	full := make([]int, n)
	for p := range full {
		full[p] = m.spp
	}
	none := m.noise(full)
	bright := 0
	for p := range n {
		var i float64
		for _, c := range m.samples[p*m.spp : (p+1)*m.spp] {
			i += float64(c[0]) + float64(c[1]) + float64(c[2])
		}
		if i/float64(m.spp) >= 1 {
			bright++
		}
	}
	fmt.Printf("%-11s %-6s %-12s %9d %7.2f %7.2f   (%.1f %% of pixels with R+G+B ≥ 1)\n",
		name, "none", "", m.spp, 1.0, 1.0, 100*float64(bright)/float64(n))
	for _, t := range thresholds {
		sa, sb := m.rule(t, false), m.rule(t, true)
		a := m.counts(sa)
		if err := m.checkRenderer(sa, a); err != nil {
			return err
		}
		b := m.counts(sb)
		h := m.firstPass(sb, cyclesTest(sb.NoiseThreshold, true))
		f := m.cycles(sb, cyclesTest(sb.NoiseThreshold, false))
		rules := []rule{
			{"a trace", a, nil},
			{fmt.Sprintf("b first %d", sb.MinSamples), b, nil},
			{"c 3×3 max", m.dilate(a), a},
			{"d b + 3×3", m.dilate(b), b},
			{"e Cycles'", m.cycles(sb, sb.PixelConverged), nil},
			{"f Cycles 3.4", f, nil},
			{"g Cycles 3.5", m.cycles(sb, cyclesTest(sb.NoiseThreshold, true)), nil},
			{"h d, 1 draw", m.dilate(h), h},
		}
		// a and d at the threshold that takes f's samples a pixel.
		target := mean(f)
		for _, r := range []struct {
			name string
			b    bool
		}{{"a", false}, {"d", true}} {
			tm, counts := m.match(t, target, func(t float64) []int {
				c := m.counts(m.rule(t, r.b))
				if r.b {
					return m.dilate(c)
				}
				return c
			})
			rules = append(rules, rule{fmt.Sprintf("%s T'=%.2g", r.name, tm), counts, nil})
		}
		if m.scaleA > 0 {
			rules = append(rules, rule{fmt.Sprintf("a T×%g", m.scaleA), m.counts(m.rule(t*m.scaleA, false)), nil})
		}
		if m.scaleD > 0 {
			own := m.counts(m.rule(t*m.scaleD, true))
			rules = append(rules, rule{fmt.Sprintf("d T×%g", m.scaleD), m.dilate(own), own})
		}
		for _, r := range rules {
			e := m.noise(r.counts)
			fmt.Printf("%-11s %-6g %-12s %9.1f %7.2f %7.2f", name, t, r.name, mean(r.counts),
				e.mse/none.mse, e.median/none.median)
			for _, side := range tiles {
				if r.own == nil {
					fmt.Printf(" %9s", "")
					continue
				}
				fmt.Printf(" %8.1f%%", 100*m.apron(int(side), r.counts, r.own))
			}
			fmt.Println()
		}
	}
	return nil
}

// rule is a rule's samples for each pixel, and the pixels' own s(q)
// where it takes the most over a neighbourhood (an apron needs them).
type rule struct {
	name   string
	counts []int
	own    []int
}

// rule returns the scene's settings at threshold t, with Cycles' first
// test as MinSamples when cycles is true.
func (m *measurement) rule(t float64, cycles bool) tracer.Settings {
	s := m.settings
	s.NoiseThreshold = float32(t)
	if cycles {
		s.MinSamples = cyclesFirstTest(s)
	}
	return s
}

// match returns the threshold, between t/64 and 4t, at which counts
// takes target samples a pixel (bisection on log T, within 0.5 % or the
// closest of 40 tries), and its counts.
func (m *measurement) match(t, target float64, counts func(t float64) []int) (float64, []int) {
	lo, hi := math.Log(t/64), math.Log(4*t)
	var best []int
	bestT := 0.0
	for range 40 {
		tm := math.Exp((lo + hi) / 2)
		c := counts(tm)
		got := mean(c)
		if best == nil || math.Abs(got-target) < math.Abs(mean(best)-target) {
			best, bestT = c, tm
		}
		if math.Abs(got-target) <= 0.005*target {
			break
		}
		if got > target {
			lo = math.Log(tm)
		} else {
			hi = math.Log(tm)
		}
	}
	return bestT, best
}

// cyclesFirstTest is the samples at which Cycles 3.4 first tests a pixel
// (integrator/adaptive_sampling.cpp, need_filter): after 0-based sample
// (min + 1) | 15, min its minimum (scene/integrator.cpp: min_samples, or
// ⌈16/T^0.3⌉ at the user's T when 0, at least 4; trace's
// AdaptiveMinSamples takes that rule at tracer.NoiseThresholdScale·T).
func cyclesFirstTest(s tracer.Settings) int {
	n := s.MinSamples
	if n == 0 {
		n = int(math.Ceil(16 / math.Pow(float64(s.NoiseThreshold), 0.3)))
	}
	n = max(n, tracer.MinAdaptiveSamples)
	return ((n + 1) | (tracer.AdaptiveStep - 1)) + 1
}

// reference loads the reference, or renders and keeps it.
func (m *measurement) reference(name string) error {
	file := filepath.Join(m.work, fmt.Sprintf("%s-%d-%d-seed%d.f32", name, m.size, m.ref, refSeed))
	n := 3 * m.size * m.size
	m.refPix = make([]float32, n)
	b, err := os.ReadFile(file)
	if err == nil && len(b) == 4*n {
		_, err = binary.Decode(b, binary.LittleEndian, m.refPix)
		return err
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	s := m.settings
	s.Samples, s.Seed = m.ref, refSeed
	sc, err := m.scene(s)
	if err != nil {
		return err
	}
	t := time.Now()
	if _, err := renderFrame(sc, m.refPix); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: reference of %d samples in %.0f s\n", name, m.ref, time.Since(t).Seconds())
	b, err = binary.Append(nil, binary.LittleEndian, m.refPix)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// renderFrame renders sc into pix with the real renderer (RenderBlock,
// rows of 16 on every core) and returns the samples it took.
func renderFrame(sc *tracer.Scene, pix []float32) (uint64, error) {
	w, h := sc.Settings.Width, sc.Settings.Height
	var (
		mu    sync.Mutex
		total tracer.Stats
		first error
	)
	parallel(h/16+min(h%16, 1), func(band int) {
		r := image.Rect(0, 16*band, w, min(16*band+16, h))
		block := make([]float32, 3*r.Dx()*r.Dy())
		var st tracer.Stats
		err := sc.RenderBlock(context.Background(), r, block, &st)
		copy(pix[3*w*r.Min.Y:], block)
		mu.Lock()
		total.Add(st)
		if first == nil {
			first = err
		}
		mu.Unlock()
	})
	return total.Samples, first
}

// parallel calls f(0) … f(n − 1) on every core.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// renderSamples renders every pixel's spp samples (PixelSample).
func (m *measurement) renderSamples() error {
	sc, err := m.scene(m.settings)
	if err != nil {
		return err
	}
	m.samples = make([][3]float32, m.size*m.size*m.spp)
	parallel(m.size, func(y int) {
		var st tracer.Stats
		for x := range m.size {
			p := y*m.size + x
			for i := range m.spp {
				m.samples[p*m.spp+i] = sc.PixelSample(x, y, i, &st)
			}
		}
	})
	return nil
}

// counts returns each pixel's samples under s's own test (rule a, or b
// with Cycles' first test as s.MinSamples).
func (m *measurement) counts(s tracer.Settings) []int {
	c := make([]int, m.size*m.size)
	for p := range c {
		c[p] = s.SamplesTaken(m.samples[p*m.spp : (p+1)*m.spp])
	}
	return c
}

// firstPass returns each pixel's samples when it stops at the first
// of s's tests (first at s.AdaptiveMinSamples, then every AdaptiveStep,
// none at the last sample) that test passes: rule h's own counts, with
// Cycles' test.
func (m *measurement) firstPass(s tracer.Settings, test func(samples [][3]float32) bool) []int {
	c := make([]int, m.size*m.size)
	for p := range c {
		c[p] = m.spp
		for n := s.AdaptiveMinSamples(); n < m.spp; n += tracer.AdaptiveStep {
			if test(m.samples[p*m.spp : p*m.spp+n]) {
				c[p] = n
				break
			}
		}
	}
	return c
}

// checkRenderer renders the frame under s with the real renderer and
// fails unless rule a's counts give its samples and its pixels, bit for
// bit.
func (m *measurement) checkRenderer(s tracer.Settings, counts []int) error {
	sc, err := m.scene(s)
	if err != nil {
		return err
	}
	pix := make([]float32, 3*m.size*m.size)
	taken, err := renderFrame(sc, pix)
	if err != nil {
		return err
	}
	want := m.image(counts)
	var sum uint64
	for _, c := range counts {
		sum += uint64(c)
	}
	if taken != sum || !slices.Equal(pix, want) {
		return fmt.Errorf("threshold %g: the renderer took %d samples (%.2f a pixel), rule a %d, pixels equal: %v",
			s.NoiseThreshold, taken, float64(taken)/float64(len(counts)), sum, slices.Equal(pix, want))
	}
	return nil
}

// image returns the frame whose pixel p is the mean of its first
// counts[p] samples, summed in order in float32, as the renderer does.
func (m *measurement) image(counts []int) []float32 {
	pix := make([]float32, 3*len(counts))
	for p, k := range counts {
		var s [3]float32
		for _, c := range m.samples[p*m.spp : p*m.spp+k] {
			s[0] += c[0]
			s[1] += c[1]
			s[2] += c[2]
		}
		for ch := range 3 {
			pix[3*p+ch] = s[ch] / float32(k)
		}
	}
	return pix
}

// noiseFigures is a frame's error against the reference: the mean squared
// difference over pixels and channels, and the median over pixels of a
// pixel's mean over its channels.
type noiseFigures struct{ mse, median float64 }

func (m *measurement) noise(counts []int) noiseFigures {
	pix := m.image(counts)
	per := make([]float64, len(counts))
	var sum float64
	for p := range per {
		var e float64
		for ch := range 3 {
			d := float64(pix[3*p+ch]) - float64(m.refPix[3*p+ch])
			e += d * d
		}
		per[p] = e / 3
		sum += e
	}
	slices.Sort(per)
	n := len(per)
	med := per[n/2]
	if n%2 == 0 {
		med = (per[n/2-1] + per[n/2]) / 2
	}
	return noiseFigures{mse: sum / float64(3*n), median: med}
}

// dilate returns the most of own over each pixel's 3×3 neighbourhood,
// clipped to the image.
func (m *measurement) dilate(own []int) []int {
	w := m.size
	out := make([]int, len(own))
	for y := range w {
		for x := range w {
			v := 0
			for qy := max(y-1, 0); qy <= min(y+1, w-1); qy++ {
				for qx := max(x-1, 0); qx <= min(x+1, w-1); qx++ {
					v = max(v, own[qy*w+qx])
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// apron returns, for tiles of side pixels a side over the image (as
// scheduler.Tiles lays them), the samples their 1-pixel aprons take (the
// apron pixels' own counts, own) over the samples the tiles' pixels take
// (counts), summed over the frame.
func (m *measurement) apron(side int, counts, own []int) float64 {
	w := m.size
	var extra, inside float64
	for ty := 0; ty < w; ty += side {
		for tx := 0; tx < w; tx += side {
			r := image.Rect(tx, ty, min(tx+side, w), min(ty+side, w))
			for y := max(r.Min.Y-1, 0); y < min(r.Max.Y+1, w); y++ {
				for x := max(r.Min.X-1, 0); x < min(r.Max.X+1, w); x++ {
					if image.Pt(x, y).In(r) {
						inside += float64(counts[y*w+x])
					} else {
						extra += float64(own[y*w+x])
					}
				}
			}
		}
	}
	return extra / inside
}

// cycles returns each pixel's samples under Cycles 3.4's own rule with
// the test converged (trace's, rule e, or Cycles', f), first at
// s.MinSamples, Cycles' first test: at each test every pixel not marked
// converged is tested at its own count,
// the marks of those that pass are set and those that fail cleared, then
// a pixel is unmarked where any of its 3×3 neighbourhood is
// (film_adaptive_sampling_filter_x, _y); unmarked pixels take the next 16
// samples. A marked pixel is not tested again (the kernel's early
// return), but may be unmarked by a neighbour.
func (m *measurement) cycles(s tracer.Settings, converged func(samples [][3]float32) bool) []int {
	n := m.size * m.size
	k := make([]int, n)
	marked := make([]bool, n)
	for p := range k {
		k[p] = s.MinSamples
	}
	for done := s.MinSamples; done < m.spp; done += tracer.AdaptiveStep {
		own := make([]int, n) // 1 where unconverged: dilated by the max
		active := 0
		for p := range n {
			if !marked[p] {
				marked[p] = converged(m.samples[p*m.spp : p*m.spp+k[p]])
			}
			if !marked[p] {
				own[p] = 1
				active++
			}
		}
		if active == 0 {
			break
		}
		for p, u := range m.dilate(own) {
			if u == 1 {
				marked[p] = false
				k[p] = min(k[p]+tracer.AdaptiveStep, m.spp)
			}
		}
	}
	return k
}

// cyclesTest returns Cycles' own convergence test at threshold t
// (kernel/film/adaptive_sampling.h, film_adaptive_sampling_convergence_check)
// for samples in trace's order: I the sum of all n, A twice the sum of
// the class A ones (kernel/sample/pattern.h, sample_is_class_A: sample i
// is when popcount(i & 0xaaaaaaaa) is odd; kernel/film/light_passes.h),
// error Σ_c |I_c − A_c|/n over 0.0001 + N, below 5t, with i = (I_r + I_g
// + I_b)/n and N = √i in Cycles 3.4, or from 3.5 on (bright, Blender's
// "Improve adaptive sampling for overexposed scenes", and trace's) N = i
// where i ≥ 1; in float32 as the kernel, without the film's exposure
// (3.5's intensity scale; 0 in the scenes measured).
func cyclesTest(t float32, bright bool) func(samples [][3]float32) bool {
	limit := 5 * t
	return func(samples [][3]float32) bool {
		var sum, a [3]float32
		for i, c := range samples {
			for ch := range 3 {
				sum[ch] += c[ch]
			}
			if bits.OnesCount32(uint32(i)&0xaaaaaaaa)&1 == 1 {
				for ch := range 3 {
					a[ch] += c[ch] * 2
				}
			}
		}
		inv := 1 / float32(len(samples))
		d := (abs32(sum[0]-a[0]) + abs32(sum[1]-a[1]) + abs32(sum[2]-a[2])) * inv
		i := (sum[0] + sum[1] + sum[2]) * inv
		norm := float32(math.Sqrt(float64(i)))
		if bright && i >= 1 {
			norm = i
		}
		return d/(0.0001+norm) < limit
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

func mean(v []int) float64 {
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}
