package scenes

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// gltfSpecularExt is glTF's dielectric specular extension, read with
// KHR_materials_ior into a pbr material's SpecularF0 and SpecularF90
// (tracer.Material).
const gltfSpecularExt = "KHR_materials_specular"

// specular reads the KHR_materials_specular and KHR_materials_ior objects
// of materials[i] (m, at where, for errors), a material that is not glass,
// into im: specularFactor (default 1, in [0, 1]), specularColorFactor
// (default [1, 1, 1], each component >= 0) and ior (default 1.5, >= 1)
// give the dielectric's F0 = min(((ior − 1)/(ior + 1))² ·
// specularColorFactor, 1) · specularFactor and F90 = specularFactor
// (tracer.PBRSpecular); the metallic part is unaffected. An ior alone
// (Blender writes one beside a specular, but a file may have it alone)
// is read too: KHR_materials_ior applies to the dielectric BRDF of every
// metallic-roughness material. specularTexture (its alpha multiplies
// specularFactor) and specularColorTexture (sRGB: its colour multiplies
// specularColorFactor) are read with their KHR_texture_transform and
// texCoord, as the other textures (importedMaterial.SpecularImage and
// SpecularColorImage). Not read, and named in notes for the warning
// (importedMaterial.Unsupported): ior 0, KHR_materials_ior's
// specular-glossiness compatibility mode (drawn with ior 1.5). read names the extensions read, to leave out of
// the unsupported ones.
func (l *gltfLoader) specular(m *gltf.Material, where string, im *importedMaterial) (read, notes []string, err error) {
	ior, factor, color := 1.5, 1.0, [3]float64{1, 1, 1}
	if raw, ok := m.Extensions[gltfIORExt]; ok {
		var e struct {
			IOR *float64 `json:"ior"`
		}
		if err := gltfExtension(raw, &e); err != nil {
			return nil, nil, l.errorf(err, "%s: %s: %v", where, gltfIORExt, err)
		}
		if e.IOR != nil {
			ior = *e.IOR
		}
		if !(ior == 0 || ior >= 1 && ior <= math.MaxFloat32) {
			return nil, nil, l.errorf(nil, "%s: %s: ior %g must be 0 or a number >= 1", where, gltfIORExt, ior)
		}
		if ior == 0 {
			notes = append(notes, fmt.Sprintf("%s's ior 0 (the specular-glossiness mode)", gltfIORExt))
			ior = 1.5
		}
		read = append(read, gltfIORExt)
	}
	if raw, ok := m.Extensions[gltfSpecularExt]; ok {
		var e struct {
			Factor       *float64          `json:"specularFactor"`
			ColorFactor  *[3]float64       `json:"specularColorFactor"`
			Texture      *gltf.TextureInfo `json:"specularTexture"`
			ColorTexture *gltf.TextureInfo `json:"specularColorTexture"`
		}
		if err := gltfExtension(raw, &e); err != nil {
			return nil, nil, l.errorf(err, "%s: %s: %v", where, gltfSpecularExt, err)
		}
		if e.Factor != nil {
			factor = *e.Factor
		}
		if !(factor >= 0 && factor <= 1) {
			return nil, nil, l.errorf(nil, "%s: %s: specularFactor %g is outside [0, 1]", where, gltfSpecularExt, factor)
		}
		if e.ColorFactor != nil {
			color = *e.ColorFactor
		}
		for _, c := range color {
			if !(c >= 0 && c <= math.MaxFloat32) {
				return nil, nil, l.errorf(nil, "%s: %s: specularColorFactor %v must be finite and >= 0", where, gltfSpecularExt, color)
			}
		}
		if e.Texture != nil {
			// The alpha channel, linear whatever the colours' decoding.
			t, err := l.texture(e.Texture, where+".extensions."+gltfSpecularExt+".specularTexture", false)
			if err != nil {
				return nil, nil, err
			}
			im.SpecularImage, im.SpecularUV, im.SpecularSampler = t.img, t.uv, t.sampler
		}
		if e.ColorTexture != nil {
			t, err := l.texture(e.ColorTexture, where+".extensions."+gltfSpecularExt+".specularColorTexture", true)
			if err != nil {
				return nil, nil, err
			}
			im.SpecularColorImage, im.SpecularColorUV, im.SpecularColorSampler = t.img, t.uv, t.sampler
		}
		read = append(read, gltfSpecularExt)
	}
	if ior != 1.5 || factor != 1 || color != [3]float64{1, 1, 1} || im.SpecularImage != nil || im.SpecularColorImage != nil {
		specular := tracer.PBRSpecular
		if im.SpecularColorImage != nil {
			// Its colour multiplies F0 before the clamp (tracer.Material.SpecularColorMap).
			specular = tracer.PBRSpecularUnclamped
		}
		im.SpecularF0, im.SpecularF90 = specular(ior, factor, color)
		im.HasSpecular = true
	}
	return read, notes, nil
}
