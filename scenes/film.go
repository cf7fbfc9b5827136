package scenes

import "github.com/tracerender/trace/tracer"

// maxExposure bounds film.exposure, in stops either way: 2^64 still
// scales radiance within float32, and no real exposure comes near it.
const maxExposure = 64

// filmFields are the members of the film section.
var filmFields = []string{"exposure", "tonemap", "transfer"}

// tonemaps are the accepted values of film.tonemap.
var tonemaps = []option[tracer.Tonemap]{
	{"clamp", tracer.TonemapClamp},
	{"reinhard", tracer.TonemapReinhard},
	{"aces", tracer.TonemapACES},
}

// transfers are the accepted values of film.transfer.
var transfers = []option[tracer.Transfer]{
	{"srgb", tracer.TransferSRGB},
	{"linear", tracer.TransferLinear},
}

// film decodes the film section.
func (d *decoder) film(f fields) tracer.Film {
	f.known(filmFields...)
	return tracer.Film{
		Exposure: f.float("exposure", 0, within(-maxExposure, maxExposure)),
		Tonemap:  choose(f, "tonemap", "clamp", "tonemap", tonemaps),
		Transfer: choose(f, "transfer", "srgb", "transfer", transfers),
	}
}
