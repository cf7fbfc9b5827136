package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracerender/trace/scheduler/remote"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc"
)

// countCompiles makes compileScene count its calls until the test ends.
func countCompiles(t *testing.T) *atomic.Int32 {
	var n atomic.Int32
	t.Cleanup(func() { compileScene = tracer.Compile })
	compileScene = func(d *tracer.SceneDesc) (*tracer.Scene, error) {
		n.Add(1)
		return tracer.Compile(d)
	}
	return &n
}

// With --threads 0 and workers, the coordinator never compiles the scene
// (the workers do, from the bundle), and the image is byte-identical to a
// local render, which compiles it once.
func TestWorkersOnlyNeverCompile(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := remote.NewServer(remote.ServerOptions{Threads: 2})
	g := grpc.NewServer(srv.GRPCOptions()...)
	srv.Register(g)
	go g.Serve(l)
	defer g.Stop()

	compiles := countCompiles(t)
	mesh := "../../scenes/examples/mesh.json"
	dir := t.TempDir()
	args := func(out string, more ...string) []string {
		return append([]string{"render", mesh, "-o", out, "--width", "32", "--height", "24", "--samples", "2", "--tile", "8"}, more...)
	}
	remoteOut, localOut := filepath.Join(dir, "remote.png"), filepath.Join(dir, "local.png")
	code, _, stderr := runCLI(args(remoteOut, "--threads", "0", "--workers", l.Addr().String())...)
	if code != 0 {
		t.Fatalf("--threads 0 --workers: exit %d: %s", code, stderr)
	}
	if n := compiles.Load(); n != 0 {
		t.Errorf("--threads 0 --workers: the coordinator compiled the scene %d times", n)
	}
	if strings.Contains(stderr, "triangles") || !strings.Contains(stderr, remoteOut+": ") {
		t.Errorf("--threads 0 --workers: the summary %q should name the output and no BVH, none being built here", stderr)
	}
	if st := srv.Stats(); st.TilesRendered == 0 {
		t.Errorf("the worker rendered no tile: %+v", st)
	}
	code, _, stderr = runCLI(args(localOut, "--threads", "2")...)
	if code != 0 {
		t.Fatalf("--threads 2: exit %d: %s", code, stderr)
	}
	if n := compiles.Load(); n != 1 {
		t.Errorf("--threads 2: the scene was compiled %d times, want once", n)
	}
	if !strings.Contains(stderr, "triangles, BVH built in") {
		t.Errorf("--threads 2: the summary %q does not tell of the BVH", stderr)
	}
	a, _ := os.ReadFile(remoteOut)
	b, _ := os.ReadFile(localOut)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the workers' image (%d bytes) differs from the local one (%d bytes)", len(a), len(b))
	}
}
