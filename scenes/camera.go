package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// cameraFields are the members of the camera section.
var cameraFields = []string{"position", "look_at", "up", "fov", "shift", "aperture", "focus_distance"}

// Camera defaults.
var (
	defaultUp  = mgl32.Vec3{0, 1, 0}
	defaultFOV = float32(40) // degrees, vertical
)

// camera decodes the camera section: position and look_at are required,
// and the view direction and up must give the camera a well-defined frame.
func (d *decoder) camera(f fields) tracer.CameraDesc {
	f.known(cameraFields...)
	c := tracer.CameraDesc{
		Position:      f.requiredVec3("position"),
		LookAt:        f.requiredVec3("look_at"),
		Up:            f.vec3("up", defaultUp),
		FOV:           f.float("fov", defaultFOV, between(0, 180)),
		Aperture:      f.float("aperture", 0, atLeast(0)),
		FocusDistance: f.float("focus_distance", 0, atLeast(0)),
	}
	if v := f.lookup("shift"); v != nil {
		d.floats(v, f.at("shift"), c.Shift[:])
	}
	if d.failed() {
		return c
	}
	dir := c.LookAt.Sub(c.Position)
	switch {
	case dir == mgl32.Vec3{}:
		f.failField("look_at", "must differ from camera.position")
	case !normalizable(dir):
		f.failField("look_at", "is too close to or too far from camera.position: the view direction cannot be normalised in float32")
	case c.Up == mgl32.Vec3{}:
		f.failField("up", "must not be zero")
	case !normalizable(c.Up):
		f.failField("up", "is too short or too long to normalise in float32")
	case parallel(dir, c.Up) && f.lookup("up") == nil:
		f.failField("up", "the default up [0, 1, 0] is parallel to the view direction; give camera.up")
	case parallel(dir, c.Up):
		f.failField("up", "is parallel to the view direction (camera.look_at - camera.position)")
	}
	return c
}
