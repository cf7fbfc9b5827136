package remote

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
)

// Resolver finds the addresses of a DNS name; *net.Resolver is one.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// ClientOptions configure a coordinator's connections to its workers.
type ClientOptions struct {
	Token string      // sent on every call, when set
	TLS   *tls.Config // nil: plain TCP
	// Window is how many leases each worker holds at once; 0 means it
	// adapts: per thread, one tile being rendered plus enough to cover the
	// measured round trip (at least 2, at most 16).
	Window int
	// LeaseTimeout fails a worker's leases when one of them has been out
	// this long and the worker has sent nothing for as long: one whose
	// tiles keep coming back is working through its queue (a GPU's
	// batches at high sample counts), not stalled. 0 means 20 times its
	// slowest tile so far, at least a minute.
	LeaseTimeout time.Duration
	// MaxFailures is how many failed connections in a row take a worker
	// out of the render; 0 means 5. Between them it waits Backoff (0: half
	// a second), doubling up to MaxBackoff (0: 15 s).
	MaxFailures int
	Backoff     time.Duration
	MaxBackoff  time.Duration
	// Resolver finds the workers of dns:/// targets (nil: the system's),
	// again every ResolveEvery (0: 10 s), so that new workers join.
	Resolver     Resolver
	ResolveEvery time.Duration
	// Dialer, if set, makes the connections (tests use in-memory ones).
	Dialer func(ctx context.Context, addr string) (net.Conn, error)
	Logger *slog.Logger
}

// Cluster is a scheduler.Worker made of remote `trace worker` processes:
// each renders through its own connection and appears in the progress
// reports under its address (scheduler.Queue.Join).
type Cluster struct {
	static []string // host:port targets
	dns    []string // name:port targets to re-resolve
	bundle *EncodedBundle
	opt    ClientOptions
	log    *slog.Logger
	job    string

	sent, received atomic.Int64 // bytes on the wire, all connections
	tiles          atomic.Int64

	// streamEnded, if set, runs when a try of the worker at addr has
	// ended with err, before runWorker looks at it (tests hold it there,
	// as a loaded machine may).
	streamEnded func(ctx context.Context, addr string, err error)
}

// ClusterStats counts a cluster's traffic.
type ClusterStats struct {
	BytesSent, BytesReceived int64 // on the wire, after compression
	Tiles                    int64 // tiles received
}

// ParseTargets checks a --workers list: host:port or dns:///name:port
// items, separated by commas.
func ParseTargets(list string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		hp, _ := strings.CutPrefix(t, "dns:///")
		if strings.Contains(hp, "://") || strings.HasPrefix(t, "dns:") && !strings.HasPrefix(t, "dns:///") {
			return nil, fmt.Errorf("worker %q: want host:port or dns:///name:port", t)
		}
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" || port == "" {
			return nil, fmt.Errorf("worker %q: want host:port or dns:///name:port", t)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("worker %q: port %q: want a number from 1 to 65535", t, port)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New("no workers given")
	}
	return out, nil
}

// NewCluster returns the workers named by targets (see ParseTargets),
// which will render the scene in bundle.
func NewCluster(targets []string, bundle *EncodedBundle, opt ClientOptions) *Cluster {
	c := &Cluster{bundle: bundle, opt: opt, log: opt.Logger}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.opt.MaxFailures <= 0 {
		c.opt.MaxFailures = 5
	}
	if c.opt.Backoff <= 0 {
		c.opt.Backoff = 500 * time.Millisecond
	}
	if c.opt.MaxBackoff <= 0 {
		c.opt.MaxBackoff = 15 * time.Second
	}
	if c.opt.ResolveEvery <= 0 {
		c.opt.ResolveEvery = 10 * time.Second
	}
	if c.opt.Resolver == nil {
		c.opt.Resolver = net.DefaultResolver
	}
	for _, t := range targets {
		if name, ok := strings.CutPrefix(t, "dns:///"); ok {
			c.dns = append(c.dns, name)
		} else {
			c.static = append(c.static, t)
		}
	}
	var id [8]byte
	rand.Read(id[:])
	c.job = hex.EncodeToString(id[:])
	return c
}

// Name implements scheduler.Worker.
func (c *Cluster) Name() string { return "workers" }

// Kind implements scheduler.Worker: the cluster itself renders nothing;
// its machines report under their own names.
func (c *Cluster) Kind() scheduler.WorkerKind { return scheduler.KindCluster }

// Threads implements scheduler.Worker.
func (c *Cluster) Threads() int { return 0 }

// Stats returns the cluster's traffic so far.
func (c *Cluster) Stats() ClusterStats {
	return ClusterStats{BytesSent: c.sent.Load(), BytesReceived: c.received.Load(), Tiles: c.tiles.Load()}
}

// A Cluster's workers compile the scene; the coordinator need not.
var _ scheduler.RemoteWorker = (*Cluster)(nil)

// Run implements scheduler.Worker: see RunRemote. A cluster's machines
// join the render's own Queue (scheduler.Queue.Join), so q must be one.
func (c *Cluster) Run(ctx context.Context, scene *tracer.Scene, q scheduler.Leases, index int) error {
	queue, ok := q.(*scheduler.Queue)
	if !ok {
		return fmt.Errorf("worker %s: renders the tiles of a render's queue, not of a %T", c.Name(), q)
	}
	return c.RunRemote(ctx, scheduler.CompiledScene(scene), queue, index)
}

// RunRemote implements scheduler.RemoteWorker: it connects to every
// worker, and to those that DNS names later, and returns when the frame is
// done, or with an error when every worker has failed. It never compiles
// the scene: the workers compile it from the bundle.
func (c *Cluster) RunRemote(ctx context.Context, scene *scheduler.LazyScene, q *scheduler.Queue, _ int) error {
	type running struct {
		cancel context.CancelFunc
		done   bool
	}
	var (
		mu      sync.Mutex
		workers = map[string]*running{}
		errs    []error
		drained []error // of workers that shut down mid-render
		wg      sync.WaitGroup
		ended   = make(chan struct{}, 1)
	)
	// start starts rendering with the worker at addr; authority, for one
	// found through DNS, is the name it was found under: the name its TLS
	// certificate must carry, since pod addresses come and go.
	start := func(addr, authority string) {
		if _, ok := workers[addr]; ok {
			return
		}
		wctx, cancel := context.WithCancel(ctx)
		r := &running{cancel: cancel}
		workers[addr] = r
		wg.Go(func() {
			err := c.runWorker(wctx, scene, q, addr, authority)
			mu.Lock()
			r.done = true
			if _, ok := err.(*drainedError); ok {
				drained = append(drained, err) // told only if it leaves tiles undone
			} else if err != nil {
				errs = append(errs, err)
			}
			mu.Unlock()
			select {
			case ended <- struct{}{}:
			default:
			}
		})
	}
	resolve := func() {
		found := map[string]string{} // address → the name:port it came from
		for _, name := range c.dns {
			host, port, _ := net.SplitHostPort(name)
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			addrs, err := c.opt.Resolver.LookupHost(lctx, host)
			cancel()
			if err != nil {
				c.log.Warn("resolving workers", "name", name, "err", err)
				continue
			}
			for _, a := range addrs {
				found[net.JoinHostPort(a, port)] = name
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for addr, name := range found {
			start(addr, name)
		}
		for addr, r := range workers {
			if _, ok := found[addr]; !ok && !isStatic(c.static, addr) && !r.done {
				c.log.Info("worker left the DNS name", "worker", addr)
				r.cancel() // its leases go back to the queue
			}
		}
	}
	mu.Lock()
	for _, a := range c.static {
		start(a, "")
	}
	mu.Unlock()
	if len(c.dns) > 0 {
		resolve()
	}
	tick := time.NewTicker(c.opt.ResolveEvery)
	defer tick.Stop()
	for {
		mu.Lock()
		alive := 0
		for _, r := range workers {
			if !r.done {
				alive++
			}
		}
		mu.Unlock()
		if alive == 0 && (len(c.dns) == 0 || q.Remaining() == 0) {
			break
		}
		select {
		case <-ctx.Done():
			mu.Lock()
			for _, r := range workers {
				r.cancel()
			}
			mu.Unlock()
			wg.Wait()
			return errors.Join(errs...) // machines that failed and were not needed
		case <-ended:
			continue
		case <-tick.C:
			if len(c.dns) == 0 {
				continue
			}
			before := len(workers)
			resolve()
			mu.Lock()
			grew := len(workers) > before
			mu.Unlock()
			if alive == 0 && !grew {
				wg.Wait()
				return fmt.Errorf("no worker left: %w", errors.Join(append(append(errs, drained...), fmt.Errorf("%s resolves to no new worker", strings.Join(c.dns, ", ")))...))
			}
		}
	}
	wg.Wait()
	if q.Remaining() > 0 && len(errs)+len(drained) > 0 {
		return fmt.Errorf("no worker left: %w", errors.Join(append(errs, drained...)...))
	}
	return errors.Join(errs...)
}

// drainedError is how a worker that shut down (trace worker's SIGTERM:
// Server.Drain) left the render: no failure, and no error once the frame
// is done, but what the user hears when nobody is left to finish it.
type drainedError struct{ addr string }

func (e *drainedError) Error() string {
	return "worker " + e.addr + ": it shut down (SIGTERM or Ctrl-C) and left the render; its unfinished tiles went back to the queue"
}

func isStatic(static []string, addr string) bool {
	for _, s := range static {
		if s == addr {
			return true
		}
	}
	return false
}

// conn dials one worker. Over TLS without a client certificate, asked
// turns true once the worker asks for one in a handshake: if it then
// closes the connection, it requires one (explain).
func (c *Cluster) conn(addr, authority string) (conn *grpc.ClientConn, asked *atomic.Bool, err error) {
	asked = new(atomic.Bool)
	creds := insecure.NewCredentials()
	if cfg := c.opt.TLS; cfg != nil {
		if len(cfg.Certificates) == 0 && cfg.GetClientCertificate == nil {
			cfg = cfg.Clone()
			cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				asked.Store(true)
				return &tls.Certificate{}, nil // none sent
			}
		}
		creds = credentials.NewTLS(cfg)
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithKeepaliveParams(clientKeepalive),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(chunkBytes+1<<16)),
		grpc.WithStatsHandler(&wireCounter{c}),
	}
	if c.opt.Token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(tokenCreds{c.opt.Token, c.opt.TLS != nil}))
	}
	if c.opt.Dialer != nil {
		opts = append(opts, grpc.WithContextDialer(c.opt.Dialer))
	}
	if authority != "" {
		opts = append(opts, grpc.WithAuthority(authority))
	}
	conn, err = grpc.NewClient("passthrough:///"+addr, opts...)
	return conn, asked, err
}

// runWorker renders with one worker until the frame is done, reconnecting
// with backoff after failures, and gives up after MaxFailures in a row.
// A frame done without it still returns an error, for the user to hear:
// its latest failure, or that it had not joined the render by then.
func (c *Cluster) runWorker(ctx context.Context, scene *scheduler.LazyScene, q *scheduler.Queue, addr, authority string) error {
	conn, askedCert, err := c.conn(addr, authority)
	if err != nil {
		return fmt.Errorf("worker %s: %w", addr, err)
	}
	defer conn.Close()
	// Every call names the job, so that the worker counts each job's work
	// apart.
	ctx = metadata.AppendToOutgoingContext(ctx, jobMetadataKey, c.job)
	w := &session{c: c, addr: addr, client: pb.NewWorkerClient(conn), scene: scene, q: q, index: -1}
	failures := 0
	delay := c.opt.Backoff
	var last error // the latest failure, if no tile came back since
	for {
		progressed, err := w.run(ctx)
		err = cleanErr(err) // a worker's status messages are its own text
		if c.streamEnded != nil {
			c.streamEnded(ctx, addr, err)
		}
		if progressed {
			last = nil
		}
		if ctx.Err() != nil {
			switch {
			case w.index >= 0 && err != nil && !canceled(err) && !isDrain(err):
				// It failed, and the others finished the frame before
				// this goroutine saw it (a loaded machine's scheduling):
				// the user should hear that it failed, as below.
				msg, _ := explain(err, &c.opt, askedCert.Load())
				return fmt.Errorf("worker %s: %w", addr, describedError{msg, err})
			case last != nil:
				// The frame was finished without it: the user should
				// still hear that it failed.
				return fmt.Errorf("worker %s: %w", addr, last)
			case w.index < 0 && q.Remaining() == 0:
				// The frame was finished before it joined: the user
				// should hear that it took no part, and why if known.
				return notJoined(addr, err, &c.opt, askedCert.Load())
			}
			return nil
		}
		if err == nil {
			return nil
		}
		if isDrain(err) {
			c.log.Info("worker is shutting down; it leaves the render", "worker", addr)
			return &drainedError{addr}
		}
		if msg, ok := sceneTooLarge(err); ok {
			// Its limit will not grow while this render runs.
			c.log.Warn("worker not used: "+msg, "worker", addr)
			return fmt.Errorf("worker %s: not used: %s", addr, msg)
		}
		if msg, ok := pixelVersionMismatch(err); ok {
			// Its tiles could differ from the others' in some pixels:
			// it is not used, and asking again would get the same answer.
			c.log.Warn("worker not used: "+msg, "worker", addr)
			return fmt.Errorf("worker %s: not used: %s", addr, msg)
		}
		msg, permanent := explain(err, &c.opt, askedCert.Load())
		if !permanent && c.opt.TLS == nil && closedByPeer(err.Error()) {
			// A worker that serves TLS closes a plain connection
			// before it answers, as one that crashed does: a TLS
			// handshake tells them apart.
			if speaksTLS, asksCert := c.probeTLS(ctx, addr, authority); speaksTLS {
				msg, permanent = servesTLS(asksCert), true
			}
		}
		if permanent {
			// Trying again would get the same answer: the render
			// fails now, saying what to do.
			perr := &PermanentError{Worker: addr, Msg: msg, Err: err}
			q.Abort(perr)
			return perr
		}
		err = describedError{msg, err}
		if progressed {
			failures, delay = 0, c.opt.Backoff
		}
		failures++
		if failures >= c.opt.MaxFailures {
			c.log.Warn("worker given up", "worker", addr, "err", msg)
			return fmt.Errorf("worker %s: %w (gave up after %d failures in a row)", addr, err, failures)
		}
		c.log.Warn("worker failed; retrying", "worker", addr, "err", msg, "in", delay)
		last = err
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return fmt.Errorf("worker %s: %w", addr, err)
		}
		delay = min(2*delay, max(c.opt.MaxBackoff, c.opt.Backoff))
	}
}

// ErrNotJoined is the error of a worker that had not answered when the
// frame was done (the local threads rendered it first), neither refusing
// nor failing: a render's Result.WorkerErrors holds it so that the user
// hears that the worker took no part.
var ErrNotJoined = errors.New("it had not joined the render when the frame was done, so whether it would serve it is not known")

// notJoined is the error of a worker that had not joined the render when
// the frame was done, err being how its last try ended: the refusal or
// failure it had answered with, if any, else that it had not answered.
func notJoined(addr string, err error, opt *ClientOptions, askedCert bool) error {
	if err == nil || canceled(err) {
		return fmt.Errorf("worker %s: %w", addr, ErrNotJoined)
	}
	msg, permanent := explain(err, opt, askedCert)
	if permanent {
		return &PermanentError{Worker: addr, Msg: msg, Err: err}
	}
	return fmt.Errorf("worker %s: %w", addr, describedError{msg, err})
}

// session is one worker's connection state across its render streams.
type session struct {
	c       *Cluster
	addr    string
	client  pb.WorkerClient
	scene   *scheduler.LazyScene // never compiled here
	q       *scheduler.Queue
	index   int           // in the progress reports; −1 before the first Ready
	slowest time.Duration // longest tile round trip so far
	// Running means of a tile's render time on the worker and of the
	// network's part of its round trip, for the window.
	tileTime, network time.Duration
	// The warnings about the worker's bad tiles and impossible counts,
	// at most one line every warnEvery each.
	badTiles, badCounts warnLimiter
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// observe adds a tile's round trip, the time the worker held it and the
// time it took to render to the means.
func (w *session) observe(trip, held, render time.Duration) {
	net := max(trip-held, 0)
	if w.tileTime == 0 {
		w.tileTime, w.network = render, net
		return
	}
	w.tileTime += (render - w.tileTime) / 8
	w.network += (net - w.network) / 8
}

// window is how many leases keep a worker of threads threads busy: per
// thread, the tile it renders, and enough more to cover the network's
// round trip (at least one).
func (w *session) window(threads int) int {
	per := 2
	if w.tileTime > 0 {
		per = max(per, min(16, 1+int((w.network+w.tileTime-1)/w.tileTime)))
	}
	return per * threads
}

// leaseWindow is a semaphore of leases in flight whose size can change.
type leaseWindow struct {
	mu       sync.Mutex
	n, limit int
	wake     chan struct{}
}

func newWindow(limit int) *leaseWindow {
	return &leaseWindow{limit: max(limit, 1), wake: make(chan struct{})}
}

// acquire takes a place in the window, waiting for one; false if ctx ended.
func (l *leaseWindow) acquire(ctx context.Context) bool {
	for {
		l.mu.Lock()
		if l.n < l.limit {
			l.n++
			l.mu.Unlock()
			return true
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}

func (l *leaseWindow) release() {
	l.mu.Lock()
	l.n--
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

func (l *leaseWindow) setLimit(n int) {
	l.mu.Lock()
	if n != l.limit {
		l.limit = max(n, 1)
		close(l.wake)
		l.wake = make(chan struct{})
	}
	l.mu.Unlock()
}

// outstanding is a lease sent to the worker and not yet answered.
type outstanding struct {
	lease scheduler.Lease
	sent  time.Time
}

// run makes sure the worker has the scene, then renders tiles on one
// stream until the frame is done (nil) or the stream fails. progressed
// says whether any tile came back.
func (w *session) run(ctx context.Context) (progressed bool, err error) {
	if err := w.ensureBundle(ctx); err != nil {
		return false, cleanErr(err)
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s, err := w.open(sctx, cancel)
	if err != nil {
		return false, err
	}
	go func() { s.sent <- s.send() }()
	go s.watch()
	err = s.receive()
	return s.progressed, s.finish(ctx, err)
}

// renderStream is one render stream of a session. Three goroutines share
// it: the sender keeps the lease window full of leases (send), the
// receiver hands the worker's replies to the queue (receive), and a
// watchdog ends the stream when a lease has been out too long (watch);
// finish ends the leases left when the stream is over.
type renderStream struct {
	w       *session
	stream  pb.Worker_RenderClient
	ctx     context.Context         // the stream's, ended by cancel
	cancel  context.CancelCauseFunc // ends the stream with a cause
	threads int                     // the worker's, from its Ready
	win     *leaseWindow
	sent    chan error // the sender's result

	// mu guards out, noMore, next and heard, and the session's tile
	// times (slowest, and the means of observe) that the watchdog reads.
	mu     sync.Mutex
	out    map[uint64]outstanding // by the lease number sent
	noMore bool                   // the queue has no more tiles for the stream
	next   uint64                 // the last lease number sent
	heard  time.Time              // the worker's last reply (its Ready, at first)

	closeOnce sync.Once
	closeErr  error
	// progressed says whether any tile came back; only the receiver
	// writes it, and run reads it once the receiver is done.
	progressed bool
}

// open opens a render stream on ctx, which cancel ends, sends Open and
// checks the worker's Ready. The session's first stream joins the worker
// to the render's progress reports.
func (w *session) open(ctx context.Context, cancel context.CancelCauseFunc) (*renderStream, error) {
	stream, err := w.client.Render(ctx)
	if err != nil {
		return nil, err
	}
	set, _ := w.scene.Settings.MarshalBinary() // never fails
	err = stream.Send(&pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{
		Job: w.c.job, BundleSha256: w.c.bundle.Hash[:], Settings: set, PixelVersion: tracer.PixelVersion,
	}}})
	if err != nil {
		return nil, streamErr(stream, err)
	}
	first, err := stream.Recv()
	if err != nil {
		return nil, cleanErr(err)
	}
	ready := first.GetReady()
	if ready == nil || ready.Threads < 1 {
		return nil, fmt.Errorf("worker's first reply is not Ready")
	}
	if v := ready.GetPixelVersion(); v != tracer.PixelVersion {
		return nil, &pixelVersionError{v}
	}
	if w.index < 0 {
		w.index = w.q.Join(w.addr, scheduler.KindRemote, int(ready.Threads))
	}
	s := &renderStream{
		w: w, stream: stream, ctx: ctx, cancel: cancel, threads: int(ready.Threads),
		win: newWindow(w.c.opt.Window), sent: make(chan error, 1), out: map[uint64]outstanding{},
		heard: time.Now(),
	}
	if w.c.opt.Window <= 0 {
		s.win.setLimit(w.window(s.threads))
	}
	return s, nil
}

// closeSend closes the sending side of the stream, once: the worker
// finishes the tiles it has, then ends the stream.
func (s *renderStream) closeSend() error {
	s.closeOnce.Do(func() { s.closeErr = s.stream.CloseSend() })
	return s.closeErr
}

// send keeps the lease window full: it leases tiles from the queue and
// sends them until the queue has no more, closing the sending side if
// every lease is answered by then (else the receiver closes it), or until
// the stream ends. A failed Send ends the stream with its error.
func (s *renderStream) send() error {
	w := s.w
	for {
		if !s.win.acquire(s.ctx) {
			return nil
		}
		l, err := w.q.Next(s.ctx, w.index)
		if errors.Is(err, scheduler.ErrNoMoreTiles) {
			s.mu.Lock()
			s.noMore = true
			empty := len(s.out) == 0
			s.mu.Unlock()
			if empty {
				return s.closeSend()
			}
			return nil
		}
		if err != nil {
			return nil // the stream has ended
		}
		r := l.Tile.Rect
		s.mu.Lock()
		s.next++
		id := s.next
		s.out[id] = outstanding{l, time.Now()}
		s.mu.Unlock()
		err = s.stream.Send(&pb.RenderRequest{Kind: &pb.RenderRequest_Tile{Tile: &pb.TileLease{
			Lease: id, X0: int32(r.Min.X), Y0: int32(r.Min.Y), X1: int32(r.Max.X), Y1: int32(r.Max.Y)}}})
		if err == io.EOF {
			return nil // the stream has ended: the receiver gets its status
		}
		if err != nil {
			s.cancel(err)
			return err
		}
	}
}

// receive hands the worker's replies to the queue until the worker ends
// the stream (nil) or the stream fails, and closes the sending side once
// the queue has no more tiles and every lease is answered.
func (s *renderStream) receive() error {
	for {
		r, err := s.stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if cause := context.Cause(s.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				return cause
			}
			return err
		}
		if err := s.reply(r); err != nil {
			return err
		}
		s.win.release()
		s.mu.Lock()
		finished := s.noMore && len(s.out) == 0
		s.mu.Unlock()
		if finished {
			if err := s.closeSend(); err != nil {
				return err
			}
		}
	}
}

// reply ends the lease that r answers: Complete with the tile's pixels,
// or Fail with the worker's error or the reason its pixels are refused.
// The error is a protocol error, which ends the stream.
func (s *renderStream) reply(r *pb.RenderReply) error {
	var id uint64
	switch k := r.Kind.(type) {
	case *pb.RenderReply_Result:
		id = k.Result.Lease
	case *pb.RenderReply_Error:
		id = k.Error.Lease
	default:
		return fmt.Errorf("protocol error: unexpected %T", r.Kind)
	}
	s.mu.Lock()
	o, ok := s.out[id]
	delete(s.out, id)
	s.heard = time.Now()
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("protocol error: reply for unknown lease %d", id)
	}
	w := s.w
	res := r.GetResult()
	if res == nil {
		w.q.Fail(o.lease, fmt.Errorf("worker %s: %s", w.addr, clean(r.GetError().GetMessage(), maxRemoteText)))
		return nil
	}
	pixels := o.lease.Tile.Rect.Dx() * o.lease.Tile.Rect.Dy()
	pix, err := decodePixels(res.Pixels, pixels)
	if err == nil {
		err = checkPixels(pix)
	}
	if err != nil {
		// Refused: the tile goes back to the queue, for another worker
		// (or another try) to render.
		w.badTiles.warn(w.c.log, time.Now(), "worker sent a bad tile; refused", "worker", w.addr, "tile", o.lease.Tile.ID, "err", err)
		w.q.Fail(o.lease, fmt.Errorf("worker %s: tile refused: %w", w.addr, err))
		return nil
	}
	st, clamped := tileStats(res, pixels, w.scene.Settings, w.scene.PointLights)
	if clamped {
		w.badCounts.warn(w.c.log, time.Now(), "worker reported impossible counts for a tile; cut to the most it could cost", "worker", w.addr, "tile", o.lease.Tile.ID,
			"rays", res.Rays, "samples", res.Samples, "non_finite", res.NonFinite)
	}
	w.q.Complete(o.lease, pix, st)
	w.c.tiles.Add(1)
	s.progressed = true
	trip := time.Since(o.sent)
	s.mu.Lock()
	w.slowest = max(w.slowest, trip)
	w.observe(trip, reportedTime(res.HeldSeconds), reportedTime(res.Seconds))
	s.mu.Unlock()
	if w.c.opt.Window <= 0 {
		s.win.setLimit(w.window(s.threads))
	}
	return nil
}

// finish ends the stream once the receiver has returned err: it stops the
// sender and the watchdog, waits for the sender, and ends the leases still
// out — released when ctx (the render) is over or the worker is shutting
// down, failed otherwise. It returns why the stream ended: nil when the
// frame is done.
func (s *renderStream) finish(ctx context.Context, err error) error {
	err = cleanErr(err)
	if err == nil {
		s.mu.Lock()
		if len(s.out) > 0 { // the worker closed the stream early
			err = errors.New("the worker ended the stream with tiles outstanding")
		}
		s.mu.Unlock()
	}
	s.cancel(err)
	if serr := <-s.sent; err == nil {
		err = serr
	}
	// Nothing adds to out or takes from it now: end the leases still in it.
	release := ctx.Err() != nil || isDrain(err)
	for _, o := range s.out {
		if release || err == nil {
			s.w.q.Release(o.lease)
		} else {
			s.w.q.Fail(o.lease, fmt.Errorf("worker %s: %w", s.w.addr, err))
		}
	}
	if err == nil && !s.noMore {
		err = errors.New("the worker ended the stream")
	}
	return err
}

// watch ends the stream when a lease has been out longer than the lease
// timeout and the worker has not replied for as long: it is stalled or
// far too slow.
func (s *renderStream) watch() {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		limit := s.w.c.opt.LeaseTimeout
		if limit <= 0 {
			limit = max(time.Minute, 20*s.w.slowest)
		}
		var late *outstanding
		for _, o := range s.out {
			if time.Since(o.sent) > limit && time.Since(s.heard) > limit {
				late = &o
				break
			}
		}
		s.mu.Unlock()
		if late != nil {
			s.cancel(fmt.Errorf("tile %d timed out after %s", late.lease.Tile.ID, limit))
			return
		}
	}
}

// ensureBundle uploads the scene unless the worker has it.
func (w *session) ensureBundle(ctx context.Context) error {
	b := w.c.bundle
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	has, err := w.client.HasBundle(hctx, &pb.BundleRef{Sha256: b.Hash[:]})
	cancel()
	if err != nil {
		return err
	}
	if has.Present {
		return nil
	}
	// A generous deadline: a minute plus 1 MB/s.
	uctx, cancel := context.WithTimeout(ctx, time.Minute+time.Duration(len(b.Data))*time.Microsecond)
	defer cancel()
	up, err := w.client.PutBundle(uctx, grpc.UseCompressor(gzip.Name))
	if err != nil {
		return err
	}
	for off := 0; off < len(b.Data) || off == 0; off += chunkBytes {
		c := &pb.BundleChunk{Data: b.Data[off:min(off+chunkBytes, len(b.Data))]}
		if off == 0 {
			c.Sha256, c.Size = b.Hash[:], int64(len(b.Data))
		}
		if err := up.Send(c); err != nil {
			_, err = up.CloseAndRecv() // the server's reason
			return fmt.Errorf("uploading the scene: %w", err)
		}
	}
	if _, err := up.CloseAndRecv(); err != nil {
		return fmt.Errorf("uploading the scene: %w", err)
	}
	return nil
}

// encodePixels converts a tile's pixels to the wire's little-endian
// float32.
func encodePixels(pix []float32) []byte {
	b := make([]byte, 4*len(pix))
	for i, v := range pix {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// decodePixels checks and converts a tile's wire pixels.
func decodePixels(b []byte, pixels int) ([]float32, error) {
	if len(b) != 12*pixels {
		return nil, fmt.Errorf("protocol error: %d bytes of pixels for a tile of %d pixels", len(b), pixels)
	}
	pix := make([]float32, 3*pixels)
	for i := range pix {
		pix[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return pix, nil
}

// streamErr turns a failed Send into the stream's real status: Send
// returns io.EOF when the server has ended the stream.
func streamErr(s grpc.ClientStream, err error) error {
	if err == io.EOF {
		if rerr := s.RecvMsg(new(pb.RenderReply)); rerr != nil && rerr != io.EOF {
			return rerr
		}
	}
	return err
}

// maxSceneFlag ends a worker's refusal of a bundle larger than its
// --max-scene-bytes.
const maxSceneFlag = "(--max-scene-bytes)"

// sceneTooLarge says whether err is a worker's refusal of this render's
// scene for its size, and says so in one line.
func sceneTooLarge(err error) (string, bool) {
	s, ok := errors.AsType[interface {
		error
		GRPCStatus() *status.Status
	}](err)
	if !ok {
		return "", false
	}
	st := s.GRPCStatus()
	if st.Code() != codes.ResourceExhausted || !strings.HasSuffix(st.Message(), maxSceneFlag) {
		return "", false
	}
	return "it refused the scene, which is larger than it takes (" + st.Message() + "): start it with a larger --max-scene-bytes", true
}

// canceled says whether err is how a call ended because its context was
// cancelled (the render's, once the frame is done), which says nothing of
// the worker.
func canceled(err error) bool {
	return errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled
}

// isDrain says whether err is a worker's "shutting down" status.
func isDrain(err error) bool {
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable && st.Message() == drainMessage
}

// tokenCreds sends the shared token on every call.
type tokenCreds struct {
	token  string
	secure bool
}

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + t.token}, nil
}

func (t tokenCreds) RequireTransportSecurity() bool { return t.secure }

// wireCounter counts the bytes on the wire of a cluster's connections.
type wireCounter struct{ c *Cluster }

func (h *wireCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (h *wireCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (h *wireCounter) HandleConn(context.Context, stats.ConnStats) {}
func (h *wireCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	switch p := s.(type) {
	case *stats.InPayload:
		h.c.received.Add(int64(p.WireLength))
	case *stats.OutPayload:
		h.c.sent.Add(int64(p.WireLength))
	}
}
