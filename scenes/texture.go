package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// textureTypes are the accepted values of a texture's type.
var textureTypes = []string{"checker", "image"}

// texture decodes a material's texture member.
func (d *decoder) texture(f fields) tracer.Texture {
	switch f.choice("type", "", "texture type", textureTypes) {
	case "checker":
		f.known("type", "scale", "even", "odd")
		return tracer.Texture{
			Kind:  tracer.TextureChecker,
			Scale: f.float("scale", 1, above(0)),
			Even:  f.color("even", mgl32.Vec3{1, 1, 1}),
			Odd:   f.color("odd", mgl32.Vec3{}),
		}
	case "image":
		f.failField("type", "image textures are not supported yet")
	}
	return tracer.Texture{}
}
