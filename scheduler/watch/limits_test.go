package watch

import (
	"bufio"
	"image"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// plainView is a view of a w×h render with no tiles yet.
func plainView(w, h int, loopbackOnly bool) *Server {
	return New(Options{Scene: "s.json", Film: &tracer.Film{}, Width: w, Height: h, Tiles: 1, LoopbackOnly: loopbackOnly})
}

// addTile lands a w×h grey tile at the origin.
func addTile(s *Server, w, h int) {
	pix := make([]float32, 3*w*h)
	for i := range pix {
		pix[i] = 0.5
	}
	s.Tile(scheduler.TileDone{Tile: scheduler.Tile{Rect: image.Rect(0, 0, w, h)}, Pixels: pix})
}

// TestLoopbackHostOnly: a view bound to loopback answers only requests
// that name a loopback host, so a page elsewhere cannot reach it by
// rebinding its DNS name to 127.0.0.1.
func TestLoopbackHostOnly(t *testing.T) {
	ts := httptest.NewServer(plainView(8, 8, true).Handler())
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	for host, want := range map[string]int{
		"127.0.0.1:" + port: http.StatusOK, "localhost:" + port: http.StatusOK, "[::1]:" + port: http.StatusOK,
		"LOCALHOST": http.StatusOK, "evil.example:" + port: http.StatusForbidden, "10.0.0.1": http.StatusForbidden,
		"127.0.0.1.evil.example": http.StatusForbidden,
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/state", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: status %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// fillViewers opens MaxClients event streams on the view at url, each
// begun, and returns what closes them (before the server closes, which
// waits for them).
func fillViewers(t *testing.T, url string) (closeAll func()) {
	t.Helper()
	var open []*http.Response
	closeAll = func() {
		for _, r := range open {
			r.Body.Close()
		}
	}
	for i := 0; i < MaxClients; i++ {
		resp, err := http.Get(url + "/events")
		if err != nil {
			closeAll()
			t.Fatal(err)
		}
		open = append(open, resp)
		bufio.NewReader(resp.Body).ReadString('\n') // the stream has begun
	}
	return closeAll
}

// TestClientCap: past MaxClients requests in flight (here event streams
// held open), the view answers 503 instead of taking more memory.
func TestClientCap(t *testing.T) {
	ts := httptest.NewServer(plainView(8, 8, false).Handler())
	defer ts.Close()
	defer fillViewers(t, ts.URL)()
	resp, err := http.Get(ts.URL + "/state")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("request %d: status %d, want 503", MaxClients+1, resp.StatusCode)
	}
}

// TestMetricsBesideViewers: with every viewer's place taken, /metrics is
// still answered, from an allowance of its own, which is bounded too.
func TestMetricsBesideViewers(t *testing.T) {
	s := plainView(8, 8, false)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	defer fillViewers(t, ts.URL)()
	status := func(path string) int {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusOK && path == "/metrics" && !strings.Contains(string(body), "trace_tiles") {
			t.Errorf("/metrics: no trace_tiles in %q", body)
		}
		return resp.StatusCode
	}
	if got := status("/metrics"); got != http.StatusOK {
		t.Errorf("/metrics with %d viewers: status %d, want 200", MaxClients, got)
	}
	if got := status("/state"); got != http.StatusServiceUnavailable {
		t.Errorf("/state with %d viewers: status %d, want 503", MaxClients, got)
	}
	// Scrapes in flight are bounded as well: with MaxScrapes of them
	// (held here by taking their places), another gets 503.
	for range MaxScrapes {
		s.scrapes <- struct{}{}
	}
	if got := status("/metrics"); got != http.StatusServiceUnavailable {
		t.Errorf("/metrics with %d scrapes in flight: status %d, want 503", MaxScrapes, got)
	}
}

// TestImageEncodedOncePerVersion: many clients asking for /image.png get
// one encoding, made from a copy of the pixels outside the render's lock;
// a new tile makes the next request encode again.
func TestImageEncodedOncePerVersion(t *testing.T) {
	s := plainView(256, 256, false)
	addTile(s, 32, 32)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(ts.URL + "/image.png")
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if s.encodes != 1 {
		t.Errorf("16 requests of one version encoded the image %d times, want 1", s.encodes)
	}
	addTile(s, 16, 16)
	resp, err := http.Get(ts.URL + "/image.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if s.encodes != 2 {
		t.Errorf("after a new tile: %d encodings, want 2", s.encodes)
	}
}
