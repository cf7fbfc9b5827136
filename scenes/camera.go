package scenes

import (
	"errors"
	"math"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tracerender/trace/tracer"
)

// cameraFields are the members of the camera section.
var cameraFields = []string{"type", "position", "look_at", "up", "fov", "height", "shift", "aperture", "focus_distance"}

// cameraTypes are the accepted values of camera.type.
var cameraTypes = []option[bool]{
	{"perspective", false},
	{"orthographic", true},
}

// Camera defaults.
var (
	defaultUp  = mgl32.Vec3{0, 1, 0}
	defaultFOV = float32(40) // degrees, vertical
)

// camera decodes the camera section: position and look_at are required,
// and the view direction and up must give the camera a well-defined frame;
// or, with "gltf", the camera comes from a glTF file (gltfCamera).
func (d *decoder) camera(f fields) tracer.CameraDesc {
	if f.lookup("gltf") != nil {
		return d.gltfCamera(f)
	}
	f.known(cameraFields...)
	c := tracer.CameraDesc{
		Orthographic:  choose(f, "type", "perspective", "camera type", cameraTypes),
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
	d.orthographic(f, &c)
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

// orthographic decodes what an orthographic camera adds to c: height,
// by default the height that the field of view spans at look_at (so that
// switching the type keeps what lies there the same size); aperture must
// be 0, and height is refused on a perspective camera.
func (d *decoder) orthographic(f fields, c *tracer.CameraDesc) {
	if !c.Orthographic {
		if f.lookup("height") != nil {
			f.failField("height", "applies to an orthographic camera (camera.type \"orthographic\")")
		}
		return
	}
	if c.Aperture != 0 {
		f.failField("aperture", "an orthographic camera has no lens: aperture must be 0")
	}
	dist := float64(c.LookAt.Sub(c.Position).Len())
	def := float32(2 * dist * math.Tan(float64(c.FOV)*math.Pi/360))
	c.Height = f.float("height", def, atLeast(0))
	if !(c.Height > 0) || math.IsInf(float64(c.Height), 0) {
		f.failField("height", "the view's height must be a positive number, found %g", c.Height)
	}
}

// gltfCameraFields are the members of a camera taken from a glTF file.
var gltfCameraFields = []string{"gltf", "camera", "shift", "aperture", "focus_distance", "animation", "time"}

// gltfCamera decodes a camera section that takes its camera from a glTF
// file ("gltf"): the camera named by "camera" (its index in
// the file's cameras, or its name; by default the first camera that a
// node of the default scene holds), placed by that node's world matrix —
// the file's own coordinates, as a mesh object of the file without a
// transform is — looking along the node's −z with its +y up, with the
// file's vertical field of view, or, orthographic, a height of 2·ymag
// (scaled by the node along its y). The file's aspectRatio, xmag and
// clipping planes are not used: the image's size sets the aspect. shift,
// aperture and focus_distance are the scene's as for any camera;
// "animation" and "time" pose the file first (animation.go).
func (d *decoder) gltfCamera(f fields) tracer.CameraDesc {
	f.known(gltfCameraFields...)
	c := tracer.CameraDesc{
		Aperture:      f.float("aperture", 0, atLeast(0)),
		FocusDistance: f.float("focus_distance", 0, atLeast(0)),
	}
	if v := f.lookup("shift"); v != nil {
		d.floats(v, f.at("shift"), c.Shift[:])
	}
	fv := f.lookup("gltf")
	file, ok := d.str(fv, f.at("gltf"))
	if !ok {
		return c
	}
	if ext := strings.ToLower(filepath.Ext(file)); ext != ".gltf" && ext != ".glb" {
		d.fail(fv, f.at("gltf"), "%s is not a glTF file (.gltf or .glb)", quoteFile(file))
		return c
	}
	a, err := d.sceneAssets()
	if err != nil {
		d.fail(fv, f.at("gltf"), "%s: %v", quoteFile(file), err)
		return c
	}
	path, err := a.resolve(a.dir, file)
	if err != nil {
		err = fileErr(file, err)
		d.fail(fv, f.at("gltf"), "%v", err)
		d.err.Err = err
		return c
	}
	pose, ok := d.gltfPose(f, file)
	if !ok {
		return c
	}
	im, err := d.importFileAs(a, path, path+pose.key(), loadGLTFPosed(pose))
	if errors.Is(err, errGLTFAnimationPick) {
		d.importFailed(f, f.lookup("animation"), f.at("animation"), path, file, err)
		return c
	}
	if err != nil {
		d.importFailed(f, fv, f.at("gltf"), path, file, err)
		return c
	}
	cam, ok := d.pickGLTFCamera(f, file, im.cameras)
	if !ok {
		return c
	}
	ortho := math.IsNaN(cam.yfov)
	if ortho {
		if !(cam.ymag > 0 && cam.ymag <= math.MaxFloat32/4) {
			f.failField("gltf", "%s: cameras[%d]: orthographic ymag %g is not a positive number", quoteFile(file), cam.camera, cam.ymag)
			return c
		}
		if c.Aperture != 0 {
			f.failField("aperture", "%s: cameras[%d] is orthographic, which has no lens: aperture must be 0", quoteFile(file), cam.camera)
			return c
		}
	} else if !(cam.yfov > 0 && cam.yfov < math.Pi) {
		f.failField("gltf", "%s: cameras[%d]: yfov %g is not in (0, π)", quoteFile(file), cam.camera, cam.yfov)
		return c
	}
	w := cam.world
	pos := w.Mul4x1(mgl64.Vec4{0, 0, 0, 1}).Vec3()
	dir := w.Mul4x1(mgl64.Vec4{0, 0, -1, 0}).Vec3()
	up := w.Mul4x1(mgl64.Vec4{0, 1, 0, 0}).Vec3()
	if l := dir.Len(); l > 0 && !math.IsInf(l, 0) {
		dir = dir.Mul(1 / l)
	}
	c.Position = mgl32.Vec3{float32(pos[0]), float32(pos[1]), float32(pos[2])}
	c.LookAt = c.Position.Add(mgl32.Vec3{float32(dir[0]), float32(dir[1]), float32(dir[2])})
	c.Up = mgl32.Vec3{float32(up[0]), float32(up[1]), float32(up[2])}
	if ortho {
		// ymag is half the view's height in the camera's space, which the
		// node's matrix scales along its y.
		c.Orthographic, c.Height = true, float32(2*cam.ymag*up.Len())
	} else {
		c.FOV = float32(cam.yfov * 180 / math.Pi)
	}
	lookDir := c.LookAt.Sub(c.Position)
	if !finiteVec3(c.Position) || !normalizable(lookDir) || !normalizable(c.Up) || parallel(lookDir, c.Up) {
		f.failField("gltf", "%s: the node of cameras[%d] (nodes[%d]) does not give a camera a frame (its matrix is singular or not finite)", quoteFile(file), cam.camera, cam.node)
	}
	return c
}

// pickGLTFCamera returns the camera that camera.camera names among the
// file's cameras: by index or by name, or the first without one.
func (d *decoder) pickGLTFCamera(f fields, file string, cams []importedCamera) (importedCamera, bool) {
	if len(cams) == 0 {
		f.failField("gltf", "%s has no camera on a node of its scene", quoteFile(file))
		return importedCamera{}, false
	}
	v := f.lookup("camera")
	if v == nil {
		return cams[0], true
	}
	switch v.kind {
	case kindNumber:
		for _, c := range cams {
			if float64(c.camera) == v.num {
				return c, true
			}
		}
		d.fail(v, f.at("camera"), "%s: no node of its scene holds cameras[%g] (%d cameras on nodes)", quoteFile(file), v.num, len(cams))
	case kindString:
		var names []string
		for _, c := range cams {
			if c.name == v.str {
				return c, true
			}
			if c.name != "" {
				names = append(names, quote(c.name))
			}
		}
		d.fail(v, f.at("camera"), "%s has no camera named %s (named cameras: %s)", quoteFile(file), quote(v.str), strings.Join(names, ", "))
	default:
		d.fail(v, f.at("camera"), "expected a camera index or name, found %s", v.kind)
	}
	return importedCamera{}, false
}

// finiteVec3 reports whether every component of v is finite.
func finiteVec3(v mgl32.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
