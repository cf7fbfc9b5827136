package watch

import (
	"fmt"
	"image"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/tracerender/trace/scheduler"
)

// TestSlowViewerDropped: a viewer that never reads its event stream is
// dropped once a write has waited writeTimeout, freeing its place.
func TestSlowViewerDropped(t *testing.T) {
	defer func(d time.Duration) { writeTimeout = d }(writeTimeout)
	writeTimeout = 200 * time.Millisecond
	s := plainView(512, 512, false)
	ts := httptest.NewUnstartedServer(s.Handler())
	// A small send buffer on the server's side too, so that a few tiles
	// fill both (a loaded machine encodes few tiles in the time allowed).
	ts.Listener = smallSendBuffer{ts.Listener}
	ts.Start()
	defer ts.Close()
	// A small receive buffer, so the server's writes block soon.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: %s\r\n\r\n", ts.Listener.Addr())
	// Tiles of noise (their PNGs do not compress) until the socket's
	// buffers are full and the handler blocks writing.
	noisy := func(k int) {
		rng := rand.New(rand.NewPCG(uint64(k), 1))
		pix := make([]float32, 3*128*128)
		for i := range pix {
			pix[i] = rng.Float32()
		}
		s.Tile(scheduler.TileDone{Tile: scheduler.Tile{ID: k, Rect: image.Rect(0, 0, 128, 128)}, Pixels: pix})
	}
	deadline := time.Now().Add(30 * time.Second)
	for k := 0; ; k++ {
		if k < 400 {
			noisy(k)
		}
		if len(s.clients) == 0 && k > 0 {
			return // the handler gave up on the viewer
		}
		if time.Now().After(deadline) {
			t.Fatalf("a viewer that does not read still holds its place after %d tiles and 30 s", k)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// smallSendBuffer is a listener whose connections have a 4 KiB send
// buffer.
type smallSendBuffer struct{ net.Listener }

func (l smallSendBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}
