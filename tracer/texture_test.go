package tracer

import "testing"

func TestChecker(t *testing.T) {
	even, odd := vec3{1, 1, 1}, vec3{0, 0, 0}
	s := &Scene{Textures: []Texture{{Kind: TextureChecker, Scale: 2, Even: even, Odd: odd}}}
	m := &Material{Texture: 0}
	tests := []struct {
		u, v float32
		want vec3
	}{
		{0.1, 0.1, even},   // floor 0 + floor 0
		{0.6, 0.1, odd},    // 1 + 0
		{0.6, 0.6, even},   // 1 + 1
		{-0.1, 0.1, odd},   // −1 + 0: floor, not truncation
		{-0.1, -0.1, even}, // −1 + −1
		{1e30, 0.1, even},  // far away: defined, no overflow
		{0.5, 0, odd},      // on a boundary the upper check wins
	}
	for _, tc := range tests {
		if got := s.color(m, tc.u, tc.v); got != tc.want {
			t.Errorf("checker(%v, %v) = %v, want %v", tc.u, tc.v, got, tc.want)
		}
	}
	plain := &Material{Texture: NoTexture, Color: vec3{0.1, 0.2, 0.3}}
	if got := s.color(plain, 0.6, 0.1); got != plain.Color {
		t.Errorf("untextured colour %v, want %v", got, plain.Color)
	}
}

func TestGradientBackground(t *testing.T) {
	s := &Scene{Background: Background{Kind: BackgroundGradient, Bottom: vec3{1, 0, 0}, Top: vec3{0, 0, 1}}}
	for _, tc := range []struct {
		d    vec3
		want vec3
	}{
		{vec3{0, 1, 0}, vec3{0, 0, 1}},
		{vec3{0, -1, 0}, vec3{1, 0, 0}},
		{vec3{1, 0, 0}, vec3{0.5, 0, 0.5}},
	} {
		if got := s.background(tc.d); got != tc.want {
			t.Errorf("background(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}
