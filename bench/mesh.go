// Package bench holds the fixed workloads of `trace bench`: rays traced
// against procedural meshes (coherent camera rays and incoherent random
// rays), the BVH build, and the gallery scenes rendered at a fixed size.
// Every workload is deterministic, so runs can be compared.
package bench

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// Icosphere returns a geodesic sphere of radius about 1: an icosahedron
// whose 20 faces are each cut into freq² triangles, its vertices pushed onto
// the unit sphere and then displaced along the normal by a fixed sum of
// sine waves (a deterministic stand-in for noise, amplitude ±0.06), so the
// surface is bumpy rather than a perfect sphere. It has 20·freq² triangles:
// freq 50 gives 50,000 and freq 255 gives 1,300,500. Vertices on shared
// edges are shared, so the mesh is closed.
func Icosphere(freq int) tracer.MeshDesc {
	t := float32((1 + math.Sqrt(5)) / 2)
	corners := []mgl32.Vec3{
		{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
		{0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
		{t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1},
	}
	faces := [20][3]int{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}
	var m tracer.MeshDesc
	// Vertices are keyed by their exact grid position on the
	// icosahedron's surface, so edge vertices are shared between faces.
	index := map[[3]int64]uint32{}
	vertex := func(f [3]int, i, j int) uint32 {
		// Barycentric grid point (i, j) of face f, as exact integers.
		a, b, c := corners[f[0]], corners[f[1]], corners[f[2]]
		k := freq - i - j
		p := a.Mul(float32(k)).Add(b.Mul(float32(i))).Add(c.Mul(float32(j)))
		id := [3]int64{int64(math.Round(float64(p[0]) * 1e4)), int64(math.Round(float64(p[1]) * 1e4)), int64(math.Round(float64(p[2]) * 1e4))}
		if v, ok := index[id]; ok {
			return v
		}
		d := p.Normalize()
		r := 1 + displacement(d)
		m.Positions = append(m.Positions, d.Mul(r))
		index[id] = uint32(len(m.Positions) - 1)
		return index[id]
	}
	for _, f := range faces {
		for i := 0; i < freq; i++ {
			for j := 0; j < freq-i; j++ {
				v0, v1, v2 := vertex(f, i, j), vertex(f, i+1, j), vertex(f, i, j+1)
				m.Indices = append(m.Indices, v0, v1, v2)
				if i+j < freq-1 {
					v3 := vertex(f, i+1, j+1)
					m.Indices = append(m.Indices, v1, v3, v2)
				}
			}
		}
	}
	return m
}

// displacement is a fixed sum of sines over the unit direction d.
func displacement(d mgl32.Vec3) float32 {
	x, y, z := float64(d[0]), float64(d[1]), float64(d[2])
	v := 0.03*math.Sin(7*x+1)*math.Sin(5*y+2)*math.Sin(6*z+3) +
		0.02*math.Sin(17*x+3*y)*math.Cos(13*z) +
		0.01*math.Sin(41*y+2*z)*math.Cos(37*x)
	return float32(v)
}
