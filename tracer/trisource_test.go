package tracer

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestCompileTrianglesFromDescription: Compile, which makes each triangle
// from the description when the BVH needs it (triangleSource), gives the
// scene that sorting a gathered copy of the triangles gives — the same
// nodes, triangles and attributes, bit for bit — on a scene of triangle
// objects (with UVs and a normal map), empty meshes, meshes with and
// without normals, UVs and per-triangle materials, degenerate triangles,
// and spheres, on one core and on several (more than one chunk, subtrees
// built in parallel): the same tree on each.
func TestCompileTrianglesFromDescription(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := &SceneDesc{
		Settings:  Settings{Width: 1, Height: 1, Samples: 1},
		Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
		Materials: []Material{{Texture: NoTexture}, {Texture: NoTexture, Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 1}, {Texture: NoTexture, NormalMap: 1}},
		Textures:  []Texture{{Kind: TextureChecker, Scale: 1}},
	}
	for i := range 5 {
		tri := TriangleDesc{Vertices: [3]vec3{{float32(i), 0, 0}, {float32(i) + 1, 0, 0}, {float32(i), 1, 0}}, Material: i % 3}
		tri.HasUV = i%2 == 0
		tri.UV = [3]mgl32.Vec2{{0, 0}, {1, 0}, {0, 1}}
		d.Triangles = append(d.Triangles, tri)
	}
	d.Meshes = append(d.Meshes, MeshDesc{Material: 0}) // empty
	big := randomMesh(rng, 40000)
	big.Material = 1
	for i := 0; i < len(big.Indices); i += 97 { // degenerate triangles
		big.Positions[big.Indices[i+1]] = big.Positions[big.Indices[i]]
	}
	d.Meshes = append(d.Meshes, big, MeshDesc{Material: 0})
	for k := range 3 {
		m := randomMesh(rng, 3000)
		if k != 1 {
			for range m.Positions {
				m.Normals = append(m.Normals, vec3{0, 0, 1})
				m.UVs = append(m.UVs, mgl32.Vec2{rng.Float32(), rng.Float32()})
			}
		}
		for t := range len(m.Indices) / 3 {
			m.Materials = append(m.Materials, int32(t%2))
		}
		if k == 2 {
			m.Materials[5] = 2 // normal-mapped: tangents
		}
		d.Meshes = append(d.Meshes, m)
	}
	for range 50 {
		d.Spheres = append(d.Spheres, SphereDesc{Center: vec3{rng.Float32() * 10, rng.Float32() * 10, rng.Float32() * 10}, Radius: 0.3})
	}
	var first []BVHNode
	for _, procs := range []int{1, 2, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			s, err := Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			want := sortedCopy(t, d)
			if !slices.Equal(s.Nodes, want.Nodes) {
				t.Errorf("GOMAXPROCS %d: the nodes differ", procs)
			}
			if first == nil {
				first = s.Nodes
			} else if !slices.Equal(s.Nodes, first) {
				t.Errorf("GOMAXPROCS %d: the nodes differ from one core's", procs)
			}
			if !slices.Equal(s.Triangles, want.Triangles) || !slices.Equal(s.TriangleAttrs, want.TriangleAttrs) {
				t.Errorf("GOMAXPROCS %d: the triangles or their attributes differ (%d and %d triangles)", procs, len(s.Triangles), len(want.Triangles))
			}
			if !slices.Equal(s.Vertices, want.Vertices) || !slices.Equal(s.Tangents, want.Tangents) {
				t.Errorf("GOMAXPROCS %d: the vertices differ", procs)
			}
			if len(s.Triangles) == 0 || len(s.Emitters) == 0 || len(s.Tangents) == 0 {
				t.Errorf("GOMAXPROCS %d: %d triangles, %d emitters, %d tangents: the scene misses what it tests", procs, len(s.Triangles), len(s.Emitters), len(s.Tangents))
			}
		}()
	}
}

// sortedCopy compiles d's triangles and spheres the plain way: a copy of
// every triangle that is not degenerate, the BVH built over their
// bounds, and the copy put in its order.
func sortedCopy(t *testing.T, d *SceneDesc) *Scene {
	s := &Scene{}
	tris, attrs := s.compileTriangles(d)
	var prims []bvhPrim
	for i := range tris {
		var p bvhPrim
		p.setTriangle(&tris[i], uint32(i))
		prims = append(prims, p)
	}
	for i, sp := range d.Spheres {
		sh := newSphere(sp.Center, sp.Radius, uint32(sp.Material))
		lo, hi := sh.bounds()
		prims = append(prims, bvhPrim{lo: lo, hi: hi, index: uint32(i), kind: LeafShapes})
	}
	s.Nodes = buildBVH(prims)
	slot := make([]uint32, len(prims))
	nt := 0
	for i, p := range prims {
		if p.kind == LeafTriangles {
			slot[i] = uint32(nt)
			s.Triangles = append(s.Triangles, tris[p.index])
			s.TriangleAttrs = append(s.TriangleAttrs, attrs[p.index])
			nt++
		} else {
			slot[i] = uint32(i - nt)
		}
	}
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Count > 0 {
			n.Index = slot[n.Index]
		}
	}
	if len(tris) != len(s.Triangles) {
		t.Fatalf("%d triangles sorted of %d", len(s.Triangles), len(tris))
	}
	return s
}

// TestCompileOneMesh: a scene of one mesh, whose triangles Compile makes
// without searching for their mesh (put), gets the nodes, triangles and
// attributes of the plain way, bit for bit, on one core: with and without
// normals and UVs, with per-triangle materials and degenerate triangles,
// large and small.
func TestCompileOneMesh(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct {
		n      int
		shaded bool
	}{{40000, true}, {40000, false}, {50, true}} {
		m := randomMesh(rng, c.n)
		if c.shaded {
			for range m.Positions {
				m.Normals = append(m.Normals, vec3{0, 0, 1})
				m.UVs = append(m.UVs, mgl32.Vec2{rng.Float32(), rng.Float32()})
			}
			for tr := range len(m.Indices) / 3 {
				m.Materials = append(m.Materials, int32(tr%2))
			}
		}
		for i := 0; i < len(m.Indices); i += 3 * 31 { // degenerate triangles
			m.Positions[m.Indices[i+2]] = m.Positions[m.Indices[i]]
		}
		d := &SceneDesc{
			Settings:  Settings{Width: 1, Height: 1, Samples: 1},
			Camera:    CameraDesc{Position: vec3{0, 0, -1}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 40},
			Materials: []Material{{Texture: NoTexture}, {Texture: NoTexture}},
			Meshes:    []MeshDesc{m},
		}
		s, err := Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		want := sortedCopy(t, d)
		if !slices.Equal(s.Nodes, want.Nodes) || !slices.Equal(s.Triangles, want.Triangles) || !slices.Equal(s.TriangleAttrs, want.TriangleAttrs) {
			t.Errorf("%d triangles, shaded %v: the scene differs from the plain way's (%d and %d triangles)", c.n, c.shaded, len(s.Triangles), len(want.Triangles))
		}
		if c.shaded && s.TriangleAttrs[0].Flags == 0 {
			t.Errorf("%d triangles: no shading flags, the test misses what it tests", c.n)
		}
	}
}
