package scenes

import "github.com/tracerender/trace/tracer"

// Version is the scene file version this package reads; a file's version
// member must equal it.
const Version = 1

// sceneFields are the top-level members of a scene file.
var sceneFields = []string{"version", "description", "render", "camera", "film", "background", "materials", "lights", "objects"}

// scene decodes a whole scene file from its JSON tree.
func (d *decoder) scene(root *value) *tracer.SceneDesc {
	if root.kind != kindObject {
		d.fail(root, at(""), "a scene file holds a JSON object ({\"version\": 1, ...}), found %s", root.kind)
		return nil
	}
	f := d.object(root, at(""))
	// The version comes first, so that a file of another version gets that
	// error rather than one about a field this version does not know.
	if v := f.required("version"); v != nil {
		if n, ok := d.integer(v, at("version")); ok && n != Version {
			d.fail(v, at("version"), "unsupported scene file version %s; this build reads version %d", d.literal(v), Version)
		}
	}
	f.known(sceneFields...)
	f.string("description", "")
	s := &tracer.SceneDesc{
		Settings: d.settings(f.section("render")),
		Camera:   d.camera(f.requiredSection("camera")),
		Film:     d.film(f.section("film")),
	}
	s.Background = d.background(f.section("background"), s)
	mats := d.materials(f.section("materials"), s)
	s.Lights = d.lights(f.list("lights"), f.at("lights"))
	d.objects(f.list("objects"), f.at("objects"), mats, s)
	if d.failed() {
		return nil
	}
	dropUnusedAlpha(s)
	return s
}
