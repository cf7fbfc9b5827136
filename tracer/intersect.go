package tracer

// Hit is the nearest intersection along a ray.
type Hit struct {
	T      float32
	Shape  int32 // index into Scene.Shapes; −1 for none
	B1, B2 float32
}

// bvhStackSize bounds the traversal stack. A node's depth is at most
// bvhStackSize−1 for the trees buildBVH makes from MaxShapes shapes, since
// every split leaves at least one shape on each side and most halve.
const bvhStackSize = 64

// invDir returns 1/d per component; a zero component gives ±infinity of
// the component's sign, which the slab test handles.
func invDir(d vec3) vec3 {
	return vec3{1 / d[0], 1 / d[1], 1 / d[2]}
}

// hitBox is the slab test: whether the ray meets the box within (0, tMax).
func hitBox(lo, hi, o, inv vec3, tMax float32) bool {
	t0, t1 := float32(0), tMax
	for a := 0; a < 3; a++ {
		tn := (lo[a] - o[a]) * inv[a]
		tf := (hi[a] - o[a]) * inv[a]
		if tn > tf {
			tn, tf = tf, tn
		}
		// NaN (0·∞ for a ray in the slab's plane) leaves the interval as is.
		if tn > t0 {
			t0 = tn
		}
		if tf < t1 {
			t1 = tf
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// Intersect returns the nearest hit along r, with Shape = −1 when there is
// none. rays counts the query for the statistics.
func (s *Scene) Intersect(r Ray) Hit {
	h := Hit{Shape: -1, T: r.TMax}
	if len(s.Nodes) > 0 {
		inv := invDir(r.Dir)
		var stack [bvhStackSize]uint32
		sp := 0
		node := uint32(0)
		for {
			n := &s.Nodes[node]
			if hitBox(n.Min, n.Max, r.Origin, inv, r.TMax) {
				if n.Count > 0 {
					for i := n.Index; i < n.Index+uint32(n.Count); i++ {
						if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok {
							r.TMax = t
							h = Hit{T: t, Shape: int32(i), B1: b1, B2: b2}
						}
					}
				} else {
					// Visit the nearer child first.
					first, second := node+1, n.Index
					if r.Dir[n.Axis] < 0 {
						first, second = second, first
					}
					stack[sp] = second
					sp++
					node = first
					continue
				}
			}
			if sp == 0 {
				break
			}
			sp--
			node = stack[sp]
		}
	}
	for i := s.NumBounded; i < len(s.Shapes); i++ {
		if t, b1, b2, ok := s.Shapes[i].intersect(&r); ok {
			r.TMax = t
			h = Hit{T: t, Shape: int32(i), B1: b1, B2: b2}
		}
	}
	return h
}

// Occluded reports whether anything lies along r within (0, r.TMax).
func (s *Scene) Occluded(r Ray) bool {
	for i := s.NumBounded; i < len(s.Shapes); i++ {
		if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
			return true
		}
	}
	if len(s.Nodes) == 0 {
		return false
	}
	inv := invDir(r.Dir)
	var stack [bvhStackSize]uint32
	sp := 0
	node := uint32(0)
	for {
		n := &s.Nodes[node]
		if hitBox(n.Min, n.Max, r.Origin, inv, r.TMax) {
			if n.Count > 0 {
				for i := n.Index; i < n.Index+uint32(n.Count); i++ {
					if _, _, _, ok := s.Shapes[i].intersect(&r); ok {
						return true
					}
				}
			} else {
				stack[sp] = n.Index
				sp++
				node = node + 1
				continue
			}
		}
		if sp == 0 {
			return false
		}
		sp--
		node = stack[sp]
	}
}
