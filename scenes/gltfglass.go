package scenes

import (
	"math"
	"slices"

	"github.com/qmuntal/gltf"
)

// The glTF material extensions that glassMaterial reads.
const (
	gltfTransmissionExt = "KHR_materials_transmission"
	gltfIORExt          = "KHR_materials_ior"
	gltfVolumeExt       = "KHR_materials_volume"
)

// gltfGlass is what glassMaterial makes of a material's transmission.
type gltfGlass struct {
	// glass is true when the material is drawn as trace's dielectric.
	glass bool
	// ior is the dielectric's index of refraction.
	ior float32
	// attenuationColor and attenuationDistance are its absorption
	// (KHR_materials_volume's, in the mesh's own units), the distance 0
	// for none.
	attenuationColor    [3]float32
	attenuationDistance float32
	// read names the extensions that the material is drawn with (the
	// dielectric's, or those of a transmission of 0), to leave out of its
	// unsupported ones.
	read []string
	// notes names what the dielectric leaves out, for the warning.
	notes []string
}

// glassMaterial decides whether materials[i] (at where, for errors) is
// glass that trace's dielectric draws: KHR_materials_transmission with
// transmissionFactor 1, no transmissionTexture, metallicFactor 0 and an
// index of refraction (KHR_materials_ior, default 1.5) in [1, 4], the
// dielectric's range. Blender exports a Principled BSDF of transmission
// 1 as such (its Glass BSDF, as glTF's default material). A material
// whose transmission is partial or textured, metallic, or whose ior the
// dielectric cannot take is not glass: it stays its metallic-roughness
// part, and its extensions stay unsupported (for the warning), but for a
// transmissionFactor of 0 without a texture, glTF's default: no
// transmission, drawn as it is.
//
// A glass material's KHR_materials_volume is read as the dielectric is:
// a solid whose surfaces refract (a thin-walled one, thicknessFactor 0,
// refracts too, as Blender renders it; thicknessFactor, which is for
// rasterizers that draw only the surface, is not read). Its
// attenuationColor and attenuationDistance become the dielectric's
// absorption inside the volume, in the mesh's own units (gltfLoader.instance
// scales the distance by each node's scale); a distance too large for
// float32 is as glTF's default, infinite: no absorption. A
// metallicRoughnessTexture (the dielectric's roughness is
// roughnessFactor alone) and an emission (the dielectric emits nothing)
// are named in the notes.
//
// It returns an error for extensions whose values glTF does not allow.
func (l *gltfLoader) glassMaterial(m *gltf.Material, where string) (gltfGlass, error) {
	var g gltfGlass
	raw, ok := m.Extensions[gltfTransmissionExt]
	if !ok {
		return g, nil
	}
	var tr struct {
		Factor  *float64 `json:"transmissionFactor"`
		Texture any      `json:"transmissionTexture"` // only whether it is there
	}
	if err := gltfExtension(raw, &tr); err != nil {
		return g, l.errorf(err, "%s: %s: %v", where, gltfTransmissionExt, err)
	}
	factor := 0.0
	if tr.Factor != nil {
		factor = *tr.Factor
	}
	if !(factor >= 0 && factor <= 1) {
		return g, l.errorf(nil, "%s: %s: transmissionFactor %g is outside [0, 1]", where, gltfTransmissionExt, factor)
	}
	ior := 1.5
	if raw, ok := m.Extensions[gltfIORExt]; ok {
		var e struct {
			IOR *float64 `json:"ior"`
		}
		if err := gltfExtension(raw, &e); err != nil {
			return g, l.errorf(err, "%s: %s: %v", where, gltfIORExt, err)
		}
		if e.IOR != nil {
			ior = *e.IOR
		}
		if !(ior == 0 || ior >= 1 && ior <= math.MaxFloat32) {
			return g, l.errorf(nil, "%s: %s: ior %g must be 0 or a number >= 1", where, gltfIORExt, ior)
		}
	}
	var vol struct {
		Distance *float64    `json:"attenuationDistance"`
		Color    *[3]float64 `json:"attenuationColor"`
	}
	_, hasVolume := m.Extensions[gltfVolumeExt]
	if hasVolume {
		if err := gltfExtension(m.Extensions[gltfVolumeExt], &vol); err != nil {
			return g, l.errorf(err, "%s: %s: %v", where, gltfVolumeExt, err)
		}
		if d := vol.Distance; d != nil && !(*d > 0) {
			return g, l.errorf(nil, "%s: %s: attenuationDistance %g is not positive", where, gltfVolumeExt, *d)
		}
		if c := vol.Color; c != nil {
			for _, x := range c {
				if !(x >= 0 && x <= 1) {
					return g, l.errorf(nil, "%s: %s: attenuationColor %v is outside [0, 1]", where, gltfVolumeExt, *c)
				}
			}
		}
	}
	metallic := 1.0
	hasRoughImage := false
	if pbr := m.PBRMetallicRoughness; pbr != nil {
		metallic = pbr.MetallicFactorOrDefault()
		hasRoughImage = pbr.MetallicRoughnessTexture != nil
	}
	if factor == 0 && tr.Texture == nil {
		// No transmission (glTF's default): the material is opaque, as
		// drawn, and a volume has nothing to fill; its ior is its
		// dielectric's F0 (gltfspecular.go).
		g.read = []string{gltfTransmissionExt, gltfVolumeExt}
		return g, nil
	}
	if factor != 1 || tr.Texture != nil || metallic != 0 || ior < 1 || ior > 4 {
		return g, nil // drawn as its metallic-roughness part, with the warning
	}
	g.glass, g.ior = true, float32(ior)
	g.read = []string{gltfTransmissionExt, gltfIORExt}
	if hasVolume {
		g.read = append(g.read, gltfVolumeExt)
		// An absent colour is white and an absent distance infinite:
		// either way, no absorption.
		if c, d := vol.Color, vol.Distance; c != nil && *c != [3]float64{1, 1, 1} && d != nil && *d <= math.MaxFloat32 {
			g.attenuationColor = [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
			g.attenuationDistance = max(float32(*d), math.SmallestNonzeroFloat32) // not 0, which is none
		}
	}
	if hasRoughImage {
		g.notes = append(g.notes, "a metallicRoughnessTexture on glass (its roughness is roughnessFactor's)")
	}
	for _, e := range m.EmissiveFactor {
		if e != 0 {
			g.notes = append(g.notes, "emission on glass")
			break
		}
	}
	return g, nil
}

// unsupported returns the unsupported-extension list of a material
// with extensions exts, given what glassMaterial made of it: the
// extensions it read are left out, its notes added.
func (g gltfGlass) unsupported(exts []string) []string {
	var out []string
	for _, e := range exts {
		if !slices.Contains(g.read, e) {
			out = append(out, extensionName(e))
		}
	}
	return append(out, g.notes...)
}

// extensionName is a glTF extension's name for a message: as it is when
// it is made of letters, digits and underscores, as glTF's are, else
// quoted (a file's key may hold anything, a terminal's escapes included).
func extensionName(e string) string {
	for _, r := range e {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return quote(e)
		}
	}
	if e == "" {
		return quote(e)
	}
	return e
}
