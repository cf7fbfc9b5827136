//go:build !amd64

package tracer

func enter4SSE(*ray4, *bvh4Node, float32, *[4]float32) uint32 { panic("unreachable") }

func setRay4SSE(*ray4, *Ray) { panic("unreachable") }
