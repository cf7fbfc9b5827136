package tracer

import (
	"context"
	"image"
	"testing"
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

// TestRenderBlockCancelsPerPixel: a render cancelled after its first pixel
// stops before the next one, not at the end of the row (a row of pixels of
// 65536 samples took half a minute to notice).
func TestRenderBlockCancelsPerPixel(t *testing.T) {
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
	if st.Samples != 8 {
		t.Errorf("rendered %d samples after cancelling at the second pixel, want 8 (one pixel)", st.Samples)
	}
}
