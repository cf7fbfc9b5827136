package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// fuzzBundle loads a scene whose one mesh object is the file name with
// the given contents (and, for OBJ, a material library lib.mtl), from
// memory, and checks what FuzzParse checks of the answer.
func fuzzBundle(t *testing.T, name string, files map[string][]byte) {
	fuzzBundleObject(t, name, "", files)
}

// fuzzBundleObject is fuzzBundle with more members of the mesh object
// (fields: `, "animation": 0`).
func fuzzBundleObject(t *testing.T, name, fields string, files map[string][]byte) {
	scene := `{"version": 1, "camera": {"position": [0, 0, -5], "look_at": [0, 0, 0]},
	  "materials": {"m": {"type": "diffuse"}},
	  "objects": [{"type": "mesh", "file": "` + name + `", "material": "m"` + fields + `}]}`
	b := &Bundle{Name: "fuzz.json", Dir: "/fuzz", Scene: []byte(scene), Files: files}
	d, err := b.Load()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T is not an *Error: %v", err, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("error is not one line: %q", msg)
		}
		return
	}
	checkScene(t, d)
	tris := 0
	for _, m := range d.Meshes {
		tris += len(m.Indices) / 3
	}
	if tris <= 1<<14 { // what the tracer would build from it
		if _, err := tracer.Compile(d); err != nil {
			t.Fatalf("accepted mesh does not compile: %v", err)
		}
	}
}

// FuzzGLTF checks that a glTF file (JSON or GLB) never panics the loader
// and that what it accepts is a mesh the renderer can use, as the file
// holds it and posed by its first animation at 0.7 s.
func FuzzGLTF(f *testing.F) {
	doc := gltf.NewDocument()
	prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{
		gltf.POSITION:   modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}),
		gltf.NORMAL:     modeler.WriteNormal(doc, [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}),
		gltf.TEXCOORD_0: modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}}),
	}, Indices: gltf.Index(modeler.WriteIndices(doc, []uint16{0, 1, 2}))}
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{prim}}}
	doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0), Translation: [3]float64{1, 2, 3}}}
	doc.Scenes[0].Nodes = []int{0}
	for _, glb := range []bool{false, true} {
		if !glb {
			for _, b := range doc.Buffers {
				b.EmbeddedResource()
			}
		}
		var buf bytes.Buffer
		enc := gltf.NewEncoder(&buf)
		enc.AsBinary = glb
		if err := enc.Encode(doc); err != nil {
			f.Fatal(err)
		}
		data := buf.Bytes()
		f.Add(data, glb)
		f.Add(data[:len(data)/2], glb)
		changed := append([]byte(nil), data...)
		changed[len(changed)/3] ^= 0x41
		f.Add(changed, glb)
	}
	f.Add([]byte(`{"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}], "meshes": [{"primitives": [{"attributes": {"POSITION": 7}}]}]}`), false)
	// What Blender and glTF tools write beside plain triangles: a skin, a
	// sparse accessor, quantized attributes, a glass material, lines.
	f.Add(fuzzGLTFFeatures(f), false)
	// EXT_meshopt_compression: hand-made streams of every view, and
	// gltfpack -c's spheres; KHR_meshopt_compression: gltfpack -cc -ce khr's.
	for _, glb := range []bool{false, true} {
		var buf bytes.Buffer
		enc := gltf.NewEncoder(&buf)
		enc.AsBinary = glb
		doc := meshoptDoc(f)
		if !glb {
			for _, b := range doc.Buffers {
				b.EmbeddedResource()
			}
		}
		if err := enc.Encode(doc); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), glb)
	}
	for _, name := range []string{"spheres-c.glb", "spheres-vpf-cc-khr.glb"} {
		data, err := os.ReadFile(filepath.Join("testdata", "meshopt", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, true)
	}
	// KHR_draco_mesh_compression: draco_encoder's spheres, sequential
	// (-cl 0) and edgebreaker (Blender's -cl 6, draco_encoder's -cl 7 and
	// -cl 10), all read.
	for _, name := range []string{"spheres-cl0-blender.gltf", "spheres-cl6-blender.gltf", "spheres-cl7.gltf", "spheres-cl10.gltf"} {
		data, err := os.ReadFile(filepath.Join("testdata", "draco", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false)
	}
	// Morph targets at the mesh's weights: Khronos's SimpleMorph.
	data, err := os.ReadFile(filepath.Join("testdata", "khronos", "SimpleMorph", "SimpleMorph.gltf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, false)
	// An animation's weights channels, sharing a sampler and not
	// (gltfLoader.sampled), over nodes sharing a mesh's targets.
	for _, inputs := range []bool{false, true} {
		doc := manyWeightChannels(3, 4, inputs)
		for _, b := range doc.Buffers {
			b.EmbeddedResource()
		}
		var buf bytes.Buffer
		if err := gltf.NewEncoder(&buf).Encode(doc); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, glb bool) {
		name := "m.gltf"
		if glb {
			name = "m.glb"
		}
		fuzzBundle(t, name, map[string][]byte{name: data})
		fuzzBundleObject(t, name, `, "animation": 0, "time": 0.7`, map[string][]byte{name: data})
	})
}

// FuzzMTL checks that a material library never panics the OBJ loader and
// that what it accepts is a scene the renderer can use.
func FuzzMTL(f *testing.F) {
	obj := []byte("mtllib lib.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl a\nf 1/1 2/2 3/3\nusemtl b\nf 3/3 2/2 1/1\n")
	if data, err := os.ReadFile(filepath.Join("testdata", "meshes", "cube.mtl")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("newmtl a\nKd 0.5 0.25 1\nnewmtl b\nKd 1e39 0 0\n"))
	f.Add([]byte("newmtl a\nKd 1 1 1\nmap_Kd -s 1 1 1 tex.png\nnewmtl b\nmap_Kd ..\\..\\x.png\n"))
	f.Add([]byte("newmtl\nKd\nKd 1 2\nnewmtl a\nKd nan 0 0\n"))
	f.Add([]byte("newmtl a\nillum 7\nNi 1.5\nTf 0.9 1 0.9\nd 0.1\nnewmtl b\nPr 0.2\nPm 0\nTf 1 1 1\nNi 1.45\nKd 0.8 0.8 1\nmap_Kd C:\\Users\\me\\tex.png\n")) // glass, and a foreign map path
	f.Fuzz(func(t *testing.T, mtl []byte) {
		fuzzBundle(t, "m.obj", map[string][]byte{"m.obj": obj, "lib.mtl": mtl})
	})
}

// fuzzGLTFFeatures returns a .gltf whose triangle is skinned by a joint
// under a rotated parent, whose second primitive has a sparse POSITION,
// whose third has quantized SHORT positions, BYTE normals and
// UNSIGNED_SHORT texture coordinates and a SHORT morph target that its
// node's weights apply, a LINES primitive, and a
// transmission (glass) material. TestGLTFFeatures checks that it loads.
func fuzzGLTFFeatures(f testing.TB) []byte {
	doc := gltf.NewDocument()
	tri := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	pos := modeler.WritePosition(doc, tri)
	skinned := &gltf.Primitive{Material: gltf.Index(0), Attributes: gltf.PrimitiveAttributes{
		gltf.POSITION:  pos,
		gltf.JOINTS_0:  modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]uint8{{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}}),
		gltf.WEIGHTS_0: modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]float32{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0.25, 0.75, 0, 0}}),
	}}
	sparse := modeler.WritePosition(doc, tri)
	at := modeler.WriteAccessor(doc, gltf.TargetNone, []uint8{2, 0, 0, 0})
	values := modeler.WritePosition(doc, [][3]float32{{0, 2, 0}})
	doc.Accessors[sparse].Sparse = &gltf.Sparse{Count: 1,
		Indices: gltf.SparseIndices{BufferView: *doc.Accessors[at].BufferView, ComponentType: gltf.ComponentUbyte},
		Values:  gltf.SparseValues{BufferView: *doc.Accessors[values].BufferView}}
	qpos := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]int16{{0, 0, 0}, {32767, 0, 0}, {0, 32767, 0}})
	qnor := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]int8{{0, 0, 127}, {0, 0, 127}, {0, 0, 127}})
	doc.Accessors[qnor].Normalized = true
	quv := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][2]uint16{{0, 0}, {1, 0}, {0, 1}})
	qmorph := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][3]int16{{0, 0, 0}, {0, 0, 0}, {0, 0, 100}})
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{skinned}}, {Primitives: []*gltf.Primitive{
		{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: sparse}},
		{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: qpos, gltf.NORMAL: qnor, gltf.TEXCOORD_0: quv},
			Targets: []gltf.PrimitiveAttributes{{gltf.POSITION: qmorph}}},
		{Mode: gltf.PrimitiveLines, Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}},
	}}}
	doc.ExtensionsUsed = []string{"KHR_mesh_quantization", "KHR_materials_transmission", "KHR_materials_ior"}
	doc.Materials = []*gltf.Material{{Name: "glass",
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: gltf.Float(0)},
		Extensions: gltf.Extensions{
			"KHR_materials_transmission": json.RawMessage(`{"transmissionFactor": 1}`),
			"KHR_materials_ior":          json.RawMessage(`{"ior": 1.33}`),
		}}}
	s := math.Sqrt(0.5)
	doc.Nodes = []*gltf.Node{
		{Mesh: gltf.Index(0), Skin: gltf.Index(0)},
		{Name: "root", Rotation: [4]float64{0, 0, s, s}, Scale: [3]float64{1, 1, 1}, Children: []int{2}},
		{Name: "bone", Translation: [3]float64{0, 1, 0}, Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{2, 2, 2}},
		{Mesh: gltf.Index(1), Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}, Weights: []float64{0.5}},
	}
	doc.Skins = []*gltf.Skin{{Joints: []int{1, 2}}}
	doc.Scenes[0].Nodes = []int{0, 1, 3}
	// An animation: the bone turned (LINEAR, slerp), the third mesh's node
	// moved (CUBICSPLINE) and its morph target's weight (STEP).
	times := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0, 1})
	doc.Animations = []*gltf.Animation{{Name: "Wave", Samplers: []*gltf.AnimationSampler{
		{Input: times, Output: modeler.WriteAccessor(doc, gltf.TargetNone, [][4]float32{{0, 0, 0, 1}, {0, 0, float32(s), float32(s)}})},
		{Input: times, Interpolation: gltf.InterpolationCubicSpline,
			Output: modeler.WriteAccessor(doc, gltf.TargetNone, [][3]float32{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 4}, {0, 0, 0}})},
		{Input: times, Interpolation: gltf.InterpolationStep, Output: modeler.WriteAccessor(doc, gltf.TargetNone, []float32{1, 0})},
	}, Channels: []*gltf.AnimationChannel{
		{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSRotation}},
		{Sampler: 1, Target: gltf.AnimationChannelTarget{Node: gltf.Index(3), Path: gltf.TRSTranslation}},
		{Sampler: 2, Target: gltf.AnimationChannelTarget{Node: gltf.Index(3), Path: gltf.TRSWeights}},
	}}}
	for _, b := range doc.Buffers {
		b.EmbeddedResource()
	}
	var buf bytes.Buffer
	if err := gltf.NewEncoder(&buf).Encode(doc); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// TestGLTFFeatures: FuzzGLTF's seed of the features Blender and glTF tools
// write loads whole, so that the fuzzer starts from files that reach
// them: three meshes (the lines left out), the skinned triangle placed by
// its joints, the sparse vertex moved, the quantized one dequantized and
// morphed by its quantized target at the node's weight, and the glass
// material a dielectric.
func TestGLTFFeatures(t *testing.T) {
	log := captureWarnings(t)
	dir, a := gltfScene(t)
	path := filepath.Join(dir, "features.gltf")
	if err := os.WriteFile(path, fuzzGLTFFeatures(t), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := loadGLTF(a, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.meshes) != 3 {
		t.Fatalf("%d meshes, want 3", len(m.meshes))
	}
	// The root joint turns 90° about z; the bone scales by 2, moves up 1
	// and is turned by the root. Vertex 0, by the root alone: (0, 0, 0).
	// Vertex 1, (1, 0, 0), half by each: (0, 1, 0) and (-1, 2, 0).
	// Vertex 2, (0, 1, 0), a quarter by the root, (-1, 0, 0), and three
	// quarters by the bone, (-3, 0, 0).
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {-0.5, 1.5, 0}, {-2.5, 0, 0}})
	checkPositions(t, m.meshes[1], []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}})
	checkPositions(t, m.meshes[2], []mgl32.Vec3{{0, 0, 0}, {32767, 0, 0}, {0, 32767, 50}})
	if len(m.materials) == 0 || !m.materials[0].Glass || m.materials[0].IOR != 1.33 {
		t.Errorf("materials %+v, want the glass of ior 1.33 first", m.materials)
	}
	if !strings.Contains(log.String(), "meshes[1].primitives[2]) is not drawn") {
		t.Errorf("warnings %q do not name the lines", log.String())
	}
	// Posed by "Wave" at 0.5 s: the third mesh's node moved by the
	// Hermite spline from 0 (out-tangent (1, 0, 0)) to (0, 0, 4) (in-
	// tangent (0, 2, 0)) at u = 0.5, 0.125·(1, 0, 0) + 0.5·(0, 0, 4) −
	// 0.125·(0, 2, 0), and its target's weight 1 (STEP).
	m, err = loadGLTFPose(a, path, gltfPose{name: "Wave", index: -1, time: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	o := mgl32.Vec3{0.125, -0.25, 2}
	checkPositions(t, m.meshes[2], []mgl32.Vec3{o, o.Add(mgl32.Vec3{32767, 0, 0}), o.Add(mgl32.Vec3{0, 32767, 100})})
}
