package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// lightTypes are the accepted values of a light's type.
var lightTypes = []string{"point"}

// falloffs are the accepted values of a point light's falloff.
var falloffs = []option[tracer.Falloff]{
	{"inverse_square", tracer.FalloffInverseSquare},
	{"none", tracer.FalloffNone},
}

// lights decodes the lights array a (nil when absent) at l.
func (d *decoder) lights(a *value, l loc) []tracer.PointLight {
	if a == nil {
		return nil
	}
	items := a.elems
	if len(items) > tracer.MaxLights {
		d.fail(a, l, "%d lights, more than the limit of %d", len(items), tracer.MaxLights)
		return nil
	}
	var lights []tracer.PointLight
	for i := range items {
		f := d.object(&items[i], l.elem(i))
		f.choice("type", "", "light type", lightTypes)
		f.known("type", "position", "color", "intensity", "falloff")
		l := tracer.PointLight{
			Position:  f.requiredVec3("position"),
			Color:     f.color("color", mgl32.Vec3{1, 1, 1}),
			Intensity: f.float("intensity", 1, atLeast(0)),
			Falloff:   choose(f, "falloff", "inverse_square", "falloff", falloffs),
		}
		f.checkIntensity("intensity", l.Intensity, maxComponent(l.Color), "the colour's largest component")
		if d.failed() {
			return nil
		}
		lights = append(lights, l)
	}
	return lights
}
