package tracer

import (
	"context"
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// cancelAfter is a context whose Err reports cancellation from its n-th
// call on, so a test can cancel a render at a precise point without
// timing.
type cancelAfter struct {
	context.Context
	calls, n int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestRenderBlockCancelsPerSample: a render cancelled after its first
// check stops at the next one, having rendered one sample of the pixels
// it renders together (a run), not the run's every sample nor the rest of
// the block (a row of pixels of 65536 samples took half a minute to
// notice when the check came once a row).
func TestRenderBlockCancelsPerSample(t *testing.T) {
	s := compileTest(t, &SceneDesc{
		Settings:   Settings{Width: 16, Height: 2, Samples: 8, MaxDepth: 1},
		Background: Background{Color: vec3{1, 1, 1}},
		Materials:  []Material{{Kind: MaterialDiffuse, Color: vec3{0.5, 0.5, 0.5}, Texture: NoTexture}},
	})
	ctx := &cancelAfter{Context: context.Background(), n: 2}
	var st Stats
	pix := make([]float32, 3*16*2)
	err := s.RenderBlock(ctx, image.Rect(0, 0, 16, 2), pix, &st)
	if err != context.Canceled {
		t.Fatalf("RenderBlock returned %v, want context.Canceled", err)
	}
	if st.Samples != runW*runH || st.Rays < runW*runH || ctx.calls != 2 {
		t.Errorf("rendered %d samples, %d rays, after cancelling at the second of %d checks; want %d samples (one of each pixel of a run)", st.Samples, st.Rays, ctx.calls, runW*runH)
	}
}

// adaptiveTestScene is renderTestScene under adaptive sampling, whose
// pixels stop at different counts (some at the minimum of 4, some at
// 4 + 16k, some at 40), so that runs of RenderBlock lose pixels on the
// way.
func adaptiveTestScene(t *testing.T, integ Integrator) *Scene {
	d := renderTestScene(integ, 40, 0)
	d.Settings.NoiseThreshold, d.Settings.MinSamples = 0.02, 4
	s := compileTest(t, d)
	seen := map[uint64]bool{}
	for y := 0; y < s.Settings.Height; y++ {
		for x := 0; x < s.Settings.Width; x++ {
			var st Stats
			s.RenderPixel(x, y, &st)
			seen[st.Samples] = true
		}
	}
	if len(seen) < 3 {
		t.Fatalf("integrator %d: the pixels took %v samples: want three counts or more", integ, seen)
	}
	return s
}

// TestRenderBlockMatchesRenderPixel: RenderBlock, which traces the camera
// rays of a run of pixels in packets, gives every pixel RenderPixel's
// value, bit for bit, on blocks of every shape (one pixel, one row, one
// column, odd sizes, a run's size and more) and on scenes that take every
// path of the packets: a mesh with spheres, quads and planes under the
// path tracer and the Whitted one, both under adaptive sampling too, a lens (origins that differ), a
// see-through cut-out (hits passed on from the packet's), one sample per
// pixel (rays through the centres) and several.
func TestRenderBlockMatchesRenderPixel(t *testing.T) {
	base := renderTestScene
	cutout := Material{Kind: MaterialDiffuse, Texture: 0, AlphaMode: AlphaMask, Alpha: 1, AlphaCutoff: 0.5}
	cases := []struct {
		name string
		s    *Scene
	}{
		{"path", compileTest(t, base(IntegratorPath, 3, 0))},
		{"path, one sample", compileTest(t, base(IntegratorPath, 1, 0))},
		{"whitted", compileTest(t, base(IntegratorWhitted, 2, 0))},
		{"lens", compileTest(t, base(IntegratorPath, 2, 0.4))},
		{"path, adaptive", adaptiveTestScene(t, IntegratorPath)},
		{"whitted, adaptive", adaptiveTestScene(t, IntegratorWhitted)},
		{"cut-out", alphaScene(t, cutout, mgl32.Vec3{2, 0, 0}, mgl32.Vec3{0, 0, 2}, mgl32.Vec3{-1, 1, -1})},
	}
	for _, tc := range cases {
		s := tc.s
		w, h := s.Settings.Width, s.Settings.Height
		want := make([]vec3, w*h)
		taken := make([]uint64, w*h) // the samples each pixel took
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				var st Stats
				want[y*w+x] = s.RenderPixel(x, y, &st)
				taken[y*w+x] = st.Samples
			}
		}
		for _, rect := range []image.Rectangle{
			image.Rect(0, 0, w, h), image.Rect(3, 2, 4, 3), image.Rect(0, 5, w, 6), image.Rect(5, 0, 6, h),
			image.Rect(1, 1, 4, 6), image.Rect(2, 3, 2+runW, 3+runH), image.Rect(1, 0, w-1, h-2),
		} {
			if !rect.In(image.Rect(0, 0, w, h)) {
				continue
			}
			pix := make([]float32, 3*rect.Dx()*rect.Dy())
			var bst Stats
			if err := s.RenderBlock(context.Background(), rect, pix, &bst); err != nil {
				t.Fatal(err)
			}
			var wantSamples uint64
			for y := rect.Min.Y; y < rect.Max.Y; y++ {
				for x := rect.Min.X; x < rect.Max.X; x++ {
					wantSamples += taken[y*w+x]
				}
			}
			if bst.Samples != wantSamples {
				t.Errorf("%s %v: %d samples counted, want %d", tc.name, rect, bst.Samples, wantSamples)
			}
			for y := rect.Min.Y; y < rect.Max.Y; y++ {
				for x := rect.Min.X; x < rect.Max.X; x++ {
					i := 3 * ((y-rect.Min.Y)*rect.Dx() + x - rect.Min.X)
					got, wv := pix[i:i+3], want[y*w+x]
					for c := 0; c < 3; c++ {
						if math.Float32bits(got[c]) != math.Float32bits(wv[c]) {
							t.Fatalf("%s block %v pixel (%d, %d): %v, RenderPixel %v", tc.name, rect, x, y, got, wv)
						}
					}
				}
			}
		}
	}
}

// renderTestScene is a small scene that takes every path of the
// renderers: a mesh with spheres, quads and planes, an area light and a
// point light, diffuse and phong surfaces; 13×11 pixels.
func renderTestScene(integ Integrator, spp int, aperture float32) *SceneDesc {
	mesh := sphereMesh(12)
	return &SceneDesc{
		Settings: Settings{Width: 13, Height: 11, Samples: spp, MaxDepth: 3, Integrator: integ, Seed: 7},
		Camera:   CameraDesc{Position: vec3{0.3, 0.4, -3}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 1, 0}, FOV: 50, Aperture: aperture},
		Materials: []Material{
			{Kind: MaterialDiffuse, Color: vec3{0.7, 0.6, 0.5}, Texture: NoTexture},
			{Kind: MaterialPhong, Color: vec3{0.2, 0.5, 0.9}, Texture: NoTexture, Ambient: 0.05, Diffuse: 1, Specular: 1, Shininess: 20, Reflection: 0.3},
			{Kind: MaterialEmissive, Color: vec3{1, 1, 1}, Intensity: 4, Texture: NoTexture},
		},
		Lights:  []PointLight{{Position: vec3{2, 3, -2}, Color: vec3{1, 1, 1}, Intensity: 10}},
		Meshes:  []MeshDesc{mesh},
		Spheres: []SphereDesc{{Center: vec3{-0.9, 0.2, 0.3}, Radius: 0.35, Material: 1}},
		Quads:   []QuadDesc{{Corner: vec3{-1, 1.5, -1}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, 2}, Material: 2}},
		Planes:  []PlaneDesc{{Point: vec3{0, -1, 0}, Normal: vec3{0, 1, 0}}},
	}
}
