//go:build !(goexperiment.simd && amd64)

package tracer

// Without GOEXPERIMENT=simd on amd64 there is no vector traversal
// (intersect_simd.go): Intersect and Occluded run the scalar one.

const vecTraversal = false

// Traversal names the BVH traversal this build and CPU run: the wide one
// here (see wideName).
func Traversal() string { return wideName() }

type rayVec struct{}

func newRayVec(*Ray) (rayVec, bool) { return rayVec{}, false }

func (s *Scene) intersectVec(Ray, Hit, *rayVec, *TraversalCounts) Hit { panic("unreachable") }

func (s *Scene) occludedVec(Ray, *rayVec, *TraversalCounts) bool { panic("unreachable") }
