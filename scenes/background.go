package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// backgroundTypes are the accepted values of background.type.
var backgroundTypes = []string{"color", "gradient", "image"}

// background decodes the background section; an absent one is black. An
// image background's image and texture are added to s.Images and
// s.Textures.
func (d *decoder) background(f fields, s *tracer.SceneDesc) tracer.Background {
	switch f.choice("type", "color", "background type", backgroundTypes) {
	case "color":
		if f.v != nil && f.lookup("type") == nil {
			for i := range f.v.members() {
				if k := f.v.key(i); k.str == "bottom" || k.str == "top" {
					d.fail(k, at(f.path), "unknown field %s; a gradient background needs \"type\": \"gradient\"", quote(k.str))
				}
			}
		}
		f.known("type", "color")
		return tracer.Background{Kind: tracer.BackgroundColor, Color: f.color("color", mgl32.Vec3{})}
	case "gradient":
		f.known("type", "bottom", "top")
		return tracer.Background{
			Kind:   tracer.BackgroundGradient,
			Bottom: f.requiredColor("bottom"),
			Top:    f.requiredColor("top"),
		}
	case "image":
		f.known("type", "file", "colorspace", "intensity", "rotation")
		srgb := choose(f, "colorspace", "srgb", "colorspace", colorspaces)
		intensity := f.float("intensity", 1, atLeast(0))
		rotation := d.backgroundRotation(f)
		img := d.imageFileOf(f, srgb, intensity, useBackground, s)
		if d.failed() {
			return tracer.Background{}
		}
		if len(s.Textures) >= tracer.MaxMaterials {
			// Unreachable while the background is decoded before the
			// materials: its texture is the first.
			f.failField("file", "more than %d textures", tracer.MaxMaterials)
			return tracer.Background{}
		}
		tex := int32(len(s.Textures))
		s.Textures = append(s.Textures, tracer.Texture{Kind: tracer.TextureImage, Image: img})
		return tracer.Background{Kind: tracer.BackgroundImage, Texture: tex, Rotation: rotation}
	}
	return tracer.Background{}
}

// backgroundRotation decodes an image background's "rotation": a number,
// degrees about the world's up axis (+y), or [rx, ry, rz] degrees about x,
// then y, then z, as a mesh transform's rotate (counter-clockwise looking
// from the positive axis toward the origin). It returns
// tracer.Background.Rotation: the rows of the inverse of R = Rz·Ry·Rx,
// which turns the map into the world; all zero when the member is absent
// or every angle a multiple of 360°, so that such a background renders as
// one without the member.
func (d *decoder) backgroundRotation(f fields) [3]mgl32.Vec3 {
	v := f.lookup("rotation")
	if v == nil || d.failed() {
		return [3]mgl32.Vec3{}
	}
	var deg mgl32.Vec3
	switch l := f.at("rotation"); v.kind {
	case kindNumber:
		deg[1] = d.float(v, l)
	case kindArray:
		deg = d.vec3(v, l)
	default:
		d.fail(v, l, "expected a number (degrees about +y) or an array of 3 numbers, found %s", v.kind)
	}
	if d.failed() {
		return [3]mgl32.Vec3{}
	}
	r := newTransform(mgl32.Vec3{}, deg, mgl32.Vec3{1, 1, 1}).linear
	if r == identityTransform.linear {
		return [3]mgl32.Vec3{}
	}
	var inv [3]mgl32.Vec3 // Rᵀ: row i is R's column i
	for i := range 3 {
		for j := range 3 {
			inv[i][j] = float32(r[j][i])
		}
	}
	return inv
}
