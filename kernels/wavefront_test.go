package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fakeWave is a Wavefront whose wf_shade asks the queries of a script,
// one round after another (a kind's bit: one slot asks it), and records
// the launches.
type fakeWave struct {
	rounds   []uint32 // the kinds each wf_shade asks
	shades   int
	asked    Queries // what the last wf_shade asked
	launches []string
	threads  []string  // "wf_intersect 1": the launches with their threads, past wf_init
	fail     WaveEntry // an entry whose launch fails, or -1

	// For several lanes: the lane's name and a log the lanes share, of
	// launches ("A wf_shade") and takes ("A take").
	name   string
	log    *[]string
	onTake func() // called at each TakeQueries, when set
}

func (f *fakeWave) Launch(e WaveEntry, threads int) error {
	f.launches = append(f.launches, e.String())
	if e != WaveInit {
		f.threads = append(f.threads, fmt.Sprintf("%v %d", e, threads))
	}
	if f.log != nil {
		*f.log = append(*f.log, f.name+" "+e.String())
	}
	if e == f.fail {
		return errors.New("launch failed")
	}
	if e == WaveShade {
		f.asked = Queries{}
		if f.shades < len(f.rounds) {
			r := f.rounds[f.shades]
			f.asked = Queries{Closest: int(r & WaveClosest), Any: int(r&WaveAny) / int(WaveAny)}
		}
		f.shades++
	}
	return nil
}

func (f *fakeWave) TakeQueries() (Queries, error) {
	if f.log != nil {
		*f.log = append(*f.log, f.name+" take")
	}
	if f.onTake != nil {
		f.onTake()
	}
	return f.asked, nil
}

// TestRunWavefront: the launch sequence follows the queries wf_shade
// asks: each query kernel only in rounds that asked its kind, as wide as
// the queries of its kind, wf_shade as wide as the last round's queries
// (the first over every slot), wf_finish after the first round that asked
// nothing.
func TestRunWavefront(t *testing.T) {
	h := &TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}
	f := &fakeWave{rounds: []uint32{WaveClosest, WaveAny | WaveClosest, WaveAny}, fail: -1}
	if err := RunWavefront(context.Background(), f, 5, h); err != nil {
		t.Fatal(err)
	}
	want := []string{"wf_shade 5", "wf_intersect 1", "wf_shade 1", "wf_intersect 1", "wf_occluded 1",
		"wf_shade 2", "wf_occluded 1", "wf_shade 1", "wf_finish 5"}
	if f.launches[0] != "wf_init" || !reflect.DeepEqual(f.threads, want) {
		t.Errorf("launches %v, threads %v; want wf_init, then %v", f.launches, f.threads, want)
	}
	// A round that asks more queries than the lane has slots is a kernel
	// bug: an error, and no launch after it.
	f = &fakeWave{rounds: []uint32{WaveAny | WaveClosest}, fail: -1}
	err := RunWavefront(context.Background(), f, 1, h)
	if err == nil || !strings.Contains(err.Error(), "a round of 1 slots asked 1 nearest-hit and 1 any-hit queries") {
		t.Errorf("two queries of one slot: error %v", err)
	}
	if len(f.launches) != 2 {
		t.Errorf("two queries of one slot: launches %v, want wf_init and wf_shade alone", f.launches)
	}
}

// TestRunWavefrontErrors: a failed launch, a cancelled context and a batch
// that never ends (a kernel bug) end the loop with an error.
func TestRunWavefrontErrors(t *testing.T) {
	h := &TraceScene{Samples: 1, MaxDepth: 0}
	f := &fakeWave{rounds: []uint32{WaveClosest}, fail: WaveIntersect}
	if err := RunWavefront(context.Background(), f, 1, h); err == nil || !strings.Contains(err.Error(), "launch failed") {
		t.Errorf("failed launch: error %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f = &fakeWave{rounds: []uint32{WaveClosest}, fail: -1}
	if err := RunWavefront(ctx, f, 1, h); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	forever := make([]uint32, 1000)
	for i := range forever {
		forever[i] = WaveAny
	}
	f = &fakeWave{rounds: forever, fail: -1}
	err := RunWavefront(context.Background(), f, 1, h)
	if err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("endless batch: error %v", err)
	}
	if f.shades != int(WaveRounds(h))+1 {
		t.Errorf("endless batch: %d rounds of wf_shade, want the bound %d + 1", f.shades, WaveRounds(h))
	}
}

// fakeLanes returns one fakeWave per script, named A, B, ..., sharing
// one log.
func fakeLanes(scripts ...[]uint32) ([]Wavefront, []*fakeWave, *[]string) {
	log := new([]string)
	var ws []Wavefront
	var fs []*fakeWave
	for i, r := range scripts {
		f := &fakeWave{rounds: r, fail: -1, name: string(rune('A' + i)), log: log}
		ws, fs = append(ws, f), append(fs, f)
	}
	return ws, fs, log
}

// TestRunWavefronts: two lanes' rounds interleave (a lane's queries are
// taken while the other's launches are queued), each lane's launches
// follow its own queries, a lane that ends leaves the rotation and the
// other goes on alone; an empty lane is never launched.
func TestRunWavefronts(t *testing.T) {
	h := &TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}
	lanes, fs, log := fakeLanes([]uint32{WaveClosest}, []uint32{WaveAny, WaveClosest | WaveAny})
	if err := RunWavefronts(context.Background(), lanes, []int{5, 4}, h); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"A wf_init", "A wf_shade", "B wf_init", "B wf_shade",
		"A take", "A wf_intersect", "A wf_shade", "B take", "B wf_occluded", "B wf_shade",
		"A take", "A wf_finish", "B take", "B wf_intersect", "B wf_occluded", "B wf_shade",
		"B take", "B wf_finish",
	}
	if !reflect.DeepEqual(*log, want) {
		t.Errorf("two lanes:\n got %v\nwant %v", *log, want)
	}
	// Each lane's own launches are what RunWavefront gives it alone.
	for i, f := range fs {
		alone := &fakeWave{rounds: f.rounds, fail: -1}
		if err := RunWavefront(context.Background(), alone, []int{5, 4}[i], h); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.threads, alone.threads) {
			t.Errorf("lane %d: launches %v beside another lane, %v alone", i, f.threads, alone.threads)
		}
	}

	lanes, fs, log = fakeLanes(nil, []uint32{WaveClosest})
	if err := RunWavefronts(context.Background(), lanes, []int{0, 3}, h); err != nil {
		t.Fatal(err)
	}
	want = []string{"B wf_init", "B wf_shade", "B take", "B wf_intersect", "B wf_shade", "B take", "B wf_finish"}
	if !reflect.DeepEqual(*log, want) || fs[0].launches != nil {
		t.Errorf("an empty lane A:\n got %v\nwant %v", *log, want)
	}
	lanes, _, log = fakeLanes(nil, nil)
	if err := RunWavefronts(context.Background(), lanes, []int{0, 0}, h); err != nil || len(*log) != 0 {
		t.Errorf("two empty lanes: %v, log %v", err, *log)
	}
}

// TestRunWavefrontsRoundsPerLane: the bound on the rounds is each lane's:
// two lanes that each take the most rounds a pixel can ask both finish,
// and an endless lane fails after its own bound, named.
func TestRunWavefrontsRoundsPerLane(t *testing.T) {
	h := &TraceScene{Samples: 1, MaxDepth: 0}
	bound := int(WaveRounds(h))
	most := make([]uint32, bound) // then a round that asks nothing: bound + 1 rounds of wf_shade
	forever := make([]uint32, 10*bound)
	for i := range forever {
		forever[i] = WaveAny
		if i < len(most) {
			most[i] = WaveClosest
		}
	}
	lanes, fs, _ := fakeLanes(most, most)
	if err := RunWavefronts(context.Background(), lanes, []int{1, 1}, h); err != nil {
		t.Fatalf("two lanes of %d rounds each: %v", bound, err)
	}
	for i, f := range fs {
		if f.shades != bound+1 {
			t.Errorf("lane %d: %d rounds of wf_shade, want %d", i, f.shades, bound+1)
		}
	}
	lanes, fs, _ = fakeLanes(most, forever)
	err := RunWavefronts(context.Background(), lanes, []int{1, 1}, h)
	if err == nil || !strings.Contains(err.Error(), "lane 1 of 2") || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("an endless lane 1: error %v, want one naming lane 1 and the rounds", err)
	}
	if fs[1].shades != bound+1 {
		t.Errorf("endless lane: %d rounds of wf_shade, want the bound %d + 1", fs[1].shades, bound)
	}
}

// TestRunWavefrontsErrors: a failed launch on either lane, or a context
// cancelled during a round, stops both lanes: no launch after it, and the
// error names the lane.
func TestRunWavefrontsErrors(t *testing.T) {
	h := &TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}
	script := []uint32{WaveClosest, WaveAny, WaveClosest, WaveAny}
	for _, c := range []struct {
		lane int
		fail WaveEntry
	}{{0, WaveInit}, {1, WaveInit}, {0, WaveOccluded}, {1, WaveIntersect}, {1, WaveFinish}} {
		lanes, fs, log := fakeLanes(script, script)
		fs[c.lane].fail = c.fail
		err := RunWavefronts(context.Background(), lanes, []int{2, 2}, h)
		name := fmt.Sprintf("lane %d of 2", c.lane)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "launch failed") {
			t.Errorf("%v fails on lane %d: error %v, want one naming %q", c.fail, c.lane, err, name)
		}
		last := fs[c.lane].name + " " + c.fail.String()
		if got := (*log)[len(*log)-1]; got != last {
			t.Errorf("%v fails on lane %d: the last call was %q, want the failed launch %q (log %v)", c.fail, c.lane, got, last, *log)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lanes, fs, log := fakeLanes(script, script)
	takes := 0
	fs[1].onTake = func() {
		if takes++; takes == 2 {
			cancel()
		}
	}
	err := RunWavefronts(ctx, lanes, []int{2, 2}, h)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	if got := (*log)[len(*log)-1]; got != "B take" {
		t.Errorf("cancelled at lane B's second take: then %q, want no launch (log %v)", got, *log)
	}

	if err := RunWavefronts(context.Background(), lanes, []int{1}, h); err == nil {
		t.Error("two lanes, one size: no error")
	}
	if err := RunWavefronts(context.Background(), lanes, []int{1, -1}, h); err == nil {
		t.Error("a lane of -1 pixels: no error")
	}
}

// TestLaneSizes: a batch's halves for two lanes, the first rounded to
// whole blocks, and every pixel in exactly one lane.
func TestLaneSizes(t *testing.T) {
	for _, c := range []struct {
		n, lanes, grain int
		want            []int
	}{
		{0, 2, 128, []int{0, 0}},
		{1, 2, 128, []int{1, 0}},
		{128, 2, 128, []int{128, 0}},
		{200, 2, 128, []int{128, 72}},
		{256, 2, 128, []int{128, 128}},
		{1000, 2, 128, []int{512, 488}},
		{1081344, 2, 128, []int{540672, 540672}},
		{7, 2, 1, []int{4, 3}},
		{7, 3, 1, []int{3, 3, 1}},
		{5, 1, 64, []int{5}},
		{5, 0, 0, []int{5}},
	} {
		got := LaneSizes(c.n, c.lanes, c.grain)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("LaneSizes(%d, %d, %d) = %v, want %v", c.n, c.lanes, c.grain, got, c.want)
		}
	}
}

// TestParseLanes: TRACE_GPU_LANES' values, and a clear error for any
// other.
func TestParseLanes(t *testing.T) {
	for s, want := range map[string]int{"": DefaultLanes, "1": 1, "2": 2} {
		if n, err := ParseLanes(s); err != nil || n != want {
			t.Errorf("ParseLanes(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"0", "3", "two", "-1"} {
		if _, err := ParseLanes(s); err == nil || !strings.Contains(err.Error(), LanesEnv) {
			t.Errorf("ParseLanes(%q): error %v, want one naming %s", s, err, LanesEnv)
		}
	}
}

// TestWaveRounds: the bound on a pixel's query rounds, per integrator: a
// path's bounces, a Whitted sample's tree of hits, saturating where the
// tree's size overflows.
func TestWaveRounds(t *testing.T) {
	const passes = 16 // tracer.MaxAlphaPasses
	whitted := uint32(1)
	for _, c := range []struct {
		h    TraceScene
		want uint64
	}{
		// 2 samples · 4 bounces · (17 + 3 shadow rays of 18)
		{TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}, 2 * 4 * ((1 + passes) + 3*(passes+2))},
		// 2 samples · 15 hits · (17 + 1 shadow ray of 18)
		{TraceScene{Integrator: whitted, Samples: 2, MaxDepth: 3, NumLights: 1}, 2 * 15 * ((1 + passes) + (passes + 2))},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 0}, 1 + passes},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 58}, (1<<59 - 1) * (1 + passes)},
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: 62}, math.MaxUint64}, // (2^63−1)·17 overflows
		{TraceScene{Integrator: whitted, Samples: 1, MaxDepth: MaxDepth, NumLights: 4}, math.MaxUint64},
	} {
		if got := WaveRounds(&c.h); got != c.want {
			t.Errorf("WaveRounds(%+v) = %d, want %d", c.h, got, c.want)
		}
	}
}

// TestParseKernel: the names of TRACE_GPU_KERNEL, and a clear error for
// any other.
func TestParseKernel(t *testing.T) {
	for s, want := range map[string]Kernel{"": DefaultKernel, "wavefront": KernelWavefront, "megakernel": KernelMegakernel, "auto": KernelAuto} {
		k, err := ParseKernel(s)
		if err != nil || k != want {
			t.Errorf("ParseKernel(%q) = %v, %v; want %v", s, k, err, want)
		}
		if s != "" && k.String() != s {
			t.Errorf("%v.String() = %q, want %q", k, k.String(), s)
		}
	}
	if _, err := ParseKernel("mega"); err == nil || !strings.Contains(err.Error(), KernelEnv) {
		t.Errorf("ParseKernel(\"mega\"): error %v, want one naming %s", err, KernelEnv)
	}
}

// TestShadeThreads: a thread per slot while at least half the slots
// asked a query, else one per query; and RunWavefront launches wf_shade
// so.
func TestShadeThreads(t *testing.T) {
	for _, c := range []struct {
		q       Queries
		n, want int
	}{
		{Queries{}, 5, 0},
		{Queries{Closest: 2}, 5, 2},
		{Queries{Closest: 2, Any: 1}, 5, 5},
		{Queries{Any: 3}, 6, 6},
		{Queries{Any: 2}, 6, 2},
		{Queries{Closest: 1}, 1, 1},
		{Queries{Closest: 1}, 2, 2},
		{Queries{Closest: 1}, 3, 1},
		{Queries{Closest: 65536}, 131072, 131072},
		{Queries{Closest: 65535}, 131072, 65535},
	} {
		if got := ShadeThreads(c.q, c.n); got != c.want {
			t.Errorf("ShadeThreads(%+v, %d) = %d, want %d", c.q, c.n, got, c.want)
		}
	}
	h := &TraceScene{Samples: 2, MaxDepth: 3, NumLights: 1}
	f := &fakeWave{rounds: []uint32{WaveClosest | WaveAny, WaveAny}, fail: -1}
	if err := RunWavefront(context.Background(), f, 3, h); err != nil {
		t.Fatal(err)
	}
	want := []string{"wf_shade 3", "wf_intersect 1", "wf_occluded 1", "wf_shade 3", "wf_occluded 1", "wf_shade 1", "wf_finish 3"}
	if !reflect.DeepEqual(f.threads, want) {
		t.Errorf("launches %v, want %v", f.threads, want)
	}
}
