package tracer

import (
	"context"
	"image"
	"math"
	"testing"
)

// misScene is a glossy floor next to a small, bright sphere light, seen
// where the light's highlight lies; the light itself is out of frame.
func misScene(t testing.TB, samples int) *Scene {
	return compileTest(t, &SceneDesc{
		Settings: Settings{Width: 32, Height: 24, Samples: samples, MaxDepth: 2, Seed: 1},
		Camera:   CameraDesc{Position: vec3{0, 1, -3}, LookAt: vec3{0, 0, 0}, FOV: 30},
		Materials: []Material{
			{Kind: MaterialPhong, Color: vec3{0.8, 0.8, 0.8}, Diffuse: 0.3, Specular: 0.7, Shininess: 60, Texture: NoTexture},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 2000, Texture: NoTexture},
		},
		Planes:  []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Spheres: []SphereDesc{{Center: vec3{0, 1.2, 1.6}, Radius: 0.03, Material: 1}},
	})
}

// renderLuminance renders s and returns each pixel's luminance.
func renderLuminance(t testing.TB, s *Scene) []float64 {
	w, h := s.Settings.Width, s.Settings.Height
	pix := make([]float32, 3*w*h)
	var st Stats
	if err := s.RenderBlock(context.Background(), image.Rect(0, 0, w, h), pix, &st); err != nil {
		t.Fatal(err)
	}
	l := make([]float64, w*h)
	for i := range l {
		l[i] = float64(luminance(vec3{pix[3*i], pix[3*i+1], pix[3*i+2]}))
	}
	return l
}

// TestGlossyNoFireflies: with multiple importance sampling, the highlight
// of a small bright light on a glossy surface converges without
// fireflies: at 16 samples no pixel is brighter than 1.5 times the
// brightest pixel of a 1024-sample render. (Without MIS, light sampling
// alone makes the highlight's rare BSDF-like samples tall, and BSDF
// sampling alone meets the light too rarely.)
func TestGlossyNoFireflies(t *testing.T) {
	ref := renderLuminance(t, misScene(t, 1024))
	got := renderLuminance(t, misScene(t, 16))
	var refMax, gotMax, refMean, gotMean float64
	for i := range ref {
		refMax, gotMax = max(refMax, ref[i]), max(gotMax, got[i])
		refMean += ref[i] / float64(len(ref))
		gotMean += got[i] / float64(len(got))
	}
	t.Logf("brightest pixel: %.4g at 16 spp, %.4g at 1024 spp; means %.4g and %.4g", gotMax, refMax, gotMean, refMean)
	if gotMax > 1.5*refMax {
		t.Errorf("brightest pixel at 16 spp %.4g, above 1.5 × the converged brightest %.4g", gotMax, refMax)
	}
	if math.Abs(gotMean/refMean-1) > 0.05 {
		t.Errorf("mean %.4g at 16 spp, %.4g at 1024 spp: more than 5 %% apart", gotMean, refMean)
	}
}

// envScene is a diffuse floor under an environment image: a dim sky and a
// small bright sun 50° from the zenith, the map turned by rot
// (Background.Rotation; zero for none).
func envScene(t testing.TB, rot [3]vec3) *Scene {
	return sunFloorScene(t, rot, vec3{0, 1, -3}, nil, [4]int{8, 9, 20, 21}, 0.2, 400, vec3{1, 0.9, 0.8})
}

// sunFloorScene is a diffuse floor at height 0, with spheres, under a 64 ×
// 32 environment image turned by rot: a sky of sky and a sun of sun over
// the texel rows and columns box (j0, j1, i0, i1, inclusive), both times
// tint; the camera at cam, one bounce.
func sunFloorScene(t testing.TB, rot [3]vec3, cam vec3, spheres []SphereDesc, box [4]int, sky, sun float32, tint vec3) *Scene {
	const w, h = 64, 32
	img := Image{Width: w, Height: h, Pix: make([]float32, 3*w*h)}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			v := sky
			if j >= box[0] && j <= box[1] && i >= box[2] && i <= box[3] {
				v = sun
			}
			k := 3 * (j*w + i)
			img.Pix[k], img.Pix[k+1], img.Pix[k+2] = float32(v*tint[0]), float32(v*tint[1]), float32(v*tint[2])
		}
	}
	return compileTest(t, &SceneDesc{
		Settings:   Settings{MaxDepth: 1},
		Camera:     CameraDesc{Position: cam},
		Background: Background{Kind: BackgroundImage, Texture: 0, Rotation: rot},
		Images:     []Image{img},
		Textures:   []Texture{{Kind: TextureImage, Image: 0}},
		Materials:  []Material{{Kind: MaterialDiffuse, Color: vec3{0.5, 0.5, 0.5}, Texture: NoTexture}},
		Planes:     []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Spheres:    spheres,
	})
}

// TestEnvironmentImportanceSampling: lighting a floor with an image
// background, the importance-sampled estimate (with MIS) has the same
// mean as BSDF sampling alone (the background's table switched off) and
// at least 10 times less variance per sample; also with the map turned
// about all three axes (the sun still above the floor), where sampling,
// density and lookup must turn alike for the means to agree.
func TestEnvironmentImportanceSampling(t *testing.T) {
	for _, c := range []struct {
		name string
		rot  [3]vec3
	}{{"unturned", [3]vec3{}}, {"turned", testRotation(15, 150, -10)}} {
		t.Run(c.name, func(t *testing.T) { testEnvironmentImportanceSampling(t, c.rot) })
	}
}

func testEnvironmentImportanceSampling(t *testing.T, rot [3]vec3) {
	sampled := envScene(t, rot)
	if sampled.Background.Distribution == 0 {
		t.Fatal("no distribution built for the image background")
	}
	uniform := envScene(t, rot)
	uniform.Background.Distribution = 0
	const points, n = 16, 4096
	var meanS, meanU, varS, varU float64
	var st Stats
	for p := 0; p < points; p++ {
		x := float32(p%4) - 1.5
		z := float32(p/4) - 1.5
		r := Ray{Origin: vec3{x, 1, z - 0.5}, Dir: normalize(vec3{0, -1, 0.5}), TMax: infinity}
		for k, s := range []*Scene{sampled, uniform} {
			var sum, sum2 float64
			for i := 0; i < n; i++ {
				smp := NewSampler(11, uint32(p), 0, uint32(i))
				smp.SetDimension(cameraDims)
				v := float64(s.tracePath(r, s.Intersect(r), &smp, &st)[0])
				sum, sum2 = sum+v, sum2+v*v
			}
			m := sum / n
			v := sum2/n - m*m
			if k == 0 {
				meanS, varS = meanS+m/points, varS+v/points
			} else {
				meanU, varU = meanU+m/points, varU+v/points
			}
		}
	}
	// Standard error of the difference of the two means.
	se := math.Sqrt((varS + varU) / (n * points))
	t.Logf("mean %.5g importance-sampled, %.5g BSDF-sampled (± %.2g); variance per sample %.4g and %.4g (%.0f×)",
		meanS, meanU, se, varS, varU, varU/varS)
	if math.Abs(meanS-meanU) > 4*se {
		t.Errorf("means differ: %.5g and %.5g, more than 4 standard errors (%.2g)", meanS, meanU, se)
	}
	if !(varU > 10*varS) {
		t.Errorf("variance %.4g importance-sampled, %.4g BSDF-sampled: want at least 10× less", varS, varU)
	}
}
