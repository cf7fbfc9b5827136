package remote

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// tileSecondsBuckets are the upper bounds, in seconds, of the tile render
// time histogram: 1 ms, doubling up to about 33 s.
var tileSecondsBuckets = prometheus.ExponentialBuckets(0.001, 2, 16)

// The worker's metrics. Those labelled by job count one job's work on
// this worker, from its first call (HasBundle) until its last render
// stream ends; then its series disappear, so that the label set stays
// bounded. A job has series only once it has opened a render stream, and
// at most ServerOptions.MaxJobSeries jobs have them at once (the others
// count in trace_worker_untracked_jobs_total); a job that never opens a
// render stream has none, and is forgotten after a minute without calls.
var (
	descTiles = prometheus.NewDesc("trace_worker_tiles_total",
		"Tiles this worker rendered for the job, by result: ok, or error (the tracer failed or the job was cancelled mid-tile).",
		[]string{"job", "result"}, nil)
	descTileSeconds = prometheus.NewDesc("trace_worker_tile_duration_seconds",
		"Time this worker took to render each of the job's successful tiles, in seconds.",
		[]string{"job"}, nil)
	descRays = prometheus.NewDesc("trace_worker_rays_total",
		"Ray-scene queries (camera, bounce and shadow rays) this worker traced for the job.",
		[]string{"job"}, nil)
	descSamples = prometheus.NewDesc("trace_worker_samples_total",
		"Pixel samples this worker rendered for the job.",
		[]string{"job"}, nil)
	descBusy = prometheus.NewDesc("trace_worker_busy_seconds_total",
		"Thread-seconds this worker spent rendering the job's tiles, failed ones included; divided by trace_worker_threads, the share of the worker the job used.",
		[]string{"job"}, nil)
	descCacheHits = prometheus.NewDesc("trace_worker_scene_cache_hits_total",
		"The job's scene bundle checks (HasBundle) that found the bundle in this worker's cache.",
		[]string{"job"}, nil)
	descCacheMisses = prometheus.NewDesc("trace_worker_scene_cache_misses_total",
		"The job's scene bundle checks (HasBundle) that did not find the bundle, so that the coordinator uploaded it.",
		[]string{"job"}, nil)
	descReceived = prometheus.NewDesc("trace_worker_received_bytes_total",
		"Bytes of scene bundle this worker received from the job's coordinator (uncompressed).",
		[]string{"job"}, nil)
	descSent = prometheus.NewDesc("trace_worker_sent_bytes_total",
		"Bytes of finished tiles this worker sent to the job's coordinator (protobuf messages, before compression and framing).",
		[]string{"job"}, nil)

	descJobs = prometheus.NewDesc("trace_worker_jobs",
		"Jobs with a render stream open on this worker.", nil, nil)
	descThreads = prometheus.NewDesc("trace_worker_threads",
		"Tiles this worker renders at once, over all jobs (trace worker --threads).", nil, nil)
	descCacheBytes = prometheus.NewDesc("trace_worker_scene_cache_bytes",
		"Bytes of scene bundles in this worker's cache.", nil, nil)
	descCacheBundles = prometheus.NewDesc("trace_worker_scene_cache_bundles",
		"Scene bundles in this worker's cache.", nil, nil)
	descGPUs = prometheus.NewDesc("trace_worker_gpus",
		"GPUs this worker renders on (trace worker --gpus).", nil, nil)
	descGPUBatches = prometheus.NewDesc("trace_worker_gpu_batches_total",
		"Batches of tiles this worker's GPUs rendered, one kernel launch each, over all jobs.", nil, nil)
	descUploadBytes = prometheus.NewDesc("trace_worker_upload_bytes",
		"Bytes held by the scene bundle uploads in flight on this worker, against its --upload-bytes budget.", nil, nil)
	descUntracked = prometheus.NewDesc("trace_worker_untracked_jobs_total",
		"Render streams whose job got no series of its own because the most jobs this worker gives series at once (64) already had them.", nil, nil)
)

// Collector returns a Prometheus collector of the worker's metrics:
// per-job counters labelled by job, and worker-wide gauges. Register it
// with a registry and serve that, for example with promhttp.HandlerFor.
func (s *Server) Collector() prometheus.Collector { return workerCollector{s} }

// workerCollector reads a Server's counters at each collection.
type workerCollector struct{ s *Server }

// Describe implements prometheus.Collector.
func (workerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descTiles, descTileSeconds, descRays, descSamples, descBusy, descCacheHits, descCacheMisses,
		descReceived, descSent, descJobs, descThreads, descCacheBytes, descCacheBundles, descGPUs, descGPUBatches,
		descUploadBytes, descUntracked,
	} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c workerCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	s.jobsMu.Lock()
	s.sweepJobs()
	jobs := make([]*jobStats, 0, len(s.byJob))
	streaming := 0
	for _, j := range s.byJob {
		jobs = append(jobs, j)
		if j.streams > 0 {
			streaming++
		}
	}
	s.jobsMu.Unlock()

	bundles, bytes := s.cache.size()
	gauge := prometheus.GaugeValue
	send(ch, descJobs, gauge, float64(streaming))
	send(ch, descThreads, gauge, float64(s.opt.Threads))
	send(ch, descCacheBytes, gauge, float64(bytes))
	send(ch, descCacheBundles, gauge, float64(bundles))
	send(ch, descGPUs, gauge, float64(len(s.devices)))
	send(ch, descGPUBatches, prometheus.CounterValue, float64(s.gpuBatches.Load()))
	up, _ := s.uploads.inUse()
	send(ch, descUploadBytes, gauge, float64(up))
	send(ch, descUntracked, prometheus.CounterValue, float64(s.untracked.Load()))
	for _, j := range jobs {
		j.collect(ch)
	}
}

// collect sends the job's metrics.
func (j *jobStats) collect(ch chan<- prometheus.Metric) {
	counter := prometheus.CounterValue
	send(ch, descTiles, counter, float64(j.tilesOK.Load()), j.id, "ok")
	send(ch, descTiles, counter, float64(j.tilesFailed.Load()), j.id, "error")
	send(ch, descRays, counter, float64(j.rays.Load()), j.id)
	send(ch, descSamples, counter, float64(j.samples.Load()), j.id)
	send(ch, descBusy, counter, time.Duration(j.busy.Load()).Seconds(), j.id)
	send(ch, descCacheHits, counter, float64(j.cacheHits.Load()), j.id)
	send(ch, descCacheMisses, counter, float64(j.cacheMisses.Load()), j.id)
	send(ch, descReceived, counter, float64(j.bytesReceived.Load()), j.id)
	send(ch, descSent, counter, float64(j.bytesSent.Load()), j.id)

	// The count is the buckets' sum, so that it always equals the +Inf
	// bucket even while tiles are being counted.
	var count uint64
	buckets := make(map[float64]uint64, len(tileSecondsBuckets))
	for i, le := range tileSecondsBuckets {
		count += j.tileBuckets[i].Load()
		buckets[le] = count
	}
	count += j.tileBuckets[len(tileSecondsBuckets)].Load()
	sum := time.Duration(j.tileNanos.Load()).Seconds()
	m, err := prometheus.NewConstHistogram(descTileSeconds, count, sum, buckets, j.id)
	if err != nil {
		m = prometheus.NewInvalidMetric(descTileSeconds, err)
	}
	ch <- m
}

// send sends one constant metric, or an invalid one that reports why it
// could not be made.
func send(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		m = prometheus.NewInvalidMetric(d, err)
	}
	ch <- m
}
