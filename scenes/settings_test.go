package scenes

import (
	"errors"
	"testing"

	"github.com/tracerender/trace/tracer"
)

func TestValidateSettings(t *testing.T) {
	ok := tracer.Settings{Width: 640, Height: 480, Samples: 16, MaxDepth: 8, Integrator: tracer.IntegratorWhitted, Seed: 1}
	tests := []struct {
		name   string
		change func(*tracer.Settings)
		want   string // "" for no error
	}{
		{"defaults", func(*tracer.Settings) {}, ""},
		{"largest", func(s *tracer.Settings) {
			*s = tracer.Settings{Width: tracer.MaxImageSide, Height: tracer.MaxImageSide, Samples: tracer.MaxSamples, MaxDepth: tracer.MaxDepth, Seed: 1 << 53}
		}, ""},
		{"smallest", func(s *tracer.Settings) { *s = tracer.Settings{Width: 1, Height: 1, Samples: 1} }, ""},
		{"width zero", func(s *tracer.Settings) { s.Width = 0 }, "render.width: must be at least 1, found 0"},
		{"width past limit", func(s *tracer.Settings) { s.Width = 20000 }, "render.width: must be at most 16384, found 20000"},
		{"height negative", func(s *tracer.Settings) { s.Height = -5 }, "render.height: must be at least 1, found -5"},
		{"samples past limit", func(s *tracer.Settings) { s.Samples = tracer.MaxSamples + 1 }, "render.samples: must be at most 65536, found 65537"},
		{"max_depth negative", func(s *tracer.Settings) { s.MaxDepth = -1 }, "render.max_depth: must be at least 0, found -1"},
		{"noise_threshold negative", func(s *tracer.Settings) { s.NoiseThreshold = -0.5 }, "render.noise_threshold: must be in [0, 1], found -0.5"},
		{"noise_threshold past 1", func(s *tracer.Settings) { s.NoiseThreshold = 2 }, "render.noise_threshold: must be in [0, 1], found 2"},
		{"min_samples negative", func(s *tracer.Settings) { s.MinSamples = -1 }, "render.min_samples: must be at least 0, found -1"},
		{"max_depth past limit", func(s *tracer.Settings) { s.MaxDepth = 100 }, "render.max_depth: must be at most 64, found 100"},
		{"seed past 2^53", func(s *tracer.Settings) { s.Seed = 1<<53 + 1 }, "render.seed: must be at most 9007199254740992 (2^53), found 9007199254740993"},
		{"seed huge", func(s *tracer.Settings) { s.Seed = 1<<64 - 1 }, "render.seed: must be at most 9007199254740992 (2^53), found 18446744073709551615"},
		{"integrator", func(s *tracer.Settings) { s.Integrator = 7 }, "render.integrator: unknown integrator 7"},
		{"light_tree_points", func(s *tracer.Settings) { s.PointLightTree = tracer.NumPointLightTrees }, "render.light_tree_points: unknown choice 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.change(&s)
			err := ValidateSettings(s)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ValidateSettings(%+v) = %v", s, err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("ValidateSettings(%+v) = %v, want %s", s, err, tt.want)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("error %T is not an *Error", err)
			}
		})
	}
}
