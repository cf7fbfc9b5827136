//go:build goexperiment.simd && amd64

package tracer

import (
	"bytes"
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
	"unsafe"
)

// bytesOf returns the memory of s.
func bytesOf[T any](s []T) []byte {
	var t T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(t)))
}

// withVecBuild runs f with the vector binning on or off.
func withVecBuild(on bool, f func()) {
	defer func(was bool) { vecBuild = was }(vecBuild)
	vecBuild = on
	f()
}

// latticeMesh returns n triangles whose coordinates come from a few values,
// −0 and +0 among them: many equal bounds, boxes flat on an axis, and zeros
// of either sign in the nodes' bounds.
func latticeMesh(rng *rand.Rand, n int) MeshDesc {
	vals := []float32{float32(math.Copysign(0, -1)), 0, 1, -1, 0.5, -0.5, 2, 1e-30, -1e-30}
	var m MeshDesc
	for len(m.Indices) < 3*n {
		for k := 0; k < 3; k++ {
			var p vec3
			for a := range p {
				p[a] = vals[rng.IntN(len(vals))]
			}
			m.Positions = append(m.Positions, p)
			m.Indices = append(m.Indices, uint32(len(m.Positions)-1))
		}
	}
	return m
}

// TestVecBuildMatchesScalar: the vector binning builds the same tree as
// binSAH, byte for byte (nodes, triangles and their attributes in leaf
// order), for random, coherent and lattice meshes, with and without
// shapes.
func TestVecBuildMatchesScalar(t *testing.T) {
	requireAVX2(t)
	rng := rand.New(rand.NewPCG(5, 5))
	cases := []struct {
		name string
		d    *SceneDesc
	}{
		{"random", &SceneDesc{Meshes: []MeshDesc{randomMesh(rng, 100000)}}}, // binned on every core at the top
		{"sphere", &SceneDesc{Meshes: []MeshDesc{sphereMesh(100)}}},
		{"lattice", &SceneDesc{Meshes: []MeshDesc{latticeMesh(rng, 20000)}}},
		{"small lattice", &SceneDesc{Meshes: []MeshDesc{latticeMesh(rng, 40)}}},
		{"mixed", &SceneDesc{
			Meshes:  []MeshDesc{randomMesh(rng, 3000), latticeMesh(rng, 3000)},
			Spheres: []SphereDesc{{Center: vec3{1, 2, 3}, Radius: 0.5}, {Center: vec3{0, 0, 0}, Radius: 1}, {Center: vec3{9, 9, 9}, Radius: 2}},
			Quads:   []QuadDesc{{Corner: vec3{0, 0, 0}, Edge1: vec3{1, 0, 0}, Edge2: vec3{0, 0, 1}}},
		}},
	}
	for _, c := range cases {
		c.d.Settings = Settings{Width: 1, Height: 1, Samples: 1}
		c.d.Camera = CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40}
		c.d.Materials = []Material{{Texture: NoTexture}}
		var scalar, vector *Scene
		for _, on := range []bool{false, true} {
			withVecBuild(on, func() {
				s, err := Compile(c.d)
				if err != nil {
					t.Fatal(err)
				}
				if on {
					vector = s
				} else {
					scalar = s
				}
			})
		}
		if !bytes.Equal(bytesOf(scalar.Nodes), bytesOf(vector.Nodes)) {
			t.Errorf("%s: the nodes differ", c.name)
		}
		if !bytes.Equal(bytesOf(scalar.Triangles), bytesOf(vector.Triangles)) {
			t.Errorf("%s: the triangles differ", c.name)
		}
		if !bytes.Equal(bytesOf(scalar.TriangleAttrs), bytesOf(vector.TriangleAttrs)) {
			t.Errorf("%s: the triangle attributes differ", c.name)
		}
		if !bytes.Equal(bytesOf(scalar.Shapes), bytesOf(vector.Shapes)) {
			t.Errorf("%s: the shapes differ", c.name)
		}
	}
}

// TestVecBinSAHMatchesScalar: buildBVH gives the same nodes and primitive
// order with either binning on primitives Compile never makes as well:
// points, boxes of zero width, bounds of exactly −0 and +0 (each of [−0,
// +0], [+0, +0], [−0, −0]), both kinds mixed, and sizes from 1 up, so that
// every bucket count (4, 8, 16) and the kind split are exercised.
func TestVecBinSAHMatchesScalar(t *testing.T) {
	requireAVX2(t)
	negZero := float32(math.Copysign(0, -1))
	rng := rand.New(rand.NewPCG(7, 7))
	coord := func() float32 {
		switch rng.IntN(4) {
		case 0:
			return negZero
		case 1:
			return 0
		case 2:
			return float32(rng.IntN(5) - 2)
		}
		return rng.Float32()*4 - 2
	}
	zeros := [2]int{}
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(20)
		if trial%10 == 0 {
			n = 1 + rng.IntN(3000)
		}
		prims := make([]bvhPrim, n)
		for i := range prims {
			p := &prims[i]
			for a := 0; a < 3; a++ {
				lo, hi := coord(), coord()
				switch rng.IntN(4) {
				case 0:
					hi = lo // flat on this axis
				case 1:
					if lo == 0 {
						hi = -lo // [−0, +0] or [+0, −0]
					}
				}
				if hi < lo {
					lo, hi = hi, lo
				}
				p.lo[a], p.hi[a] = lo, hi
			}
			p.index = uint32(i)
			if rng.IntN(8) == 0 {
				p.kind = LeafShapes
			}
		}
		var nodes [2][]BVHNode
		var order [2][]bvhPrim
		for k, on := range []bool{false, true} {
			withVecBuild(on, func() {
				order[k] = append([]bvhPrim(nil), prims...)
				nodes[k] = buildBVH(order[k])
			})
		}
		if !bytes.Equal(bytesOf(nodes[0]), bytesOf(nodes[1])) {
			t.Fatalf("trial %d (%d primitives): the nodes differ", trial, n)
		}
		if !bytes.Equal(bytesOf(order[0]), bytesOf(order[1])) {
			t.Fatalf("trial %d (%d primitives): the primitives' order differs", trial, n)
		}
		for _, nd := range nodes[0] {
			for _, v := range [...]float32{nd.Min[0], nd.Min[1], nd.Min[2], nd.Max[0], nd.Max[1], nd.Max[2]} {
				if v == 0 {
					zeros[int(math.Float32bits(v)>>31)]++
				}
			}
		}
	}
	if zeros[0] == 0 || zeros[1] == 0 {
		t.Fatalf("bounds of +0: %d, of −0: %d; the test should see both", zeros[0], zeros[1])
	}
}

func requireAVX2(t *testing.T) {
	t.Helper()
	if !archsimd.X86.AVX2() {
		t.Skip("no AVX2: the vector binning is not used on this CPU")
	}
}
