package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/tracerender/trace/tracer"
)

// The ray files for the Embree harness (bench/embree/harness.c,
// scripts/embree-bench.sh): for each mesh workload, mesh-N.bin, all
// little-endian:
//
//	"TRB1", uint32 triangles, uint32 primary rays, uint32 random rays
//	float32 ×9 per triangle: its corners P0, P0+E1, P0+E2, as trace tests it
//	float32 ×7 per ray: origin, direction, tMax; primary rays, then random
//
// and trace.tsv, trace's own figures on the same rays, one thread, in rays
// per second of CPU time (the machines this runs on are shared), one line
// per query: mesh index, query (build, primary, primary-packet,
// primary-occluded, random, random-occluded), rays (or triangles) per
// second, workload name. The build is the whole Compile of the mesh's
// scene on one thread, in CPU time. primary-packet is the primary rays
// traced by IntersectPacket in packets of 2×2 pixels (quadOrder), as the
// renderer traces camera rays, which the harness answers with Embree's
// packets of four (rtcIntersect4) on the same quads.

// embreeRuns is how many times each query is timed by default; the median
// is reported.
const embreeRuns = 5

// EmbreeOptions choose what ExportEmbree does.
type EmbreeOptions struct {
	// Quick shrinks the workloads, for tests.
	Quick bool
	// Runs is how many times each query (and each build) is timed, the
	// median written to trace.tsv; 0 means embreeRuns.
	Runs int
	// TimingOnly skips writing the ray files (a later round of
	// scripts/embree-bench.sh, which alternates trace and Embree).
	TimingOnly bool
}

// ExportEmbree writes the ray files for the Embree harness into dir (which
// must exist) and measures trace on the same rays on one thread.
func ExportEmbree(ctx context.Context, dir string, opt EmbreeOptions) error {
	runs := opt.Runs
	if runs <= 0 {
		runs = embreeRuns
	}
	quick := opt.Quick
	meshes := []tracer.MeshDesc{Icosphere(50), Icosphere(255)}
	names := []string{"icosphere 50k", "icosphere 1.3M"}
	side, nrand := 1024, 1<<20
	if quick {
		meshes, names = meshes[:1], []string{"icosphere 2k"}
		meshes[0] = Icosphere(10)
		side, nrand = 64, 1<<12
	}
	tsv, err := os.Create(filepath.Join(dir, "trace.tsv"))
	if err != nil {
		return err
	}
	defer tsv.Close()
	for i, m := range meshes {
		prev := runtime.GOMAXPROCS(1)
		times := make([]time.Duration, 0, runs)
		var s *tracer.Scene
		for range runs {
			s = nil
			runtime.GC()
			// The whole compile in CPU time, as the harness times
			// Embree's scene creation, buffer copy and commit: the
			// BVH's own wall-clock BVHBuildTime would count other
			// processes on a shared machine.
			start := cpuTime()
			if s, err = meshScene(m); err != nil {
				runtime.GOMAXPROCS(prev)
				return err
			}
			times = append(times, cpuTime()-start)
		}
		runtime.GOMAXPROCS(prev)
		slices.Sort(times)
		primary, random := primaryRays(s, side), randomRays(s, nrand)
		if !opt.TimingOnly {
			if err := writeRayFile(filepath.Join(dir, fmt.Sprintf("mesh-%d.bin", i)), s, primary, random); err != nil {
				return err
			}
		}
		fmt.Fprintf(tsv, "%d\tbuild\t%g\tbvh build, %s (tris/s)\n", i, float64(len(s.Triangles))/times[len(times)/2].Seconds(), names[i])
		for _, q := range []struct {
			query, name string
			rays        []tracer.Ray
			kind        queryKind
		}{
			{"primary", fmt.Sprintf("primary rays %d², %s", side, names[i]), primary, queryNearest},
			{"primary-packet", fmt.Sprintf("primary packets of 2×2, %s", names[i]), quadOrder(primary, side), queryPacket},
			{"primary-occluded", fmt.Sprintf("primary occluded, %s", names[i]), primary, queryOccluded},
			{"random", "random rays, " + names[i], random, queryNearest},
			{"random-occluded", "random occluded, " + names[i], random, queryOccluded},
		} {
			rate, err := medianRate(ctx, s, q.rays, q.kind, runs)
			if err != nil {
				return err
			}
			fmt.Fprintf(tsv, "%d\t%s\t%g\t%s\n", i, q.query, rate, q.name)
		}
	}
	return tsv.Close()
}

// queryKind is a query medianRate times.
type queryKind int

const (
	queryNearest  queryKind = iota // Intersect, ray by ray
	queryPacket                    // IntersectPacket, 4096 rays a call
	queryOccluded                  // Occluded, ray by ray
)

// medianRate returns the median over runs runs of the rays per second
// of CPU time of the query on one thread.
func medianRate(ctx context.Context, s *tracer.Scene, rays []tracer.Ray, kind queryKind, runs int) (float64, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	rates := make([]float64, runs)
	hits := 0
	var found [4096]tracer.Hit
	for k := range rates {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := cpuTime()
		switch kind {
		case queryNearest:
			for _, r := range rays {
				if s.Intersect(r).Kind != tracer.HitNone {
					hits++
				}
			}
		case queryPacket:
			for i := 0; i < len(rays); i += len(found) {
				batch := rays[i:min(i+len(found), len(rays))]
				s.IntersectPacket(batch, found[:])
				for _, h := range found[:len(batch)] {
					if h.Kind != tracer.HitNone {
						hits++
					}
				}
			}
		case queryOccluded:
			for _, r := range rays {
				if s.Occluded(r) {
					hits++
				}
			}
		}
		rates[k] = float64(len(rays)) / (cpuTime() - start).Seconds()
	}
	slices.Sort(rates)
	return rates[len(rates)/2], nil
}

// writeRayFile writes one mesh workload in the format above.
func writeRayFile(path string, s *tracer.Scene, primary, random []tracer.Ray) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	put := func(v ...uint32) {
		for _, x := range v {
			binary.Write(w, binary.LittleEndian, x)
		}
	}
	w.WriteString("TRB1")
	put(uint32(len(s.Triangles)), uint32(len(primary)), uint32(len(random)))
	fl := func(v ...float32) {
		for _, x := range v {
			put(math.Float32bits(x))
		}
	}
	for i := range s.Triangles {
		tr := &s.Triangles[i]
		p, e1, e2 := tr.P0, tr.E1, tr.E2
		fl(p[0], p[1], p[2], p[0]+e1[0], p[1]+e1[1], p[2]+e1[2], p[0]+e2[0], p[1]+e2[1], p[2]+e2[2])
	}
	for _, rs := range [][]tracer.Ray{primary, random} {
		for _, r := range rs {
			fl(r.Origin[0], r.Origin[1], r.Origin[2], r.Dir[0], r.Dir[1], r.Dir[2], r.TMax)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
