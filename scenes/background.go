package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// backgroundTypes are the accepted values of background.type.
var backgroundTypes = []string{"color", "gradient", "image"}

// background decodes the background section; an absent one is black.
func (d *decoder) background(f fields) tracer.Background {
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
		f.failField("type", "image backgrounds are not supported yet")
	}
	return tracer.Background{}
}
