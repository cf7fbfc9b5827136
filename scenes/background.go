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
		f.known("type", "file", "colorspace", "intensity")
		srgb := choose(f, "colorspace", "srgb", "colorspace", colorspaces)
		intensity := f.float("intensity", 1, atLeast(0))
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
		return tracer.Background{Kind: tracer.BackgroundImage, Texture: tex}
	}
	return tracer.Background{}
}
