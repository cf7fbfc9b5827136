package scenes

import (
	"encoding/json"
	"fmt"
)

// gltfClearcoatExt is glTF's clear coat extension, read into a pbr
// material's Clearcoat and ClearcoatRoughness (tracer.Material).
const gltfClearcoatExt = "KHR_materials_clearcoat"

// clearcoat reads the KHR_materials_clearcoat object raw of the
// material at where into im: clearcoatFactor (default 0) and
// clearcoatRoughnessFactor (default 0), each in [0, 1]. Its textures
// (clearcoatTexture, clearcoatRoughnessTexture, clearcoatNormalTexture)
// are not read: notes names those the material has, for the warning
// (importedMaterial.Unsupported); the coat is then drawn with its
// factors alone, and on the base's shading normal.
func (l *gltfLoader) clearcoat(raw any, where string, im *importedMaterial) (notes []string, err error) {
	var cc struct {
		Factor           *float64        `json:"clearcoatFactor"`
		RoughnessFactor  *float64        `json:"clearcoatRoughnessFactor"`
		Texture          json.RawMessage `json:"clearcoatTexture"`
		RoughnessTexture json.RawMessage `json:"clearcoatRoughnessTexture"`
		NormalTexture    json.RawMessage `json:"clearcoatNormalTexture"`
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
		name string
		raw  json.RawMessage
	}{{"clearcoatTexture", cc.Texture}, {"clearcoatRoughnessTexture", cc.RoughnessTexture}, {"clearcoatNormalTexture", cc.NormalTexture}} {
		if len(t.raw) > 0 && string(t.raw) != "null" {
			notes = append(notes, fmt.Sprintf("%s's %s", gltfClearcoatExt, t.name))
		}
	}
	return notes, nil
}
