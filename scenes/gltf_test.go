package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// The glTF fixtures are built in code with qmuntal/gltf and written to a
// temporary scene folder, so each test shows the document it loads.

// gltfTriangle is the triangle most fixtures hold, in the mesh's own
// coordinates.
var gltfTriangle = [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}

// newGLTFDoc returns a document with one mesh (meshes[0]) of one TRIANGLES
// primitive over positions (with uint16 indices when indices is not nil),
// and one node (nodes[0]) in the default scene that holds it.
func newGLTFDoc(positions [][3]float32, indices []uint16) *gltf.Document {
	doc := gltf.NewDocument()
	prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{
		gltf.POSITION: modeler.WritePosition(doc, positions),
	}}
	if indices != nil {
		prim.Indices = gltf.Index(modeler.WriteIndices(doc, indices))
	}
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{prim}}}
	doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	return doc
}

// gltfScene returns a temporary scene folder and its assets.
func gltfScene(t *testing.T) (string, *assets) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scene")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := newAssets(filepath.Join(dir, "scene.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	return dir, a
}

// writeGLTF writes doc to path: as GLB when path ends in .glb, with
// buffer 0 as its BIN chunk; otherwise as JSON, where buffers without a
// URI are embedded as data: URIs. It returns path.
func writeGLTF(t *testing.T, path string, doc *gltf.Document) string {
	t.Helper()
	glb := strings.HasSuffix(path, ".glb")
	if !glb {
		for _, b := range doc.Buffers {
			if b.URI == "" {
				b.EmbeddedResource()
			}
		}
	}
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = glb
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadGLTFDoc writes doc to model.gltf (or model.glb when glb) in a new
// scene folder and loads it.
func loadGLTFDoc(t *testing.T, doc *gltf.Document, glb bool) (*importedMesh, error) {
	t.Helper()
	dir, a := gltfScene(t)
	name := "model.gltf"
	if glb {
		name = "model.glb"
	}
	return loadGLTF(a, writeGLTF(t, filepath.Join(dir, name), doc))
}

// mustLoadGLTFDoc is loadGLTFDoc for a document that must load.
func mustLoadGLTFDoc(t *testing.T, doc *gltf.Document, glb bool) *importedMesh {
	t.Helper()
	m, err := loadGLTFDoc(t, doc, glb)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The positions are computed in float64 and rounded once; the expected
// values below are small integers or simple fractions, so a tolerance of
// a few float32 ulps at 1 is enough.
const gltfTol = 1e-6

func closeVec3(a, b mgl32.Vec3) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > gltfTol {
			return false
		}
	}
	return true
}

// checkPositions checks a mesh's positions against want.
func checkPositions(t *testing.T, m tracer.MeshDesc, want []mgl32.Vec3) {
	t.Helper()
	if len(m.Positions) != len(want) {
		t.Fatalf("%d positions, want %d", len(m.Positions), len(want))
	}
	for i := range want {
		if !closeVec3(m.Positions[i], want[i]) {
			t.Errorf("position %d = %v, want %v", i, m.Positions[i], want[i])
		}
	}
}

// TestLoadGLTFTranslation loads a triangle whose node is translated, from
// a .gltf with an embedded buffer and no material.
func TestLoadGLTFTranslation(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Nodes[0].Translation = [3]float64{1, 2, 3}
	m := mustLoadGLTFDoc(t, doc, false)
	if len(m.meshes) != 1 || len(m.materials) != 1 {
		t.Fatalf("%d meshes, %d materials; want 1, 1 (glTF's default material)", len(m.meshes), len(m.materials))
	}
	if d := m.materials[0]; !d.Default || !d.PBR || d.Color != (mgl32.Vec3{1, 1, 1}) || d.Metallic != 1 || d.Roughness != 1 || d.Image != nil {
		t.Errorf("the default material is %+v, want glTF's: pbr, factors 1, no texture", d)
	}
	mesh := m.meshes[0]
	checkPositions(t, mesh, []mgl32.Vec3{{1, 2, 3}, {2, 2, 3}, {1, 3, 3}})
	if want := []uint32{0, 1, 2}; !slices.Equal(mesh.Indices, want) {
		t.Errorf("indices %v, want %v", mesh.Indices, want)
	}
	if want := []int32{0}; !slices.Equal(mesh.Materials, want) || mesh.Material != 0 {
		t.Errorf("materials %v, material %d; want %v, 0 (glTF's default material)", mesh.Materials, mesh.Material, want)
	}
	if mesh.Normals != nil || mesh.UVs != nil {
		t.Errorf("normals %v, uvs %v; want none", mesh.Normals, mesh.UVs)
	}
}

// TestLoadGLTFHierarchy composes a parent's rotation and non-uniform
// scale with a child's translation, for positions and for normals (which
// take the inverse transpose).
func TestLoadGLTFHierarchy(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	s := float32(1 / math.Sqrt2)
	doc.Meshes[0].Primitives[0].Attributes[gltf.NORMAL] = modeler.WriteNormal(doc, [][3]float32{{s, s, 0}, {s, s, 0}, {0, 0, 1}})
	// nodes[0] (root): rotate 90° about +z, after scaling x by 2.
	// nodes[1] (child): translate by (1, 0, 0); holds the mesh.
	doc.Nodes = []*gltf.Node{
		{Children: []int{1}, Rotation: [4]float64{0, 0, math.Sqrt2 / 2, math.Sqrt2 / 2}, Scale: [3]float64{2, 1, 1}},
		{Mesh: gltf.Index(0), Translation: [3]float64{1, 0, 0}},
	}
	m := mustLoadGLTFDoc(t, doc, false)
	if len(m.meshes) != 1 {
		t.Fatalf("%d meshes, want 1", len(m.meshes))
	}
	mesh := m.meshes[0]
	// p → R·S·(p + (1, 0, 0)): (x, y, z) → S → (2x, y, z) → R → (−y, 2x, z).
	checkPositions(t, mesh, []mgl32.Vec3{{0, 2, 0}, {0, 4, 0}, {-1, 2, 0}})
	// n → R·S⁻¹·n: (1, 1, 0)/√2 → (0.5, 1, 0) → (−1, 0.5, 0), normalised.
	l := float32(math.Sqrt(1.25))
	want := []mgl32.Vec3{{-1 / l, 0.5 / l, 0}, {-1 / l, 0.5 / l, 0}, {0, 0, 1}}
	for i := range want {
		if !closeVec3(mesh.Normals[i], want[i]) {
			t.Errorf("normal %d = %v, want %v", i, mesh.Normals[i], want[i])
		}
	}
	if want := []uint32{0, 1, 2}; !slices.Equal(mesh.Indices, want) {
		t.Errorf("indices %v, want %v (the determinant is positive)", mesh.Indices, want)
	}
}

// TestLoadGLTFMirror checks that a node with a negative determinant
// reverses the winding, and that a node matrix is applied.
func TestLoadGLTFMirror(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, []uint16{0, 1, 2})
	doc.Nodes[0].Matrix = [16]float64{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1}
	mesh := mustLoadGLTFDoc(t, doc, false).meshes[0]
	checkPositions(t, mesh, []mgl32.Vec3{{5, 0, 0}, {4, 0, 0}, {5, 1, 0}})
	if want := []uint32{0, 2, 1}; !slices.Equal(mesh.Indices, want) {
		t.Errorf("indices %v, want %v", mesh.Indices, want)
	}
}

// TestLoadGLTFBinary round-trips a .glb: positions, indices, texture
// coordinates (v flipped) and two nodes instancing one mesh, and the
// same document as .gltf gives the same meshes.
func TestLoadGLTFBinary(t *testing.T) {
	build := func() *gltf.Document {
		doc := newGLTFDoc([][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, []uint16{0, 1, 2, 0, 2, 3})
		doc.Meshes[0].Primitives[0].Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {1, 0.25}, {0, 1}})
		doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0), Translation: [3]float64{0, 0, -1}})
		doc.Scenes[0].Nodes = []int{0, 1}
		return doc
	}
	glb := mustLoadGLTFDoc(t, build(), true)
	if len(glb.meshes) != 2 {
		t.Fatalf("%d meshes, want 2", len(glb.meshes))
	}
	checkPositions(t, glb.meshes[1], []mgl32.Vec3{{0, 0, -1}, {1, 0, -1}, {1, 1, -1}, {0, 1, -1}})
	mesh := glb.meshes[0]
	checkPositions(t, mesh, []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}})
	if want := []uint32{0, 1, 2, 0, 2, 3}; !slices.Equal(mesh.Indices, want) {
		t.Errorf("indices %v, want %v", mesh.Indices, want)
	}
	if want := []mgl32.Vec2{{0, 1}, {1, 1}, {1, 0.75}, {0, 0}}; !slices.Equal(mesh.UVs, want) {
		t.Errorf("uvs %v, want %v (v flipped)", mesh.UVs, want)
	}
	if want := []int32{0, 0}; !slices.Equal(mesh.Materials, want) { // glTF's default material
		t.Errorf("materials %v, want %v", mesh.Materials, want)
	}
	if &glb.meshes[0].Indices[0] == &glb.meshes[1].Indices[0] {
		t.Error("two instances share their indices")
	}
	text := mustLoadGLTFDoc(t, build(), false)
	for i := range text.meshes {
		a, b := text.meshes[i], glb.meshes[i]
		if !slices.Equal(a.Positions, b.Positions) || !slices.Equal(a.Indices, b.Indices) || !slices.Equal(a.UVs, b.UVs) {
			t.Errorf("meshes[%d] differs between .gltf and .glb:\n%+v\n%+v", i, a, b)
		}
	}
}

// TestLoadGLTFExternalBuffer reads a buffer from a .bin file next to the
// .gltf (in a subfolder, with a ../ that stays in the scene's folder and
// a percent-encoded space).
func TestLoadGLTFExternalBuffer(t *testing.T) {
	dir, a := gltfScene(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	if err := os.WriteFile(filepath.Join(dir, "shared data.bin"), doc.Buffers[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc.Buffers[0].URI = "../shared%20data.bin"
	doc.Buffers[0].Data = nil // written above; the encoder skips it
	m, err := loadGLTF(a, writeGLTF(t, filepath.Join(dir, "models", "model.gltf"), doc))
	if err != nil {
		t.Fatal(err)
	}
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	if a.used == 0 {
		t.Error("the buffer did not count against the byte budget")
	}
}

// TestLoadGLTFBufferOutside refuses a buffer outside the scene's folder.
func TestLoadGLTFBufferOutside(t *testing.T) {
	dir, a := gltfScene(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	if err := os.WriteFile(filepath.Join(dir, "..", "outside.bin"), doc.Buffers[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc.Buffers[0].URI = "../outside.bin"
	doc.Buffers[0].Data = nil
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	_, err := loadGLTF(a, path)
	checkGLTFError(t, err, path, `buffers[0]: "../outside.bin" is outside the scene's folder`)
}

// TestLoadGLTFMissingBuffer names the missing file, and the error wraps
// fs.ErrNotExist.
func TestLoadGLTFMissingBuffer(t *testing.T) {
	dir, a := gltfScene(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Buffers[0].URI = "missing.bin"
	doc.Buffers[0].Data = nil
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	_, err := loadGLTF(a, path)
	checkGLTFError(t, err, path, `buffers[0]: "missing.bin": `)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) is false", err)
	}
}

// checkGLTFError checks that err is an *Error for the file path whose
// message starts with msg.
func checkGLTFError(t *testing.T, err error, path, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", msg)
	}
	e, ok := errors.AsType[*Error](err)
	if !ok {
		t.Fatalf("error %T is not an *Error: %v", err, err)
	}
	t.Log(err)
	if e.File != path || e.Line != 0 || e.Col != 0 || e.Path != "" {
		t.Errorf("error is at %q:%d:%d path %q, want %q:0:0, no path", e.File, e.Line, e.Col, e.Path, path)
	}
	if !strings.HasPrefix(e.Msg, msg) {
		t.Errorf("error message\n%q\ndoes not start with\n%q", e.Msg, msg)
	}
}

// checkGLTFDocError writes doc to model.gltf in a new scene folder, loads
// it and checks the error as checkGLTFError does.
func checkGLTFDocError(t *testing.T, doc *gltf.Document, msg string) {
	t.Helper()
	dir, a := gltfScene(t)
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	_, err := loadGLTF(a, path)
	checkGLTFError(t, err, path, msg)
}

// checkGLTFOverBudget is checkGLTFDocError with the scene's MaxAssetBytes
// spent but for the file itself and spare bytes more (fewer than what
// doc decodes to).
func checkGLTFOverBudget(t *testing.T, doc *gltf.Document, spare int64, msg string) {
	t.Helper()
	dir, a := gltfScene(t)
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	a.used = MaxAssetBytes - fi.Size() - spare
	_, err = loadGLTF(a, path)
	checkGLTFError(t, err, path, msg)
}

// TestLoadGLTFMaterials converts baseColorFactor, names unnamed materials
// by index, and gives each triangle its material.
func TestLoadGLTFMaterials(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, &gltf.Primitive{
		Attributes: doc.Meshes[0].Primitives[0].Attributes,
		Material:   gltf.Index(1),
	})
	doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
	doc.Materials = []*gltf.Material{
		{Name: "red", PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{0.8, 0.1, 0.2, 0.5}}},
		{},
	}
	m := mustLoadGLTFDoc(t, doc, false)
	want := []importedMaterial{
		// glTF's defaults: metallic 1, roughness 1.
		{Name: "red", HasColor: true, PBR: true, Color: mgl32.Vec3{0.8, 0.1, 0.2}, Metallic: 1, Roughness: 1},
		{Name: "material 1", HasColor: true, PBR: true, Color: mgl32.Vec3{1, 1, 1}, Metallic: 1, Roughness: 1},
	}
	if !reflect.DeepEqual(m.materials, want) {
		t.Errorf("materials\n%+v, want\n%+v", m.materials, want)
	}
	if len(m.meshes) != 2 || m.meshes[0].Materials[0] != 0 || m.meshes[1].Materials[0] != 1 {
		t.Errorf("meshes %+v: want two, of materials 0 and 1", m.meshes)
	}
}

// tinyPNG is a 2×2 PNG: red, green on the top row; blue, white below.
func tinyPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.NRGBA{255, 0, 0, 255})
	img.Set(1, 0, color.NRGBA{0, 255, 0, 255})
	img.Set(0, 1, color.NRGBA{0, 0, 255, 255})
	img.Set(1, 1, color.NRGBA{255, 255, 255, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err) // writing to a bytes.Buffer does not fail
	}
	return buf.Bytes()
}

// texturedGLTFDoc returns a triangle with texture coordinates and a
// material whose base colour texture is tinyPNG, in a buffer view.
func texturedGLTFDoc() *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}})
	prim.Material = gltf.Index(0)
	src, err := modeler.WriteImage(doc, "tiny", "image/png", bytes.NewReader(tinyPNG()))
	if err != nil {
		panic(err) // reading a bytes.Reader does not fail
	}
	doc.Samplers = []*gltf.Sampler{{}}
	doc.Textures = []*gltf.Texture{{Source: gltf.Index(src), Sampler: gltf.Index(0)}}
	doc.Materials = []*gltf.Material{{PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor:  &[4]float64{0.5, 0.25, 1, 1},
		BaseColorTexture: &gltf.TextureInfo{Index: 0},
	}}}
	return doc
}

// TestLoadGLTFTexture decodes a base colour texture (sRGB 0 and 255 are
// linear 0 and 1), keeps baseColorFactor as its tint (applied at shading
// time, not to a copy of the texels), and flips v.
func TestLoadGLTFTexture(t *testing.T) {
	for _, glb := range []bool{false, true} {
		m := mustLoadGLTFDoc(t, texturedGLTFDoc(), glb)
		if len(m.materials) != 1 || m.materials[0].Image == nil {
			t.Fatalf("materials %+v: want one, with an image", m.materials)
		}
		img := m.materials[0].Image
		want := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}
		if img.Width != 2 || img.Height != 2 || !slices.Equal(img.Pix, want) {
			t.Errorf("image %d×%d %v, want 2×2 %v", img.Width, img.Height, img.Pix, want)
		}
		if tint := (mgl32.Vec3{0.5, 0.25, 1}); m.materials[0].Color != tint {
			t.Errorf("tint %v, want %v", m.materials[0].Color, tint)
		}
		if want := []mgl32.Vec2{{0, 1}, {1, 1}, {0, 0}}; !slices.Equal(m.meshes[0].UVs, want) {
			t.Errorf("uvs %v, want %v", m.meshes[0].UVs, want)
		}
	}
}

// TestLoadGLTFTextureFile reads a base colour texture from a file next to
// the .gltf.
func TestLoadGLTFTextureFile(t *testing.T) {
	dir, a := gltfScene(t)
	if err := os.WriteFile(filepath.Join(dir, "tiny.png"), tinyPNG(), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := texturedGLTFDoc()
	doc.Images[0] = &gltf.Image{URI: "tiny.png"}
	m, err := loadGLTF(a, writeGLTF(t, filepath.Join(dir, "model.gltf"), doc))
	if err != nil {
		t.Fatal(err)
	}
	if img := m.materials[0].Image; img == nil || img.Pix[0] != 1 {
		t.Errorf("image %+v: want 2×2, starting with 1", img)
	}

	doc.Images[0] = &gltf.Image{URI: "nothere.png"}
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	_, err = loadGLTF(a, path)
	checkGLTFError(t, err, path, `meshes[0].primitives[0]: images[0]: "nothere.png": `)
}

// TestLoadGLTFErrors checks what the importer refuses, and that each
// message names the element.
func TestLoadGLTFErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(doc *gltf.Document)
		glb  bool
		msg  string
	}{
		{"required extension", func(doc *gltf.Document) {
			doc.ExtensionsUsed = []string{"KHR_texture_basisu"}
			doc.ExtensionsRequired = []string{"KHR_texture_basisu"}
		}, false, `extensionsRequired: "KHR_texture_basisu" is not supported`},
		{"directional light without direction", func(doc *gltf.Document) {
			addGLTFLights(doc, `{"type": "directional", "name": "Sun", "intensity": 3}`)
			doc.Nodes[0].Extensions = gltf.Extensions{"KHR_lights_punctual": json.RawMessage(`{"light": 0}`)}
			doc.Nodes[0].Scale = [3]float64{1, 1, 0}
		}, false, `nodes[0].extensions.KHR_lights_punctual: lights[0] "Sun": the node transforms leave the directional light no direction`},
		{"light index", func(doc *gltf.Document) {
			addGLTFLights(doc, `{"type": "point"}`)
			doc.Nodes[0].Extensions = gltf.Extensions{"KHR_lights_punctual": json.RawMessage(`{"light": 1}`)}
		}, false, "nodes[0].extensions.KHR_lights_punctual: lights[1] does not exist (the file has 1)"},
		{"spot cone", func(doc *gltf.Document) {
			addGLTFLights(doc, `{"type": "spot", "spot": {"innerConeAngle": 0.8, "outerConeAngle": 0.5}}`)
		}, false, "extensions.KHR_lights_punctual.lights[0]: spot: innerConeAngle 0.8 and outerConeAngle 0.5 must satisfy"},
		{"spot without spot", func(doc *gltf.Document) { addGLTFLights(doc, `{"type": "spot"}`) },
			false, "extensions.KHR_lights_punctual.lights[0]: a spot light without spot"},
		{"light type", func(doc *gltf.Document) { addGLTFLights(doc, `{"type": "area"}`) },
			false, `extensions.KHR_lights_punctual.lights[0]: type "area" is not one of`},
		{"light intensity", func(doc *gltf.Document) { addGLTFLights(doc, `{"type": "point", "intensity": -1}`) },
			false, "extensions.KHR_lights_punctual.lights[0]: intensity -1 must be finite and ≥ 0"},
		{"sparse count", func(doc *gltf.Document) {
			doc.Accessors[0].Sparse = &gltf.Sparse{Count: 4, Indices: gltf.SparseIndices{BufferView: 0, ComponentType: gltf.ComponentUbyte}}
		}, false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: sparse.count 4 is not in [1, 3] (the accessor's count)"},
		{"sparse values", func(doc *gltf.Document) {
			doc.Accessors[0].Sparse = &gltf.Sparse{Count: 3, Indices: gltf.SparseIndices{BufferView: 0, ComponentType: gltf.ComponentUbyte}, Values: gltf.SparseValues{BufferView: 0, ByteOffset: 12}}
		}, false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: sparse.values: 3 elements of 12 bytes, 12 apart from offset 12, do not fit in bufferViews[0] (36 bytes)"},
		{"no bufferView, too many", func(doc *gltf.Document) {
			doc.Accessors[0].BufferView = nil
			doc.Accessors[0].Count = 1 << 40
		}, false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: 1099511627776 elements of 12 bytes without a bufferView: more than the 36 bytes of the file's buffers"},
		{"no bufferView, more bytes than the buffers", func(doc *gltf.Document) {
			// 4 elements of 12 bytes where the buffers hold 36: each
			// element asks for its bytes, not for one.
			doc.Accessors[0].BufferView = nil
			doc.Accessors[0].Count = 4
		}, false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: 4 elements of 12 bytes without a bufferView: more than the 36 bytes of the file's buffers"},
		{"quantized positions", func(doc *gltf.Document) {
			doc.Meshes[0].Primitives[0].Attributes[gltf.POSITION] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]uint16{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
		}, false, "meshes[0].primitives[0]: POSITION is UNSIGNED_SHORT VEC3, not supported (only FLOAT VEC3; KHR_mesh_quantization, which the file does not list in extensionsUsed, would allow BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT)"},
		{"no position", func(doc *gltf.Document) {
			attr := doc.Meshes[0].Primitives[0].Attributes
			attr[gltf.NORMAL] = attr[gltf.POSITION]
			delete(attr, gltf.POSITION)
		}, false, "meshes[0].primitives[0]: no POSITION attribute"},
		{"nan", func(doc *gltf.Document) {
			i := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {float32(math.NaN()), 0, 0}, {0, 1, 0}})
			doc.Accessors[i].Min, doc.Accessors[i].Max = nil, nil // JSON has no NaN
			doc.Meshes[0].Primitives[0].Attributes[gltf.POSITION] = i
		}, true, "meshes[0].primitives[0]: POSITION 1 is not finite"},
		{"index out of range", func(doc *gltf.Document) {
			doc.Meshes[0].Primitives[0].Indices = gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 3}))
		}, false, "meshes[0].primitives[0]: index 3 is out of range (POSITION has 3 vertices), at element 2 of the indices"},
		{"accessor past its buffer view", func(doc *gltf.Document) { doc.Accessors[0].Count = 4 },
			false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: 4 elements of 12 bytes"},
		{"buffer view past its buffer", func(doc *gltf.Document) { doc.BufferViews[0].ByteLength = 1000 },
			false, "meshes[0].primitives[0].attributes.POSITION: accessors[0]: bufferViews[0] is outside its buffer"},
		{"missing material", func(doc *gltf.Document) { doc.Meshes[0].Primitives[0].Material = gltf.Index(3) },
			false, "meshes[0].primitives[0]: materials[3] does not exist"},
		{"cycle", func(doc *gltf.Document) { doc.Nodes[0].Children = []int{0} },
			false, "nodes[0].children: nodes[0] is reached twice"},
		{"texCoord 2", func(doc *gltf.Document) {
			*doc = *texturedGLTFDoc()
			doc.Materials[0].PBRMetallicRoughness.BaseColorTexture.TexCoord = 2
		}, false, "meshes[0].primitives[0]: materials[0].pbrMetallicRoughness.baseColorTexture: texCoord 2 is not supported (only 0 and 1)"},
		{"texCoord 1 without TEXCOORD_1", func(doc *gltf.Document) {
			*doc = *texturedGLTFDoc()
			doc.Materials[0].PBRMetallicRoughness.BaseColorTexture.TexCoord = 1
		}, false, "meshes[0].primitives[0]: materials[0] has a texture with texCoord 1, but the primitive has no TEXCOORD_1 attribute"},
		{"COLOR_0 vec2", func(doc *gltf.Document) {
			doc.Meshes[0].Primitives[0].Attributes[gltf.COLOR_0] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}})
		}, false, "meshes[0].primitives[0].attributes.COLOR_0 is FLOAT VEC2, not supported (only VEC3 or VEC4)"},
		{"COLOR_0 not normalized", func(doc *gltf.Document) {
			i := modeler.WriteColor(doc, [][3]uint8{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
			doc.Accessors[i].Normalized = false
			doc.Meshes[0].Primitives[0].Attributes[gltf.COLOR_0] = i
		}, false, "meshes[0].primitives[0].attributes.COLOR_0 is UNSIGNED_BYTE VEC3 but not normalized"},
		{"COLOR_0 outside [0, 1]", func(doc *gltf.Document) {
			doc.Meshes[0].Primitives[0].Attributes[gltf.COLOR_0] = modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {2, 0, 0}, {0, 1, 0}})
		}, false, "meshes[0].primitives[0].attributes.COLOR_0: element 1, [2 0 0], is outside [0, 1]"},
		{"texture transform scale 0", func(doc *gltf.Document) {
			*doc = *texturedGLTFDoc()
			doc.ExtensionsUsed = []string{"KHR_texture_transform"}
			doc.Materials[0].PBRMetallicRoughness.BaseColorTexture.Extensions = gltf.Extensions{"KHR_texture_transform": map[string]any{"scale": []float64{2, 0}}}
		}, false, "meshes[0].primitives[0]: materials[0].pbrMetallicRoughness.baseColorTexture: KHR_texture_transform: a scale of 0"},
		{"texture transform texCoord 1", func(doc *gltf.Document) {
			*doc = *texturedGLTFDoc()
			doc.ExtensionsUsed = []string{"KHR_texture_transform"}
			doc.Materials[0].PBRMetallicRoughness.BaseColorTexture.Extensions = gltf.Extensions{"KHR_texture_transform": map[string]any{"texCoord": 2}}
		}, false, "meshes[0].primitives[0]: materials[0].pbrMetallicRoughness.baseColorTexture: texCoord 2 is not supported (only 0 and 1)"},
		{"required extension unknown", func(doc *gltf.Document) {
			doc.ExtensionsRequired = []string{"KHR_texture_transform", "KHR_texture_basisu"}
		}, false, `extensionsRequired: "KHR_texture_basisu" is not supported (supported: EXT_meshopt_compression, EXT_texture_webp, KHR_draco_mesh_compression, KHR_lights_punctual, KHR_materials_clearcoat, KHR_materials_emissive_strength, KHR_materials_ior, KHR_materials_pbrSpecularGlossiness, KHR_materials_sheen, KHR_materials_specular, KHR_materials_transmission, KHR_materials_unlit, KHR_materials_volume, KHR_mesh_quantization, KHR_meshopt_compression, KHR_texture_transform)`},
		{"not an image", func(doc *gltf.Document) {
			*doc = *texturedGLTFDoc()
			doc.Images[0] = &gltf.Image{URI: "data:image/png;base64,AAAA"}
		}, false, "meshes[0].primitives[0]: images[0]: not an image"},
		{"http buffer", func(doc *gltf.Document) { doc.Buffers[0].URI = "https://example.com/model.bin" },
			false, `buffers[0]: uri "https://example.com/model.bin": only relative file names and data: URIs are supported`},
		{"short buffer", func(doc *gltf.Document) {
			doc.Buffers[0].EmbeddedResource()
			doc.Buffers[0].ByteLength += 8
		}, false, "buffers[0]: byteLength is 44 but the data has only 36 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := newGLTFDoc(gltfTriangle, nil)
			tt.edit(doc)
			dir, a := gltfScene(t)
			name := "model.gltf"
			if tt.glb {
				name = "model.glb"
			}
			path := writeGLTF(t, filepath.Join(dir, name), doc)
			m, err := loadGLTF(a, path)
			if m != nil {
				t.Errorf("loadGLTF returned a mesh with an error")
			}
			checkGLTFError(t, err, path, tt.msg)
		})
	}
}

// TestLoadGLTFNotGLTF reports a file that is neither glTF JSON nor GLB.
func TestLoadGLTFNotGLTF(t *testing.T) {
	dir, a := gltfScene(t)
	for name, data := range map[string]string{
		"junk.gltf":      "solid cube\n",
		"noasset.gltf":   `{"meshes": []}`,
		"version1.gltf":  `{"asset": {"version": "1.0"}}`,
		"truncated.glb":  "glTF\x02\x00\x00\x00\xff\x00\x00\x00",
		"badchunk.glb":   "glTF\x02\x00\x00\x00\x1c\x00\x00\x00\x08\x00\x00\x00BIN\x00{\"asset\"",
		"bigchunk.glb":   "glTF\x02\x00\x00\x00\x1c\x00\x00\x00\xff\x00\x00\x00JSON{\"asset\"",
		"glbversion.glb": "glTF\x01\x00\x00\x00\x1c\x00\x00\x00\x08\x00\x00\x00JSON{\"asset\"",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadGLTF(a, path)
		want := "not a valid glTF file"
		switch {
		case strings.HasSuffix(name, ".glb"):
			want = "not a valid GLB file"
		case name == "version1.gltf":
			want = `asset.version "1.0" is not supported (only 2.x)`
		}
		checkGLTFError(t, err, path, want)
	}
}

// TestLoadGLTFNoScene takes every root node when the file has no scene.
func TestLoadGLTFNoScene(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Scene, doc.Scenes = nil, nil
	doc.Nodes = []*gltf.Node{
		{Mesh: gltf.Index(0), Children: []int{2}},
		{Mesh: gltf.Index(0), Translation: [3]float64{0, 0, 1}},
		{Mesh: gltf.Index(0), Translation: [3]float64{0, 0, 2}},
	}
	m := mustLoadGLTFDoc(t, doc, false)
	if len(m.meshes) != 3 {
		t.Fatalf("%d meshes, want 3 (nodes 0, 2 and 1)", len(m.meshes))
	}
	for i, z := range []float32{0, 2, 1} {
		if got := m.meshes[i].Positions[0][2]; got != z {
			t.Errorf("meshes[%d] at z = %v, want %v", i, got, z)
		}
	}
}

// TestLoadGLTFPBR maps a material as authored to the metallic-roughness
// model: its factors, the metallic-roughness texture decoded linearly (so
// it is another image than the sRGB base colour of the same file), the
// emission with KHR_materials_emissive_strength, and KHR_texture_transform
// converted to the tracer's coordinates (v up).
func TestLoadGLTFPBR(t *testing.T) {
	doc := texturedGLTFDoc()
	doc.ExtensionsUsed = []string{"KHR_texture_transform", "KHR_materials_emissive_strength"}
	doc.ExtensionsRequired = []string{"KHR_texture_transform"}
	m0 := doc.Materials[0]
	m0.PBRMetallicRoughness.MetallicFactor = gltf.Float(0.25)
	m0.PBRMetallicRoughness.RoughnessFactor = gltf.Float(0.75)
	m0.PBRMetallicRoughness.MetallicRoughnessTexture = &gltf.TextureInfo{Index: 0}
	rot := 0.3
	m0.PBRMetallicRoughness.BaseColorTexture.Extensions = gltf.Extensions{"KHR_texture_transform": map[string]any{
		"offset": []float64{0.5, 0.25}, "rotation": rot, "scale": []float64{2, 3}}}
	m0.EmissiveFactor = [3]float64{1, 0.5, 0}
	m0.EmissiveTexture = &gltf.TextureInfo{Index: 0}
	m0.Extensions = gltf.Extensions{"KHR_materials_emissive_strength": map[string]any{"emissiveStrength": 4}}
	m := mustLoadGLTFDoc(t, doc, false)
	im := m.materials[0]
	if !im.PBR || im.Metallic != 0.25 || im.Roughness != 0.75 || im.Emission != (mgl32.Vec3{4, 2, 0}) {
		t.Errorf("material %+v: want pbr, metallic 0.25, roughness 0.75, emission [4 2 0]", im)
	}
	if im.RoughImage == nil || im.EmissionImage == nil || im.RoughImage == im.Image || im.EmissionImage != im.Image {
		t.Errorf("images: base %p, metallic-roughness %p (want another, linear), emission %p (want the base's)", im.Image, im.RoughImage, im.EmissionImage)
	}
	if im.RoughImage != nil && im.RoughImage.Pix[0] != 1 {
		t.Errorf("linear decode of 255: %g, want 1", im.RoughImage.Pix[0])
	}
	// A point in glTF's coordinates, through glTF's transform, against
	// the same point in the tracer's (v' = 1 − v) through ImageUV.
	uv := im.ImageUV
	for _, p := range [][2]float64{{0.1, 0.2}, {0.7, 0.4}, {-1, 2}} {
		u, v := p[0], p[1]
		cs, sn := math.Cos(rot), math.Sin(rot)
		gu := cs*2*u + sn*3*v + 0.5
		gv := -sn*2*u + cs*3*v + 0.25
		V := 1 - v
		tu := float64(uv[0])*u + float64(uv[1])*V + float64(uv[4])
		tv := float64(uv[2])*u + float64(uv[3])*V + float64(uv[5])
		if math.Abs(tu-gu) > 1e-5 || math.Abs(tv-(1-gv)) > 1e-5 {
			t.Errorf("(%g, %g): tracer (%g, %g), want (%g, %g)", u, v, tu, tv, gu, 1-gv)
		}
	}
}

// addGLTFLights gives doc KHR_lights_punctual's lights (JSON objects),
// marking the extension required as Blender's exporter does.
func addGLTFLights(doc *gltf.Document, lights ...string) {
	doc.Extensions = gltf.Extensions{"KHR_lights_punctual": json.RawMessage(`{"lights": [` + strings.Join(lights, ", ") + `]}`)}
	doc.ExtensionsUsed = append(doc.ExtensionsUsed, "KHR_lights_punctual")
	doc.ExtensionsRequired = append(doc.ExtensionsRequired, "KHR_lights_punctual")
}

// gltfLightNode returns a node that holds lights[i].
func gltfLightNode(i int) *gltf.Node {
	return &gltf.Node{Extensions: gltf.Extensions{"KHR_lights_punctual": json.RawMessage(fmt.Sprintf(`{"light": %d}`, i))}}
}

// lightDoc is a triangle, a point light at (1, 2, 3) (red-orange, 5 cd)
// and a spot light 4 above the origin, turned to point down (glTF's −z
// turned −90° about x is −y), under a parent scaled by 2 whose scale
// moves the spot light but does not change its intensity.
func lightDoc() *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	addGLTFLights(doc,
		`{"type": "point", "name": "bulb", "color": [1, 0.5, 0.25], "intensity": 5, "range": 10}`,
		`{"type": "spot", "intensity": 7, "spot": {"innerConeAngle": 0.3, "outerConeAngle": 0.6}}`)
	point := gltfLightNode(0)
	point.Translation = [3]float64{1, 2, 3}
	parent := &gltf.Node{Scale: [3]float64{2, 2, 2}, Children: []int{3}}
	spot := gltfLightNode(1)
	spot.Translation = [3]float64{0, 2, 0}
	s := math.Sqrt(0.5)
	spot.Rotation = [4]float64{-s, 0, 0, s}
	doc.Nodes = append(doc.Nodes, point, parent, spot)
	doc.Scenes[0].Nodes = []int{0, 1, 2}
	return doc
}

// TestLoadGLTFLights: KHR_lights_punctual marked required loads; point
// and spot lights are placed by their nodes' world matrices, spot lights
// point along the node's −z with glTF's cone, and intensities in candela
// carry over as they are.
func TestLoadGLTFLights(t *testing.T) {
	for _, glb := range []bool{false, true} {
		m := mustLoadGLTFDoc(t, lightDoc(), glb)
		if len(m.lights) != 2 {
			t.Fatalf("%d lights, want 2", len(m.lights))
		}
		point := tracer.PointLight{Position: mgl32.Vec3{1, 2, 3}, Color: mgl32.Vec3{1, 0.5, 0.25}, Intensity: 5}
		if m.lights[0] != point {
			t.Errorf("point light %+v, want %+v", m.lights[0], point)
		}
		spot := m.lights[1]
		if !closeVec3(spot.Position, mgl32.Vec3{0, 4, 0}) || !closeVec3(spot.SpotDir, mgl32.Vec3{0, -1, 0}) ||
			spot.Intensity != 7 || spot.Color != (mgl32.Vec3{1, 1, 1}) || spot.Falloff != tracer.FalloffInverseSquare {
			t.Errorf("spot light %+v: want at (0, 4, 0), pointing down, intensity 7, white", spot)
		}
		if sc, so := tracer.SpotCone(0.3, 0.6); spot.SpotScale != sc || spot.SpotOffset != so {
			t.Errorf("spot cone %g, %g; want %g, %g", spot.SpotScale, spot.SpotOffset, sc, so)
		}
	}
	// A spot light without outerConeAngle gets glTF's π/4.
	doc := newGLTFDoc(gltfTriangle, nil)
	addGLTFLights(doc, `{"type": "spot", "spot": {}}`)
	doc.Nodes = append(doc.Nodes, gltfLightNode(0))
	doc.Scenes[0].Nodes = []int{0, 1}
	m := mustLoadGLTFDoc(t, doc, false)
	if sc, so := tracer.SpotCone(0, math.Pi/4); len(m.lights) != 1 || m.lights[0].SpotScale != sc || m.lights[0].SpotOffset != so {
		t.Errorf("lights %+v: want one with the default cone (%g, %g)", m.lights, sc, so)
	}
}

// TestGLTFExtensionTyped: an extension that some package registered a
// type for (so the decoder hands over that type, not raw JSON) is read
// through its JSON all the same.
func TestGLTFExtensionTyped(t *testing.T) {
	type index struct {
		Light int `json:"light"`
	}
	var ref struct {
		Light *int `json:"light"`
	}
	if err := gltfExtension(index{3}, &ref); err != nil || ref.Light == nil || *ref.Light != 3 {
		t.Errorf("gltfExtension: %v, %v; want light 3", ref.Light, err)
	}
}

// TestMeshGLTFLights: a mesh object's glTF lights join the scene's,
// placed by the object's transform (intensity × scale², so the file's
// lights light its surfaces as authored), once per object; past
// MaxLights the scene is refused.
func TestMeshGLTFLights(t *testing.T) {
	dir, _ := gltfScene(t)
	writeGLTF(t, filepath.Join(dir, "lamp.gltf"), lightDoc())
	scene := func(lights string, objects ...string) string {
		return `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
			"materials": {"grey": {"type": "diffuse"}}, "lights": [` + lights + `], "objects": [` + strings.Join(objects, ", ") + `]}`
	}
	obj := `{"type": "mesh", "file": "lamp.gltf", "material": "grey", "transform": {"scale": 2, "rotate": [0, 0, 90], "translate": [10, 0, 0]}}`
	path := filepath.Join(dir, "scene.json")
	own := `{"type": "point", "position": [0, 9, 0], "intensity": 3}`
	if err := os.WriteFile(path, []byte(scene(own, obj, `{"type": "mesh", "file": "lamp.gltf", "material": "grey"}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Lights) != 5 || s.Lights[0].Intensity != 3 {
		t.Fatalf("lights %+v: want the scene's, then the file's two for each of two objects", s.Lights)
	}
	// Scaled by 2, turned 90° about z ((x, y) → (−y, x)), moved by +10 x.
	if l := s.Lights[1]; !closeVec3(l.Position, mgl32.Vec3{6, 2, 6}) || l.Intensity != 20 || l.SpotDir != (mgl32.Vec3{}) {
		t.Errorf("point light %+v: want at (6, 2, 6), intensity 5 × 2²", l)
	}
	if l := s.Lights[2]; !closeVec3(l.Position, mgl32.Vec3{2, 0, 0}) || !closeVec3(l.SpotDir, mgl32.Vec3{1, 0, 0}) || l.Intensity != 28 {
		t.Errorf("spot light %+v: want at (2, 0, 0), pointing +x, intensity 7 × 2²", l)
	}
	if l := s.Lights[4]; !closeVec3(l.Position, mgl32.Vec3{0, 4, 0}) || l.Intensity != 7 {
		t.Errorf("second object's spot light %+v: want as in the file", l)
	}

	many := strings.TrimSuffix(strings.Repeat(own+", ", tracer.MaxLights-1), ", ")
	if err := os.WriteFile(path, []byte(scene(many, obj)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the scene's lights would number %d, more than the limit of %d", tracer.MaxLights+1, tracer.MaxLights)) {
		t.Errorf("%d scene lights and a file of 2: error %v", tracer.MaxLights-1, err)
	}
}

// captureWarnings sends slog's records to the returned builder until the
// test ends.
func captureWarnings(t *testing.T) *strings.Builder {
	var log strings.Builder
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &log
}

// TestLoadGLTFSkinPose: a skinned mesh is drawn in the pose of its
// joints' nodes, each vertex moved by its weighted joints' world
// matrices times their inverse bind matrices; the skinned node's own
// transform is ignored, as glTF says. (A rig whose armature turns a Z-up
// model Y-up, or scales centimetres to metres, stands as authored.)
func TestLoadGLTFSkinPose(t *testing.T) {
	log := captureWarnings(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]uint8{{0, 1, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}})
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0.5, 0.5, 0, 0}})
	ibm := modeler.WriteAccessor(doc, gltf.TargetNone, [][4][4]float32{
		{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}},
		{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, -2, 0, 1}}, // columns: a translation by (0, -2, 0)
	})
	s := math.Sqrt(0.5)
	doc.Nodes[0].Translation = [3]float64{5, 0, 0} // ignored
	doc.Nodes[0].Skin = gltf.Index(0)
	doc.Nodes = append(doc.Nodes,
		&gltf.Node{Name: "armature", Translation: [3]float64{0, 2, 0}, Children: []int{2}},
		&gltf.Node{Name: "bone", Rotation: [4]float64{0, 0, s, s}, Scale: [3]float64{2, 2, 2}}) // 90° about z
	doc.Scenes[0].Nodes = []int{0, 1}
	doc.Skins = []*gltf.Skin{{Joints: []int{1, 2}, InverseBindMatrices: gltf.Index(ibm)}}
	m := mustLoadGLTFDoc(t, doc, true)
	// Vertex 0 by the armature alone: (0, 0, 0) + (0, 2, 0). Vertex 1 by
	// the bone: (1, 0, 0) − (0, 2, 0), scaled by 2, turned 90° and moved
	// by (0, 2, 0): (4, 4, 0). Vertex 2 halfway between (0, 3, 0) and
	// (2, 2, 0).
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 2, 0}, {4, 4, 0}, {1, 2.5, 0}})
	if got := log.String(); got != "" {
		t.Errorf("warnings %q, want none", got)
	}

	// A joint index past the skin's joints, and a skinned primitive
	// without weights, are errors naming the primitive.
	doc.Skins[0].Joints = []int{1}
	doc.Skins[0].InverseBindMatrices = nil
	for _, want := range []string{
		"meshes[0].primitives[0]: JOINTS_0 1 names joint 1, but skins[0] has 1",
		"meshes[0].primitives[0]: nodes[0] skins it with skins[0], but it has no JOINTS_0 or no WEIGHTS_0",
	} {
		if _, err := loadGLTFDoc(t, doc, false); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("error %v, want one ending in %q", err, want)
		}
		delete(prim.Attributes, gltf.WEIGHTS_0)
	}
}

// TestLoadGLTFPointsLines: Blender exports a mesh's loose edges and
// vertices as LINES and POINTS primitives beside its faces; the faces
// load, the points and lines are left out with one warning line naming
// them, and a file of nothing else holds no triangles.
func TestLoadGLTFPointsLines(t *testing.T) {
	log := captureWarnings(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	pos := doc.Meshes[0].Primitives[0].Attributes[gltf.POSITION]
	for _, mode := range []gltf.PrimitiveMode{gltf.PrimitiveLines, gltf.PrimitiveLineLoop, gltf.PrimitiveLineStrip} {
		doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, &gltf.Primitive{Mode: mode, Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}})
	}
	doc.Meshes = append(doc.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{Mode: gltf.PrimitivePoints, Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}}}})
	doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(1)})
	doc.Scenes[0].Nodes = []int{0, 1}
	m := mustLoadGLTFDoc(t, doc, true)
	if len(m.meshes) != 1 {
		t.Fatalf("%d meshes, want 1", len(m.meshes))
	}
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	want := "model.glb: 4 primitives of points or lines (meshes[0].primitives[1], meshes[0].primitives[2], meshes[0].primitives[3] and 1 more) are not drawn: only triangles are"
	if got := log.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, want) {
		t.Errorf("log %q: want one line with %q", got, want)
	}

	dir := t.TempDir()
	doc.Scenes[0].Nodes = []int{1}
	writeGLTF(t, filepath.Join(dir, "points.gltf"), doc)
	scene := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(scene, []byte(`{"version": 1, "camera": {"position": [0, 0, 5], "look_at": [0, 0, 0]},
  "objects": [{"type": "mesh", "file": "points.gltf"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(scene); err == nil || !strings.Contains(err.Error(), `"points.gltf": the file holds no triangles`) {
		t.Errorf("a file of points only: error %v, want one saying it holds no triangles", err)
	}
}

// TestLoadGLTFSparse: a sparse accessor's values replace the elements at
// its indices, over its bufferView or over zeros when it has none (as
// glTF's SimpleSparseAccessor sample and morph targets use them).
func TestLoadGLTFSparse(t *testing.T) {
	for _, withView := range []bool{true, false} {
		t.Run(fmt.Sprintf("bufferView %v", withView), func(t *testing.T) {
			doc := newGLTFDoc(gltfTriangle, []uint16{0, 1, 2})
			acc := doc.Accessors[0]
			idx := modeler.WriteBufferView(doc, gltf.TargetNone, []uint16{1, 2})
			val := modeler.WriteBufferView(doc, gltf.TargetNone, [][3]float32{{2, 0, 0}, {0, 3, 0}})
			acc.Sparse = &gltf.Sparse{Count: 2,
				Indices: gltf.SparseIndices{BufferView: idx, ComponentType: gltf.ComponentUshort},
				Values:  gltf.SparseValues{BufferView: val}}
			want := []mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 3, 0}}
			if !withView {
				acc.BufferView = nil
			}
			m := mustLoadGLTFDoc(t, doc, true)
			checkPositions(t, m.meshes[0], want)
		})
	}
}

// TestLoadGLTFStripFan: TRIANGLE_STRIP and TRIANGLE_FAN primitives are
// triangulated in glTF's order (section 3.7.2.1), so every triangle of a
// flat strip or fan faces the way its first does; a strip's degenerate
// joining triangles are left out.
func TestLoadGLTFStripFan(t *testing.T) {
	square := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	ring := [][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {-1, 1, 0}}
	tests := []struct {
		name      string
		mode      gltf.PrimitiveMode
		positions [][3]float32
		indices   []uint16 // nil: none
		want      []uint32
	}{
		{"strip", gltf.PrimitiveTriangleStrip, square, nil, []uint32{0, 1, 2, 1, 3, 2}},
		{"strip, indexed", gltf.PrimitiveTriangleStrip, square, []uint16{2, 0, 3, 1}, []uint32{2, 0, 3, 0, 1, 3}},
		{"strip with a restart", gltf.PrimitiveTriangleStrip, square, []uint16{0, 1, 2, 2, 2, 1, 3}, []uint32{0, 1, 2, 2, 1, 3}},
		{"fan", gltf.PrimitiveTriangleFan, ring, nil, []uint32{1, 2, 0, 2, 3, 0, 3, 4, 0}},
		{"fan, indexed", gltf.PrimitiveTriangleFan, ring, []uint16{0, 1, 2}, []uint32{1, 2, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := newGLTFDoc(tc.positions, tc.indices)
			doc.Meshes[0].Primitives[0].Mode = tc.mode
			m := mustLoadGLTFDoc(t, doc, false)
			got := m.meshes[0].Indices
			if !slices.Equal(got, tc.want) {
				t.Fatalf("indices %v, want %v", got, tc.want)
			}
			pos := m.meshes[0].Positions
			for i := 0; i < len(got); i += 3 {
				a, b, c := pos[got[i]], pos[got[i+1]], pos[got[i+2]]
				if n := b.Sub(a).Cross(c.Sub(a)); !(n[2] > 0) {
					t.Errorf("triangle %d faces %v, not +z like the first", i/3, n)
				}
			}
		})
	}
	// Too few vertices for a triangle: the file holds none.
	doc := newGLTFDoc(square[:2], nil)
	doc.Meshes[0].Primitives[0].Mode = gltf.PrimitiveTriangleFan
	if m := mustLoadGLTFDoc(t, doc, false); len(m.meshes[0].Indices) != 0 {
		t.Errorf("a fan of 2 vertices: indices %v, want none", m.meshes[0].Indices)
	}
}

// TestLoadGLTFImageOnce: an image that several textures and materials use
// is decoded once per colour space, whether they name the same images[]
// entry or different entries of the same file (however its URI is
// spelled) or buffer view.
func TestLoadGLTFImageOnce(t *testing.T) {
	dir, a := gltfScene(t)
	if err := os.WriteFile(filepath.Join(dir, "tiny.png"), tinyPNG(), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := texturedGLTFDoc() // images[0] in a buffer view
	bv := doc.Images[0].BufferView
	doc.Images = append(doc.Images, &gltf.Image{BufferView: bv, MimeType: "image/png"},
		&gltf.Image{URI: "tiny.png"}, &gltf.Image{URI: "./tiny.png"}, &gltf.Image{URI: "tin%79.png"})
	for i := 1; i < len(doc.Images); i++ {
		doc.Textures = append(doc.Textures, &gltf.Texture{Source: gltf.Index(i)})
	}
	for i := 1; i < len(doc.Textures); i++ {
		doc.Materials = append(doc.Materials, &gltf.Material{Name: fmt.Sprintf("m%d", i),
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorTexture: &gltf.TextureInfo{Index: i}},
			EmissiveFactor:       [3]float64{1, 1, 1}, EmissiveTexture: &gltf.TextureInfo{Index: i}})
	}
	doc.Materials[4].PBRMetallicRoughness.MetallicRoughnessTexture = &gltf.TextureInfo{Index: 4}
	for i := 1; i < len(doc.Materials); i++ {
		doc.Meshes[0].Primitives = append(doc.Meshes[0].Primitives, &gltf.Primitive{
			Attributes: doc.Meshes[0].Primitives[0].Attributes, Material: gltf.Index(i)})
	}
	m, err := loadGLTF(a, writeGLTF(t, filepath.Join(dir, "model.gltf"), doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.materials) != 5 {
		t.Fatalf("%d materials, want 5", len(m.materials))
	}
	view, file := m.materials[0].Image, m.materials[2].Image
	for i, im := range m.materials {
		want := view
		if i >= 2 {
			want = file
		}
		if im.Image != want || (i > 0 && im.EmissionImage != want) { // materials[0] has no emission
			t.Errorf("material %d: base colour %p, emission %p; want the one decoding %p", i, im.Image, im.EmissionImage, want)
		}
	}
	if rough := m.materials[4].RoughImage; rough == nil || rough == file {
		t.Errorf("the linear metallic-roughness decoding is %p, the sRGB one %p: want two", rough, file)
	}
}

// TestMeshGLTFDefaultMaterial: a glTF primitive without a material is
// drawn with glTF's default material (pbr, every factor 1), unless the
// scene object names one, which then takes its place; the file's own
// materials stay as they are.
func TestMeshGLTFDefaultMaterial(t *testing.T) {
	dir, _ := gltfScene(t)
	writeGLTF(t, filepath.Join(dir, "bare.gltf"), newGLTFDoc(gltfTriangle, nil))
	path := filepath.Join(dir, "scene.json")
	load := func(object string) *tracer.SceneDesc {
		t.Helper()
		scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
			"materials": {"grey": {"type": "diffuse"}}, "objects": [` + object + `]}`
		if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load(`{"type": "mesh", "file": "bare.gltf"}`)
	m := s.Materials[s.Meshes[0].Material]
	if m.Kind != tracer.MaterialPBR || m.Color != (mgl32.Vec3{1, 1, 1}) || m.Metallic != 1 || m.Roughness != 1 || m.Texture != tracer.NoTexture {
		t.Errorf("a primitive without a material is drawn with %+v, want glTF's default (pbr, factors 1)", m)
	}
	s = load(`{"type": "mesh", "file": "bare.gltf", "material": "grey"}`)
	if m := s.Materials[s.Meshes[0].Material]; m.Kind != tracer.MaterialDiffuse {
		t.Errorf("with the object's material: %+v, want the scene's grey diffuse", m)
	}
}

// TestMeshGLTFUnsupportedExtensions: a file material drawn without
// extensions that trace does not read (partly transmissive glass, as
// KHR_materials_transmission of a factor below 1, renders opaque) gets
// one warning line naming it and them, and none when the scene puts a
// material of its own in its place.
func TestMeshGLTFUnsupportedExtensions(t *testing.T) {
	dir, _ := gltfScene(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
	doc.Materials = []*gltf.Material{{Name: "glass", Extensions: gltf.Extensions{
		"KHR_materials_transmission":      json.RawMessage(`{"transmissionFactor": 0.5}`),
		"KHR_materials_ior":               json.RawMessage(`{"ior": 1.5}`),
		"KHR_materials_emissive_strength": json.RawMessage(`{"emissiveStrength": 2}`),
	}}}
	writeGLTF(t, filepath.Join(dir, "glass.gltf"), doc)
	path := filepath.Join(dir, "scene.json")
	for _, tc := range []struct{ materials, want string }{
		{`{}`, `msg="\"glass.gltf\": material \"glass\" drawn without KHR_materials_transmission, which trace does not support; a material of the same name in \"materials\" takes the place of a file's material"`},
		{`{"glass": {"type": "dielectric"}}`, ""},
	} {
		log := captureWarnings(t)
		scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
			"materials": ` + tc.materials + `, "objects": [{"type": "mesh", "file": "glass.gltf"}, {"type": "mesh", "file": "glass.gltf"}]}`
		if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(log.String())
		if tc.want == "" && got != "" || tc.want != "" && (strings.Count(got, "\n") != 0 || !strings.Contains(got, tc.want)) {
			t.Errorf("materials %s: log %q, want one line with %q", tc.materials, got, tc.want)
		}
	}
}

// TestMeshGLTFUnsupportedHostile: a material's extension names are the
// file's to choose; the warning that names them stays one line without
// the file's control characters (a name other than letters, digits and
// underscores is quoted), and names at most a few, counting the rest
// (100,000 names took 14 s and printed a megabyte before).
func TestMeshGLTFUnsupportedHostile(t *testing.T) {
	dir, _ := gltfScene(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Meshes[0].Primitives[0].Material = gltf.Index(0)
	exts := gltf.Extensions{"\x1b[31mEVIL\x1b[0m\ntrace: error: fake line": json.RawMessage(`{}`)}
	for i := range 2000 {
		exts[fmt.Sprintf("EXT_made_up_%04d", i)] = json.RawMessage(`{}`)
	}
	doc.Materials = []*gltf.Material{{Name: "m", Extensions: exts}}
	writeGLTF(t, filepath.Join(dir, "m.gltf"), doc)
	path := filepath.Join(dir, "scene.json")
	scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]},
		"materials": {}, "objects": [{"type": "mesh", "file": "m.gltf"}]}`
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	log := captureWarnings(t)
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(log.String())
	if strings.Count(got, "\n") != 0 || strings.ContainsRune(got, '\x1b') || !strings.Contains(got, "and 1993 more") || len(got) > 1000 {
		t.Errorf("warning %q: want one short line, no escape character, 8 names and 1993 more", got)
	}
}
