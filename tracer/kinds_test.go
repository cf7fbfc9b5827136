package tracer

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestCompileRefusesUnknownKinds: Compile's bound checks refuse each kind
// or mode at its count sentinel (the first value that is no kind) with an
// error that names it, and accept the last kind below it.
func TestCompileRefusesUnknownKinds(t *testing.T) {
	base := func() *SceneDesc {
		return &SceneDesc{
			Settings:  Settings{Width: 4, Height: 4, Samples: 1, MaxDepth: 2},
			Camera:    CameraDesc{Position: mgl32.Vec3{0, 0, -3}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
			Images:    []Image{{Width: 1, Height: 1, Pix: []float32{1, 1, 1}}},
			Textures:  []Texture{{Kind: TextureImage}},
			Materials: []Material{{Kind: MaterialDiffuse, Texture: NoTexture}},
			Spheres:   []SphereDesc{{Radius: 1}},
		}
	}
	for _, c := range []struct {
		name      string
		last, bad func(d *SceneDesc)
		want      string
	}{
		{"integrator", func(d *SceneDesc) { d.Settings.Integrator = NumIntegrators - 1 },
			func(d *SceneDesc) { d.Settings.Integrator = NumIntegrators }, "unknown integrator"},
		{"material", func(d *SceneDesc) { d.Materials[0].Kind = NumMaterialKinds - 1 },
			func(d *SceneDesc) { d.Materials[0].Kind = NumMaterialKinds }, "materials[0]: unknown kind"},
		{"alpha mode", func(d *SceneDesc) { d.Materials[0].AlphaMode, d.Materials[0].Alpha = NumAlphaModes-1, 1 },
			func(d *SceneDesc) { d.Materials[0].AlphaMode = NumAlphaModes }, "unknown alpha mode"},
		{"texture", func(d *SceneDesc) { d.Textures[0].Kind = NumTextureKinds - 1 },
			func(d *SceneDesc) { d.Textures[0].Kind = NumTextureKinds }, "textures[0]: unknown kind"},
		{"wrap", func(d *SceneDesc) { d.Textures[0].WrapT = NumWraps - 1 },
			func(d *SceneDesc) { d.Textures[0].WrapT = NumWraps }, "unknown wrap mode"},
		{"filter", func(d *SceneDesc) { d.Textures[0].Filter = NumFilters - 1 },
			func(d *SceneDesc) { d.Textures[0].Filter = NumFilters }, "unknown filter"},
		{"background", func(d *SceneDesc) { d.Background = Background{Kind: NumBackgroundKinds - 1, Texture: 0} },
			func(d *SceneDesc) { d.Background.Kind = NumBackgroundKinds }, "background: unknown kind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := base()
			c.last(d)
			if _, err := Compile(d); err != nil {
				t.Fatalf("the last kind: %v", err)
			}
			d = base()
			c.bad(d)
			_, err := Compile(d)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Compile = %v, want an error with %q", err, c.want)
			}
		})
	}
}
