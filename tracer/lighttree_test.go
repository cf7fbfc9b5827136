package tracer

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/tracerender/trace/internal/radiometry"
)

// manyLamps is a diffuse floor (y = 0, albedo closedFormAlbedo) under a
// grid of small square lamps of radiance closedFormLe, 1 unit up: the
// room of many lamps of which a few are near. Every fourth lamp is
// single-sided: half of those face the floor, half face up and send it
// nothing. Four small spheres hang lower among them.
type manyLamps struct {
	quads   [][]radiometry.Vec // the lamps that light the floor
	spheres []radiometry.Vec   // centres; radius manyLampsSphereR
}

const (
	manyLampsGrid    = 8   // lamps per side, 2 units apart
	manyLampsSize    = 0.2 // a lamp's side
	manyLampsSphereR = 0.05
)

// manyLampsScene returns the scene (max depth 1, so the floor's radiance
// is the direct light alone) and what lights the floor.
func manyLampsScene(t testing.TB) (*Scene, manyLamps) {
	d := &SceneDesc{
		Settings: Settings{Width: 8, Height: 8, Samples: 1, MaxDepth: 1, Seed: 5},
		Camera:   CameraDesc{Position: vec3{0, 0.5, -9}, LookAt: vec3{0, 0, 0}, FOV: 60},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{closedFormAlbedo, closedFormAlbedo, closedFormAlbedo}, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: closedFormLe, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: closedFormLe, Texture: NoTexture, SingleSided: 1},
		},
		Planes: []PlaneDesc{{Point: vec3{}, Normal: vec3{0, 1, 0}}},
	}
	var ml manyLamps
	const s = manyLampsSize
	for j := 0; j < manyLampsGrid; j++ {
		for i := 0; i < manyLampsGrid; i++ {
			x, z := float64(2*i-manyLampsGrid+1), float64(2*j-manyLampsGrid+1)
			c := vec3{float32(x - s/2), 1, float32(z - s/2)}
			e1, e2 := vec3{s, 0, 0}, vec3{0, 0, s} // e1×e2 faces down
			m := 1
			k := j*manyLampsGrid + i
			if k%4 == 1 {
				m = 2
			} else if k%4 == 3 {
				m, e1, e2 = 2, e2, e1 // single-sided, facing up
			}
			d.Quads = append(d.Quads, QuadDesc{Corner: c, Edge1: e1, Edge2: e2, Material: m})
			if k%4 != 3 {
				ml.quads = append(ml.quads, []radiometry.Vec{{x - s/2, 1, z - s/2}, {x + s/2, 1, z - s/2},
					{x + s/2, 1, z + s/2}, {x - s/2, 1, z + s/2}})
			}
		}
	}
	for i := 0; i < 4; i++ {
		c := radiometry.Vec{float64(4*i - 6), 0.6, float64(3 - 2*i)}
		d.Spheres = append(d.Spheres, SphereDesc{Center: vec3{float32(c[0]), float32(c[1]), float32(c[2])},
			Radius: manyLampsSphereR, Material: 1})
		ml.spheres = append(ml.spheres, c)
	}
	return compileTest(t, d), ml
}

// exact returns the floor's radiance at (x, 0, z).
func (ml *manyLamps) exact(x, z float64) float64 {
	p, n := radiometry.Vec{x, 0, z}, radiometry.Vec{0, 1, 0}
	var f float64
	for _, q := range ml.quads {
		f += radiometry.PolygonFormFactor(p, n, q)
	}
	for _, c := range ml.spheres {
		f += radiometry.SphereFormFactor(p, n, c, manyLampsSphereR)
	}
	return closedFormAlbedo * closedFormLe * f
}

// lightTestPoints returns points at which the tests ask the light tree
// for its picks: random ones in and around the emitters' bounds, every
// emitter's centre (inside the bounds of every node above it), and
// points on the floor.
func lightTestPoints(s *Scene, n int) []vec3 {
	rng := rand.New(rand.NewPCG(7, 11))
	var pts []vec3
	lo, hi := vec3{infinity, infinity, infinity}, vec3{-infinity, -infinity, -infinity}
	for k := range s.Emitters {
		e := s.Emitters[k]
		var c vec3
		if e.Kind == HitShape {
			a, b := s.Shapes[e.Index].bounds()
			c = a.Add(b).Mul(0.5)
		} else {
			t := &s.Triangles[e.Index]
			c = t.P0.Add(t.E1.Mul(1.0 / 3)).Add(t.E2.Mul(1.0 / 3))
		}
		lo, hi = vmin(lo, c), vmax(hi, c)
		if k < n {
			pts = append(pts, c)
		}
	}
	for i := 0; i < n; i++ {
		var p vec3
		for a := range p {
			w := hi[a] - lo[a] + 2
			p[a] = lo[a] - 1 + w*rng.Float32()
		}
		pts = append(pts, p, vec3{p[0], 0, p[2]})
	}
	return pts
}

// treeMass walks s's light tree from p as pickLight descends it, in
// float64, and returns each emitter's (and light's, after them)
// probability of being picked and
// the probability that the pick ends on the way, at a node both of
// whose children are unimportant at p (none of their emitters can light
// p: their importance bounds what they send there).
func treeMass(s *Scene, p, nrm vec3) (picks []float64, lost float64) {
	picks = make([]float64, len(s.Emitters)+len(s.Lights)) // a light in the tree as pickLight returns it
	var walk func(i uint32, mass float64)
	walk = func(i uint32, mass float64) {
		n := &s.LightNodes[i]
		if n.Flags&LightLeaf != 0 {
			if n.Flags&LightPoint != 0 {
				picks[len(s.Emitters)+int(n.Ref)] = mass
				return
			}
			picks[n.Ref] = mass
			return
		}
		p0 := float64(s.childPick(i, p, nrm))
		if !(p0 >= 0) {
			lost += mass
			return
		}
		walk(i+1, mass*p0)
		walk(n.Ref, mass*(1-p0))
	}
	walk(0, 1)
	return picks, lost
}

// testNormal returns the j-th of the shading normals the tests try: none
// (a point of no surface), up (the floor), and a tilted one.
func testNormal(j int) vec3 {
	return []vec3{{}, {0, 1, 0}, normalize(vec3{0.6, -0.3, 0.74})}[j%3]
}

// TestLightTreePicksSumToOne: at every point the probabilities with which
// the light tree picks each emitter (emitterPick, what MIS weighs by) and
// the probability that it picks none sum to 1; each is what a walk of the
// whole tree finds; a pick's own probability is emitterPick's, bit for
// bit; and where the tree picks nothing, the lost share is not 0. For the
// scene of many lamps, one quad, and a triangle mesh, at points with no
// normal, facing up and facing any way.
func TestLightTreePicksSumToOne(t *testing.T) {
	lamps, _ := manyLampsScene(t)
	one := closedFormScene(t, closedFormCases()[1], [3]float64{}, 1, 1)
	mesh := closedFormScene(t, closedFormCases()[3], [3]float64{}, 1, 1)
	for _, c := range []struct {
		name string
		s    *Scene
	}{{"lamps", lamps}, {"one quad", one}, {"hexagon mesh", mesh}} {
		s := c.s
		nothing, losing := 0, 0
		for j, p := range lightTestPoints(s, 200) {
			nrm := testNormal(j)
			want, lost := treeMass(s, p, nrm)
			sum := lost
			for k, e := range s.Emitters {
				got := float64(s.emitterPick(p, nrm, e.Kind, e.Index))
				if math.Abs(got-want[k]) > 1e-5*want[k] {
					t.Fatalf("%s: at %v emitter %d has pick probability %g, the tree's walk %g", c.name, p, k, got, want[k])
				}
				sum += got
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Errorf("%s: at %v the emitters' pick probabilities and the lost share %.3g sum to %.7f", c.name, p, lost, sum)
			}
			if lost > 0 {
				losing++
			}
			rng := rand.New(rand.NewPCG(uint64(math.Float32bits(p[0])), 3))
			k, pick := s.pickLight(p, nrm, rng.Float32())
			if k < 0 {
				nothing++
				if lost == 0 || pick != 0 {
					t.Errorf("%s: at %v the tree picks nothing (probability %g), where it loses a share of %g", c.name, p, pick, lost)
				}
				continue
			}
			e := s.Emitters[k]
			if got := s.emitterPick(p, nrm, e.Kind, e.Index); math.Float32bits(got) != math.Float32bits(pick) || !(pick > 0) {
				t.Errorf("%s: at %v emitter %d picked with probability %g, emitterPick says %g", c.name, p, k, pick, got)
			}
		}
		t.Logf("%s: some share lost at %d points, nothing picked at %d", c.name, losing, nothing)
	}
	// A plane is no emitter, whatever its material.
	if got := lamps.emitterPick(vec3{0, 0.5, 0}, vec3{0, 1, 0}, HitShape, uint32(lamps.FirstPlane)); got != 0 {
		t.Errorf("an emissive plane has pick probability %g", got)
	}
}

// TestLightTreeSamplesItsPdf: from points near the lamps and far from
// them, emitters picked with random numbers are picked as often as their
// probabilities say, and nothing as often as treeMass's lost share
// (Pearson's chi-square), where a tree that rescaled its number wrongly
// on the way down, or a pdf that followed another path, would not be.
func TestLightTreeSamplesItsPdf(t *testing.T) {
	s, _ := manyLampsScene(t)
	const n = 200000
	for j, p := range []vec3{{0.1, 0, 0.3}, {-5, 0.9, 6}, {3, 0.6, -3}, {0, 20, 0}, {40, 1, 0}} {
		nrm := testNormal(j)
		rng := rand.New(rand.NewPCG(1, uint64(math.Float32bits(p[0]))))
		counts := make([]float64, len(s.Emitters)+1) // the last: no pick
		for i := 0; i < n; i++ {
			k, pick := s.pickLight(p, nrm, rng.Float32())
			if k < 0 {
				k = len(s.Emitters)
			} else if !(pick > 0) {
				t.Fatalf("at %v: emitter %d picked with probability %g", p, k, pick)
			}
			counts[k]++
		}
		_, lost := treeMass(s, p, nrm)
		chi2, dof, z := chiSquare(func(yield func(float64, float64) bool) {
			for k, e := range s.Emitters {
				if !yield(n*float64(s.emitterPick(p, nrm, e.Kind, e.Index)), counts[k]) {
					return
				}
			}
			yield(n*lost, counts[len(s.Emitters)])
		})
		t.Logf("at %v, normal %v: chi-square %.1f with %d degrees of freedom (z = %.2f), %.3g of the picks lost", p, nrm, chi2, dof, z, lost)
		if z > 4.5 || dof < 3 {
			t.Errorf("at %v: chi-square %.1f with %d degrees of freedom (z = %.1f): the picks do not follow emitterPick", p, chi2, dof, z)
		}
	}
}

// floorStats traces n samples of the direct light at a grid of floor
// points (x, z in ±extent) of the many-lamps scene from just above, and
// returns the means and the variances per sample.
func floorStats(s *Scene, grid int, extent float64, n int) (mean, variance []float64) {
	var st Stats
	return floorStatsCounting(s, grid, extent, n, &st)
}

// floorStatsCounting is floorStats, counting the rays in st.
func floorStatsCounting(s *Scene, grid int, extent float64, n int, st *Stats) (mean, variance []float64) {
	for j := 0; j < grid; j++ {
		for i := 0; i < grid; i++ {
			x := extent * (2*(float64(i)+0.5)/float64(grid) - 1)
			z := extent * (2*(float64(j)+0.5)/float64(grid) - 1)
			q := vec3{float32(x), 0, float32(z)}
			o := vec3{float32(x * 0.95), 0.5, float32(z*0.95 - 0.1)}
			r := Ray{Origin: o, Dir: normalize(q.Sub(o)), TMax: infinity}
			var sum, sum2 float64
			for k := 0; k < n; k++ {
				smp := NewSampler(9, uint32(i), uint32(j), uint32(k))
				smp.SetDimension(cameraDims)
				v := float64(s.tracePath(r, s.Intersect(r), &smp, st)[0])
				sum, sum2 = sum+v, sum2+v*v
			}
			m := sum / float64(n)
			mean = append(mean, m)
			variance = append(variance, max(0, sum2/float64(n)-m*m)*float64(n)/float64(n-1))
		}
	}
	return mean, variance
}

// TestLightTreeClosedForm: the floor under many lamps, lit by emitters
// the light tree picks, agrees with the exact answer (Lambert's form
// factors) and with the pick by power alone that it replaced, in every
// 4×4 block of points within four standard errors (plus 1 % for float32
// geometry), and over the floor within 1 %; and its variance is at least
// 4 times lower than the power pick's (21 times, measured).
func TestLightTreeClosedForm(t *testing.T) {
	const grid, extent, n = 16, 7.5, 256
	s, ml := manyLampsScene(t)
	tree, vTree := floorStats(s, grid, extent, n)
	s.powerPicks = true
	power, vPower := floorStats(s, grid, extent, 4*n)
	exact := make([]float64, grid*grid)
	for j := 0; j < grid; j++ {
		for i := 0; i < grid; i++ {
			x := extent * (2*(float64(i)+0.5)/grid - 1)
			z := extent * (2*(float64(j)+0.5)/grid - 1)
			exact[j*grid+i] = ml.exact(x, z)
		}
	}
	sum := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s
	}
	st, sp, sx, svt, svp := sum(tree), sum(power), sum(exact), sum(vTree), sum(vPower)
	t.Logf("mean over the floor: tree %.5g, power %.5g, exact %.5g; variance per sample: tree %.4g, power %.4g (ratio %.1f)",
		st/grid/grid, sp/grid/grid, sx/grid/grid, svt/grid/grid, svp/grid/grid, svp/svt)
	for _, c := range []struct {
		name string
		got  float64
	}{{"tree", st}, {"power", sp}} {
		if math.Abs(c.got/sx-1) > 0.01 {
			t.Errorf("%s: mean over the floor %.5g, exact %.5g (%+.2f %%, want within 1 %%)", c.name, c.got/grid/grid, sx/grid/grid, 100*(c.got/sx-1))
		}
	}
	for bj := 0; bj < grid; bj += 4 {
		for bi := 0; bi < grid; bi += 4 {
			var e, p, x, ve, vp float64
			for j := bj; j < bj+4; j++ {
				for i := bi; i < bi+4; i++ {
					k := j*grid + i
					e, p, x = e+tree[k]/16, p+power[k]/16, x+exact[k]/16
					ve, vp = ve+vTree[k]/(256*n), vp+vPower[k]/(256*4*n)
				}
			}
			if tol := 4*math.Sqrt(ve) + 0.01*x; math.Abs(e-x) > tol {
				t.Errorf("block at (%d, %d): tree %.5g, exact %.5g (off by %.3g, noise allows %.3g)", bi, bj, e, x, e-x, tol)
			}
			if tol := 4*math.Sqrt(ve+vp) + 0.01*x; math.Abs(e-p) > tol {
				t.Errorf("block at (%d, %d): tree %.5g, power %.5g (off by %.3g, noise allows %.3g)", bi, bj, e, p, e-p, tol)
			}
		}
	}
	if !(svp > 4*svt) {
		t.Errorf("variance per sample %.4g with the light tree, %.4g with the power pick: not 4 times lower", svt/grid/grid, svp/grid/grid)
	}
}

// TestLightTreeBuild: the tree has one leaf per emitter, each reached by
// its Trail, every node's power the sum of its children's and its normal
// cone holding theirs; and it is the same built on one core as on all, for a
// mesh large enough to be built in parallel.
func TestLightTreeBuild(t *testing.T) {
	const n = 120 // a sphere mesh of n × 2n quads: 28 800 triangles
	d := &SceneDesc{
		Settings: Settings{Width: 4, Height: 4, Samples: 1, MaxDepth: 1},
		Camera:   CameraDesc{Position: vec3{0, 0, -5}, LookAt: vec3{}, FOV: 40},
		Materials: []Material{
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 1, Texture: NoTexture},
		},
	}
	m := MeshDesc{}
	for i := 0; i <= n; i++ {
		th := math.Pi * float64(i) / n
		for j := 0; j <= 2*n; j++ {
			ph := math.Pi * float64(j) / n
			m.Positions = append(m.Positions, vec3{float32(math.Sin(th) * math.Cos(ph)), float32(math.Cos(th)), float32(math.Sin(th) * math.Sin(ph))})
		}
	}
	for i := uint32(0); i < n; i++ {
		for j := uint32(0); j < 2*n; j++ {
			a, b := i*(2*n+1)+j, i*(2*n+1)+j+1
			m.Indices = append(m.Indices, a, a+2*n+1, b, b, a+2*n+1, b+2*n+1)
		}
	}
	d.Meshes = []MeshDesc{m}
	all := compileTest(t, d)
	prev := runtime.GOMAXPROCS(1)
	one := compileTest(t, d)
	runtime.GOMAXPROCS(prev)
	if len(all.Emitters) < lightParallelMin {
		t.Fatalf("%d emitters: too few to build in parallel", len(all.Emitters))
	}
	if !slices.Equal(all.LightNodes, one.LightNodes) || !slices.Equal(all.Emitters, one.Emitters) {
		t.Errorf("the light tree differs built on %d cores and on one", prev)
	}
	checkLightTree(t, all)
	s, _ := manyLampsScene(t)
	checkLightTree(t, s)
}

// checkLightTree checks s's light tree's structure (see TestLightTreeBuild).
func checkLightTree(t *testing.T, s *Scene) {
	t.Helper()
	nodes := s.LightNodes
	if len(nodes) != 2*len(s.Emitters)-1 {
		t.Fatalf("%d light nodes for %d emitters", len(nodes), len(s.Emitters))
	}
	angle := func(c float32) float64 { return math.Acos(max(-1, min(1, float64(c)))) }
	leaves := 0
	var above []uint32
	var walk func(i uint32, trail uint32, depth int)
	walk = func(i uint32, trail uint32, depth int) {
		nd := &nodes[i]
		if nd.Flags&LightLeaf != 0 {
			leaves++
			if s.Emitters[nd.Ref].Trail != trail {
				t.Fatalf("leaf %d: emitter %d's trail %b, reached by %b", i, nd.Ref, s.Emitters[nd.Ref].Trail, trail)
			}
			// Its normals within every cone above it.
			for _, a := range above {
				if up := &nodes[a]; up.CosTheta > -1 && angle(dot(up.Axis, nd.Axis))+angle(nd.CosTheta) > angle(up.CosTheta)+1e-3 {
					t.Fatalf("leaf %d: its normals are not within node %d's cone", i, a)
				}
			}
			return
		}
		if sum := float64(nodes[i+1].Power) + float64(nodes[nd.Ref].Power); math.Abs(sum-float64(nd.Power)) > 1e-3*sum {
			t.Fatalf("node %d: power %g, its children's %g", i, nd.Power, sum)
		}
		above = append(above, i)
		walk(i+1, trail, depth+1)
		walk(nd.Ref, trail|1<<depth, depth+1)
		above = above[:len(above)-1]
	}
	walk(0, 0, 0)
	if leaves != len(s.Emitters) {
		t.Errorf("%d leaves for %d emitters", leaves, len(s.Emitters))
	}
}

// TestOrientationCost: the build's M_Ω is pbrt-v4's (EvaluateCost:
// 2π(1 − cos θo) + π/2 (2θw sin θo − cos(θo − 2θw) − 2θo sin θo + cos θo),
// θw = min(θo + θe, π)) in float64, within float32 rounding, for a
// surface's θe = π/2 and a spot's narrower ones, and shrinks with θe:
// a cluster of spots that light a narrow cone costs less than as many
// surfaces of the same normals (short of θo + θe = π, where both cover
// the sphere).
func TestOrientationCost(t *testing.T) {
	pbrt := func(thetaO, thetaE float64) float64 {
		thetaW := math.Min(thetaO+thetaE, math.Pi)
		s, c := math.Sin(thetaO), math.Cos(thetaO)
		return 2*math.Pi*(1-c) + math.Pi/2*(2*thetaW*s-math.Cos(thetaO-2*thetaW)-2*thetaO*s+c)
	}
	for _, thetaE := range []float64{math.Pi / 2, 0.02, 0.26, 0.6, 1.2, 1.5} {
		cosE := float32(math.Cos(thetaE))
		if thetaE == math.Pi/2 {
			cosE = 0
		}
		prev := float32(-1)
		for i := 0; i <= 64; i++ {
			cosT := float32(1 - float64(i)/32)
			got := orientationCost(cosT, cosE)
			want := pbrt(math.Acos(float64(cosT)), math.Acos(float64(cosE)))
			if math.Abs(float64(got)-want) > 2e-6+1e-5*want {
				t.Errorf("θe %.3f, cos θo %g: M_Ω %g, pbrt's %g", thetaE, cosT, got, want)
			}
			if !(got >= prev) {
				t.Errorf("θe %.3f, cos θo %g: M_Ω %g, less than %g at a narrower θo", thetaE, cosT, got, prev)
			}
			prev = got
			// Below θw = π, where both are the whole sphere's.
			if thetaE < math.Pi/2 && math.Acos(float64(cosT))+thetaE < math.Pi-0.01 && !(got < orientationCost(cosT, 0)) {
				t.Errorf("θe %.3f, cos θo %g: M_Ω %g, not below %g at θe = π/2", thetaE, cosT, got, orientationCost(cosT, 0))
			}
		}
	}
}
