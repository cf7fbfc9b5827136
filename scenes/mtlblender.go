package scenes

import (
	"bytes"
	"math"
)

// MTL files written by Blender's OBJ exporters (the legacy
// export_scene.obj and the C++ wm.obj_export of 3.x), which map its
// Principled BSDF onto MTL statements in their own way and say so on
// their first line ("# Blender MTL File: 'scene.blend'", "# Blender 3.4.1
// MTL File: ..."). Without the PBR extension (Pr, Pm) they write:
//
//   - Ns = (1 − roughness)² × 1000, an "empirical conversion" that
//     Blender's OBJ importer inverts for every file (roughness = 1 −
//     √(Ns/1000)). Read as a Blinn-Phong exponent it gives a smooth
//     plastic of roughness 0.1 (Ns 810) a roughness of 0.22 and a metal
//     of 0.35 (Ns 422.5) one of 0.26; so a Blender file's Ns is read
//     back as Blender's importer does (blenderRoughness).
//   - the metallic value as Ka (r = g = b) with illum 3 when it is not
//     0, illum 6 when its alpha is below 1 too (Ka 1 1 1 and illum 2,
//     or 9 with an alpha, otherwise); Blender's importer reads Ka as the
//     metallic of illum 3 (and of the other reflective models). A
//     Blender file's illum 3 or 6 material is therefore metallic by the
//     mean of Ka (1 without Ka), its base colour Kd; illum 6 is not glass
//     there (mtlglass.go).
//
// Other files keep the reading of mtl.go: Ka is an ambient colour there.

// blenderMTLFile reports whether data, the contents of an MTL file, was
// written by Blender: its first line is a comment that begins with
// "# Blender" and names an "MTL File".
func blenderMTLFile(data []byte) bool {
	line, _ := cutLine(bytes.TrimPrefix(data, utf8BOM))
	return bytes.HasPrefix(line, []byte("# Blender")) && bytes.Contains(line, []byte("MTL File"))
}

// blenderRoughness inverts Blender's Ns = (1 − roughness)² × 1000,
// clamped to [0, 1] as Blender's importer clamps the roughness.
func blenderRoughness(ns float32) float32 {
	r := 1 - math.Sqrt(math.Min(float64(ns), 1000)/1000)
	return float32(math.Max(r, 0))
}

// blenderMetallic is the metallic value that Blender's exporter wrote
// for m, and whether it wrote one: the mean of Ka (1 without one) under
// illum 3 or 6, in a file that Blender wrote.
func (m *mtlMaterial) blenderMetallic() (float32, bool) {
	if !m.blender || !m.hasIllum || m.illum != 3 && m.illum != 6 {
		return 0, false
	}
	if !m.hasKa {
		return 1, true
	}
	return min(max((m.ka[0]+m.ka[1]+m.ka[2])/3, 0), 1), true
}
