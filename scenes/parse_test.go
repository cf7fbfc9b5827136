package scenes

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// TestLoadValid decodes the scenes of testdata and compares every field
// with what the file says, defaults included.
func TestLoadValid(t *testing.T) {
	tests := []struct {
		file string
		want tracer.SceneDesc
	}{
		{
			// the scene format's example without the mesh.
			file: "full.json",
			want: tracer.SceneDesc{
				Settings: tracer.Settings{Width: 800, Height: 600, Samples: 64, MaxDepth: 8, Integrator: tracer.IntegratorPath, Seed: 1},
				Camera: tracer.CameraDesc{
					Position: mgl32.Vec3{0, 1, -4}, LookAt: mgl32.Vec3{0, 1, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40,
				},
				Film:       tracer.Film{Exposure: 0, Tonemap: tracer.TonemapClamp, Transfer: tracer.TransferSRGB, FilterWidth: 1},
				Background: tracer.Background{Kind: tracer.BackgroundColor},
				Materials: []tracer.Material{
					{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.73, 0.73, 0.73}},
					{Kind: tracer.MaterialEmissive, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 1, 1}, Intensity: 15},
					{Kind: tracer.MaterialDielectric, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 1, 1}, IOR: 1.5},
					{Kind: tracer.MaterialMetal, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.8, 0.8, 0.9}, Roughness: 0.1},
					{Kind: tracer.MaterialPhong, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 0, 0},
						Ambient: 0.05, Diffuse: 1, Specular: 1, Shininess: 50, Reflection: 0.5},
					{Kind: tracer.MaterialDiffuse, Texture: 0},
				},
				Textures: []tracer.Texture{{Kind: tracer.TextureChecker, Scale: 2, Even: mgl32.Vec3{1, 1, 1}}},
				Lights: []tracer.PointLight{
					{Position: mgl32.Vec3{5, 5, -10}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1, Falloff: tracer.FalloffInverseSquare},
				},
				Spheres: []tracer.SphereDesc{{Center: mgl32.Vec3{0, 1, 0}, Radius: 1, Material: 4}},
				Planes:  []tracer.PlaneDesc{{Normal: mgl32.Vec3{0, 1, 0}, Material: 5}},
				Quads: []tracer.QuadDesc{
					{Corner: mgl32.Vec3{-1, 2, -1}, Edge1: mgl32.Vec3{2, 0, 0}, Edge2: mgl32.Vec3{0, 0, 2}, Material: 1},
				},
				Triangles: []tracer.TriangleDesc{
					{Vertices: [3]mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Material: 0},
				},
			},
		},
		{
			// Only the required fields: everything else is a default.
			file: "minimal.json",
			want: tracer.SceneDesc{
				Settings: tracer.Settings{Width: 640, Height: 480, Samples: 16, MaxDepth: 8, Integrator: tracer.IntegratorPath, Seed: 1},
				Camera: tracer.CameraDesc{
					Position: mgl32.Vec3{0, 1, -4}, LookAt: mgl32.Vec3{0, 1, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40,
				},
				Film:       tracer.Film{Tonemap: tracer.TonemapClamp, Transfer: tracer.TransferSRGB, FilterWidth: 1},
				Background: tracer.Background{Kind: tracer.BackgroundColor},
			},
		},
		{
			// Every non-default choice (the glass absorbs), and defaults
			// inside sections.
			file: "whitted.json",
			want: tracer.SceneDesc{
				Settings: tracer.Settings{Width: 320, Height: 240, Samples: 1, MaxDepth: 5, Integrator: tracer.IntegratorWhitted, Seed: 42,
					NoiseThreshold: 0.05, MinSamples: 8, PointLightTree: tracer.PointLightTreeNever},
				Camera: tracer.CameraDesc{
					Position: mgl32.Vec3{0, 2, -6}, LookAt: mgl32.Vec3{0, 1, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 50,
					Shift: [2]float32{0, 0.1}, Aperture: 0.05, FocusDistance: 6,
				},
				Film: tracer.Film{Exposure: -0.5, Tonemap: tracer.TonemapACES, Transfer: tracer.TransferLinear, FilterWidth: 1},
				Background: tracer.Background{
					Kind: tracer.BackgroundGradient, Bottom: mgl32.Vec3{1, 1, 1}, Top: mgl32.Vec3{0.5, 0.7, 1},
				},
				Materials: []tracer.Material{
					{Kind: tracer.MaterialPhong, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 0, 0},
						Diffuse: 1, Specular: 0.5, Shininess: 32},
					{Kind: tracer.MaterialDielectric, Texture: tracer.NoTexture, Color: mgl32.Vec3{0.9, 1, 0.9}, IOR: 1.33,
						AttenuationColor: mgl32.Vec3{0.5, 0, 1}, AttenuationDistance: 0.25},
					{Kind: tracer.MaterialPhong, Texture: 0, Diffuse: 1, Shininess: 32, Reflection: 0.2},
					{Kind: tracer.MaterialEmissive, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 1, 1}, Intensity: 1},
					{Kind: tracer.MaterialMetal, Texture: 1},
				},
				Textures: []tracer.Texture{
					{Kind: tracer.TextureChecker, Scale: 1, Even: mgl32.Vec3{1, 1, 1}},
					{Kind: tracer.TextureChecker, Scale: 4, Even: mgl32.Vec3{1, 1, 1}, Odd: mgl32.Vec3{0.2, 0.2, 0.2}},
				},
				Lights: []tracer.PointLight{
					{Position: mgl32.Vec3{-5, 8, -5}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 0.8, Falloff: tracer.FalloffNone},
					{Position: mgl32.Vec3{5, 8, -5}, Color: mgl32.Vec3{1, 0.9, 0.8}, Intensity: 60, Falloff: tracer.FalloffInverseSquare},
				},
				Spheres: []tracer.SphereDesc{
					{Center: mgl32.Vec3{-1, 1, 0}, Radius: 1, Material: 0},
					{Center: mgl32.Vec3{1.2, 0.7, -0.5}, Radius: 0.7, Material: 1},
				},
				Planes: []tracer.PlaneDesc{{Normal: mgl32.Vec3{0, 2, 0}, Material: 2}},
				Quads: []tracer.QuadDesc{
					{Corner: mgl32.Vec3{-1, 4, -1}, Edge1: mgl32.Vec3{0, 0, 2}, Edge2: mgl32.Vec3{2, 0, 0}, Material: 3},
				},
				Triangles: []tracer.TriangleDesc{{
					Vertices: [3]mgl32.Vec3{{-3, 0, 2}, {3, 0, 2}, {0, 3, 2}},
					UV:       [3]mgl32.Vec2{{0, 0}, {1, 0}, {0.5, 1}}, HasUV: true, Material: 4,
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := Load(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("Load(%s) =\n%+v\nwant\n%+v", tt.file, *got, tt.want)
			}
			if err := ValidateSettings(got.Settings); err != nil {
				t.Errorf("ValidateSettings: %v", err)
			}
		})
	}
}

// TestParseSyntaxOddities covers JSON that is valid but unusual: escapes,
// a byte order mark, white space, exponents.
func TestParseSyntaxOddities(t *testing.T) {
	tests := []struct {
		name, in string
		check    func(*tracer.SceneDesc) bool
	}{
		{"bom", "\uFEFF" + `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}}`,
			func(s *tracer.SceneDesc) bool { return s.Camera.Position[2] == -1 }},
		{"exponents and integral floats", `{"version": 1.0, "render": {"width": 1e2, "samples": 2E1, "seed": 9007199254740992},
			"camera": {"position": [0, 0, -1e0], "look_at": [0, 0, 0.0e-3]}}`,
			func(s *tracer.SceneDesc) bool {
				return s.Settings.Width == 100 && s.Settings.Samples == 20 && s.Settings.Seed == 1<<53
			}},
		{"escaped material names", `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
			"materials": {"gl\u0061ss \ud83d\ude00\t\"x\"": {"type": "dielectric"}},
			"objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "glass 😀\t\u0022x\u0022"}]}`,
			func(s *tracer.SceneDesc) bool {
				return len(s.Spheres) == 1 && s.Materials[0].Kind == tracer.MaterialDielectric
			}},
		{"white space everywhere", " \t\r\n{ \"version\" : 1 , \"camera\" : { \"position\" : [ 0 , 0 , -1 ] , \"look_at\" : [ 0 , 0 , 0 ] } } \r\n\t ",
			func(s *tracer.SceneDesc) bool { return s.Camera.FOV == 40 }},
		{"tiny numbers round to zero", `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [1e-400, 0, 0]}}`,
			func(s *tracer.SceneDesc) bool { return s.Camera.LookAt[0] == 0 }},
		{"empty sections", `{"version": 1, "render": {}, "film": {}, "background": {}, "materials": {}, "lights": [], "objects": [],
			"camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}}`,
			func(s *tracer.SceneDesc) bool {
				return s.Settings.Width == 640 && s.Background.Kind == tracer.BackgroundColor
			}},
		{"background color type", `{"version": 1, "background": {"type": "color", "color": [0.1, 0.2, 0.3]},
			"camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}}`,
			func(s *tracer.SceneDesc) bool { return s.Background.Color == mgl32.Vec3{0.1, 0.2, 0.3} }},
		{"camera looking down with an explicit up", `{"version": 1, "camera": {"position": [0, 5, 0], "look_at": [0, 0, 0], "up": [0, 0, 1]}}`,
			func(s *tracer.SceneDesc) bool { return s.Camera.Up == mgl32.Vec3{0, 0, 1} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("test.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(s) {
				t.Errorf("unexpected result %+v", *s)
			}
		})
	}
}

// TestExamples loads every scene of the gallery, scenes/examples.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("examples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		s, err := Load(name)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		checkScene(t, s)
	}
}
