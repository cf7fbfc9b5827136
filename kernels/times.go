package kernels

import (
	"fmt"
	"strings"
	"time"
)

// Kernel times: where a device's time goes, by entry point, for finding
// what holds a GPU back without a profiler's timeline (the GPU machines
// this project is lent have Nsight Compute but no Nsight Systems). With
// TimesEnv set, a cuda device brackets every launch with a pair of CUDA
// events on its stream and adds up the time between them by entry; the
// rest of its batches' wall-clock time is copies, the host's round trips
// and launch gaps.

// TimesEnv is the environment variable that has the cuda build's devices
// time their launches: "1" does, "" or "0" does not. The bits do not
// depend on it; each launch costs two event records more.
const TimesEnv = "TRACE_GPU_TIMES"

// ParseTimes reports whether TimesEnv's value s asks for kernel times.
func ParseTimes(s string) (bool, error) {
	switch s {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: want 1 or 0", TimesEnv, s)
}

// EntryTime is what a device timed of one of the kernel's entry points.
type EntryTime struct {
	Entry    string        // its name in the PTX: wf_shade, trace_pixels_path, ...
	Launches int           // launches that ran
	GPU      time.Duration // their time on the GPU: each from an event recorded on its stream just before it to one just after
}

// Times is what a device timed since it was opened.
type Times struct {
	Device  string
	Lanes   int           // the streams its batches are split between (TRACE_GPU_LANES)
	Regs    RegCaps       // the entries' register caps (TRACE_GPU_REGS), if any
	Batches int           // TracePixels calls that succeeded
	Pixels  int64         // their pixels
	Items   int64         // the items they were rendered as: Pixels, more when batches were split into parts (PartsEnv)
	Wall    time.Duration // the wall-clock time those calls took
	Entries []EntryTime   // the entries launched, in the kernel's order (TimedEntries)
}

// TimedEntries are the entry points a device times, in the order Times
// lists them: the wavefront's, then the megakernels.
var TimedEntries = append(WaveEntries[:len(WaveEntries):len(WaveEntries)], "trace_pixels_path", "trace_pixels_whitted", "trace_reduce")

// GPU is the sum of the entries' GPU times. On one lane it is at most
// Wall; on several, the lanes' launches overlap and it may pass it.
func (t Times) GPU() time.Duration {
	var sum time.Duration
	for _, e := range t.Entries {
		sum += e.GPU
	}
	return sum
}

// String is one line: the device, its register caps if any, its
// batches, and per entry its
// launches, GPU time, mean launch and share of the GPU time; then the GPU
// time's share of the batches' wall-clock time.
func (t Times) String() string {
	var b strings.Builder
	lanes := "lanes"
	if t.Lanes == 1 {
		lanes = "lane"
	}
	batches := "batches"
	if t.Batches == 1 {
		batches = "batch"
	}
	b.WriteString(t.Device)
	if len(t.Regs) > 0 {
		fmt.Fprintf(&b, " (%s=%s)", RegsEnv, t.Regs)
	}
	fmt.Fprintf(&b, ", %d %s: kernel times of %d %s, %d pixels", t.Lanes, lanes, t.Batches, batches, t.Pixels)
	if t.Items > t.Pixels {
		fmt.Fprintf(&b, " (%d items: samples split into parts)", t.Items)
	}
	fmt.Fprintf(&b, ", %s:", seconds(t.Wall))
	gpu := t.GPU()
	if len(t.Entries) == 0 {
		b.WriteString(" no launches")
	}
	for i, e := range t.Entries {
		if i > 0 {
			b.WriteByte(',')
		}
		launches := "launches"
		if e.Launches == 1 {
			launches = "launch"
		}
		fmt.Fprintf(&b, " %s %s (%.0f%%; %d %s of %s)", e.Entry, seconds(e.GPU), percent(e.GPU, gpu), e.Launches, launches, mean(e.GPU, e.Launches))
	}
	fmt.Fprintf(&b, "; kernels %s, %.0f%% of the batches' time", seconds(gpu), percent(gpu, t.Wall))
	if t.Lanes > 1 {
		b.WriteString(" (the lanes' kernels overlap)")
	}
	return b.String()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func percent(part, whole time.Duration) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// mean is a launch's mean time, in µs.
func mean(d time.Duration, n int) string {
	if n == 0 {
		return "0 µs"
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(n)/float64(time.Microsecond))
}

// Timer is a Device that can time its launches (TimesEnv). Times returns
// what it has timed so far, also after Close, and false when it was not
// asked to time.
type Timer interface {
	Times() (Times, bool)
}
