package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// materialKinds are the accepted values of a material's type.
var materialKinds = []option[tracer.MaterialKind]{
	{"diffuse", tracer.MaterialDiffuse},
	{"metal", tracer.MaterialMetal},
	{"dielectric", tracer.MaterialDielectric},
	{"emissive", tracer.MaterialEmissive},
	{"phong", tracer.MaterialPhong},
	{"pbr", tracer.MaterialPBR},
	{"unlit", tracer.MaterialUnlit},
}

// materialFields are the members each material type accepts.
var materialFields = map[tracer.MaterialKind][]string{
	tracer.MaterialDiffuse:    {"type", "color", "texture", "normal_map", "normal_scale"},
	tracer.MaterialMetal:      {"type", "color", "texture", "roughness", "normal_map", "normal_scale"},
	tracer.MaterialDielectric: {"type", "color", "texture", "ior", "roughness", "attenuation_color", "attenuation_distance", "normal_map", "normal_scale"},
	tracer.MaterialEmissive:   {"type", "color", "texture", "intensity"},
	tracer.MaterialPhong:      {"type", "color", "texture", "ambient", "diffuse", "specular", "shininess", "reflection", "normal_map", "normal_scale"},
	tracer.MaterialUnlit:      {"type", "color", "texture"},
	tracer.MaterialPBR:        {"type", "base_color", "texture", "metallic", "roughness", "metallic_roughness", "emissive", "emissive_texture", "clearcoat", "clearcoat_roughness", "specular", "specular_color", "ior", "specular_texture", "specular_color_texture", "clearcoat_texture", "clearcoat_roughness_texture", "sheen_color", "sheen_roughness", "normal_map", "normal_scale"},
}

// Material defaults (linear RGB colours).
var (
	defaultAlbedo = mgl32.Vec3{0.8, 0.8, 0.8} // diffuse and metal
	white         = mgl32.Vec3{1, 1, 1}       // dielectric tint, emission, phong
)

// maxShininess bounds a phong material's exponent; past it the highlight
// is a mirror's and the power only risks underflow.
const maxShininess = 10000

// materialTable maps the scene's material names to indices into
// SceneDesc.Materials.
type materialTable struct {
	names []string // in file order, for suggestions
	index map[string]int
}

// materials decodes the materials section, an object from names to
// materials, into s.Materials (and s.Textures) in file order.
func (d *decoder) materials(f fields, s *tracer.SceneDesc) materialTable {
	t := materialTable{index: map[string]int{}}
	if f.v == nil {
		return t
	}
	n := f.v.members()
	if n > tracer.MaxMaterials {
		d.fail(f.v, at(f.path), "%d materials, more than the limit of %d", n, tracer.MaxMaterials)
		return t
	}
	s.Materials = make([]tracer.Material, 0, n)
	t.names = make([]string, 0, n)
	for i := range n {
		name := f.v.key(i).str
		if name == "" {
			d.fail(f.v.key(i), at(f.path), "a material name must not be empty")
		}
		m := d.material(d.object(f.v.member(i), f.at(name)), s)
		if d.failed() {
			return t
		}
		t.index[name] = len(s.Materials)
		t.names = append(t.names, name)
		s.Materials = append(s.Materials, m)
	}
	return t
}

// material decodes one material. Fields that its type does not use stay
// zero.
func (d *decoder) material(f fields, s *tracer.SceneDesc) tracer.Material {
	kind := choose(f, "type", "", "material type", materialKinds)
	if d.failed() {
		return tracer.Material{}
	}
	f.known(append(materialFields[kind], alphaFields...)...)
	m := tracer.Material{Kind: kind, Texture: tracer.NoTexture}
	switch kind {
	case tracer.MaterialDiffuse:
		d.surfaceColor(f, &m, s, defaultAlbedo)
	case tracer.MaterialMetal:
		d.surfaceColor(f, &m, s, defaultAlbedo)
		m.Roughness = f.float("roughness", 0, within(0, 1))
	case tracer.MaterialDielectric:
		d.surfaceColor(f, &m, s, white)
		m.IOR = f.float("ior", 1.5, within(1, 4))
		m.Roughness = f.float("roughness", 0, within(0, 1))
		d.attenuation(f, &m)
	case tracer.MaterialEmissive:
		d.surfaceColor(f, &m, s, white)
		m.Intensity = f.float("intensity", 1, atLeast(0))
		if !d.failed() {
			peak, what := brightest(m, s)
			f.checkIntensity("intensity", m.Intensity, peak, what)
		}
	case tracer.MaterialPhong:
		d.surfaceColor(f, &m, s, white)
		m.Ambient = f.float("ambient", 0, atLeast(0))
		m.Diffuse = f.float("diffuse", 1, atLeast(0))
		m.Specular = f.float("specular", 0, atLeast(0))
		m.Shininess = f.float("shininess", 32, within(0, maxShininess))
		m.Reflection = f.float("reflection", 0, within(0, 1))
	case tracer.MaterialPBR:
		d.surfaceColorKey(f, "base_color", &m, s, white)
		m.Metallic = f.float("metallic", 0, within(0, 1))
		m.Roughness = f.float("roughness", 0.5, within(0, 1))
		m.Emission = f.color("emissive", mgl32.Vec3{})
		m.RoughMap = d.mapTexture(f, "metallic_roughness", "linear", s)
		m.EmissionMap = d.mapTexture(f, "emissive_texture", "srgb", s)
		m.Clearcoat = f.float("clearcoat", 0, within(0, 1))
		m.ClearcoatRoughness = f.float("clearcoat_roughness", 0, within(0, 1))
		// glTF's clearcoatTexture and clearcoatRoughnessTexture: red ×
		// clearcoat, green × clearcoat_roughness, linear by default.
		m.ClearcoatMap = d.mapTexture(f, "clearcoat_texture", "linear", s)
		m.ClearcoatRoughnessMap = d.mapTexture(f, "clearcoat_roughness_texture", "linear", s)
		d.pbrSpecular(f, &m, s)
		d.sheen(f, &m)
	case tracer.MaterialUnlit:
		d.surfaceColor(f, &m, s, white)
	}
	d.alpha(f, &m, s)
	if kind != tracer.MaterialEmissive && kind != tracer.MaterialUnlit && !d.failed() {
		d.normalMap(f, &m, s)
	}
	return m
}

// pbrSpecular sets a pbr material's dielectric specular reflectance from
// the members specular (a factor in [0, 1], default 1), specular_color
// (linear RGB, each component >= 0, default [1, 1, 1]) and ior (in [1, 4],
// default 1.5, the dielectric's range), glTF's KHR_materials_specular and
// KHR_materials_ior: F0 = min(((ior − 1)/(ior + 1))² · specular_color, 1)
// · specular at normal incidence, specular at grazing incidence
// (tracer.PBRSpecular). The defaults are glTF's, F0 0.04 and F90 1, and
// leave the material as it was without them. specular_texture (an image
// texture: its alpha channel, or its grey level, as alpha_texture's)
// multiplies specular, and specular_color_texture (any texture, sRGB
// images by default) specular_color, before the clamp
// (tracer.Material.SpecularMap and SpecularColorMap): glTF's
// specularTexture and specularColorTexture.
func (d *decoder) pbrSpecular(f fields, m *tracer.Material, s *tracer.SceneDesc) {
	ior := f.float("ior", 1.5, within(1, 4))
	factor := f.float("specular", 1, within(0, 1))
	color := f.color("specular_color", white)
	if d.failed() {
		return
	}
	m.SpecularMap = d.alphaTexture(f, "specular_texture", "a specular_texture", s)
	m.SpecularColorMap = d.mapTexture(f, "specular_color_texture", "srgb", s)
	if d.failed() || ior == 1.5 && factor == 1 && color == white && m.SpecularMap == 0 && m.SpecularColorMap == 0 {
		return
	}
	specular := tracer.PBRSpecular
	if m.SpecularColorMap != 0 {
		specular = tracer.PBRSpecularUnclamped
	}
	m.SpecularF0, m.SpecularF90 = specular(float64(ior), float64(factor),
		[3]float64{float64(color[0]), float64(color[1]), float64(color[2])})
	m.DielectricSpecular = 1
}

// sheen reads a pbr material's sheen (glTF's KHR_materials_sheen):
// sheen_color (linear RGB, each component in [0, 1]; default black, no
// sheen) and sheen_roughness (in [0, 1], default 0, taken as at least
// 0.07).
func (d *decoder) sheen(f fields, m *tracer.Material) {
	m.SheenColor = f.color("sheen_color", mgl32.Vec3{})
	m.SheenRoughness = f.float("sheen_roughness", 0, within(0, 1))
	if d.failed() {
		return
	}
	d.atMostOne(f, "sheen_color", m.SheenColor, "a sheen colour component must be in [0, 1]")
}

// atMostOne fails at the first component of the colour c, read from
// f's member key, that is above 1, saying msg and the value found;
// it returns whether none is.
func (d *decoder) atMostOne(f fields, key string, c mgl32.Vec3, msg string) bool {
	for i, x := range c {
		if x > 1 {
			v := &f.lookup(key).elems[i]
			d.fail(v, f.at(key).elem(i), "%s, found %s", msg, d.literal(v))
			return false
		}
	}
	return true
}

// attenuation sets a dielectric's absorption from the members
// attenuation_color (linear RGB, each component in [0, 1]; default [1, 1,
// 1]) and attenuation_distance (> 0; absent: no absorption), glTF's
// KHR_materials_volume's: light that travels attenuation_distance inside
// the glass keeps the fraction attenuation_color of itself. Either
// without the other has no effect, and is refused as a likely slip.
func (d *decoder) attenuation(f fields, m *tracer.Material) {
	m.AttenuationColor = f.color("attenuation_color", white)
	m.AttenuationDistance = f.float("attenuation_distance", 0, above(0))
	if d.failed() {
		return
	}
	if !d.atMostOne(f, "attenuation_color", m.AttenuationColor, "an attenuation colour component must be in [0, 1] (the fraction of light kept over attenuation_distance)") {
		return
	}
	hasColor, hasDistance := f.lookup("attenuation_color") != nil, f.lookup("attenuation_distance") != nil
	switch {
	case hasColor && !hasDistance:
		f.failField("attenuation_color", "\"attenuation_color\" has no effect without \"attenuation_distance\", the distance over which the glass keeps that fraction of the light")
	case hasDistance && !hasColor:
		f.failField("attenuation_distance", "\"attenuation_distance\" has no effect without \"attenuation_color\", the fraction of the light the glass keeps over that distance")
	case !hasDistance:
		m.AttenuationColor = mgl32.Vec3{} // unused
	}
}

// normalMap sets m's tangent-space normal map from the members normal_map
// (a texture, linear values by default) and normal_scale (default 1).
func (d *decoder) normalMap(f fields, m *tracer.Material, s *tracer.SceneDesc) {
	m.NormalMap = d.mapTexture(f, "normal_map", "linear", s)
	m.NormalScale = f.float("normal_scale", 1, within(-100, 100))
	if m.NormalMap == 0 {
		m.NormalScale = 0 // unused
		if f.lookup("normal_scale") != nil && !d.failed() {
			f.failField("normal_scale", "normal_scale without a normal_map")
		}
	}
}

// brightest returns the largest colour component that an emissive
// material's intensity scales, from its colour or texture, and what it is
// for a message.
func brightest(m tracer.Material, s *tracer.SceneDesc) (float32, string) {
	if m.Texture == tracer.NoTexture {
		return maxComponent(m.Color), "the colour's largest component"
	}
	tex := s.Textures[m.Texture]
	switch tex.Kind {
	case tracer.TextureChecker:
		return max(maxComponent(tex.Even), maxComponent(tex.Odd)), "the checker's largest colour component"
	case tracer.TextureImage:
		var peak float32
		for _, v := range s.Images[tex.Image].Pix {
			peak = max(peak, v)
		}
		return peak, "the image's brightest value"
	}
	return 0, ""
}

// maxComponent returns c's largest component.
func maxComponent(c mgl32.Vec3) float32 { return max(c[0], c[1], c[2]) }

// checkIntensity fails at member key when intensity times peak, the
// largest colour component it scales (what, for the message), is not
// finite in float32: the radiance would be infinite, and the pixels that
// see it NaN, counted as black.
func (f fields) checkIntensity(key string, intensity, peak float32, what string) {
	if p := intensity * peak; math.IsInf(float64(p), 0) && !f.d.failed() {
		f.failField(key, "the intensity %g times %s %g is too large for float32", intensity, what, peak)
	}
}

// mapTexture decodes the texture in member key, if any, appends it to
// s.Textures and returns 1 + its index (tracer.Material.RoughMap), or 0.
// Image values default to the colorspace given.
func (d *decoder) mapTexture(f fields, key, colorspace string, s *tracer.SceneDesc) uint32 {
	tv := f.lookup(key)
	if tv == nil || d.failed() {
		return 0
	}
	return uint32(d.addTexture(f, key, colorspace, false, s) + 1)
}

// addTexture decodes the texture in member key (image values in the
// colorspace given by default; alphaOnly: only its alpha is read, see
// textureIn), appends it to s.Textures and returns its index, or −1 after
// a failure.
func (d *decoder) addTexture(f fields, key, colorspace string, alphaOnly bool, s *tracer.SceneDesc) int32 {
	tv := f.lookup(key)
	tex := d.textureIn(d.object(tv, f.at(key)), s, colorspace, alphaOnly)
	if d.failed() {
		return -1
	}
	if len(s.Textures) >= tracer.MaxMaterials {
		// A material has up to three textures, so a scene within the
		// material limit can pass this one.
		d.fail(tv, f.at(key), "more than %d textures", tracer.MaxMaterials)
		return -1
	}
	s.Textures = append(s.Textures, tex)
	return int32(len(s.Textures) - 1)
}

// surfaceColor sets m's colour from the material's color or texture
// member (not both); def is the colour when neither is given. A texture is
// appended to s.Textures.
func (d *decoder) surfaceColor(f fields, m *tracer.Material, s *tracer.SceneDesc, def mgl32.Vec3) {
	d.surfaceColorKey(f, "color", m, s, def)
}

// surfaceColorKey is surfaceColor with the colour in member key.
func (d *decoder) surfaceColorKey(f fields, key string, m *tracer.Material, s *tracer.SceneDesc, def mgl32.Vec3) {
	tv := f.lookup("texture")
	if tv == nil {
		m.Color = f.color(key, def)
		return
	}
	if f.lookup(key) != nil {
		d.fail(tv, at(f.path), "give either %q or %q, not both", key, "texture")
		return
	}
	if i := d.addTexture(f, "texture", "srgb", false, s); i >= 0 {
		m.Texture = i
	}
}
