package emulator

import (
	"context"
	"image"
	"testing"

	"github.com/tracerender/trace/kernels"
)

// The megakernel's lanes: how much of a warp's and a block's lanes have
// work, modelled from each pixel's ray-scene queries (one step of the
// loop of render_pixels_path is one query, answered at once). A lane
// renders its pixel's samples one after another (the samples regenerate
// in the lane), so a warp runs as long as its costliest pixel, and a
// block holds its threads' registers until its costliest warp ends.
// Against that, pixel regeneration: a lane whose pixel is done takes the
// batch's next pixel at once, from a counter, with as many lanes
// resident as a wave. Figures:
//
//	go test ./kernels/emulator -run TestMegakernelLanes -v
//
// A model of lanes with work, not of lanes running the same instruction:
// it said 72–95 % of lanes busy with pixel regeneration, and on an H200
// the megakernel ran 5 of 32 lanes per instruction (ncu-stalls,
// ncu-source: the lanes' paths at different stages, and diverged inside
// the traversal), slower than without regeneration on most scenes
// (kernels/README.md). Its figures bound what regeneration could give;
// the GPU says what it gives.

// laneUse is the share of lanes with work: of the lanes of warps with
// work, and of blocks with work.
type laneUse struct{ warp, block float64 }

// staticLanes: a thread per pixel, in the order given.
func staticLanes(cost []uint64) laneUse {
	var sum, warps, blocks uint64
	for lo := 0; lo < len(cost); lo += block {
		var most uint64
		for w := lo; w < min(lo+block, len(cost)); w += warp {
			var m uint64
			for _, c := range cost[w:min(w+warp, len(cost))] {
				sum += c
				m = max(m, c)
			}
			warps += warp * m
			most = max(most, m)
		}
		blocks += block * most
	}
	return laneUse{float64(sum) / float64(warps), float64(sum) / float64(blocks)}
}

// regeneratedLanes: resident lanes take pixels from a counter as theirs
// end, every lane a step at a time; a warp (block) is counted while one
// of its lanes has work.
func regeneratedLanes(cost []uint64, resident int) laneUse {
	left := make([]uint64, resident)
	next := 0
	var sum, warpSteps, blockSteps uint64
	for _, c := range cost {
		sum += c
	}
	take := func(l int) {
		for left[l] == 0 && next < len(cost) {
			left[l] = cost[next]
			next++
		}
	}
	for l := range left {
		take(l)
	}
	for {
		busyWarps, busyBlocks := 0, 0
		for b := 0; b < resident; b += block {
			bb := false
			for w := b; w < min(b+block, resident); w += warp {
				wb := false
				for l := w; l < min(w+warp, resident); l++ {
					if left[l] > 0 {
						wb = true
						left[l]--
						take(l)
					}
				}
				if wb {
					busyWarps++
					bb = true
				}
			}
			if bb {
				busyBlocks++
			}
		}
		if busyWarps == 0 {
			break
		}
		warpSteps += warp * uint64(busyWarps)
		blockSteps += block * uint64(busyBlocks)
	}
	return laneUse{float64(sum) / float64(warpSteps), float64(sum) / float64(blockSteps)}
}

// TestMegakernelLanes renders every gallery scene at 128×128 on the
// emulator's megakernel, its pixels in 32×32 tiles as a GPU worker lists
// them, and logs the share of lanes with work as launched and with
// pixel regeneration over 8 waves (a batch of the cuda device).
func TestMegakernelLanes(t *testing.T) {
	if testing.Short() {
		t.Skip("a model of the GPU's lanes, for its figures: -short skips the renders it needs")
	}
	for _, g := range gallery(t) {
		s, p := packScene(t, g.file, 128, 128, 0)
		if s.Settings.Samples > 16 {
			s, p = packScene(t, g.file, 128, 128, 16)
		}
		d := New()
		d.Kernel = kernels.KernelMegakernel
		d.Parts = -1 // a thread's item a pixel, as the model counts
		if err := d.Upload(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		var pixels []uint32
		for ty := 0; ty < 128; ty += 32 {
			for tx := 0; tx < 128; tx += 32 {
				pixels = kernels.AppendPixels(pixels, image.Rect(tx, ty, tx+32, ty+32))
			}
		}
		n := len(pixels) / 2
		out, rays, bad := make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
		err := d.TracePixels(context.Background(), pixels, out, rays, bad)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		st, dyn := staticLanes(rays), regeneratedLanes(rays, n/8)
		for _, u := range []float64{st.warp, st.block, dyn.warp, dyn.block} {
			if !(u > 0 && u <= 1) {
				t.Errorf("%s: a share of lanes busy %v, not in (0, 1]", g.name, u)
			}
		}
		if st.block > st.warp || dyn.block > dyn.warp {
			t.Errorf("%s: blocks busier than their warps: %+v, %+v", g.name, st, dyn)
		}
		t.Logf("%-12s %d spp: lanes busy, a thread a pixel: %.0f%% of warps', %.0f%% of blocks'; with pixel regeneration: %.0f%%, %.0f%%",
			g.name, s.Settings.Samples, 100*st.warp, 100*st.block, 100*dyn.warp, 100*dyn.block)
	}
}
