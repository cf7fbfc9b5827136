package bench

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/kernels/emulator"
	"github.com/tracerender/trace/tracer"
)

// benchmarkRays traces rays against s on one thread (in packets of four,
// with packets) and reports rays/s.
func benchmarkRays(b *testing.B, s *tracer.Scene, rays []tracer.Ray, packets bool) {
	b.ResetTimer()
	var n uint64
	for i := 0; i < b.N; i++ {
		res, err := traceRays(context.Background(), s, rays, 1, packets)
		if err != nil {
			b.Fatal(err)
		}
		n += res.Rays
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rays/s")
}

// BenchmarkTraceRandomRays50k traces incoherent rays against the 50,000
// triangle icosphere on one thread.
func BenchmarkTraceRandomRays50k(b *testing.B) {
	s, err := meshScene(Icosphere(50))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRays(b, s, randomRays(s, 1<<16), false)
}

// BenchmarkTraceRandomRays13M traces incoherent rays against the
// 1,300,500 triangle icosphere on one thread: the workload furthest from
// Embree's speed (scripts/embree-bench.sh), for profiles (-cpuprofile).
func BenchmarkTraceRandomRays13M(b *testing.B) {
	s, err := meshScene(Icosphere(255))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRays(b, s, randomRays(s, 1<<18), false)
}

// BenchmarkTracePrimaryRays50k traces one camera ray per pixel of a
// 256×256 image of the 50,000 triangle icosphere on one thread.
func BenchmarkTracePrimaryRays50k(b *testing.B) {
	s, err := meshScene(Icosphere(50))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRays(b, s, primaryRays(s, 256), false)
}

// BenchmarkTracePrimaryPackets50k traces the camera rays of
// BenchmarkTracePrimaryRays50k in packets of four (IntersectPacket), as the
// renderer traces camera rays.
func BenchmarkTracePrimaryPackets50k(b *testing.B) {
	s, err := meshScene(Icosphere(50))
	if err != nil {
		b.Fatal(err)
	}
	benchmarkRays(b, s, primaryRays(s, 256), true)
}

func TestQuickRun(t *testing.T) {
	var results []Result
	err := Run(context.Background(), Options{Threads: 2, Quick: true, GalleryDir: "../scenes/examples"}, func(r Result) { results = append(results, r) })
	if err != nil {
		t.Fatal(err)
	}
	// One mesh: build, primary rays one by one and in packets, random;
	// then every gallery scene.
	gallery, _ := filepath.Glob("../scenes/examples/*.json")
	if len(gallery) == 0 || len(results) != 4+len(gallery) {
		t.Fatalf("%d results, want %d: %+v", len(results), 4+len(gallery), results)
	}
	for _, r := range results {
		if r.Seconds <= 0 {
			t.Errorf("%s: %v seconds", r.Workload, r.Seconds)
		}
		if r.BuildPerSecond == 0 && (r.Rays == 0 || r.RaysPerThread <= 0) {
			t.Errorf("%s: no rays counted: %+v", r.Workload, r)
		}
	}
	// Quick runs build once: the median is the first build.
	if b := results[0]; b.Builds != 1 || b.BuildPerSecond != b.FirstBuildPerSecond || b.Triangles == 0 {
		t.Errorf("build: %d builds, %v triangles/s, first %v: %+v", b.Builds, b.BuildPerSecond, b.FirstBuildPerSecond, b)
	}
	// The camera frames the mesh: most primary rays hit it.
	for _, r := range results[1:3] {
		if r.Rays != 64*64 {
			t.Errorf("%s: %d rays, want 4096", r.Workload, r.Rays)
		}
	}
	// The ray workloads count their traversal: every ray fetches the root
	// (a packet's four rays fetch it once), and the primary rays, aimed at
	// the mesh, test triangles in leaves.
	for _, r := range results[1:4] {
		least := 1.0
		if strings.Contains(r.Workload, "packets") {
			least = 0.25
		}
		if r.NodesPerRay < least || r.LeavesPerRay <= 0 || r.TestsPerRay < r.LeavesPerRay {
			t.Errorf("%s: %v nodes, %v leaves, %v tests per ray", r.Workload, r.NodesPerRay, r.LeavesPerRay, r.TestsPerRay)
		}
	}
	// Primary rays take fewer node fetches per ray in packets.
	if single, packets := results[1], results[2]; packets.NodesPerRay >= single.NodesPerRay {
		t.Errorf("%s: %v nodes per ray, %s %v", packets.Workload, packets.NodesPerRay, single.Workload, single.NodesPerRay)
	}
}

// BenchmarkBVHBuild13M builds the BVH of the 1.3M triangle icosphere and
// reports triangles per second of wall time of the build
// (Scene.BVHBuildTime); its ns/op is the whole compile of the mesh scene,
// which since the 4-wide BVH also makes the triangles from the mesh and
// collapses the tree (compare commits with GOMAXPROCS=1 and
// -benchtime 5x).
func BenchmarkBVHBuild13M(b *testing.B) {
	m := Icosphere(255)
	b.ResetTimer()
	var secs float64
	for i := 0; i < b.N; i++ {
		s, err := meshScene(m)
		if err != nil {
			b.Fatal(err)
		}
		secs += s.BVHBuildTime.Seconds()
	}
	b.ReportMetric(float64(b.N)*1300500/secs, "tris/s")
}

// TestQuickRunGPU: with a device (the kernel's emulator here), each
// gallery scene is rendered on it after the CPU threads: the same rays
// and samples as the CPU's render (the kernel gives the tracer's bits,
// so its paths are the same), rays/s per device.
func TestQuickRunGPU(t *testing.T) {
	dev := emulator.New()
	defer dev.Close()
	var results []Result
	opt := Options{Threads: 2, Quick: true, GalleryDir: "../scenes/examples", Devices: []kernels.Device{dev}, GPURuns: 2}
	if err := Run(context.Background(), opt, func(r Result) { results = append(results, r) }); err != nil {
		t.Fatal(err)
	}
	gallery, _ := filepath.Glob("../scenes/examples/*.json")
	if len(gallery) == 0 || len(results) != 4+2*len(gallery) {
		t.Fatalf("%d results, want %d: %+v", len(results), 4+2*len(gallery), results)
	}
	for i := 4; i < len(results); i += 2 {
		cpu, gpu := results[i], results[i+1]
		if gpu.Workload != cpu.Workload || gpu.GPUs != 1 || gpu.Threads != 0 || cpu.GPUs != 0 {
			t.Errorf("%s (%d GPUs, %d threads) after %s: want the same workload on 1 GPU", gpu.Workload, gpu.GPUs, gpu.Threads, cpu.Workload)
		}
		if gpu.Rays == 0 || gpu.Rays != cpu.Rays || gpu.RaysPerGPU <= 0 || gpu.Seconds <= 0 || gpu.RaysPerThread != 0 {
			t.Errorf("%s: GPU %d rays, %v rays/s, %v s; CPU %d rays: want the CPU's rays, a rate per GPU", gpu.Workload, gpu.Rays, gpu.RaysPerGPU, gpu.Seconds, cpu.Rays)
		}
		if want := float64(gpu.Rays) / gpu.Seconds; math.Abs(gpu.RaysPerGPU-want) > 1e-6*want {
			t.Errorf("%s: %v rays/s per GPU, want %v", gpu.Workload, gpu.RaysPerGPU, want)
		}
	}
}
