package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// lightTypes are the accepted values of a light's type.
var lightTypes = []string{"point", "directional"}

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
		if f.choice("type", "", "light type", lightTypes) == "directional" {
			l, ok := d.directionalLight(f)
			if !ok {
				return nil
			}
			lights = append(lights, l)
			continue
		}
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

// directionalLight decodes a light of type "directional": a light at
// infinity shining along direction (from the light toward the scene),
// intensity × color the irradiance on a surface facing it, its disk angle
// degrees across (0: a point in the sky).
func (d *decoder) directionalLight(f fields) (tracer.PointLight, bool) {
	f.known("type", "direction", "color", "intensity", "angle")
	dir := f.requiredVec3("direction")
	l := tracer.PointLight{
		Color:           f.color("color", mgl32.Vec3{1, 1, 1}),
		Intensity:       f.float("intensity", 1, atLeast(0)),
		Falloff:         tracer.FalloffDirectional,
		DiskOneMinusCos: tracer.SunDisk(float64(f.float("angle", 0, within(0, 180)))),
	}
	switch {
	case d.failed():
		return l, false
	case dir == mgl32.Vec3{}:
		f.failField("direction", "must not be zero")
	case !normalizable(dir):
		f.failField("direction", "is too short or too long to normalise in float32")
	}
	f.checkIntensity("intensity", l.Intensity, maxComponent(l.Color), "the colour's largest component")
	if d.failed() {
		return l, false
	}
	l.Position = towardLight(dir)
	return l, true
}

// towardLight returns the unit vector opposite dir, the direction a
// directional light travels: the direction from the scene toward the light
// that tracer.PointLight.Position holds for a directional light. The length
// is taken in float64, so any dir that normalizable accepts gives a unit
// vector.
func towardLight(dir mgl32.Vec3) mgl32.Vec3 {
	x, y, z := float64(dir[0]), float64(dir[1]), float64(dir[2])
	n := math.Sqrt(float64(x*x) + float64(y*y) + float64(z*z))
	return mgl32.Vec3{float32(-x / n), float32(-y / n), float32(-z / n)}
}
