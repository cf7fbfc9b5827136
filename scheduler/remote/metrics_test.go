package remote

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

// workerMetrics documents the worker's metrics: their types and labels.
var workerMetrics = map[string]struct {
	typ    dto.MetricType
	labels string // sorted, comma-separated
}{
	"trace_worker_tiles_total":              {dto.MetricType_COUNTER, "job,result"},
	"trace_worker_tile_duration_seconds":    {dto.MetricType_HISTOGRAM, "job"},
	"trace_worker_rays_total":               {dto.MetricType_COUNTER, "job"},
	"trace_worker_samples_total":            {dto.MetricType_COUNTER, "job"},
	"trace_worker_busy_seconds_total":       {dto.MetricType_COUNTER, "job"},
	"trace_worker_scene_cache_hits_total":   {dto.MetricType_COUNTER, "job"},
	"trace_worker_scene_cache_misses_total": {dto.MetricType_COUNTER, "job"},
	"trace_worker_received_bytes_total":     {dto.MetricType_COUNTER, "job"},
	"trace_worker_sent_bytes_total":         {dto.MetricType_COUNTER, "job"},
	"trace_worker_jobs":                     {dto.MetricType_GAUGE, ""},
	"trace_worker_threads":                  {dto.MetricType_GAUGE, ""},
	"trace_worker_scene_cache_bytes":        {dto.MetricType_GAUGE, ""},
	"trace_worker_scene_cache_bundles":      {dto.MetricType_GAUGE, ""},
	"trace_worker_gpus":                     {dto.MetricType_GAUGE, ""},
	"trace_worker_gpu_batches_total":        {dto.MetricType_COUNTER, ""},
	"trace_worker_upload_bytes":             {dto.MetricType_GAUGE, ""},
	"trace_worker_untracked_jobs_total":     {dto.MetricType_COUNTER, ""},
}

// metricsOf gathers a worker's metrics through a pedantic registry, which
// checks them against their descriptions.
func metricsOf(t testing.TB, s *Server) metricSet {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(s.Collector()); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return metricSet(mfs)
}

// metricSet is a gathered set of metric families.
type metricSet []*dto.MetricFamily

// value returns the value of the sample of metric name whose labels
// include labels (name=value pairs): a counter's or gauge's value, a
// histogram's count.
func (ms metricSet) value(name string, labels ...string) (float64, bool) {
	for _, mf := range ms {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.Metric {
			for i := 0; i < len(labels); i += 2 {
				found := false
				for _, lp := range m.Label {
					found = found || lp.GetName() == labels[i] && lp.GetValue() == labels[i+1]
				}
				if !found {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// jobs returns the job labels in the set.
func (ms metricSet) jobs() map[string]bool {
	out := map[string]bool{}
	for _, mf := range ms {
		for _, m := range mf.Metric {
			for _, lp := range m.Label {
				if lp.GetName() == "job" {
					out[lp.GetValue()] = true
				}
			}
		}
	}
	return out
}

// One job's metrics count what the worker did for it, follow the names,
// types and labels documented, and disappear when the job ends, while
// the worker-wide gauges stay.
func TestJobMetrics(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 2})
	bundle, scene := testScene(t, 32, 2) // 16 tiles of 8×8
	c := NewCluster([]string{"w:7000"}, bundle, n.options())
	var (
		mu       sync.Mutex
		atEnd    metricSet // when the job's render stream has rendered its tiles
		problems []promlint.Problem
		lintErr  error
	)
	w.srv.streamEnding = func(string) {
		ms := metricsOf(t, w.srv)
		p, err := testutil.CollectAndLint(w.srv.Collector())
		mu.Lock()
		atEnd, problems, lintErr = ms, p, err
		mu.Unlock()
	}
	res, err := render(t, scene, c, false)
	if err != nil {
		t.Fatal(err)
	}
	after := jobsEnded(t, w)
	mu.Lock()
	defer mu.Unlock()
	if atEnd == nil {
		t.Fatal("the render stream's end was not seen")
	}
	var share scheduler.WorkerProgress
	for _, wp := range res.Progress.Workers {
		if wp.Name == "w:7000" {
			share = wp
		}
	}
	if share.Tiles != 16 {
		t.Fatalf("the worker rendered %d tiles, want 16", share.Tiles)
	}

	for name, want := range workerMetrics {
		found := false
		for _, mf := range atEnd {
			if mf.GetName() != name {
				continue
			}
			found = true
			if mf.GetType() != want.typ {
				t.Errorf("%s is a %v, want %v", name, mf.GetType(), want.typ)
			}
			if len(mf.GetHelp()) < 20 {
				t.Errorf("%s: help %q says too little", name, mf.GetHelp())
			}
			for _, m := range mf.Metric {
				var names []string
				for _, lp := range m.Label {
					names = append(names, lp.GetName())
				}
				if got := strings.Join(names, ","); got != want.labels {
					t.Errorf("%s has labels %q, want %q", name, got, want.labels)
				}
			}
		}
		if !found {
			t.Errorf("no %s while the job runs", name)
		}
	}
	if len(atEnd) != len(workerMetrics) {
		t.Errorf("%d metric families, want the %d documented", len(atEnd), len(workerMetrics))
	}
	if lintErr != nil {
		t.Fatal(lintErr)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}

	job := c.job
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"trace_worker_tiles_total", []string{"job", job, "result", "ok"}, float64(share.Tiles)},
		{"trace_worker_tiles_total", []string{"job", job, "result", "error"}, 0},
		{"trace_worker_tile_duration_seconds", []string{"job", job}, float64(share.Tiles)},
		{"trace_worker_rays_total", []string{"job", job}, float64(share.Stats.Rays)},
		{"trace_worker_samples_total", []string{"job", job}, float64(share.Stats.Samples)},
		{"trace_worker_scene_cache_hits_total", []string{"job", job}, 0},
		{"trace_worker_scene_cache_misses_total", []string{"job", job}, 1},
		{"trace_worker_received_bytes_total", []string{"job", job}, float64(len(bundle.Data))},
		{"trace_worker_jobs", nil, 1},
		{"trace_worker_threads", nil, 2},
		{"trace_worker_scene_cache_bundles", nil, 1},
		{"trace_worker_scene_cache_bytes", nil, float64(len(bundle.Data))},
	}
	for _, tc := range tests {
		if got, ok := atEnd.value(tc.name, tc.labels...); !ok || got != tc.want {
			t.Errorf("%s%v = %v (found %v), want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	if got, _ := atEnd.value("trace_worker_sent_bytes_total", "job", job); got < 16*8*8*12 {
		t.Errorf("sent bytes %v, want at least the %d bytes of pixels", got, 16*8*8*12)
	}
	if got, _ := atEnd.value("trace_worker_busy_seconds_total", "job", job); got <= 0 {
		t.Errorf("busy seconds %v, want some", got)
	}

	for name, want := range map[string]float64{"trace_worker_jobs": 0, "trace_worker_threads": 2, "trace_worker_scene_cache_bundles": 1} {
		if got, ok := after.value(name); !ok || got != want {
			t.Errorf("after the job: %s = %v (found %v), want %v", name, got, ok, want)
		}
	}
}

// Two coordinators rendering at once on the same workers each see only
// their own job's work.
func TestJobMetricsApart(t *testing.T) {
	n := newTestNet()
	workers := []*testWorker{
		n.start(t, "w1:7000", ServerOptions{Threads: 2}),
		n.start(t, "w2:7000", ServerOptions{Threads: 1}),
	}
	bundle, scene := testScene(t, 48, 2) // 36 tiles of 8×8
	var (
		mu    sync.Mutex
		tiles = map[string]float64{} // by worker and job
		open  = map[string]float64{} // trace_worker_jobs, by worker and job
	)
	for _, w := range workers {
		// A stream's end waits until both jobs have opened theirs on this
		// worker, so that the jobs overlap there.
		w.srv.streamEnding = func(job string) {
			for deadline := time.Now().Add(20 * time.Second); w.srv.Stats().Jobs < 2 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			ms := metricsOf(t, w.srv)
			v, _ := ms.value("trace_worker_tiles_total", "job", job, "result", "ok")
			jobs, _ := ms.value("trace_worker_jobs")
			mu.Lock()
			tiles[w.addr+" "+job] = v
			open[w.addr+" "+job] = jobs
			mu.Unlock()
		}
	}
	addrs := []string{"w1:7000", "w2:7000"}
	clusters := []*Cluster{NewCluster(addrs, bundle, n.options()), NewCluster(addrs, bundle, n.options())}
	results := make([]*scheduler.Result, len(clusters))
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i, c := range clusters {
		wg.Go(func() { results[i], errs[i] = render(t, scene, c, false) })
	}
	wg.Wait()
	for _, w := range workers {
		jobsEnded(t, w)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, c := range clusters {
		if errs[i] != nil {
			t.Fatalf("job %d: %v", i, errs[i])
		}
		shares, _ := workerShares(results[i])
		for _, w := range workers {
			key := w.addr + " " + c.job
			if got, want := tiles[key], float64(shares[w.addr]); got != want {
				t.Errorf("job %d on %s: %v tiles in its metrics, want the %v its render got from there", i, w.addr, got, want)
			}
		}
	}
	for _, w := range workers {
		// The stream that ended first saw both jobs open.
		if most := max(open[w.addr+" "+clusters[0].job], open[w.addr+" "+clusters[1].job]); most != 2 {
			t.Errorf("%s: trace_worker_jobs was at most %v as the streams ended, want 2 (the jobs did not overlap)", w.addr, most)
		}
	}
}

// jobsEnded waits until a worker's render streams have ended, which can
// be a little after the render returns (the coordinator cancels them),
// and returns its metrics then, with no series of any job.
func jobsEnded(t *testing.T, w *testWorker) metricSet {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms := metricsOf(t, w.srv)
		jobs := ms.jobs()
		if len(jobs) == 0 {
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: series of jobs %v remain 10 s after the render", w.addr, jobs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A job that only asks for a bundle has no series, and is forgotten
// after a minute idle.
func TestIdleJobForgotten(t *testing.T) {
	n := newTestNet()
	w := n.start(t, "w:7000", ServerOptions{Threads: 1})
	var clock atomic.Int64 // nanoseconds
	clock.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	w.srv.now = func() time.Time { return time.Unix(0, clock.Load()) }
	c := n.client(t, "w:7000")
	b := encoded(t, tinyScene)
	ctx := metadata.AppendToOutgoingContext(context.Background(), jobMetadataKey, "idle")
	if _, err := c.HasBundle(ctx, &pb.BundleRef{Sha256: b.Hash[:]}); err != nil {
		t.Fatal(err)
	}
	pending := func() *jobStats {
		metricsOf(t, w.srv) // a collection sweeps the idle jobs
		w.srv.jobsMu.Lock()
		defer w.srv.jobsMu.Unlock()
		return w.srv.pending["idle"]
	}
	if jobs := metricsOf(t, w.srv).jobs(); len(jobs) != 0 {
		t.Errorf("a job with no render stream has series: %v", jobs)
	}
	if j := pending(); j == nil || j.cacheMisses.Load() != 1 {
		t.Fatalf("the job's HasBundle call was not counted: %v", j)
	}
	clock.Add(int64(jobIdle - time.Second))
	if pending() == nil {
		t.Fatal("the job was forgotten before a minute idle")
	}
	clock.Add(int64(time.Second))
	if j := pending(); j != nil {
		t.Errorf("the job is remembered after a minute idle")
	}
}

// A render stream's job is the one in its metadata; the Open message may
// repeat it but not contradict it, and a job ID must fit in a label.
func TestRenderJobChecked(t *testing.T) {
	n := newTestNet()
	n.start(t, "w:7000", ServerOptions{Threads: 1})
	c := n.client(t, "w:7000")
	good := encoded(t, tinyScene)
	if err := put(t, c, &pb.BundleChunk{Sha256: good.Hash[:], Size: int64(len(good.Data)), Data: good.Data}); err != nil {
		t.Fatal(err)
	}
	set := wireSettings(tracer.Settings{Width: 16, Height: 16, Samples: 1, MaxDepth: 4})
	tests := []struct {
		name          string
		metadata, job string
		code          codes.Code
		words         string
	}{
		{"agree", "a1", "a1", codes.OK, ""},
		{"metadata only", "a1", "", codes.OK, ""},
		{"open only", "", "a1", codes.OK, ""},
		{"disagree", "a1", "b2", codes.InvalidArgument, "differ"},
		{"too long", "", strings.Repeat("j", maxJobBytes+1), codes.InvalidArgument, "job ID"},
		{"control character", "", "a\x00b", codes.InvalidArgument, "job ID"},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if tc.metadata != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, jobMetadataKey, tc.metadata)
		}
		s, err := c.Render(ctx)
		if err != nil {
			t.Fatal(err)
		}
		open := &pb.RenderRequest{Kind: &pb.RenderRequest_Open{Open: &pb.Open{Job: tc.job, BundleSha256: good.Hash[:], Settings: set, PixelVersion: tracer.PixelVersion}}}
		if err := s.Send(open); err != nil {
			t.Fatal(err)
		}
		s.CloseSend()
		_, err = finish(s)
		cancel()
		if tc.code == codes.OK {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, tc.name, err, tc.code, tc.words)
	}
}
