package scenes

import "github.com/tracerender/trace/tracer"

// maxExposure bounds film.exposure, in stops either way: 2^64 still
// scales radiance within float32, and no real exposure comes near it.
const maxExposure = 64

// filmFields are the members of the film section.
var filmFields = []string{"exposure", "tonemap", "transfer", "filter", "filter_width"}

// pixelFilters are the accepted values of film.filter: Cycles' pixel
// filters, by its names.
var pixelFilters = []option[tracer.PixelFilter]{
	{"box", tracer.PixelFilterBox},
	{"gaussian", tracer.PixelFilterGaussian},
	{"blackman-harris", tracer.PixelFilterBlackmanHarris},
}

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
	film := tracer.Film{
		Exposure: f.float("exposure", 0, within(-maxExposure, maxExposure)),
		Tonemap:  choose(f, "tonemap", "clamp", "tonemap", tonemaps),
		Transfer: choose(f, "transfer", "srgb", "transfer", transfers),
		Filter:   choose(f, "filter", "box", "filter", pixelFilters),
	}
	// The width's default is Cycles': 1 pixel for the box (the pixel
	// itself), 1.5 for the others.
	def := float32(1.5)
	if film.Filter == tracer.PixelFilterBox {
		def = 1
	}
	film.FilterWidth = f.float("filter_width", def, within(tracer.MinFilterWidth, tracer.MaxFilterWidth))
	return film
}
