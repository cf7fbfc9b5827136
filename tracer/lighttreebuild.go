package tracer

import (
	"math"
	"math/bits"
	"sync"

	"github.com/tracerender/trace/tracer/fmath"
)

// The light tree's build (lighttree.go has the tree and its descent):
// pbrt-v4's BVHLightSampler::buildBVH, a binary tree with one emitter per
// leaf, split where pbrt's EvaluateCost is least.

// lightPrim is an emitter as the light tree's build sees it.
type lightPrim struct {
	k        uint32 // the emitter's index in Scene.Emitters, or (point) the light's in Scene.Lights
	point    bool   // a point or spot light
	lo, hi   vec3
	c        vec3 // the middle of lo–hi
	axis     vec3
	cosTheta float32
	cosE     float32 // cos θe (LightNode.CosThetaE)
	power    float32
	twoSided bool
}

// lightBounds is what the build knows of a set of emitters: their
// bounds, power, the sum of their normal cones' axes and how many they
// are, whether one of them emits every way (a sphere) or toward both
// sides, the widest of their own normal cones (a spot's inner angle:
// cosO, the least cosTheta) and of their emission past it (cosE, the
// least), and (for a subtree built) their normal cone, axis and cosTheta.
type lightBounds struct {
	lo, hi     vec3
	axisSum    vec3
	power      float32
	n          int
	whole      bool
	twoSided   bool
	cosO, cosE float32
	axis       vec3
	cosTheta   float32
}

func emptyLightBounds() lightBounds {
	return lightBounds{lo: vec3{infinity, infinity, infinity}, hi: vec3{-infinity, -infinity, -infinity}, cosO: 1, cosE: 1}
}

func (b *lightBounds) add(p *lightPrim) {
	b.lo, b.hi = vmin(b.lo, p.lo), vmax(b.hi, p.hi)
	b.axisSum = b.axisSum.Add(p.axis)
	b.power += p.power
	b.n++
	b.whole = b.whole || p.cosTheta <= -1
	b.twoSided = b.twoSided || p.twoSided
	b.cosO, b.cosE = min(b.cosO, p.cosTheta), min(b.cosE, p.cosE)
}

func (b *lightBounds) merge(o *lightBounds) {
	b.lo, b.hi = vmin(b.lo, o.lo), vmax(b.hi, o.hi)
	b.axisSum = b.axisSum.Add(o.axisSum)
	b.power += o.power
	b.n += o.n
	b.whole = b.whole || o.whole
	b.twoSided = b.twoSided || o.twoSided
	b.cosO, b.cosE = min(b.cosO, o.cosO), min(b.cosE, o.cosE)
}

// spreadCos is the split cost's cosine of the half-angle of the normals
// of b's emitters: −1 (every way) with a sphere among them, else 2R − 1,
// R the mean length of their summed axes (1 for equal normals, ½ for
// normals spread evenly over a hemisphere, 0 over the sphere), widened
// by the widest of their own cones (a spot's inner angle; none for a
// surface). An estimate for the cost only: the nodes' cones bound their
// emitters'.
func (b *lightBounds) spreadCos() float32 {
	if b.whole || b.n == 0 {
		return -1
	}
	c := max(-1, min(1, 2*length(b.axisSum)/float32(b.n)-1))
	if b.cosO < 1 {
		c = cosAddAngles(c, b.cosO)
	}
	return c
}

// cosAddAngles returns cos(min(π, a + b)) for angles a, b in [0, π]
// given by their cosines.
func cosAddAngles(cosA, cosB float32) float32 {
	if cosB < -cosA { // a + b > π
		return -1
	}
	return max(-1, float32(cosA*cosB)-float32(safeSqrt1m(cosA)*safeSqrt1m(cosB)))
}

// surfaceArea returns the area of the box lo–hi, 0 for an empty one.
func surfaceArea(lo, hi vec3) float32 {
	dx, dy, dz := hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]
	if !(dx >= 0 && dy >= 0 && dz >= 0) {
		return 0
	}
	return 2 * (float32(dx*dy) + float32(dy*dz) + float32(dz*dx))
}

// orientationCost is pbrt-v4's M_Ω of a cone of half-angle θo (cosine
// cosT) whose emitters emit up to θe (cosine cosE) past it: the solid
// angle it lights, weighted by cosine. θe = π/2 (a surface's) and θo + θe
// ≥ π have their own shorter forms of pbrt's formula.
func orientationCost(cosT, cosE float32) float32 {
	sinT := safeSqrt1m(cosT)
	if cosE == 0 && cosT > 0 { // θe = π/2, θo < π/2: θw = θo + π/2
		return float32(2*pi*(1-cosT)) + float32(pi/2*(float32(pi*sinT)+2*cosT))
	}
	thetaO := fmath.Acos(cosT)
	thetaW := thetaO + fmath.Acos(cosE)
	if thetaW >= pi || cosE == 0 { // θw = π
		return float32(2*pi*(1-cosT)) + float32(float32(pi*sinT)*(pi-thetaO))
	}
	// pbrt's: 2π(1 − cos θo) + π/2 (2 θw sin θo − cos(θo − 2θw) − 2 θo sin θo + cos θo).
	m := float32(float32(2*float32(thetaW*sinT))-fmath.Cos(thetaO-float32(2*thetaW))) - float32(2*float32(thetaO*sinT)) + cosT
	return float32(2*pi*(1-cosT)) + float32(pi/2*m)
}

// splitCost is pbrt-v4's EvaluateCost of one side of a split, before the
// factor for the axis's extent: power × M_Ω × surface area.
func splitCost(b *lightBounds) float32 {
	if b.n == 0 {
		return 0
	}
	return float32(float32(b.power*orientationCost(b.spreadCos(), b.cosE)) * surfaceArea(b.lo, b.hi))
}

// lightBuilder builds the light tree into its arrays.
type lightBuilder struct {
	prims  []lightPrim
	nodes  []LightNode
	trails []uint32 // by emitter
}

// lightBuckets is the number of buckets per axis of the build's splits.
const lightBuckets = 12

// lightParallelMin is the number of emitters from which the build makes
// a subtree's first child on another goroutine.
const lightParallelMin = 1 << 14

// buildLightTree builds Scene.LightNodes over s.Emitters, power[k] the
// power of emitter k, and (TreeLights) the lights inTree, and sets the
// emitters' Trails. Splits are chosen as
// pbrt-v4's BVHLightSampler chooses them (EvaluateCost: power × M_Ω ×
// surface area, over 12 buckets per axis; M_Ω of an estimate of the
// normals' spread); the tree is the same whatever the number of cores.
func (s *Scene) buildLightTree(power []float64) {
	s.LightNodes = nil
	ne := len(s.Emitters)
	var lights []uint32
	for i := range s.Lights {
		if s.inTree(&s.Lights[i]) {
			lights = append(lights, uint32(i))
		}
	}
	n := ne + len(lights)
	if n == 0 {
		return
	}
	b := &lightBuilder{prims: make([]lightPrim, n), nodes: make([]LightNode, 2*n-1),
		trails: make([]uint32, ne)}
	parallelFor(ne, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			b.prims[k] = s.lightPrim(k, power[k])
		}
	})
	for j, i := range lights {
		b.prims[ne+j] = pointLightPrim(&s.Lights[i], i)
	}
	b.build(0, b.prims, 0, 0)
	s.LightNodes = b.nodes
	for k := range s.Emitters {
		s.Emitters[k].Trail = b.trails[k]
	}
}

// pointLightPrim returns light i, l, a point or spot light, as the build
// sees it (pbrt-v4's PointLight::Bounds and SpotLight::Bounds): a point,
// its power the intensity's luminance, so that its importance I/d² and an
// emitter's, L·A·cos/d² (luminance × area: compileLightPicks), weigh
// irradiance alike; a point light emits every way (cosTheta −1), a spot
// light about its axis at full intensity within its inner angle (θo: cos
// inner = (1 − SpotOffset)/SpotScale) and none past its outer angle
// (θo + θe: cos outer = −SpotOffset/SpotScale). θe is widened by
// spotSlop, so that the importance's rounding never makes 0 a light the
// spot's falloff, with its own rounding, does not.
func pointLightPrim(l *PointLight, i uint32) lightPrim {
	p := lightPrim{k: i, point: true, lo: l.Position, hi: l.Position, c: l.Position, axis: vec3{0, 0, 1}, cosTheta: -1,
		power: float32(float64(l.Intensity) * float64(luminance(l.Color)))}
	if !(p.power >= 0 && p.power <= math.MaxFloat32) {
		p.power = 0 // negative or not finite: never picked
	}
	if l.SpotDir != (vec3{}) {
		p.axis = l.SpotDir
		scale, offset := float64(l.SpotScale), float64(l.SpotOffset)
		cosIn := math.Max(-1, math.Min(1, (1-offset)/scale))
		p.cosTheta = float32(cosIn)
		// cos(outer − inner), in float64 with no function that could
		// differ between machines.
		if cosOut := math.Max(-1, math.Min(1, -offset/scale)); cosOut <= cosIn {
			sinIn, sinOut := math.Sqrt(float64(1-float64(cosIn*cosIn))), math.Sqrt(float64(1-float64(cosOut*cosOut)))
			p.cosE = float32(float64(float64(cosOut*cosIn)+float64(sinOut*sinIn)) - spotSlop)
		}
	}
	return p
}

// spotSlop is how much a spot's cos θe is lowered below cos(outer −
// inner): 2⁻¹⁸, 64 float32 steps of 1, where the importance's cosines
// (cos θ' against cos θe) and the falloff's (the cosine to the axis
// against the outer angle's) are each a few steps from the exact ones;
// 0.0008° past a penumbra of 15°, 0.16° past one of 0.001°.
const spotSlop = 0x1p-18

// lightPrim returns emitter k as the build sees it.
func (s *Scene) lightPrim(k int, power float64) lightPrim {
	e := s.Emitters[k]
	p := lightPrim{k: uint32(k), power: float32(power), cosTheta: 1} // cosE 0: θe = π/2
	if !(p.power <= math.MaxFloat32) {
		p.power = 0 // not finite: compileLightPicks samples no emitter
	}
	var m *Material
	if e.Kind == HitTriangle {
		t := &s.Triangles[e.Index]
		v1, v2 := t.P0.Add(t.E1), t.P0.Add(t.E2)
		p.lo, p.hi = vmin(t.P0, vmin(v1, v2)), vmax(t.P0, vmax(v1, v2))
		p.axis = normalize(cross(t.E1, t.E2))
		m = &s.Materials[s.TriangleAttrs[e.Index].Material]
	} else {
		sh := &s.Shapes[e.Index]
		p.lo, p.hi = sh.bounds()
		p.axis = sh.N
		if sh.Kind == ShapeSphere {
			p.axis, p.cosTheta = vec3{0, 0, 1}, -1
		}
		m = &s.Materials[sh.Material]
	}
	p.c, _ = centerRadius(p.lo, p.hi)
	p.twoSided = m.SingleSided == 0
	if !(m.LightPDF > 0) {
		p.power = 0 // nothing emits, or the total is not finite: never picked
	}
	return p
}

// build makes the subtree of the emitters ps (a part of b.prims, which
// the build reorders) at node i, depth inner nodes below the root,
// reached by trail. A subtree of n emitters takes 2n − 1 nodes. It returns the subtree's bounds, with
// its normal cone.
func (b *lightBuilder) build(i int, ps []lightPrim, depth int, trail uint32) lightBounds {
	if len(ps) == 1 {
		p := &ps[0]
		b.nodes[i] = leafNode(p)
		if !p.point {
			b.trails[p.k] = trail
		}
		lb := emptyLightBounds()
		lb.add(p)
		lb.axis, lb.cosTheta = p.axis, p.cosTheta
		return lb
	}
	m := b.split(ps, depth)
	left, right := ps[:m], ps[m:]
	var l, r lightBounds
	if len(ps) >= lightParallelMin {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); l = b.build(i+1, left, depth+1, trail) }()
		r = b.build(i+2*m, right, depth+1, trail|1<<depth)
		wg.Wait()
	} else {
		l = b.build(i+1, left, depth+1, trail)
		r = b.build(i+2*m, right, depth+1, trail|1<<depth)
	}
	all := l
	all.merge(&r)
	// The cone about the summed axes that holds both children's cones.
	all.axis, all.cosTheta = vec3{0, 0, 1}, -1
	if lsum := length(all.axisSum); !all.whole && lsum > 1e-6*float32(all.n) {
		all.axis = normalize(all.axisSum)
		all.cosTheta = min(cosAddAngles(dot(all.axis, l.axis), l.cosTheta), cosAddAngles(dot(all.axis, r.axis), r.cosTheta))
	}
	n := LightNode{Axis: all.axis, CosTheta: all.cosTheta, SinTheta: safeSqrt1m(all.cosTheta), CosThetaE: all.cosE,
		Power: all.power, Ref: uint32(i + 2*m)}
	n.Center, n.Radius = centerRadius(all.lo, all.hi)
	if all.twoSided {
		n.Flags = LightTwoSided
	}
	b.nodes[i] = n
	return all
}

// leafNode returns the leaf of emitter or light p.
func leafNode(p *lightPrim) LightNode {
	n := LightNode{Axis: p.axis, CosTheta: p.cosTheta, SinTheta: safeSqrt1m(p.cosTheta), CosThetaE: p.cosE,
		Power: p.power, Ref: p.k, Flags: LightLeaf}
	if p.point {
		n.Flags |= LightPoint
	}
	n.Center, n.Radius = centerRadius(p.lo, p.hi)
	if p.twoSided {
		n.Flags |= LightTwoSided
	}
	return n
}

// centerRadius returns the middle of the box lo–hi and half its diagonal.
func centerRadius(lo, hi vec3) (vec3, float32) {
	c := vec3{float32((lo[0] + hi[0]) * 0.5), float32((lo[1] + hi[1]) * 0.5), float32((lo[2] + hi[2]) * 0.5)}
	return c, float32(length(hi.Sub(lo)) * 0.5)
}

// split reorders idx into the emitters of the first child and those of the
// second, and returns how many the first has: pbrt-v4's cheapest bucket
// boundary; for a few emitters, the middle of their widest axis; the
// middle of the list where the centroids coincide (or the depth left must
// be kept for a balanced tree).
func (b *lightBuilder) split(ps []lightPrim, depth int) int {
	n := len(ps)
	if n == 2 || depth+bits.Len(uint(n-1)) >= maxLightDepth {
		return n / 2
	}
	lo, hi := vec3{infinity, infinity, infinity}, vec3{-infinity, -infinity, -infinity}
	clo, chi := lo, hi
	for k := range ps {
		p := &ps[k]
		lo, hi = vmin(lo, p.lo), vmax(hi, p.hi)
		clo, chi = vmin(clo, p.c), vmax(chi, p.c)
	}
	ext, w := hi.Sub(lo), chi.Sub(clo)
	if n <= lightSmall {
		return splitSmall(ps, w)
	}
	var bk [3][lightBuckets]lightBounds
	for dim := range bk {
		for j := range bk[dim] {
			bk[dim][j] = emptyLightBounds()
		}
	}
	// Below lightAllAxes emitters only the axis of the centroids' widest
	// extent is tried.
	use := [3]bool{w[0] > 0, w[1] > 0, w[2] > 0}
	if n < lightAllAxes {
		wide := 0
		if w[1] > w[wide] {
			wide = 1
		}
		if w[2] > w[wide] {
			wide = 2
		}
		use = [3]bool{}
		use[wide] = w[wide] > 0
	}
	for k := range ps {
		p := &ps[k]
		for dim := 0; dim < 3; dim++ {
			if use[dim] {
				bk[dim][bucket(p.c[dim], clo[dim], w[dim])].add(p)
			}
		}
	}
	maxExt := maxComponent(ext)
	bestCost, bestDim, bestCut := float32(math.Inf(1)), -1, 0
	for dim := 0; dim < 3; dim++ {
		if !use[dim] || !(ext[dim] > 0) {
			continue
		}
		// The costs of the second sides, from the last bucket down, then
		// of the first sides on the way up.
		var after [lightBuckets]float32
		side := emptyLightBounds()
		for cut := lightBuckets - 1; cut > 0; cut-- {
			side.merge(&bk[dim][cut])
			after[cut] = splitCost(&side)
		}
		side = emptyLightBounds()
		kr := maxExt / ext[dim]
		for cut := 1; cut < lightBuckets; cut++ {
			side.merge(&bk[dim][cut-1])
			if c := float32((splitCost(&side) + after[cut]) * kr); c < bestCost {
				bestCost, bestDim, bestCut = c, dim, cut
			}
		}
	}
	if bestDim < 0 {
		return n / 2
	}
	// Partitioned in place, from both ends: the same order for the same
	// emitters, so the tree does not depend on the goroutines.
	m, r := 0, n-1
	for {
		for m <= r && bucket(ps[m].c[bestDim], clo[bestDim], w[bestDim]) < bestCut {
			m++
		}
		for m < r && bucket(ps[r].c[bestDim], clo[bestDim], w[bestDim]) >= bestCut {
			r--
		}
		if m >= r {
			break
		}
		ps[m], ps[r] = ps[r], ps[m]
	}
	if m == 0 || m == n {
		return n / 2
	}
	return m
}

// lightSmall is the most emitters a node splits at the middle of its
// widest axis rather than by cost: most nodes are that small, and their
// cost would take most of the build's time.
const lightSmall = 8

// lightAllAxes is the fewest emitters for which a split is sought on all
// three axes (pbrt-v4's way) rather than on the widest.
const lightAllAxes = 1024

// splitSmall orders the few emitters ps along the axis on which their
// centroids spread widest (stably: ties keep their order) and returns the
// middle, w the centroids' extent.
func splitSmall(ps []lightPrim, w vec3) int {
	dim := 0
	if w[1] > w[dim] {
		dim = 1
	}
	if w[2] > w[dim] {
		dim = 2
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].c[dim] < ps[j-1].c[dim]; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	return len(ps) / 2
}

// bucket returns the split bucket of the centroid coordinate c in the
// extent lo to lo + w. It clamps before converting: Go leaves the integer
// of an infinite or NaN float to the machine (an extent that overflows
// float32), and the tree must be the same on every machine.
func bucket(c, lo, w float32) int {
	f := float32(lightBuckets*(c-lo)) / w
	if !(f > 0) {
		return 0
	}
	if f >= lightBuckets-1 {
		return lightBuckets - 1
	}
	return int(f)
}
