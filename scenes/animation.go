package scenes

import (
	"path/filepath"
	"strings"
)

// A mesh object or a camera section that names a glTF file may pose it
// with one of the file's animations:
//
//	{"type": "mesh", "file": "walker.glb", "animation": "Walk", "time": 1.25}
//
// "animation" is the animation's name, or its index in the file's
// animations; "time" is in seconds (default 0, at least 0). Each channel
// is sampled at that time with its sampler's interpolation, clamped to
// its keyframes (gltfanim.go). A file posed at two times is read twice,
// once for each.

// gltfPoseFields are the members that pick a pose.
var gltfPoseFields = []string{"animation", "time"}

// gltfPose reads the "animation" and "time" of f, whose glTF file (or
// other mesh file) is file; ok is false after an error.
func (d *decoder) gltfPose(f fields, file string) (gltfPose, bool) {
	av, tv := f.lookup("animation"), f.lookup("time")
	if av == nil {
		if tv != nil && !d.failed() {
			f.failField("time", "\"time\" poses an animation: give the object an \"animation\" too (the file's animation's name or index)")
		}
		return noGLTFPose, !d.failed()
	}
	if ext := strings.ToLower(filepath.Ext(file)); ext != ".gltf" && ext != ".glb" {
		if !d.failed() {
			f.failField("animation", "animation applies to glTF files (.gltf, .glb); %s is a %s file", quoteFile(file), ext)
		}
		return noGLTFPose, false
	}
	p := gltfPose{index: -1}
	switch av.kind {
	case kindString:
		p.name, _ = d.str(av, f.at("animation"))
		if p.name == "" && !d.failed() {
			f.failField("animation", "expected an animation's name or index, found an empty string")
		}
	case kindNumber:
		p.index = int(f.integer("animation", 0, 0, 1<<31-1, ""))
	default:
		d.fail(av, f.at("animation"), "expected an animation's name or index, found %s", av.kind)
	}
	if tv != nil {
		t, ok := d.finite(tv, f.at("time"))
		if ok && !(t >= 0) {
			d.fail(tv, f.at("time"), "must be >= 0 (seconds), found %s", d.literal(tv))
		}
		p.time = t
	}
	return p, !d.failed()
}
