package scenes

import (
	"bytes"
	"errors"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// writeFile writes data to name in dir.
func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// imageScene returns a scene with the given background and materials.
func imageScene(background, materials string) string {
	return `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
	"background": ` + background + `,
	"materials": ` + materials + `}`
}

// TestLoadImageTextures loads a scene whose materials use image textures,
// the same file thrice, and whose background is an image: each file
// decoded the same way is one Image, the background's scaled copy is
// another.
func TestLoadImageTextures(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, quadImage()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "tex/wood.png", b.Bytes())
	px, hdrWant := hdrPixels(8 * 2)
	writeFile(t, dir, "sky.hdr", hdrFile(8, 2, px, true))
	writeFile(t, dir, "scene.json", []byte(imageScene(
		`{"type": "image", "file": "sky.hdr", "intensity": 2}`,
		`{
		"a": {"type": "diffuse", "texture": {"type": "image", "file": "tex/wood.png"}},
		"b": {"type": "metal", "texture": {"type": "image", "file": "tex/../tex/wood.png", "colorspace": "srgb"}},
		"c": {"type": "phong", "texture": {"type": "image", "file": "tex/wood.png", "colorspace": "linear"}},
		"d": {"type": "diffuse", "texture": {"type": "image", "file": "sky.hdr"}},
		"e": {"type": "diffuse", "texture": {"type": "checker"}}
	}`)))
	s, err := Load(filepath.Join(dir, "scene.json"))
	if err != nil {
		t.Fatal(err)
	}
	scaled := make([]float32, len(hdrWant))
	for i, v := range hdrWant {
		scaled[i] = 2 * v
	}
	wantImages := []tracer.Image{
		{Width: 8, Height: 2, Pix: scaled},                     // the background, × 2
		{Width: 2, Height: 2, Pix: wantPix(true, quad8[:]...)}, // a and b
		{Width: 2, Height: 2, Pix: wantPix(false, quad8[:]...)},
		{Width: 8, Height: 2, Pix: hdrWant}, // d: unscaled
	}
	if len(s.Images) != len(wantImages) {
		t.Fatalf("%d images, want %d", len(s.Images), len(wantImages))
	}
	for i, img := range s.Images {
		w := wantImages[i]
		if img.Width != w.Width || img.Height != w.Height || !slicesEqual(img.Pix, w.Pix) {
			t.Errorf("image %d: %d×%d %v, want %d×%d %v", i, img.Width, img.Height, img.Pix, w.Width, w.Height, w.Pix)
		}
	}
	wantTextures := []tracer.Texture{
		{Kind: tracer.TextureImage, Image: 0}, // the background's
		{Kind: tracer.TextureImage, Image: 1},
		{Kind: tracer.TextureImage, Image: 1},
		{Kind: tracer.TextureImage, Image: 2},
		{Kind: tracer.TextureImage, Image: 3},
		{Kind: tracer.TextureChecker, Scale: 1, Even: [3]float32{1, 1, 1}},
	}
	if !reflect.DeepEqual(s.Textures, wantTextures) {
		t.Errorf("textures %+v, want %+v", s.Textures, wantTextures)
	}
	if want := (tracer.Background{Kind: tracer.BackgroundImage, Texture: 0}); s.Background != want {
		t.Errorf("background %+v, want %+v", s.Background, want)
	}
	for i, m := range s.Materials {
		if want := int32(i + 1); m.Texture != want {
			t.Errorf("material %d: texture %d, want %d", i, m.Texture, want)
		}
	}
}

// TestLoadImageBackgroundShared checks that a background of intensity 1
// and a texture of the same file share one Image, and that a background
// with another intensity, after them, copies it rather than scaling it.
func TestLoadImageBackgroundShared(t *testing.T) {
	dir := t.TempDir()
	pfm := pfmFile(1, 2, 3, true, []float32{1, 2, 3, 4, 5, 6})
	writeFile(t, dir, "env.pfm", pfm)
	writeFile(t, dir, "one.json", []byte(imageScene(
		`{"type": "image", "file": "env.pfm"}`,
		`{"a": {"type": "diffuse", "texture": {"type": "image", "file": "env.pfm", "colorspace": "srgb"}}}`)))
	s, err := Load(filepath.Join(dir, "one.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{4, 5, 6, 1, 2, 3}
	if len(s.Images) != 1 || !slicesEqual(s.Images[0].Pix, want) {
		t.Errorf("images %+v, want one of %v", s.Images, want)
	}
	if len(s.Textures) != 2 || s.Textures[0].Image != 0 || s.Textures[1].Image != 0 {
		t.Errorf("textures %+v, want two of image 0", s.Textures)
	}

	// The scaled copy of an image decoded already.
	d := &decoder{file: filepath.Join(dir, "one.json")}
	s = &tracer.SceneDesc{}
	for _, k := range []float32{1, 0.5, 1} {
		root, err := parseJSON("x.json", []byte(`{"file": "env.pfm"}`))
		if err != nil {
			t.Fatal(err)
		}
		d.data = []byte(`{"file": "env.pfm"}`)
		d.imageFile(d.object(root, at("background")), false, k, s)
	}
	if d.err != nil {
		t.Fatal(d.err)
	}
	if len(s.Images) != 2 || !slicesEqual(s.Images[0].Pix, want) || !slicesEqual(s.Images[1].Pix, []float32{2, 2.5, 3, 0.5, 1, 1.5}) {
		t.Errorf("images %+v, want the image and its half", s.Images)
	}
}

// TestLoadImageErrors checks the errors of image textures and backgrounds
// through Load: at the file member, naming the file.
func TestLoadImageErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "notes.txt", []byte("not an image\n"))
	writeFile(t, filepath.Dir(dir), filepath.Base(dir)+"-outside.png", []byte("x"))
	writeFile(t, dir, "bright.pfm", pfmFile(1, 1, 3, false, []float32{1e38, 0, 0}))
	tests := []struct {
		name string
		json string
		want string
		is   error
	}{
		{"missing", imageScene(`{"color": [0, 0, 0]}`, `{"wood": {"type": "diffuse",
			"texture": {"type": "image", "file": "wood.png"}}}`),
			`scene.json:4:41: materials.wood.texture.file: "wood.png": no such file or directory`, fs.ErrNotExist},
		{"not an image", imageScene(`{"type": "image", "file": "notes.txt"}`, `{}`),
			`scene.json:2:42: background.file: "notes.txt": not an image in a supported format (PNG, JPEG, GIF, BMP, TIFF, WebP, Radiance HDR, PFM, TGA)`, nil},
		{"outside", imageScene(`{"type": "image", "file": "../`+filepath.Base(dir)+`-outside.png"}`, `{}`),
			`scene.json:2:42: background.file: "../` + filepath.Base(dir) + `-outside.png" is outside the scene's folder`, nil},
		{"too bright", imageScene(`{"type": "image", "file": "bright.pfm", "intensity": 1e10}`, `{}`),
			`scene.json:2:42: background.file: "bright.pfm": the intensity 1e+10 times the brightest value 1e+38 is too large for float32`, nil},
		{"emissive image too bright", imageScene(`{"color": [0, 0, 0]}`, `{"lamp": {"type": "emissive",
			"texture": {"type": "image", "file": "bright.pfm"}, "intensity": 10}}`),
			`scene.json:4:69: materials.lamp.intensity: the intensity 10 times the image's brightest value 1e+38 is too large for float32`, nil},
	}
	for _, tt := range tests {
		writeFile(t, dir, "scene.json", []byte(tt.json))
		_, err := Load(filepath.Join(dir, "scene.json"))
		want := filepath.Join(dir, tt.want)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, want)
			continue
		}
		if _, ok := errors.AsType[*Error](err); !ok {
			t.Errorf("%s: error %T, want *Error", tt.name, err)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: error %v is not %v", tt.name, err, tt.is)
		}
	}
	// With the outside allowed, the file is read (and is not an image).
	writeFile(t, dir, "scene.json", []byte(tests[2].json))
	_, err := LoadWith(filepath.Join(dir, "scene.json"), Options{AllowOutsideAssets: true})
	if err == nil || !strings.Contains(err.Error(), `-outside.png": not an image`) {
		t.Errorf("outside allowed: error %v", err)
	}
}

// TestImageTexelLimit checks that the scene's images together stay within
// tracer.MaxImageTexels: an image past what the others left is refused
// from its header.
func TestImageTexelLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.pfm", pfmFile(2, 1, 1, true, []float32{1, 1}))
	data := []byte(`{"file": "a.pfm"}`)
	root, err := parseJSON("x.json", data)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{file: filepath.Join(dir, "x.json"), data: data}
	a, aerr := d.sceneAssets()
	if aerr != nil {
		t.Fatal(aerr)
	}
	a.texels = tracer.MaxImageTexels - 1 // images of all but one texel of the limit
	d.imageFile(d.object(root, at("t")), true, 1, &tracer.SceneDesc{})
	want := `x.json:1:10: t.file: "a.pfm": PFM: 2×1 pixels: the scene's other images hold 268435455 texels, and with this one's 2 they would pass the limit of 268435456 (2^28) for all images together`
	if d.err == nil || !strings.HasSuffix(d.err.Error(), want) {
		t.Errorf("error %v, want %q", d.err, want)
	}
}

// TestLoadBackgroundTableRoom: an HDR or PFM image background is decoded
// with room after its colours for its sampling table, which the loader
// fills, so that the compiled scene keeps the background's texels and its
// table where they are rather than copying them; the same file as a
// texture is decoded without that room.
func TestLoadBackgroundTableRoom(t *testing.T) {
	const w, h = 16, 8
	px, _ := hdrPixels(w * h)
	vals := make([]float32, 3*w*h)
	for i := range vals {
		vals[i] = float32(i%7) / 4
	}
	dir := t.TempDir()
	writeFile(t, dir, "sky.hdr", hdrFile(w, h, px, true))
	writeFile(t, dir, "sky.pfm", pfmFile(w, h, 3, true, vals))
	for _, file := range []string{"sky.hdr", "sky.pfm"} {
		for _, background := range []bool{true, false} {
			scene := imageScene(`{"type": "color", "color": [1, 1, 1]}`, `{"a": {"type": "diffuse", "texture": {"type": "image", "file": "`+file+`"}}}`)
			if background {
				scene = imageScene(`{"type": "image", "file": "`+file+`"}`, `{"a": {"type": "diffuse"}}`)
			}
			writeFile(t, dir, "scene.json", []byte(scene))
			s, err := Load(filepath.Join(dir, "scene.json"))
			if err != nil {
				t.Fatal(err)
			}
			pix := s.Images[0].Pix
			room := 0
			if background {
				room = tracer.EnvironmentTableSize(w, h)
			}
			if cap(pix) != 3*w*h+room {
				t.Errorf("%s, background %v: room for %d values after the colours, want %d", file, background, cap(pix)-3*w*h, room)
			}
			sc, err := tracer.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			if &sc.Texels[0] != &pix[0] || len(sc.Texels) != 3*w*h+room || (sc.Background.Distribution != 0) != background {
				t.Errorf("%s, background %v: the compiled scene's %d texels, table at %d, are not the image's %d and its table", file, background, len(sc.Texels), sc.Background.Distribution, 3*w*h+room)
			}
		}
	}
}

// TestLoadImageBackgroundRotation: an image background's "rotation", a
// number (degrees about +y) or [rx, ry, rz] (about x, then y, then z, as a
// mesh's rotate), loads as the rows of the inverse turn; none, or whole
// turns, as no rotation (the zero matrix, which renders as before).
func TestLoadImageBackgroundRotation(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "env.pfm", pfmFile(1, 2, 3, true, []float32{1, 2, 3, 4, 5, 6}))
	c, s := float32(math.Cos(math.Pi/6)), float32(0.5) // 30°
	for _, tc := range []struct {
		rotation string
		want     [3]mgl32.Vec3
	}{
		{``, [3]mgl32.Vec3{}},
		{`, "rotation": 0`, [3]mgl32.Vec3{}},
		{`, "rotation": [360, -720, 0]`, [3]mgl32.Vec3{}},
		// +90° about y carries +z to +x: the map's +z (its centre) is
		// seen along +x, so the world's +x looks the map up at +z.
		{`, "rotation": 90`, [3]mgl32.Vec3{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}},
		{`, "rotation": [0, 90, 0]`, [3]mgl32.Vec3{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}}},
		// +90° about x carries +y to +z.
		{`, "rotation": [90, 0, 0]`, [3]mgl32.Vec3{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}}},
		// About y, then z: Rz(90)·Ry(90) carries x to (0, 0, −1), y to
		// (−1, 0, 0), z to (0, 1, 0); its transpose's rows are those.
		{`, "rotation": [0, 90, 90]`, [3]mgl32.Vec3{{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}}},
		{`, "rotation": -30`, [3]mgl32.Vec3{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}},
	} {
		writeFile(t, dir, "scene.json", []byte(imageScene(`{"type": "image", "file": "env.pfm"`+tc.rotation+`}`, `{}`)))
		d, err := Load(filepath.Join(dir, "scene.json"))
		if err != nil {
			t.Fatalf("%q: %v", tc.rotation, err)
		}
		got := d.Background.Rotation
		for i := range 3 {
			for j := range 3 {
				if math.Abs(float64(got[i][j]-tc.want[i][j])) > 1e-6 {
					t.Errorf("%q: rotation %v, want %v", tc.rotation, got, tc.want)
				}
			}
		}
		if _, err := tracer.Compile(d); err != nil {
			t.Errorf("%q: %v", tc.rotation, err)
		}
	}
}
