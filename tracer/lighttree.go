package tracer

// The light tree: next-event estimation picks an emitter by descending a
// binary tree over Scene.Emitters (and, with Scene.TreeLights, the point
// and spot lights of inverse-square falloff) from the shading point, choosing each
// child in proportion to an estimate of the light it sends there (pbrt-v4's
// BVHLightSampler and LightBounds::Importance, Cycles' light tree): the
// children's power over the squared distance to their bounds, times the
// cosine of the smallest angle between the direction to the point and the
// cone that bounds their normals, less the angle their bounds subtend; 0
// where that angle is past the one their light leaves at from their
// normals (θe: π/2 for a surface, a spot's outer angle less its inner).
// One random number picks the whole path down: at each level it is
// rescaled to [0, 1) within the child it chose. Emitter.Trail records each
// emitter's path, so that emitterPick gives the probability of any
// emitter at any point with the same operations.

// LightNode is a node of the light tree (Scene.LightNodes, node 0 the
// root, the first child of an inner node the next node): the bounds, power
// and normal and emission cones of the emitters under it (pbrt-v4's
// LightBounds). 52 bytes.
type LightNode struct {
	Center vec3    // the centre of the emitters' bounding box
	Radius float32 // half the box's diagonal
	// Axis and CosTheta bound the emitters' unit normals (the side they
	// emit toward, for a single-sided one): every normal lies within the
	// angle θo of Axis, cos θo = CosTheta (−1: any direction).
	Axis     vec3
	CosTheta float32
	SinTheta float32 // sin θo, ≥ 0
	// CosThetaE is cos θe: no emitter under the node sends light more
	// than θe past its own normal (axis), so none leaves past θo + θe
	// of Axis. 0 (π/2) for a surface, a sphere or a point light; for a
	// spot its outer angle less its inner (pointLightPrim), a little
	// more; an inner node takes its children's larger θe.
	CosThetaE float32
	Power     float32 // the emitters' power: luminance × area, summed
	// Ref is, for a leaf (LightLeaf), its emitter's index in
	// Scene.Emitters, or with LightPoint its light's in Scene.Lights;
	// for an inner node, its second child's index.
	Ref   uint32
	Flags uint32 // LightLeaf, LightTwoSided, LightPoint
}

// LightNode.Flags.
const (
	LightLeaf     = 1 // a leaf: Ref is an emitter
	LightTwoSided = 2 // some emitter under the node emits toward both sides
	LightPoint    = 4 // a leaf whose Ref is a point or spot light (Scene.TreeLights)
)

// maxLightDepth is the most inner nodes on a path from the light tree's
// root to a leaf: one bit of Emitter.Trail each.
const maxLightDepth = 32

// lightOneMinusEpsilon is the largest float32 below 1, to which the
// rescaled pick number is clamped.
const lightOneMinusEpsilon = float32(0x1.fffffep-1)

// cosSubClamped returns cos(max(0, a − b)) for angles a, b in [0, π]
// given by their sines and cosines (pbrt-v4's cosSubClamped).
func cosSubClamped(sinA, cosA, sinB, cosB float32) float32 {
	if cosA > cosB {
		return 1
	}
	return float32(cosA*cosB) + float32(sinA*sinB)
}

// sinSubClamped returns sin(max(0, a − b)), as cosSubClamped.
func sinSubClamped(sinA, cosA, sinB, cosB float32) float32 {
	if cosA > cosB {
		return 0
	}
	return float32(sinA*cosB) - float32(cosA*sinB)
}

// safeSqrt1m returns √(1 − c²), 0 where rounding makes it negative.
func safeSqrt1m(c float32) float32 { return sqrt32(max(0, 1-float32(c*c))) }

// importance returns the light tree's estimate of the light the emitters
// under n send to the point p whose surface has the unit normal nrm
// (pbrt-v4's LightBounds::Importance; zero nrm: a point of no surface):
// 0 where none can reach it.
func (n *LightNode) importance(p, nrm vec3) float32 {
	dx, dy, dz := p[0]-n.Center[0], p[1]-n.Center[1], p[2]-n.Center[2]
	dist2 := float32(dx*dx) + float32(dy*dy) + float32(dz*dz)
	d2 := max(dist2, n.Radius)
	// The angle between the axis and the direction from the centre to p,
	// and the angle the bounding sphere subtends from p.
	var dist, cosW float32 = 0, 1
	if dist2 > 0 {
		dist = sqrt32(dist2)
		cosW = dotXYZ(n.Axis[0], n.Axis[1], n.Axis[2], dx, dy, dz) / dist
	}
	if n.Flags&LightTwoSided != 0 {
		cosW = absf(cosW)
	}
	sinW := safeSqrt1m(cosW)
	r2 := float32(n.Radius * n.Radius)
	var cosB, sinB float32 = -1, 0
	if dist2 > r2 {
		sin2 := r2 / dist2
		cosB, sinB = sqrt32(max(0, 1-sin2)), sqrt32(sin2)
	}
	// θ' = max(0, θw − θo − θb); nothing leaves past θo + θe.
	cosX := cosSubClamped(sinW, cosW, n.SinTheta, n.CosTheta)
	sinX := sinSubClamped(sinW, cosW, n.SinTheta, n.CosTheta)
	cosP := cosSubClamped(sinX, cosX, sinB, cosB)
	if !(cosP > n.CosThetaE) {
		return 0
	}
	imp := float32(n.Power*cosP) / d2
	if dist > 0 && nrm != (vec3{}) {
		// The receiver's cosine, max(0, θi − θb) from its normal, on
		// either side (it may transmit).
		cosI := absf(dotXYZ(nrm[0], nrm[1], nrm[2], dx, dy, dz) / dist)
		cosPI := cosSubClamped(safeSqrt1m(cosI), cosI, sinB, cosB)
		if !(cosPI > 0) {
			return 0
		}
		imp = float32(imp * cosPI)
	}
	return imp
}

// childPick returns the probability with which the light tree's inner
// node at index i sends a pick seen from p (normal nrm) to its first
// child: its importance over both children's; a value that is not in
// [0, 1] (NaN: both children unimportant, or of infinite importance)
// ends the pick.
func (s *Scene) childPick(i uint32, p, nrm vec3) float32 {
	i0 := s.LightNodes[i+1].importance(p, nrm)
	i1 := s.LightNodes[s.LightNodes[i].Ref].importance(p, nrm)
	return i0 / (i0 + i1)
}

// pickLight returns the emitter that the light tree picks for the point p
// of unit normal nrm with the number u in [0, 1), and the probability of
// that pick; a probability of 0 (emitter −1) when every light is
// unimportant at p. A point or spot light i (TreeLights) is returned as
// len(Emitters) + i.
func (s *Scene) pickLight(p, nrm vec3, u float32) (int, float32) {
	var i uint32
	var pick float32 = 1
	for {
		n := &s.LightNodes[i]
		if n.Flags&LightLeaf != 0 {
			if n.Flags&LightPoint != 0 {
				return len(s.Emitters) + int(n.Ref), pick
			}
			return int(n.Ref), pick
		}
		p0 := s.childPick(i, p, nrm)
		if !(p0 >= 0) {
			return -1, 0
		}
		if u < p0 {
			u = min(u/p0, lightOneMinusEpsilon)
			pick = float32(pick * p0)
			i++
		} else {
			u = min((u-p0)/(1-p0), lightOneMinusEpsilon)
			pick = float32(pick * (1 - p0))
			i = n.Ref
		}
	}
}

// lightPick returns the probability with which pickLight picks emitter k
// at p (normal nrm): its Trail followed down the tree, with pickLight's
// operations (the point lights' share of each node it passes included).
func (s *Scene) lightPick(p, nrm vec3, k int) float32 {
	trail := s.Emitters[k].Trail
	var i uint32
	var pick float32 = 1
	for {
		n := &s.LightNodes[i]
		if n.Flags&LightLeaf != 0 {
			return pick
		}
		p0 := s.childPick(i, p, nrm)
		if !(p0 >= 0) {
			return 0
		}
		if trail&1 == 0 {
			pick = float32(pick * p0)
			i++
		} else {
			pick = float32(pick * (1 - p0))
			i = n.Ref
		}
		trail >>= 1
	}
}

// emitterOf returns the index in Scene.Emitters of the triangle or shape
// of the kind and index given, or −1: Emitters lists the triangles, then
// the shapes, each in index order.
func (s *Scene) emitterOf(kind HitKind, index uint32) int {
	lo, hi := 0, len(s.Emitters)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		e := &s.Emitters[mid]
		if e.Kind < kind || e.Kind == kind && e.Index < index {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.Emitters) && s.Emitters[lo].Kind == kind && s.Emitters[lo].Index == index {
		return lo
	}
	return -1
}
