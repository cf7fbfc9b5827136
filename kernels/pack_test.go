package kernels

import (
	"bytes"
	"errors"
	"image"
	"reflect"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// testScene compiles a small scene with a triangle, a sphere, a quad, a
// plane, an emissive shape, a light and both kinds of texture.
func testScene(t *testing.T) *tracer.Scene {
	t.Helper()
	d := &tracer.SceneDesc{
		Settings: tracer.Settings{Width: 8, Height: 6, Samples: 2, MaxDepth: 4},
		Camera:   tracer.CameraDesc{Position: mgl32.Vec3{0, 1, -4}, LookAt: mgl32.Vec3{0, 0, 0}, Up: mgl32.Vec3{0, 1, 0}, FOV: 40},
		Images:   []tracer.Image{{Width: 2, Height: 1, Pix: []float32{1, 0, 0, 0, 1, 0}}},
		Textures: []tracer.Texture{{Kind: tracer.TextureChecker, Scale: 2}, {Kind: tracer.TextureImage, Image: 0}},
		Materials: []tracer.Material{{Kind: tracer.MaterialDiffuse, Texture: 0},
			{Kind: tracer.MaterialEmissive, Texture: 1, Intensity: 2}},
		Lights:    []tracer.PointLight{{Position: mgl32.Vec3{0, 4, 0}, Color: mgl32.Vec3{1, 1, 1}, Intensity: 3}},
		Spheres:   []tracer.SphereDesc{{Center: mgl32.Vec3{0, 0.5, 0}, Radius: 0.5}},
		Quads:     []tracer.QuadDesc{{Corner: mgl32.Vec3{-1, 3, -1}, Edge1: mgl32.Vec3{2, 0, 0}, Edge2: mgl32.Vec3{0, 0, 2}, Material: 1}},
		Planes:    []tracer.PlaneDesc{{Normal: mgl32.Vec3{0, 1, 0}}},
		Triangles: []tracer.TriangleDesc{{Vertices: [3]mgl32.Vec3{{1, 0, 0}, {2, 0, 0}, {1, 1, 0}}, HasUV: true}},
	}
	s, err := tracer.Compile(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPack(t *testing.T) {
	s := testScene(t)
	p, err := Pack(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(s); err != nil {
		t.Errorf("Check refuses the scene Pack packs: %v", err)
	}
	h := p.Scene
	if h.NumShapes != 3 || h.FirstPlane != 2 || h.NumTriangles != 1 || h.NumEmitters != 1 || h.NumTexels != 6 ||
		h.Samples != 2 || h.MaxDepth != 4 || h.Camera != s.Camera || h.Background != s.Background {
		t.Errorf("header %+v does not describe the scene", h)
	}
	arrays := p.Arrays()
	if len(arrays) != len(h.Addrs()) {
		t.Fatalf("%d arrays, %d address fields", len(arrays), len(h.Addrs()))
	}
	for _, a := range arrays {
		if a.Name == "TriangleRecords" {
			// Pack's own array: each triangle's nine floats, then three zeros.
			want := make([]float32, 0, 12*len(s.Triangles))
			for _, tr := range s.Triangles {
				want = append(want, tr.P0[0], tr.P0[1], tr.P0[2], tr.E1[0], tr.E1[1], tr.E1[2], tr.E2[0], tr.E2[1], tr.E2[2], 0, 0, 0)
			}
			if !bytes.Equal(a.Bytes, bytesOf(want)) {
				t.Errorf("TriangleRecords: %d bytes, not the triangles' floats each padded to 48 bytes", len(a.Bytes))
			}
			continue
		}
		f, ok := reflect.TypeOf(*s).FieldByName(a.Name)
		if !ok {
			t.Errorf("array %s is no field of tracer.Scene", a.Name)
			continue
		}
		v := reflect.ValueOf(*s).FieldByIndex(f.Index)
		if n := v.Len() * int(f.Type.Elem().Size()); n != len(a.Bytes) {
			t.Errorf("array %s: %d bytes, want %d", a.Name, len(a.Bytes), n)
		}
	}
	if len(h.Bytes()) != 1416 {
		t.Errorf("header is %d bytes, want 1416 (scene.h)", len(h.Bytes()))
	}
}

// TestPackKnowsTheScene lists the fields of tracer.Scene and
// tracer.Settings that Pack hands to the kernel or knowingly leaves out.
// A field added to either fails here until Pack (and the kernel) handle
// it or refuse scenes that use it.
func TestPackKnowsTheScene(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{tracer.Scene{}, []string{"Settings", "Camera", "Background", "Nodes", "Triangles", "TriangleAttrs",
			"Vertices", "Shapes", "FirstPlane", "Materials", "Textures", "Texels", "Lights", "Emitters",
			"Film",         // applied on the host, after rendering
			"BVHBuildTime", // a statistic
			"SeeThrough",   // TraceScene.SeeThrough
			"UV1", "Colors",
			"Tangents",
			"wide",          // the CPU's 4-wide BVH, collapsed from Nodes, which the kernel reads
			"glassBSDFOnly", // set only by tracer's tests (a reference without light sampling at rough glass)
			"LightNodes",
			"TreeLights", // TraceScene.TreeLights
			"powerPicks", // set only by tracer's tests (a reference that picks emitters by power alone)
		}},
		{tracer.Settings{}, []string{"Width", "Height", "Samples", "MaxDepth", "Integrator", "Seed",
			"NoiseThreshold", "MinSamples", // TraceScene.NoiseLimit and MinSamples
			"PointLightTree", // Compile's choice, TraceScene.TreeLights
		}},
	} {
		rt := reflect.TypeOf(c.v)
		for i := 0; i < rt.NumField(); i++ {
			if !slices.Contains(c.known, rt.Field(i).Name) {
				t.Errorf("%s.%s is new: teach kernels.Pack and the kernel about it", rt, rt.Field(i).Name)
			}
		}
	}
}

// TestPackRefuses: what the kernel does not know is refused, never drawn
// differently.
func TestPackRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *tracer.Scene)
	}{
		{"integrator", func(s *tracer.Scene) { s.Settings.Integrator = tracer.NumIntegrators }},
		{"depth", func(s *tracer.Scene) { s.Settings.MaxDepth = MaxDepth + 1 }},
		{"samples", func(s *tracer.Scene) { s.Settings.Samples = 0 }},
		{"camera size", func(s *tracer.Scene) { s.Settings.Width = 9 }},
		{"material kind", func(s *tracer.Scene) { s.Materials[0].Kind = tracer.NumMaterialKinds }},
		{"material texture", func(s *tracer.Scene) { s.Materials[0].Texture = 2 }},
		{"texture kind", func(s *tracer.Scene) { s.Textures[0].Kind = tracer.NumTextureKinds }},
		{"image size", func(s *tracer.Scene) { s.Textures[1].Width = 3 }},
		{"background kind", func(s *tracer.Scene) { s.Background.Kind = tracer.NumBackgroundKinds }},
		{"background image", func(s *tracer.Scene) { s.Background = tracer.Background{Kind: tracer.BackgroundImage} }},
		{"falloff", func(s *tracer.Scene) { s.Lights[0].Falloff = tracer.NumFalloffs }},
		{"shape kind", func(s *tracer.Scene) { s.Shapes[0].Kind = tracer.ShapePlane }},
		{"plane kind", func(s *tracer.Scene) { s.Shapes[2].Kind = tracer.ShapeSphere }},
		{"shape material", func(s *tracer.Scene) { s.Shapes[0].Material = 7 }},
		{"triangle flags", func(s *tracer.Scene) { s.TriangleAttrs[0].Flags |= 16 }},
		{"second uv set missing", func(s *tracer.Scene) { s.TriangleAttrs[0].Flags |= tracer.TriangleUV1 }},
		{"vertex colours missing", func(s *tracer.Scene) { s.TriangleAttrs[0].Flags |= tracer.TriangleColor }},
		{"wrap mode", func(s *tracer.Scene) { s.Textures[1].WrapT = tracer.NumWraps }},
		{"filter", func(s *tracer.Scene) { s.Textures[1].Filter = tracer.NumFilters }},
		{"texture coordinate set", func(s *tracer.Scene) { s.Textures[1].TexCoord = 2 }},
		{"triangle vertex", func(s *tracer.Scene) { s.TriangleAttrs[0].V[2] = 99 }},
		{"emitter", func(s *tracer.Scene) { s.Emitters[0].Kind = tracer.HitNone }},
		{"light tree size", func(s *tracer.Scene) { s.LightNodes = append(s.LightNodes, s.LightNodes[0]) }},
		{"light trail", func(s *tracer.Scene) { s.Emitters[0].Trail ^= 1 }},
		{"tree lights not in the tree", func(s *tracer.Scene) { s.TreeLights = true }},
		{"tree lights without any", func(s *tracer.Scene) { s.TreeLights, s.Lights = true, nil }},
		{"leaf kind", func(s *tracer.Scene) {
			for i := range s.Nodes {
				if s.Nodes[i].Count > 0 {
					s.Nodes[i].Info = 2
				}
			}
		}},
		{"node children", func(s *tracer.Scene) { s.Nodes[0].Index = 1000 }},
	} {
		s := testScene(t)
		c.change(s)
		if _, err := Pack(s); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Pack returned %v, want an ErrUnsupported error", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
			if cerr := Check(s); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("%s: Check returned %v, want Pack's %v", c.name, cerr, err)
			}
		}
	}
}

func TestAppendPixels(t *testing.T) {
	got := AppendPixels([]uint32{9, 9}, image.Rect(3, 5, 5, 7))
	want := []uint32{9, 9, 3, 5, 4, 5, 3, 6, 4, 6}
	if !slices.Equal(got, want) {
		t.Errorf("AppendPixels = %v, want %v", got, want)
	}
}

func TestSource(t *testing.T) {
	b, err := Source.ReadFile("trace.cu")
	if err != nil || len(b) == 0 {
		t.Fatalf("Source has no trace.cu: %v", err)
	}
}
