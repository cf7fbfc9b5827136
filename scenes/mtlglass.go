package scenes

import (
	"fmt"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
)

// Glass in MTL files. What exporters write:
//
//   - The MTL specification's illumination models 6 and 7 refract
//     ("Transparency: Refraction on"): light passes through by the
//     optical density Ni, filtered by Tf, 7 with Fresnel reflection. Its
//     models 4 and 9 ("Transparency: Glass on") are dissolve with the
//     highlights kept, no refraction.
//   - Blender's OBJ exporter (2.8 and later, obj_export_mtl.cc) writes
//     illum 9 for every material of alpha below 1 and metallic 0, illum
//     6 for one of metallic above 0, and Ni (the Principled IOR) for
//     every material; its transmission it writes only with the PBR
//     extensions on, as Tf t t t beside Pr and Pm. Its importer reads
//     illum 4, 6, 7 and 9 as alpha blending and Tf as transmission.
//     Blender 2.7's exporter wrote illum 6 or 7 for ray-traced
//     transparency with a mirror, Ni its IOR and d its alpha.
//   - Maya writes illum 4, Tf 1 1 1 and Ni 1 for every material, 3ds
//     Max (guruware's exporter) illum 2, Tf 1 1 1 and Ni 1.5.
//
// So neither Ni, Tf, illum 4 nor illum 9 alone says glass. A material
// is glass (trace's dielectric) when
//
//   - it has illum 6 or 7 and Ni in (1, 4] (the dielectric's range;
//     illum 6 not in a file that Blender wrote, where it is a metal with
//     an alpha below 1;
//     without Ni, or with Ni 1, light would not bend: Blender's importer
//     takes 1 for illum 6 and 7 without Ni), and is not metallic (no
//     non-zero Pm, no map_Pm). Its tint is Tf (white without Tf): Kd and
//     map_Kd are its diffuse colour, which the dielectric does not have.
//   - or it has the PBR extension (Pr or Pm) with Pm absent or 0, Tf 1 1
//     1 (Blender's full transmission) and Ni in (1, 4]. Its tint is Kd ×
//     map_Kd, as Blender tints transmission by the base colour.
//
// A glass material's roughness is Pr, or 0 without it (the specification's
// refraction is a ray traced one, sharp; Ns shapes highlights only); its
// normal map is read as for any material. Its d, Tr and map_d are not an
// alpha: the transparency of glass is its refraction (Blender 2.7 wrote
// the alpha of its ray-traced glass, often near 0, as d). What glass
// leaves out, and the glass-related values of a material that is not
// glass, are named in the material's notes for the warning.

// glassStatement reads an illum, Ni or Tf statement (kw) of m, leaving
// a value it cannot use unread.
func (m *mtlMaterial) glassStatement(kw string, rest []byte) {
	switch kw {
	case "illum":
		f, _ := nextField(rest)
		if n, err := strconv.Atoi(string(f)); err == nil && n >= 0 && n <= 10 {
			m.illum, m.hasIllum = n, true
		}
	case "Ni":
		if x, msg := mtlScalar(kw, rest, 10); msg == "" {
			m.ni, m.hasNi = x, true
		}
	case "Tf":
		if c, msg := mtlColor(kw, rest); msg == "" {
			m.tf, m.hasTf = c, true
		}
	}
}

// mtlGlass is what glass makes of a material.
type mtlGlass struct {
	glass bool
	// tfTint is true when the tint is Tf (illum 6 or 7), false when it
	// is Kd × map_Kd (Blender's transmission).
	tfTint bool
	ior    float32
	notes  []string
}

// glass decides whether m is glass (see the top of this file), and
// names what of it is dropped (notes, each without ", ": the warning
// splits on it).
func (m *mtlMaterial) glass() mtlGlass {
	var g mtlGlass
	// Blender's exporters write illum 6 for a metal whose alpha is below
	// 1 (its metallic as Ka: mtlblender.go), never for glass.
	refracts := m.hasIllum && (m.illum == 6 && !m.blender || m.illum == 7)
	transmits := !refracts && (m.hasPr || m.hasPm) && m.hasTf && m.tf != (mgl32.Vec3{})
	metallic := m.hasPm && m.pm > 0 || m.mapPm.file != ""
	switch {
	case !refracts && !transmits:
		if m.hasTf && m.tf != white && m.tf != (mgl32.Vec3{}) {
			g.notes = append(g.notes, "Tf (a transmission filter without illum 6 or 7)")
		}
		return g
	case metallic || !m.hasNi || m.ni <= 1:
		return g // a metal, or light that does not bend: not glass
	case m.ni > 4:
		g.notes = append(g.notes, fmt.Sprintf("Ni %g (glass takes 1 to 4)", m.ni))
		return g
	case transmits && m.tf != white:
		g.notes = append(g.notes, fmt.Sprintf("Tf %g %g %g (partial transmission)", m.tf[0], m.tf[1], m.tf[2]))
		return g
	}
	g.glass, g.tfTint, g.ior = true, refracts, m.ni
	if refracts {
		if m.hasKd && m.kd != (mgl32.Vec3{}) && (!m.hasTf || m.kd != m.tf) {
			g.notes = append(g.notes, "Kd on glass (its tint is Tf)")
		}
		if m.mapKd.file != "" {
			g.notes = append(g.notes, "map_Kd on glass (its tint is Tf)")
		}
	}
	if m.hasD && m.d < 1 || !m.hasD && m.hasTr && m.tr > 0 || m.mapD.file != "" {
		g.notes = append(g.notes, "dissolve (d or Tr or map_d) on glass (its transparency is its refraction)")
	}
	if m.ke != (mgl32.Vec3{}) || !m.hasKe && m.mapKe.file != "" {
		g.notes = append(g.notes, "emission on glass")
	}
	if m.mapPr.file != "" {
		g.notes = append(g.notes, "map_Pr on glass (its roughness is Pr)")
	}
	return g
}
