package scenes

import "slices"

// gltfUnlitExt makes a glTF material unlit (KHR_materials_unlit).
const gltfUnlitExt = "KHR_materials_unlit"

// unlitMaterial makes im, read from a material with
// KHR_materials_unlit, trace's unlit material (tracer.MaterialUnlit), as
// Blender's importer does (an emission of the base colour that camera
// rays see, a transparent BSDF for every other ray): the base colour
// (baseColorFactor × baseColorTexture, × COLOR_0) and the alpha it read
// are kept; the metallic-roughness values, emission, normal map, glass and
// the other extensions are not drawn (the warning names those
// extensions), nor refused where the file requires them.
func unlitMaterial(im *importedMaterial) {
	*im = importedMaterial{
		Name:         im.Name,
		HasColor:     true,
		Unlit:        true,
		Color:        im.Color,
		Image:        im.Image,
		ImageUV:      im.ImageUV,
		ImageSampler: im.ImageSampler,
		AlphaMode:    im.AlphaMode,
		Alpha:        im.Alpha,
		AlphaCutoff:  im.AlphaCutoff,
	}
}

// unlitUnsupported is the warning's list for an unlit material with the
// extensions exts (sorted): all but KHR_materials_unlit.
func unlitUnsupported(exts []string) []string {
	var out []string
	for _, e := range slices.DeleteFunc(slices.Clone(exts), func(e string) bool { return e == gltfUnlitExt }) {
		out = append(out, extensionName(e))
	}
	return out
}
