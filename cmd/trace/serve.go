package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote"
	"github.com/tracerender/trace/scheduler/watch"
)

// liveView is the web view of --serve.
type liveView struct {
	*watch.Server
	hs     *http.Server
	linger time.Duration
	url    string
	served chan struct{}
}

// startView listens on addr and serves the render's view there.
func startView(addr string, linger time.Duration, opt watch.Options, con *console) (*liveView, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("--serve %q: want host:port or :port", addr)
	}
	if host == "" {
		host = "127.0.0.1" // loopback unless a host is named (0.0.0.0 for all)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, usageError{fmt.Errorf("--serve: %w", err)}
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		opt.LoopbackOnly = true // no DNS rebinding of a loopback view
	}
	v := &liveView{Server: watch.New(opt), linger: linger, served: make(chan struct{})}
	v.hs = &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	go func() {
		defer close(v.served)
		v.hs.Serve(l)
	}()
	v.url = fmt.Sprintf("http://%s/", l.Addr())
	con.info("watch the render at "+v.url, "url", v.url)
	return v, nil
}

// finish tells the viewers how the render ended, keeps serving for the
// linger time (or until ctx ends), saying until when, then stops, giving
// open pages a second to receive the end. A render that was interrupted
// (ctx ended) does not linger.
func (v *liveView) finish(ctx context.Context, err error, con *console) {
	v.End(err)
	if v.linger > 0 && ctx.Err() == nil {
		con.info(lingerNote(v.url, v.linger, time.Now()), "until", time.Now().Add(v.linger).Format(time.RFC3339))
		select {
		case <-time.After(v.linger):
		case <-ctx.Done():
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	v.hs.Shutdown(sctx)
	<-v.served
}

// end ends the view with the render's outcome err (see finish) and
// returns err. With a linger time, err is reported first, so that the user
// reads what went wrong while the view lingers. A nil view (no --serve)
// just returns err.
func (v *liveView) end(ctx context.Context, err error, con *console) error {
	if v == nil {
		return err
	}
	if err != nil && v.linger > 0 {
		err = con.reported(err)
	}
	v.finish(ctx, err, con)
	return err
}

// viewCollectors are the metrics of workers beyond the render's progress:
// GPU batches and the bytes a cluster sent and received.
func viewCollectors(workers []scheduler.Worker) []prometheus.Collector {
	var cs []prometheus.Collector
	for _, w := range workers {
		switch w := w.(type) {
		case *scheduler.GPUWorker:
			cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "trace_gpu_batches_total", Help: "Batches of tiles a GPU rendered, one kernel launch each.",
				ConstLabels: prometheus.Labels{"worker": w.Name()},
			}, func() float64 { return float64(w.Batches()) }))
		case *remote.Cluster:
			cs = append(cs,
				prometheus.NewCounterFunc(prometheus.CounterOpts{
					Name: "trace_remote_sent_bytes_total", Help: "Bytes sent to remote workers, on the wire.",
				}, func() float64 { return float64(w.Stats().BytesSent) }),
				prometheus.NewCounterFunc(prometheus.CounterOpts{
					Name: "trace_remote_received_bytes_total", Help: "Bytes received from remote workers, on the wire.",
				}, func() float64 { return float64(w.Stats().BytesReceived) }))
		}
	}
	return cs
}
