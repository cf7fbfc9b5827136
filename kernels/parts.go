package kernels

import (
	"fmt"
	"strconv"
)

// A batch of pixels too few to fill a device is split into parts
// (trace.cu, wavefront.h): each pixel's samples are dealt out in parts
// runs of consecutive samples, each rendered by a thread or slot of its
// own at once, and each sample's value is kept until a launch over the
// pixels sums them in sample order, so that the pixels have the bits of
// the batch unsplit. A 256² frame at 16 samples is 65,536 pixels, under
// half a wave of an H200's wavefront query kernels; in four parts it
// fills two.

// SampleValueBytes is what a split batch keeps of each sample until its
// pixel is summed: three float32.
const SampleValueBytes = 12

// MaxSplitBytes bounds a split batch's sample values, SampleValueBytes a
// sample: a batch whose values would take more is not split.
const MaxSplitBytes = 256 << 20

// PartsEnv is the environment variable that sets how a cuda device
// splits its batches: unset or "auto", into SampleParts' parts; a number
// N ≥ 1, into N parts (at most a pixel's samples) every batch whose
// sample values fit in MaxSplitBytes, whatever its size; 1 never (the
// batches as they were, for comparison). The same bits either way.
const PartsEnv = "TRACE_GPU_PARTS"

// MaxParts bounds PartsEnv.
const MaxParts = 1 << 16

// ParsePartsEnv parses PartsEnv's value: 0 for auto.
func ParsePartsEnv(s string) (int, error) {
	if s == "" || s == "auto" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxParts {
		return 0, fmt.Errorf("%s=%q: want auto or a number of parts from 1 to %d", PartsEnv, s, MaxParts)
	}
	return n, nil
}

// BatchParts is the parts a device splits a batch of pixels pixels of
// samples samples each into, to hold target items: set parts (PartsEnv)
// when set is positive, at most samples, and only while the sample values
// fit in MaxSplitBytes; else SampleParts'.
func BatchParts(set, pixels, samples, target int) int {
	if set <= 0 {
		return SampleParts(pixels, samples, target, MaxSplitBytes)
	}
	if !splittable(pixels, samples, MaxSplitBytes) {
		return 1
	}
	return min(set, samples)
}

// splittable says whether a batch of pixels pixels of samples samples
// each can be split: its pixels have samples to share out, and its sample
// values fit in maxBytes.
func splittable(pixels, samples int, maxBytes int64) bool {
	return pixels > 0 && samples > 1 && int64(pixels)*int64(samples) <= maxBytes/SampleValueBytes
}

// SampleParts is the parts a batch of pixels pixels, of samples samples
// each, is split into so that it holds at least target items (a pixel's
// part each), if its samples allow: ⌈target / pixels⌉, at most samples.
// It is 1 (unsplit) when the pixels alone reach target, when a pixel has
// one sample or none, or when the batch's sample values would take more
// than maxBytes (SampleValueBytes a sample).
func SampleParts(pixels, samples, target int, maxBytes int64) int {
	if target <= pixels || !splittable(pixels, samples, maxBytes) {
		return 1
	}
	return min((target+pixels-1)/pixels, samples)
}

// SplitOutFloats is the float32 a batch of pixels pixels of samples
// samples each, in parts parts, writes into its radiance buffer: three a
// pixel unsplit, three a sample split (the sample values, summed in
// place: the pixels' means end in the first three a pixel).
func SplitOutFloats(pixels, samples, parts int) int {
	if parts > 1 {
		return 3 * pixels * samples
	}
	return 3 * pixels
}
