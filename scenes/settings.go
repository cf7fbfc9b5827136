package scenes

import (
	"fmt"

	"github.com/tracerender/trace/tracer"
)

// maxSeed is the largest render.seed: 2^53, the largest integer that every
// JSON reader (a float64) holds exactly.
const maxSeed = 1 << 53

// intSetting is an integer field of the render section: its key, default
// and inclusive bounds, and what sets the upper bound.
type intSetting struct {
	key       string
	def       int64
	min, max  int64
	maxSource string // for messages: where the maximum comes from ("2^53"), or ""
}

var (
	widthSetting   = intSetting{"width", 640, 1, tracer.MaxImageSide, ""}
	heightSetting  = intSetting{"height", 480, 1, tracer.MaxImageSide, ""}
	samplesSetting = intSetting{"samples", 16, 1, tracer.MaxSamples, ""}
	depthSetting   = intSetting{"max_depth", 8, 0, tracer.MaxDepth, ""}
	seedSetting    = intSetting{"seed", 1, 0, maxSeed, "2^53"}
	// minSamplesSetting is render.min_samples: 0 derives it from the
	// noise threshold (tracer.Settings.AdaptiveMinSamples).
	minSamplesSetting = intSetting{"min_samples", 0, 0, tracer.MaxSamples, ""}
)

// maxNoiseThreshold bounds render.noise_threshold, as Cycles' Noise
// Threshold is bounded: an error of 5 (the threshold's scale, adaptive.go)
// in every pixel.
const maxNoiseThreshold = 1

// integrators are the accepted values of render.integrator.
var integrators = []option[tracer.Integrator]{
	{"path", tracer.IntegratorPath},
	{"whitted", tracer.IntegratorWhitted},
}

// pointLightTrees are the accepted values of render.light_tree_points.
var pointLightTrees = []option[tracer.PointLightTree]{
	{"auto", tracer.PointLightTreeAuto},
	{"always", tracer.PointLightTreeAlways},
	{"never", tracer.PointLightTreeNever},
}

// renderFields are the members of the render section.
var renderFields = []string{"width", "height", "samples", "max_depth", "integrator", "seed", "noise_threshold", "min_samples",
	"light_tree_points"}

// read returns the setting from the render section f.
func (s intSetting) read(f fields) int64 {
	return f.integer(s.key, s.def, s.min, s.max, s.maxSource)
}

// settings decodes the render section.
func (d *decoder) settings(f fields) tracer.Settings {
	f.known(renderFields...)
	return tracer.Settings{
		Width:      int(widthSetting.read(f)),
		Height:     int(heightSetting.read(f)),
		Samples:    int(samplesSetting.read(f)),
		MaxDepth:   int(depthSetting.read(f)),
		Integrator: choose(f, "integrator", "path", "integrator", integrators),
		Seed:       uint64(seedSetting.read(f)),
		// 0 (the default) is off: every pixel takes its samples.
		NoiseThreshold: f.float("noise_threshold", 0, within(0, maxNoiseThreshold)),
		MinSamples:     int(minSamplesSetting.read(f)),
		PointLightTree: choose(f, "light_tree_points", "auto", "value", pointLightTrees),
	}
}

// ValidateSettings checks render settings against the same bounds as the
// scene file's render section: width and height in [1, tracer.MaxImageSide],
// samples in [1, tracer.MaxSamples], max_depth in [0, tracer.MaxDepth], a
// known integrator, a seed of at most 2^53, noise_threshold in [0, 1] and
// min_samples in [0, tracer.MaxSamples]. Use it after changing the
// settings of a loaded scene (a command line override, say). The error is
// an *Error whose Path names the setting as the scene file does
// (render.width).
func ValidateSettings(s tracer.Settings) error {
	for _, c := range []struct {
		setting intSetting
		n       int
	}{
		{widthSetting, s.Width},
		{heightSetting, s.Height},
		{samplesSetting, s.Samples},
		{depthSetting, s.MaxDepth},
		{minSamplesSetting, s.MinSamples},
	} {
		if msg := rangeMessage(int64(c.n), c.setting.min, c.setting.max, c.setting.maxSource); msg != "" {
			return &Error{Path: "render." + c.setting.key, Msg: fmt.Sprintf("%s, found %d", msg, c.n)}
		}
	}
	if !(s.NoiseThreshold >= 0 && s.NoiseThreshold <= maxNoiseThreshold) {
		return &Error{Path: "render.noise_threshold", Msg: fmt.Sprintf("must be in [0, %d], found %g", maxNoiseThreshold, s.NoiseThreshold)}
	}
	if s.Seed > maxSeed {
		return &Error{Path: "render.seed", Msg: fmt.Sprintf("must be at most %d (2^53), found %d", uint64(maxSeed), s.Seed)}
	}
	if s.PointLightTree >= tracer.NumPointLightTrees {
		return &Error{Path: "render.light_tree_points", Msg: fmt.Sprintf("unknown choice %d", s.PointLightTree)}
	}
	for _, o := range integrators {
		if o.val == s.Integrator {
			return nil
		}
	}
	return &Error{Path: "render.integrator", Msg: fmt.Sprintf("unknown integrator %d", s.Integrator)}
}
