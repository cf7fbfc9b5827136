package remote

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // bundles are uploaded gzip-compressed
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

const (
	// DefaultCacheBytes bounds the bundles a worker keeps: 2 GiB.
	DefaultCacheBytes = 2 << 30
	// DefaultMaxSceneBytes is the largest bundle a worker accepts: 1 GiB.
	DefaultMaxSceneBytes = 1 << 30
	// DefaultUploadBytes bounds the bytes of all the bundle uploads in
	// flight on a worker together: 2 GiB (or the largest bundle, if that
	// is more), so that two uploads of the largest bundle fit at once.
	DefaultUploadBytes = 2 << 30
	// DefaultUploadIdle ends an upload that sends no data this long.
	DefaultUploadIdle = 30 * time.Second
	// DefaultUploadTimeout ends an upload that has not finished this long
	// after it began: a 1 GiB bundle at about 0.6 MB/s.
	DefaultUploadTimeout = 30 * time.Minute
	// DefaultReplyTimeout ends a render stream whose coordinator has not
	// taken a finished tile for this long: it reads no replies.
	DefaultReplyTimeout = 2 * time.Minute
	// DefaultMaxJobSeries bounds the jobs with metrics series at once.
	DefaultMaxJobSeries = 64
	// MaxTilePixels is the largest tile a worker renders, so that a
	// finished tile fits in one message of MaxMessageBytes.
	MaxTilePixels = 2048 * 2048
	// MaxMessageBytes bounds every message either side receives.
	MaxMessageBytes = 12*MaxTilePixels + 1<<20
	// chunkBytes is the size of a bundle upload's pieces.
	chunkBytes = 1 << 20
	// compiledScenes is how many compiled scenes a worker keeps for
	// later jobs on the same bundle and settings.
	compiledScenes = 2
	// drainMessage is the status message of a render stream ended because
	// the worker is shutting down; its leases were not failures.
	drainMessage = "worker is shutting down"
	// jobMetadataKey is the gRPC metadata key of the job ID a coordinator
	// sends on every call, so that a worker can count each job's work
	// apart (see Server.Collector).
	jobMetadataKey = "trace-job"
	// maxJobBytes bounds a job ID.
	maxJobBytes = 128
	// jobIdle is how long a job known only from HasBundle or PutBundle
	// calls, with no render stream, is kept before it is forgotten.
	jobIdle = time.Minute
	// maxPendingJobs bounds the jobs known only from HasBundle or
	// PutBundle calls; past it, such calls of a new job are not counted.
	maxPendingJobs = 1024
)

// Keepalive policies that agree: the client pings an idle connection every
// 20 s and the server allows pings every 10 s, with or without streams.
var (
	serverEnforcement = keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}
	serverKeepalive   = keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}
	clientKeepalive   = keepalive.ClientParameters{Time: 20 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}
)

// ServerOptions configure a worker.
type ServerOptions struct {
	Threads int // CPU tiles rendered at once over all jobs; 0 means every core
	// Devices are GPUs (or kernel emulators) that render batches of
	// tiles beside the CPU threads; the caller opens and closes them.
	// GPUsOnly leaves the CPU threads out (trace worker --threads 0).
	Devices       []kernels.Device
	GPUsOnly      bool
	BatchPixels   int    // pixels per GPU launch; 0 means the device's own size (kernels.BatchHinter), else scheduler.DefaultGPUBatchPixels
	Token         string // if set, every call but health checks must carry it
	CacheBytes    int64  // bundle cache budget; 0 means DefaultCacheBytes
	MaxSceneBytes int64  // largest bundle accepted; 0 means DefaultMaxSceneBytes
	// UploadBytes bounds the bytes held by all the bundle uploads in
	// flight together; an upload that would pass it fails with
	// ResourceExhausted. 0 means DefaultUploadBytes, or MaxSceneBytes if
	// that is more.
	UploadBytes int64
	// UploadIdle ends an upload that sends no chunk for this long, and
	// UploadTimeout one that has not finished this long after it began
	// (DeadlineExceeded); 0 means DefaultUploadIdle, DefaultUploadTimeout.
	UploadIdle, UploadTimeout time.Duration
	// ReplyTimeout ends a render stream when sending one reply has waited
	// this long: its coordinator reads no replies. 0 means
	// DefaultReplyTimeout.
	ReplyTimeout time.Duration
	// MaxJobSeries bounds the jobs counted apart in the metrics at once
	// (see Collector); the work of a job past it is counted in the
	// worker-wide figures only. 0 means DefaultMaxJobSeries.
	MaxJobSeries int
	Logger       *slog.Logger
}

// ServerStats counts a worker's work since it started.
type ServerStats struct {
	CacheHits, CacheMisses int64 // HasBundle answers
	BundlesStored          int64
	BundleBytesReceived    int64
	TilesRendered          int64
	TilesFailed            int64
	Jobs                   int64 // render streams opened
	GPUBatches             int64 // kernel launches that rendered a batch
	// UploadBytes is what the bundle uploads in flight hold now, and
	// UploadBytesPeak the most they ever held at once, against
	// ServerOptions.UploadBytes.
	UploadBytes, UploadBytesPeak int64
	// UntrackedJobs counts render streams whose job found no room in the
	// metrics (ServerOptions.MaxJobSeries).
	UntrackedJobs int64
	// Unauthenticated counts calls refused for a missing or wrong token.
	Unauthenticated int64
}

// Server is the `trace worker` gRPC service.
type Server struct {
	pb.UnimplementedWorkerServer
	opt      ServerOptions
	log      *slog.Logger
	cache    *bundleCache
	compiled compiledCache
	sem      chan struct{} // one token per thread, shared by all jobs
	health   *health.Server
	drain    chan struct{}
	drainMu  sync.Once
	host     string
	active   sync.WaitGroup // render streams running

	hits, misses, stored, bundleBytes, tiles, tileFails, jobs, gpuBatches atomic.Int64
	untracked, unauthenticated                                            atomic.Int64
	devices                                                               []*device
	uploads                                                               byteBudget
	authWarn                                                              warnLimiter

	jobsMu  sync.Mutex
	byJob   map[string]*jobStats // jobs with metrics series: a render stream opened, by ID
	pending map[string]*jobStats // jobs known only from HasBundle and PutBundle, by ID
	now     func() time.Time     // the clock of job idleness and of rate-limited logs

	// beforeTile, if set, runs before each tile is rendered (tests stall
	// or break a worker with it).
	beforeTile func(ctx context.Context)
	// streamEnding, if set, runs when a render stream of job has
	// finished its tiles, before the stream lets go of the job's counters
	// (tests read a job's metrics with it).
	streamEnding func(job string)
}

// NewServer returns a worker with options opt.
func NewServer(opt ServerOptions) *Server {
	if opt.Threads <= 0 {
		opt.Threads = runtime.NumCPU()
	}
	if opt.GPUsOnly && len(opt.Devices) > 0 {
		opt.Threads = 0
	}
	if opt.CacheBytes <= 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	if opt.MaxSceneBytes <= 0 {
		opt.MaxSceneBytes = DefaultMaxSceneBytes
	}
	if opt.UploadBytes <= 0 {
		opt.UploadBytes = max(DefaultUploadBytes, opt.MaxSceneBytes)
	}
	if opt.UploadIdle <= 0 {
		opt.UploadIdle = DefaultUploadIdle
	}
	if opt.UploadTimeout <= 0 {
		opt.UploadTimeout = DefaultUploadTimeout
	}
	if opt.ReplyTimeout <= 0 {
		opt.ReplyTimeout = DefaultReplyTimeout
	}
	if opt.MaxJobSeries <= 0 {
		opt.MaxJobSeries = DefaultMaxJobSeries
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	s := &Server{
		opt: opt, log: opt.Logger, cache: newBundleCache(opt.CacheBytes),
		sem: make(chan struct{}, max(opt.Threads, 1)), health: health.NewServer(),
		drain: make(chan struct{}), host: host,
		byJob: map[string]*jobStats{}, pending: map[string]*jobStats{}, now: time.Now,
	}
	s.uploads.limit = opt.UploadBytes
	for _, d := range opt.Devices {
		s.devices = append(s.devices, &device{dev: d})
	}
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(pb.Worker_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	return s
}

// Stats returns the worker's counters.
func (s *Server) Stats() ServerStats {
	up, peak := s.uploads.inUse()
	return ServerStats{
		CacheHits: s.hits.Load(), CacheMisses: s.misses.Load(), BundlesStored: s.stored.Load(),
		BundleBytesReceived: s.bundleBytes.Load(), TilesRendered: s.tiles.Load(),
		TilesFailed: s.tileFails.Load(), Jobs: s.jobs.Load(), GPUBatches: s.gpuBatches.Load(),
		UploadBytes: up, UploadBytesPeak: peak, UntrackedJobs: s.untracked.Load(),
		Unauthenticated: s.unauthenticated.Load(),
	}
}

// Register adds the worker and health services to g.
func (s *Server) Register(g *grpc.Server) {
	pb.RegisterWorkerServer(g, s)
	healthpb.RegisterHealthServer(g, s.health)
}

// GRPCOptions returns the gRPC options a worker's server needs: the
// token check (which runs before any method, unknown ones included),
// keepalive policies and message size bounds. Add TLS credentials to
// them with grpc.Creds.
func (s *Server) GRPCOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.UnaryInterceptor(s.checkUnary),
		grpc.StreamInterceptor(s.checkStream),
		grpc.UnknownServiceHandler(unknownMethod),
		grpc.KeepaliveEnforcementPolicy(serverEnforcement),
		grpc.KeepaliveParams(serverKeepalive),
		grpc.MaxRecvMsgSize(chunkBytes + 1<<16),
		grpc.MaxSendMsgSize(MaxMessageBytes),
	}
}

// Drain marks the worker NOT_SERVING and ends every render stream once
// its tiles in flight are finished; the coordinators hand the rest of
// their leases to other workers. It returns when the streams have ended.
func (s *Server) Drain() {
	s.drainMu.Do(func() {
		s.health.Shutdown() // every service NOT_SERVING
		close(s.drain)
	})
	s.active.Wait()
}

func (s *Server) checkUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := s.authorize(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (s *Server) checkStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := s.authorize(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return h(srv, ss)
}

// unknownMethod answers the calls of methods the worker does not serve,
// once the stream interceptor has checked their token.
func unknownMethod(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	return status.Errorf(codes.Unimplemented, "this worker serves no method %.80q", method)
}

// authorize checks a call's token. Health checks need none, so that
// probes need no secret. Refused calls are logged at most once every
// warnEvery, with a count of the others.
func (s *Server) authorize(ctx context.Context, method string) error {
	if s.opt.Token == "" || strings.HasPrefix(method, "/grpc.health.v1.Health/") {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if tok, ok := strings.CutPrefix(v, "Bearer "); ok &&
			subtle.ConstantTimeCompare([]byte(tok), []byte(s.opt.Token)) == 1 {
			return nil
		}
	}
	s.unauthenticated.Add(1)
	s.authWarn.warn(s.log, s.now(), "call without a valid token", "method", clean(method, 80))
	return status.Error(codes.Unauthenticated, "missing or wrong token: a call must carry the worker's --token")
}

// HasBundle implements pb.WorkerServer.
func (s *Server) HasBundle(ctx context.Context, ref *pb.BundleRef) (*pb.HasBundleReply, error) {
	h, err := hashOf(ref.GetSha256())
	if err != nil {
		return nil, err
	}
	job, err := jobOf(ctx, "")
	if err != nil {
		return nil, err
	}
	js := s.acquireJob(job, false)
	defer s.releaseJob(js, false)
	_, ok := s.cache.get(h)
	if ok {
		s.hits.Add(1)
		js.cacheHit()
	} else {
		s.misses.Add(1)
		js.cacheMiss()
	}
	return &pb.HasBundleReply{Present: ok}, nil
}

// PutBundle implements pb.WorkerServer: it receives a bundle, checks its
// size, hash and scene, and caches it. The bundle's bytes are held against
// the worker's upload budget as they arrive; an upload that sends nothing
// for ServerOptions.UploadIdle, or lasts longer than UploadTimeout, ends.
func (s *Server) PutBundle(stream pb.Worker_PutBundleServer) error {
	job, err := jobOf(stream.Context(), "")
	if err != nil {
		return err
	}
	js := s.acquireJob(job, false)
	defer s.releaseJob(js, false)
	ctx, cancel := context.WithTimeout(stream.Context(), s.opt.UploadTimeout)
	defer cancel()
	next := s.uploadChunks(ctx, stream)
	first, err := next()
	if err == io.EOF {
		return status.Error(codes.InvalidArgument, "empty bundle upload: no chunk before the end of the stream")
	}
	if err != nil {
		return err
	}
	h, err := hashOf(first.GetSha256())
	if err != nil {
		return err
	}
	size := first.GetSize()
	if size < 0 || size > s.opt.MaxSceneBytes {
		return status.Errorf(codes.ResourceExhausted, "bundle of %d bytes: this worker takes at most %d "+maxSceneFlag, size, s.opt.MaxSceneBytes)
	}
	buf := &uploadBuffer{budget: &s.uploads, size: size}
	defer buf.release()
	for c := first; ; {
		if int64(len(buf.data)+len(c.GetData())) > size {
			return status.Errorf(codes.InvalidArgument, "bundle %s: more bytes than the %d announced", h, size)
		}
		if err := buf.write(c.GetData()); err != nil {
			return err
		}
		s.bundleBytes.Add(int64(len(c.GetData())))
		js.received(len(c.GetData()))
		c, err = next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(c.GetSha256()) != 0 || c.GetSize() != 0 {
			return status.Errorf(codes.InvalidArgument, "bundle %s: hash or size repeated after the first chunk", h)
		}
	}
	data := buf.data
	if int64(len(data)) != size {
		return status.Errorf(codes.InvalidArgument, "bundle %s: %d bytes received of the %d announced", h, len(data), size)
	}
	if sha256.Sum256(data) != h {
		return status.Errorf(codes.DataLoss, "bundle %s: the data's SHA-256 does not match its name", h)
	}
	b, err := DecodeBundle(data)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	if _, err := b.Load(); err != nil {
		return status.Errorf(codes.InvalidArgument, "bundle %s: %v", h, err)
	}
	s.cache.put(h, data)
	s.stored.Add(1)
	s.log.Info("bundle stored", "bundle", h.String(), "scene", b.Name, "bytes", size)
	return stream.SendAndClose(&pb.PutBundleReply{})
}

// uploadChunks returns a function that returns an upload's next chunk,
// or io.EOF at its end, and fails with DeadlineExceeded when no chunk
// comes for ServerOptions.UploadIdle or ctx (which carries the upload's
// deadline) ends. The stream is read by a goroutine, which ends when the
// upload does.
func (s *Server) uploadChunks(ctx context.Context, stream pb.Worker_PutBundleServer) func() (*pb.BundleChunk, error) {
	type received struct {
		chunk *pb.BundleChunk
		err   error
	}
	chunks := make(chan received)
	go func() {
		for {
			c, err := stream.Recv()
			select {
			case chunks <- received{c, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	idle := time.NewTimer(s.opt.UploadIdle)
	return func() (*pb.BundleChunk, error) {
		idle.Reset(s.opt.UploadIdle)
		select {
		case r := <-chunks:
			return r.chunk, r.err
		case <-idle.C:
			return nil, status.Errorf(codes.DeadlineExceeded, "bundle upload: no data for %s (--upload-idle)", s.opt.UploadIdle)
		case <-ctx.Done():
			if err := stream.Context().Err(); err != nil {
				return nil, status.FromContextError(err).Err()
			}
			return nil, status.Errorf(codes.DeadlineExceeded, "bundle upload: not finished after %s (--upload-timeout)", s.opt.UploadTimeout)
		}
	}
}

// Render implements pb.WorkerServer: one job's tiles.
func (s *Server) Render(stream pb.Worker_RenderServer) error {
	s.active.Add(1)
	defer s.active.Done()
	select {
	case <-s.drain:
		return status.Error(codes.Unavailable, drainMessage)
	default:
	}
	job, h, scene, err := s.openJob(stream)
	if err != nil {
		return err
	}
	s.jobs.Add(1)
	js := s.acquireJob(job, true)
	defer func() {
		if s.streamEnding != nil {
			s.streamEnding(job)
		}
		s.releaseJob(js, true)
	}()
	log := s.log.With("job", job, "bundle", h.String())
	log.Info("job opened", "width", scene.Settings.Width, "height", scene.Settings.Height, "samples", scene.Settings.Samples)
	gpus, err := s.jobDevices(scene, log)
	if err != nil {
		return err
	}
	// The coordinator keeps about two leases per thread in flight: a GPU
	// counts as the tiles of one batch.
	capacity := s.opt.Threads + s.gpuThreads(gpus, scene)
	if err := stream.Send(&pb.RenderReply{Kind: &pb.RenderReply_Ready{Ready: &pb.Ready{Threads: int32(capacity), Name: s.host, PixelVersion: tracer.PixelVersion}}}); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	replies := &replySender{ctx: ctx, cancel: cancel, stream: stream, timeout: s.opt.ReplyTimeout, js: js,
		sending: make(chan struct{}, 1), stalled: make(chan struct{})}
	tiles := make(chan leased, capacity)
	rendered := s.renderJob(ctx, scene, gpus, tiles, replies.send, js, log)
	end := s.takeLeases(ctx, stream, scene.Settings, tiles, &replies.leases)
	select {
	case <-replies.stalled:
		end = replies.stallError()
	default:
	}
	if end != nil && status.Code(end) != codes.Unavailable {
		cancel() // the stream is broken: stop rendering for it
	}
	close(tiles)
	select {
	case <-rendered:
	case <-replies.stalled:
		// A Send is blocked on a coordinator that reads nothing; the
		// other loops end as they find ctx cancelled.
		end = replies.stallError()
	}
	log.Info("job closed", "reason", closeReason(end, replies.leases.Load()-replies.replied.Load()))
	if errors.Is(end, context.Canceled) {
		return status.FromContextError(end).Err()
	}
	return end
}

// openJob reads a render stream's Open message and returns the job it
// names, its bundle and the scene compiled with its settings. A
// coordinator with another PixelVersion is refused.
func (s *Server) openJob(stream pb.Worker_RenderServer) (job string, h Hash, scene *tracer.Scene, err error) {
	req, err := stream.Recv()
	if err != nil {
		return "", h, nil, err
	}
	open := req.GetOpen()
	if open == nil {
		return "", h, nil, status.Error(codes.InvalidArgument, "the first message of a render must be Open")
	}
	job, err = jobOf(stream.Context(), open.GetJob())
	if err != nil {
		return "", h, nil, err
	}
	if v := open.GetPixelVersion(); v != tracer.PixelVersion {
		return "", h, nil, status.Error(codes.FailedPrecondition, pixelVersionRefusal(v))
	}
	h, err = hashOf(open.GetBundleSha256())
	if err != nil {
		return "", h, nil, err
	}
	scene, err = s.scene(h, open.GetSettings())
	if err != nil {
		return "", h, nil, err
	}
	return job, h, scene, nil
}

// renderJob starts a job's renderers on the leases that come through
// tiles — the scheduler's GPUWorker on each GPU, and its CPUWorker on the
// CPU threads, as a local render runs them — and returns a channel closed
// when they have all stopped: when tiles is closed and drained, or ctx
// ends.
func (s *Server) renderJob(ctx context.Context, scene *tracer.Scene, gpus []gpuJob, tiles <-chan leased, send func(*pb.RenderReply), js *jobStats, log *slog.Logger) <-chan struct{} {
	var wg sync.WaitGroup
	alive := new(atomic.Int32)
	alive.Store(int32(s.opt.Threads + len(gpus)))
	for _, g := range gpus {
		wg.Go(func() { s.gpuLoop(ctx, g, scene, tiles, send, js, log, alive) })
	}
	if s.opt.Threads > 0 {
		src := newStreamLeases(s, tiles, send, js, false)
		wg.Go(func() { (&scheduler.CPUWorker{N: s.opt.Threads}).Run(ctx, scene, src, 0) })
	}
	rendered := make(chan struct{})
	go func() {
		wg.Wait()
		close(rendered)
	}()
	return rendered
}

// takeLeases passes the coordinator's tile leases to the renderers
// through tiles, counting them in leases, until the coordinator closes
// its side of the stream (nil), or a bad message, a failed stream, the
// worker's draining or the end of ctx stops it (the reason).
func (s *Server) takeLeases(ctx context.Context, stream pb.Worker_RenderServer, set tracer.Settings, tiles chan<- leased, leases *atomic.Int64) error {
	reqs := make(chan *pb.RenderRequest)
	recvErr := make(chan error, 1)
	go func() {
		for {
			r, err := stream.Recv()
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case reqs <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		select {
		case r := <-reqs:
			t := r.GetTile()
			if t == nil {
				return status.Error(codes.InvalidArgument, "a render's messages after Open must be tile leases")
			}
			if err := checkTile(t, set); err != nil {
				return status.Errorf(codes.InvalidArgument, "tile lease %d: %v", t.GetLease(), err)
			}
			select {
			case tiles <- leased{t, time.Now()}:
				leases.Add(1)
			case <-ctx.Done():
				return ctx.Err()
			}
		case err := <-recvErr:
			if err != io.EOF {
				return err
			}
			return nil
		case <-s.drain:
			return status.Error(codes.Unavailable, drainMessage)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// replySender sends a render stream's replies, one at a time. A reply
// that waits timeout to be sent (the coordinator reads none) stalls the
// stream: ctx is cancelled, the other replies waiting to send give up,
// and the handler returns without waiting for the blocked Send, which
// returning ends.
type replySender struct {
	ctx     context.Context
	cancel  context.CancelFunc
	stream  pb.Worker_RenderServer
	timeout time.Duration
	js      *jobStats
	sending chan struct{} // holds a token while a Send runs
	stalled chan struct{} // closed when a Send has waited timeout

	stallOnce       sync.Once
	leases, replied atomic.Int64 // tile leases taken and answered, for the log
}

// send sends r, unless the stream has ended; a failed Send ends it.
func (p *replySender) send(r *pb.RenderReply) {
	select {
	case p.sending <- struct{}{}:
	case <-p.ctx.Done():
		return
	}
	defer func() { <-p.sending }()
	if p.ctx.Err() != nil {
		return
	}
	timer := time.AfterFunc(p.timeout, func() {
		p.cancel()
		p.stallOnce.Do(func() { close(p.stalled) })
	})
	err := p.stream.Send(r)
	timer.Stop()
	if err != nil {
		p.cancel()
		return
	}
	if r.GetResult() != nil {
		p.js.sent(proto.Size(r))
	}
	if r.GetResult() != nil || r.GetError() != nil {
		p.replied.Add(1)
	}
}

// stallError is the status of a stream whose coordinator took no reply.
func (p *replySender) stallError() error {
	return status.Errorf(codes.DeadlineExceeded, "the coordinator took no reply for %s (--reply-timeout)", p.timeout)
}

// leased is a tile lease and when it arrived.
type leased struct {
	lease   *pb.TileLease
	arrived time.Time
}

// checkTile checks that a lease's rectangle is a non-empty part of the
// image, no larger than MaxTilePixels.
func checkTile(t *pb.TileLease, set tracer.Settings) error {
	if t.X0 < 0 || t.Y0 < 0 || t.X1 <= t.X0 || t.Y1 <= t.Y0 || int(t.X1) > set.Width || int(t.Y1) > set.Height {
		return fmt.Errorf("pixels [%d,%d)×[%d,%d) are not a part of the %d×%d image", t.X0, t.X1, t.Y0, t.Y1, set.Width, set.Height)
	}
	if int64(t.X1-t.X0)*int64(t.Y1-t.Y0) > MaxTilePixels {
		return fmt.Errorf("a tile of %d×%d pixels is larger than the limit of %d pixels", t.X1-t.X0, t.Y1-t.Y0, MaxTilePixels)
	}
	return nil
}

// hashOf checks a bundle hash from the wire.
func hashOf(b []byte) (Hash, error) {
	var h Hash
	if len(b) != len(h) {
		return h, status.Errorf(codes.InvalidArgument, "a bundle hash is %d bytes of SHA-256, not %d", len(h), len(b))
	}
	copy(h[:], b)
	return h, nil
}

// scene returns the compiled scene of bundle h with the settings whose
// binary encoding is set (tracer.Settings.MarshalBinary), compiling it
// unless a recent job left it.
func (s *Server) scene(h Hash, set []byte) (*tracer.Scene, error) {
	if len(set) == 0 {
		return nil, status.Error(codes.InvalidArgument, "Open has no settings")
	}
	var settings tracer.Settings
	if err := settings.UnmarshalBinary(set); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "settings: %v", err)
	}
	if err := scenes.ValidateSettings(settings); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "settings: %v", err)
	}
	return s.compiled.get(sceneKey{h, string(set)}, func() (*tracer.Scene, error) {
		data, ok := s.cache.get(h)
		if !ok {
			return nil, status.Errorf(codes.NotFound, "bundle %s is not in this worker's cache", h)
		}
		b, err := DecodeBundle(data)
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		desc, err := b.Load()
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		desc.Settings = settings
		sc, err := tracer.Compile(desc)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "%s: %v", b.Name, err)
		}
		return sc, nil
	})
}

// sceneKey names a compiled scene: a bundle and the binary encoding of
// the settings it was compiled with.
type sceneKey struct {
	hash     Hash
	settings string
}

// compiledCache keeps the last few compiled scenes, compiling each key
// once even when several jobs ask for it at the same time.
type compiledCache struct {
	mu      sync.Mutex
	entries []*compiledEntry // most recently used first
}

type compiledEntry struct {
	key   sceneKey
	ready chan struct{}
	scene *tracer.Scene
	err   error
}

func (c *compiledCache) get(key sceneKey, compile func() (*tracer.Scene, error)) (*tracer.Scene, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			c.mu.Unlock()
			<-e.ready
			return e.scene, e.err
		}
	}
	e := &compiledEntry{key: key, ready: make(chan struct{})}
	c.entries = append([]*compiledEntry{e}, c.entries...)
	if len(c.entries) > compiledScenes {
		c.entries = c.entries[:compiledScenes]
	}
	c.mu.Unlock()
	e.scene, e.err = compile()
	close(e.ready)
	if e.err != nil {
		c.mu.Lock()
		for i, x := range c.entries {
			if x == e {
				c.entries = append(c.entries[:i], c.entries[i+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}
	return e.scene, e.err
}

// jobStats counts one job's work on this worker, for the job's metrics
// (see Server.Collector). Its counters are atomics added to once per call
// or tile. A nil *jobStats, the stats of a call that names no job,
// counts nothing.
type jobStats struct {
	id string

	// Guarded by Server.jobsMu.
	refs     int       // calls and streams using the entry
	streams  int       // render streams among them
	ended    bool      // the job's last render stream has ended
	lastUsed time.Time // when a call last let go of it

	tilesOK, tilesFailed     atomic.Uint64
	rays, samples            atomic.Uint64
	busy                     atomic.Int64 // nanoseconds rendering tiles, failed ones too
	cacheHits, cacheMisses   atomic.Uint64
	bytesReceived, bytesSent atomic.Uint64
	tileNanos                atomic.Int64    // sum of the successful tiles' render times
	tileBuckets              []atomic.Uint64 // successful tiles per bucket of tileSecondsBuckets, then +Inf; not cumulative
}

func (j *jobStats) cacheHit() {
	if j != nil {
		j.cacheHits.Add(1)
	}
}

func (j *jobStats) cacheMiss() {
	if j != nil {
		j.cacheMisses.Add(1)
	}
}

func (j *jobStats) received(bytes int) {
	if j != nil {
		j.bytesReceived.Add(uint64(bytes))
	}
}

func (j *jobStats) sent(bytes int) {
	if j != nil {
		j.bytesSent.Add(uint64(bytes))
	}
}

// tile counts a tile that took d to render, successfully if ok.
func (j *jobStats) tile(d time.Duration, st tracer.Stats, ok bool) {
	if j == nil {
		return
	}
	j.busy.Add(int64(d))
	j.rays.Add(st.Rays)
	j.samples.Add(st.Samples)
	if !ok {
		j.tilesFailed.Add(1)
		return
	}
	j.tilesOK.Add(1)
	j.tileNanos.Add(int64(d))
	j.tileBuckets[sort.SearchFloat64s(tileSecondsBuckets, d.Seconds())].Add(1)
}

// jobOf returns the job a call belongs to: the job ID in its metadata, or
// in the Open message of a render stream (open), which must agree. It is
// empty for a call that names no job.
func jobOf(ctx context.Context, open string) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	var job string
	if v := md.Get(jobMetadataKey); len(v) > 0 {
		job = v[0]
	}
	switch {
	case open == "":
	case job == "":
		job = open
	case job != open:
		return "", status.Errorf(codes.InvalidArgument, "the call's job %.40q (metadata %s) and the Open message's job %.40q differ", job, jobMetadataKey, open)
	}
	if job != "" && !validJob(job) {
		return "", status.Errorf(codes.InvalidArgument, "job ID %.40q: want at most %d printable characters", job, maxJobBytes)
	}
	return job, nil
}

// validJob says whether a job ID can label metrics and logs.
func validJob(job string) bool {
	if len(job) > maxJobBytes || !utf8.ValidString(job) {
		return false
	}
	for _, r := range job {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// acquireJob returns the stats of job and holds them until releaseJob.
// stream says whether a render stream holds them. It returns nil, which
// counts nothing, for the empty job and for a job that finds no room.
//
// Only a job that opened a render stream has metrics series (s.byJob),
// and at most ServerOptions.MaxJobSeries jobs at once; its series are
// dropped when its last stream ends. The HasBundle and PutBundle calls
// before its first stream are counted apart, in s.pending (at most
// maxPendingJobs jobs, each forgotten after jobIdle without calls), and
// join its series when the stream opens, so that calls naming made-up
// jobs cannot grow the metrics.
func (s *Server) acquireJob(job string, stream bool) *jobStats {
	if job == "" {
		return nil
	}
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	j := s.byJob[job]
	switch {
	case j != nil:
	case stream && len(s.byJob) >= s.opt.MaxJobSeries:
		s.untracked.Add(1)
		return nil
	case stream:
		j = s.pending[job]
		delete(s.pending, job)
		if j == nil {
			j = newJobStats(job)
		}
		s.byJob[job] = j
	default:
		j = s.pending[job]
		if j == nil {
			s.sweepJobs()
			if len(s.pending) >= maxPendingJobs {
				return nil
			}
			j = newJobStats(job)
			s.pending[job] = j
		}
	}
	j.refs++
	if stream {
		j.streams++
		j.ended = false
	}
	return j
}

func newJobStats(job string) *jobStats {
	return &jobStats{id: job, tileBuckets: make([]atomic.Uint64, len(tileSecondsBuckets)+1)}
}

// releaseJob lets go of stats from acquireJob. A job's series are
// dropped when its last render stream has ended and no call uses them.
func (s *Server) releaseJob(j *jobStats, stream bool) {
	if j == nil {
		return
	}
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	j.refs--
	j.lastUsed = s.now()
	if stream {
		j.streams--
		j.ended = j.streams == 0
	}
	if j.refs == 0 && j.ended && s.byJob[j.id] == j {
		delete(s.byJob, j.id)
	}
}

// sweepJobs forgets the pending jobs no call has used for jobIdle: those
// that asked for a bundle and never opened a render stream. s.jobsMu is
// held.
func (s *Server) sweepJobs() {
	now := s.now()
	for id, j := range s.pending {
		if j.refs == 0 && now.Sub(j.lastUsed) >= jobIdle {
			delete(s.pending, id)
		}
	}
}

// closeReason says why a job's render stream ended, for the log. A
// coordinator cancels its streams when its frame is done: one that hangs
// up with every tile it asked for answered ended the job as well as one
// that closes the stream. Tiles still out then are most often second
// leases of tiles it already had (raced near the end of a frame); a
// coordinator that was stopped looks the same from here.
func closeReason(end error, unanswered int64) string {
	switch {
	case end == nil:
		return "done: the coordinator closed the stream"
	case errors.Is(end, context.Canceled) && unanswered <= 0:
		return "done: every tile answered, then the coordinator hung up"
	case errors.Is(end, context.Canceled) && unanswered == 1:
		return "the coordinator hung up with 1 tile unanswered (a duplicate of a tile it had, or it stopped)"
	case errors.Is(end, context.Canceled):
		return fmt.Sprintf("the coordinator hung up with %d tiles unanswered (duplicates of tiles it had, or it stopped)", unanswered)
	}
	return fmt.Sprint(end)
}
