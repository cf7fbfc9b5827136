package scenes

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// mtlPNG encodes a w×h 8-bit PNG whose texels are px, r g b by r g b, row
// by row from the top.
func mtlPNG(t testing.TB, w, h int, px ...uint8) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		img.Set(i%w, i/w, color.NRGBA{px[3*i], px[3*i+1], px[3*i+2], 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// importMTL writes the library mtl as t.mtl, with files beside it, and
// imports the materials names through an OBJ file whose faces use them.
func importMTL(t *testing.T, mtl string, files map[string]string, names ...string) ([]importedMaterial, error) {
	t.Helper()
	all := map[string]string{"t.mtl": mtl}
	for k, v := range files {
		all[k] = v
	}
	dir := writeFiles(t, all)
	var obj strings.Builder
	obj.WriteString("mtllib t.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n")
	for _, n := range names {
		obj.WriteString("usemtl " + n + "\nf 1/1 2/1 3/1\n")
	}
	im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj.String()))
	if err != nil {
		return nil, err
	}
	return im.materials, nil
}

// TestBlinnPhongRoughness checks the Ns → roughness correspondence, α =
// √(2/(Ns+2)) with roughness √α, at the exponents the docs quote.
func TestBlinnPhongRoughness(t *testing.T) {
	for _, tt := range []struct{ ns, want float64 }{{0, 1}, {2, math.Pow(0.5, 0.25)}, {32, 0.4925}, {250, 0.2985}, {1000, 0.2114}} {
		got := float64(blinnPhongRoughness(float32(tt.ns)))
		if math.Abs(got-tt.want) > 5e-5 {
			t.Errorf("blinnPhongRoughness(%g) = %.5f, want %.4f", tt.ns, got, tt.want)
		}
		alpha := got * got // the tracer's GGX α
		if want := math.Sqrt(2 / (tt.ns + 2)); math.Abs(alpha-want) > 1e-6 {
			t.Errorf("Ns %g: α %g, want √(2/(Ns+2)) = %g", tt.ns, alpha, want)
		}
	}
	if r := blinnPhongRoughness(math.MaxFloat32); !(r > 0 && r < 1e-9) {
		t.Errorf("blinnPhongRoughness(MaxFloat32) = %g, want a tiny positive roughness", r)
	}
}

// TestMTLPBRValues checks how Ks, Ns, Ke, Pr and Pm, without maps, make
// a material: diffuse without any of them, pbr with one.
func TestMTLPBRValues(t *testing.T) {
	kd := mgl32.Vec3{0.5, 0.25, 1}
	diffuse := importedMaterial{Name: "m", HasColor: true, Color: kd}
	pbr := func(metal, rough float32, emit mgl32.Vec3) importedMaterial {
		return importedMaterial{Name: "m", HasColor: true, Color: kd, PBR: true, Metallic: metal, Roughness: rough, Emission: emit}
	}
	coated := func(m importedMaterial, clear, rough float32) importedMaterial {
		m.Clearcoat, m.ClearcoatRoughness = clear, rough
		return m
	}
	tests := []struct {
		name, mtl string
		want      importedMaterial
	}{
		{"Ks and Ns: GGX specular", "Ks 0.5 0.5 0.5\nNs 32\n", pbr(0, blinnPhongRoughness(32), mgl32.Vec3{})},
		{"Ns before Ks", "Ns 1000\nKs 0.04\n", pbr(0, blinnPhongRoughness(1000), mgl32.Vec3{})},
		{"Ks without Ns: roughness 1", "Ks 1 1 1\n", pbr(0, 1, mgl32.Vec3{})},
		{"coloured Ks", "Ks 0 0 0.1\nNs 2\n", pbr(0, blinnPhongRoughness(2), mgl32.Vec3{})},
		{"zero Ks: diffuse", "Ks 0 0 0\nNs 250\n", diffuse},
		{"Ns alone: diffuse", "Ns 250\n", diffuse},
		{"Ke", "Ke 2 1 0.5\n", pbr(0, 1, mgl32.Vec3{2, 1, 0.5})},
		{"grey Ke", "Ke 3\n", pbr(0, 1, mgl32.Vec3{3, 3, 3})},
		{"Ke with Ks", "Ks 1 1 1\nNs 32\nKe 0 1 0\n", pbr(0, blinnPhongRoughness(32), mgl32.Vec3{0, 1, 0})},
		{"zero Ke: diffuse", "Ke 0 0 0\n", diffuse},
		{"Pr and Pm", "Pr 0.25\nPm 0.75\n", pbr(0.75, 0.25, mgl32.Vec3{})},
		{"Pr wins over Ns", "Ks 1 1 1\nNs 32\nPr 0.5\n", pbr(0, 0.5, mgl32.Vec3{})},
		{"Pr 0 and Pm 1", "Pr 0\nPm 1\n", pbr(1, 0, mgl32.Vec3{})},
		{"Pm without Pr: roughness from Ns", "Ks 1 1 1\nNs 32\nPm 1\n", pbr(1, blinnPhongRoughness(32), mgl32.Vec3{})},
		{"Pm without Pr or Ks: roughness 1", "Ns 32\nPm 0.5\n", pbr(0.5, 1, mgl32.Vec3{})},
		{"Pr without Pm: metallic 0", "Pr 0.3 # comment\n", pbr(0, 0.3, mgl32.Vec3{})},
		{"Pr, Pm and Ke", "Pr 0.5\nPm 0.5\nKe 1 1 1\n", pbr(0.5, 0.5, mgl32.Vec3{1, 1, 1})},
		{"last statement wins", "Pr 0.5\nPr 0.1\nKe 1 1 1\nKe 0 0 0\n", pbr(0, 0.1, mgl32.Vec3{})},
		{"Pc and Pcr: a clear coat", "Pr 0.5\nPm 0\nPc 0.8\nPcr 0.2\n", coated(pbr(0, 0.5, mgl32.Vec3{}), 0.8, 0.2)},
		{"Pc without Pcr: a mirror coat", "Ks 1 1 1\nNs 32\nPc 1\n", coated(pbr(0, blinnPhongRoughness(32), mgl32.Vec3{}), 1, 0)},
		{"Pc alone: diffuse", "Pc 1\nPcr 0.5\n", diffuse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mats, err := importMTL(t, "newmtl m\nKd 0.5 0.25 1\n"+tt.mtl, nil, "m")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mats, []importedMaterial{tt.want}) {
				t.Errorf("materials %+v, want %+v", mats, tt.want)
			}
		})
	}
}

// TestMTLUnchanged checks that a library without Ks (non-zero), Ke
// (non-zero), Pr, Pm and their maps gives the diffuse materials it gave
// before they were read: cut-outs (d, Tr, map_d), displacement (disp),
// the other PBR statements and the other
// maps are still ignored, their files not read, their options not
// checked.
func TestMTLUnchanged(t *testing.T) {
	tex := mtlPNG(t, 1, 1, 255, 255, 255)
	ignored := "Ka 1 1 1\nKs 0 0 0\nKe 0\nNs 96\nNi 1.45\nd 1\nTf 1 1 1\nillum 2\nsharpness 60\n" +
		"map_Ka missing.png\nmap_Ks missing.png\nmap_Ns missing.png\n" +
		"disp missing.png\ndecal missing.png\nrefl -type sphere missing.png\n" +
		"Ps 0.5\nPc 0.5\nPcr 0.1\naniso 0.5\nanisor 0\nmap_Ps missing.png\n"
	tests := []struct {
		name, mtl string
		want      importedMaterial
	}{
		{"Kd", "Kd 0.2 0.3 0.4\n", importedMaterial{Name: "m", HasColor: true, Color: mgl32.Vec3{0.2, 0.3, 0.4}}},
		{"no Kd", "", importedMaterial{Name: "m", HasColor: true, Color: defaultAlbedo}},
		{"map_Kd", "map_Kd tex.png\n", importedMaterial{Name: "m", HasColor: true, Color: white}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mats, err := importMTL(t, "newmtl m\n"+tt.mtl+ignored, map[string]string{"tex.png": tex}, "m")
			if err != nil {
				t.Fatal(err)
			}
			if len(mats) != 1 {
				t.Fatalf("%d materials, want 1", len(mats))
			}
			got := mats[0]
			if tt.mtl == "map_Kd tex.png\n" {
				if got.Image == nil || got.Image.Width != 1 {
					t.Errorf("map_Kd image %v", got.Image)
				}
				got.Image = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("material %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestMTLPBRMaps checks map_Ke, map_Pr and map_Pm: the images each
// material gets, the factors a map implies, the UV transforms of -s and
// -o, and the metallic-roughness image made of map_Pr and map_Pm (green
// and blue, 1 where a map is absent, red 0).
func TestMTLPBRMaps(t *testing.T) {
	lin, srgb := func(v uint8) float32 { return linear8[v] }, func(v uint8) float32 { return srgb8[v] }
	files := map[string]string{
		// Two texels: a grey one and a coloured one.
		"r.png":   mtlPNG(t, 2, 1, 51, 51, 51, 255, 0, 102),
		"m.png":   mtlPNG(t, 2, 1, 204, 204, 204, 0, 153, 0),
		"orm.png": mtlPNG(t, 2, 1, 255, 51, 204, 255, 102, 0),
		"e.png":   mtlPNG(t, 2, 1, 255, 128, 0, 0, 0, 255),
		"big.png": mtlPNG(t, 1, 2, 0, 0, 0, 0, 0, 0),
	}
	luma := func(r, g, b uint8) float32 {
		return float32(0.2126*float64(lin(r)) + 0.7152*float64(lin(g)) + 0.0722*float64(lin(b)))
	}
	tests := []struct {
		name, mtl   string
		metal, rgh  float32
		emission    mgl32.Vec3
		emissionPix []float32 // nil: no EmissionImage
		roughPix    []float32 // nil: no RoughImage
		roughUV     [6]float32
		emissionUV  [6]float32
		diffuse     bool // the material stays diffuse
		err         string
	}{
		{
			name: "map_Pr alone: luminance in green", mtl: "map_Pr r.png\n", metal: 0, rgh: 1,
			roughPix: []float32{0, lin(51), 1, 0, luma(255, 0, 102), 1},
		},
		{
			name: "map_Pr with Pr and Pm", mtl: "Pr 0.5\nPm 0.25\nmap_Pr -imfchan r -s 2 4 r.png\n", metal: 0.25, rgh: 0.5,
			roughPix: []float32{0, lin(51), 1, 0, lin(255), 1}, roughUV: [6]float32{2, 0, 0, 4, 0, 0},
		},
		{
			name: "map_Pm alone: luminance in blue", mtl: "map_Pm -o 0.5 0.25 m.png\n", metal: 1, rgh: 1,
			roughPix: []float32{0, 1, lin(204), 0, 1, luma(0, 153, 0)}, roughUV: [6]float32{1, 0, 0, 1, 0.5, 0.25},
		},
		{
			name: "map_Pm with Ks and Ns", mtl: "Ks 1\nNs 32\nmap_Pm m.png\n", metal: 1, rgh: blinnPhongRoughness(32),
			roughPix: []float32{0, 1, lin(204), 0, 1, luma(0, 153, 0)},
		},
		{
			name: "map_Pr and map_Pm", mtl: "map_Pr -s 2 r.png\nmap_Pm -imfchan g -s 2 1 m.png\n", metal: 1, rgh: 1,
			roughPix: []float32{0, lin(51), lin(204), 0, luma(255, 0, 102), lin(153)}, roughUV: [6]float32{2, 0, 0, 1, 0, 0},
		},
		{
			name: "one packed image, two channels", mtl: "Pm 0.5\nmap_Pr -imfchan g orm.png\nmap_Pm -imfchan b orm.png\n", metal: 0.5, rgh: 1,
			roughPix: []float32{0, lin(51), lin(204), 0, lin(102), lin(0)},
		},
		{
			name: "map_Ke with Ke", mtl: "Ke 2 2 2\nmap_Ke -s 3 e.png\n", rgh: 1, emission: mgl32.Vec3{2, 2, 2},
			emissionPix: []float32{srgb(255), srgb(128), srgb(0), srgb(0), srgb(0), srgb(255)}, emissionUV: [6]float32{3, 0, 0, 1, 0, 0},
		},
		{
			name: "map_Ke without Ke: emission 1", mtl: "map_Ke e.png\n", rgh: 1, emission: white,
			emissionPix: []float32{srgb(255), srgb(128), srgb(0), srgb(0), srgb(0), srgb(255)},
		},
		{
			// As for a glTF emissiveTexture under an emissiveFactor of 0,
			// the map is not read, and it emits nothing: diffuse.
			name: "map_Ke under Ke 0: not read", mtl: "Ke 0 0 0\nmap_Ke missing.png\n", diffuse: true,
		},
		{
			name: "sizes differ", mtl: "map_Pr r.png\nmap_Pm big.png\n",
			err: `t.mtl:4: map_Pm "big.png": 1×2 pixels, but map_Pr "r.png" is 2×1; the renderer reads both maps as one image, so they must be the same size`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mats, err := importMTL(t, "newmtl m\nKd 1 1 1\n"+tt.mtl, files, "m")
			if tt.err != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tt.err) {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := mats[0]
			if tt.diffuse {
				if want := (importedMaterial{Name: "m", HasColor: true, Color: white}); !reflect.DeepEqual(m, want) {
					t.Errorf("material %+v, want %+v", m, want)
				}
				return
			}
			if !m.PBR || m.Metallic != tt.metal || m.Roughness != tt.rgh || m.Emission != tt.emission || m.Color != white || m.Image != nil {
				t.Errorf("material %+v: want pbr, metallic %g, roughness %g, emission %v", m, tt.metal, tt.rgh, tt.emission)
			}
			checkImage := func(what string, img *tracer.Image, want []float32) {
				switch {
				case want == nil && img != nil:
					t.Errorf("%s image %+v, want none", what, img)
				case want != nil && (img == nil || !slices.Equal(img.Pix, want) || img.Width*img.Height*3 != len(want)):
					t.Errorf("%s image %+v, want texels %v", what, img, want)
				}
			}
			checkImage("roughness", m.RoughImage, tt.roughPix)
			checkImage("emission", m.EmissionImage, tt.emissionPix)
			if m.RoughUV != tt.roughUV || m.EmissionUV != tt.emissionUV || m.ImageUV != ([6]float32{}) {
				t.Errorf("UV transforms: roughness %v, emission %v, image %v; want %v, %v, none", m.RoughUV, m.EmissionUV, m.ImageUV, tt.roughUV, tt.emissionUV)
			}
		})
	}
}

// TestMTLMapsShared checks that materials naming the same maps share
// their images: one decode per colour map, one metallic-roughness image
// per combination of map_Pr and map_Pm, and a colour map and a scalar map
// of one file decoded each their own way.
func TestMTLMapsShared(t *testing.T) {
	files := map[string]string{"a.png": mtlPNG(t, 1, 1, 51, 102, 153), "b.png": mtlPNG(t, 1, 1, 0, 0, 0)}
	mtl := "newmtl x\nmap_Kd -s 2 a.png\nmap_Pr a.png\nmap_Ke a.png\n" +
		"newmtl y\nKd 0.5\nmap_Kd a.png\nmap_Pr -s 3 a.png\n" +
		"newmtl z\nmap_Pr a.png\nmap_Pm b.png\n"
	mats, err := importMTL(t, mtl, files, "x", "y", "z")
	if err != nil {
		t.Fatal(err)
	}
	x, y, z := mats[0], mats[1], mats[2]
	if x.Image == nil || x.Image != y.Image || x.EmissionImage != x.Image {
		t.Errorf("map_Kd and map_Ke images %p, %p, %p: want one", x.Image, y.Image, x.EmissionImage)
	}
	if x.RoughImage == nil || x.RoughImage != y.RoughImage || z.RoughImage == x.RoughImage || x.RoughImage == x.Image {
		t.Errorf("roughness images %p, %p, %p (colour %p): want x and y to share one, z its own", x.RoughImage, y.RoughImage, z.RoughImage, x.Image)
	}
	if x.ImageUV != [6]float32{2, 0, 0, 1, 0, 0} || y.ImageUV != ([6]float32{}) || y.RoughUV != [6]float32{3, 0, 0, 1, 0, 0} {
		t.Errorf("UV transforms %v, %v, %v", x.ImageUV, y.ImageUV, y.RoughUV)
	}
	if want := []float32{srgb8[51], srgb8[102], srgb8[153]}; !slices.Equal(x.Image.Pix, want) {
		t.Errorf("map_Kd texels %v, want %v", x.Image.Pix, want)
	}
	luma := float32(0.2126*float64(linear8[51]) + 0.7152*float64(linear8[102]) + 0.0722*float64(linear8[153]))
	if want := []float32{0, luma, 1}; !slices.Equal(x.RoughImage.Pix, want) {
		t.Errorf("roughness texels %v, want %v (linear luminance)", x.RoughImage.Pix, want)
	}
	if want := []float32{0, luma, 0}; !slices.Equal(z.RoughImage.Pix, want) {
		t.Errorf("z's roughness texels %v, want %v", z.RoughImage.Pix, want)
	}
}

// TestMTLPBRScene checks what a scene gets from an MTL pbr material: a
// tracer.MaterialPBR with its factors, and image textures for its base
// colour, metallic-roughness and emission maps with their UV transforms.
func TestMTLPBRScene(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.png": mtlPNG(t, 1, 1, 255, 255, 255),
		"r.png": mtlPNG(t, 1, 1, 128, 128, 128),
		"e.png": mtlPNG(t, 1, 1, 255, 0, 0),
		"m.mtl": "newmtl gold\nKd 1 0.8 0.3\nmap_Kd -o 0.5 c.png\nPr 0.5\nPm 1\nmap_Pr -s 2 r.png\nKe 4 4 4\nmap_Ke e.png\n" +
			"newmtl plastic\nKd 0.1 0.2 0.8\nKs 0.5\nNs 1000\n",
		"m.obj": "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl gold\nf 1/1 2/1 3/1\nusemtl plastic\nf 1/1 3/1 2/1\n",
	})
	s := loadMeshFile(t, dir, "m.obj")
	wantMats := []tracer.Material{
		{Kind: tracer.MaterialPBR, Texture: 0, Color: mgl32.Vec3{1, 0.8, 0.3}, Metallic: 1, Roughness: 0.5, Emission: mgl32.Vec3{4, 4, 4}, RoughMap: 2, EmissionMap: 3},
		{Kind: tracer.MaterialPBR, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.1, 0.2, 0.8}, Roughness: blinnPhongRoughness(1000)},
	}
	wantTex := []tracer.Texture{
		{Kind: tracer.TextureImage, Image: 0, Even: mgl32.Vec3{1, 0.8, 0.3}, UV: [6]float32{1, 0, 0, 1, 0.5, 0}},
		{Kind: tracer.TextureImage, Image: 1, UV: [6]float32{2, 0, 0, 1, 0, 0}},
		{Kind: tracer.TextureImage, Image: 2},
	}
	if !slices.Equal(s.Materials, wantMats) || !slices.Equal(s.Textures, wantTex) || len(s.Images) != 3 {
		t.Fatalf("materials %+v\ntextures %+v\n%d images; want materials %+v\ntextures %+v\n3 images", s.Materials, s.Textures, len(s.Images), wantMats, wantTex)
	}
	if got, want := s.Images[1].Pix, []float32{0, linear8[128], 1}; !slices.Equal(got, want) {
		t.Errorf("metallic-roughness image %v, want %v", got, want)
	}
	if _, err := tracer.Compile(s); err != nil {
		t.Fatalf("the scene does not compile: %v", err)
	}
}

// TestMTLColorspace checks that -colorspace overrides how a map's values
// are decoded (map_Kd and map_Ke are sRGB by default, map_Pr and map_Pm
// linear), and that one file read both ways is decoded once each way.
func TestMTLColorspace(t *testing.T) {
	mats, err := importMTL(t, "newmtl a\nmap_Kd g.png\n"+
		"newmtl b\nmap_Kd -colorspace linear g.png\nmap_Pr -colorspace srgb g.png\n"+
		"newmtl c\nmap_Kd -colorspace SRGB g.png\nmap_Pr g.png\n",
		map[string]string{"g.png": mtlPNG(t, 1, 1, 128, 128, 128)}, "a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := mats[0], mats[1], mats[2]
	if a.Image.Pix[0] != srgb8[128] || c.Image != a.Image {
		t.Errorf("sRGB map_Kd: %v (shared %v), want %v (shared)", a.Image.Pix, c.Image == a.Image, srgb8[128])
	}
	if b.Image.Pix[0] != linear8[128] {
		t.Errorf("linear map_Kd: %v, want %v", b.Image.Pix, linear8[128])
	}
	if b.RoughImage.Pix[1] != srgb8[128] || c.RoughImage.Pix[1] != linear8[128] {
		t.Errorf("map_Pr roughness: sRGB %v, linear %v; want %v, %v", b.RoughImage.Pix[1], c.RoughImage.Pix[1], srgb8[128], linear8[128])
	}
}
