// Package watch serves a render's live view: a web page on which the image
// fills in tile by tile with a table of the workers, progress, elapsed time
// and ETA; the server-sent event stream behind it; the image so far as a
// PNG; and Prometheus metrics of the render.
package watch

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

//go:embed page.html
var page []byte

// progressEvery is the shortest time between two progress events.
const progressEvery = 200 * time.Millisecond

// viewerBuffer is how many events a viewer may fall behind before it is
// dropped; its browser reconnects and gets the image so far again.
const viewerBuffer = 4096

// Options describe the render being watched.
type Options struct {
	Scene  string       // the scene file's name, for the page's title
	Output string       // the output file, once written
	Film   *tracer.Film // how linear pixels become the preview's sRGB
	Width  int
	Height int
	Tiles  int // tiles in the frame
	// Collectors are added to /metrics (a remote cluster's traffic, say).
	Collectors []prometheus.Collector
	// LoopbackOnly refuses requests whose Host header is not a loopback
	// name or address: set it when the view listens on loopback.
	LoopbackOnly bool
}

// Server is one render's live view. Feed it with Tile, Progress and End
// (scheduler.Options.Tile and .Progress); serve Handler.
type Server struct {
	opt     Options
	start   time.Time
	reg     *prometheus.Registry
	metrics *metrics

	mu       sync.Mutex
	fb       *tracer.Framebuffer
	version  uint64   // counts the tiles put into fb
	tiles    [][]byte // the event of every finished tile, for new viewers
	progress []byte   // the latest progress event
	sentProg time.Time
	// progLate sends the latest progress event once progressEvery has
	// passed since the last one sent, when Progress held it back and no
	// later call sent it: a render waiting on a slow tile shows its
	// latest count, not the one from before it.
	progLate *time.Timer
	ended    []byte // the end event, once the render has ended
	last     scheduler.Progress
	lastTile []time.Time // per worker: when its latest tile landed
	viewers  map[chan []byte]struct{}
	done     chan struct{} // closed by End

	// The latest encoding of /image.png and the version of fb it shows;
	// encodeMu makes concurrent requests for a new version wait for one
	// encoding instead of each making its own.
	encodeMu   sync.Mutex
	pngVersion uint64
	pngBytes   []byte
	encodes    int // how many times the image was encoded, for the tests

	clients chan struct{} // one token per request being served, /metrics aside
	scrapes chan struct{} // one token per /metrics request being served
}

// Limits of the view's HTTP service: slow or many clients cost bounded
// memory and never hold up the render.
const (
	// MaxClients is how many requests are served at once, besides those
	// of /metrics; more get 503. Each viewer's event stream holds one.
	MaxClients = 64
	// MaxScrapes is how many requests of /metrics are served at once,
	// whatever the viewers hold: a monitoring system's scrapes are
	// answered even with every viewer's place taken. More get 503.
	MaxScrapes = 4
)

// writeTimeout bounds the writing of one response, or of one batch of
// events on a stream: a client that does not read is dropped. (A variable
// for the tests.)
var writeTimeout = 10 * time.Second

// New returns the view of a render about to start.
func New(opt Options) *Server {
	s := &Server{
		opt: opt, start: time.Now(), reg: prometheus.NewRegistry(),
		fb: tracer.NewFramebuffer(opt.Width, opt.Height), viewers: map[chan []byte]struct{}{},
		done: make(chan struct{}), clients: make(chan struct{}, MaxClients), scrapes: make(chan struct{}, MaxScrapes),
	}
	s.metrics = newMetrics(s)
	s.reg.MustRegister(s.metrics)
	for _, c := range opt.Collectors {
		s.reg.MustRegister(c)
	}
	return s
}

// Registry is the registry behind /metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// tileEvent is a finished tile as the page gets it.
type tileEvent struct {
	ID     int    `json:"id"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	W      int    `json:"w"`
	H      int    `json:"h"`
	Worker string `json:"worker"`
	PNG    string `json:"png"` // base64 of an 8-bit sRGB PNG
}

// workerRow is a line of the page's table of workers.
type workerRow struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"`
	Threads     int     `json:"threads"`
	Tiles       int     `json:"tiles"`
	TilesPerSec float64 `json:"tilesPerSec"`
	Share       float64 `json:"share"` // of the frame's pixels, 0–1
	Retries     int     `json:"retries"`
	Dropped     int     `json:"dropped"`
	State       string  `json:"state"` // rendering, idle, done
}

// progressEvent is the page's progress line and worker table.
type progressEvent struct {
	TilesDone     int         `json:"tilesDone"`
	TilesTotal    int         `json:"tilesTotal"`
	Elapsed       float64     `json:"elapsed"` // seconds
	ETA           float64     `json:"eta"`     // seconds; 0 when unknown
	SamplesPerSec float64     `json:"samplesPerSec"`
	RaysPerSec    float64     `json:"raysPerSec"`
	Workers       []workerRow `json:"workers"`
}

// endEvent says how the render ended.
type endEvent struct {
	OK      bool    `json:"ok"`
	Error   string  `json:"error,omitempty"`
	Output  string  `json:"output,omitempty"`
	Elapsed float64 `json:"elapsed"`
}

// helloEvent opens every stream.
type helloEvent struct {
	Scene      string `json:"scene"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	TilesTotal int    `json:"tilesTotal"`
}

// frame formats one server-sent event.
func frame(name string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own types are marshalled
	}
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data)
}

// Tile records a finished tile: it goes into the image so far and to every
// viewer as a small PNG.
func (s *Server) Tile(d scheduler.TileDone) {
	png := s.tilePNG(d.Tile, d.Pixels)
	s.metrics.tile(d, s.workerName(d.Worker))
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.lastTile) <= d.Worker {
		s.lastTile = append(s.lastTile, time.Time{})
	}
	s.lastTile[d.Worker] = time.Now()
	s.addTileLocked(d.Tile, d.Pixels, s.workerNameLocked(d.Worker), png)
}

// Resumed draws the tiles a render starts with (from a checkpoint), by
// tile ID into grid: they are shown as done, counted in no worker's work.
func (s *Server) Resumed(grid []scheduler.Tile, finished map[int][]float32) {
	for _, t := range grid {
		if pix, ok := finished[t.ID]; ok {
			png := s.tilePNG(t, pix)
			s.mu.Lock()
			s.addTileLocked(t, pix, "checkpoint", png)
			s.mu.Unlock()
		}
	}
}

// tilePNG encodes a tile's linear pixels as the page's 8-bit sRGB PNG.
func (s *Server) tilePNG(t scheduler.Tile, pix []float32) []byte {
	tile := &tracer.Framebuffer{Width: t.Rect.Dx(), Height: t.Rect.Dy(), Pix: pix}
	var buf bytes.Buffer
	png.Encode(&buf, tile.Image(s.opt.Film, 8)) // an in-memory encode of a valid image does not fail
	return buf.Bytes()
}

// addTileLocked puts a tile into the image so far, keeps its event for
// later viewers and sends it to the current ones. s.mu must be held.
func (s *Server) addTileLocked(t scheduler.Tile, pix []float32, worker string, png []byte) {
	s.version++
	r := t.Rect
	s.fb.SetBlock(r, pix)
	ev := frame("tile", tileEvent{ID: t.ID, X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy(),
		Worker: worker, PNG: base64.StdEncoding.EncodeToString(png)})
	s.tiles = append(s.tiles, ev)
	s.broadcastLocked(ev)
}

func (s *Server) workerName(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workerNameLocked(i)
}

func (s *Server) workerNameLocked(i int) string {
	if i < len(s.last.Workers) {
		return s.last.Workers[i].Name
	}
	return fmt.Sprint("worker ", i)
}

// Progress records the render's progress; viewers get it at most every
// progressEvery, always the final one, and the latest within
// progressEvery of it (one held back is sent then).
func (s *Server) Progress(p scheduler.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.Workers = append([]scheduler.WorkerProgress(nil), p.Workers...)
	s.last = p
	s.progress = frame("progress", s.progressLocked(false))
	now := time.Now()
	if wait := progressEvery - now.Sub(s.sentProg); wait > 0 && p.TilesDone != p.TilesTotal {
		if s.progLate == nil {
			var t *time.Timer
			t = time.AfterFunc(wait, func() {
				s.mu.Lock() // after Progress's, which set t
				defer s.mu.Unlock()
				s.sendLateLocked(t)
			})
			s.progLate = t
		}
		return
	}
	s.stopLateLocked()
	s.sentProg = now
	s.broadcastLocked(s.progress)
}

// sendLateLocked sends the progress event that Progress held back when t
// is still the timer that was to send it (no event was sent since) and
// the render has not ended (End sends the final one).
func (s *Server) sendLateLocked(t *time.Timer) {
	if s.progLate != t || s.ended != nil {
		return
	}
	s.progLate = nil
	s.sentProg = time.Now()
	s.broadcastLocked(s.progress)
}

// stopLateLocked forgets a held-back progress event's timer: an event is
// being sent now.
func (s *Server) stopLateLocked() {
	if s.progLate != nil {
		s.progLate.Stop()
		s.progLate = nil
	}
}

// progressLocked makes the progress event from the latest snapshot.
func (s *Server) progressLocked(ended bool) progressEvent {
	p := s.last
	secs := max(p.Elapsed.Seconds(), 1e-9)
	ev := progressEvent{
		TilesDone: p.TilesDone, TilesTotal: s.opt.Tiles, Elapsed: p.Elapsed.Seconds(), ETA: p.ETA().Seconds(),
		SamplesPerSec: float64(p.Stats.Samples) / secs, RaysPerSec: float64(p.Stats.Rays) / secs,
		Workers: []workerRow{},
	}
	for i, w := range p.Workers {
		if !w.Kind.Renders() {
			continue // its machines have rows of their own
		}
		row := workerRow{Name: w.Name, Kind: string(w.Kind), Threads: w.Threads, Tiles: w.Tiles,
			TilesPerSec: float64(w.Tiles) / secs, Share: float64(w.Pixels) / float64(max(p.Pixels, 1)),
			Retries: w.Retries, Dropped: w.Dropped, State: "idle"}
		switch {
		case ended:
			row.State = "done"
		case i < len(s.lastTile) && w.Tiles > 0 && time.Since(s.lastTile[i]) < max(2*time.Second, 3*w.Busy/time.Duration(w.Tiles)):
			row.State = "rendering"
		}
		ev.Workers = append(ev.Workers, row)
	}
	return ev
}

// End records the end of the render: err is nil when the image was
// written to output. Viewers get the end event and their streams close.
func (s *Server) End(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return
	}
	s.stopLateLocked()
	final := frame("progress", s.progressLocked(true))
	s.progress = final
	s.broadcastLocked(final)
	ev := endEvent{OK: err == nil, Output: s.opt.Output, Elapsed: time.Since(s.start).Seconds()}
	if err != nil {
		ev.Error = err.Error()
		ev.Output = ""
	}
	s.ended = frame("end", ev)
	s.broadcastLocked(s.ended)
	close(s.done)
}

// broadcastLocked sends an event to every viewer, dropping those too far
// behind.
func (s *Server) broadcastLocked(ev []byte) {
	for ch := range s.viewers {
		select {
		case ch <- ev:
		default:
			delete(s.viewers, ch)
			close(ch)
		}
	}
}

// Handler serves the page at its root, and events, image.png, state and
// metrics beside it. Every link in the page is relative, so the handler
// works behind a path prefix too.
//
// At most MaxClients requests are served at once (others get 503 Service
// Unavailable), and beside them at most MaxScrapes of /metrics, so that
// viewers filling their places leave Prometheus its scrapes; each
// response is written within a deadline; and when Options.LoopbackOnly is
// set a request whose Host header names anything but a loopback address
// is refused (403), so that a web page elsewhere cannot reach a view bound
// to loopback by rebinding its own DNS name to 127.0.0.1.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(page)
	})
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("GET /image.png", s.image)
	mux.HandleFunc("GET /state", s.state)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opt.LoopbackOnly && !loopbackHost(r.Host) {
			http.Error(w, "this view answers only to loopback host names", http.StatusForbidden)
			return
		}
		slots := s.clients
		if r.URL.Path == "/metrics" {
			slots = s.scrapes // apart, so that viewers cannot crowd it out
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			http.Error(w, "too many clients", http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path != "/events" {
			http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
		}
		mux.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine's loopback
// interface: localhost, or a loopback IP, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// events streams server-sent events: hello, every tile so far, the latest
// progress, then each new tile and progress as they come, and the end.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not hold events back

	s.mu.Lock()
	backlog := [][]byte{frame("hello", helloEvent{Scene: s.opt.Scene, Width: s.opt.Width, Height: s.opt.Height, TilesTotal: s.opt.Tiles})}
	backlog = append(backlog, s.tiles...)
	if s.progress != nil {
		backlog = append(backlog, s.progress)
	}
	var ch chan []byte
	if s.ended != nil {
		backlog = append(backlog, s.ended)
	} else {
		ch = make(chan []byte, viewerBuffer)
		s.viewers[ch] = struct{}{}
	}
	s.mu.Unlock()
	defer func() {
		if ch != nil {
			s.mu.Lock()
			if _, ok := s.viewers[ch]; ok {
				delete(s.viewers, ch)
			}
			s.mu.Unlock()
		}
	}()

	// Each batch of writes gets writeTimeout from its start: a viewer
	// that stops reading is dropped, and its place freed.
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	for _, ev := range backlog {
		if _, err := w.Write(ev); err != nil {
			return
		}
	}
	if rc.Flush() != nil || ch == nil {
		return
	}
	keepalive := time.NewTicker(15 * time.Second)
	defer keepalive.Stop()
	for {
		select {
		case ev, ok := <-ch:
			// Write it and whatever else is waiting, then flush once.
			rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			for {
				if !ok {
					rc.Flush()
					return // too far behind: the browser reconnects
				}
				if _, err := w.Write(ev); err != nil {
					return
				}
				if bytes.HasPrefix(ev, []byte("event: end")) {
					rc.Flush()
					return
				}
				select {
				case ev, ok = <-ch:
					continue
				default:
				}
				break
			}
			if rc.Flush() != nil {
				return
			}
		case <-keepalive.C:
			rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			w.Write([]byte(": keepalive\n\n"))
			if rc.Flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// image serves the image so far (tiles not yet rendered are black) as PNG.
// The render's lock is held only to copy the pixels; the tone mapping and
// the encoding happen outside it, once per version of the image however
// many clients ask.
func (s *Server) image(w http.ResponseWriter, r *http.Request) {
	b := s.imagePNG()
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// imagePNG returns the PNG of the image so far, encoding it anew only when
// a tile has landed since the last encoding.
func (s *Server) imagePNG() []byte {
	s.encodeMu.Lock()
	defer s.encodeMu.Unlock()
	s.mu.Lock()
	v := s.version
	if s.pngBytes != nil && s.pngVersion == v {
		s.mu.Unlock()
		return s.pngBytes
	}
	fb := &tracer.Framebuffer{Width: s.fb.Width, Height: s.fb.Height, Pix: append([]float32(nil), s.fb.Pix...)}
	s.mu.Unlock()
	var buf bytes.Buffer
	png.Encode(&buf, fb.Image(s.opt.Film, 8))
	s.pngVersion, s.pngBytes = v, buf.Bytes()
	s.encodes++
	return s.pngBytes
}

// state serves the latest progress as JSON, with "ended" once it has.
func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	st := struct {
		progressEvent
		Ended bool `json:"ended"`
	}{s.progressLocked(s.ended != nil), s.ended != nil}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(st)
}

// Done is closed when End has been called.
func (s *Server) Done() <-chan struct{} { return s.done }
