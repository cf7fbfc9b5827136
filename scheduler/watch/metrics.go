package watch

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracerender/trace/scheduler"
)

// metrics is the coordinator's Prometheus view of one render: counters
// read from the latest progress at each scrape, and a histogram of tile
// latency fed tile by tile.
type metrics struct {
	s        *Server
	duration *prometheus.HistogramVec

	tiles, retries, dropped, rays, samples, busy, tilesLeft, elapsed, pixels *prometheus.Desc
}

func newMetrics(s *Server) *metrics {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &metrics{
		s: s,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "trace_tile_duration_seconds",
			Help:    "Time from a tile's lease to its accepted result, by worker.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"worker", "kind"}),
		tiles:     d("trace_tiles_done_total", "Tiles accepted from each worker.", "worker", "kind"),
		retries:   d("trace_tile_retries_total", "Leases that failed and went back to the queue, by worker.", "worker", "kind"),
		dropped:   d("trace_tiles_dropped_total", "Duplicate results that lost the race to another worker, by worker.", "worker", "kind"),
		rays:      d("trace_rays_total", "Ray-scene queries traced (camera, bounce and shadow rays), by worker.", "worker", "kind"),
		samples:   d("trace_samples_total", "Pixel samples traced, by worker.", "worker", "kind"),
		busy:      d("trace_worker_busy_seconds_total", "Summed lease time of each worker's tiles.", "worker", "kind"),
		tilesLeft: d("trace_tiles", "Tiles of the frame by state: done or remaining (pending or in flight).", "state"),
		elapsed:   d("trace_render_elapsed_seconds", "Time since the render started."),
		pixels:    d("trace_frame_pixels", "Pixels in the frame."),
	}
}

// tile observes one accepted tile.
func (m *metrics) tile(d scheduler.TileDone, worker string) {
	m.duration.WithLabelValues(worker, m.s.workerKind(d.Worker)).Observe(d.Busy.Seconds())
}

func (s *Server) workerKind(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < len(s.last.Workers) {
		return string(s.last.Workers[i].Kind)
	}
	return ""
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	m.duration.Describe(ch)
	for _, d := range []*prometheus.Desc{m.tiles, m.retries, m.dropped, m.rays, m.samples, m.busy, m.tilesLeft, m.elapsed, m.pixels} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.duration.Collect(ch)
	m.s.mu.Lock()
	p := m.s.last
	total := m.s.opt.Tiles
	m.s.mu.Unlock()
	c := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, w := range p.Workers {
		if !w.Kind.Renders() {
			continue
		}
		kind := string(w.Kind)
		c(m.tiles, float64(w.Tiles), w.Name, kind)
		c(m.retries, float64(w.Retries), w.Name, kind)
		c(m.dropped, float64(w.Dropped), w.Name, kind)
		c(m.rays, float64(w.Stats.Rays), w.Name, kind)
		c(m.samples, float64(w.Stats.Samples), w.Name, kind)
		c(m.busy, w.Busy.Seconds(), w.Name, kind)
	}
	g(m.tilesLeft, float64(p.TilesDone), "done")
	g(m.tilesLeft, float64(total-p.TilesDone), "remaining")
	g(m.elapsed, p.Elapsed.Seconds())
	g(m.pixels, float64(m.s.opt.Width*m.s.opt.Height))
}
