package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/scheduler/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

const workerUsage = `Usage: trace worker [--listen ADDR] [flags]

Serves tiles to 'trace render --workers' over gRPC. The scene arrives from
the coordinator once and is kept in a cache. SIGTERM or Ctrl-C drains: the
worker reports NOT_SERVING, finishes the tiles it is rendering, and exits.

A worker listening beyond this machine (any address but loopback) needs a
token (--token or TRACE_TOKEN), TLS, or --insecure.

--metrics ADDR serves Prometheus metrics at http://ADDR/metrics: each job's
tiles, rays, samples and traffic, labelled by job and dropped when the job
ends, and the worker's threads and scene cache.

Flags:
`

func cmdWorker(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7000", "address to serve on (host:port; port 0 picks one)")
	threads := fs.Int("threads", runtime.NumCPU(), "tiles rendered at once")
	gpus := fs.Int("gpus", 0, "CUDA GPUs to render with beside the CPU threads (needs a build with CUDA; --threads 0 for the GPUs alone)")
	token := fs.String("token", "", "shared secret every coordinator must send (default $TRACE_TOKEN)")
	cert := fs.String("tls-cert", "", "TLS certificate `file` (PEM)")
	key := fs.String("tls-key", "", "TLS private key `file` (PEM)")
	clientCA := fs.String("tls-client-ca", "", "require client certificates signed by this authority `file` (mutual TLS)")
	cacheBytes := fs.Int64("cache-bytes", remote.DefaultCacheBytes, "bytes of scenes kept for later jobs")
	maxScene := fs.Int64("max-scene-bytes", remote.DefaultMaxSceneBytes, "largest scene, with its files, accepted")
	insecure := fs.Bool("insecure", false, "allow a non-loopback address without a token or TLS")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (host:port; empty: off)")
	fs.Usage = func() { fmt.Fprintf(stderr, "%s%s", workerUsage, fs.FlagUsages()) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *token == "" {
		*token = os.Getenv("TRACE_TOKEN")
	}
	switch {
	case fs.NArg() != 0:
		return usagef("worker: unexpected argument %q", fs.Arg(0))
	case *gpus < 0:
		return usagef("--gpus %d: must be 0 or more", *gpus)
	case *threads < 0 || *threads == 0 && *gpus == 0:
		return usagef("--threads %d: must be at least 1, or 0 with --gpus", *threads)
	case *cacheBytes < 1 || *maxScene < 1:
		return usagef("--cache-bytes and --max-scene-bytes must be positive")
	case (*clientCA != "" || *key != "") && *cert == "":
		return usagef("--tls-client-ca and --tls-key need --tls-cert")
	}
	log, err := newLogger(stderr, *logFormat, *logLevel)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return usagef("--listen %q: %v", *listen, err)
	}
	if !isLoopback(host) && *token == "" && *cert == "" && !*insecure {
		return usagef("--listen %s: serving beyond this machine needs --token (or TRACE_TOKEN), --tls-cert, or --insecure", *listen)
	}
	if *metricsAddr != "" {
		if _, _, err := net.SplitHostPort(*metricsAddr); err != nil {
			return usagef("--metrics %q: %v", *metricsAddr, err)
		}
	}
	var devices []kernels.Device
	if *gpus > 0 {
		devices, err = openDevices(*gpus)
		if err != nil {
			return err
		}
		defer func() {
			for _, d := range devices {
				d.Close()
			}
		}()
	}
	srv := remote.NewServer(remote.ServerOptions{
		Threads: *threads, GPUsOnly: *threads == 0, Devices: devices,
		Token: *token, CacheBytes: *cacheBytes, MaxSceneBytes: *maxScene, Logger: log,
	})
	opts := srv.GRPCOptions()
	if *cert != "" {
		cfg, err := remote.ServerTLS(*cert, *key, *clientCA)
		if err != nil {
			return usageError{err}
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return usageError{fmt.Errorf("--listen: %w", err)}
	}
	var metrics *http.Server
	if *metricsAddr != "" {
		ml, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			l.Close()
			return usageError{fmt.Errorf("--metrics: %w", err)}
		}
		metrics = metricsServer(srv, ml.Addr().String())
		defer metrics.Close()
		go func() {
			if err := metrics.Serve(ml); err != http.ErrServerClosed {
				log.Error("serving metrics", "err", err)
			}
		}()
	}
	g := grpc.NewServer(opts...)
	srv.Register(g)
	fmt.Fprintf(stderr, "trace worker: listening on %s with %d threads and %d GPUs\n", l.Addr(), *threads, len(devices))
	if metrics != nil {
		fmt.Fprintf(stderr, "trace worker: metrics on http://%s/metrics\n", metrics.Addr)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- g.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("draining: finishing the tiles in flight")
	srv.Drain()
	g.GracefulStop()
	if metrics != nil {
		// Scrapes during the drain saw the last tiles; now stop.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		metrics.Shutdown(sctx)
		cancel()
	}
	st := srv.Stats()
	log.Info("stopped", "tiles", st.TilesRendered, "jobs", st.Jobs)
	return nil
}

// metricsServer returns the HTTP server of --metrics at addr: the worker's
// metrics, with the Go runtime's and the process's, at /metrics.
func metricsServer(srv *remote.Server, addr string) *http.Server {
	reg := prometheus.NewRegistry()
	reg.MustRegister(srv.Collector(), collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}

// isLoopback says whether a listen host stays on this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newLogger makes the slog logger of --log-format and --log-level.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", level)
	}
	ho := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, ho)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	}
	return nil, usagef("--log-format %q: want text or json", format)
}
