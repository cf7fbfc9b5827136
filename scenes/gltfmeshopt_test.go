package scenes

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/tracerender/trace/tracer"
)

// loadMeshoptTestdata loads testdata/meshopt/name, copied into a new
// scene folder.
func loadMeshoptTestdata(t *testing.T, name string) *importedMesh {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "meshopt", name))
	if err != nil {
		t.Fatal(err)
	}
	dir, a := gltfScene(t)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := loadGLTF(a, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// meshoptCorner is a triangle corner's data.
type meshoptCorner struct {
	p, n mgl32.Vec3
	uv   mgl32.Vec2
}

// sortedTriangles returns a mesh's triangles, each rotated to start at
// its least corner (by position, then normal, then uv) and sorted: the
// same list for two meshes that differ only in the order of their
// vertices and triangles (gltfpack -cc orders them otherwise than
// without -c).
func sortedTriangles(m tracer.MeshDesc) [][3]meshoptCorner {
	less := func(a, b meshoptCorner) int {
		for _, d := range [8]float32{a.p[0] - b.p[0], a.p[1] - b.p[1], a.p[2] - b.p[2], a.n[0] - b.n[0], a.n[1] - b.n[1], a.n[2] - b.n[2], a.uv[0] - b.uv[0], a.uv[1] - b.uv[1]} {
			if d < 0 {
				return -1
			} else if d > 0 {
				return 1
			}
		}
		return 0
	}
	var tris [][3]meshoptCorner
	for i := 0; i+2 < len(m.Indices); i += 3 {
		var c [3]meshoptCorner
		for k := range c {
			v := m.Indices[i+k]
			c[k] = meshoptCorner{p: m.Positions[v], n: m.Normals[v], uv: m.UVs[v]}
		}
		r := 0
		for k := 1; k < 3; k++ {
			if less(c[k], c[r]) < 0 {
				r = k
			}
		}
		tris = append(tris, [3]meshoptCorner{c[r], c[(r+1)%3], c[(r+2)%3]})
	}
	slices.SortFunc(tris, func(a, b [3]meshoptCorner) int {
		for k := range a {
			if c := less(a[k], b[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	return tris
}

// meshoptMaxDiff returns the largest difference of positions, normals
// and uvs between the corners of two lists of triangles of one length.
func meshoptMaxDiff(a, b [][3]meshoptCorner) (dp, dn, duv float32) {
	for i := range a {
		for k := range a[i] {
			x, y := a[i][k], b[i][k]
			for c := range 3 {
				dp = max(dp, abs32(x.p[c]-y.p[c]))
				dn = max(dn, abs32(x.n[c]-y.n[c]))
			}
			for c := range 2 {
				duv = max(duv, abs32(x.uv[c]-y.uv[c]))
			}
		}
	}
	return dp, dn, duv
}

// TestMeshoptGltfpackTwins loads the gallery's spheres (assets/spheres.gltf:
// 25 spheres of 561 vertices, normals and uvs) as gltfpack 1.3 wrote them
// (scripts/meshopt-vectors.sh): quantized without compression (the twin),
// with -c (ATTRIBUTES without a filter and TRIANGLES) and with -cc -vpf
// (normals through the OCTAHEDRAL filter, float positions through the
// EXPONENTIAL filter). -c must give the twin's meshes bit for bit; -cc
// -vpf the same triangles, ordered otherwise, within what the two
// quantizations lose: positions 5e-4 (the twin's 14 bits over the
// spheres' 12-unit span round by 3.7e-4, the exponential filter's
// 14-bit mantissa by less), normals 0.02 (the twin's 8-bit components round by
// 0.004, gltfpack's 8-bit octahedral grid by up to about 0.011), the
// same uvs (12 bits both). -cc -vpf -ce khr (KHR_meshopt_compression:
// the vertex codec's version 1) must give -cc -vpf's meshes bit for bit,
// the same data under another codec. Without the extensions read, the
// compressed files are refused (they require them).
func TestMeshoptGltfpackTwins(t *testing.T) {
	twin := loadMeshoptTestdata(t, "spheres.glb")
	if len(twin.meshes) != 25 {
		t.Fatalf("the twin has %d meshes, want 25", len(twin.meshes))
	}
	c := loadMeshoptTestdata(t, "spheres-c.glb")
	if len(c.meshes) != len(twin.meshes) {
		t.Fatalf("-c: %d meshes, the twin %d", len(c.meshes), len(twin.meshes))
	}
	for i, m := range c.meshes {
		w := twin.meshes[i]
		if !slices.Equal(m.Positions, w.Positions) || !slices.Equal(m.Normals, w.Normals) || !slices.Equal(m.UVs, w.UVs) {
			t.Errorf("-c: mesh %d's vertices differ from the twin's", i)
		}
		if !slices.Equal(sortedTriangles(m), sortedTriangles(w)) {
			t.Errorf("-c: mesh %d's triangles differ from the twin's", i)
		}
	}
	cc := loadMeshoptTestdata(t, "spheres-vpf-cc.glb")
	if len(cc.meshes) != len(twin.meshes) {
		t.Fatalf("-cc -vpf: %d meshes, the twin %d", len(cc.meshes), len(twin.meshes))
	}
	var dp, dn, duv float32
	for i, m := range cc.meshes {
		a, b := sortedTriangles(m), sortedTriangles(twin.meshes[i])
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("-cc -vpf: mesh %d has %d triangles, the twin's %d", i, len(a), len(b))
		}
		p, n, uv := meshoptMaxDiff(a, b)
		dp, dn, duv = max(dp, p), max(dn, n), max(duv, uv)
	}
	t.Logf("-cc -vpf against the twin: positions %.3g, normals %.3g, uvs %.3g at most", dp, dn, duv)
	khr := loadMeshoptTestdata(t, "spheres-vpf-cc-khr.glb")
	if len(khr.meshes) != len(cc.meshes) {
		t.Fatalf("-cc -vpf -ce khr: %d meshes, -cc -vpf %d", len(khr.meshes), len(cc.meshes))
	}
	for i, m := range khr.meshes {
		w := cc.meshes[i]
		if !slices.Equal(m.Positions, w.Positions) || !slices.Equal(m.Normals, w.Normals) || !slices.Equal(m.UVs, w.UVs) || !slices.Equal(m.Indices, w.Indices) {
			t.Errorf("-cc -vpf -ce khr: mesh %d differs from -cc -vpf's", i)
		}
	}
	if dp > 5e-4 || dn > 0.02 || duv != 0 || math.IsNaN(float64(dp+dn+duv)) {
		t.Errorf("-cc -vpf: positions %g (want ≤ 5e-4), normals %g (≤ 0.02), uvs %g (0) from the twin's", dp, dn, duv)
	}
}

// meshoptLiteralStream encodes count elements of stride bytes with the
// vertex codec, every group as 16 literal deltas (header bits 3): the
// simplest valid stream, for the loader's tests.
func meshoptLiteralStream(data []byte, count, stride int) []byte {
	out := []byte{meshoptVertexHeader}
	last := make([]byte, stride) // the baseline: zeros, in the tail
	per := meshoptBlockElements(stride)
	for first := 0; first < count; first += per {
		n := min(per, count-first)
		groups := (n + 15) / 16
		for k := range stride {
			for h := 0; h < (groups+3)/4; h++ {
				out = append(out, 0xff) // literal groups (unused bits too)
			}
			deltas := make([]byte, groups*16)
			for i := range n {
				v := data[(first+i)*stride+k]
				d := v - last[k]
				deltas[i] = d<<1 ^ byte(int8(d)>>7) // zigzag
				last[k] = v
			}
			out = append(out, deltas...)
		}
	}
	return append(out, make([]byte, max(stride, 32))...) // the tail: a zero baseline
}

// meshoptRename moves doc's meshopt extension objects and lists to the
// extension name.
func meshoptRename(doc *gltf.Document, name string) {
	rename := func(ext gltf.Extensions) {
		if v, ok := ext[gltfMeshoptExt]; ok {
			delete(ext, gltfMeshoptExt)
			ext[name] = v
		}
	}
	for _, bv := range doc.BufferViews {
		rename(bv.Extensions)
	}
	for _, b := range doc.Buffers {
		rename(b.Extensions)
	}
	doc.ExtensionsUsed = []string{name}
	doc.ExtensionsRequired = []string{name}
}

// meshoptDoc returns a document of one triangle whose positions
// (ATTRIBUTES) and indices (INDICES: 0, 2, 1) are compressed at the end
// of buffers[0], their views reading buffers[1], a fallback without
// data; buffers[0] begins with the uncompressed data gltf's modeler
// wrote, which no view reads any more.
func meshoptDoc(t testing.TB) *gltf.Document {
	t.Helper()
	doc := newGLTFDoc(gltfTriangle, []uint16{0, 2, 1})
	prim := doc.Meshes[0].Primitives[0]
	pv := *doc.Accessors[prim.Attributes[gltf.POSITION]].BufferView
	iv := *doc.Accessors[*prim.Indices].BufferView
	raw := make([]byte, 36)
	for i, p := range gltfTriangle {
		for c, v := range p {
			binary.LittleEndian.PutUint32(raw[12*i+4*c:], math.Float32bits(v))
		}
	}
	pos := meshoptLiteralStream(raw, 3, 12)
	idx := []byte{meshoptSequenceHeader, 0, 8, 2, 0, 0, 0, 0} // +0, +2, −1 from baseline 0
	b0 := doc.Buffers[0]
	start := len(b0.Data)
	b0.Data = append(append(append([]byte(nil), b0.Data...), pos...), idx...)
	b0.ByteLength = len(b0.Data)
	doc.Buffers = append(doc.Buffers,
		&gltf.Buffer{ByteLength: 64, Extensions: gltf.Extensions{gltfMeshoptExt: map[string]any{"fallback": true}}})
	if doc.BufferViews[pv].ByteLength != 36 || doc.BufferViews[iv].ByteLength != 6 {
		t.Fatalf("views of %d and %d bytes", doc.BufferViews[pv].ByteLength, doc.BufferViews[iv].ByteLength)
	}
	doc.BufferViews[pv].Buffer, doc.BufferViews[pv].ByteOffset = 1, 0
	doc.BufferViews[pv].Extensions = gltf.Extensions{gltfMeshoptExt: map[string]any{
		"buffer": 0, "byteOffset": start, "byteLength": len(pos), "byteStride": 12, "count": 3, "mode": "ATTRIBUTES"}}
	doc.BufferViews[iv].Buffer, doc.BufferViews[iv].ByteOffset = 1, 36
	doc.BufferViews[iv].Extensions = gltf.Extensions{gltfMeshoptExt: map[string]any{
		"buffer": 0, "byteOffset": start + len(pos), "byteLength": len(idx), "byteStride": 2, "count": 3, "mode": "INDICES", "filter": "NONE"}}
	doc.ExtensionsUsed = []string{gltfMeshoptExt}
	doc.ExtensionsRequired = []string{gltfMeshoptExt}
	return doc
}

// TestMeshoptLoadHandMade loads meshoptDoc's triangle, whose data comes
// only from its compressed views (the fallback buffer has none), as JSON
// and as GLB; in GLB also with the fallback buffer unmarked (a buffer
// without uri in a file that requires the extension); under either
// extension's name.
func TestMeshoptLoadHandMade(t *testing.T) {
	for _, name := range []string{gltfMeshoptExt, gltfMeshoptKHRExt} {
		for _, glb := range []bool{false, true} {
			for _, marked := range []bool{true, false} {
				if !glb && !marked {
					continue // writeGLTF embeds a buffer without uri
				}
				doc := meshoptDoc(t)
				meshoptRename(doc, name)
				if !marked {
					doc.Buffers[1].Extensions = nil
				}
				m := mustLoadGLTFDoc(t, doc, glb)
				if len(m.meshes) != 1 {
					t.Fatalf("%d meshes", len(m.meshes))
				}
				got := m.meshes[0]
				want := []mgl32.Vec3{gltfTriangle[0], gltfTriangle[1], gltfTriangle[2]}
				if !slices.Equal(got.Positions, want) || !slices.Equal(got.Indices, []uint32{0, 2, 1}) {
					t.Errorf("%s, glb %v, marked %v: positions %v indices %v, want %v and [0 2 1]", name, glb, marked, got.Positions, got.Indices, want)
				}
			}
		}
	}
}

// TestMeshoptLoadErrors refuses views whose extension object, counts,
// lengths or stream are wrong, each error naming the file and the
// view's JSON path, before allocating anything for a count the stream
// cannot hold; a count whose bytes would pass the scene's MaxAssetBytes
// is refused the same way.
func TestMeshoptLoadErrors(t *testing.T) {
	const at = "bufferViews[0].extensions.EXT_meshopt_compression: "
	ext := func(doc *gltf.Document) map[string]any {
		return doc.BufferViews[0].Extensions[gltfMeshoptExt].(map[string]any)
	}
	for _, tc := range []struct {
		name   string
		change func(doc *gltf.Document)
		msg    string
	}{
		{"no count", func(d *gltf.Document) { delete(ext(d), "count") }, at + "no count"},
		{"bad mode", func(d *gltf.Document) { ext(d)["mode"] = "QUADS" }, at + `mode "QUADS" is not ATTRIBUTES, TRIANGLES or INDICES`},
		{"bad filter", func(d *gltf.Document) { ext(d)["filter"] = "COLOR" }, at + `filter "COLOR" is not NONE`},
		{"filter on indices", func(d *gltf.Document) {
			ext(d)["mode"], ext(d)["byteStride"], ext(d)["count"], ext(d)["filter"] = "INDICES", 4, 9, "EXPONENTIAL"
		}, at + "filter EXPONENTIAL on INDICES"},
		{"stride of 6", func(d *gltf.Document) { ext(d)["byteStride"], ext(d)["count"] = 6, 6 }, at + "byteStride 6 of ATTRIBUTES is not a multiple of 4"},
		{"octahedral of 12", func(d *gltf.Document) { ext(d)["filter"] = "OCTAHEDRAL" }, at + "byteStride 12 of OCTAHEDRAL is not 4 or 8"},
		{"triangles of 10 indices", func(d *gltf.Document) { ext(d)["mode"], ext(d)["byteStride"], ext(d)["count"] = "TRIANGLES", 2, 10 }, at + "count 10 of TRIANGLES is not a multiple of 3"},
		{"count × stride not the view", func(d *gltf.Document) { ext(d)["count"] = 2 }, at + "count 2 × byteStride 12 is not the bufferView's byteLength 36"},
		{"count × stride overflows", func(d *gltf.Document) { ext(d)["count"] = int64(1) << 61 }, at + "count 2305843009213693952 × byteStride 12"},
		{"stride not the view's", func(d *gltf.Document) { d.BufferViews[0].ByteStride = 16 }, at + "byteStride 12 is not the bufferView's byteStride 16"},
		{"no such buffer", func(d *gltf.Document) { ext(d)["buffer"] = 7 }, at + "buffers[7] does not exist"},
		{"from the fallback", func(d *gltf.Document) { ext(d)["buffer"] = 1 }, at + "buffers[1] is a fallback buffer"},
		{"outside the buffer", func(d *gltf.Document) { ext(d)["byteOffset"] = 1000 }, at + "byteOffset 1000 and byteLength"},
		{"stream of another layout", func(d *gltf.Document) { ext(d)["byteStride"], ext(d)["count"] = 4, 9 }, at + "the ATTRIBUTES stream is corrupt"},
		{"least bytes", func(d *gltf.Document) { ext(d)["byteLength"] = 20 }, at + "byteLength 20 is less than the 45 bytes of the shortest ATTRIBUTES stream"},
		{"bad header byte", func(d *gltf.Document) { d.Buffers[0].Data[ext(d)["byteOffset"].(int)] = 0xa1 }, at + "the ATTRIBUTES stream is corrupt: header byte 0xa1"},
		{"tail too short", func(d *gltf.Document) {
			ext(d)["byteLength"] = ext(d)["byteLength"].(int) - 1
		}, at + "the ATTRIBUTES stream is corrupt"},
		{"uncompressed view of the fallback", func(d *gltf.Document) { d.BufferViews[0].Extensions = nil },
			"bufferViews[0] reads buffers[1], a meshopt fallback buffer without data, and is not compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := meshoptDoc(t)
			tc.change(doc)
			checkGLTFDocError(t, doc, tc.msg)
		})
	}
	// KHR_meshopt_compression allows COLOR (on 4 or 8 bytes) and the
	// vertex codec's version 1, whose header here has no valid stream.
	const khrAt = "bufferViews[0].extensions.KHR_meshopt_compression: "
	for _, tc := range []struct {
		name   string
		change func(doc *gltf.Document)
		msg    string
	}{
		{"color of 12", func(d *gltf.Document) { ext(d)["filter"] = "COLOR" }, khrAt + "byteStride 12 of COLOR is not 4 or 8"},
		{"bad filter", func(d *gltf.Document) { ext(d)["filter"] = "YUV" }, khrAt + `filter "YUV" is not NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL or COLOR`},
		{"version 1", func(d *gltf.Document) { d.Buffers[0].Data[ext(d)["byteOffset"].(int)] = 0xa1 }, khrAt + "the ATTRIBUTES stream is corrupt"},
		{"version 2", func(d *gltf.Document) { d.Buffers[0].Data[ext(d)["byteOffset"].(int)] = 0xa2 }, khrAt + "the ATTRIBUTES stream is corrupt: header byte 0xa2 is not 0xa0 or 0xa1"},
	} {
		t.Run("KHR "+tc.name, func(t *testing.T) {
			doc := meshoptDoc(t)
			tc.change(doc)
			meshoptRename(doc, gltfMeshoptKHRExt)
			checkGLTFDocError(t, doc, tc.msg)
		})
	}
	t.Run("budget", func(t *testing.T) { // 35 bytes: one less than the positions decode to
		checkGLTFOverBudget(t, meshoptDoc(t), 35, at+"decoded: the scene's files together are larger than the limit")
	})
}
