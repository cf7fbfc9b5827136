package scenes

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tracerender/trace/tracer"
)

// The maps that Blender's OBJ exporters write in their own way, found by
// the maps and attributes scenes of scripts/blender-roundtrip.sh.

// blenderTestPNG returns a 2 × 1 PNG: an opaque texel of grey level
// left and a texel of alpha 179/255 (0.7) and grey level right.
func blenderTestPNG(t *testing.T, left, right uint8) string {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	m.SetNRGBA(0, 0, color.NRGBA{left, left, left, 255})
	m.SetNRGBA(1, 0, color.NRGBA{right, right, right, 179})
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMTLBlenderMaps: in an MTL file that Blender wrote, map_Bump is its
// Normal Map node's image (a tangent-space normal map, -bm its
// strength), map_Ns the roughness texture and refl (legacy exporter) or
// map_refl (C++ exporter) the metallic texture, as Blender's importer
// reads them; map_Kd replaces Kd (the legacy exporter writes the
// unlinked Base Color, 0.8); map_d blends, as Blender's importer sets
// it and Cycles renders it. In another file map_Bump stays a height map,
// map_Ns and refl are ignored, Kd tints map_Kd and map_d cuts out.
func TestMTLBlenderMaps(t *testing.T) {
	files := map[string]string{"n.png": blenderTestPNG(t, 128, 200), "r.png": blenderTestPNG(t, 40, 180), "m.png": blenderTestPNG(t, 255, 0)}
	body := `newmtl N
Kd 0.7 0.7 0.7
Ks 0.5 0.5 0.5
map_Bump -bm 0.5 n.png

newmtl RM
Ns 250.000000
Kd 0.8 0.5 0.3
Ks 0.5 0.5 0.5
map_Ns r.png
%s m.png

newmtl A
Kd 0.8 0.8 0.8
map_Kd n.png
map_d n.png
`
	for _, c := range []struct {
		header, refl string
		blender      bool
	}{
		{"# Blender MTL File: 'maps.blend'\n# Material Count: 2\n", "refl", true},
		{"# Blender 3.4.1 MTL File: 'maps.blend'\n# www.blender.org\n", "map_refl", true},
		{"# made by hand\n", "refl", false},
	} {
		got, err := importMTL(t, c.header+fmt.Sprintf(body, c.refl), files, "N", "RM", "A")
		if err != nil {
			t.Fatalf("%q: %v", c.header, err)
		}
		n, rm, a := got[0], got[1], got[2]
		if n.NormalImage == nil {
			t.Fatalf("%q: N has no normal map", c.header)
		}
		// n.png's left texel, 128/255 grey, read as a normal map is
		// (0, 0, 1) nearly; made from a height map it is a normal whose
		// blue is at most 1 and whose red and green are not the file's.
		px := n.NormalImage.Pix[:3]
		asNormal := math.Abs(float64(px[0])-128.0/255) < 1e-3 && math.Abs(float64(px[2])-128.0/255) < 1e-3
		if asNormal != c.blender || c.blender && n.NormalScale != 0.5 {
			t.Errorf("%q: N: normal map texel %v scale %g; want it read as a normal map (scale -bm 0.5): %v", c.header, px, n.NormalScale, c.blender)
		}
		if c.blender {
			if rm.RoughImage == nil || rm.Roughness != 1 || rm.Metallic != 1 {
				t.Errorf("%q: RM: roughness map %v, roughness %g, metallic %g; want the maps, 1 and 1", c.header, rm.RoughImage != nil, rm.Roughness, rm.Metallic)
			} else if g, b := rm.RoughImage.Pix[1], rm.RoughImage.Pix[2]; math.Abs(float64(g)-40.0/255) > 1e-3 || b != 1 {
				t.Errorf("%q: RM: metallic-roughness texel (g %g, b %g), want 40/255 and 1", c.header, g, b)
			}
			if a.Color != white || a.AlphaMode != tracer.AlphaBlend {
				t.Errorf("%q: A: colour %v alpha mode %v, want white (map_Kd alone) and blend", c.header, a.Color, a.AlphaMode)
			}
		} else {
			if rm.RoughImage != nil || rm.Metallic != 0 {
				t.Errorf("%q: RM: map_Ns and refl read (metallic %g)", c.header, rm.Metallic)
			}
			if a.Color != (mgl32.Vec3{0.8, 0.8, 0.8}) || a.AlphaMode != tracer.AlphaMask {
				t.Errorf("%q: A: colour %v alpha mode %v, want Kd 0.8 and mask", c.header, a.Color, a.AlphaMode)
			}
		}
		// map_Kd's own alpha is not the material's: map_d alone gives it
		if a.Image == nil || a.Image.Alpha != nil || a.AlphaImage == nil {
			t.Errorf("%q: A: map_Kd keeps its alpha (%v) or no map_d alpha", c.header, a.Image != nil && a.Image.Alpha != nil)
		}
	}
}

// TestOBJBlenderVertexColors: Blender's C++ OBJ exporter writes vertex
// colours in sRGB (and its importer reads them so); other files' are
// linear.
func TestOBJBlenderVertexColors(t *testing.T) {
	for _, c := range []struct {
		header string
		want   float32
	}{
		{"# Blender 3.4.1\n# www.blender.org\n", float32(srgbToLinear(0.8))},
		{"# made by hand\n", 0.8},
	} {
		dir := t.TempDir()
		obj := c.header + "v 0 0 0 0.8 0.8 0.8\nv 1 0 0 0.8 0.8 0.8\nv 0 1 0 0.8 0.8 0.8\nf 1 2 3\n"
		im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj))
		if err != nil {
			t.Fatal(err)
		}
		if got := im.meshes[0].Colors[0][0]; math.Abs(float64(got-c.want)) > 1e-6 {
			t.Errorf("%q: colour %g, want %g", c.header, got, c.want)
		}
	}
}
