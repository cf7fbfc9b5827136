package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// gltfSpecGlossExt is glTF's older specular-glossiness material model,
// converted at load time into a pbr material (specularGlossiness).
const gltfSpecGlossExt = "KHR_materials_pbrSpecularGlossiness"

// gltfGlossKey is a roughness image derived from a specular-glossiness
// texture's image (its alpha, the glossiness) and a glossinessFactor.
type gltfGlossKey struct {
	img   *tracer.Image
	gloss float32
}

// specularGlossiness converts the KHR_materials_pbrSpecularGlossiness
// object raw of the material at where into im, a pbr material, in place
// of its pbrMetallicRoughness (docs/scene-format.md, "Meshes"):
//
//   - the base colour is diffuseFactor (RGBA, default 1, each in [0, 1])
//     times diffuseTexture (sRGB; its alpha as baseColorTexture's);
//   - metallic 0;
//   - the dielectric's F0 is specularFactor (RGB, default 1, each in
//     [0, 1]) times the RGB of specularGlossinessTexture (sRGB), and its
//     F90 1: KHR_materials_specular's model at ior 1.5 (F0 0.04),
//     specular 1 and specular colour specularFactor / 0.04, so
//     min(0.04 × specularFactor / 0.04 × texture, 1) = specularFactor ×
//     texture;
//   - the roughness is 1 − glossinessFactor (default 1, in [0, 1]) × the
//     alpha of specularGlossinessTexture: the texture's image becomes
//     a roughness image (derived once per image and factor, in memory),
//     whose green is that roughness, read by the pbr material's
//     metallic-roughness lookup with roughness factor 1.
//
// Out-of-range factors are errors.
func (l *gltfLoader) specularGlossiness(raw any, where string, im *importedMaterial) error {
	var e struct {
		DiffuseFactor    []float64         `json:"diffuseFactor"`
		DiffuseTexture   *gltf.TextureInfo `json:"diffuseTexture"`
		SpecularFactor   []float64         `json:"specularFactor"`
		GlossFactor      *float64          `json:"glossinessFactor"`
		SpecGlossTexture *gltf.TextureInfo `json:"specularGlossinessTexture"`
	}
	if err := gltfExtension(raw, &e); err != nil {
		return l.errorf(err, "%s: %s: %v", where, gltfSpecGlossExt, err)
	}
	diffuse, spec, gloss := [4]float64{1, 1, 1, 1}, [3]float64{1, 1, 1}, 1.0
	// A factor of the wrong length is an error, not zeros (or numbers)
	// filled in or dropped.
	if e.DiffuseFactor != nil {
		if len(e.DiffuseFactor) != 4 {
			return l.errorf(nil, "%s: %s: diffuseFactor %v has %d numbers, want 4 (RGBA)", where, gltfSpecGlossExt, e.DiffuseFactor, len(e.DiffuseFactor))
		}
		diffuse = [4]float64(e.DiffuseFactor)
	}
	if e.SpecularFactor != nil {
		if len(e.SpecularFactor) != 3 {
			return l.errorf(nil, "%s: %s: specularFactor %v has %d numbers, want 3 (RGB)", where, gltfSpecGlossExt, e.SpecularFactor, len(e.SpecularFactor))
		}
		spec = [3]float64(e.SpecularFactor)
	}
	if e.GlossFactor != nil {
		gloss = *e.GlossFactor
	}
	for _, f := range diffuse {
		if !(f >= 0 && f <= 1) {
			return l.errorf(nil, "%s: %s: diffuseFactor %v is outside [0, 1]", where, gltfSpecGlossExt, diffuse)
		}
	}
	for _, f := range spec {
		if !(f >= 0 && f <= 1) {
			return l.errorf(nil, "%s: %s: specularFactor %v is outside [0, 1]", where, gltfSpecGlossExt, spec)
		}
	}
	if !(gloss >= 0 && gloss <= 1) {
		return l.errorf(nil, "%s: %s: glossinessFactor %g is outside [0, 1]", where, gltfSpecGlossExt, gloss)
	}
	at := where + ".extensions." + gltfSpecGlossExt
	im.PBR = true
	im.Color = mgl32.Vec3{float32(diffuse[0]), float32(diffuse[1]), float32(diffuse[2])}
	im.Image, im.ImageUV, im.ImageSampler = nil, [6]float32{}, textureSampler{}
	if e.DiffuseTexture != nil {
		t, err := l.texture(e.DiffuseTexture, at+".diffuseTexture", true)
		if err != nil {
			return err
		}
		im.Image, im.ImageUV, im.ImageSampler = t.img, t.uv, t.sampler
	}
	if im.AlphaMode != tracer.AlphaOpaque {
		im.Alpha = float32(diffuse[3])
	}
	im.Metallic, im.Roughness = 0, float32(1-gloss)
	im.RoughImage, im.RoughUV, im.RoughSampler = nil, [6]float32{}, textureSampler{}
	color := [3]float64{spec[0] / 0.04, spec[1] / 0.04, spec[2] / 0.04}
	im.SpecularF0, im.SpecularF90 = tracer.PBRSpecular(1.5, 1, color)
	im.SpecularImage, im.SpecularColorImage = nil, nil
	im.HasSpecular = true
	if e.SpecGlossTexture != nil {
		t, err := l.texture(e.SpecGlossTexture, at+".specularGlossinessTexture", true)
		if err != nil {
			return err
		}
		// Its colour multiplies F0 before the clamp (PBRSpecularUnclamped:
		// the same F0, specularFactor, whose components are at most 1).
		im.SpecularF0, im.SpecularF90 = tracer.PBRSpecularUnclamped(1.5, 1, color)
		im.SpecularColorImage, im.SpecularColorUV, im.SpecularColorSampler = t.img, t.uv, t.sampler
		if t.img.Alpha != nil {
			rough, err := l.glossRoughness(t.img, float32(gloss))
			if err != nil {
				return l.errorf(err, "%s.specularGlossinessTexture: %v", at, err)
			}
			im.Roughness = 1
			im.RoughImage, im.RoughUV, im.RoughSampler = rough, t.uv, t.sampler
		}
	}
	return nil
}

// glossRoughness returns the roughness image of a specular-glossiness
// texture's image img for glossinessFactor gloss: each texel's green is
// 1 − gloss × its alpha (the glossiness), its red and blue 1, so that
// the pbr material's metallic-roughness lookup (green × roughness 1, blue
// × metallic 0) gives the roughness, filtered as the glossiness would
// be (1 − g × a is linear in a). It is made once per image and factor;
// its texels count against the scene's limit as a decoded image's.
func (l *gltfLoader) glossRoughness(img *tracer.Image, gloss float32) (*tracer.Image, error) {
	key := gltfGlossKey{img, gloss}
	if r, ok := l.glossRough[key]; ok {
		return r, nil
	}
	if err := checkSize(img.Width, img.Height, l.a.texelsLeft()); err != nil {
		return nil, err
	}
	l.a.texels += int64(img.Width) * int64(img.Height)
	n := img.Width * img.Height
	r := &tracer.Image{Width: img.Width, Height: img.Height, Pix: make([]float32, 3*n)}
	for i, a := range img.Alpha[:n] {
		r.Pix[3*i], r.Pix[3*i+1], r.Pix[3*i+2] = 1, 1-float32(gloss*a), 1
	}
	if l.glossRough == nil {
		l.glossRough = map[gltfGlossKey]*tracer.Image{}
	}
	l.glossRough[key] = r
	return r, nil
}
