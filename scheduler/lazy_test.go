package scheduler

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

// elsewhere is a RemoteWorker that renders with a scene compiled on its
// own, as a worker process does from the bundle.
type elsewhere struct {
	CPUWorker
	scene *tracer.Scene
}

func (w *elsewhere) Kind() WorkerKind { return "remote" }

func (w *elsewhere) RunRemote(ctx context.Context, _ *LazyScene, q *Queue, index int) error {
	return w.CPUWorker.Run(ctx, w.scene, q, index)
}

// lazyMesh returns the mesh gallery scene, small, as a LazyScene whose
// compiles are counted, and the scene compiled apart.
func lazyMesh(t *testing.T) (*LazyScene, *atomic.Int32, *tracer.Scene) {
	t.Helper()
	desc, err := scenes.Load("../scenes/examples/mesh.json")
	if err != nil {
		t.Fatal(err)
	}
	desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = 24, 16, 2
	other, err := tracer.Compile(desc)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	lazy := NewLazyScene(desc, func(d *tracer.SceneDesc) (*tracer.Scene, error) {
		n.Add(1)
		return tracer.Compile(d)
	})
	return lazy, &n, other
}

// A render whose workers all trace elsewhere never compiles the scene;
// local workers compile it once between them; the pixels are the same.
func TestRenderLazyCompilesOnlyForLocalWorkers(t *testing.T) {
	lazy, n, other := lazyMesh(t)
	if lazy.Settings != other.Settings || lazy.PointLights != len(other.Lights) {
		t.Errorf("a LazyScene tells settings %+v and %d point lights; compiled: %+v and %d", lazy.Settings, lazy.PointLights, other.Settings, len(other.Lights))
	}
	res, err := RenderLazy(context.Background(), lazy, Options{TileSize: 8, Workers: []Worker{&elsewhere{CPUWorker{N: 2}, other}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := n.Load(); c != 0 || lazy.Compiled() != nil {
		t.Errorf("remote workers alone: compiled %d times (Compiled %v)", c, lazy.Compiled() != nil)
	}
	lazy2, n2, _ := lazyMesh(t)
	res2, err := RenderLazy(context.Background(), lazy2, Options{TileSize: 8, Workers: []Worker{
		&CPUWorker{N: 1}, &CPUWorker{N: 2}, &elsewhere{CPUWorker{N: 1}, other}}})
	if err != nil {
		t.Fatal(err)
	}
	// The render may end (the remote worker's tiles) before the local
	// compile does, which then finishes on its own.
	if _, err := lazy2.Scene(); err != nil {
		t.Fatal(err)
	}
	if c := n2.Load(); c != 1 || lazy2.Compiled() == nil {
		t.Errorf("two local workers: compiled %d times, want once", c)
	}
	if !slices.Equal(res.Framebuffer.Pix, res2.Framebuffer.Pix) {
		t.Error("the pixels of the render traced elsewhere differ from the local one's")
	}
}

// A scene that does not compile fails the render with a CompileError,
// and no tile is rendered.
func TestRenderLazyCompileError(t *testing.T) {
	desc, err := scenes.Load("../scenes/examples/cornell-box.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := errors.New("out of triangles")
	lazy := NewLazyScene(desc, func(*tracer.SceneDesc) (*tracer.Scene, error) { return nil, bad })
	res, err := RenderLazy(context.Background(), lazy, Options{Workers: []Worker{&CPUWorker{N: 2}, &CPUWorker{N: 1}}})
	if _, ok := errors.AsType[*CompileError](err); !ok || !errors.Is(err, bad) || res != nil {
		t.Errorf("render: %v, %v; want a CompileError of the compile's error", res, err)
	}
}

// A render cancelled while its scene compiles returns without waiting for
// the compile, which then finishes and keeps its scene for the next
// render.
func TestRenderLazyCancelledWhileCompiling(t *testing.T) {
	desc, err := scenes.Load("../scenes/examples/cornell-box.json")
	if err != nil {
		t.Fatal(err)
	}
	desc.Settings.Width, desc.Settings.Height, desc.Settings.Samples = 16, 16, 1
	started, release := make(chan struct{}), make(chan struct{})
	lazy := NewLazyScene(desc, func(d *tracer.SceneDesc) (*tracer.Scene, error) {
		close(started)
		<-release // a build that takes long
		return tracer.Compile(d)
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	type result struct {
		res *Result
		err error
	}
	ended := make(chan result, 1)
	go func() {
		res, err := RenderLazy(ctx, lazy, Options{Workers: []Worker{&CPUWorker{N: 2}}})
		ended <- result{res, err}
	}()
	select {
	case r := <-ended:
		if !errors.Is(r.err, context.Canceled) || r.res != nil {
			t.Errorf("render: %v, %v; want context.Canceled", r.res, r.err)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the cancelled render waited for its scene's compile")
	}
	close(release)
	if _, err := lazy.Scene(); err != nil || lazy.Compiled() == nil {
		t.Errorf("the compile after the cancelled render: %v", err)
	}
	if _, err := RenderLazy(context.Background(), lazy, Options{Workers: []Worker{&CPUWorker{N: 1}}}); err != nil {
		t.Errorf("the next render: %v", err)
	}
}
