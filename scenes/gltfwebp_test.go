package scenes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestLoadGLTFWebP: a texture's EXT_texture_webp image (Blender's WebP
// export) is read, alone (the extension required) or beside a core
// source, which it is preferred to; its errors name the image, as a core
// source's do.
func TestLoadGLTFWebP(t *testing.T) {
	webp, err := os.ReadFile(filepath.Join("testdata", "images", "2x2-lossless.webp"))
	if err != nil {
		t.Fatal(err)
	}
	// quad8, decoded from sRGB: its last texel is (128, 64, 32), where
	// tinyPNG's is white.
	wantWebP := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, srgb8[128], srgb8[64], srgb8[32]}
	doc := func(core bool, source int) *gltf.Document {
		d := texturedGLTFDoc() // images[0]: tinyPNG
		w, err := modeler.WriteImage(d, "webp", "image/webp", bytes.NewReader(webp))
		if err != nil {
			t.Fatal(err)
		}
		if w != 1 {
			t.Fatalf("the WebP image is images[%d], want 1", w)
		}
		if _, err := modeler.WriteImage(d, "junk", "image/webp", bytes.NewReader([]byte("not an image"))); err != nil {
			t.Fatal(err)
		}
		tex := d.Textures[0]
		if !core {
			tex.Source = nil
			d.ExtensionsRequired = []string{"EXT_texture_webp"}
		}
		tex.Extensions = gltf.Extensions{"EXT_texture_webp": json.RawMessage(fmt.Sprintf(`{"source": %d}`, source))}
		d.ExtensionsUsed = []string{"EXT_texture_webp"}
		return d
	}
	for _, core := range []bool{false, true} {
		for _, glb := range []bool{false, true} {
			m := mustLoadGLTFDoc(t, doc(core, 1), glb)
			img := m.materials[0].Image
			if img == nil || img.Width != 2 || img.Height != 2 || !slices.Equal(img.Pix, wantWebP) {
				t.Errorf("core source %v, glb %v: image %+v, want the WebP one, %v", core, glb, img, wantWebP)
			}
		}
	}
	for _, tc := range []struct {
		source int
		msg    string
	}{
		{2, "meshes[0].primitives[0]: images[2]: not an image in a supported format"},
		{7, "meshes[0].primitives[0]: images[7] does not exist"},
	} {
		dir, a := gltfScene(t)
		path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc(false, tc.source))
		_, err := loadGLTF(a, path)
		checkGLTFError(t, err, path, tc.msg)
	}
}
