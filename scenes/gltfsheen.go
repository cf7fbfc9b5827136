package scenes

import (
	"encoding/json"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
)

// gltfSheenExt is glTF's sheen extension, read into a pbr material's
// SheenColor and SheenRoughness (tracer.Material).
const gltfSheenExt = "KHR_materials_sheen"

// sheen reads the KHR_materials_sheen object raw of the material at where
// into im: sheenColorFactor (linear RGB, default black: no sheen) and
// sheenRoughnessFactor (default 0), each in [0, 1]. sheenColorTexture and
// sheenRoughnessTexture are not read (tracer.Material has no sheen maps):
// notes names them for the warning (importedMaterial.Unsupported), and
// the factors hold over the whole surface.
func (l *gltfLoader) sheen(raw any, where string, im *importedMaterial) (notes []string, err error) {
	var sh struct {
		ColorFactor      []float64       `json:"sheenColorFactor"`
		RoughnessFactor  *float64        `json:"sheenRoughnessFactor"`
		ColorTexture     json.RawMessage `json:"sheenColorTexture"`
		RoughnessTexture json.RawMessage `json:"sheenRoughnessTexture"`
	}
	data, _ := raw.(json.RawMessage)
	if err := json.Unmarshal(data, &sh); err != nil {
		return nil, l.errorf(err, "%s: %s: not an object of sheenColorFactor (3 numbers in [0, 1]), sheenRoughnessFactor (a number in [0, 1]) and textures", where, gltfSheenExt)
	}
	if sh.ColorFactor != nil {
		if len(sh.ColorFactor) != 3 {
			return nil, l.errorf(nil, "%s: %s: sheenColorFactor has %d numbers, want 3 (RGB)", where, gltfSheenExt, len(sh.ColorFactor))
		}
		for k, c := range sh.ColorFactor {
			if !(c >= 0 && c <= 1) {
				return nil, l.errorf(nil, "%s: %s: sheenColorFactor[%d] %g is outside [0, 1]", where, gltfSheenExt, k, c)
			}
		}
		im.SheenColor = mgl32.Vec3{float32(sh.ColorFactor[0]), float32(sh.ColorFactor[1]), float32(sh.ColorFactor[2])}
	}
	if r := sh.RoughnessFactor; r != nil {
		if !(*r >= 0 && *r <= 1) {
			return nil, l.errorf(nil, "%s: %s: sheenRoughnessFactor %g is outside [0, 1]", where, gltfSheenExt, *r)
		}
		im.SheenRoughness = float32(*r)
	}
	for _, t := range []struct {
		name string
		raw  json.RawMessage
	}{{"sheenColorTexture", sh.ColorTexture}, {"sheenRoughnessTexture", sh.RoughnessTexture}} {
		if len(t.raw) > 0 && string(t.raw) != "null" {
			notes = append(notes, fmt.Sprintf("%s's %s", gltfSheenExt, t.name))
		}
	}
	return notes, nil
}
