//go:build !amd64

package tracer

// slabSSE is false off amd64: enterPair runs its Go slab test.
const slabSSE = false

func enterPairSSE(*rayBox, *[2]BVHNode, float32) (ta, tb float32, hits uint32) {
	panic("unreachable")
}

type sseRay [6][4]float32

func hit4SSE(*sseRay, *Triangle, *Triangle, *Triangle, *Triangle, float32, *[3][4]float32) uint32 {
	panic("unreachable")
}
