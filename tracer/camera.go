package tracer

import (
	"github.com/tracerender/trace/tracer/fmath"
)

// Camera is the compiled camera: everything a camera ray needs, precomputed.
type Camera struct {
	Eye      vec3
	Right    vec3 // unit; image right
	Up       vec3 // unit; image up
	Forward  vec3 // unit; the view direction
	Width    uint32
	Height   uint32
	PlaneW   float32 // width of the image plane at distance 1 (orthographic: of the view)
	PlaneH   float32 // height of the image plane at distance 1: 2·tan(fov/2) (orthographic: of the view)
	ShiftX   float32 // centre of the image plane along Right, at distance 1 (orthographic: of the view)
	ShiftY   float32 // centre of the image plane along Up, at distance 1 (orthographic: of the view)
	LensR    float32 // lens radius (aperture / 2); 0 is a pinhole
	FocusDst float32 // distance to the plane in focus, along Forward
	// Ortho is 1 for an orthographic camera: rays along Forward from the
	// point of the view plane through Eye.
	Ortho uint32
	// Filtered is 1 when a sample's position in its pixel is drawn
	// from FilterTable (filter.go), 0 when uniformly over the pixel (a
	// box of width 1, the default).
	Filtered    uint32
	FilterTable [FilterTableSize]float32
}

// setFilter compiles the film's pixel filter into c.
func (c *Camera) setFilter(f *Film) {
	if f.FilterWidth == 0 || f.Filter == PixelFilterBox && f.FilterWidth == 1 {
		return
	}
	c.Filtered, c.FilterTable = 1, filterTable(f.Filter, f.FilterWidth)
}

// pixelPoint returns the image point, in pixels, of a sample of pixel
// (x, y) whose numbers for the position are (jx, jy): the pixel's centre
// for a render of one sample (n = 1), else jittered inside the pixel or,
// under a filter, offset from its centre by the filter's distribution.
// kernels/camera.h's pixel_point does the same operations.
func (c *Camera) pixelPoint(x, y int, jx, jy float32, n int) (px, py float32) {
	px, py = float32(x)+0.5, float32(y)+0.5
	switch {
	case n == 1:
	case c.Filtered != 0:
		px, py = px+filterOffset(&c.FilterTable, jx), py+filterOffset(&c.FilterTable, jy)
	default:
		px, py = float32(x)+jx, float32(y)+jy
	}
	return px, py
}

// newCamera compiles a camera description for an image of w×h pixels.
func newCamera(d CameraDesc, w, h int) Camera {
	fwd := normalize(d.LookAt.Sub(d.Position))
	right := normalize(cross(fwd, d.Up))
	up := cross(right, fwd)
	ph := 2 * fmath.Tan(float32(d.FOV*(pi/180))/2)
	pw := ph * float32(w) / float32(h)
	focus := d.FocusDistance
	if focus == 0 {
		focus = length(d.LookAt.Sub(d.Position))
	}
	var ortho uint32
	if d.Orthographic {
		ortho, ph = 1, d.Height
		pw = ph * float32(w) / float32(h)
	}
	return Camera{
		Eye: d.Position, Right: right, Up: up, Forward: fwd,
		Width: uint32(w), Height: uint32(h),
		PlaneW: pw, PlaneH: ph,
		ShiftX: float32(d.Shift[0] * ph), ShiftY: float32(d.Shift[1] * ph),
		LensR: d.Aperture / 2, FocusDst: focus, Ortho: ortho,
	}
}

// Ray returns the camera ray through the image point (px, py), in pixels
// from the top-left corner of the image (pixel (x, y) covers [x, x+1) ×
// [y, y+1)), with the lens sample (lu, lv) in [0, 1)² when the lens has an
// aperture.
func (c *Camera) Ray(px, py, lu, lv float32) Ray {
	sx := float32((px/float32(c.Width)-0.5)*c.PlaneW) + c.ShiftX
	sy := float32((0.5-py/float32(c.Height))*c.PlaneH) + c.ShiftY
	if c.Ortho != 0 {
		// Parallel rays from the view plane through the eye.
		return Ray{Origin: madd(madd(c.Eye, c.Right, sx), c.Up, sy), Dir: c.Forward, TMax: infinity}
	}
	// Direction to the point on the image plane at distance 1.
	d := madd(madd(c.Forward, c.Right, sx), c.Up, sy)
	if c.LensR == 0 {
		return Ray{Origin: c.Eye, Dir: normalize(d), TMax: infinity}
	}
	// Thin lens: the point on the plane in focus stays put; the origin
	// moves across a disk of radius LensR.
	focus := madd(c.Eye, d, c.FocusDst)
	r := float32(c.LensR * sqrt32(lu))
	phi := float32(2*pi) * lv
	sinPhi, cosPhi := fmath.SinCos(phi)
	ox := float32(r * cosPhi)
	oy := float32(r * sinPhi)
	o := madd(madd(c.Eye, c.Right, ox), c.Up, oy)
	return Ray{Origin: o, Dir: normalize(focus.Sub(o)), TMax: infinity}
}
