package scenes

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/qmuntal/gltf"
)

// loadSceneFile loads the glTF file at src, copied into a new scene
// folder, returning the mesh, the error and the copy's path.
func loadSceneFile(t *testing.T, src string) (*importedMesh, string, error) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir, a := gltfScene(t)
	p := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := loadGLTF(a, p)
	return m, p, err
}

// TestDracoGLTFTwin loads the gallery's 25 spheres with every primitive
// read from one Draco stream (draco_encoder -cl 0 at Blender's
// quantization, scripts/draco-vectors.sh) and from their uncompressed
// file (assets/spheres.gltf): the same meshes, the same triangles in the
// same order, within what the quantization loses: positions 1e-4 (14 bits
// over the sphere's span of 2 round by 6.1e-5), normals 0.005 (10-bit
// octahedral coordinates: a step of 2/1022 over the octahedron, about
// 0.003 on the sphere), uvs 1.3e-4 (12 bits over [0, 1]: 1.2e-4).
func TestDracoGLTFTwin(t *testing.T) {
	twin, _, err := loadSceneFile(t, filepath.Join("examples", "assets", "spheres.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := loadSceneFile(t, filepath.Join("testdata", "draco", "spheres-cl0-blender.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.meshes) != 25 || len(twin.meshes) != 25 {
		t.Fatalf("%d meshes, the twin %d; want 25", len(m.meshes), len(twin.meshes))
	}
	var dp, dn, duv float32
	for i := range m.meshes {
		a, b := m.meshes[i], twin.meshes[i]
		if len(a.Indices) != len(b.Indices) || len(a.Positions) != len(b.Positions) || a.Material != b.Material {
			t.Fatalf("mesh %d: %d indices, %d vertices, material %d; the twin %d, %d, %d", i, len(a.Indices), len(a.Positions), a.Material, len(b.Indices), len(b.Positions), b.Material)
		}
		if len(a.Normals) != len(a.Positions) || len(a.UVs) != len(a.Positions) || len(b.Normals) != len(b.Positions) || len(b.UVs) != len(b.Positions) {
			t.Fatalf("mesh %d: %d normals, %d uvs of %d vertices; the twin %d, %d of %d", i, len(a.Normals), len(a.UVs), len(a.Positions), len(b.Normals), len(b.UVs), len(b.Positions))
		}
		for k := range a.Indices {
			va, vb := a.Indices[k], b.Indices[k]
			for c := range 3 {
				dp = max(dp, abs32(a.Positions[va][c]-b.Positions[vb][c]))
				dn = max(dn, abs32(a.Normals[va][c]-b.Normals[vb][c]))
			}
			for c := range 2 {
				duv = max(duv, abs32(a.UVs[va][c]-b.UVs[vb][c]))
			}
		}
	}
	t.Logf("largest differences: positions %g, normals %g, uvs %g", dp, dn, duv)
	if dp > 1e-4 || dn > 0.005 || duv > 1.3e-4 {
		t.Errorf("largest differences: positions %g, normals %g, uvs %g; want at most 1e-4, 0.005, 1.3e-4", dp, dn, duv)
	}
}

// TestDracoGLTFEdgebreaker loads the gallery's spheres read from Draco's
// edgebreaker streams, Blender's default (-cl 6 at its quantization:
// parallelogram positions and texcoords) and draco_encoder's (-cl 7:
// portable texcoords, geometric normals) and the densest (-cl 10:
// constrained multi-parallelogram positions, the prediction-degree
// traversal), against their uncompressed twin.
// Edgebreaker reorders faces and vertices, so each mesh is compared as a
// set of triangles: every decoded vertex is matched with the twin's
// nearest (position, normal and uv together), each triangle must be one of
// the twin's (its corners rotated to the same first), met once, and the
// twin's not met degenerate ones (two corners at one position: the poles'
// 29 of each sphere, which Draco's encoder drops), within the
// quantization's error: at Blender's as in TestDracoGLTFTwin; at
// draco_encoder's (-cl 7 and 10: 11, 8 and 10 bits) positions 5e-4 (half of 2/2047),
// normals 0.015 (8-bit octahedral coordinates: a step of 2/254), uvs 5e-4
// (half of 1/1023).
func TestDracoGLTFEdgebreaker(t *testing.T) {
	twin, _, err := loadSceneFile(t, filepath.Join("examples", "assets", "spheres.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		dp, dn, duv float32
	}{
		{"spheres-cl6-blender.gltf", 1e-4, 0.005, 1.3e-4},
		{"spheres-cl7.gltf", 5e-4, 0.015, 5e-4},
		{"spheres-cl10.gltf", 5e-4, 0.015, 5e-4},
	} {
		name := tc.name
		m, _, err := loadSceneFile(t, filepath.Join("testdata", "draco", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(m.meshes) != 25 || len(twin.meshes) != 25 {
			t.Fatalf("%s: %d meshes, the twin %d; want 25", name, len(m.meshes), len(twin.meshes))
		}
		var dp, dn, duv float32
		for i := range m.meshes {
			a, b := m.meshes[i], twin.meshes[i]
			if len(a.Indices) > len(b.Indices) || a.Material != b.Material {
				t.Fatalf("%s: mesh %d: %d indices, material %d; the twin %d, %d", name, i, len(a.Indices), a.Material, len(b.Indices), b.Material)
			}
			if len(a.Normals) != len(a.Positions) || len(a.UVs) != len(a.Positions) {
				t.Fatalf("%s: mesh %d: %d normals, %d uvs of %d vertices", name, i, len(a.Normals), len(a.UVs), len(a.Positions))
			}
			match := make([]uint32, len(a.Positions))
			for va := range a.Positions {
				best, bestD := -1, float32(0)
				for vb := range b.Positions {
					var d float32
					for c := range 3 {
						d = max(d, abs32(a.Positions[va][c]-b.Positions[vb][c]), abs32(a.Normals[va][c]-b.Normals[vb][c])/50)
					}
					for c := range 2 {
						d = max(d, abs32(a.UVs[va][c]-b.UVs[vb][c]))
					}
					if best < 0 || d < bestD {
						best, bestD = vb, d
					}
				}
				match[va] = uint32(best)
				for c := range 3 {
					dp = max(dp, abs32(a.Positions[va][c]-b.Positions[best][c]))
					dn = max(dn, abs32(a.Normals[va][c]-b.Normals[best][c]))
				}
				for c := range 2 {
					duv = max(duv, abs32(a.UVs[va][c]-b.UVs[best][c]))
				}
			}
			tris := map[[3]uint32]int{}
			for k := 0; k < len(b.Indices); k += 3 {
				tris[dracoRotated(b.Indices[k], b.Indices[k+1], b.Indices[k+2])]++
			}
			for k := 0; k < len(a.Indices); k += 3 {
				tri := dracoRotated(match[a.Indices[k]], match[a.Indices[k+1]], match[a.Indices[k+2]])
				if tris[tri]--; tris[tri] < 0 {
					t.Fatalf("%s: mesh %d: triangle %d, the twin's %v, is not the twin's or is met twice", name, i, k/3, tri)
				}
			}
			dropped := 0
			for tri, n := range tris {
				if n == 0 {
					continue
				}
				p := b.Positions
				if p[tri[0]] != p[tri[1]] && p[tri[1]] != p[tri[2]] && p[tri[2]] != p[tri[0]] {
					t.Fatalf("%s: mesh %d: the twin's triangle %v is missing and not degenerate", name, i, tri)
				}
				dropped += n
			}
			if 3*dropped != len(b.Indices)-len(a.Indices) {
				t.Fatalf("%s: mesh %d: %d degenerate triangles dropped of %d missing", name, i, dropped, (len(b.Indices)-len(a.Indices))/3)
			}
		}
		t.Logf("%s: largest differences: positions %g, normals %g, uvs %g", name, dp, dn, duv)
		if dp > tc.dp || dn > tc.dn || duv > tc.duv {
			t.Errorf("%s: largest differences: positions %g, normals %g, uvs %g; want at most %g, %g, %g", name, dp, dn, duv, tc.dp, tc.dn, tc.duv)
		}
	}
}

// TestDracoGLTFRefusesDeprecated: a primitive whose stream names a
// prediction scheme of Draco before 1.2 is refused naming the file, the
// primitive's extension and the scheme, not drawn wrong.
func TestDracoGLTFRefusesDeprecated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "draco", "spheres-cl7.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	drc := dracoDeprecated(t, 2)
	doc["buffers"] = []any{map[string]any{"byteLength": len(drc), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(drc)}}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir, a := gltfScene(t)
	path := filepath.Join(dir, "deprecated.gltf")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = loadGLTF(a, path)
	checkGLTFError(t, err, path, "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: bufferViews[0]: attribute decoder 0: attribute 0 (POSITION): the deprecated prediction scheme 2 (Draco before 1.2): not supported")
}

// dracoRotated is a triangle's corners rotated to put the smallest first.
func dracoRotated(a, b, c uint32) [3]uint32 {
	switch {
	case b < a && b < c:
		return [3]uint32{b, c, a}
	case c < a && c < b:
		return [3]uint32{c, a, b}
	}
	return [3]uint32{a, b, c}
}

// TestDracoGLTFErrors refuses a Draco primitive whose extension object,
// accessors or stream do not fit, each error naming the file and the
// primitive's JSON path; the decoded bytes count against MaxAssetBytes.
func TestDracoGLTFErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "draco", "spheres-cl0-blender.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	load := func(t *testing.T) *gltf.Document {
		doc := new(gltf.Document)
		if err := json.Unmarshal(data, doc); err != nil {
			t.Fatal(err)
		}
		doc.Buffers[0].Data, err = gltfDataURI(doc.Buffers[0].URI)
		if err != nil {
			t.Fatal(err)
		}
		doc.Buffers[0].URI = ""
		doc.Meshes = doc.Meshes[:1]
		doc.Nodes = doc.Nodes[:1]
		doc.Scenes[0].Nodes = []int{0}
		return doc
	}
	ext := func(d *gltf.Document) map[string]any {
		e := map[string]any{}
		if err := gltfExtension(d.Meshes[0].Primitives[0].Extensions[gltfDracoExt], &e); err != nil {
			t.Fatal(err)
		}
		d.Meshes[0].Primitives[0].Extensions[gltfDracoExt] = e
		return e
	}
	attrs := func(d *gltf.Document) map[string]any { return ext(d)["attributes"].(map[string]any) }
	const at = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression"
	for _, tc := range []struct {
		name   string
		change func(d *gltf.Document)
		msg    string
	}{
		{"no bufferView", func(d *gltf.Document) { delete(ext(d), "bufferView") }, at + ": no bufferView"},
		{"no attributes", func(d *gltf.Document) { delete(ext(d), "attributes") }, at + ": no attributes"},
		{"bufferView out of range", func(d *gltf.Document) { ext(d)["bufferView"] = 7 }, at + ": bufferViews[7] does not exist"},
		{"strip", func(d *gltf.Document) { d.Meshes[0].Primitives[0].Mode = gltf.PrimitiveTriangleStrip }, at + ": mode TRIANGLE_STRIP (Draco decodes TRIANGLES only)"},
		{"unknown id", func(d *gltf.Document) { attrs(d)["POSITION"] = 9 }, at + ".attributes.POSITION: the Draco stream of bufferViews[0] has no attribute of unique id 9"},
		{"no such semantic", func(d *gltf.Document) { attrs(d)["COLOR_0"] = 1 }, at + ".attributes.COLOR_0: the primitive has no COLOR_0 attribute"},
		{"wrong count", func(d *gltf.Document) { d.Accessors[1].Count = 560 }, at + ".attributes.POSITION: accessors[1] has 560 elements, the Draco stream 561 points"},
		{"wrong type", func(d *gltf.Document) { attrs(d)["POSITION"] = 1 }, at + ".attributes.POSITION: accessors[1] is FLOAT VEC3, the Draco attribute 2 × float32"},
		{"wrong index count", func(d *gltf.Document) { d.Accessors[3].Count = 3069 }, at + ": indices: accessors[3] is 3069 × SCALAR, the Draco stream's 3072 indices"},
		{"truncated", func(d *gltf.Document) { d.BufferViews[0].ByteLength = 7000 }, at + ": bufferViews[0]: attribute decoder 0"},
		{"not Draco", func(d *gltf.Document) { d.Buffers[0].Data[0] = 'd' }, at + ": bufferViews[0]: not a Draco stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := load(t)
			tc.change(doc)
			checkGLTFDocError(t, doc, tc.msg)
		})
	}
	t.Run("budget", func(t *testing.T) { // 1000 bytes: less than the decoded indices take
		checkGLTFOverBudget(t, load(t), 1000, at+": bufferViews[0]: sequential connectivity: the scene's files together are larger than the limit")
	})
	t.Run("glb", func(t *testing.T) { // the stream in the BIN chunk
		m := mustLoadGLTFDoc(t, load(t), true)
		if len(m.meshes) != 1 || len(m.meshes[0].Indices) != 3072 || len(m.meshes[0].Positions) != 561 {
			t.Fatalf("%d meshes", len(m.meshes))
		}
		var hi float32 // the unit sphere's, moved by its node's translation (5, −5, 0)
		for _, p := range m.meshes[0].Positions {
			hi = max(hi, p[0])
		}
		if hi < 5.999 || hi > 6.001 {
			t.Errorf("largest x %g, want 6", hi)
		}
	})
}

// TestDracoGLTFColors loads a primitive whose POSITION and COLOR_0 (an
// UNSIGNED_BYTE normalized VEC4 accessor) come from a Draco stream of
// 8-bit RGBA colours (testdata/draco/sphere-color-cl0.drc): each vertex's
// colour is its decoded bytes / 255, as for an uncompressed accessor.
func TestDracoGLTFColors(t *testing.T) {
	src := readDracoVector(t, "sphere-color-cl0")
	dm, err := decodeDraco(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	pos, col := dracoAttrOfKind(t, dm, 0), dracoAttrOfKind(t, dm, 2)
	doc := &gltf.Document{
		Asset:              gltf.Asset{Version: "2.0"},
		ExtensionsUsed:     []string{gltfDracoExt},
		ExtensionsRequired: []string{gltfDracoExt},
		Buffers:            []*gltf.Buffer{{ByteLength: len(src), Data: src}},
		BufferViews:        []*gltf.BufferView{{Buffer: 0, ByteLength: len(src)}},
		Accessors: []*gltf.Accessor{
			{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: dm.numPoints},
			{ComponentType: gltf.ComponentUbyte, Normalized: true, Type: gltf.AccessorVec4, Count: dm.numPoints},
			{ComponentType: gltf.ComponentUshort, Type: gltf.AccessorScalar, Count: len(dm.indices)},
		},
		Meshes: []*gltf.Mesh{{Primitives: []*gltf.Primitive{{
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: 0, gltf.COLOR_0: 1},
			Indices:    gltf.Index(2),
			Extensions: gltf.Extensions{gltfDracoExt: map[string]any{
				"bufferView": 0, "attributes": map[string]any{"POSITION": pos.uniqueID, "COLOR_0": col.uniqueID}}},
		}}}},
		Nodes:  []*gltf.Node{{Mesh: gltf.Index(0)}},
		Scenes: []*gltf.Scene{{Nodes: []int{0}}},
	}
	m := mustLoadGLTFDoc(t, doc, false)
	if len(m.meshes) != 1 || len(m.meshes[0].Colors) != dm.numPoints {
		t.Fatalf("%d meshes, want 1 with %d colours", len(m.meshes), dm.numPoints)
	}
	for i, c := range m.meshes[0].Colors {
		for k := range 3 {
			if want := float32(col.data[4*i+k]) / 255; c[k] != want {
				t.Fatalf("vertex %d: colour %v, want %v/255", i, c, col.data[4*i:4*i+3])
			}
		}
	}
	if !slices.Equal(m.meshes[0].Indices, dm.indices) {
		t.Errorf("indices differ from the stream's")
	}
}
