package scenes

import (
	"encoding/json"
	"fmt"

	"github.com/qmuntal/gltf"

	"github.com/tracerender/trace/tracer"
)

// gltfClearcoatExt is glTF's clear coat extension, read into a pbr
// material's Clearcoat and ClearcoatRoughness (tracer.Material).
const gltfClearcoatExt = "KHR_materials_clearcoat"

// clearcoat reads the KHR_materials_clearcoat object raw of the
// material at where into im: clearcoatFactor (default 0) and
// clearcoatRoughnessFactor (default 0), each in [0, 1], and
// clearcoatTexture (its red multiplies clearcoatFactor) and
// clearcoatRoughnessTexture (its green multiplies
// clearcoatRoughnessFactor), both linear, with their sampler, texCoord
// and KHR_texture_transform (importedMaterial.ClearcoatImage and
// ClearcoatRoughnessImage). clearcoatNormalTexture is not read: notes
// names it for the warning (importedMaterial.Unsupported), and the coat
// follows the base's shading normal.
func (l *gltfLoader) clearcoat(raw any, where string, im *importedMaterial) (notes []string, err error) {
	var cc struct {
		Factor           *float64          `json:"clearcoatFactor"`
		RoughnessFactor  *float64          `json:"clearcoatRoughnessFactor"`
		Texture          *gltf.TextureInfo `json:"clearcoatTexture"`
		RoughnessTexture *gltf.TextureInfo `json:"clearcoatRoughnessTexture"`
		NormalTexture    json.RawMessage   `json:"clearcoatNormalTexture"`
	}
	data, _ := raw.(json.RawMessage)
	if err := json.Unmarshal(data, &cc); err != nil {
		return nil, l.errorf(err, "%s: %s: not an object of clearcoatFactor and clearcoatRoughnessFactor (numbers in [0, 1]) and textures", where, gltfClearcoatExt)
	}
	for _, f := range []struct {
		name string
		v    *float64
		to   *float32
	}{{"clearcoatFactor", cc.Factor, &im.Clearcoat}, {"clearcoatRoughnessFactor", cc.RoughnessFactor, &im.ClearcoatRoughness}} {
		if f.v == nil {
			continue
		}
		if !(*f.v >= 0 && *f.v <= 1) {
			return nil, l.errorf(nil, "%s: %s: %s %g is outside [0, 1]", where, gltfClearcoatExt, f.name, *f.v)
		}
		*f.to = float32(*f.v)
	}
	for _, t := range []struct {
		name    string
		info    *gltf.TextureInfo
		img     **tracer.Image
		uv      *[6]float32
		sampler *textureSampler
	}{
		{"clearcoatTexture", cc.Texture, &im.ClearcoatImage, &im.ClearcoatUV, &im.ClearcoatSampler},
		{"clearcoatRoughnessTexture", cc.RoughnessTexture, &im.ClearcoatRoughnessImage, &im.ClearcoatRoughnessUV, &im.ClearcoatRoughnessSampler},
	} {
		if t.info == nil {
			continue
		}
		tex, err := l.texture(t.info, where+".extensions."+gltfClearcoatExt+"."+t.name, false)
		if err != nil {
			return nil, err
		}
		*t.img, *t.uv, *t.sampler = tex.img, tex.uv, tex.sampler
	}
	if len(cc.NormalTexture) > 0 && string(cc.NormalTexture) != "null" {
		notes = append(notes, fmt.Sprintf("%s's %s", gltfClearcoatExt, "clearcoatNormalTexture"))
	}
	return notes, nil
}
