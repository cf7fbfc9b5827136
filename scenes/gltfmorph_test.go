package scenes

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// morphDoc returns newGLTFDoc's triangle with two POSITION targets:
// target 0 moves the vertices by (0, 0, 2), (1, 0, 0), (0, 0, 0), target
// 1 by (0, 4, 0), (0, 0, 4), (2, 2, 2).
func morphDoc() *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Meshes[0].Primitives[0].Targets = []gltf.PrimitiveAttributes{
		{gltf.POSITION: modeler.WritePosition(doc, [][3]float32{{0, 0, 2}, {1, 0, 0}, {0, 0, 0}})},
		{gltf.POSITION: modeler.WritePosition(doc, [][3]float32{{0, 4, 0}, {0, 0, 4}, {2, 2, 2}})},
	}
	return doc
}

// TestLoadGLTFMorphWeights: a primitive with morph targets is drawn at
// base + Σ weight_i · target_i (glTF 2.0 §3.7.2.2), with the mesh's
// weights, or the node's where it has them, then placed by the node; no
// weights at all is the base shape. Nothing is warned.
func TestLoadGLTFMorphWeights(t *testing.T) {
	log := captureWarnings(t)
	doc := morphDoc()
	doc.Nodes[0].Translation = [3]float64{5, 0, 0}
	m := mustLoadGLTFDoc(t, doc, false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{5, 0, 0}, {6, 0, 0}, {5, 1, 0}})

	// (0, 0, 0) + 0.5·(0, 0, 2) + 0.25·(0, 4, 0), (1, 0, 0) + 0.5·(1, 0,
	// 0) + 0.25·(0, 0, 4), (0, 1, 0) + 0.25·(2, 2, 2); moved by (5, 0, 0).
	doc.Meshes[0].Weights = []float64{0.5, 0.25}
	m = mustLoadGLTFDoc(t, doc, true)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{5, 1, 1}, {6.5, 0, 1}, {5.5, 1.5, 0.5}})

	// The node's weights win over the mesh's, and may leave [0, 1].
	doc.Nodes[0].Weights = []float64{0, -1}
	m = mustLoadGLTFDoc(t, doc, false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{5, -4, 0}, {6, 0, -4}, {3, -1, -2}})
	if got := log.String(); got != "" {
		t.Errorf("warnings %q, want none", got)
	}
}

// TestLoadGLTFMorphSparse: a target stored as a sparse accessor without
// a bufferView (zeros but for its values, as Blender and glTF-Transform
// write shape keys that move a few vertices) moves those vertices only.
func TestLoadGLTFMorphSparse(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	idx := modeler.WriteBufferView(doc, gltf.TargetNone, []uint8{2})
	val := modeler.WriteBufferView(doc, gltf.TargetNone, [][3]float32{{0, 0, 3}})
	doc.Accessors = append(doc.Accessors, &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 3,
		Sparse: &gltf.Sparse{Count: 1,
			Indices: gltf.SparseIndices{BufferView: idx, ComponentType: gltf.ComponentUbyte},
			Values:  gltf.SparseValues{BufferView: val}}})
	doc.Meshes[0].Primitives[0].Targets = []gltf.PrimitiveAttributes{{gltf.POSITION: len(doc.Accessors) - 1}}
	doc.Meshes[0].Weights = []float64{0.5}
	m := mustLoadGLTFDoc(t, doc, false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 1.5}})
}

// TestLoadGLTFMorphQuantized: in a file that lists KHR_mesh_quantization,
// targets may be BYTE or SHORT (normalized or not) displacements of
// POSITION, as the extension's "Extending Morph Target Attributes" allows
// (a normalized SHORT c is max(c/32767, −1)), here under a node that
// dequantizes base and displacements alike; without the extension, or of
// a type it does not allow for targets, they are errors.
func TestLoadGLTFMorphQuantized(t *testing.T) {
	doc := func(target any, normalized, listed bool) *gltf.Document {
		d := gltf.NewDocument()
		var pos int
		if listed {
			pos = modeler.WriteAccessor(d, gltf.TargetArrayBuffer, [][3]int16{{0, 0, 0}, {100, 0, 0}, {0, 100, 0}})
		} else {
			pos = modeler.WritePosition(d, [][3]float32{{0, 0, 0}, {100, 0, 0}, {0, 100, 0}})
		}
		ti := modeler.WriteAccessor(d, gltf.TargetArrayBuffer, target)
		d.Accessors[ti].Normalized = normalized
		prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Targets: []gltf.PrimitiveAttributes{{gltf.POSITION: ti}}}
		d.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{prim}, Weights: []float64{0.5}}}
		d.Nodes = []*gltf.Node{{Mesh: gltf.Index(0), Scale: [3]float64{0.01, 0.01, 0.01}}}
		d.Scenes[0].Nodes = []int{0}
		if listed {
			d.ExtensionsUsed = []string{gltfQuantizationExt}
			d.ExtensionsRequired = []string{gltfQuantizationExt}
		}
		return d
	}
	m := mustLoadGLTFDoc(t, doc([][3]int16{{0, 0, 200}, {-100, 0, 0}, {0, -50, 0}}, false, true), false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 1}, {0.5, 0, 0}, {0, 0.75, 0}})
	m = mustLoadGLTFDoc(t, doc([][3]int16{{0, 0, 32767}, {-32768, 0, 0}, {0, 0, 0}}, true, true), false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0.005}, {0.995, 0, 0}, {0, 1, 0}})
	m = mustLoadGLTFDoc(t, doc([][3]int8{{0, 0, 4}, {0, 0, 0}, {0, 0, -4}}, false, true), false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0.02}, {1, 0, 0}, {0, 1, -0.02}})

	for _, tc := range []struct {
		name       string
		target     any
		normalized bool
		listed     bool
		msg        string
	}{
		{"not listed", [][3]int16{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false, false,
			"meshes[0].primitives[0].targets[0].POSITION is SHORT VEC3, not supported (only FLOAT VEC3; KHR_mesh_quantization, which the file does not list in extensionsUsed, would allow BYTE or SHORT)"},
		{"unsigned", [][3]uint16{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}, false, true,
			"meshes[0].primitives[0].targets[0].POSITION is UNSIGNED_SHORT VEC3, not supported (only FLOAT VEC3, or with KHR_mesh_quantization BYTE or SHORT)"},
		{"VEC4", [][4]float32{{0, 0, 1, 0}, {0, 0, 1, 0}, {0, 0, 1, 0}}, false, true,
			"meshes[0].primitives[0].targets[0].POSITION is FLOAT VEC4, not supported"},
		{"count", [][3]float32{{0, 0, 1}, {0, 0, 1}}, false, true,
			"meshes[0].primitives[0].targets[0].POSITION has 2 elements, POSITION 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGLTFDocError(t, doc(tc.target, tc.normalized, tc.listed), tc.msg)
		})
	}
}

// TestLoadGLTFMorphNormals: NORMAL and TANGENT targets displace the
// normals and the tangents' xyz, which are then renormalised (the
// tangents keep their handedness); a target's TEXCOORD_0 is not applied,
// and one warning line says so.
func TestLoadGLTFMorphNormals(t *testing.T) {
	log := captureWarnings(t)
	doc := newGLTFDoc(gltfTriangle, nil)
	p := doc.Meshes[0].Primitives[0]
	p.Attributes[gltf.NORMAL] = modeler.WriteNormal(doc, [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}})
	p.Attributes[gltf.TANGENT] = modeler.WriteTangent(doc, [][4]float32{{1, 0, 0, -1}, {1, 0, 0, 1}, {1, 0, 0, 1}})
	p.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, [][2]float32{{0, 0}, {1, 0}, {0, 1}})
	p.Targets = []gltf.PrimitiveAttributes{{
		gltf.NORMAL:     modeler.WriteNormal(doc, [][3]float32{{2, 0, -1}, {0, 0, 0}, {0, 0, -2}}),
		gltf.TANGENT:    modeler.WriteNormal(doc, [][3]float32{{-1, 1, 0}, {0, 0, 0}, {-2, 0, 0}}),
		gltf.TEXCOORD_0: modeler.WriteTextureCoord(doc, [][2]float32{{1, 1}, {1, 1}, {1, 1}}),
	}}
	doc.Meshes[0].Weights = []float64{0.5}
	m := mustLoadGLTFDoc(t, doc, false).meshes[0]
	checkPositions(t, m, []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	// (0, 0, 1) + 0.5·(2, 0, −1) = (1, 0, 0.5), over its length √1.25;
	// (0, 0, 1) + 0.5·(0, 0, −2) = 0: a zero normal, so the mesh is
	// drawn flat as one without morph targets would be.
	if m.Normals != nil {
		t.Errorf("normals %v, want none (vertex 2's morphed normal is zero)", m.Normals)
	}
	if want := []mgl32.Vec4{{float32(math.Sqrt(0.5)), float32(math.Sqrt(0.5)), 0, -1}, {1, 0, 0, 1}, {0, 0, 0, 1}}; !closeVec4s(m.Tangents, want) {
		t.Errorf("tangents %v, want %v", m.Tangents, want)
	}
	doc.Meshes[0].Weights = []float64{0.25}
	m = mustLoadGLTFDoc(t, doc, false).meshes[0]
	r := float32(1 / math.Sqrt(0.25+0.75*0.75))
	for i, want := range []mgl32.Vec3{{0.5 * r, 0, 0.75 * r}, {0, 0, 1}, {0, 0, 1}} {
		if !closeVec3(m.Normals[i], want) {
			t.Errorf("normal %d = %v, want %v", i, m.Normals[i], want)
		}
	}
	if want := []mgl32.Vec4{{0.75 / 0.790569415, 0.25 / 0.790569415, 0, -1}, {1, 0, 0, 1}, {1, 0, 0, 1}}; !closeVec4s(m.Tangents, want) {
		t.Errorf("tangents %v, want %v", m.Tangents, want)
	}
	want := `model.gltf: a morph target attribute (meshes[0].primitives[0].targets[0].TEXCOORD_0) is not applied: only POSITION, NORMAL and TANGENT are morphed`
	if got := log.String(); strings.Count(got, "\n") != 2 || !strings.Contains(got, want) {
		t.Errorf("log %q: want a line with %q for each of the two loads", got, want)
	}
}

// closeVec4s reports whether a and b are equal within gltfTol.
func closeVec4s(a, b []mgl32.Vec4) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		for c := range 4 {
			if math.Abs(float64(a[i][c]-b[i][c])) > gltfTol {
				return false
			}
		}
	}
	return true
}

// TestLoadGLTFMorphSkin: a skinned primitive is morphed first and then
// skinned, as glTF says: the displacement turns with the joint.
func TestLoadGLTFMorphSkin(t *testing.T) {
	doc := morphDoc()
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]uint8{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}})
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]float32{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
	s := math.Sqrt(0.5)
	doc.Nodes[0].Skin = gltf.Index(0)
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "bone", Rotation: [4]float64{0, 0, s, s}, Translation: [3]float64{0, 0, 1}}) // 90° about z
	doc.Scenes[0].Nodes = []int{0, 1}
	doc.Skins = []*gltf.Skin{{Joints: []int{1}}}
	doc.Meshes[0].Weights = []float64{1, 0}
	m := mustLoadGLTFDoc(t, doc, false)
	// Morphed: (0, 0, 2), (2, 0, 0), (0, 1, 0); turned 90° about z, (x,
	// y, z) → (−y, x, z), and raised by 1.
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 3}, {0, 2, 1}, {-1, 0, 1}})
}

// TestLoadGLTFMorphErrors: weights of another length than the targets,
// weights that are not finite, a morphed position out of float32's range
// and a target that is not finite are errors naming where they are.
func TestLoadGLTFMorphErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*gltf.Document)
		msg  string
	}{
		{"mesh weights", func(d *gltf.Document) { d.Meshes[0].Weights = []float64{1} },
			"meshes[0].weights has 1 values, meshes[0].primitives[0] 2 morph targets"},
		{"node weights", func(d *gltf.Document) { d.Nodes[0].Weights = []float64{1, 0, 0} },
			"nodes[0].weights has 3 values, meshes[0].primitives[0] 2 morph targets"},
		{"overflow", func(d *gltf.Document) { d.Meshes[0].Weights = []float64{1e38, 1e38} },
			"nodes[0]: meshes[0].primitives[0]: POSITION 0 is not finite after the morph targets"},
		{"target", func(d *gltf.Document) {
			bv := modeler.WriteBufferView(d, gltf.TargetArrayBuffer, [][3]float32{{0, 0, 0}, {float32(math.Inf(1)), 0, 0}, {0, 0, 0}})
			d.Accessors = append(d.Accessors, &gltf.Accessor{BufferView: gltf.Index(bv), ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 3})
			d.Meshes[0].Primitives[0].Targets[1][gltf.POSITION] = len(d.Accessors) - 1
		}, "meshes[0].primitives[0].targets[1].POSITION 1 is not finite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := morphDoc()
			tc.edit(doc)
			checkGLTFDocError(t, doc, tc.msg)
		})
	}
}

// TestLoadGLTFMorphMeshopt: a target whose accessor reads a view
// compressed with EXT_meshopt_compression is read as any: here
// meshoptDoc's compressed positions, as a target of weight 1, double them.
func TestLoadGLTFMorphMeshopt(t *testing.T) {
	doc := meshoptDoc(t)
	pos := *doc.Accessors[doc.Meshes[0].Primitives[0].Attributes[gltf.POSITION]]
	doc.Accessors = append(doc.Accessors, &pos)
	doc.Meshes[0].Primitives[0].Targets = []gltf.PrimitiveAttributes{{gltf.POSITION: len(doc.Accessors) - 1}}
	doc.Meshes[0].Weights = []float64{1}
	m := mustLoadGLTFDoc(t, doc, true)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}})
}

// TestLoadGLTFMorphDraco: a Draco primitive's targets are uncompressed
// accessors over its vertices. Over the sequential encoding, which keeps
// the vertices in the encoder's order (Blender's exporter's for meshes
// with shape keys), they apply: a sparse target moving vertex 7 of the
// first sphere of spheres-cl0-blender.gltf moves it alone. Over
// edgebreaker (spheres-cl7.gltf), which renumbers the vertices, weights
// other than 0 are an error saying so; weights of 0 draw the base shape.
func TestLoadGLTFMorphDraco(t *testing.T) {
	edit := func(t *testing.T, name string, weight float64) string {
		data, err := os.ReadFile(filepath.Join("testdata", "draco", name))
		if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		list := func(key string) []any { return d[key].([]any) }
		// A buffer of the index 7 (UNSIGNED_SHORT, padded) and the value
		// (0, 0, 5).
		raw := []byte{7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xa0, 0x40}
		d["buffers"] = append(list("buffers"), map[string]any{"byteLength": len(raw), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(raw)})
		nb := len(list("buffers")) - 1
		d["bufferViews"] = append(list("bufferViews"), map[string]any{"buffer": nb, "byteLength": 2}, map[string]any{"buffer": nb, "byteOffset": 4, "byteLength": 12})
		nv := len(list("bufferViews"))
		mesh := list("meshes")[0].(map[string]any)
		prim := mesh["primitives"].([]any)[0].(map[string]any)
		count := list("accessors")[int(prim["attributes"].(map[string]any)["POSITION"].(float64))].(map[string]any)["count"]
		d["accessors"] = append(list("accessors"), map[string]any{"componentType": 5126, "type": "VEC3", "count": count,
			"sparse": map[string]any{"count": 1, "indices": map[string]any{"bufferView": nv - 2, "componentType": 5123}, "values": map[string]any{"bufferView": nv - 1}}})
		prim["targets"] = []any{map[string]any{"POSITION": len(list("accessors")) - 1}}
		mesh["weights"] = []any{weight}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base, _, err := loadSceneFile(t, filepath.Join("testdata", "draco", "spheres-cl0-blender.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := loadSceneFile(t, edit(t, "spheres-cl0-blender.gltf", 0.5))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range m.meshes[0].Positions {
		want := base.meshes[0].Positions[i]
		if i == 7 {
			want = want.Add(mgl32.Vec3{0, 0, 2.5})
		}
		if !closeVec3(p, want) {
			t.Errorf("sequential: vertex %d at %v, want %v", i, p, want)
		}
	}

	if _, _, err := loadSceneFile(t, edit(t, "spheres-cl7.gltf", 0)); err != nil {
		t.Errorf("edgebreaker, weight 0: %v", err)
	}
	_, p, err := loadSceneFile(t, edit(t, "spheres-cl7.gltf", 0.5))
	checkGLTFError(t, err, p, "nodes[0]: meshes[0].primitives[0]: morph targets with weights other than 0 on a primitive compressed with Draco's edgebreaker encoding: not supported")
}

// TestLoadGLTFMorphShared: nodes that give a primitive the same weights
// (the mesh's, or one animation sampler's) share its morphed vertices,
// computed once, where each instance summed every target over every
// vertex again (nodes × vertices × targets: 16.6 s for a 108 kB GLB of
// 1000 nodes of a 3000-vertex mesh with 1000 targets, 0.2 s shared); a
// node of weights of its own has its own. Each is drawn at its weights.
func TestLoadGLTFMorphShared(t *testing.T) {
	load := func(doc *gltf.Document, p gltfPose) *gltfLoader {
		t.Helper()
		dir, a := gltfScene(t)
		l := newGLTFLoader(a, writeGLTF(t, filepath.Join(dir, "model.gltf"), doc))
		if err := l.load(p); err != nil {
			t.Fatal(err)
		}
		return l
	}
	const nodes = 50
	newDoc := func() *gltf.Document {
		doc := morphDoc()
		for i := 1; i < nodes; i++ {
			doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0), Translation: [3]float64{float64(i), 0, 0}})
			doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
		}
		return doc
	}
	doc := newDoc()
	doc.Meshes[0].Weights = []float64{0.5, 0.25}
	doc.Nodes[7].Weights = []float64{0, -1}
	l := load(doc, noGLTFPose)
	if len(l.out.meshes) != nodes {
		t.Fatalf("%d meshes, want %d", len(l.out.meshes), nodes)
	}
	// morphDoc's closed forms (TestLoadGLTFMorphWeights), moved by (i, 0, 0).
	checkPositions(t, l.out.meshes[3], []mgl32.Vec3{{3, 1, 1}, {4.5, 0, 1}, {3.5, 1.5, 0.5}})
	checkPositions(t, l.out.meshes[7], []mgl32.Vec3{{7, -4, 0}, {8, 0, -4}, {5, -1, -2}})
	checkPositions(t, l.out.meshes[9], []mgl32.Vec3{{9, 1, 1}, {10.5, 0, 1}, {9.5, 1.5, 0.5}})
	// The mesh's weights, then nodes[7]'s, then the mesh's again.
	if l.morphs != 3 {
		t.Errorf("%d morphs computed for %d nodes of two sets of weights, want 3", l.morphs, nodes)
	}

	// An animation's one sampler poses every node alike.
	doc = newDoc()
	a := &gltf.Animation{Name: "Faces", Samplers: []*gltf.AnimationSampler{{
		Input:  modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0}),
		Output: modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0.5, 0.25})}}}
	for i := range nodes {
		a.Channels = append(a.Channels, &gltf.AnimationChannel{Target: gltf.AnimationChannelTarget{Node: gltf.Index(i), Path: gltf.TRSWeights}})
	}
	doc.Animations = []*gltf.Animation{a}
	l = load(doc, posedAt("Faces", 0))
	checkPositions(t, l.out.meshes[7], []mgl32.Vec3{{7, 1, 1}, {8.5, 0, 1}, {7.5, 1.5, 0.5}})
	if l.morphs != 1 {
		t.Errorf("%d morphs computed for %d nodes posed by one sampler, want 1", l.morphs, nodes)
	}
}
