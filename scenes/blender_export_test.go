package scenes

import (
	"math"
	"testing"

	"github.com/qmuntal/gltf"
)

// What Blender's exporters write, read as Blender means it (the
// round trip of scripts/blender-roundtrip.sh against Cycles).

// TestGLTFBlenderLightUnits: Blender's glTF exporter from 3.4 on writes a
// Point of P watts as P/4π × 683 cd and a Sun of S W/m² as S × 683 lux;
// trace divides them by 683 again, so a Point of 4π × 5 W (written as
// 5 × 683 cd) comes out at intensity 5, as Cycles renders it (5 per
// steradian), and a Sun of 4 W/m² at 4. Older Blender exports (P/4π, S as
// they are) and other generators' files are taken as they are.
func TestGLTFBlenderLightUnits(t *testing.T) {
	for _, c := range []struct {
		generator string
		scale     float64
	}{
		{"Khronos glTF Blender I/O v3.4.50", 1.0 / 683},
		{"Khronos glTF Blender I/O v4.2.69", 1.0 / 683},
		{"Khronos glTF Blender I/O v10.0.1", 1.0 / 683},
		{"Khronos glTF Blender I/O v3.3.17", 1},
		{"Khronos glTF Blender I/O v2.83.1", 1},
		{"Khronos glTF Blender I/O", 1},
		{"THREE.GLTFExporter", 1},
		{"", 1},
	} {
		for _, d := range []struct {
			doc  func() *gltf.Document
			want []float64
		}{{lightDoc, []float64{5, 7}}, {sunDoc, []float64{4, 0.5}}} {
			doc := d.doc()
			doc.Asset.Generator = c.generator
			m := mustLoadGLTFDoc(t, doc, false)
			if len(m.lights) != len(d.want) {
				t.Fatalf("%q: %d lights, want %d", c.generator, len(m.lights), len(d.want))
			}
			for i, want := range d.want {
				want *= c.scale
				if got := float64(m.lights[i].Intensity); math.Abs(got-want) > 1e-6*want {
					t.Errorf("%q: lights[%d] intensity %g, want %g", c.generator, i, got, want)
				}
			}
		}
	}
}

// TestMTLBlenderExport: an MTL file that Blender's OBJ exporter wrote
// (its first line says so) has Ns = (1 − roughness)² × 1000 and the
// metallic value as Ka under illum 3; they are read back as Blender's
// importer reads them. The same statements in another file keep their
// usual meaning (Ns a Blinn-Phong exponent, Ka ambient, ignored).
func TestMTLBlenderExport(t *testing.T) {
	body := `
newmtl Plastic
Ns 810.000000
Ka 1.000000 1.000000 1.000000
Kd 0.100000 0.300000 0.800000
Ks 0.500000 0.500000 0.500000
Ke 0.000000 0.000000 0.000000
Ni 1.450000
d 1.000000
illum 2

newmtl Metal
Ns 422.500000
Ka 1.000000 1.000000 1.000000
Kd 0.900000 0.600000 0.300000
Ks 0.500000 0.500000 0.500000
Ke 0.000000 0.000000 0.000000
Ni 1.450000
d 1.000000
illum 3

newmtl HalfMetal
Ns 0.000000
Ka 0.500000 0.500000 0.500000
Kd 0.800000 0.800000 0.800000
Ks 0.500000 0.500000 0.500000
illum 3

newmtl SeeThroughMetal
Ns 1000.000000
Ka 0.250000 0.250000 0.250000
Kd 0.800000 0.800000 0.800000
Ks 0.500000 0.500000 0.500000
Ni 1.450000
d 0.500000
illum 6
`
	for _, c := range []struct {
		header                string
		plasticRough, metalR  float32
		metallic, halfMetalic float32
	}{
		{"# Blender MTL File: 'still life.blend'\n# Material Count: 3\n", 0.1, 0.35, 1, 0.5},
		{"# Blender 3.4.1 MTL File: 'x.blend'\n", 0.1, 0.35, 1, 0.5},
		{"# made by hand\n", blinnPhongRoughness(810), blinnPhongRoughness(422.5), 0, 0},
	} {
		got, err := importMTL(t, c.header+body, nil, "Plastic", "Metal", "HalfMetal", "SeeThroughMetal")
		if err != nil {
			t.Fatal(err)
		}
		p, m, h, s := got[0], got[1], got[2], got[3]
		// illum 6: Blender's metal with an alpha below 1; elsewhere the
		// MTL specification's refracting glass of Ni 1.45.
		if blender := c.metallic != 0; blender && (s.Glass || !s.PBR || s.Metallic != 0.25 || s.Alpha != 0.5) ||
			!blender && (!s.Glass || s.IOR != 1.45) {
			t.Errorf("%q: SeeThroughMetal: glass %v (ior %g) pbr %v metallic %g alpha %g", c.header, s.Glass, s.IOR, s.PBR, s.Metallic, s.Alpha)
		}
		if !p.PBR || math.Abs(float64(p.Roughness-c.plasticRough)) > 1e-5 || p.Metallic != 0 {
			t.Errorf("%q: Plastic: pbr %v roughness %g metallic %g, want pbr, roughness %g, metallic 0",
				c.header, p.PBR, p.Roughness, p.Metallic, c.plasticRough)
		}
		if !m.PBR || math.Abs(float64(m.Roughness-c.metalR)) > 1e-5 || m.Metallic != c.metallic {
			t.Errorf("%q: Metal: pbr %v roughness %g metallic %g, want pbr, roughness %g, metallic %g",
				c.header, m.PBR, m.Roughness, m.Metallic, c.metalR, c.metallic)
		}
		if !h.PBR || h.Roughness != 1 || h.Metallic != c.halfMetalic {
			t.Errorf("%q: HalfMetal: pbr %v roughness %g metallic %g, want pbr, roughness 1, metallic %g",
				c.header, h.PBR, h.Roughness, h.Metallic, c.halfMetalic)
		}
	}
}

// TestMTLBlenderMetalWithoutSpecular: a Blender metal whose Principled
// Specular is 0 (Ks 0 0 0) still has the roughness its Ns says, as
// Blender's importer reads it: the metallic lobe does not depend on Ks.
func TestMTLBlenderMetalWithoutSpecular(t *testing.T) {
	got, err := importMTL(t, `# Blender 3.4.1 MTL File: 'x.blend'
newmtl Metal
Ns 422.500000
Ka 1.000000 1.000000 1.000000
Kd 0.900000 0.600000 0.300000
Ks 0.000000 0.000000 0.000000
illum 3
`, nil, "Metal")
	if err != nil {
		t.Fatal(err)
	}
	if m := got[0]; !m.PBR || m.Metallic != 1 || math.Abs(float64(m.Roughness-0.35)) > 1e-5 {
		t.Errorf("Metal: pbr %v metallic %g roughness %g, want pbr, metallic 1, roughness 0.35", m.PBR, m.Metallic, m.Roughness)
	}
}
