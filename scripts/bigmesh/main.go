// Command bigmesh writes a large test mesh for measuring how much memory
// and time loading a mesh takes (README, "Speed": "Loading large meshes").
// It subdivides a real mesh (by default the gallery's torus knot,
// scenes/examples/assets/knot.obj, 3456 triangles) LEVELS times, each
// triangle into four at its edges' midpoints (normals interpolated and
// renormalised, texture coordinates interpolated), and writes into DIR:
//
//	big.obj         v, vt, vn and f v/vt/vn
//	big-plain.obj   v and f only: normals computed on import
//	big.glb         POSITION, NORMAL, TEXCOORD_0 and uint32 indices
//	big-obj.json, big-plain.json, big-glb.json   a scene for each
//
// Six levels give 3456·4⁶ = 14,155,776 triangles (about 1.3 GB of OBJ):
//
//	go run ./scripts/bigmesh -o /tmp/bigmesh -levels 6
//	/usr/bin/time -v bin/trace validate --stats /tmp/bigmesh/big-obj.json
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

func main() {
	src := flag.String("mesh", "scenes/examples/assets/knot.obj", "the mesh to subdivide (.obj, .gltf or .glb, with normals and texture coordinates)")
	out := flag.String("o", "/tmp/bigmesh", "the folder to write into")
	levels := flag.Int("levels", 6, "subdivision levels: each multiplies the triangles by 4")
	flag.Parse()
	if err := run(*src, *out, *levels); err != nil {
		fmt.Fprintln(os.Stderr, "bigmesh:", err)
		os.Exit(1)
	}
}

func run(src, dir string, levels int) error {
	m, err := scenes.LoadMesh(src)
	if err != nil {
		return err
	}
	if len(m.Normals) == 0 || len(m.UVs) == 0 {
		return fmt.Errorf("%s: the mesh needs normals and texture coordinates", src)
	}
	for range levels {
		m = subdivide(m)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Printf("%d triangles, %d vertices\n", len(m.Indices)/3, len(m.Positions))
	if err := writeFile(filepath.Join(dir, "big.obj"), func(w *bufio.Writer) error { return writeOBJ(w, m, true) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "big-plain.obj"), func(w *bufio.Writer) error { return writeOBJ(w, m, false) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "big.glb"), func(w *bufio.Writer) error { return writeGLB(w, m) }); err != nil {
		return err
	}
	for name, file := range map[string]string{"big-obj.json": "big.obj", "big-plain.json": "big-plain.obj", "big-glb.json": "big.glb"} {
		if err := writeFile(filepath.Join(dir, name), func(w *bufio.Writer) error { return writeScene(w, file) }); err != nil {
			return err
		}
	}
	return nil
}

// subdivide splits every triangle of m into four at its edges' midpoints,
// one new vertex per edge.
func subdivide(m *tracer.MeshDesc) *tracer.MeshDesc {
	out := &tracer.MeshDesc{
		Positions: append([]mgl32.Vec3(nil), m.Positions...),
		Normals:   append([]mgl32.Vec3(nil), m.Normals...),
		UVs:       append([]mgl32.Vec2(nil), m.UVs...),
		Indices:   make([]uint32, 0, 4*len(m.Indices)),
	}
	mid := map[[2]uint32]uint32{}
	midpoint := func(a, b uint32) uint32 {
		key := [2]uint32{min(a, b), max(a, b)}
		if k, ok := mid[key]; ok {
			return k
		}
		k := uint32(len(out.Positions))
		out.Positions = append(out.Positions, m.Positions[a].Add(m.Positions[b]).Mul(0.5))
		out.Normals = append(out.Normals, m.Normals[a].Add(m.Normals[b]).Normalize())
		out.UVs = append(out.UVs, m.UVs[a].Add(m.UVs[b]).Mul(0.5))
		mid[key] = k
		return k
	}
	for t := 0; t+2 < len(m.Indices); t += 3 {
		a, b, c := m.Indices[t], m.Indices[t+1], m.Indices[t+2]
		ab, bc, ca := midpoint(a, b), midpoint(b, c), midpoint(c, a)
		out.Indices = append(out.Indices, a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca)
	}
	return out
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeOBJ writes m as OBJ, with vt and vn when full is set.
func writeOBJ(w *bufio.Writer, m *tracer.MeshDesc, full bool) error {
	var b []byte
	num := func(prefix string, xs ...float32) {
		b = append(b[:0], prefix...)
		for _, x := range xs {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, float64(x), 'f', 6, 32)
		}
		b = append(b, '\n')
		w.Write(b)
	}
	fmt.Fprintf(w, "# %d triangles: scripts/bigmesh\n", len(m.Indices)/3)
	for _, p := range m.Positions {
		num("v", p[0], p[1], p[2])
	}
	if full {
		for _, uv := range m.UVs {
			num("vt", uv[0], uv[1])
		}
		for _, n := range m.Normals {
			num("vn", n[0], n[1], n[2])
		}
	}
	for t := 0; t+2 < len(m.Indices); t += 3 {
		b = append(b[:0], 'f')
		for _, k := range m.Indices[t : t+3] {
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(k)+1, 10)
			if full {
				b = append(b, '/')
				b = strconv.AppendUint(b, uint64(k)+1, 10)
				b = append(b, '/')
				b = strconv.AppendUint(b, uint64(k)+1, 10)
			}
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// writeGLB writes m as a binary glTF file of one mesh of one primitive.
func writeGLB(w *bufio.Writer, m *tracer.MeshDesc) error {
	nv, ni := len(m.Positions), len(m.Indices)
	lo, hi := m.Positions[0], m.Positions[0]
	for _, p := range m.Positions {
		for i := range 3 {
			lo[i], hi[i] = min(lo[i], p[i]), max(hi[i], p[i])
		}
	}
	views := []map[string]any{
		{"buffer": 0, "byteOffset": 0, "byteLength": 12 * nv},
		{"buffer": 0, "byteOffset": 12 * nv, "byteLength": 12 * nv},
		{"buffer": 0, "byteOffset": 24 * nv, "byteLength": 8 * nv},
		{"buffer": 0, "byteOffset": 32 * nv, "byteLength": 4 * ni},
	}
	size := 32*nv + 4*ni
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0", "generator": "scripts/bigmesh"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0}}},
		"nodes":  []any{map[string]any{"mesh": 0}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3}}}},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3", "min": lo[:], "max": hi[:]},
			map[string]any{"bufferView": 1, "componentType": 5126, "count": nv, "type": "VEC3"},
			map[string]any{"bufferView": 2, "componentType": 5126, "count": nv, "type": "VEC2"},
			map[string]any{"bufferView": 3, "componentType": 5125, "count": ni, "type": "SCALAR"},
		},
		"bufferViews": views,
		"buffers":     []any{map[string]any{"byteLength": size}},
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	le := binary.LittleEndian
	var hdr [12]byte
	le.PutUint32(hdr[0:], 0x46546C67) // "glTF"
	le.PutUint32(hdr[4:], 2)
	le.PutUint32(hdr[8:], uint32(12+8+len(js)+8+size))
	w.Write(hdr[:])
	var ch [8]byte
	le.PutUint32(ch[0:], uint32(len(js)))
	le.PutUint32(ch[4:], 0x4E4F534A) // "JSON"
	w.Write(ch[:])
	w.Write(js)
	le.PutUint32(ch[0:], uint32(size))
	le.PutUint32(ch[4:], 0x004E4942) // "BIN"
	w.Write(ch[:])
	var f [4]byte
	put := func(x float32) { le.PutUint32(f[:], math.Float32bits(x)); w.Write(f[:]) }
	for _, p := range m.Positions {
		put(p[0])
		put(p[1])
		put(p[2])
	}
	for _, n := range m.Normals {
		put(n[0])
		put(n[1])
		put(n[2])
	}
	for _, uv := range m.UVs {
		put(uv[0])
		put(1 - uv[1]) // glTF's v runs down
	}
	for _, k := range m.Indices {
		le.PutUint32(f[:], k)
		if _, err := w.Write(f[:]); err != nil {
			return err
		}
	}
	return nil
}

// writeScene writes a small scene that places the mesh file.
func writeScene(w *bufio.Writer, file string) error {
	_, err := fmt.Fprintf(w, `{
  "version": 1,
  "render": {"width": 64, "height": 64, "samples": 1, "max_depth": 2},
  "camera": {"position": [0, 0, -12], "look_at": [0, 0, 0], "fov": 40},
  "lights": [{"type": "point", "position": [5, 5, -10], "color": [1, 1, 1], "intensity": 100}],
  "materials": {"white": {"type": "diffuse", "color": [0.73, 0.73, 0.73]}},
  "objects": [{"type": "mesh", "file": %q, "material": "white"}]
}
`, file)
	return err
}
