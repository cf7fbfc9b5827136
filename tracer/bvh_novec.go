//go:build !(goexperiment.simd && amd64)

package tracer

// Without GOEXPERIMENT=simd on amd64 there is no vector binning
// (bvh_simd.go): split runs binSAH.

const vecBuild = false

func (b *bvhBuilder) binSAHVec(*bvhRange, int, float32, float32, int) (int, float32, bvhRange, bvhRange) {
	panic("unreachable")
}
