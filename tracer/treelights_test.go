package tracer

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracerender/trace/internal/radiometry"
)

// bulbHall is a diffuse floor (y = 0, albedo closedFormAlbedo) under
// bulbHallN point lights scattered 1 to 2 units up over it, every fourth
// a spot aimed down, one black, and two small lamps (quads of radiance
// closedFormLe) higher up: the light tree holds the lights beside the
// lamps.
type bulbHall struct {
	lights []PointLight
	quads  [][]radiometry.Vec
}

const bulbHallN = 64

// bulbHallScene returns the scene (max depth 1: the floor's radiance is
// the direct light alone), its lights picked as choice says, and what
// lights the floor.
func bulbHallScene(t testing.TB, choice PointLightTree) (*Scene, bulbHall) {
	d := &SceneDesc{
		Settings: Settings{Width: 8, Height: 8, Samples: 1, MaxDepth: 1, Seed: 5, PointLightTree: choice},
		Camera:   CameraDesc{Position: vec3{0, 0.5, -9}, LookAt: vec3{0, 0, 0}, FOV: 60},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{closedFormAlbedo, closedFormAlbedo, closedFormAlbedo}, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: closedFormLe, Texture: NoTexture},
		},
		Planes: []PlaneDesc{{Point: vec3{}, Normal: vec3{0, 1, 0}}},
	}
	var h bulbHall
	rng := rand.New(rand.NewPCG(3, 5))
	for k := 0; k < bulbHallN; k++ {
		l := PointLight{Position: vec3{16*rng.Float32() - 8, 1 + rng.Float32(), 16*rng.Float32() - 8},
			Color: vec3{1, 0.8, 0.6}, Intensity: 0.2 + 2*rng.Float32(), Falloff: FalloffInverseSquare}
		if k == 5 {
			l.Intensity = 0
		}
		if k%4 == 1 {
			l.SpotDir = normalize(vec3{0.3*rng.Float32() - 0.15, -1, 0.3*rng.Float32() - 0.15})
			l.SpotScale, l.SpotOffset = SpotCone(0.3, 0.9)
		}
		d.Lights = append(d.Lights, l)
		h.lights = append(h.lights, l)
	}
	for i := 0; i < 2; i++ {
		x := float64(6*i - 3)
		const s = 0.4
		d.Quads = append(d.Quads, QuadDesc{Corner: vec3{float32(x - s/2), 3, float32(-s / 2)}, Edge1: vec3{s, 0, 0},
			Edge2: vec3{0, 0, s}, Material: 1})
		h.quads = append(h.quads, []radiometry.Vec{{x - s/2, 3, -s / 2}, {x + s/2, 3, -s / 2}, {x + s/2, 3, s / 2}, {x - s/2, 3, s / 2}})
	}
	return compileTest(t, d), h
}

// exact returns the floor's radiance (red) at (x, 0, z): the lamps' form
// factors and every light's I·cos θ/d², its spot factor included.
func (h *bulbHall) exact(x, z float64) float64 {
	p, n := radiometry.Vec{x, 0, z}, radiometry.Vec{0, 1, 0}
	var f float64
	for _, q := range h.quads {
		f += radiometry.PolygonFormFactor(p, n, q)
	}
	e := closedFormLe * math.Pi * f
	for _, l := range h.lights {
		dx, dy, dz := float64(l.Position[0])-x, float64(l.Position[1]), float64(l.Position[2])-z
		d2 := dx*dx + dy*dy + dz*dz
		d := math.Sqrt(d2)
		spot := 1.0
		if l.SpotDir != (vec3{}) {
			// The cosine between the spot's axis and the way from it to p.
			cd := -(float64(l.SpotDir[0])*dx + float64(l.SpotDir[1])*dy + float64(l.SpotDir[2])*dz) / d
			a := math.Max(0, math.Min(1, cd*float64(l.SpotScale)+float64(l.SpotOffset)))
			spot = a * a
		}
		e += float64(l.Color[0]) * float64(l.Intensity) * spot * (dy / d) / d2
	}
	return closedFormAlbedo / math.Pi * e
}

// TestTreeLightsChosen: the path integrator puts point and spot lights of
// inverse-square falloff in the light tree when they count as more than
// PointLightTreeMin point lights (a spot as (1 − cos outer)/3), or when
// told to; never under the Whitted integrator, nor lights of another
// falloff. Rooms of 48 downlights of 35° and of 55° are sampled all, of
// 30 spots of 80° picked from the tree; a scene of point lights keeps the
// choice it had when they were counted, more than PointLightTreeMin of
// them.
func TestTreeLightsChosen(t *testing.T) {
	bulbs := func(n int, fo Falloff) []PointLight {
		ls := make([]PointLight, n)
		for i := range ls {
			ls[i] = PointLight{Intensity: 1, Falloff: fo}
		}
		return ls
	}
	// spots returns n spots of the cone inner/outer, in degrees.
	spots := func(n int, inner, outer float64) []PointLight {
		ls := bulbs(n, FalloffInverseSquare)
		for i := range ls {
			ls[i].SpotDir = vec3{0, -1, 0}
			ls[i].SpotScale, ls[i].SpotOffset = SpotCone(inner*math.Pi/180, outer*math.Pi/180)
		}
		return ls
	}
	path := Settings{Integrator: IntegratorPath}
	for _, c := range []struct {
		name string
		st   Settings
		ls   []PointLight
		want bool
	}{
		{"at the threshold", path, bulbs(PointLightTreeMin, FalloffInverseSquare), false},
		{"past it", path, bulbs(PointLightTreeMin+1, FalloffInverseSquare), true},
		{"past it, no falloff", path, bulbs(PointLightTreeMin+1, FalloffNone), false},
		{"suns", path, bulbs(100, FalloffDirectional), false},
		{"48 downlights of 20°/35°", path, spots(48, 20, 35), false},   // 2.89
		{"132 downlights of 20°/35°", path, spots(132, 20, 35), false}, // 7.96
		{"134 downlights of 20°/35°", path, spots(134, 20, 35), true},  // 8.08
		{"48 spots of 40°/55°", path, spots(48, 40, 55), false},        // 7.10
		{"24 spots of 60°/80°", path, spots(24, 60, 80), false},        // 6.61
		{"29 spots of 60°/80°", path, spots(29, 60, 80), false},        // 7.99
		{"30 spots of 60°/80°", path, spots(30, 60, 80), true},         // 8.26
		{"24 spots of 90°", path, spots(24, 0, 90), false},             // 8 less rounding: cos 90° > 0
		{"25 spots of 90°", path, spots(25, 0, 90), true},              // 8.33
		{"hard-edged spots", path, spots(60, 30, 30), false},           // 60 × 0.045
		{"8 bulbs and a narrow spot", path, append(bulbs(8, FalloffInverseSquare), spots(1, 0, 1)...), true},
		{"7 bulbs and three spots of 90°", path, append(bulbs(7, FalloffInverseSquare), spots(3, 10, 90)...), false}, // 8 less rounding
		{"always", Settings{PointLightTree: PointLightTreeAlways}, bulbs(1, FalloffInverseSquare), true},
		{"always, narrow spots", Settings{PointLightTree: PointLightTreeAlways}, spots(48, 20, 35), true},
		{"always, none to put", Settings{PointLightTree: PointLightTreeAlways}, bulbs(3, FalloffNone), false},
		{"never", Settings{PointLightTree: PointLightTreeNever}, bulbs(100, FalloffInverseSquare), false},
		{"whitted", Settings{Integrator: IntegratorWhitted}, bulbs(100, FalloffInverseSquare), false},
	} {
		if got := treeLights(&c.st, c.ls); got != c.want {
			t.Errorf("%s: tree lights %v, want %v", c.name, got, c.want)
		}
	}
	// Point lights (and lights of no falloff beside them, which count for
	// nothing) choose as they did when counted.
	for n := 1; n <= 300; n++ {
		ls := append(bulbs(n, FalloffInverseSquare), bulbs(n%5, FalloffNone)...)
		if got := treeLights(&path, ls); got != (n > PointLightTreeMin) {
			t.Errorf("%d point lights: tree lights %v, want %v", n, got, n > PointLightTreeMin)
		}
	}
}

// TestTreeLightPicksSumToOne: where the light tree holds point and spot
// lights beside emitters, at every point the probabilities of picking
// each emitter (emitterPick, what MIS weighs by: its trail through nodes
// that share with the lights) and each light, and of picking none, sum to
// 1 against a float64 walk of the whole tree; a pick's probability is the
// walk's, and an emitter's is emitterPick's bit for bit; also at the
// bulbs' own positions, where a bulb's importance is not finite.
func TestTreeLightPicksSumToOne(t *testing.T) {
	s, _ := bulbHallScene(t, PointLightTreeAuto)
	if !s.TreeLights || len(s.LightNodes) != 2*(len(s.Emitters)+bulbHallN)-1 {
		t.Fatalf("tree lights %v, %d light nodes for %d emitters and %d lights", s.TreeLights, len(s.LightNodes), len(s.Emitters), bulbHallN)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	lightPicks, atLights := 0, 0
	for j := 0; j < 600+bulbHallN; j++ {
		p := vec3{20*rng.Float32() - 10, 4 * rng.Float32(), 20*rng.Float32() - 10}
		if j%3 == 1 {
			p[1] = 0
		}
		if j >= 600 {
			// At a bulb (the black one too): its importance is infinite
			// (or 0/0), the pick ends at its parent, on both sides alike.
			p = s.Lights[j-600].Position
		}
		nrm := testNormal(j)
		want, lost := treeMass(s, p, nrm)
		sum := lost
		for k, e := range s.Emitters {
			got := float64(s.emitterPick(p, nrm, e.Kind, e.Index))
			if math.Abs(got-want[k]) > 1e-5*want[k] {
				t.Fatalf("at %v emitter %d has pick probability %g, the tree's walk %g", p, k, got, want[k])
			}
			sum += got
		}
		for _, w := range want[len(s.Emitters):] {
			sum += w
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("at %v the pick probabilities and the lost share %.3g sum to %.7f", p, lost, sum)
		}
		if j >= 600 && lost > 0 {
			atLights++
		}
		k, pick := s.pickLight(p, nrm, rng.Float32())
		switch {
		case k < 0:
			if lost == 0 || pick != 0 {
				t.Errorf("at %v the tree picks nothing (probability %g), where it loses a share of %g", p, pick, lost)
			}
		case k >= len(s.Emitters):
			lightPicks++
			if math.Abs(float64(pick)-want[k]) > 1e-5*want[k] || !(pick > 0) {
				t.Errorf("at %v light %d picked with probability %g, the walk's %g", p, k-len(s.Emitters), pick, want[k])
			}
		default:
			e := s.Emitters[k]
			if got := s.emitterPick(p, nrm, e.Kind, e.Index); math.Float32bits(got) != math.Float32bits(pick) {
				t.Errorf("at %v emitter %d picked with probability %g, emitterPick says %g", p, k, pick, got)
			}
		}
	}
	if lightPicks < 300 {
		t.Errorf("lights picked at %d points of 600: the lamps take the rest", lightPicks)
	}
	t.Logf("at %d of the %d bulbs' own positions the walk loses a share", atLights, bulbHallN)
}

// TestTreeLightsSampleTheirPdf: from points over the floor, under and
// among the lights, emitters and lights picked with random numbers are
// picked as often as the tree's walk says (Pearson's chi-square).
func TestTreeLightsSampleTheirPdf(t *testing.T) {
	s, _ := bulbHallScene(t, PointLightTreeAuto)
	const n = 200000
	for j, p := range []vec3{{0.1, 0, 0.3}, {-5, 1.5, 6}, {3, 0.6, -3}, {0, 20, 0}, {40, 1, 0}} {
		nrm := testNormal(j)
		rng := rand.New(rand.NewPCG(1, uint64(math.Float32bits(p[0]))))
		nk := len(s.Emitters) + len(s.Lights)
		counts := make([]float64, nk+1) // the last: no pick
		for i := 0; i < n; i++ {
			k, pick := s.pickLight(p, nrm, rng.Float32())
			if k < 0 {
				k = nk
			} else if !(pick > 0) {
				t.Fatalf("at %v: %d picked with probability %g", p, k, pick)
			}
			counts[k]++
		}
		want, lost := treeMass(s, p, nrm)
		chi2, dof, z := chiSquare(func(yield func(float64, float64) bool) {
			for k := range want {
				if !yield(n*want[k], counts[k]) {
					return
				}
			}
			yield(n*lost, counts[nk])
		})
		t.Logf("at %v, normal %v: chi-square %.1f with %d degrees of freedom (z = %.2f)", p, nrm, chi2, dof, z)
		if z > 4.5 || dof < 3 {
			t.Errorf("at %v: chi-square %.1f with %d degrees of freedom (z = %.1f): the picks do not follow the tree", p, chi2, dof, z)
		}
	}
}

// TestTreeLightsClosedForm: the floor under 64 bulbs and two lamps, the
// bulbs picked from the light tree one at a time, agrees with the exact
// answer (Σ I·cos θ/d² and Lambert's form factors) in every 4×4 block of
// points within four standard errors (plus 0.5 % for float32 geometry),
// and over the floor within 0.5 %; sampling every bulb agrees too. A
// sample of the tree has the higher variance but casts a fraction of the
// shadow rays: measured (not asserted) times are logged.
func TestTreeLightsClosedForm(t *testing.T) {
	const grid, extent, n = 16, 7.5, 256
	s, h := bulbHallScene(t, PointLightTreeAuto)
	all, _ := bulbHallScene(t, PointLightTreeNever)
	if !s.TreeLights || all.TreeLights {
		t.Fatalf("tree lights %v and %v", s.TreeLights, all.TreeLights)
	}
	var stTree, stAll Stats
	start := time.Now()
	tree, vTree := floorStatsCounting(s, grid, extent, n, &stTree)
	dTree := time.Since(start)
	start = time.Now()
	every, vAll := floorStatsCounting(all, grid, extent, n, &stAll)
	dAll := time.Since(start)
	exact := make([]float64, grid*grid)
	var sx, st, sa, svt, sva float64
	for j := 0; j < grid; j++ {
		for i := 0; i < grid; i++ {
			x := extent * (2*(float64(i)+0.5)/grid - 1)
			z := extent * (2*(float64(j)+0.5)/grid - 1)
			k := j*grid + i
			exact[k] = h.exact(x, z)
			sx, st, sa, svt, sva = sx+exact[k], st+tree[k], sa+every[k], svt+vTree[k], sva+vAll[k]
		}
	}
	samples := float64(grid * grid * n)
	t.Logf("mean over the floor: tree %.5g, all %.5g, exact %.5g; variance per sample: tree %.4g, all %.4g (ratio %.1f); "+
		"rays per sample: tree %.1f, all %.1f; %v and %v (RMSE² × time: tree/all %.2f, measured, not asserted)",
		st/grid/grid, sa/grid/grid, sx/grid/grid, svt/grid/grid, sva/grid/grid, svt/sva,
		float64(stTree.Rays)/samples, float64(stAll.Rays)/samples, dTree, dAll, svt*dTree.Seconds()/(sva*dAll.Seconds()))
	for _, c := range []struct {
		name string
		got  float64
	}{{"tree", st}, {"all", sa}} {
		if math.Abs(c.got/sx-1) > 0.005 {
			t.Errorf("%s: mean over the floor %.5g, exact %.5g (%+.2f %%, want within 0.5 %%)", c.name, c.got/grid/grid, sx/grid/grid, 100*(c.got/sx-1))
		}
	}
	for bj := 0; bj < grid; bj += 4 {
		for bi := 0; bi < grid; bi += 4 {
			var e, x, ve float64
			for j := bj; j < bj+4; j++ {
				for i := bi; i < bi+4; i++ {
					k := j*grid + i
					e, x = e+tree[k]/16, x+exact[k]/16
					ve += vTree[k] / (256 * n)
				}
			}
			if tol := 4*math.Sqrt(ve) + 0.005*x; math.Abs(e-x) > tol {
				t.Errorf("block at (%d, %d): tree %.5g, exact %.5g (off by %.3g, noise allows %.3g)", bi, bj, e, x, e-x, tol)
			}
		}
	}
	if !(svt > sva) {
		t.Errorf("variance per sample %.4g with the tree, %.4g sampling all: a pick of one bulb should be noisier", svt, sva)
	}
	if !(10*stTree.Rays < stAll.Rays) {
		t.Errorf("%d rays with the tree, %d sampling all: want under a tenth", stTree.Rays, stAll.Rays)
	}
}

// downlightCones are the inner and outer angles (radians) of
// downlightScene's spots: a narrow one, the architect's 20°/35°, an edge
// as hard as SpotCone allows, a wide one, one of no inner cone and one
// whose cone reaches the horizon.
var downlightCones = [][2]float64{{0, 0.02}, {0.349, 0.611}, {0.5, 0.5}, {1.2, 1.5}, {0, 0.3}, {0.1, math.Pi / 2}}

// downlightScene returns a floor under 12 spots of downlightCones,
// pointing down and tilted, beside two point lights and a lamp (a quad),
// all in one light tree (render.light_tree_points "always": by their
// cones, 3.5 point lights, "auto" would sample them all).
func downlightScene(t testing.TB) *Scene {
	d := &SceneDesc{
		Settings: Settings{Width: 8, Height: 8, Samples: 1, MaxDepth: 1, Seed: 5, PointLightTree: PointLightTreeAlways},
		Camera:   CameraDesc{Position: vec3{0, 0.5, -9}, LookAt: vec3{0, 0, 0}, FOV: 60},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{0.5, 0.5, 0.5}, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 5, Texture: NoTexture},
		},
		Planes: []PlaneDesc{{Point: vec3{}, Normal: vec3{0, 1, 0}}},
		Quads:  []QuadDesc{{Corner: vec3{-0.2, 3, -0.2}, Edge1: vec3{0.4, 0, 0}, Edge2: vec3{0, 0, 0.4}, Material: 1}},
		Lights: []PointLight{
			{Position: vec3{-3, 2, 1}, Color: vec3{1, 1, 1}, Intensity: 1, Falloff: FalloffInverseSquare},
			{Position: vec3{3, 2.5, -1}, Color: vec3{1, 1, 1}, Intensity: 1, Falloff: FalloffInverseSquare},
		},
	}
	for k := 0; k < 12; k++ {
		c := downlightCones[k%len(downlightCones)]
		dir := vec3{0, -1, 0}
		if k >= len(downlightCones) {
			dir = normalize(vec3{0.4 * float32(k%3-1), -1, 0.3})
		}
		l := PointLight{Position: vec3{float32(k%4)*2 - 3, 2.5, float32(k/4)*2 - 2}, Color: vec3{1, 0.9, 0.8},
			Intensity: 1 + float32(k%3), Falloff: FalloffInverseSquare, SpotDir: dir}
		l.SpotScale, l.SpotOffset = SpotCone(c[0], c[1])
		d.Lights = append(d.Lights, l)
	}
	return compileTest(t, d)
}

// TestTreeSpotsCutOffPastOuterAngle: a spot in the light tree is never
// picked at a point past its outer angle (pbrt-v4's cosTheta_e: nothing
// leaves past θo + θe), where the tree's bound used to allow π/2 past its
// inner angle; and it is picked wherever its falloff (spotFactor, as
// directLight evaluates it) sends any light, however little, right at
// the edge: with a pick probability of 0 only where the contribution is
// 0, the pick's estimate Σ P(i) · f_i / P(i) is still every light's sum.
// Points at random angles about each spot's outer one, most within 0.002
// radians of it, from no surface and from one that faces the spot.
func TestTreeSpotsCutOffPastOuterAngle(t *testing.T) {
	s := downlightScene(t)
	ne := len(s.Emitters)
	if !s.TreeLights || len(s.LightNodes) != 2*(ne+len(s.Lights))-1 {
		t.Fatalf("tree lights %v, %d light nodes for %d emitters and %d lights", s.TreeLights, len(s.LightNodes), ne, len(s.Lights))
	}
	rng := rand.New(rand.NewPCG(4, 2))
	var edge, faint, past, pastWide int
	for i := 2; i < len(s.Lights); i++ {
		l := &s.Lights[i]
		c := downlightCones[(i-2)%len(downlightCones)]
		a := [3]float64{float64(l.SpotDir[0]), float64(l.SpotDir[1]), float64(l.SpotDir[2])}
		// u, v: unit vectors across the axis a.
		u := [3]float64{a[1], -a[0], 0}
		if math.Abs(a[2]) > 0.9 {
			u = [3]float64{0, a[2], -a[1]}
		}
		nu := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
		u = [3]float64{u[0] / nu, u[1] / nu, u[2] / nu}
		v := [3]float64{a[1]*u[2] - a[2]*u[1], a[2]*u[0] - a[0]*u[2], a[0]*u[1] - a[1]*u[0]}
		for j := 0; j < 3000; j++ {
			theta := c[1] + 0.004*(rng.Float64()-0.5)
			if j%4 == 3 {
				theta = c[1] + 1.2*(rng.Float64()-0.3)
			}
			theta = max(0, theta)
			phi, dist := 2*math.Pi*rng.Float64(), 0.3+8*rng.Float64()
			var p vec3
			for k := range p {
				w := math.Cos(theta)*a[k] + math.Sin(theta)*(math.Cos(phi)*u[k]+math.Sin(phi)*v[k])
				p[k] = float32(float64(l.Position[k]) + dist*w)
			}
			_, dir, _ := spawnTo(p, vec3{}, 0, l.Position)
			f := spotFactor(l, dir)
			for _, nrm := range []vec3{{}, dir} {
				picks, _ := treeMass(s, p, nrm)
				pick := picks[ne+i]
				switch {
				case f > 0 && !(pick > 0):
					t.Fatalf("spot %d (%.3f to %.3f rad) sends %g of its light to %v, %.7f rad off its axis, but is picked there with probability %g",
						i, c[0], c[1], f, p, theta, pick)
				case f > 0 && f < 1e-6:
					faint++
				case f == 0 && theta < c[1]+0.002:
					edge++
				}
				// Past the outer angle, short of π/2 past the inner one.
				if theta > c[1]+0.01 && theta < c[0]+math.Pi/2-0.01 && nrm == (vec3{}) {
					if pick != 0 {
						t.Fatalf("spot %d (%.3f to %.3f rad) picked with probability %g at %v, %.4f rad off its axis, past its outer angle",
							i, c[0], c[1], pick, p, theta)
					}
					past++
					if theta > c[1]+0.3 {
						pastWide++
					}
				}
			}
		}
	}
	t.Logf("%d points lit less than 1e-6 of a spot's intensity, %d just past the edge (unlit) and %d well past it (%d more than 0.3 rad) where the spot is never picked",
		faint, edge, past, pastWide)
	if faint < 100 || edge < 1000 || past < 1000 {
		t.Errorf("%d faintly lit points, %d just past an edge, %d well past: want 100, 1000 and 1000 at least", faint, edge, past)
	}
}

// TestLightNodeEmissionCone: the light tree's nodes carry θe as pbrt-v4's
// LightBounds does: a surface's and a point light's leaf cos θe = 0 (π/2,
// the bound the importance always had, so their bits stay), a spot's the
// cosine of its outer angle less its inner (SpotCone's, within spotSlop
// and float32 rounding below it), an inner node its children's least; and
// the build's spread of a spot's normals is its inner angle.
func TestLightNodeEmissionCone(t *testing.T) {
	s := downlightScene(t)
	var spots int
	for i, n := range s.LightNodes {
		switch {
		case n.Flags&LightLeaf == 0:
			if want := min(s.LightNodes[i+1].CosThetaE, s.LightNodes[n.Ref].CosThetaE); n.CosThetaE != want {
				t.Errorf("node %d: cos θe %g, its children's least %g", i, n.CosThetaE, want)
			}
		case n.Flags&LightPoint != 0 && s.Lights[n.Ref].SpotDir != (vec3{}):
			l := &s.Lights[n.Ref]
			cosIn := math.Min(1, (1-float64(l.SpotOffset))/float64(l.SpotScale))
			cosOut := -float64(l.SpotOffset) / float64(l.SpotScale)
			want := math.Cos(math.Acos(cosOut) - math.Acos(cosIn))
			if got := float64(n.CosThetaE); !(got < want-spotSlop/2 && got > want-2*spotSlop) {
				t.Errorf("spot %d: cos θe %.8f, want %.8f less %g", n.Ref, got, want, spotSlop)
			}
			b := emptyLightBounds()
			p := pointLightPrim(l, n.Ref)
			b.add(&p)
			// Within 0.0005: a tilted axis's float32 length can put 2R − 1 a
			// step below 1, an angle of 0.0005 radians.
			if got := float64(b.spreadCos()); math.Abs(got-cosIn) > 5e-4 {
				t.Errorf("spot %d: the build's spread cos %.7f, its inner angle's %.7f", n.Ref, got, cosIn)
			}
			spots++
		default:
			if n.CosThetaE != 0 {
				t.Errorf("leaf %d (flags %d): cos θe %g, want 0", i, n.Flags, n.CosThetaE)
			}
		}
	}
	if spots != 12 {
		t.Errorf("%d spots in the tree, want 12", spots)
	}
}
