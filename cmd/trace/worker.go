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
	"strings"
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
       trace worker --gen-cert DIR [HOST...]

Serves tiles to 'trace render --workers' over gRPC. The scene arrives from
the coordinator once and is kept in a cache. SIGTERM or Ctrl-C drains: the
worker reports NOT_SERVING, finishes the tiles it is rendering, and exits.

A worker listening beyond this machine (any address but loopback) must
know its callers: it needs a token (--token or TRACE_TOKEN) or mutual TLS
(--tls-cert, --tls-key and --tls-client-ca), or --insecure to serve
anyone. TLS without a client authority encrypts but lets anyone in, so
alone it is refused; a token without TLS travels in clear text (a
warning). See docs/security.md.

--gen-cert DIR writes a self-signed certificate and key (DIR/cert.pem,
DIR/key.pem) for the HOSTs given (default: this machine's name,
localhost, 127.0.0.1 and ::1), valid for a year, and exits. The pair is
the worker's --tls-cert/--tls-key, its --tls-client-ca, and the
coordinators' --tls-ca and client --tls-cert/--tls-key: mutual TLS.

Uploads of scenes in flight hold at most --upload-bytes together and end
after --upload-idle without data or --upload-timeout in all; a render
stream whose coordinator takes no finished tile for --reply-timeout ends.

--metrics ADDR serves Prometheus metrics at http://ADDR/metrics: each job's
tiles, rays, samples and traffic, labelled by job and dropped when the job
ends, and the worker's threads and scene cache. :PORT means loopback
(127.0.0.1:PORT), as for 'trace render --serve'; 0.0.0.0:PORT serves all.

Flags:
`

func cmdWorker(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7000", "address to serve on (host:port; :PORT is every interface, unlike --metrics; port 0 picks one)")
	threads := fs.Int("threads", runtime.NumCPU(), "tiles rendered at once")
	gpus := fs.Int("gpus", 0, "CUDA GPUs to render with beside the CPU threads (needs a build with CUDA; --threads 0 for the GPUs alone)")
	token := fs.String("token", "", "shared secret every coordinator must send (default $TRACE_TOKEN)")
	cert := fs.String("tls-cert", "", "TLS certificate `file` (PEM)")
	key := fs.String("tls-key", "", "TLS private key `file` (PEM)")
	clientCA := fs.String("tls-client-ca", "", "require client certificates signed by this authority `file` (mutual TLS)")
	cacheBytes := bytesFlag(fs, "cache-bytes", remote.DefaultCacheBytes, "bytes of scenes kept for later jobs")
	maxScene := bytesFlag(fs, "max-scene-bytes", remote.DefaultMaxSceneBytes, "largest scene, with its files, accepted")
	uploadBytes := bytesFlag(fs, "upload-bytes", 0, "bytes all scene uploads in flight may hold together; past it an upload is refused (0: 2 GiB, or --max-scene-bytes if more)")
	uploadIdle := fs.Duration("upload-idle", remote.DefaultUploadIdle, "end a scene upload that sends no data for this long")
	uploadTimeout := fs.Duration("upload-timeout", remote.DefaultUploadTimeout, "end a scene upload not finished this long after it began")
	replyTimeout := fs.Duration("reply-timeout", remote.DefaultReplyTimeout, "end a render stream whose coordinator takes no finished tile for this long")
	genCert := fs.String("gen-cert", "", "write a self-signed cert.pem and key.pem into `DIR` for the HOST arguments, and exit")
	insecure := fs.Bool("insecure", false, "serve a non-loopback address to anyone: no token and no mutual TLS")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics (host:port; :PORT is loopback, 0.0.0.0:PORT all; empty: off)")
	fs.Usage = func() { fmt.Fprintf(stderr, "%s%s", workerUsage, fs.FlagUsages()) }
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *genCert != "" {
		return generateCert(*genCert, fs.Args(), stderr, *logFormat == "json")
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
	case *threads > maxThreads:
		return checkThreads(*threads)
	case *cacheBytes < 1 || *maxScene < 1:
		return usagef("--cache-bytes and --max-scene-bytes must be positive")
	case *uploadBytes < 0 || *uploadBytes > 0 && *uploadBytes < *maxScene:
		return usagef("--upload-bytes %d: must be 0 or at least --max-scene-bytes (%d), or the largest scene could never arrive", *uploadBytes, *maxScene)
	case *uploadIdle <= 0 || *uploadTimeout <= 0 || *replyTimeout <= 0:
		return usagef("--upload-idle, --upload-timeout and --reply-timeout must be positive")
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
	if err := checkExposure(*listen, host, *token != "", *cert != "", *clientCA != "", *insecure, log); err != nil {
		return err
	}
	if *metricsAddr != "" {
		if *metricsAddr, err = loopbackByDefault(*metricsAddr); err != nil {
			return usagef("--metrics %q: %v", *metricsAddr, err)
		}
	}
	var devices []kernels.Device
	if *gpus > 0 {
		devices, err = openDevices(*gpus, func(msg string) { log.Info(msg) })
		if err != nil {
			return err
		}
		defer func() {
			for _, d := range devices {
				// The kernel times of TRACE_GPU_TIMES, over every job the
				// worker ran.
				if timer, ok := d.(kernels.Timer); ok {
					if t, ok := timer.Times(); ok {
						log.Info("kernel times", "device", t.Device, "times", t.String())
					}
				}
				d.Close()
			}
		}()
	}
	procsForGPUs(*threads, len(devices))
	srv := remote.NewServer(remote.ServerOptions{
		Threads: *threads, GPUsOnly: *threads == 0, Devices: devices,
		Token: *token, CacheBytes: *cacheBytes, MaxSceneBytes: *maxScene,
		UploadBytes: *uploadBytes, UploadIdle: *uploadIdle, UploadTimeout: *uploadTimeout, ReplyTimeout: *replyTimeout,
		Logger: log,
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
	// Where it serves is printed whatever --log-level says (port 0 picks
	// the port); with --log-format json as a record, as every other line.
	announce := func(msg string, args ...any) { fmt.Fprintf(stderr, "trace worker: %s\n", msg) }
	if *logFormat == "json" {
		announce = slog.New(slog.NewJSONHandler(stderr, nil)).Info
	}
	announce(fmt.Sprintf("listening on %s with %s and %s", l.Addr(), plural(*threads, "thread"), plural(len(devices), "GPU")),
		"addr", l.Addr().String(), "threads", *threads, "gpus", len(devices))
	if metrics != nil {
		url := "http://" + metrics.Addr + "/metrics"
		announce("metrics on "+url, "url", url)
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

// checkExposure checks who can reach a worker listening at listen (host
// is its host part): beyond loopback it must authenticate its callers,
// with a token or mutual TLS (a client authority), unless insecure says
// to serve anyone. A token sent in clear text beyond loopback is a
// warning.
func checkExposure(listen, host string, token, cert, clientCA, insecure bool, log *slog.Logger) error {
	if isLoopback(host) || insecure {
		return nil
	}
	if !token && !clientCA {
		how := "no token and no TLS"
		if cert {
			how = "TLS without a client authority encrypts the traffic but lets anyone in"
		}
		return usagef("--listen %s: serving beyond this machine needs callers to prove who they are, and there is %s: give --token (or TRACE_TOKEN), or mutual TLS with --tls-client-ca (trace worker --gen-cert DIR makes a pair), or --insecure to serve anyone", listen, how)
	}
	if token && !cert {
		log.Warn("the token travels in clear text: anyone on the network path can read it and use this worker; add --tls-cert and --tls-key", "listen", listen)
	}
	return nil
}

// loopbackByDefault returns addr (host:port) with an empty host made
// loopback: ":9100" is "127.0.0.1:9100", as for render --serve.
func loopbackByDefault(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// generateCert is --gen-cert: a self-signed pair in dir for hosts, or
// for this machine when none are given. With json, what it wrote is one
// record rather than lines with the flags to use.
func generateCert(dir string, hosts []string, stderr io.Writer, json bool) error {
	if len(hosts) == 0 {
		if name, err := os.Hostname(); err == nil && name != "" {
			hosts = append(hosts, name)
		}
		hosts = append(hosts, "localhost", "127.0.0.1", "::1")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{fmt.Errorf("--gen-cert: %w", err)}
	}
	cert, key, err := remote.GenerateCert(dir, hosts, time.Now())
	if err != nil {
		return usageError{fmt.Errorf("--gen-cert: %w", err)}
	}
	days := int(remote.CertValidity.Hours() / 24)
	if json {
		slog.New(slog.NewJSONHandler(stderr, nil)).Info(fmt.Sprintf("wrote %s and %s", cert, key),
			"cert", cert, "key", key, "hosts", hosts, "days", days)
		return nil
	}
	fmt.Fprintf(stderr, "trace worker: wrote %s and %s for %s, valid for %d days\n", cert, key, strings.Join(hosts, ", "), days)
	fmt.Fprintf(stderr, "  worker:      trace worker --listen 0.0.0.0:7000 --tls-cert %s --tls-key %s --tls-client-ca %s\n", cert, key, cert)
	fmt.Fprintf(stderr, "  coordinator: trace render ... --tls-ca %s --tls-cert %s --tls-key %s\n", cert, cert, key)
	return nil
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
