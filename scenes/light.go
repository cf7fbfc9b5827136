package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tracerender/trace/tracer"
)

// lightTypes are the accepted values of a light's type.
var lightTypes = []string{"point", "spot", "directional"}

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
		var light tracer.PointLight
		var ok bool
		switch f.choice("type", "", "light type", lightTypes) {
		case "directional":
			light, ok = d.directionalLight(f)
		case "spot":
			light, ok = d.spotLight(f)
		default:
			f.known("type", "position", "color", "intensity", "falloff")
			light, ok = d.pointLight(f)
		}
		if !ok {
			return nil
		}
		lights = append(lights, light)
	}
	return lights
}

// pointLight decodes the fields that a "point" light and a "spot" share:
// where it is, its colour, its intensity (the light along a spot's axis)
// and its falloff.
func (d *decoder) pointLight(f fields) (tracer.PointLight, bool) {
	l := tracer.PointLight{
		Position:  f.requiredVec3("position"),
		Color:     f.color("color", mgl32.Vec3{1, 1, 1}),
		Intensity: f.float("intensity", 1, atLeast(0)),
		Falloff:   choose(f, "falloff", "inverse_square", "falloff", falloffs),
	}
	f.checkIntensity("intensity", l.Intensity, maxComponent(l.Color), "the colour's largest component")
	return l, !d.failed()
}

// Spot cone defaults, in degrees from the axis: glTF's innerConeAngle and
// outerConeAngle (0 and π/4).
const (
	defaultSpotInner = 0
	defaultSpotOuter = 45
)

// spotLight decodes a light of type "spot": a point light at position
// shining in a cone about direction (or toward look_at, exactly one of
// them), at full intensity within inner_angle degrees of the axis, dark
// beyond outer_angle, and glTF's smooth falloff between them (see
// aimSpot).
func (d *decoder) spotLight(f fields) (tracer.PointLight, bool) {
	f.known("type", "position", "direction", "look_at", "color", "intensity", "falloff", "inner_angle", "outer_angle")
	dirv, lookv := f.lookup("direction"), f.lookup("look_at")
	if dirv != nil && lookv != nil && !d.failed() {
		f.failField("look_at", "give direction or look_at, not both")
	}
	if dirv == nil && lookv == nil && !d.failed() {
		f.d.failAt(f.offset("direction"), f.path, "missing required field %s (or %s)", quote("direction"), quote("look_at"))
	}
	l, ok := d.pointLight(f)
	if !ok {
		return l, false
	}
	var dir mgl64.Vec3
	if dirv != nil {
		v := f.vec3("direction", mgl32.Vec3{})
		if v == (mgl32.Vec3{}) && !d.failed() {
			f.failField("direction", "must not be zero")
		}
		dir = mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])}
	} else {
		v := f.vec3("look_at", mgl32.Vec3{})
		p := l.Position
		// Exact in float64: the difference of two float32s.
		dir = mgl64.Vec3{float64(v[0]) - float64(p[0]), float64(v[1]) - float64(p[1]), float64(v[2]) - float64(p[2])}
		if dir == (mgl64.Vec3{}) && !d.failed() {
			f.failField("look_at", "is the light's position %v: the spot light would point nowhere", v)
		}
	}
	inner := float64(f.float("inner_angle", defaultSpotInner, within(0, 90)))
	outer := float64(f.float("outer_angle", defaultSpotOuter, aboveAtMost(0, 90)))
	if !d.failed() && inner > outer {
		f.failField("inner_angle", "%g is more than outer_angle %g: the cone's full light must lie within its edge (0 ≤ inner_angle ≤ outer_angle ≤ 90)", inner, outer)
	}
	if d.failed() {
		return l, false
	}
	// dir is finite and not zero, in float64 also after squaring: aimSpot
	// cannot fail here.
	aimSpot(&l, dir, inner*math.Pi/180, outer*math.Pi/180)
	return l, true
}

// aboveAtMost accepts x in (lo, hi].
func aboveAtMost(lo, hi float64) check {
	return func(x float64) string {
		if x > lo && x <= hi {
			return ""
		}
		return fmt.Sprintf("must be in (%g, %g]", lo, hi)
	}
}

// aimSpot makes the point light l a spot light pointing along dir (any
// length but 0, normalised in float64) with KHR_lights_punctual's cone:
// full intensity within inner radians of the axis, none beyond outer, 0 ≤
// inner ≤ outer ≤ π/2 (tracer.SpotCone). The glTF loader and the scene
// file's "spot" lights both come through here. It reports false, leaving
// l as it was, when dir has no length or an infinite one.
func aimSpot(l *tracer.PointLight, dir mgl64.Vec3, inner, outer float64) bool {
	n := dir.Len()
	if !(n > 0) || math.IsInf(n, 0) {
		return false
	}
	l.SpotDir = mgl32.Vec3{float32(dir[0] / n), float32(dir[1] / n), float32(dir[2] / n)}
	l.SpotScale, l.SpotOffset = tracer.SpotCone(inner, outer)
	return true
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
