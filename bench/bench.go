package bench

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// Result is one workload's measurement.
type Result struct {
	Workload string  `json:"workload"`
	Threads  int     `json:"threads"`
	Rays     uint64  `json:"rays"`
	Seconds  float64 `json:"seconds"`
	// RaysPerThread is rays per second per thread: Rays / Seconds / Threads.
	RaysPerThread float64 `json:"rays_per_second_per_thread"`
	// GPUs is the devices that rendered a gallery workload on the GPU
	// (Threads is then 0), RaysPerGPU its rays per second per device.
	GPUs       int     `json:"gpus,omitempty"`
	RaysPerGPU float64 `json:"rays_per_second_per_gpu,omitempty"`
	// Triangles and BuildPerSecond describe the BVH build of a mesh
	// workload: triangles per second of wall time, all threads together
	// (divide by Threads for the rate per core).
	Triangles      int     `json:"triangles,omitempty"`
	BuildPerSecond float64 `json:"bvh_build_triangles_per_second,omitempty"`
	// Builds is how many times the BVH was built; Seconds and
	// BuildPerSecond are the median build's, FirstBuildPerSecond the
	// first's, which also paid for first touching fresh memory.
	Builds              int     `json:"builds,omitempty"`
	FirstBuildPerSecond float64 `json:"bvh_first_build_triangles_per_second,omitempty"`
	// Samples per second, for the gallery workloads.
	SamplesPerSecond float64 `json:"samples_per_second,omitempty"`
	// BytesPerTriangle is the compiled scene's memory per triangle.
	BytesPerTriangle float64 `json:"bytes_per_triangle,omitempty"`
	// NodesPerRay, LeavesPerRay and TestsPerRay are the ray workloads'
	// BVH traversal work per ray (tracer.TraversalCounts): interior node
	// fetches, leaves visited and primitives tested in them. They are
	// counted in a pass of their own after the timed one.
	NodesPerRay  float64 `json:"nodes_per_ray,omitempty"`
	LeavesPerRay float64 `json:"leaves_per_ray,omitempty"`
	TestsPerRay  float64 `json:"tests_per_ray,omitempty"`
}

// Options choose what to run.
type Options struct {
	Threads int // goroutines; 0 means every core
	// Mesh, if set, is a user's mesh to trace the ray workloads against
	// instead of the built-in icospheres.
	Mesh *tracer.MeshDesc
	// MeshName names Mesh in the workload names.
	MeshName string
	// GalleryDir holds the gallery scenes (scenes/examples); empty skips
	// the gallery workloads.
	GalleryDir string
	// Devices, if any, render each gallery scene again, alone (a
	// scheduler.GPUWorker each), after the CPU threads: the median of
	// GPURuns renders (0 means 3), as a frame on the GPU takes
	// milliseconds.
	Devices []kernels.Device
	GPURuns int
	// Quick shrinks every workload (fewer rays, smaller meshes and
	// images) for tests.
	Quick bool
}

// Run runs the workloads in a fixed order and reports each result to
// report as soon as it is measured.
func Run(ctx context.Context, opt Options, report func(Result)) error {
	threads := opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	type mesh struct {
		name string
		m    tracer.MeshDesc
	}
	var meshes []mesh
	if opt.Mesh != nil {
		meshes = append(meshes, mesh{opt.MeshName, *opt.Mesh})
	} else if opt.Quick {
		meshes = append(meshes, mesh{"icosphere 2k", Icosphere(10)})
	} else {
		meshes = append(meshes, mesh{"icosphere 50k", Icosphere(50)}, mesh{"icosphere 1.3M", Icosphere(255)})
	}
	side, nrand := 1024, 1<<20
	if opt.Quick {
		side, nrand = 64, 1<<12
	}
	builds := 3
	if opt.Quick {
		builds = 1
	}
	for _, m := range meshes {
		// The build, three times, reported as the median like every
		// benchmark's figure. The first build in a process also pays for
		// the first touch of its memory, which the kernel (and in a
		// virtual machine the host) maps and zeroes page by page: it is
		// reported on its own.
		var scene *tracer.Scene
		times := make([]time.Duration, builds)
		for i := range times {
			// The previous build's scene collected first, as the testing
			// package does before every benchmark, so that no collection
			// of it runs during the build.
			scene = nil
			runtime.GC()
			// The build runs on as many cores as GOMAXPROCS allows: hold
			// it to the benchmark's thread count so the figure is per
			// that many cores.
			prev := runtime.GOMAXPROCS(threads)
			s, err := meshScene(m.m)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			scene, times[i] = s, s.BVHBuildTime
		}
		first := times[0]
		slices.Sort(times)
		median := times[len(times)/2]
		ntri := len(scene.Triangles)
		build := Result{Workload: "bvh build, " + m.name, Threads: threads, Seconds: median.Seconds(),
			Triangles: ntri, BuildPerSecond: float64(ntri) / median.Seconds(),
			FirstBuildPerSecond: float64(ntri) / first.Seconds(), Builds: builds,
			BytesPerTriangle: float64(scene.Bytes()) / float64(ntri)}
		report(build)
		rays := primaryRays(scene, side)
		res, err := traceRays(ctx, scene, rays, threads, false)
		if err != nil {
			return err
		}
		res.Workload = fmt.Sprintf("primary rays %d², %s", side, m.name)
		countTraversal(&res, scene, rays, false)
		report(res)
		// The same rays as the renderer traces camera rays: in packets
		// of four (IntersectPacket), each the rays of 2×2 pixels.
		quads := quadOrder(rays, side)
		res, err = traceRays(ctx, scene, quads, threads, true)
		if err != nil {
			return err
		}
		res.Workload = fmt.Sprintf("primary packets %d², %s", side, m.name)
		countTraversal(&res, scene, quads, true)
		report(res)
		rays = randomRays(scene, nrand)
		res, err = traceRays(ctx, scene, rays, threads, false)
		if err != nil {
			return err
		}
		res.Workload = "random rays, " + m.name
		countTraversal(&res, scene, rays, false)
		report(res)
	}
	if opt.GalleryDir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(opt.GalleryDir, "*.json"))
	if err != nil {
		return err
	}
	size, spp := 256, 16
	if opt.Quick {
		size, spp = 32, 2
	}
	for _, f := range files {
		res, err := renderGallery(ctx, f, size, spp, threads)
		if err != nil {
			return err
		}
		report(res)
		if len(opt.Devices) > 0 {
			res, err := renderGalleryGPU(ctx, f, size, spp, opt.Devices, cmp.Or(opt.GPURuns, 3))
			if err != nil {
				return err
			}
			report(res)
		}
	}
	return nil
}

// meshScene compiles a scene holding only the mesh.
func meshScene(m tracer.MeshDesc) (*tracer.Scene, error) {
	d := &tracer.SceneDesc{
		Settings:  tracer.Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    tracer.CameraDesc{Position: [3]float32{0, 0, -3}, LookAt: [3]float32{0, 0, 0}, Up: [3]float32{0, 1, 0}, FOV: 40},
		Materials: []tracer.Material{{Kind: tracer.MaterialDiffuse, Color: [3]float32{0.8, 0.8, 0.8}, Texture: tracer.NoTexture}},
		Meshes:    []tracer.MeshDesc{m},
	}
	return tracer.Compile(d)
}

// bounds returns the box around the scene's BVH root.
func bounds(s *tracer.Scene) (lo, hi [3]float32) {
	return s.Nodes[0].Min, s.Nodes[0].Max
}

// primaryRays returns one ray per pixel centre of a side×side pinhole
// camera with a 40° field of view that frames the mesh's bounding sphere.
func primaryRays(s *tracer.Scene, side int) []tracer.Ray {
	lo, hi := bounds(s)
	c := [3]float32{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	d := [3]float32{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}
	r := 0.5 * float32(math.Sqrt(float64(d[0]*d[0]+d[1]*d[1]+d[2]*d[2])))
	dist := r / 0.342 // sin 20°: the sphere just fits the frame
	cam := tracer.CameraDesc{Position: [3]float32{c[0], c[1], c[2] - dist}, LookAt: c, Up: [3]float32{0, 1, 0}, FOV: 40}
	camScene, _ := tracer.Compile(&tracer.SceneDesc{
		Settings:  tracer.Settings{Width: side, Height: side, Samples: 1},
		Camera:    cam,
		Materials: []tracer.Material{{Texture: tracer.NoTexture}},
	})
	rays := make([]tracer.Ray, 0, side*side)
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			rays = append(rays, camScene.Camera.Ray(float32(x)+0.5, float32(y)+0.5, 0, 0))
		}
	}
	return rays
}

// quadOrder returns the rays of a side×side image in rows (primaryRays'
// order) quad by quad: the four rays of each 2×2 pixels, in rows of
// quads, as the renderer hands camera rays to IntersectPacket. side is
// even.
func quadOrder(rays []tracer.Ray, side int) []tracer.Ray {
	out := make([]tracer.Ray, 0, len(rays))
	for y := 0; y < side; y += 2 {
		for x := 0; x < side; x += 2 {
			i := y*side + x
			out = append(out, rays[i], rays[i+1], rays[i+side], rays[i+side+1])
		}
	}
	return out
}

// randomRays returns n rays with origins uniform in the mesh's bounding
// box grown by half its size, and directions uniform over the sphere,
// from a fixed seed.
func randomRays(s *tracer.Scene, n int) []tracer.Ray {
	lo, hi := bounds(s)
	rays := make([]tracer.Ray, n)
	rng := tracer.NewSampler(12345, 0, 0, 0)
	for i := range rays {
		var o [3]float32
		for a := 0; a < 3; a++ {
			ext := hi[a] - lo[a]
			o[a] = lo[a] - ext/4 + rng.Float()*ext*1.5
		}
		z := 1 - 2*rng.Float()
		rr := float32(math.Sqrt(float64(max(0, 1-z*z))))
		phi := 2 * math.Pi * float64(rng.Float())
		d := [3]float32{rr * float32(math.Cos(phi)), rr * float32(math.Sin(phi)), z}
		rays[i] = tracer.Ray{Origin: o, Dir: d, TMax: 3.4e38}
	}
	return rays
}

// traceRays finds the nearest hit of every ray on threads goroutines, each
// taking chunks of 4096 rays in order, and times it: ray by ray
// (Intersect), or with packets in packets of four (IntersectPacket).
func traceRays(ctx context.Context, s *tracer.Scene, rays []tracer.Ray, threads int, packets bool) (Result, error) {
	const chunk = 4096
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	hits := make([]int, threads)
	start := time.Now()
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var found [chunk]tracer.Hit
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next += chunk
				mu.Unlock()
				if i >= len(rays) {
					return
				}
				batch := rays[i:min(i+chunk, len(rays))]
				if packets {
					s.IntersectPacket(batch, found[:])
					for _, h := range found[:len(batch)] {
						if h.Kind != tracer.HitNone {
							hits[t]++
						}
					}
					continue
				}
				for _, r := range batch {
					if h := s.Intersect(r); h.Kind != tracer.HitNone {
						hits[t]++
					}
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return Result{Threads: threads, Rays: uint64(len(rays)), Seconds: secs,
		RaysPerThread: float64(len(rays)) / secs / float64(threads)}, nil
}

// countTraversal fills res's traversal work per ray from the nearest-hit
// queries of rays (in packets, with packets: a packet's node counts once
// for its four rays), counted in an untimed pass.
func countTraversal(res *Result, s *tracer.Scene, rays []tracer.Ray, packets bool) {
	var c tracer.TraversalCounts
	if packets {
		s.IntersectPacketCounted(rays, make([]tracer.Hit, len(rays)), &c)
	} else {
		for _, r := range rays {
			s.IntersectCounted(r, &c)
		}
	}
	n := float64(len(rays))
	res.NodesPerRay, res.LeavesPerRay, res.TestsPerRay = float64(c.Nodes)/n, float64(c.Leaves)/n, float64(c.Tests)/n
}

// renderGallery renders one gallery scene at size×size with spp samples.
func renderGallery(ctx context.Context, path string, size, spp, threads int) (Result, error) {
	s, err := galleryScene(path, size, spp)
	if err != nil {
		return Result{}, err
	}
	res, err := scheduler.Render(ctx, s, scheduler.Options{Workers: []scheduler.Worker{&scheduler.CPUWorker{N: threads}}})
	if err != nil {
		return Result{}, err
	}
	p := res.Progress
	secs := p.Elapsed.Seconds()
	return Result{
		Workload: galleryWorkload(path, size, spp),
		Threads:  threads, Rays: p.Stats.Rays, Seconds: secs,
		RaysPerThread:    float64(p.Stats.Rays) / secs / float64(threads),
		SamplesPerSecond: float64(p.Stats.Samples) / secs,
	}, nil
}

// renderGalleryGPU renders the gallery scene at path on devs alone, runs
// times, and reports the median render.
func renderGalleryGPU(ctx context.Context, path string, size, spp int, devs []kernels.Device, runs int) (Result, error) {
	s, err := galleryScene(path, size, spp)
	if err != nil {
		return Result{}, err
	}
	workers := make([]scheduler.Worker, len(devs))
	packer := &scheduler.Packer{}
	for i, d := range devs {
		workers[i] = &scheduler.GPUWorker{Device: d, Packer: packer}
	}
	var p scheduler.Progress
	times := make([]time.Duration, runs)
	for i := range times {
		res, err := scheduler.Render(ctx, s, scheduler.Options{Workers: workers})
		if err != nil {
			return Result{}, fmt.Errorf("%s on the GPU: %w", path, err)
		}
		p, times[i] = res.Progress, res.Progress.Elapsed
	}
	slices.Sort(times)
	secs := times[len(times)/2].Seconds()
	return Result{
		Workload: galleryWorkload(path, size, spp), GPUs: len(devs), Rays: p.Stats.Rays, Seconds: secs,
		RaysPerGPU:       float64(p.Stats.Rays) / secs / float64(len(devs)),
		SamplesPerSecond: float64(p.Stats.Samples) / secs,
	}, nil
}

// galleryScene compiles the gallery scene at path at size² and spp
// samples per pixel.
func galleryScene(path string, size, spp int) (*tracer.Scene, error) {
	d, err := scenes.Load(path)
	if err != nil {
		return nil, err
	}
	d.Settings.Width, d.Settings.Height, d.Settings.Samples = size, size, spp
	s, err := tracer.Compile(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func galleryWorkload(path string, size, spp int) string {
	name := filepath.Base(path)
	return fmt.Sprintf("render %s %d² %d spp", name[:len(name)-len(filepath.Ext(name))], size, spp)
}
