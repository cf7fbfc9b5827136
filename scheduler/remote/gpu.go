package remote

import (
	"context"
	"image"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracerender/trace/kernels"
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

// gpuLoop renders a job's tiles on one GPU: it waits for a tile, takes
// whatever else is waiting up to a batch's pixels, renders them with one
// launch and sends each tile's pixels. A failed launch fails its tiles
// (the coordinator gives them to others) and stops the GPU for this job.
//
// alive counts the job's renderers (CPU threads and GPUs) still working.
func (s *Server) gpuLoop(ctx context.Context, g gpuJob, scene *tracer.Scene, tiles <-chan leased, send func(*pb.RenderReply), js *jobStats, log *slog.Logger, alive *atomic.Int32) {
	var (
		batch     []leased
		pixels    []uint32
		out       []float32
		rays, bad []uint64
	)
	for {
		t, ok := <-tiles
		if !ok {
			return
		}
		batch = append(batch[:0], t)
		px := area(t.lease)
	fill:
		for px < s.opt.BatchPixels {
			select {
			case t, ok := <-tiles:
				if !ok {
					break fill
				}
				batch = append(batch, t)
				px += area(t.lease)
			default:
				break fill
			}
		}
		if ctx.Err() != nil {
			continue // the stream is over: drop the tiles
		}
		pixels = pixels[:0]
		for _, t := range batch {
			pixels = kernels.AppendPixels(pixels, rect(t.lease))
		}
		n := len(pixels) / 2
		if cap(out) < 3*n {
			out, rays, bad = make([]float32, 3*n), make([]uint64, n), make([]uint64, n)
		}
		out, rays, bad = out[:3*n], rays[:n], bad[:n]
		start := time.Now()
		err := g.launch(ctx, scene, pixels, out, rays, bad)
		took := time.Since(start)
		if err != nil {
			log.Warn("GPU launch failed; its tiles go back", "gpu", g.d.dev.Name(), "err", err)
			for _, t := range batch {
				s.tileFails.Add(1)
				js.tile(0, tracer.Stats{}, false)
				send(&pb.RenderReply{Kind: &pb.RenderReply_Error{Error: &pb.TileError{Lease: t.lease.Lease, Message: g.d.dev.Name() + ": " + err.Error()}}})
			}
			// The CPU threads and other GPUs, if any, take the rest of the
			// job; if there are none, its tiles fail here.
			if alive.Add(-1) == 0 {
				for t := range tiles {
					send(&pb.RenderReply{Kind: &pb.RenderReply_Error{Error: &pb.TileError{Lease: t.lease.Lease, Message: g.d.dev.Name() + " is out of this job: " + err.Error()}}})
				}
			}
			return
		}
		s.gpuBatches.Add(1)
		off := 0
		for _, t := range batch {
			np := area(t.lease)
			st := tracer.Stats{Samples: uint64(np) * uint64(scene.Settings.Samples)}
			for i := off; i < off+np; i++ {
				st.Rays += rays[i]
				st.NonFinite += bad[i]
			}
			b := encodePixels(out[3*off : 3*(off+np)])
			off += np
			s.tiles.Add(1)
			share := took / time.Duration(len(batch))
			js.tile(share, st, true)
			send(&pb.RenderReply{Kind: &pb.RenderReply_Result{Result: &pb.TileResult{
				Lease: t.lease.Lease, Pixels: b, Rays: st.Rays, Samples: st.Samples, NonFinite: st.NonFinite,
				Seconds: share.Seconds(), HeldSeconds: time.Since(t.arrived).Seconds(),
			}}})
		}
	}
}

// launch renders pixels on the device, uploading the job's scene first if
// another job's is there.
func (g gpuJob) launch(ctx context.Context, scene *tracer.Scene, pixels []uint32, out []float32, rays, bad []uint64) error {
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	if g.d.scene != scene {
		if err := g.d.dev.Upload(ctx, g.packed); err != nil {
			g.d.scene = nil
			return err
		}
		g.d.scene = scene
	}
	return g.d.dev.TracePixels(ctx, pixels, out, rays, bad)
}

func area(t *pb.TileLease) int { return int(t.X1-t.X0) * int(t.Y1-t.Y0) }

func rect(t *pb.TileLease) image.Rectangle {
	return image.Rect(int(t.X0), int(t.Y0), int(t.X1), int(t.Y1))
}
