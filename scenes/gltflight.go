package scenes

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// KHR_lights_punctual, glTF's point, spot and directional lights: the
// file's lights[] and the nodes that place them.
//
// Point and spot lights become tracer point lights at the node's world
// origin; a spot light points along the node's −z axis (through the
// world matrix, renormalised) and has glTF's smooth cone between
// innerConeAngle (default 0) and outerConeAngle (default π/4). glTF gives
// their intensity in candela, lm/sr: the light arriving d metres away is
// intensity/d² lux. The scene format's point light delivers intensity/d²
// too (radiance units per steradian; one radiance unit to a nit), so the
// intensity carries over unchanged and the colour (linear RGB) with it.
// range, a hint that a light may be cut off, is ignored: the falloff is
// inverse square at every distance. A directional light becomes a tracer
// directional light shining along the node's −z axis, its intensity in
// lux (lm/m²) the irradiance on a surface facing it, unchanged.
//
// Blender's exporter, from 3.4 on, writes its lights in photometric
// units by its own constant of 683 lm/W (its default lighting mode,
// "Standard"): a Point or Spot of P watts as P/4π × 683 cd and a Sun of S
// W/m² as S × 683 lux, while it writes emission strengths (and knows no
// world) as they are. Cycles renders that Point as P/4π per steradian in
// the units of its emission strengths, which are trace's radiance units,
// and Blender's importer divides by 683 again. So the lights of a file
// whose asset.generator is Blender's exporter of version 3.4 or later are
// divided by 683 (blenderWattsToLumens), and the scene renders as the
// user lit it in Blender; older Blender exports wrote P/4π and S as they
// are, which need nothing.

const gltfLightsExt = "KHR_lights_punctual"

// blenderWattsToLumens is the luminous efficacy, in lm/W, by which
// Blender's glTF exporter (3.4 and later, PBR_WATTS_TO_LUMENS in
// io_scene_gltf2) turns its watts into the lumens of KHR_lights_punctual.
const blenderWattsToLumens = 683

// blenderPhotometric reports whether generator, a glTF file's
// asset.generator, names Blender's exporter at version 3.4 or later
// ("Khronos glTF Blender I/O v3.4.50"), whose lights are in lumens by
// blenderWattsToLumens.
func blenderPhotometric(generator string) bool {
	v, ok := strings.CutPrefix(generator, "Khronos glTF Blender I/O v")
	if !ok {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 3 || major == 3 && minor >= 4
}

// gltfLight is an entry of the extension's lights, as the file gives it.
type gltfLight struct {
	Type      string      `json:"type"`
	Name      string      `json:"name"`
	Color     *[3]float64 `json:"color"`
	Intensity *float64    `json:"intensity"`
	Range     *float64    `json:"range"`
	Spot      *struct {
		InnerConeAngle *float64 `json:"innerConeAngle"`
		OuterConeAngle *float64 `json:"outerConeAngle"`
	} `json:"spot"`
}

// gltfExtension decodes an extension's value into out: the raw JSON that
// the glTF decoder keeps for an extension it has no type for, or, when
// some package registered one, that type's JSON.
func gltfExtension(v any, out any) error {
	data, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return err
		}
	}
	return json.Unmarshal(data, out)
}

// decodeLights reads and checks the document's KHR_lights_punctual
// lights.
func (l *gltfLoader) decodeLights() error {
	raw, ok := l.doc.Extensions[gltfLightsExt]
	if !ok {
		return nil
	}
	var ext struct {
		Lights []*gltfLight `json:"lights"`
	}
	if err := gltfExtension(raw, &ext); err != nil {
		return l.errorf(err, "extensions.%s: %v", gltfLightsExt, err)
	}
	for i, g := range ext.Lights {
		where := fmt.Sprintf("extensions.%s.lights[%d]", gltfLightsExt, i)
		if g == nil {
			return l.errorf(nil, "%s is null", where)
		}
		switch g.Type {
		case "point", "directional":
		case "spot":
			if g.Spot == nil {
				return l.errorf(nil, "%s: a spot light without spot", where)
			}
			inner, outer := 0.0, math.Pi/4
			if g.Spot.InnerConeAngle != nil {
				inner = *g.Spot.InnerConeAngle
			}
			if g.Spot.OuterConeAngle != nil {
				outer = *g.Spot.OuterConeAngle
			}
			if !(inner >= 0 && inner <= outer && outer > 0 && outer <= math.Pi/2) {
				return l.errorf(nil, "%s: spot: innerConeAngle %g and outerConeAngle %g must satisfy 0 ≤ inner ≤ outer ≤ π/2, outer > 0", where, inner, outer)
			}
		default:
			return l.errorf(nil, "%s: type %s is not one of \"point\", \"spot\", \"directional\"", where, quote(g.Type))
		}
		if g.Color == nil {
			g.Color = &[3]float64{1, 1, 1}
		}
		for _, c := range g.Color {
			if !(c >= 0 && c <= math.MaxFloat32) {
				return l.errorf(nil, "%s: color %v must be finite and ≥ 0", where, *g.Color)
			}
		}
		if g.Intensity == nil {
			g.Intensity = new(float64)
			*g.Intensity = 1
		}
		if x := *g.Intensity; !(x >= 0 && x <= math.MaxFloat32) {
			return l.errorf(nil, "%s: intensity %g must be finite and ≥ 0", where, x)
		}
		if blenderPhotometric(l.doc.Asset.Generator) {
			x := *g.Intensity / blenderWattsToLumens
			g.Intensity = &x
		}
		l.lights = append(l.lights, *g)
	}
	return nil
}

// nodeLight adds the light that node n (placed by world) holds, if any.
func (l *gltfLoader) nodeLight(node int, n *gltf.Node, world mgl64.Mat4) error {
	raw, ok := n.Extensions[gltfLightsExt]
	if !ok {
		return nil
	}
	where := fmt.Sprintf("nodes[%d].extensions.%s", node, gltfLightsExt)
	var ref struct {
		Light *int `json:"light"`
	}
	if err := gltfExtension(raw, &ref); err != nil {
		return l.errorf(err, "%s: %v", where, err)
	}
	if ref.Light == nil {
		return l.errorf(nil, "%s: no light", where)
	}
	i := *ref.Light
	if i < 0 || i >= len(l.lights) {
		return l.errorf(nil, "%s: lights[%d] does not exist (the file has %d)", where, i, len(l.lights))
	}
	g := &l.lights[i]
	name := fmt.Sprintf("lights[%d]", i)
	if g.Name != "" {
		name += " " + quote(g.Name)
	}
	if len(l.out.lights) >= tracer.MaxLights {
		return l.errorf(nil, "%s: more than %d lights", where, tracer.MaxLights)
	}
	if g.Type == "directional" {
		return l.directionalLight(g, world, where, name)
	}
	p := world.Mul4x1(mgl64.Vec4{0, 0, 0, 1})
	c := *g.Color
	pl := tracer.PointLight{
		Position:  mgl32.Vec3{float32(p[0]), float32(p[1]), float32(p[2])},
		Color:     mgl32.Vec3{float32(c[0]), float32(c[1]), float32(c[2])},
		Intensity: float32(*g.Intensity),
		Falloff:   tracer.FalloffInverseSquare,
	}
	if !gltfFinite(pl.Position) {
		return l.errorf(nil, "%s: %s: the position is not finite after the node transforms", where, name)
	}
	if g.Type == "spot" {
		inner, outer := 0.0, math.Pi/4
		if g.Spot.InnerConeAngle != nil {
			inner = *g.Spot.InnerConeAngle
		}
		if g.Spot.OuterConeAngle != nil {
			outer = *g.Spot.OuterConeAngle
		}
		if !aimSpot(&pl, world.Mat3().Mul3x1(mgl64.Vec3{0, 0, -1}), inner, outer) {
			return l.errorf(nil, "%s: %s: the node transforms leave the spot light no direction", where, name)
		}
	}
	l.out.lights = append(l.out.lights, pl)
	return nil
}

// directionalLight adds the directional light g held by a node placed by
// world: it shines along the node's −z axis (through the world matrix,
// renormalised), and its intensity in lux (lm/m²) carries over as the
// scene format's directional intensity, an irradiance, unchanged.
func (l *gltfLoader) directionalLight(g *gltfLight, world mgl64.Mat4, where, name string) error {
	d := world.Mat3().Mul3x1(mgl64.Vec3{0, 0, -1})
	dl := d.Len()
	if !(dl > 0) || math.IsInf(dl, 0) {
		return l.errorf(nil, "%s: %s: the node transforms leave the directional light no direction", where, name)
	}
	c := *g.Color
	l.out.lights = append(l.out.lights, tracer.PointLight{
		Position:  mgl32.Vec3{float32(-d[0] / dl), float32(-d[1] / dl), float32(-d[2] / dl)},
		Color:     mgl32.Vec3{float32(c[0]), float32(c[1]), float32(c[2])},
		Intensity: float32(*g.Intensity),
		Falloff:   tracer.FalloffDirectional,
	})
	return nil
}
