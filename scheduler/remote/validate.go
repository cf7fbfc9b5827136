package remote

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tracerender/trace/scheduler/remote/pb"
	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/status"
)

// A coordinator trusts no worker's figures: the checks here are what it
// applies to every result before it reaches the image, the progress
// reports or the user's terminal.

// maxRemoteText is the most bytes of a worker's error text kept.
const maxRemoteText = 512

// clean makes text from elsewhere safe to print: invalid UTF-8 and
// control characters (terminal escapes, newlines) become spaces, and the
// text is cut to at most limit bytes, with "…" saying it was.
func clean(text string, limit int) string {
	var b strings.Builder
	for _, r := range text {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			r = ' '
		}
		if b.Len()+utf8.RuneLen(r) > limit {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanErr returns err with a worker's status message cleaned (see
// clean), keeping its code; other errors are returned as they are.
func cleanErr(err error) error {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return err
	}
	msg := clean(st.Message(), maxRemoteText)
	if msg == st.Message() {
		return err
	}
	return status.Error(st.Code(), msg)
}

// checkPixels returns an error naming the first value of a tile's linear
// RGB pixels that no tracer produces: NaN, infinite or negative. The
// tracer drops non-finite samples, and radiance is never negative.
func checkPixels(pix []float32) error {
	for i, v := range pix {
		if !(v >= 0) || math.IsInf(float64(v), 1) {
			return fmt.Errorf("pixel %d channel %d is %v: pixels must be finite and not negative", i/3, i%3, v)
		}
	}
	return nil
}

// maxTileCount saturates every count of one tile, so that the sums over
// a frame of any size cannot overflow.
const maxTileCount = 1 << 48

// tileStats returns a result's counts, saturated at what a tile of pixels
// pixels rendered with set can cost: samples at pixels × samples per
// pixel, non-finite samples at the samples, rays at the samples times the
// most rays a sample can trace (a full branching ray tree with a shadow
// ray per light at every hit), and all at maxTileCount. clamped says
// whether any count was cut.
func tileStats(res *pb.TileResult, pixels int, set tracer.Settings, lights int) (st tracer.Stats, clamped bool) {
	sat := func(v, limit uint64) uint64 {
		if v > limit {
			clamped = true
			return limit
		}
		return v
	}
	st.Samples = sat(res.GetSamples(), satMul(uint64(pixels), uint64(max(set.Samples, 0)), maxTileCount))
	st.NonFinite = sat(res.GetNonFinite(), st.Samples)
	depth := min(max(set.MaxDepth, 0), 62)
	perSample := satMul(uint64(2)<<depth, uint64(lights+3), maxTileCount)
	st.Rays = sat(res.GetRays(), satMul(st.Samples, perSample, maxTileCount))
	return st, clamped
}

// satMul returns a·b, or limit if that is more.
func satMul(a, b, limit uint64) uint64 {
	if a != 0 && b > limit/a {
		return limit
	}
	return min(a*b, limit)
}

// maxReportedTime bounds the times a worker reports for a tile.
const maxReportedTime = time.Hour

// reportedTime converts a time in seconds that a worker reported,
// mapping NaN and negative values to zero and cutting large ones to
// maxReportedTime.
func reportedTime(s float64) time.Duration {
	if !(s > 0) {
		return 0
	}
	if s > maxReportedTime.Seconds() {
		return maxReportedTime
	}
	return seconds(s)
}
