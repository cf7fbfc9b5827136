package tracer

import (
	"context"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// flatNormalImage is a 1×1 normal map of the tangent-space normal n.
func flatNormalImage(n vec3) Image {
	return Image{Width: 1, Height: 1, Pix: []float32{0.5 + 0.5*n[0], 0.5 + 0.5*n[1], 0.5 + 0.5*n[2]}}
}

// renderCentre renders a 1×1 image of d and returns its one pixel.
func renderCentre(t *testing.T, d *SceneDesc) vec3 {
	t.Helper()
	s := compileTest(t, d)
	buf := make([]float32, 3)
	var st Stats
	s.RenderBlock(context.Background(), image.Rect(0, 0, 1, 1), buf, &st)
	return vec3{buf[0], buf[1], buf[2]}
}

// TestNormalMapTiltsLikeAPlane: a horizontal surface whose normal map holds
// one normal tilted by a about the bitangent shades, under a point light
// at max_depth 1, as a plane tilted by a: albedo/π · I · cos θ, θ between
// the tilted normal and the light (closed form, within 1 %), on a quad, a
// UV-mapped mesh, a plane and with the scale halving the tilt's X.
func TestNormalMapTiltsLikeAPlane(t *testing.T) {
	const albedo = 0.8
	a := 0.5 // radians
	tilt := vec3{float32(math.Sin(a)), 0, float32(math.Cos(a))}
	light := vec3{2, 3, 0.5}
	quad := func(d *SceneDesc) {
		// edge1 +x (T), edge2 −z: N = +y, B = N × T = −z, as the map wants.
		d.Quads = []QuadDesc{{Corner: vec3{-1, 0, 1}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, -2}}}
	}
	mesh := func(d *SceneDesc) {
		d.Meshes = []MeshDesc{{
			Positions: []mgl32.Vec3{{-1, 0, 1}, {1, 0, 1}, {1, 0, -1}, {-1, 0, -1}},
			UVs:       []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
			Indices:   []uint32{0, 1, 2, 0, 2, 3},
		}}
	}
	plane := func(d *SceneDesc) {
		// A horizontal plane's axes are +x (u) and +z (v), w = −1: B = +z.
		d.Planes = []PlaneDesc{{Normal: vec3{0, 1, 0}}}
	}
	for _, c := range []struct {
		name   string
		shape  func(d *SceneDesc)
		scale  float32
		normal vec3 // the world shading normal expected
	}{
		{"quad", quad, 1, vec3{tilt[0], tilt[2], 0}},
		{"mesh", mesh, 1, vec3{tilt[0], tilt[2], 0}},
		{"plane", plane, 1, vec3{tilt[0], tilt[2], 0}},
		{"quad scale 0.5", quad, 0.5, normalize(vec3{0.5 * tilt[0], tilt[2], 0})},
	} {
		t.Run(c.name, func(t *testing.T) {
			build := func(mapped bool) *SceneDesc {
				d := &SceneDesc{
					Settings:  Settings{Width: 1, Height: 1, Samples: 1, MaxDepth: 1},
					Camera:    CameraDesc{Position: vec3{0, 5, 0}, LookAt: vec3{0, 0, 0}, Up: vec3{0, 0, 1}, FOV: 10},
					Materials: []Material{{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{albedo, albedo, albedo}}},
					Lights:    []PointLight{{Position: light, Color: vec3{1, 1, 1}, Intensity: 1, Falloff: FalloffNone}},
				}
				if mapped {
					d.Images = []Image{flatNormalImage(tilt)}
					d.Textures = []Texture{{Kind: TextureImage}}
					d.Materials[0].NormalMap, d.Materials[0].NormalScale = 1, c.scale
				}
				c.shape(d)
				return d
			}
			got := renderCentre(t, build(true))
			cos := float64(dot(c.normal, normalize(light)))
			want := albedo / math.Pi * cos
			if math.Abs(float64(got[0])-want) > 0.01*want {
				t.Errorf("radiance %g, want %g (a plane tilted by %g rad)", got[0], want, a)
			}
			flat := renderCentre(t, build(false))
			if math.Abs(float64(flat[0]-got[0])) < 0.05*want {
				t.Errorf("the normal map changed nothing: %g with, %g without", got[0], flat[0])
			}
		})
	}
}

// normalMapScene is a small scene with every shape, a diffuse and a pbr
// material, lit by a point light, an area light and a gradient sky.
func normalMapScene(integ Integrator) *SceneDesc {
	d := &SceneDesc{
		Settings:   Settings{Width: 16, Height: 12, Samples: 2, MaxDepth: 4, Integrator: integ, Seed: 5},
		Camera:     CameraDesc{Position: vec3{0, 1.5, -5}, LookAt: vec3{0, 0.5, 0}, Up: vec3{0, 1, 0}, FOV: 60},
		Background: Background{Kind: BackgroundGradient, Bottom: vec3{0.2, 0.2, 0.2}, Top: vec3{0.5, 0.6, 0.9}},
		Materials: []Material{
			{Kind: MaterialDiffuse, Texture: NoTexture, Color: vec3{0.7, 0.6, 0.5}},
			{Kind: MaterialPBR, Texture: NoTexture, Color: vec3{0.9, 0.5, 0.3}, Roughness: 0.4, Metallic: 0.3},
			{Kind: MaterialEmissive, Texture: NoTexture, Color: vec3{1, 1, 1}, Intensity: 5},
		},
		Lights:  []PointLight{{Position: vec3{1, 3, -2}, Color: vec3{1, 1, 1}, Intensity: 8}},
		Planes:  []PlaneDesc{{Normal: vec3{0, 1, 0}}},
		Spheres: []SphereDesc{{Center: vec3{-1, 0.6, 0}, Radius: 0.6, Material: 1}},
		Quads: []QuadDesc{{Corner: vec3{0.2, 0, 0.5}, Edge1: vec3{1, 0, 0}, Edge2: vec3{0, 1.2, 0}, Material: 1},
			{Corner: vec3{-1, 3, -1}, Edge1: vec3{2, 0, 0}, Edge2: vec3{0, 0, 2}, Material: 2}},
		Triangles: []TriangleDesc{{Vertices: [3]mgl32.Vec3{{-2, 0, 1}, {-1, 0, 1}, {-1.5, 1, 1}}}},
		Meshes: []MeshDesc{{
			Positions: []mgl32.Vec3{{0.5, 0.1, -1}, {1.5, 0.1, -1}, {1.5, 0.8, -0.5}, {0.5, 0.8, -0.5}},
			Normals:   []mgl32.Vec3{{0, 0.6, -0.8}, {0, 0.6, -0.8}, {0, 0.6, -0.8}, {0, 0.6, -0.8}},
			UVs:       []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
			Indices:   []uint32{0, 2, 1, 0, 3, 2},
			Material:  1,
		}},
	}
	return d
}

// TestFlatNormalMapChangesNothing: a normal map of (0.5, 0.5, 1)
// everywhere renders the same bits as no normal map, under both
// integrators.
func TestFlatNormalMapChangesNothing(t *testing.T) {
	for _, integ := range []Integrator{IntegratorPath, IntegratorWhitted} {
		plain := compileTest(t, normalMapScene(integ))
		d := normalMapScene(integ)
		d.Images = []Image{{Width: 2, Height: 2, Pix: []float32{0.5, 0.5, 1, 0.5, 0.5, 1, 0.5, 0.5, 1, 0.5, 0.5, 1}}}
		d.Textures = []Texture{{Kind: TextureImage}}
		d.Materials[0].NormalMap, d.Materials[0].NormalScale = 1, 1
		d.Materials[1].NormalMap, d.Materials[1].NormalScale = 1, 0.7
		mapped := compileTest(t, d)
		if len(mapped.Tangents) == 0 {
			t.Fatal("no tangents compiled: the test does not reach the mapped meshes")
		}
		w, h := d.Settings.Width, d.Settings.Height
		a, b := make([]float32, 3*w*h), make([]float32, 3*w*h)
		var st Stats
		plain.RenderBlock(context.Background(), image.Rect(0, 0, w, h), a, &st)
		mapped.RenderBlock(context.Background(), image.Rect(0, 0, w, h), b, &st)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("integrator %d: value %d: %g with the flat map, %g without", integ, i, b[i], a[i])
			}
		}
		// And a tilted map does change them.
		d.Images[0].Pix[0] = 0.9
		tilted := compileTest(t, d)
		tilted.RenderBlock(context.Background(), image.Rect(0, 0, w, h), b, &st)
		same := true
		for i := range a {
			same = same && a[i] == b[i]
		}
		if same {
			t.Errorf("integrator %d: a tilted map changed nothing", integ)
		}
	}
}

// TestComputeTangents: a UV-mapped square in the xz plane gets the
// tangent +x and handedness +1 when u runs along +x and v along −z, and
// −x with handedness −1 when its u is mirrored, with or without vertex
// normals; a mesh's own tangents are kept (orthogonalised).
func TestComputeTangents(t *testing.T) {
	pos := []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 0, -1}, {0, 0, -1}}
	idx := []uint32{0, 1, 2, 0, 2, 3}
	up := []mgl32.Vec3{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}}
	for _, c := range []struct {
		name    string
		uvs     []mgl32.Vec2
		normals []mgl32.Vec3
		t       vec3
		w       float32
	}{
		{"u along +x", []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, up, vec3{1, 0, 0}, 1},
		{"u along +x, flat", []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, nil, vec3{1, 0, 0}, 1},
		{"mirrored u", []mgl32.Vec2{{1, 0}, {0, 0}, {0, 1}, {1, 1}}, up, vec3{-1, 0, 0}, -1},
		{"mirrored u, flat", []mgl32.Vec2{{1, 0}, {0, 0}, {0, 1}, {1, 1}}, nil, vec3{-1, 0, 0}, -1},
		{"u along −z", []mgl32.Vec2{{0, 0}, {0, 1}, {1, 1}, {1, 0}}, up, vec3{0, 0, -1}, -1},
	} {
		m := MeshDesc{Positions: pos, Normals: c.normals, UVs: c.uvs, Indices: idx}
		for i, tg := range ComputeTangents(&m) {
			if length(tg.T.Sub(c.t)) > 1e-6 || tg.W != c.w {
				t.Errorf("%s: vertex %d: tangent %v w %g, want %v w %g", c.name, i, tg.T, tg.W, c.t, c.w)
			}
		}
	}
	m := MeshDesc{Positions: pos, Normals: up, UVs: []mgl32.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, Indices: idx,
		Tangents: []mgl32.Vec4{{2, 1, 0, -1}, {0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}}
	got := meshTangents(&m)
	if length(got[0].T.Sub(vec3{1, 0, 0})) > 1e-6 || got[0].W != -1 || length(got[1].T.Sub(vec3{0, 0, 1})) > 1e-6 || got[1].W != 1 {
		t.Errorf("own tangents: %v, want (1, 0, 0) w −1 and (0, 0, 1) w 1", got[:2])
	}
}

// TestNormalMapFurnace: a normal-mapped surface inside a white background
// creates no energy: a pbr sphere of white base colour (dielectric and
// metal) and a diffuse one of albedo 1, under a map tilted by up to about 25°, stay
// at or below 1 on average (one per cent of noise allowed).
func TestNormalMapFurnace(t *testing.T) {
	white := vec3{1, 1, 1}
	for _, m := range []Material{
		{Kind: MaterialDiffuse, Color: white},
		{Kind: MaterialPBR, Color: white, Roughness: 0.5},
		{Kind: MaterialPBR, Color: white, Roughness: 0.3, Metallic: 1},
	} {
		m.Texture, m.NormalMap, m.NormalScale = NoTexture, 1, 1
		d := &SceneDesc{
			Settings:   Settings{Width: 8, Height: 8, Samples: 1, MaxDepth: 32},
			Camera:     CameraDesc{Position: vec3{0, 0, -3}, LookAt: vec3{0, 0, 0}},
			Background: Background{Color: white},
			Images:     []Image{{Width: 2, Height: 1, Pix: []float32{0.7, 0.5, 0.9, 0.35, 0.6, 0.9}}},
			Textures:   []Texture{{Kind: TextureImage, UV: [6]float32{7, 0, 0, 5, 0, 0}}},
			Materials:  []Material{m},
			Spheres:    []SphereDesc{{Radius: 1}},
		}
		s := compileTest(t, d)
		for _, dir := range []vec3{{0, 0, 1}, normalize(vec3{0.3, 0.2, 1}), normalize(vec3{-0.5, 0.1, 1})} {
			mean := meanRadiance(s, Ray{Origin: vec3{0, 0, -3}, Dir: dir, TMax: infinity}, 4000)
			if mean[0] > 1.01 || !(mean[0] > 0.5) {
				t.Errorf("material kind %d metallic %g, ray %v: mean %g, want ≤ 1 (and not black)", m.Kind, m.Metallic, dir, mean[0])
			}
		}
	}
}

// TestNormalMapNeedsUVs: a mesh without UVs whose material has a normal
// map is refused, with a message that says why.
func TestNormalMapNeedsUVs(t *testing.T) {
	d := normalMapScene(IntegratorPath)
	d.Images = []Image{flatNormalImage(vec3{0, 0, 1})}
	d.Textures = []Texture{{Kind: TextureImage}}
	d.Materials[1].NormalMap = 1
	d.Meshes[0].UVs = nil
	_, err := Compile(d)
	if err == nil || !strings.Contains(err.Error(), "meshes[0]") || !strings.Contains(err.Error(), "texture coordinates") {
		t.Errorf("error %v, want one naming meshes[0] and its missing texture coordinates", err)
	}
}
