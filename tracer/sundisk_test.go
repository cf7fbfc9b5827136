package tracer

import (
	"math"
	"testing"
)

// Tests of directional lights with a sun disk (PointLight.DiskOneMinusCos).

// sunScene is a diffuse floor y = 0 of albedo sunAlbedo under a sun of
// irradiance sunE whose disk, angle degrees across, is centred on the
// unit direction toward (cos e, sin e, 0), e the elevation in degrees,
// under a black roof y = 1 over x ≤ 0 when roof is set; max_depth 1, a
// black background.
func sunScene(t testing.TB, angle, e float64, roof bool, integ Integrator) *Scene {
	er := e * math.Pi / 180
	d := &SceneDesc{
		Settings: Settings{MaxDepth: 1, Integrator: integ},
		Camera:   CameraDesc{Position: vec3{0, 2, -3}, LookAt: vec3{}},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{sunAlbedo, sunAlbedo, sunAlbedo}, Texture: NoTexture},
			{Kind: MaterialDiffuse, Texture: NoTexture},
		},
		Planes: []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Lights: []PointLight{{Position: vec3{float32(math.Cos(er)), float32(math.Sin(er)), 0}, Color: vec3{1, 1, 1},
			Intensity: sunE, Falloff: FalloffDirectional, DiskOneMinusCos: SunDisk(angle)}},
	}
	if roof {
		d.Quads = []QuadDesc{{Corner: vec3{-100, 1, -100}, Edge1: vec3{0, 0, 200}, Edge2: vec3{100, 0, 0}, Material: 1}}
	}
	return compileTest(t, d)
}

const (
	sunAlbedo = 0.5
	sunE      = 3.0
)

// sunVisibleIrradiance integrates, in float64, the irradiance at the floor
// point (x, 0, 0) of sunScene's disk (half-angle alpha radians, centre at
// elevation e radians) over the directions that pass the roof (when roof):
// E·∫ cos θ dω / (π sin²α) over the visible part of the cone.
func sunVisibleIrradiance(x, alpha, e float64, roof bool) float64 {
	const nr, nphi = 600, 600
	w := [3]float64{math.Cos(e), math.Sin(e), 0}
	t := [3]float64{-math.Sin(e), math.Cos(e), 0} // ⟂ w, in the x–y plane
	b := [3]float64{0, 0, 1}
	omc := 1 - math.Cos(alpha)
	var sum float64
	for i := 0; i < nr; i++ {
		s := omc * (float64(i) + 0.5) / nr // 1 − cos θ: equal solid angles
		cosT, sinT := 1-s, math.Sqrt(s*(2-s))
		for j := 0; j < nphi; j++ {
			phi := 2 * math.Pi * (float64(j) + 0.5) / nphi
			var o [3]float64
			for k := range o {
				o[k] = w[k]*cosT + t[k]*sinT*math.Cos(phi) + b[k]*sinT*math.Sin(phi)
			}
			if o[1] <= 0 {
				continue
			}
			if roof && x+o[0]/o[1] <= 0 && x+o[0]/o[1] >= -100 {
				continue
			}
			sum += o[1]
		}
	}
	dOmega := 2 * math.Pi * omc / (nr * nphi)
	sin2 := math.Sin(alpha) * math.Sin(alpha)
	return sunE * sum * dOmega / (math.Pi * sin2)
}

// sunFloorRadiance estimates the radiance of the floor point (x, 0, 0)
// seen from above, n samples, with the standard error of the mean.
func sunFloorRadiance(s *Scene, x float64, n int) (mean, se float64) {
	o := vec3{float32(x), 1e-3, -0.5}
	r := Ray{Origin: o, Dir: normalize(vec3{float32(x), 0, 0}.Sub(o)), TMax: infinity}
	var sum, sum2 float64
	var st Stats
	for i := 0; i < n; i++ {
		smp := NewSampler(21, 0, 0, uint32(i))
		smp.SetDimension(cameraDims)
		v := float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
		sum, sum2 = sum+v, sum2+v*v
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(max(0, sum2/float64(n)-mean*mean) / float64(n))
}

// TestSunDiskIrradiance: a sun disk lights an open floor as the delta
// light of the same irradiance does (ρ/π · E · cos β, the disk entirely
// above the horizon), whatever its size; and under a roof's edge it casts
// a penumbra whose every point gets the share of the disk it sees, as a
// numerical integration over the disk says (within four standard errors
// plus 0.5 %), where the delta light gives all or nothing.
func TestSunDiskIrradiance(t *testing.T) {
	const e, n = 60.0, 4096
	er := e * math.Pi / 180
	open := sunAlbedo / math.Pi * sunE * math.Sin(er)
	for _, angle := range []float64{0.526, 10, 40} {
		got, se := sunFloorRadiance(sunScene(t, angle, e, false, IntegratorPath), 0.3, n)
		if math.Abs(got-open) > 4*se+1e-4*open {
			t.Errorf("angle %g°: open floor %.6g ± %.2g, want %.6g", angle, got, se, open)
		}
	}
	const angle = 20.0
	alpha := angle / 2 * math.Pi / 180
	s := sunScene(t, angle, e, true, IntegratorPath)
	delta := sunScene(t, 0, e, true, IntegratorPath)
	// The penumbra: the edge of the roof's shadow lies at x = −cot(e ± α).
	lo, hi := -1/math.Tan(er-alpha), -1/math.Tan(er+alpha)
	soft := 0
	for k := 0; k <= 8; k++ {
		x := lo + (hi-lo)*(float64(k)+0.5)/9
		want := sunAlbedo / math.Pi * sunVisibleIrradiance(x, alpha, er, true)
		got, se := sunFloorRadiance(s, x, n)
		d, _ := sunFloorRadiance(delta, x, 1)
		t.Logf("x %.4f: %.5g ± %.2g, integrated %.5g (%.0f %% of the open floor); delta light %.5g", x, got, se, want, 100*want/open, d)
		if math.Abs(got-want) > 4*se+0.005*open {
			t.Errorf("x %.4f in the penumbra: %.5g ± %.2g, want %.5g", x, got, se, want)
		}
		if got > 0.05*open && got < 0.95*open {
			soft++
		}
	}
	if soft < 6 {
		t.Errorf("%d of 9 points across the penumbra between 5 %% and 95 %% of the open floor: want at least 6", soft)
	}
}

// TestSunDiskWhitted: the Whitted integrator takes a sun disk as the delta
// light of the same direction and irradiance (hard shadows), the same
// bits; path tracing does not.
func TestSunDiskWhitted(t *testing.T) {
	for _, c := range []struct {
		integ Integrator
		same  bool
	}{{IntegratorWhitted, true}, {IntegratorPath, false}} {
		a := renderLuminance(t, sunScene(t, 20, 60, true, c.integ))
		b := renderLuminance(t, sunScene(t, 0, 60, true, c.integ))
		same := true
		for i := range a {
			same = same && a[i] == b[i]
		}
		if same != c.same {
			t.Errorf("integrator %d: a 20° disk renders as the delta light: %v, want %v", c.integ, same, c.same)
		}
	}
}

// TestSunDisk: SunDisk gives 1 − cos(angle/2), without cancellation for a
// small angle (Blender's default 0.526°) and 0 for none.
func TestSunDisk(t *testing.T) {
	for _, c := range []struct{ angle, want float64 }{
		{0, 0}, {0.526, 1.0536e-5}, {60, 1 - math.Sqrt(3)/2}, {180, 1},
	} {
		if got := float64(SunDisk(c.angle)); math.Abs(got-c.want) > 1e-4*c.want {
			t.Errorf("SunDisk(%g) = %.6g, want %.6g", c.angle, got, c.want)
		}
	}
}
