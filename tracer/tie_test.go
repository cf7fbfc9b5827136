package tracer

import "testing"

// tieTree returns a scene built by hand: a root whose two children are
// leaves, child 2 holding primitive a of kind ka and child 3 primitive b
// of kind kb, with child 3's box tight around b and child 2's stretched
// toward the ray origin (−z), so that a ray along +z enters child 2 first
// or, with near3, child 3 first. The primitives are squares, or the
// triangle of one, in the plane z = 5: a ray along +z from z = 0 hits each
// at exactly t = 5, every hit a tie.
func tieTree(ka, kb uint16, near3 bool) *Scene {
	s := &Scene{}
	add := func(kind uint16) BVHNode {
		if kind == LeafTriangles {
			s.Triangles = append(s.Triangles, Triangle{P0: vec3{0, 0, 5}, E1: vec3{2, 0, 0}, E2: vec3{0, 2, 0}})
			return BVHNode{Min: vec3{0, 0, 5}, Max: vec3{2, 2, 5}, Index: uint32(len(s.Triangles) - 1), Count: 1, Info: LeafTriangles}
		}
		s.Shapes = append(s.Shapes, newQuad(vec3{0, 0, 5}, vec3{2, 0, 0}, vec3{0, 2, 0}, 0))
		return BVHNode{Min: vec3{0, 0, 5}, Max: vec3{2, 2, 5}, Index: uint32(len(s.Shapes) - 1), Count: 1, Info: LeafShapes}
	}
	na, nb := add(ka), add(kb)
	if near3 {
		na.Min[2] = 4 // entered at 4: first
	} else {
		nb.Min[2] = 4
	}
	s.FirstPlane = len(s.Shapes)
	s.Nodes = []BVHNode{{Min: vec3{0, 0, 4}, Max: vec3{2, 2, 5}, Index: 2}, {}, na, nb}
	var err error
	if s.wide, err = collapseBVH4(s.Nodes); err != nil {
		panic(err)
	}
	return s
}

// TestTieRule: of hits at the same distance, Intersect returns the one with
// the smaller primitive reference (shapes before triangles, then the
// smaller index), whichever leaf the traversal enters first.
func TestTieRule(t *testing.T) {
	r := Ray{Origin: vec3{0.5, 0.5, 0}, Dir: vec3{0, 0, 1}, TMax: infinity}
	for _, tc := range []struct {
		name   string
		ka, kb uint16
		kind   HitKind
		index  uint32
	}{
		{"two triangles", LeafTriangles, LeafTriangles, HitTriangle, 0},
		{"two shapes", LeafShapes, LeafShapes, HitShape, 0},
		{"a triangle and a shape", LeafTriangles, LeafShapes, HitShape, 0},
		{"a shape and a triangle", LeafShapes, LeafTriangles, HitShape, 0},
	} {
		for _, near3 := range []bool{false, true} {
			s := tieTree(tc.ka, tc.kb, near3)
			h := s.Intersect(r)
			if h.T != 5 || h.Kind != tc.kind || h.Index != tc.index {
				t.Errorf("%s, child 3 entered first %v: hit %+v, want kind %d index %d at 5", tc.name, near3, h, tc.kind, tc.index)
			}
		}
	}
}

// TestTieRulePlanes: a plane and a triangle at the same distance: the
// plane, a shape, wins, though the planes are tested first and the
// triangle is found after it.
func TestTieRulePlanes(t *testing.T) {
	s := tieTree(LeafTriangles, LeafTriangles, true)
	s.Shapes = append(s.Shapes, newPlane(vec3{0, 0, 5}, vec3{0, 0, -1}, 0))
	s.FirstPlane = 0
	h := s.Intersect(Ray{Origin: vec3{0.5, 0.5, 0}, Dir: vec3{0, 0, 1}, TMax: infinity})
	if h.T != 5 || h.Kind != HitShape || h.Index != 0 {
		t.Errorf("hit %+v, want the plane (shape 0) at 5", h)
	}
}
