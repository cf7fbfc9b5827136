package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// syncBuffer is a log that tests read while the cluster writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A worker that refuses the token fails the render at once, even with
// local threads that could finish the frame: one error, no retry, saying
// what to set.
func TestPermanentErrorFailsAtOnce(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w1:7000", ServerOptions{Threads: 2, Token: "s3cret"})
	bundle, scene := testScene(t, 32, 2)
	for _, tc := range []struct{ token, want string }{
		{"", "it requires a token"},
		{"wrong", "it refused the token"},
	} {
		var log syncBuffer
		opt := n.options()
		opt.Token, opt.MaxFailures, opt.Backoff = tc.token, 5, time.Hour // a retry would hang the test
		opt.Logger = slog.New(slog.NewTextHandler(&log, nil))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8,
			Workers: []scheduler.Worker{&slowCPU{}, NewCluster([]string{"w1:7000"}, bundle, opt)}})
		cancel()
		var perr *PermanentError
		if !errors.As(err, &perr) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "TRACE_TOKEN") {
			t.Errorf("token %q: %v, want a permanent error %q naming TRACE_TOKEN", tc.token, err, tc.want)
		}
		if strings.Contains(err.Error(), "rpc error") || strings.Contains(log.String(), "retrying") {
			t.Errorf("token %q: a raw error or a retry: %v\n%s", tc.token, err, log.String())
		}
	}
	if st := w.srv.Stats(); st.TilesRendered != 0 || st.BundlesStored != 0 {
		t.Errorf("the worker did work for callers without its token: %+v", st)
	}
}

// A worker that had not joined the render when local threads finished
// the frame — its connection, or the answer to its first call, still on
// its way — is reported at the end, as one that failed is: it may be a
// worker that refuses this render. A refusal in hand by then is reported
// as the permanent error it is.
func TestWorkerNotJoinedReported(t *testing.T) {
	bundle, scene := testScene(t, 16, 1)
	dialing, stuck := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { close(stuck) })
	opt := ClientOptions{Dialer: func(ctx context.Context, _ string) (net.Conn, error) {
		once.Do(func() { close(dialing) })
		select { // a connection that never completes
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-stuck:
			return nil, errRefused
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	local := &afterCPU{wait: dialing, CPUWorker: scheduler.CPUWorker{N: 1}}
	res, err := scheduler.Render(ctx, scene, scheduler.Options{TileSize: 8,
		Workers: []scheduler.Worker{local, NewCluster([]string{"w1:7000"}, bundle, opt)}})
	if err != nil {
		t.Fatal(err)
	}
	want := "worker w1:7000: it had not joined the render when the frame was done, so whether it would serve it is not known"
	if len(res.WorkerErrors) != 1 || res.WorkerErrors[0].Error() != want || !errors.Is(res.WorkerErrors[0], ErrNotJoined) {
		t.Errorf("worker errors %v, want one: %s (ErrNotJoined)", res.WorkerErrors, want)
	}

	for _, tc := range []struct {
		err       error
		want      string
		permanent bool
	}{
		{status.Error(codes.Unauthenticated, "missing or wrong token"), "worker w1:7000: it requires a token (missing or wrong token): set TRACE_TOKEN", true},
		{status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`), "worker w1:7000: cannot connect: connection refused", false},
		{status.Error(codes.Canceled, "context canceled"), want, false},
		{context.Canceled, want, false},
	} {
		err := notJoined("w1:7000", tc.err, &ClientOptions{}, false)
		var perr *PermanentError
		if !strings.HasPrefix(err.Error(), tc.want) || errors.As(err, &perr) != tc.permanent {
			t.Errorf("%v: %v (permanent %v), want %q (permanent %v)", tc.err, err, errors.As(err, &perr), tc.want, tc.permanent)
		}
	}
}

// afterCPU renders on this machine's cores once wait is closed.
type afterCPU struct {
	scheduler.CPUWorker
	wait <-chan struct{}
}

func (w *afterCPU) Run(ctx context.Context, scene *tracer.Scene, q scheduler.Leases, index int) error {
	select {
	case <-w.wait:
	case <-ctx.Done():
		return ctx.Err()
	}
	return w.CPUWorker.Run(ctx, scene, q, index)
}

// slowCPU renders tiles slowly on this machine, so that a render with it
// is still going when a worker's error arrives.
type slowCPU struct{ scheduler.CPUWorker }

func (w *slowCPU) Run(ctx context.Context, scene *tracer.Scene, q scheduler.Leases, index int) error {
	for {
		l, err := q.Next(ctx, index)
		if err != nil {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
			q.Release(l)
		case <-ctx.Done():
			q.Release(l)
			return nil
		}
	}
}

// TLS mistakes are permanent too, each with its remedy; a worker that
// cannot be reached is retried with backoff, each failure one plain line.
func TestTLSMistakesPermanent(t *testing.T) {
	dir := t.TempDir()
	pki(t, dir)
	f := func(name string) string { return filepath.Join(dir, name) }
	scfg, err := ServerTLS(f("server.pem"), f("server-key.pem"), f("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	tlsDial := tlsWorker(t, scfg, 1)
	n := newTestNet()
	n.start(t, "plain:7000", ServerOptions{Threads: 1})

	good, _ := ClientTLS(f("ca.pem"), f("client.pem"), f("client-key.pem"))
	noCert, _ := ClientTLS(f("ca.pem"), "", "")
	otherCA, _ := ClientTLS(f("client.pem"), f("client.pem"), f("client-key.pem"))
	bundle, scene := testScene(t, 16, 1)
	for _, tc := range []struct {
		name, target string
		opt          ClientOptions
		want         string
	}{
		{"untrusted", "w:7000", ClientOptions{TLS: otherCA, Dialer: tlsDial}, "its TLS certificate is not trusted (x509: certificate signed by unknown authority): give the authority that signed it with --tls-ca"},
		{"no client certificate", "w:7000", ClientOptions{TLS: noCert, Dialer: tlsDial}, "it requires a client certificate ("},
		{"another name", "v:7000", ClientOptions{TLS: good, Dialer: tlsDial}, "its TLS certificate is for another name (x509: certificate is valid for w, not v)"},
		{"not TLS", "plain:7000", ClientOptions{TLS: good, Dialer: n.dial}, "it does not speak TLS"},
	} {
		// Each fails the first try: a worker that wants a client
		// certificate says so in an alert, or, when its close wins
		// the race with the alert, the client knows from the
		// handshake that it asked for one (Cluster.conn).
		tc.opt.MaxFailures = 1
		// The client's log, to tell a failure that kept coming back
		// from a try that hung.
		var log syncBuffer
		tc.opt.Logger = slog.New(slog.NewTextHandler(&log, nil))
		_, err := render(t, scene, NewCluster([]string{tc.target}, bundle, tc.opt), false)
		var perr *PermanentError
		if !errors.As(err, &perr) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a permanent error with %q; the client's log:\n%s", tc.name, err, tc.want, log.String())
		}
	}

	var log syncBuffer
	opt := n.options()
	opt.MaxFailures, opt.Logger = 4, slog.New(slog.NewTextHandler(&log, nil))
	opt.MaxBackoff = 30 * time.Millisecond
	_, err = render(t, scene, NewCluster([]string{"nowhere:7000"}, bundle, opt), false)
	var perr *PermanentError
	if err == nil || errors.As(err, &perr) || !strings.Contains(err.Error(), "worker nowhere:7000: cannot connect: connection refused") ||
		!strings.Contains(err.Error(), "gave up after 4 failures") || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("unreachable: %v", err)
	}
	if got := strings.Count(log.String(), "worker failed; retrying"); got != 3 || strings.Contains(log.String(), "rpc error") {
		t.Errorf("unreachable: %d retries logged, want 3, each a plain line:\n%s", got, log.String())
	}
	// The waits double from Backoff (20 ms) and stop at MaxBackoff.
	if got := strings.Join(regexp.MustCompile(`\bin=(\S+)`).FindAllString(log.String(), -1), " "); got != "in=20ms in=30ms in=30ms" {
		t.Errorf("unreachable: waits %q, want in=20ms in=30ms in=30ms", got)
	}
}

// A worker that serves TLS, to a render that does not speak it, closes
// the connection before it answers, as a worker that crashed does: a TLS
// handshake tells them apart, and the render fails at once, with no
// retry, saying what to give; with or without a client certificate asked.
// A worker that closes plain connections is retried.
func TestTLSOnWorkerOnly(t *testing.T) {
	dir := t.TempDir()
	pki(t, dir)
	f := func(name string) string { return filepath.Join(dir, name) }
	mutual, err := ServerTLS(f("server.pem"), f("server-key.pem"), f("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	serverOnly, err := ServerTLS(f("server.pem"), f("server-key.pem"), "")
	if err != nil {
		t.Fatal(err)
	}
	bundle, scene := testScene(t, 16, 1)
	for _, tc := range []struct {
		name string
		dial func(context.Context, string) (net.Conn, error)
		want string
	}{
		{"mutual TLS", tlsWorker(t, mutual, 1), "worker w:7000: it serves TLS and requires a client certificate, and this render does not speak TLS: give the authority that signed its certificate with --tls-ca, and a client certificate with --tls-cert and --tls-key"},
		{"TLS", tlsWorker(t, serverOnly, 1), "worker w:7000: it serves TLS, and this render does not speak TLS: give the authority that signed its certificate with --tls-ca"},
	} {
		var log syncBuffer
		opt := ClientOptions{Dialer: tc.dial, MaxFailures: 5, Backoff: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&log, nil))}
		_, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, opt), false)
		var perr *PermanentError
		if !errors.As(err, &perr) || err.Error() != tc.want {
			t.Errorf("%s: %v, want the permanent error %q", tc.name, err, tc.want)
		}
		if strings.Contains(log.String(), "retrying") {
			t.Errorf("%s: retried:\n%s", tc.name, log.String())
		}
	}

	// A worker that closes every connection at once, without a word.
	l := bufconn.Listen(1 << 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	var log syncBuffer
	opt := ClientOptions{Dialer: func(ctx context.Context, _ string) (net.Conn, error) { return l.DialContext(ctx) },
		MaxFailures: 2, Backoff: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	_, err = render(t, scene, NewCluster([]string{"w:7000"}, bundle, opt), false)
	var perr *PermanentError
	if err == nil || errors.As(err, &perr) || !strings.Contains(err.Error(), "gave up after 2 failures") || strings.Contains(err.Error(), "TLS") {
		t.Errorf("a worker that closes connections: %v, want it retried, then given up, and no word of TLS", err)
	}
}

// explain's table: what each gRPC code means for a person, and which
// are permanent.
func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		err       error
		token     bool
		want      string
		permanent bool
	}{
		{status.Error(codes.Unauthenticated, "missing or wrong token"), false, "it requires a token", true},
		{status.Error(codes.Unauthenticated, "missing or wrong token"), true, "it refused the token", true},
		{status.Error(codes.PermissionDenied, "no"), false, "it denied this render (no)", true},
		{status.Error(codes.Unimplemented, "this worker serves no method \"/trace.Worker/New\""), false, "run the same version of trace on both sides", true},
		{status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`), false, "cannot connect: connection refused", false},
		{status.Error(codes.Unavailable, `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time"`), false, "has expired", true},
		{status.Error(codes.Unavailable, `connection error: desc = "error reading server preface: remote error: tls: bad certificate"`), false, "it refused this render's client certificate (tls: bad certificate)", true},
		{status.Error(codes.Unavailable, `connection error: desc = "error reading server preface: EOF"`), false, "the connection closed before the worker answered", false},
		{status.Error(codes.Unavailable, `connection error: desc = "error reading server preface: read tcp 127.0.0.1:50712->127.0.0.1:7422: read: connection reset by peer"`), false, "the connection closed before the worker answered", false},
		{status.Error(codes.ResourceExhausted, "try again later"), false, "ResourceExhausted: try again later", false},
		{errors.New("the worker ended the stream"), false, "the worker ended the stream", false},
		{status.Error(codes.Unavailable, `connection error: desc = "transport: failed to write client preface: io: read/write on closed pipe"`), true, "closed right after the TLS handshake (read/write on closed pipe): if the worker requires client certificates (--tls-client-ca), give --tls-cert and --tls-key", false},
		{errors.New("write tcp 127.0.0.1:47016->127.0.0.1:38651: write: broken pipe"), true, "closed right after the TLS handshake (broken pipe)", false},
	} {
		opt := ClientOptions{}
		if tc.token {
			opt.Token = "x"
		}
		if strings.Contains(tc.want, "TLS handshake") {
			opt.TLS = &tls.Config{} // TLS without a client certificate
		}
		msg, permanent := explain(tc.err, &opt, false)
		if !strings.Contains(msg, tc.want) || permanent != tc.permanent {
			t.Errorf("%v: %q permanent=%v, want %q permanent=%v", tc.err, msg, permanent, tc.want, tc.permanent)
		}
	}
	// A connection closed right after a handshake in which the worker
	// asked for a client certificate, and got none: it requires one.
	noCert := &ClientOptions{TLS: &tls.Config{}}
	for _, err := range []error{
		status.Error(codes.Unavailable, `connection error: desc = "transport: failed to write client preface: io: read/write on closed pipe"`),
		errors.New("write tcp 127.0.0.1:47016->127.0.0.1:38651: write: broken pipe"),
	} {
		msg, permanent := explain(err, noCert, true)
		if want := "it requires a client certificate (it asked for one in the TLS handshake; the connection then closed: "; !strings.Contains(msg, want) ||
			!strings.HasSuffix(msg, "): give --tls-cert and --tls-key") || !permanent {
			t.Errorf("%v, a certificate asked for: %q permanent=%v, want %q…, permanent", err, msg, permanent, want)
		}
		withCert := &ClientOptions{TLS: &tls.Config{Certificates: []tls.Certificate{{}}}}
		if msg, permanent := explain(err, withCert, true); permanent || strings.Contains(msg, "client certificate") {
			t.Errorf("%v, with a certificate: %q permanent=%v, want neither the hint nor permanent", err, msg, permanent)
		}
	}
}

// A job whose frame was finished is logged as done, whether the
// coordinator closed its stream or, as it does when its frame is done,
// cancelled it: not as "context canceled".
func TestJobClosedReason(t *testing.T) {
	var log syncBuffer
	n := newTestNet()
	n.start(t, "w1:7000", ServerOptions{Threads: 2, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	bundle, scene := testScene(t, 32, 2)
	if _, err := render(t, scene, NewCluster([]string{"w1:7000"}, bundle, n.options()), false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "job closed") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := log.String()
	if !strings.Contains(got, `reason="done: `) || strings.Contains(got, "context canceled") {
		t.Errorf("the worker's log of a finished job:\n%s", got)
	}
	for unanswered, want := range map[int64]string{
		3: "the coordinator hung up with 3 tiles unanswered (duplicates of tiles it had, or it stopped)",
		1: "the coordinator hung up with 1 tile unanswered (a duplicate of a tile it had, or it stopped)",
	} {
		if r := closeReason(context.Canceled, unanswered); r != want {
			t.Errorf("a job cut short with %d tiles unanswered: %q, want %q", unanswered, r, want)
		}
	}
}
