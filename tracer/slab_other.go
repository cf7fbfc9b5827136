//go:build !amd64

package tracer

// slabSSE is false off amd64: the wide traversal runs its Go node test
// (enter4Go) and leaf test (Triangle.intersect).
const slabSSE = false

type sseRay [6][4]float32

func hit4SSE(*sseRay, *Triangle, *Triangle, *Triangle, *Triangle, float32, *[3][4]float32) uint32 {
	panic("unreachable")
}
