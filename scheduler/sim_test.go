package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/tracerender/trace/tracer"
)

// simRaysPerSecond is the speed of one simulated thread, in ray-scene
// queries per second: about what one core of the development machines
// traces on the materials scene. It only sets the time scale of the tile
// costs against the message latency.
const simRaysPerSecond = 3e6

// rayMap is the work of every pixel of a small render: ray-scene queries
// per sample, row-major, w×h.
type rayMap struct {
	w, h int
	rays []float64
}

// measureRays renders the gallery scene name at w×h with the given samples
// per pixel and counts each pixel's rays (tracer.Stats, so the map does not
// depend on the machine's load).
func measureRays(tb testing.TB, name string, w, h, samples int) rayMap {
	tb.Helper()
	s := loadScene(tb, name, w, h, samples)
	m := rayMap{w: w, h: h, rays: make([]float64, w*h)}
	for y := range h {
		for x := range w {
			var st tracer.Stats
			s.RenderPixel(x, y, &st)
			m.rays[y*w+x] = float64(st.Rays) / float64(samples)
		}
	}
	return m
}

// tileCosts scales m to a W×H frame with the given samples per pixel, cut
// into tiles of size px, and returns each tile's rays and its time on one
// thread at simRaysPerSecond. Each frame pixel takes the rays of the map
// pixel it falls in.
func tileCosts(m rayMap, W, H, size, samples int) ([]Tile, []time.Duration, []uint64) {
	tiles := Tiles(W, H, size)
	cost := make([]time.Duration, len(tiles))
	rays := make([]uint64, len(tiles))
	// The map column and row of every frame column and row.
	mx := make([]int, W)
	for x := range mx {
		mx[x] = x * m.w / W
	}
	for i, t := range tiles {
		var sum float64
		for y := t.Rect.Min.Y; y < t.Rect.Max.Y; y++ {
			row := m.rays[(y*m.h/H)*m.w:]
			for x := t.Rect.Min.X; x < t.Rect.Max.X; x++ {
				sum += row[mx[x]]
			}
		}
		rays[i] = uint64(sum * float64(samples))
		cost[i] = time.Duration(float64(rays[i]) / simRaysPerSecond * float64(time.Second))
	}
	return tiles, cost, rays
}

func uniformCosts(n int, c time.Duration) []time.Duration {
	cost := make([]time.Duration, n)
	for i := range cost {
		cost[i] = c
	}
	return cost
}

// TestQueueTryNextRequeuesFirst checks the queue changes the simulation
// relies on or measures: tryNext does not wait, and a tile whose lease
// failed or was released is leased again before the tiles never leased, so
// that it does not end up among the last, but not to the worker it failed
// on while that one has other tiles to take.
func TestQueueTryNextRequeuesFirst(t *testing.T) {
	tiles := Tiles(4, 1, 1)
	events := make(chan event, 16)
	q := newQueue(tiles, tracer.NewFramebuffer(4, 1), 2, false, events, 2)
	lease := func(worker, want int) Lease {
		t.Helper()
		l, ok, err := q.tryNext(worker)
		if !ok || err != nil || l.Tile.ID != want {
			t.Fatalf("tryNext(%d): tile %d, %v, %v; want tile %d", worker, l.Tile.ID, ok, err, want)
		}
		return l
	}
	a, b := lease(0, 0), lease(0, 1)
	q.Fail(a, errors.New("lost"))
	q.Release(b)
	b = lease(0, 1)  // released last, so first
	c := lease(0, 2) // tile 0 failed on worker 0: another worker's
	a = lease(1, 0)
	d := lease(0, 3)
	if _, ok, err := q.tryNext(1); ok || err != nil {
		t.Fatalf("tryNext with every tile leased: %v, %v; want to wait", ok, err)
	}
	pix := make([]float32, 3)
	for _, l := range []Lease{a, b, c, d} {
		q.Complete(l, pix, tracer.Stats{})
	}
	if _, _, err := q.tryNext(1); !errors.Is(err, ErrNoMoreTiles) {
		t.Fatalf("tryNext after the last tile: %v; want ErrNoMoreTiles", err)
	}
}

// TestSimulationEveryTileOnce drives the queue with simulated workers, one
// of which drops its connection partway (and comes back, or not), and
// checks that every tile is accepted exactly once, that the failed leases
// came back, and that uniform tiles keep 16 workers busy.
func TestSimulationEveryTileOnce(t *testing.T) {
	m := measureRays(t, "materials", 48, 27, 1)
	tiles, realCost, _ := tileCosts(m, 640, 360, 32, 64)
	uniform := uniformCosts(len(tiles), 50*time.Millisecond)
	var work time.Duration
	for _, c := range realCost {
		work += c
	}
	for _, tc := range []struct {
		name       string
		cost       []time.Duration
		workers    int
		threads    int
		latency    time.Duration
		duplicates bool
		back       time.Duration
		minEff     float64
	}{
		// 240 tiles of 50 ms on 16 threads: 15 rounds, and the failed
		// worker's lost tile and its time away cost about one round.
		{"uniform/16x1/back", uniform, 16, 1, 500 * time.Microsecond, false, 100 * time.Millisecond, 0.85},
		{"uniform/16x1/gone", uniform, 16, 1, 500 * time.Microsecond, true, -1, 0.85},
		{"uniform/4x4/wan", uniform, 4, 4, 20 * time.Millisecond, true, 100 * time.Millisecond, 0.80},
		{"materials/16x1", realCost, 16, 1, 500 * time.Microsecond, true, 100 * time.Millisecond, 0.90},
		{"materials/3x2/no-dup", realCost, 3, 2, 500 * time.Microsecond, false, -1, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var total time.Duration
			for _, c := range tc.cost {
				total += c
			}
			res, err := simulate(simConfig{
				tiles: tiles, cost: tc.cost, workers: tc.workers, threads: tc.threads,
				latency: tc.latency, duplicates: tc.duplicates,
				failWorker: 1, failAt: total / time.Duration(2*tc.workers*tc.threads), failBack: tc.back,
			})
			if err != nil {
				t.Fatal(err)
			}
			for id, n := range res.accepted {
				if n != 1 {
					t.Errorf("tile %d accepted %d times", id, n)
				}
			}
			if res.progress.TilesDone != len(tiles) {
				t.Errorf("progress: %d tiles done, want %d", res.progress.TilesDone, len(tiles))
			}
			if res.failed == 0 || res.progress.Workers[1].Retries != res.failed {
				t.Errorf("%d leases failed, progress counts %d retries; want the same, above 0",
					res.failed, res.progress.Workers[1].Retries)
			}
			if !tc.duplicates && res.duplicates+res.dropped > 0 {
				t.Errorf("%d duplicates, %d dropped without duplicates", res.duplicates, res.dropped)
			}
			if res.efficiency < tc.minEff || res.efficiency > 1 {
				t.Errorf("efficiency %.3f, want in [%.2f, 1]", res.efficiency, tc.minEff)
			}
			t.Logf("efficiency %.3f, makespan %v, %d leases, %d duplicates, %d dropped, %d failed",
				res.efficiency, res.makespan, res.leases, res.duplicates, res.dropped, res.failed)
		})
	}
}

// BenchmarkSimulation renders a 4K frame of the materials scene on 1 to 256
// simulated workers with the real Queue and prints a table of the parallel
// efficiency, (work / threads) / makespan. A worker is one core (one
// thread, a window of 2 leases as the remote client gives it), so 168
// workers are 168 cores; the last rows are 16-thread machines instead. In
// every run but the one-worker ones, one worker's connection breaks at half
// the ideal time: its leases fail, and it is back after the remote client's
// 0.5 s backoff. Duplicates are on, as for remote renders.
func BenchmarkSimulation(b *testing.B) {
	// The cost model: the materials scene's rays per pixel measured at
	// 384×216 (a tenth of 4K each way), 4 samples per pixel, scaled to
	// 3840×2160 at the scene's 64 samples.
	t0 := time.Now()
	m := measureRays(b, "materials", 384, 216, 4)
	var mapRays float64
	for _, r := range m.rays {
		mapRays += 4 * r
	}
	measured := mapRays / time.Since(t0).Seconds()

	const lan, wan = 500 * time.Microsecond, 20 * time.Millisecond
	perCore := []int{1, 2, 4, 8, 16, 32, 64, 128, 168, 256}
	type series struct {
		size, threads, window int // window 0: the remote client's 2 per thread
		latency               time.Duration
		workers               []int
	}
	all := []series{
		{size: 32, threads: 1, latency: lan, workers: perCore},
		{size: 32, threads: 1, latency: wan, workers: perCore},
		{size: 32, threads: 1, window: 4, latency: wan, workers: perCore},
		{size: 16, threads: 1, latency: lan, workers: perCore},
		{size: 16, threads: 1, latency: wan, workers: perCore},
		{size: 16, threads: 1, window: 6, latency: wan, workers: perCore},
		{size: 32, threads: 16, latency: lan, workers: []int{1, 2, 4, 8, 11, 16}},
	}
	fb := tracer.NewFramebuffer(3840, 2160)
	var names []string
	table := map[string]string{}
	for _, sr := range all {
		tiles, cost, rays := tileCosts(m, 3840, 2160, sr.size, 64)
		var work time.Duration
		for _, c := range cost {
			work += c
		}
		for _, n := range sr.workers {
			cfg := simConfig{
				tiles: tiles, cost: cost, rays: rays, workers: n, threads: sr.threads, window: sr.window,
				latency: sr.latency, duplicates: true,
				failWorker: n / 2, failAt: work / time.Duration(2*n*sr.threads), failBack: 500 * time.Millisecond,
				fb: fb,
			}
			if n == 1 {
				cfg.failWorker = -1 // nobody would be left
			}
			window := cmp.Or(sr.window, 2*sr.threads)
			name := fmt.Sprintf("tile=%d/latency=%v/window=%d/workers=%dx%d", sr.size, sr.latency, window, n, sr.threads)
			b.Run(name, func(b *testing.B) {
				var res simResult
				var coord time.Duration
				for range b.N {
					var err error
					res, err = simulate(cfg)
					if err != nil {
						b.Fatal(err)
					}
					coord += res.coordinator
				}
				perTile := float64(coord.Nanoseconds()) / 1e3 / float64(b.N*len(tiles))
				b.ReportMetric(100*res.efficiency, "eff%")
				b.ReportMetric(res.makespan.Seconds(), "makespan-s")
				b.ReportMetric(perTile, "coord-µs/tile")
				if _, ok := table[name]; !ok {
					names = append(names, name)
				}
				table[name] = fmt.Sprintf("%d\t%d\t%d\t%d\t%v\t%d\t%.1f\t%.2f\t%.1f\t%d\t%d\t%d",
					n, n*sr.threads, sr.size, len(tiles), sr.latency, window, 100*res.efficiency,
					res.makespan.Seconds(), perTile, res.duplicates, res.dropped, res.failed)
			})
		}
	}
	fmt.Printf("\nmaterials scene, 3840×2160, 64 spp; tile costs from rays per pixel at %.1f Mrays/s per thread "+
		"(this machine traced %.1f Mrays/s on one thread)\n", simRaysPerSecond/1e6, measured/1e6)
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "workers\tthreads\ttile px\ttiles\tlatency\twindow\teff %%\tmakespan s\tcoord µs/tile\tdups\tdropped\tfailed\t\n")
	for _, name := range names {
		fmt.Fprintln(w, table[name]+"\t")
	}
	w.Flush()
}
