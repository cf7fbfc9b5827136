package scenes

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// TestMeshGLTFGlass: a glTF material of full transmission (Blender's
// glass) becomes trace's dielectric, with KHR_materials_ior's index
// (1.5 without it), roughnessFactor as its roughness,
// baseColorFactor as its tint and KHR_materials_volume's
// attenuationColor and attenuationDistance as its absorption, with no
// warning. Partial or textured
// transmission, a metallic one or an ior past the dielectric's range
// stay pbr with the warning naming the extensions, and a scene material
// of the same name takes the place of any of them.
func TestMeshGLTFGlass(t *testing.T) {
	pbr := func(color [4]float64, metallic, roughness float64) *gltf.PBRMetallicRoughness {
		return &gltf.PBRMetallicRoughness{BaseColorFactor: &color, MetallicFactor: &metallic, RoughnessFactor: &roughness}
	}
	ext := func(kv ...string) gltf.Extensions {
		e := gltf.Extensions{}
		for i := 0; i < len(kv); i += 2 {
			e[kv[i]] = json.RawMessage(kv[i+1])
		}
		return e
	}
	for _, tc := range []struct {
		name         string
		mat          *gltf.Material
		materials    string
		want         tracer.Material // Kind, IOR, Roughness, Color, AttenuationColor, AttenuationDistance compared
		warn, nowarn string          // in the warning ("" for none), and not in it
	}{
		{
			name: "glass",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{0.9, 1, 0.8, 1}, 0, 0.2),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`, "KHR_materials_ior", `{"ior": 1.33}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.33, Roughness: 0.2, Color: mgl32.Vec3{0.9, 1, 0.8}},
		},
		{
			name: "default ior, a volume that absorbs",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`,
					"KHR_materials_volume", `{"thicknessFactor": 0.1, "attenuationDistance": 2, "attenuationColor": [1, 0.5, 0.5]}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.5, Color: mgl32.Vec3{1, 1, 1},
				AttenuationColor: mgl32.Vec3{1, 0.5, 0.5}, AttenuationDistance: 2},
		},
		{
			name: "a volume that absorbs all of a channel",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`,
					"KHR_materials_volume", `{"attenuationDistance": 0.01, "attenuationColor": [0, 0.5, 1]}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.5, Color: mgl32.Vec3{1, 1, 1},
				AttenuationColor: mgl32.Vec3{0, 0.5, 1}, AttenuationDistance: 0.01},
		},
		{
			name: "a white volume, a volume of no distance: no absorption",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`,
					"KHR_materials_volume", `{"attenuationDistance": 3, "attenuationColor": [1, 1, 1]}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.5, Color: mgl32.Vec3{1, 1, 1}},
		},
		{
			name: "a volume of colour without a distance: no absorption",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`,
					"KHR_materials_volume", `{"attenuationColor": [0.2, 1, 1]}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.5, Color: mgl32.Vec3{1, 1, 1}},
		},
		{
			name: "a volume that does not absorb",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`, "KHR_materials_volume", `{"thicknessFactor": 1}`)},
			want: tracer.Material{Kind: tracer.MaterialDielectric, IOR: 1.5, Color: mgl32.Vec3{1, 1, 1}},
		},
		{
			name: "partial",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0.5),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 0.5}`)},
			want: tracer.Material{Kind: tracer.MaterialPBR, Roughness: 0.5, Color: mgl32.Vec3{1, 1, 1}},
			warn: "drawn without KHR_materials_transmission",
		},
		{
			name: "no transmission (factor 0, glTF's default): no warning",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0.5),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 0}`)},
			want: tracer.Material{Kind: tracer.MaterialPBR, Roughness: 0.5, Color: mgl32.Vec3{1, 1, 1}},
		},
		{
			name: "textured",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0.5),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1, "transmissionTexture": {"index": 0}}`)},
			want: tracer.Material{Kind: tracer.MaterialPBR, Roughness: 0.5, Color: mgl32.Vec3{1, 1, 1}},
			warn: "drawn without KHR_materials_transmission",
		},
		{
			name: "metallic (glTF's default metallicFactor is 1)",
			mat:  &gltf.Material{Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`)},
			want: tracer.Material{Kind: tracer.MaterialPBR, Roughness: 1, Color: mgl32.Vec3{1, 1, 1}},
			warn: "drawn without KHR_materials_transmission",
		},
		{
			name: "ior past the dielectric's",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`, "KHR_materials_ior", `{"ior": 5}`)},
			// Not glass, its metallic-roughness part has the ior's F0
			// (0.444), which KHR_materials_ior gives every material.
			want: tracer.Material{Kind: tracer.MaterialPBR, Color: mgl32.Vec3{1, 1, 1},
				SpecularF0: mgl32.Vec3{4.0 / 9, 4.0 / 9, 4.0 / 9}, SpecularF90: 1, DielectricSpecular: 1},
			warn: "drawn without KHR_materials_transmission,",
		},
		{
			name: "the scene's material in its place",
			mat: &gltf.Material{PBRMetallicRoughness: pbr([4]float64{1, 1, 1, 1}, 0, 0),
				Extensions: ext("KHR_materials_transmission", `{"transmissionFactor": 1}`)},
			materials: `{"glass": {"type": "metal"}}`,
			want:      tracer.Material{Kind: tracer.MaterialMetal, Color: defaultAlbedo},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			tc.mat.Name = "glass"
			doc.Materials = []*gltf.Material{tc.mat}
			writeGLTF(t, filepath.Join(dir, "glass.gltf"), doc)
			path := writeMeshScene(t, dir, tc.materials, `"file": "glass.gltf"`)
			log := captureWarnings(t)
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			m := s.Materials[s.Meshes[0].Material]
			got := tracer.Material{Kind: m.Kind, IOR: m.IOR, Roughness: m.Roughness, Color: m.Color,
				AttenuationColor: m.AttenuationColor, AttenuationDistance: m.AttenuationDistance,
				SpecularF0: m.SpecularF0, SpecularF90: m.SpecularF90, DielectricSpecular: m.DielectricSpecular}
			if got != tc.want {
				t.Errorf("material %+v, want %+v", got, tc.want)
			}
			w := strings.TrimSpace(log.String())
			switch {
			case tc.warn == "" && w != "":
				t.Errorf("warning %q, want none", w)
			case tc.warn != "" && !strings.Contains(w, tc.warn):
				t.Errorf("warning %q, want one with %q", w, tc.warn)
			case tc.nowarn != "" && strings.Contains(w, tc.nowarn):
				t.Errorf("warning %q names %s, which is drawn", w, tc.nowarn)
			}
		})
	}
}

// TestMeshGLTFGlassVolumeScale: glTF gives attenuationDistance in the
// mesh's own units, so a node that scales the mesh scales the distance
// (by the cube root of its determinant: a uniform scale's factor, the
// volume's scale for a non-uniform one), and so does the scene object's
// transform, as it scales the file's lights; each placement at another
// scale draws a copy of the material. A scene material of the glass's
// name is in the scene's units and stays as it is.
func TestMeshGLTFGlassVolumeScale(t *testing.T) {
	zero := 0.0
	for _, tc := range []struct {
		name      string
		xf        string // the scene object's transform
		materials string
		want      []float32 // the distance of each node's mesh
	}{
		{name: "nodes", want: []float32{2, 6, 4}},
		{name: "nodes and the object's scale", xf: `, "transform": {"scale": 10}`, want: []float32{20, 60, 40}},
		{name: "a scene material in its place", xf: `, "transform": {"scale": 10}`,
			materials: `{"glass": {"type": "dielectric", "attenuation_color": [1, 0.5, 0.5], "attenuation_distance": 7}}`,
			want:      []float32{7, 7, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			doc.Materials = []*gltf.Material{{Name: "glass", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: &zero},
				Extensions: gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 1}`),
					"KHR_materials_volume": json.RawMessage(`{"attenuationDistance": 2, "attenuationColor": [1, 0.5, 0.5]}`)}}}
			doc.Nodes = []*gltf.Node{
				{Mesh: gltf.Index(0)},
				{Mesh: gltf.Index(0), Scale: [3]float64{3, 3, 3}, Translation: [3]float64{5, 0, 0}},
				{Mesh: gltf.Index(0), Scale: [3]float64{1, 2, 4}, Rotation: [4]float64{0, 0.6, 0, 0.8}},
			}
			doc.Scenes[0].Nodes = []int{0, 1, 2}
			writeGLTF(t, filepath.Join(dir, "glass.gltf"), doc)
			path := writeMeshScene(t, dir, tc.materials, `"file": "glass.gltf"`+tc.xf)
			log := captureWarnings(t)
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.TrimSpace(log.String()); w != "" {
				t.Errorf("warning %q, want none", w)
			}
			var got []float32
			for _, m := range s.Meshes {
				mat := s.Materials[m.Material]
				if mat.Kind != tracer.MaterialDielectric || mat.AttenuationColor != (mgl32.Vec3{1, 0.5, 0.5}) {
					t.Errorf("material %+v, want the absorbing glass", mat)
				}
				got = append(got, mat.AttenuationDistance)
			}
			if !slices.EqualFunc(got, tc.want, func(a, b float32) bool { return math.Abs(float64(a/b-1)) < 1e-6 }) {
				t.Errorf("distances %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMeshGLTFGlassRequired: a file may require the glass extensions;
// its glass is drawn as glass, while a material it draws that needs one
// of them and is not glass (partial transmission, an ior without
// transmission) is an error naming the material, unless a scene
// material of its name takes its place.
func TestMeshGLTFGlassRequired(t *testing.T) {
	zero, half := 0.0, 0.5
	pbr := &gltf.PBRMetallicRoughness{MetallicFactor: &zero, RoughnessFactor: &half}
	for _, tc := range []struct {
		name      string
		required  []string
		ext       gltf.Extensions
		materials string
		want      tracer.MaterialKind
		err       string
	}{
		{
			name:     "glass",
			required: []string{"KHR_materials_transmission", "KHR_materials_ior", "KHR_materials_volume"},
			ext: gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 1}`),
				"KHR_materials_ior": json.RawMessage(`{"ior": 1.4}`), "KHR_materials_volume": json.RawMessage(`{}`)},
			want: tracer.MaterialDielectric,
		},
		{
			name:     "partial transmission",
			required: []string{"KHR_materials_transmission"},
			ext:      gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 0.5}`)},
			err:      `materials[0] ("frosted") needs KHR_materials_transmission, which the file requires and trace reads only on glass`,
		},
		{
			name:     "transmission 0, glTF's default",
			required: []string{"KHR_materials_transmission", "KHR_materials_volume"},
			ext: gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 0}`),
				"KHR_materials_volume": json.RawMessage(`{"thicknessFactor": 1}`)},
			want: tracer.MaterialPBR,
		},
		{
			// Read as the dielectric F0 it implies (TestGLTFSpecular).
			name:     "ior without transmission",
			required: []string{"KHR_materials_ior"},
			ext:      gltf.Extensions{"KHR_materials_ior": json.RawMessage(`{"ior": 2}`)},
			want:     tracer.MaterialPBR,
		},
		{
			name:      "partial transmission, the scene's material in its place",
			required:  []string{"KHR_materials_transmission"},
			ext:       gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 0.5}`)},
			materials: `{"frosted": {"type": "diffuse"}}`,
			want:      tracer.MaterialDiffuse,
		},
		{
			name: "partial transmission, not required",
			ext:  gltf.Extensions{"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 0.5}`)},
			want: tracer.MaterialPBR,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := gltfScene(t)
			doc := newGLTFDoc(gltfTriangle, nil)
			doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
			doc.Materials = []*gltf.Material{{Name: "frosted", PBRMetallicRoughness: pbr, Extensions: tc.ext}}
			doc.ExtensionsRequired = tc.required
			for e := range tc.ext {
				doc.ExtensionsUsed = append(doc.ExtensionsUsed, e)
			}
			writeGLTF(t, filepath.Join(dir, "frosted.gltf"), doc)
			path := writeMeshScene(t, dir, tc.materials, `"file": "frosted.gltf"`)
			captureWarnings(t)
			s, err := Load(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "objects[0].file") {
					t.Fatalf("error %v, want one at objects[0].file with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Materials[s.Meshes[0].Material].Kind; got != tc.want {
				t.Errorf("material kind %v, want %v", got, tc.want)
			}
		})
	}
}

// writeMeshScene writes dir/scene.json: a camera, the materials (a JSON
// object; "" for none) and one mesh object of the members file (its
// "file" and any others), and returns its path.
func writeMeshScene(t *testing.T, dir, materials, file string) string {
	t.Helper()
	if materials == "" {
		materials = "{}"
	}
	path := filepath.Join(dir, "scene.json")
	scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
		"materials": ` + materials + `, "objects": [{"type": "mesh", ` + file + `}]}`
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
