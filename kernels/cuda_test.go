//go:build cuda

package kernels_test

// Tests and benchmarks of the cuda build on a GPU: the PTX kernel run
// through gorgonia.org/cu against the Go tracer. Without a usable device
// they skip (the compile-only check of CI links a stub driver with no
// devices), unless TRACE_GPU_REQUIRED is set, as scripts/gpu-check.sh does
// on a GPU machine, which turns the skips into failures.

import (
	"context"
	"errors"
	"image"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/bench"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// openGPU opens the first device, skipping the test or benchmark when the
// machine has none and TRACE_GPU_REQUIRED is not set.
func openGPU(tb testing.TB) kernels.Device {
	tb.Helper()
	devs, err := kernels.OpenDevices(1)
	if err != nil {
		if errors.Is(err, kernels.ErrTooFewDevices) && os.Getenv("TRACE_GPU_REQUIRED") == "" {
			tb.Skipf("no usable GPU: %v", err)
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() { devs[0].Close() })
	tb.Logf("device: %s", devs[0].Name())
	return devs[0]
}

// TestGPUOpenDevicesTooMany checks that asking for more devices than the
// machine has fails with ErrTooFewDevices and says what it found.
func TestGPUOpenDevicesTooMany(t *testing.T) {
	devs, err := kernels.OpenDevices(1 << 10)
	if err == nil {
		for _, d := range devs {
			d.Close()
		}
		t.Fatal("opened 1024 devices")
	}
	if !errors.Is(err, kernels.ErrTooFewDevices) || !strings.Contains(err.Error(), "found") {
		t.Fatalf("got %v, want an error wrapping ErrTooFewDevices that lists the devices found", err)
	}
	t.Log(err)
}

// TestGPUKernelEnv checks that an unknown TRACE_GPU_KERNEL fails
// OpenDevices with an error that names the variable, before any device is
// touched.
func TestGPUKernelEnv(t *testing.T) {
	t.Setenv(kernels.KernelEnv, "fastest")
	devs, err := kernels.OpenDevices(1)
	for _, d := range devs {
		d.Close()
	}
	if err == nil || !strings.Contains(err.Error(), kernels.KernelEnv) {
		t.Fatalf("%s=fastest: got %v, want an error naming %s", kernels.KernelEnv, err, kernels.KernelEnv)
	}
}

// TestGPUErrors checks TracePixels' answers to bad calls.
func TestGPUErrors(t *testing.T) {
	dev := openGPU(t)
	ctx := context.Background()
	out, counts := make([]float32, 3), make([]uint64, 1)
	if err := dev.TracePixels(ctx, []uint32{0, 0}, out, counts, counts); err == nil {
		t.Error("TracePixels before Upload: no error")
	}
	if err := dev.TracePixels(ctx, []uint32{0}, out, counts, counts); err == nil {
		t.Error("odd pixel list: no error")
	}
	if err := dev.TracePixels(ctx, nil, nil, nil, nil); err != nil {
		t.Errorf("no pixels: %v", err)
	}
}

// TestGPUGallery renders every gallery scene on the device, at its own
// size and samples, and compares it with the Go tracer's RenderBlock: the
// same bits, ray counts and non-finite counts. One device renders them all
// in turn (each Upload replaces the scene), and each frame is traced twice:
// in one launch, and in launches of uneven sizes over the pixels in a
// scrambled order, which must not change a bit either. With -short the
// frames are 64², 16 samples per pixel (the size of the golden images).
func TestGPUGallery(t *testing.T) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	dev := openGPU(t)
	ctx := context.Background()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			s := loadScene(t, f, 0, 0, 0)
			if testing.Short() {
				s = loadScene(t, f, 64, 64, 16)
			}
			p, err := kernels.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := dev.Upload(ctx, p); err != nil {
				t.Fatal(err)
			}
			want, wantStats := cpuRender(t, s)

			w, h := s.Settings.Width, s.Settings.Height
			pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
			got, st := gpuTrace(t, dev, pixels)
			compareFrames(t, "one launch", w, want, wantStats, got, st)

			order, scrambled := scramble(pixels)
			part, pst := gpuTraceSplit(t, dev, scrambled, []int{1, 37, 4096, 999})
			got = make([]float32, len(part))
			for i, j := range order {
				copy(got[3*j:3*j+3], part[3*i:3*i+3])
			}
			compareFrames(t, "uneven launches, scrambled", w, want, wantStats, got, pst)
		})
	}
}

// loadScene loads a scene file and compiles it; w, h and spp override the
// file's size and samples when not 0.
func loadScene(tb testing.TB, path string, w, h, spp int) *tracer.Scene {
	tb.Helper()
	d, err := scenes.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	if w > 0 {
		d.Settings.Width, d.Settings.Height = w, h
	}
	if spp > 0 {
		d.Settings.Samples = spp
	}
	s, err := tracer.Compile(d)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// cpuRender renders the whole frame with the Go tracer, a row per call of
// RenderBlock, rows shared among the cores.
func cpuRender(tb testing.TB, s *tracer.Scene) ([]float32, tracer.Stats) {
	tb.Helper()
	w, h := s.Settings.Width, s.Settings.Height
	pix := make([]float32, 3*w*h)
	stats := make([]tracer.Stats, h)
	errs := make([]error, h)
	rows := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := range rows {
				errs[y] = s.RenderBlock(context.Background(), image.Rect(0, y, w, y+1), pix[3*w*y:3*w*(y+1)], &stats[y])
			}
		}()
	}
	for y := 0; y < h; y++ {
		rows <- y
	}
	close(rows)
	wg.Wait()
	var total tracer.Stats
	for y := range stats {
		if errs[y] != nil {
			tb.Fatal(errs[y])
		}
		total.Add(stats[y])
	}
	return pix, total
}

// gpuTrace traces the pixels in one launch and returns the radiance and
// the summed counts (Samples left zero).
func gpuTrace(tb testing.TB, dev kernels.Device, pixels []uint32) ([]float32, tracer.Stats) {
	return gpuTraceSplit(tb, dev, pixels, nil)
}

// gpuTraceSplit traces the pixels in launches of the given sizes, cycling
// through them (nil: one launch).
func gpuTraceSplit(tb testing.TB, dev kernels.Device, pixels []uint32, sizes []int) ([]float32, tracer.Stats) {
	tb.Helper()
	n := len(pixels) / 2
	out := make([]float32, 3*n)
	rays, nonfinite := make([]uint64, n), make([]uint64, n)
	for i, k := 0, 0; i < n; k++ {
		m := n - i
		if len(sizes) > 0 {
			m = min(m, sizes[k%len(sizes)])
		}
		if err := dev.TracePixels(context.Background(), pixels[2*i:2*(i+m)], out[3*i:3*(i+m)], rays[i:i+m], nonfinite[i:i+m]); err != nil {
			tb.Fatal(err)
		}
		i += m
	}
	var st tracer.Stats
	for i := range rays {
		st.Rays += rays[i]
		st.NonFinite += nonfinite[i]
	}
	return out, st
}

// scramble returns the pixels in a fixed pseudo-random order, and for each
// position of the new list the pixel's index in the old one.
func scramble(pixels []uint32) (order []int, out []uint32) {
	n := len(pixels) / 2
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	x := uint64(0x9e3779b97f4a7c15)
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		order[i], order[j] = order[j], order[i]
	}
	out = make([]uint32, 0, len(pixels))
	for _, j := range order {
		out = append(out, pixels[2*j], pixels[2*j+1])
	}
	return order, out
}

// compareFrames fails the test unless got has the bits of want and the
// same ray and non-finite counts; it reports how far apart they are: how
// many floats differ, the first pixel that does, the largest difference
// and the PSNR over values clamped to [0, 1].
func compareFrames(t *testing.T, what string, w int, want []float32, wantStats tracer.Stats, got []float32, st tracer.Stats) {
	t.Helper()
	differ, first := 0, -1
	var se, maxd float64
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			differ++
			if first < 0 {
				first = i
			}
			maxd = math.Max(maxd, math.Abs(float64(want[i])-float64(got[i])))
		}
		d := clamp01(want[i]) - clamp01(got[i])
		se += d * d
	}
	if st.Rays != wantStats.Rays || st.NonFinite != wantStats.NonFinite {
		t.Errorf("%s: %d rays and %d non-finite samples, CPU %d and %d", what, st.Rays, st.NonFinite, wantStats.Rays, wantStats.NonFinite)
	}
	if differ == 0 {
		t.Logf("%s: bit-identical to the CPU (%d rays)", what, st.Rays)
		return
	}
	psnr := math.Inf(1)
	if se > 0 {
		psnr = 10 * math.Log10(float64(len(want))/se)
	}
	px := first / 3
	t.Errorf("%s: %d of %d floats differ from the CPU; first at pixel (%d, %d) channel %d: GPU %g, CPU %g; max |diff| %.3g; PSNR %.2f dB (floor 50)",
		what, differ, len(want), px%w, px/w, first%3, got[first], want[first], maxd, psnr)
}

func clamp01(x float32) float64 { return math.Min(math.Max(float64(x), 0), 1) }

// icosphereScene is the 1.3M-triangle mesh of `trace bench` seen whole by
// a side×side camera: a diffuse grey surface under a sky gradient, and a
// point light if lit.
func icosphereScene(tb testing.TB, side, spp int, integrator tracer.Integrator, lit bool) *tracer.Scene {
	tb.Helper()
	d := &tracer.SceneDesc{
		Settings: tracer.Settings{Width: side, Height: side, Samples: spp, MaxDepth: 8, Integrator: integrator, Seed: 1},
		// The mesh lies within radius 1.06 of the origin; at distance 3.2
		// a 40° field of view just holds it.
		Camera: tracer.CameraDesc{Position: mgl32.Vec3{0, 0, -3.2}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Film:   tracer.Film{Tonemap: tracer.TonemapClamp, Transfer: tracer.TransferSRGB},
		Background: tracer.Background{Kind: tracer.BackgroundGradient,
			Bottom: mgl32.Vec3{1, 1, 1}, Top: mgl32.Vec3{0.5, 0.7, 1}, Texture: tracer.NoTexture},
		Materials: []tracer.Material{{Kind: tracer.MaterialDiffuse, Color: mgl32.Vec3{0.8, 0.8, 0.8}, Texture: tracer.NoTexture,
			Ambient: 0.05, Diffuse: 1}},
		Meshes: []tracer.MeshDesc{bench.Icosphere(255)},
	}
	if lit {
		d.Lights = []tracer.PointLight{{Position: mgl32.Vec3{4, 5, -6}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 60}}
	}
	s, err := tracer.Compile(d)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// benchGPU times one launch over every pixel of s per iteration and
// reports rays/s and samples/s (every ray-scene query counts: camera,
// bounce and shadow rays, as in trace bench).
func benchGPU(b *testing.B, s *tracer.Scene) {
	dev := openGPU(b)
	p, err := kernels.Pack(s)
	if err != nil {
		b.Fatal(err)
	}
	if err := dev.Upload(context.Background(), p); err != nil {
		b.Fatal(err)
	}
	w, h := s.Settings.Width, s.Settings.Height
	pixels := kernels.AppendPixels(nil, image.Rect(0, 0, w, h))
	n := w * h
	out := make([]float32, 3*n)
	rays, nonfinite := make([]uint64, n), make([]uint64, n)
	var total uint64
	b.ResetTimer()
	for range b.N {
		if err := dev.TracePixels(context.Background(), pixels, out, rays, nonfinite); err != nil {
			b.Fatal(err)
		}
		for _, r := range rays {
			total += r
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(total)/secs, "rays/s")
	b.ReportMetric(float64(b.N*n*s.Settings.Samples)/secs, "samples/s")
}

// benchCPU renders s with the scheduler on every core per iteration and
// reports the same figures, for the GPU/CPU ratio on this machine.
func benchCPU(b *testing.B, s *tracer.Scene) {
	var rays, samples uint64
	b.ResetTimer()
	for range b.N {
		res, err := scheduler.Render(context.Background(), s, scheduler.Options{Workers: []scheduler.Worker{&scheduler.CPUWorker{}}})
		if err != nil {
			b.Fatal(err)
		}
		rays += res.Progress.Stats.Rays
		samples += res.Progress.Stats.Samples
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(rays)/secs, "rays/s")
	b.ReportMetric(float64(samples)/secs, "samples/s")
	b.ReportMetric(float64(runtime.NumCPU()), "threads")
}

// BenchmarkGPUPrimaryRaysIcosphere1_3M is the primary-ray workload of
// trace bench on the GPU: one camera ray per pixel of a 1024² frame of the
// 1.3M-triangle mesh (Whitted, one sample through the pixel centre, no
// light and no reflection: the camera ray is the only query).
func BenchmarkGPUPrimaryRaysIcosphere1_3M(b *testing.B) {
	benchGPU(b, icosphereScene(b, 1024, 1, tracer.IntegratorWhitted, false))
}

// BenchmarkGPUPathRaysIcosphere1_3M path-traces the 1.3M-triangle mesh,
// 1024², 4 samples per pixel, depth 8: incoherent bounce and shadow rays.
func BenchmarkGPUPathRaysIcosphere1_3M(b *testing.B) {
	benchGPU(b, icosphereScene(b, 1024, 4, tracer.IntegratorPath, true))
}

// BenchmarkCPUPathRaysIcosphere1_3M is the same frame on every CPU core.
func BenchmarkCPUPathRaysIcosphere1_3M(b *testing.B) {
	benchCPU(b, icosphereScene(b, 1024, 4, tracer.IntegratorPath, true))
}

// BenchmarkGPUGallery renders each gallery scene at 256², 16 samples per
// pixel, like the gallery workloads of trace bench (whose CPU figures are
// per thread).
func BenchmarkGPUGallery(b *testing.B) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		b.Run(name, func(b *testing.B) { benchGPU(b, loadScene(b, f, 256, 256, 16)) })
	}
}

// BenchmarkCPUGallery is BenchmarkGPUGallery on every CPU core.
func BenchmarkCPUGallery(b *testing.B) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		b.Run(name, func(b *testing.B) { benchCPU(b, loadScene(b, f, 256, 256, 16)) })
	}
}
