package tracer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Rough glass under next-event estimation: dielectricEval against
// sampleDielectric, and the path integrator with and without light
// sampling at rough glass.

// sphereDir returns the unit direction at cosine ct to +z and azimuth φ.
func sphereDir(ct, phi float64) vec3 {
	return hemisphereDir(ct, phi) // hemisphereDir takes any ct in [−1, 1]
}

// TestRoughDielectricEvalMatchesSampling: every direction sampleDielectric
// draws has dielectricEval's density, and f·cos/pdf equal to the
// sampler's weight (G2/G1), for random views, roughnesses and relative
// indices, entering and leaving (past the critical angle too).
func TestRoughDielectricEvalMatchesSampling(t *testing.T) {
	nz := vec3{0, 0, 1}
	rng := rand.New(rand.NewPCG(7, 7))
	var refl, refr, tir int
	for k := 0; k < 200000; k++ {
		co := 0.05 + 0.95*rng.Float64()
		rough := float32(0.1 + 0.9*rng.Float64())
		ior := float32(1.1 + 1.4*rng.Float64())
		eta := 1 / ior
		if k%2 == 1 { // leaving the medium
			eta = ior
		}
		alpha := ggxAlpha(rough)
		wo := hemisphereDir(co, 2*math.Pi*rng.Float64())
		d := vec3{-wo[0], -wo[1], -wo[2]}
		dir, w, refracted, pdf, ok := sampleDielectric(nz, d, eta, alpha, rng.Float32(), rng.Float32(), rng.Float32())
		if !ok {
			continue
		}
		fcos, epdf, erefr := dielectricEval(nz, wo, dir, eta, alpha)
		if erefr != refracted {
			t.Fatalf("eta %g, α %g, cos %g: sampled refracted %v, eval says %v", eta, alpha, co, refracted, erefr)
		}
		// The sampler's and eval's half vectors differ by rounding, and
		// D(h) is a function of cos θh, whose float32 ulp near 1 is a
		// relative step of about 6e-8/α² in 1 − cos²θh at θh ~ α.
		tol := 2e-3 + 1e-6/float64(alpha*alpha)
		if !(math.Abs(float64(epdf/pdf)-1) < tol) {
			t.Fatalf("eta %g, α %g, cos %g, refracted %v: sample's pdf %g, eval's %g", eta, alpha, co, refracted, pdf, epdf)
		}
		if !(math.Abs(float64(fcos/epdf/w)-1) < tol) {
			t.Fatalf("eta %g, α %g, cos %g, refracted %v: weight %g, eval's f·cos/pdf %g", eta, alpha, co, refracted, w, fcos/epdf)
		}
		switch {
		case refracted:
			refr++
		case eta > 1 && fresnelDielectric(dot(wo, normalize(wo.Add(dir))), eta) == 1:
			tir++
			refl++
		default:
			refl++
		}
	}
	t.Logf("%d reflections (%d totally internal), %d refractions checked", refl, tir, refr)
	if tir == 0 || refr == 0 {
		t.Errorf("the cases do not cover total internal reflection and refraction")
	}
}

// TestRoughDielectricSamplingDensity: over the whole sphere, the
// directions sampleDielectric draws follow dielectricEval's density (a
// chi-square test over a grid in cos θ and φ), and that density
// integrates to the fraction of samples not absorbed: the Jacobians of
// reflection and of refraction (for this code's eta = n_from / n_to)
// are right.
func TestRoughDielectricSamplingDensity(t *testing.T) {
	nz := vec3{0, 0, 1}
	type tcase struct {
		eta, rough float32
		co         float64
	}
	var cases []tcase
	for _, eta := range []float32{1 / 1.5, 1.5, 1 / 1.1, 2.2} {
		for _, rough := range []float32{0.5, 0.9} {
			for _, co := range []float64{0.3, 0.9} {
				cases = append(cases, tcase{eta, rough, co})
			}
		}
	}
	const nt, np = 32, 32
	for ci, c := range cases {
		t.Run(fmt.Sprintf("eta%.3g/rough%g/cos%g", c.eta, c.rough, c.co), func(t *testing.T) {
			wo := viewDir(c.co)
			d := vec3{-wo[0], -wo[1], -wo[2]}
			alpha := ggxAlpha(c.rough)
			// Expected counts: the pdf integrated over each cell (midpoint
			// rule on a finer grid); cos θ in [−1, 1]. Refraction out of
			// the denser medium has a sharp crest that a coarser grid
			// misses (at 8 subcells, eta 1.5, roughness 0.9, cos 0.3:
			// chi-square z = 6.8).
			var want [nt][np]float64
			const sub = 24
			total := 0.0
			for i := 0; i < nt*sub; i++ {
				ct := -1 + 2*(float64(i)+0.5)/(nt*sub)
				for j := 0; j < np*sub; j++ {
					phi := (float64(j) + 0.5) / (np * sub) * 2 * math.Pi
					_, pdf, _ := dielectricEval(nz, wo, sphereDir(ct, phi), c.eta, alpha)
					p := float64(pdf) * (2.0 / (nt * sub)) * (2 * math.Pi / (np * sub))
					want[i/sub][j/sub] += p
					total += p
				}
			}
			const n = 400000
			rng := rand.New(rand.NewPCG(uint64(ci), 9))
			var got [nt][np]float64
			accepted := 0
			for k := 0; k < n; k++ {
				dir, _, _, _, ok := sampleDielectric(nz, d, c.eta, alpha, rng.Float32(), rng.Float32(), rng.Float32())
				if !ok {
					continue
				}
				accepted++
				i := min(max(int((float64(dir[2])+1)/2*nt), 0), nt-1)
				phi := math.Atan2(float64(dir[1]), float64(dir[0]))
				if phi < 0 {
					phi += 2 * math.Pi
				}
				j := min(int(phi/(2*math.Pi)*np), np-1)
				got[i][j]++
			}
			frac := float64(accepted) / n
			t.Logf("pdf integrates to %.4f, %.4f of the samples kept", total, frac)
			if math.Abs(total-frac) > 0.02 {
				t.Errorf("dielectricEval's pdf integrates to %.4f, %.4f of the samples are kept", total, frac)
			}
			chi2, dof, z := chiSquare(func(yield func(e, o float64) bool) {
				for i := range want {
					for j := range want[i] {
						if !yield(want[i][j]*n, got[i][j]) {
							return
						}
					}
				}
			})
			if z > 4.5 {
				t.Errorf("chi-square %.1f with %d degrees of freedom (z = %.1f): samples do not follow pdf", chi2, dof, z)
			}
		})
	}
}

// roughGlassScene is a frosted glass ball on a white floor, lit from
// behind by a sphere emitter, seen from the front: the light glows
// through the glass and shows in its reflection. With point, a point
// light of intensity 2 lights it too, or, with pointR > 0, a sphere
// emitter of that radius in its place, of the same intensity (radiance
// 2/πr²). bsdfOnly renders rough glass by BSDF sampling alone
// (Scene.glassBSDFOnly).
func roughGlassScene(t testing.TB, point bool, pointR float32, bsdfOnly bool) *Scene {
	const pointI = 2
	d := &SceneDesc{
		Settings: Settings{Width: 24, Height: 18, Samples: 2, MaxDepth: 6, Seed: 1},
		Camera:   CameraDesc{Position: vec3{0, 1, -3.5}, LookAt: vec3{0, 0.8, 0}, FOV: 30},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{0.7, 0.7, 0.7}},
			{Kind: MaterialDielectric, Color: vec3{0.9, 0.95, 1}, IOR: 1.5, Roughness: 0.45},
			{Kind: MaterialEmissive, Color: vec3{1, 0.9, 0.8}, Intensity: 25},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: float32(pointI / (math.Pi * float64(pointR) * float64(pointR)))},
		},
		Planes:  []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Spheres: []SphereDesc{{Center: vec3{0, 0.8, 0}, Radius: 0.8, Material: 1}, {Center: vec3{0.35, 1.3, 1.6}, Radius: 0.14, Material: 2}},
	}
	p := vec3{-0.4, 0.9, 1.3}
	switch {
	case point && pointR > 0:
		d.Spheres = append(d.Spheres, SphereDesc{Center: p, Radius: pointR, Material: 3})
	case point:
		d.Lights = []PointLight{{Position: p, Color: vec3{1, 1, 1}, Intensity: pointI}}
	}
	s := compileTest(t, d)
	s.glassBSDFOnly = bsdfOnly
	return s
}

// pixelStats traces n samples of every pixel of s and returns the mean
// luminance over the image and the mean over the pixels of the
// luminance's variance per sample.
func pixelStats(s *Scene, n int) (mean, variance float64) {
	w, h := s.Settings.Width, s.Settings.Height
	var st Stats
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var sum, sum2 float64
			for i := 0; i < n; i++ {
				rng, r := s.cameraSample(x, y, i)
				v := float64(luminance(s.tracePath(r, s.Intersect(r), &rng, &st)))
				sum, sum2 = sum+v, sum2+v*v
			}
			m := sum / float64(n)
			mean += m
			variance += (sum2/float64(n) - m*m) * float64(n) / float64(n-1)
		}
	}
	return mean / float64(w*h), variance / float64(w*h)
}

// TestRoughGlassLightSampling: light sampling at rough glass, weighed by
// MIS against the glass's own sampling, renders the same picture as BSDF
// sampling alone, and with a variance at least 4 times lower at equal
// samples (7 times, measured); a point
// light, which only light sampling finds, lights it as a small sphere
// emitter of the same intensity does.
func TestRoughGlassLightSampling(t *testing.T) {
	if testing.Short() {
		t.Skip("traces a 4096-sample reference")
	}
	// The means of 432 pixels: at these sample counts their standard
	// errors are about 1 % each (BSDF sampling alone at 8192 samples,
	// light sampling at 1024; logged), so 4 % is about 3 of them
	// combined. Without light sampling at rough glass the variances
	// are equal, and the point light does not shine through the glass.
	ref, vRef := pixelStats(roughGlassScene(t, false, 0, true), 8192)
	got, vGot := pixelStats(roughGlassScene(t, false, 0, false), 1024)
	t.Logf("mean %.5g by BSDF sampling alone, %.5g with light sampling (standard errors %.2g %% and %.2g %%); variance per sample %.4g and %.4g (ratio %.1f)",
		ref, got, 100*math.Sqrt(vRef/(432*8192))/ref, 100*math.Sqrt(vGot/(432*1024))/got, vRef, vGot, vRef/vGot)
	if math.Abs(got/ref-1) > 0.04 {
		t.Errorf("mean %.5g with light sampling, %.5g by BSDF sampling alone: more than 4 %% apart", got, ref)
	}
	if !(vRef > 4*vGot) {
		t.Errorf("per-pixel variance %.4g with light sampling, %.4g without: not 4 times lower", vGot, vRef)
	}
	// The point light against a sphere of radius 0.005 in its place, both
	// light-sampled (the sphere's cone differs from the point by
	// (r/d)² ~ 2.5e-5).
	pt, _ := pixelStats(roughGlassScene(t, true, 0, false), 1024)
	sph, _ := pixelStats(roughGlassScene(t, true, 0.005, false), 1024)
	t.Logf("with the point light %.5g, with a sphere in its place %.5g", pt, sph)
	if math.Abs(pt/sph-1) > 0.02 {
		t.Errorf("mean %.5g with the point light, %.5g with a small sphere of its intensity: more than 2 %% apart", pt, sph)
	}
}
