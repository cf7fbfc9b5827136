package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/internal/vec64"
	"github.com/tracerender/trace/tracer"
	"github.com/tracerender/trace/tracer/fmath"
)

// The computed normals as objnormals.go gave them at commit 50d05c6,
// before corners shared their sums: the reference that
// TestOBJNormalsMatchReference compares computeNormals with, bit for bit.
// Every corner sums over every corner around its position, a cost of the
// square of the position's valence, and a parser vertex's normals are
// found by following one chain.

func (p *objParser) referenceComputeNormals(m *tracer.MeshDesc) {
	idx := m.Indices
	nt := len(idx) / 3
	pos := func(k uint32) [3]float64 {
		q := p.positions[p.verts[k].v]
		return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	}
	// Unit face normals and corner angles (float32 values: fmath's).
	faceN := make([][3]float64, nt)
	angle := make([]float32, 3*nt)
	for t := range nt {
		a, b, c := pos(idx[3*t]), pos(idx[3*t+1]), pos(idx[3*t+2])
		n := vec64.Cross(vec64.Sub(b, a), vec64.Sub(c, a))
		if l := len64(n); l > 0 && !math.IsInf(l, 0) {
			faceN[t] = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		}
		q := [3][3]float64{a, b, c}
		for i := range 3 {
			e1, e2 := vec64.Sub(q[(i+1)%3], q[i]), vec64.Sub(q[(i+2)%3], q[i])
			angle[3*t+i] = fmath.Atan2(float32(len64(vec64.Cross(e1, e2))), float32(vec64.Dot(e1, e2)))
		}
	}
	// The corners without vn around each position (compressed rows).
	start := make([]int32, len(p.positions)+1)
	for _, k := range idx {
		if p.verts[k].vn < 0 {
			start[p.verts[k].v+1]++
		}
	}
	for i := range len(p.positions) {
		start[i+1] += start[i]
	}
	around := make([]int32, start[len(p.positions)])
	fill := append([]int32(nil), start[:len(p.positions)]...)
	for c, k := range idx {
		if v := p.verts[k].v; p.verts[k].vn < 0 {
			around[fill[v]] = int32(c)
			fill[v]++
		}
	}

	head := make([]int32, len(p.verts))
	for i := range head {
		head[i] = -1
	}
	corners := make([]objCorner, 0, len(p.verts)) // one per vertex used, and one per split
	out := make([]uint32, len(idx))
	for c, k := range idx {
		t := c / 3
		x := p.verts[k]
		var n mgl32.Vec3
		if x.vn >= 0 {
			n = p.normals[x.vn]
		} else {
			n = p.referenceCornerNormal(t, around[start[x.v]:start[x.v+1]], faceN, angle)
		}
		j := head[k]
		for j >= 0 && corners[j].n != n {
			j = corners[j].next
		}
		if j < 0 {
			j = int32(len(corners))
			corners = append(corners, objCorner{k: k, n: n, next: head[k]})
			head[k] = j
		}
		out[c] = uint32(j)
	}
	m.Indices = out
	m.Positions = make([]mgl32.Vec3, len(corners))
	m.Normals = make([]mgl32.Vec3, len(corners))
	if p.anyUV {
		m.UVs = make([]mgl32.Vec2, len(corners))
	}
	if p.colors != nil {
		m.Colors = make([]mgl32.Vec3, len(corners))
	}
	for i, cr := range corners {
		x := p.verts[cr.k]
		m.Positions[i], m.Normals[i] = p.positions[x.v], cr.n
		if m.UVs != nil && x.vt >= 0 {
			m.UVs[i] = p.texcoords[x.vt]
		}
		if m.Colors != nil {
			m.Colors[i] = p.colors[x.v]
		}
	}
}

// referenceCornerNormal is the computed normal of triangle t at a
// position whose corners without vn are around (corner indices, 3·triangle + vertex).
func (p *objParser) referenceCornerNormal(t int, around []int32, faceN [][3]float64, angle []float32) mgl32.Vec3 {
	g := p.groupOf(t)
	var sum [3]float64
	switch {
	case p.anyGroup && g == 0:
		sum = faceN[t]
	default:
		crease := !p.anyGroup && len(around) <= objCreaseFan
		for _, c := range around {
			u := int(c) / 3
			if p.anyGroup && p.groupOf(u) != g {
				continue
			}
			if crease && u != t && !(vec64.Dot(faceN[u], faceN[t]) >= p.creaseCos) {
				continue
			}
			w := float64(angle[c])
			sum = [3]float64{sum[0] + float64(w*faceN[u][0]), sum[1] + float64(w*faceN[u][1]), sum[2] + float64(w*faceN[u][2])}
		}
	}
	l := len64(sum)
	if !(l > 0) {
		// Faces that cancel out, or a triangle with no area: its own
		// normal, else any unit vector (a triangle of no area is never
		// hit).
		if sum = faceN[t]; len64(sum) == 0 {
			return mgl32.Vec3{0, 0, 1}
		}
		l = 1
	}
	return mgl32.Vec3{float32(sum[0] / l), float32(sum[1] / l), float32(sum[2] / l)}
}
