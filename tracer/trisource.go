package tracer

import (
	"runtime"
	"sort"
)

// triangleSource numbers the triangles of a scene description — the
// triangle objects, then each mesh's, in order: a triangle's ordinal —
// and makes triangle g (its Triangle and TriangleAttr) from the
// description when asked. Compile reads the description twice, for the
// BVH's bounds and then for the triangles in the BVH's order, rather than
// keeping a copy of every triangle (56 bytes each) between the two.
type triangleSource struct {
	d        *SceneDesc
	objAttrs []TriangleAttr // the triangle objects'
	// start[mi] is the ordinal of mesh mi's first triangle, and
	// start[len(d.Meshes)] the number of triangles.
	start []int
	base  []uint32 // per mesh: Scene.Vertices' index of its first vertex
	flags []uint32 // per mesh: its triangles' TriangleAttr.Flags
}

// newTriangleSource lays out the vertex attributes of d's triangles in
// s (Vertices, Tangents, UV1, Colors) and returns the source of its
// triangles. The vertices with tangents (of the normal-mapped triangles
// and meshes) come first, so that Tangents[i] is Vertices[i]'s.
func (s *Scene) newTriangleSource(d *SceneDesc) *triangleSource {
	ts := &triangleSource{
		d:        d,
		objAttrs: make([]TriangleAttr, len(d.Triangles)),
		start:    make([]int, len(d.Meshes)+1),
		base:     make([]uint32, len(d.Meshes)),
		flags:    make([]uint32, len(d.Meshes)),
	}
	n := len(d.Triangles)
	for mi := range d.Meshes {
		ts.start[mi] = n
		n += len(d.Meshes[mi].Indices) / 3
	}
	ts.start[len(d.Meshes)] = n

	// The flags of each mesh, and the vertices, counted so that
	// Vertices is allocated once.
	tangent := make([]bool, len(d.Meshes))
	nv := 0
	for i := range d.Triangles {
		if t := &d.Triangles[i]; d.Materials[t.Material].NormalMap != 0 || t.HasUV {
			nv += 3
		}
	}
	for mi := range d.Meshes {
		m := &d.Meshes[mi]
		var flags uint32
		if len(m.Normals) > 0 {
			flags |= TriangleSmooth
		}
		if len(m.UVs) > 0 {
			flags |= TriangleUV
		}
		if len(m.UV1s) > 0 {
			flags |= TriangleUV1
		}
		if len(m.Colors) > 0 {
			flags |= TriangleColor
		}
		if len(m.UVs) > 0 && meshUsesNormalMap(d, m) {
			tangent[mi] = true
			flags |= TriangleTangent
		}
		ts.flags[mi] = flags
		if flags != 0 {
			nv += len(m.Positions)
		}
	}
	s.Vertices = make([]Vertex, 0, nv)

	tangentBase := make([]uint32, len(d.Triangles))
	for i := range d.Triangles {
		if t := &d.Triangles[i]; d.Materials[t.Material].NormalMap != 0 {
			tangentBase[i] = uint32(len(s.Vertices))
			s.addTangentTriangle(t)
		}
	}
	for mi := range d.Meshes {
		if m := &d.Meshes[mi]; tangent[mi] {
			ts.base[mi] = uint32(len(s.Vertices))
			for v := range m.Positions {
				vx := Vertex{UV: [2]float32{m.UVs[v][0], m.UVs[v][1]}}
				if len(m.Normals) > 0 {
					vx.N = m.Normals[v]
				}
				s.Vertices = append(s.Vertices, vx)
			}
			s.Tangents = append(s.Tangents, meshTangents(m)...)
			s.addVertexExtras(m, ts.base[mi])
		}
	}
	for i := range d.Triangles {
		t := &d.Triangles[i]
		a := TriangleAttr{Material: uint32(t.Material)}
		if d.Materials[t.Material].NormalMap != 0 {
			base := tangentBase[i]
			a.V = [3]uint32{base, base + 1, base + 2}
			a.Flags = TriangleUV | TriangleTangent
		} else if t.HasUV {
			base := uint32(len(s.Vertices))
			for k := 0; k < 3; k++ {
				s.Vertices = append(s.Vertices, Vertex{UV: [2]float32{t.UV[k][0], t.UV[k][1]}})
			}
			a.V = [3]uint32{base, base + 1, base + 2}
			a.Flags = TriangleUV
		}
		ts.objAttrs[i] = a
	}
	for mi := range d.Meshes {
		m := &d.Meshes[mi]
		if tangent[mi] || ts.flags[mi] == 0 {
			continue
		}
		base := uint32(len(s.Vertices))
		ts.base[mi] = base
		for v := range m.Positions {
			var vx Vertex
			if len(m.Normals) > 0 {
				vx.N = m.Normals[v]
			}
			if len(m.UVs) > 0 {
				vx.UV = [2]float32{m.UVs[v][0], m.UVs[v][1]}
			}
			s.Vertices = append(s.Vertices, vx)
		}
		s.addVertexExtras(m, base)
	}
	return ts
}

// addVertexExtras appends a mesh's second texture coordinate set and
// vertex colours, if it has them, to UV1 and Colors at the index of its
// first vertex, base (indexed as Vertices; the vertices of meshes without
// them in between are zero).
func (s *Scene) addVertexExtras(m *MeshDesc, base uint32) {
	if len(m.UV1s) > 0 {
		s.UV1 = append(s.UV1, make([][2]float32, int(base)-len(s.UV1))...)
		for _, uv := range m.UV1s {
			s.UV1 = append(s.UV1, [2]float32{uv[0], uv[1]})
		}
	}
	if len(m.Colors) > 0 {
		s.Colors = append(s.Colors, make([]vec3, int(base)-len(s.Colors))...)
		s.Colors = append(s.Colors, m.Colors...)
	}
}

// len returns the number of triangles, degenerate ones included.
func (ts *triangleSource) len() int { return ts.start[len(ts.start)-1] }

// at returns triangle g: its edges from its first vertex, and its
// shading attributes. A degenerate one (zero area) has E1 × E2 = 0.
func (ts *triangleSource) at(g int) (Triangle, TriangleAttr) {
	var t Triangle
	var a TriangleAttr
	ts.put(g, &t, &a)
	return t, a
}

// put writes at(g) to t and a.
func (ts *triangleSource) put(g int, tri *Triangle, attr *TriangleAttr) {
	if g < len(ts.objAttrs) {
		t := &ts.d.Triangles[g]
		*tri, *attr = newTriangle(t.Vertices[0], t.Vertices[1], t.Vertices[2]), ts.objAttrs[g]
		return
	}
	mi := 0 // the last mesh starting at or before g
	if len(ts.d.Meshes) > 1 {
		mi = sort.SearchInts(ts.start, g+1) - 1
	}
	m := &ts.d.Meshes[mi]
	t := g - ts.start[mi]
	i0, i1, i2 := m.Indices[3*t], m.Indices[3*t+1], m.Indices[3*t+2]
	flags := ts.flags[mi]
	a := TriangleAttr{Material: uint32(m.Material), Flags: flags}
	if len(m.Materials) > 0 {
		a.Material = uint32(m.Materials[t])
	}
	if flags != 0 {
		base := ts.base[mi]
		a.V = [3]uint32{base + i0, base + i1, base + i2}
	}
	*tri, *attr = newTriangle(m.Positions[i0], m.Positions[i1], m.Positions[i2]), a
}

// eachTriangle calls f for the triangles of ordinals [first, last) in
// order, with the ordinal and at's triangle: their geometry alone, mesh
// by mesh, without at's search for the mesh and its attributes. The
// triangle is passed by value: a pointer to it would escape through f,
// a heap allocation per triangle.
func (ts *triangleSource) eachTriangle(first, last int, f func(g int, t Triangle)) {
	g := first
	for ; g < last && g < len(ts.objAttrs); g++ {
		v := &ts.d.Triangles[g].Vertices
		f(g, newTriangle(v[0], v[1], v[2]))
	}
	if g >= last {
		return
	}
	for mi := sort.SearchInts(ts.start, g+1) - 1; g < last; mi++ {
		m := &ts.d.Meshes[mi]
		end := min(last, ts.start[mi+1])
		idx, pos := m.Indices, m.Positions
		for k := 3 * (g - ts.start[mi]); g < end; k += 3 {
			f(g, newTriangle(pos[idx[k]], pos[idx[k+1]], pos[idx[k+2]]))
			g++
		}
	}
}

// newTriangle returns the triangle p0 p1 p2.
func newTriangle(p0, p1, p2 vec3) Triangle {
	return Triangle{P0: p0, E1: p1.Sub(p0), E2: p2.Sub(p0)}
}

// degenerate reports whether the triangle has no area: no ray can hit it.
func (t *Triangle) degenerate() bool { return cross(t.E1, t.E2) == (vec3{}) }

// chunks returns how many chunks of the ordinals primitives counts and
// fills at once: one per core, of at least 2^14 triangles.
func (ts *triangleSource) chunks() int {
	return max(1, min(runtime.GOMAXPROCS(0), ts.len()/(1<<14)))
}

// setPrims makes the start of prims, which has room for every triangle,
// the primitives of the triangles that are not degenerate, in order,
// each with its ordinal as its index, and returns how many there are.
// The chunks (see chunks) are filled at once, each from its first
// ordinal's place, and then moved down over the places their degenerate
// triangles left.
func (ts *triangleSource) setPrims(prims []bvhPrim) int {
	w := ts.chunks()
	kept := make([]int, w)
	eachChunk(ts.len(), w, func(c, first, last int) {
		i := first
		ts.eachTriangle(first, last, func(g int, t Triangle) {
			if !t.degenerate() {
				prims[i].setTriangle(&t, uint32(g))
				i++
			}
		})
		kept[c] = i - first
	})
	n := 0
	for c, k := range kept {
		if first := ts.len() * c / w; first != n {
			copy(prims[n:n+k], prims[first:first+k])
		}
		n += k
	}
	return n
}
