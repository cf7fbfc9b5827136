package kernels

import (
	"fmt"
	"time"
)

// Choosing the kernel per scene (KernelAuto, the cuda device's default).
// The megakernels and the wavefront give the same bits, so a device may
// render any pixel on either; which is faster depends on the scene and on
// the batch (DefaultKernel), by up to three times either way on an H200.
// So a device that chooses splits the first batch of each scene that
// holds a wave of each kernel's threads twice over: ProbePixels of its
// first pixels on each kernel, taken in alternate runs of ProbeRun pixels
// so that both render the same parts of the frame; it times each part
// (its launches, copies and round trips: what a batch costs) and renders
// the rest of the batch, and every later batch of the scene, on the
// kernel that traced more rays a second. Batches before that one run on
// the megakernels. A batch too small for that whose samples the device
// splits into parts (SampleParts) is probed half and half, when each half
// holds two waves of items (ProbeSplitPixels): a small frame's first.

// ProbeRun is the length in pixels of the runs a probe deals out in turn
// to the two kernels: a warp, and a row of a 32×32 tile.
const ProbeRun = 32

// ProbePixels is how many pixels each kernel renders of a batch of n to
// choose between them, when the larger of the two kernels' full waves
// (the threads the device holds at once) is wave: two waves, or half the
// batch where that is less, in whole runs; 0 (no choice on this batch)
// when the batch holds fewer than a wave for each.
func ProbePixels(n, wave int) int {
	if wave <= 0 || n < 2*wave {
		return 0
	}
	return min(n/2, 2*wave) / ProbeRun * ProbeRun
}

// ProbeSplitPixels is ProbePixels for a batch too small for it whose
// pixels' samples the device splits into parts (SampleParts): each kernel
// renders half the batch, in whole runs, its samples in parts parts, when
// that half holds two waves of items; 0 (no choice on this batch) else.
func ProbeSplitPixels(n, parts, wave int) int {
	half := n / 2 / ProbeRun * ProbeRun
	if wave <= 0 || parts <= 1 || half == 0 || int64(half)*int64(parts) < 2*int64(wave) {
		return 0
	}
	return half
}

// probeCopy copies between a batch's values (width a pixel: 2 for the
// pixel list, 3 for the radiance, 1 for a count) and side's, the values
// of one kernel of a probe of m pixels each (m a multiple of ProbeRun):
// side 0 has the even runs of the batch's first 2m pixels, side 1 the odd
// ones. It gathers into part when gather is set, else scatters part back.
func probeCopy[T any](batch, part []T, width, m, side int, gather bool) {
	run := ProbeRun * width
	for r := side; r < 2*m/ProbeRun; r += 2 {
		b, p := batch[r*run:(r+1)*run], part[r/2*run:(r/2+1)*run]
		if gather {
			copy(p, b)
		} else {
			copy(b, p)
		}
	}
}

// KernelProbe is what a device measured to choose a scene's kernel: for
// each kernel (indexed by KernelWavefront and KernelMegakernel), the rays
// its Pixels pixels traced and the time they took.
type KernelProbe struct {
	Pixels int
	Split  bool // the pixels' samples were split into parts (ProbeSplitPixels)
	Rays   [2]uint64
	Time   [2]time.Duration
}

// Rate is kernel k's rays a second in the probe.
func (p KernelProbe) Rate(k Kernel) float64 {
	if p.Time[k] <= 0 {
		return 0
	}
	return float64(p.Rays[k]) / p.Time[k].Seconds()
}

// Faster is the kernel that traced more rays a second: the wavefront only
// where it did strictly.
func (p KernelProbe) Faster() Kernel {
	if p.Rate(KernelWavefront) > p.Rate(KernelMegakernel) {
		return KernelWavefront
	}
	return KernelMegakernel
}

// KernelChoice is the kernel a device runs its uploaded scene on, and
// why.
type KernelChoice struct {
	Device string
	Set    Kernel // what the device was told (KernelEnv): KernelAuto chooses
	Kernel Kernel // what the scene's batches run on now: KernelWavefront or KernelMegakernel
	// Probed says Probe chose Kernel (Set KernelAuto); until a batch is
	// large enough for a probe, a choosing device runs the megakernels.
	Probed bool
	Probe  KernelProbe
}

// KernelChooser is implemented by a device that tells which kernel runs
// its scenes (the cuda device).
type KernelChooser interface {
	// KernelChoice returns the uploaded scene's kernel; false before
	// any scene is uploaded.
	KernelChoice() (KernelChoice, bool)
}

// String says the choice in a line, e.g. "gpu0 NVIDIA H200: the
// wavefront, chosen on 304,128 pixels each: 612 M rays/s, the megakernels
// 303 M".
func (c KernelChoice) String() string {
	switch {
	case c.Set != KernelAuto:
		return fmt.Sprintf("%s: %s (%s=%s)", c.Device, kernelName(c.Kernel), KernelEnv, c.Set)
	case !c.Probed:
		return fmt.Sprintf("%s: %s (%s=auto: no batch of the scene held the pixels to time both kernels)", c.Device, kernelName(c.Kernel), KernelEnv)
	}
	other := KernelMegakernel
	if c.Kernel == KernelMegakernel {
		other = KernelWavefront
	}
	parts := ""
	if c.Probe.Split {
		parts = " (their samples split into parts)"
	}
	return fmt.Sprintf("%s: %s, chosen on %s pixels each%s: %s rays/s, %s %s", c.Device, kernelName(c.Kernel),
		thousands(c.Probe.Pixels), parts, megaRays(c.Probe.Rate(c.Kernel)), kernelName(other), megaRays(c.Probe.Rate(other)))
}

// kernelName names k in a sentence.
func kernelName(k Kernel) string {
	switch k {
	case KernelWavefront:
		return "the wavefront"
	case KernelMegakernel:
		return "the megakernels"
	}
	return k.String()
}

// megaRays writes a rate in millions: "1234 M", "612 M", "1.76 M".
func megaRays(r float64) string {
	if m := r / 1e6; m < 100 {
		return fmt.Sprintf("%.3g M", m)
	}
	return fmt.Sprintf("%.0f M", r/1e6)
}

// thousands writes n with commas between its thousands: "304,128".
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
