package scenes

import (
	"testing"

	"github.com/tracerender/trace/tracer"
)

// TestParseUnlit: the scene format's unlit material takes a colour
// (default white) or a texture, and the alpha options.
func TestParseUnlit(t *testing.T) {
	s, err := Parse("test.json", []byte(material(`{"type": "unlit", "color": [0.9, 0.5, 0.25], "alpha_mode": "blend", "alpha": 0.5}`)))
	if err != nil {
		t.Fatal(err)
	}
	m := s.Materials[0]
	if m.Kind != tracer.MaterialUnlit || m.Color != [3]float32{0.9, 0.5, 0.25} || m.Texture != tracer.NoTexture ||
		m.AlphaMode != tracer.AlphaBlend || m.Alpha != 0.5 {
		t.Errorf("material %+v: want unlit, colour [0.9 0.5 0.25], no texture, blend of alpha 0.5", m)
	}
	s, err = Parse("test.json", []byte(material(`{"type": "unlit", "texture": {"type": "checker"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Materials[0]; m.Kind != tracer.MaterialUnlit || m.Texture != 0 || s.Textures[0].Kind != tracer.TextureChecker {
		t.Errorf("material %+v, textures %+v: want unlit with the checker", m, s.Textures)
	}
	s, err = Parse("test.json", []byte(material(`{"type": "unlit"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Materials[0]; m.Color != [3]float32{1, 1, 1} {
		t.Errorf("colour %v, want white by default", m.Color)
	}
}
