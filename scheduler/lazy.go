package scheduler

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tracerender/trace/tracer"
)

// LazyScene is a render's scene before it is compiled: what every worker
// needs to know of it (its settings and point lights), and its compiled
// form, built the first time a worker that traces rays in this process
// asks for it. A render whose tiles are all traced elsewhere (trace render
// --threads 0 --workers ...) never compiles it: a mesh's BVH can take
// gigabytes and minutes that the coordinator has no use for.
type LazyScene struct {
	// Settings are the render settings (the compiled scene's Settings).
	Settings tracer.Settings
	// PointLights is the number of point lights (the compiled scene's
	// len(Lights)).
	PointLights int

	desc     *tracer.SceneDesc
	compile  func(*tracer.SceneDesc) (*tracer.Scene, error)
	once     sync.Once
	scene    *tracer.Scene
	err      error
	compiled atomic.Pointer[tracer.Scene] // scene, once compiled
}

// NewLazyScene returns desc, to be compiled by compile (tracer.Compile
// when nil) on first use. desc must not change until then.
func NewLazyScene(desc *tracer.SceneDesc, compile func(*tracer.SceneDesc) (*tracer.Scene, error)) *LazyScene {
	if compile == nil {
		compile = tracer.Compile
	}
	return &LazyScene{Settings: desc.Settings, PointLights: len(desc.Lights), desc: desc, compile: compile}
}

// CompiledScene returns a LazyScene of a scene already compiled.
func CompiledScene(scene *tracer.Scene) *LazyScene {
	s := &LazyScene{Settings: scene.Settings, PointLights: len(scene.Lights), scene: scene}
	s.once.Do(func() {})
	s.compiled.Store(scene)
	return s
}

// Scene returns the compiled scene, compiling it on the first call; the
// later calls, from any goroutine, wait for that one and return what it
// returned.
func (s *LazyScene) Scene() (*tracer.Scene, error) {
	s.once.Do(func() {
		s.scene, s.err = s.compile(s.desc)
		s.desc = nil
		if s.err == nil {
			s.compiled.Store(s.scene)
		}
	})
	return s.scene, s.err
}

// Compiled returns the compiled scene if it has been compiled, without
// compiling it; nil if not (yet).
func (s *LazyScene) Compiled() *tracer.Scene {
	return s.compiled.Load()
}

// A RemoteWorker is a Worker whose tiles are traced in other processes
// (remote.Cluster): RenderLazy gives it the scene uncompiled, with
// RunRemote, so that the scene is compiled only if a worker that traces
// here needs it.
type RemoteWorker interface {
	Worker
	// RunRemote is Run with the scene uncompiled.
	RunRemote(ctx context.Context, scene *LazyScene, q *Queue, index int) error
}

// runWorker runs w on scene: a RemoteWorker as it is, any other with the
// compiled scene, compiling it if no worker has yet. A scene that does not
// compile fails the render (Queue.Abort): no worker could render it. A
// render cancelled while its scene compiles (a large mesh's BVH takes
// seconds) ends without waiting for the compile, which goes on in the
// background and keeps its result in scene for a later render.
func runWorker(ctx context.Context, w Worker, scene *LazyScene, q *Queue, index int) error {
	if r, ok := w.(RemoteWorker); ok {
		return r.RunRemote(ctx, scene, q, index)
	}
	sc, err, cancelled := compiledOrCancelled(ctx, scene)
	if cancelled {
		return ctx.Err()
	}
	if err != nil {
		err = &CompileError{err}
		q.Abort(err)
		return err
	}
	return w.Run(ctx, sc, q, index)
}

// compiledOrCancelled returns scene.Scene(), or reports cancelled once
// ctx is done first.
func compiledOrCancelled(ctx context.Context, scene *LazyScene) (sc *tracer.Scene, err error, cancelled bool) {
	if sc := scene.Compiled(); sc != nil {
		return sc, nil, false
	}
	type compiled struct {
		sc  *tracer.Scene
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		sc, err := scene.Scene()
		done <- compiled{sc, err}
	}()
	select {
	case c := <-done:
		return c.sc, c.err, false
	case <-ctx.Done():
		return nil, nil, true
	}
}

// CompileError is a scene that did not compile (tracer.Compile's error),
// which fails the render.
type CompileError struct{ Err error }

func (e *CompileError) Error() string { return e.Err.Error() }
func (e *CompileError) Unwrap() error { return e.Err }
