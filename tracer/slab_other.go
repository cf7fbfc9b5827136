//go:build !amd64

package tracer

// slabSSE is false off amd64: enterPair runs its Go slab test.
const slabSSE = false

func enterPairSSE(*rayBox, *[2]BVHNode, float32) (ta, tb float32, hits uint32) {
	panic("unreachable")
}
