package remote

import (
	"context"
	"errors"
	"image"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// device is one of a worker's GPUs. Jobs take turns on it: each launch
// uploads its job's scene first unless the device holds it already.
type device struct {
	dev   kernels.Device
	mu    sync.Mutex
	scene *tracer.Scene // the scene on the device
}

// gpuJob is a device's part in one job: the scene packed for the kernel.
type gpuJob struct {
	d      *device
	packed *kernels.Packed
}

// jobDevices packs scene for the worker's GPUs. A scene the kernel cannot
// render leaves the GPUs out of the job, or, on a worker without CPU
// threads, refuses it.
func (s *Server) jobDevices(scene *tracer.Scene, log *slog.Logger) ([]gpuJob, error) {
	if len(s.devices) == 0 {
		return nil, nil
	}
	p, err := kernels.Pack(scene)
	if err != nil {
		if s.opt.Threads == 0 {
			return nil, status.Errorf(codes.FailedPrecondition, "this worker renders on GPUs only, and the GPU kernel cannot render this scene: %v", err)
		}
		log.Warn("the GPUs sit this job out", "err", err)
		return nil, nil
	}
	jobs := make([]gpuJob, len(s.devices))
	for i, d := range s.devices {
		jobs[i] = gpuJob{d: d, packed: p}
	}
	return jobs, nil
}

// gpuLoop renders a job's tiles on one GPU with the scheduler's
// GPUWorker, as a local render does: it waits for a tile, takes whatever
// else is waiting up to a batch's pixels, renders them with one launch
// while the batch before is sent, and sends each tile's pixels. A failed
// launch, or a panic in the device (which GPUWorker recovers), fails its
// tiles (the coordinator gives them to others) and stops the GPU for this
// job.
//
// alive counts the job's renderers (CPU threads and GPUs) still working:
// the last to stop fails the job's tiles that keep coming.
func (s *Server) gpuLoop(ctx context.Context, g gpuJob, scene *tracer.Scene, tiles <-chan leased, send func(*pb.RenderReply), js *jobStats, log *slog.Logger, alive *atomic.Int32) {
	err := s.gpuWorker(g, scene).Run(ctx, scene, newStreamLeases(s, tiles, send, js, true), 0)
	g.logKernel(scene, log)
	if err == nil || ctx.Err() != nil {
		return
	}
	if p, ok := errors.AsType[*scheduler.DevicePanic](err); ok {
		log.Error("GPU panicked; its tiles go back", "gpu", g.d.dev.Name(), "err", err, "stack", string(p.Stack))
	} else {
		log.Warn("GPU launch failed; its tiles go back", "gpu", g.d.dev.Name(), "err", err)
	}
	// The CPU threads and other GPUs, if any, take the rest of the job; if
	// there are none, its tiles fail here.
	if alive.Add(-1) == 0 {
		for t := range tiles {
			send(&pb.RenderReply{Kind: &pb.RenderReply_Error{Error: &pb.TileError{Lease: t.lease.Lease, Message: "out of this job: " + err.Error()}}})
		}
	}
}

// gpuWorker is the scheduler's GPUWorker on g for a job of scene, its
// batches sized as a local GPU's are: ServerOptions.BatchPixels if set,
// else the device's own size (kernels.BatchHinter), else
// scheduler.DefaultGPUBatchPixels.
func (s *Server) gpuWorker(g gpuJob, scene *tracer.Scene) *scheduler.GPUWorker {
	return &scheduler.GPUWorker{Device: &jobDevice{g: g, scene: scene, batches: &s.gpuBatches}, BatchPixels: s.opt.BatchPixels}
}

// gpuThreads is the tiles that gpus render at once (each one's
// GPUWorker.Threads, a batch of default-size tiles), for the capacity a
// worker announces.
func (s *Server) gpuThreads(gpus []gpuJob, scene *tracer.Scene) int {
	n := 0
	for _, g := range gpus {
		n += s.gpuWorker(g, scene).Threads()
	}
	return n
}

// jobDevice is a worker's GPU as one job's GPUWorker sees it: jobs take
// turns on the device, and a launch uploads its job's scene first if
// another job's is there (Upload only names the scene to upload).
type jobDevice struct {
	g       gpuJob
	scene   *tracer.Scene
	batches *atomic.Int64 // the worker's launches that rendered a batch
}

var (
	_ kernels.Device      = (*jobDevice)(nil)
	_ kernels.BatchHinter = (*jobDevice)(nil)
)

// BatchPixels implements kernels.BatchHinter: the device's own batch
// size, or 0 (none: the GPUWorker's default) if it gives none.
func (j *jobDevice) BatchPixels() int {
	if h, ok := j.g.d.dev.(kernels.BatchHinter); ok {
		return h.BatchPixels()
	}
	return 0
}

// Name implements kernels.Device.
func (j *jobDevice) Name() string { return j.g.d.dev.Name() }

// Upload implements kernels.Device: the job's scene is packed already
// (jobDevices), and is uploaded by the launch that needs it.
func (j *jobDevice) Upload(context.Context, *kernels.Packed) error { return nil }

// TracePixels implements kernels.Device.
func (j *jobDevice) TracePixels(ctx context.Context, pixels []uint32, out []float32, rays, bad []uint64) error {
	if err := j.g.launch(ctx, j.scene, pixels, out, rays, bad); err != nil {
		return err
	}
	j.batches.Add(1)
	return nil
}

// Close implements kernels.Device: the device is the worker's, closed
// when it stops, not the job's.
func (j *jobDevice) Close() error { return nil }

// launch renders pixels on the device, uploading the job's scene first if
// another job's is there.
func (g gpuJob) launch(ctx context.Context, scene *tracer.Scene, pixels []uint32, out []float32, rays, bad []uint64) error {
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	if g.d.scene != scene {
		g.d.scene = nil // until the upload has finished: it may fail or panic half-way
		if err := g.d.dev.Upload(ctx, g.packed); err != nil {
			return err
		}
		g.d.scene = scene
	}
	return g.d.dev.TracePixels(ctx, pixels, out, rays, bad)
}

// logKernel logs which kernel the device ran the job's scene on
// (kernels.KernelChooser), if its scene is still the job's.
func (g gpuJob) logKernel(scene *tracer.Scene, log *slog.Logger) {
	ch, ok := g.d.dev.(kernels.KernelChooser)
	if !ok {
		return
	}
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	if c, ok := ch.KernelChoice(); ok && g.d.scene == scene {
		log.Info("gpu kernel", "gpu", g.d.dev.Name(), "kernel", c.String())
	}
}

func area(t *pb.TileLease) int { return int(t.X1-t.X0) * int(t.Y1-t.Y0) }

func rect(t *pb.TileLease) image.Rectangle {
	return image.Rect(int(t.X0), int(t.Y0), int(t.X1), int(t.Y1))
}
