// Command gen writes the gallery's procedural assets into
// scenes/examples/assets: knot.obj, a (2,3) torus knot tube with normals
// and texture coordinates; tiles.png, a tile texture; spheres.gltf, a 5×5
// grid of spheres whose glTF metallic-roughness materials run from
// dielectric to metal (rows) and smooth to rough (columns), after the
// Khronos sample model MetalRoughSpheres; and sky.hdr, an equirectangular
// sky with a sun, in Radiance RGBE. Run it from the repository root:
//
//	go run ./scenes/examples/assets/gen
//
// With -alpha-modes DIR it writes instead, for scripts/sample-models.sh,
// DIR/AlphaModes.gltf and DIR/alpha.png, after the Khronos sample model
// AlphaBlendModeTest: six quads in a row before an opaque backdrop, with
// a base colour texture whose alpha rises from 0 at the left to 1 at the
// right, as OPAQUE, MASK (the default cutoff 0.5), MASK with cutoff 0.25,
// BLEND, BLEND with a base colour factor alpha of 0.5, and BLEND with no
// texture and a factor alpha of 0.3.
//
// With -glass DIR it writes, for the same script, DIR/Glass.gltf and
// DIR/checker.png: four glass spheres of KHR_materials_transmission 1
// (clear at ior 1.5, rough at 0.3, tinted, and water at ior 1.33 through
// KHR_materials_ior) before a backdrop that emits a checkerboard, the way
// Blender's glTF exporter writes a Principled BSDF of full transmission.
//
// With -spec-gloss DIR it writes, for the same script, DIR/SpecGloss.gltf
// and its textures: three spheres of KHR_materials_pbrSpecularGlossiness
// above their metallic-roughness twins, after the Khronos sample model
// SpecGlossVsMetalRough (writeSpecGlossModel).
//
// With -unlit DIR it writes, for the same script, DIR/Unlit.gltf and
// DIR/checker.png: spheres of KHR_materials_unlit (two base colour
// factors and a texture) above their lit metallic-roughness twins
// (writeUnlitModel).
//
// The output is deterministic; the committed files are its output.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"maps"
	"math"
	"os"
	"path/filepath"
)

const dir = "scenes/examples/assets"

func main() {
	alpha := flag.String("alpha-modes", "", "write only AlphaModes.gltf and alpha.png, into this folder")
	glass := flag.String("glass", "", "write only Glass.gltf and checker.png, into this folder")
	specGloss := flag.String("spec-gloss", "", "write only SpecGloss.gltf and its textures, into this folder")
	unlit := flag.String("unlit", "", "write only Unlit.gltf and checker.png, into this folder")
	flag.Parse()
	// One model alone, into the folder its flag names.
	for _, m := range []struct {
		dir   string
		write func(string) error
	}{{*unlit, writeUnlitModel}, {*specGloss, writeSpecGlossModel}, {*alpha, writeAlphaModesModel}, {*glass, writeGlassModel}} {
		if m.dir != "" {
			if err := m.write(m.dir); err != nil {
				log.Fatal(err)
			}
			return
		}
	}
	if err := writeKnot(filepath.Join(dir, "knot.obj"), 144, 12); err != nil {
		log.Fatal(err)
	}
	if err := writeTiles(filepath.Join(dir, "tiles.png"), 128); err != nil {
		log.Fatal(err)
	}
	if err := writeSpheres(filepath.Join(dir, "spheres.gltf"), 5, 32, 16); err != nil {
		log.Fatal(err)
	}
	if err := writeSky(filepath.Join(dir, "sky.hdr"), 256, 128); err != nil {
		log.Fatal(err)
	}
}

type vec [3]float64

func (a vec) add(b vec) vec     { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec) sub(b vec) vec     { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec) mul(s float64) vec { return vec{a[0] * s, a[1] * s, a[2] * s} }
func (a vec) dot(b vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec) norm() vec         { return a.mul(1 / math.Sqrt(a.dot(a))) }
func (a vec) cross(b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func knot(t float64) vec {
	return vec{(2 + math.Cos(3*t)) * math.Cos(2*t), (2 + math.Cos(3*t)) * math.Sin(2*t), math.Sin(3 * t)}
}
func tangent(t float64) vec        { return knot(t + 1e-4).sub(knot(t - 1e-4)).norm() }
func clamp(x float64) float64      { return math.Max(0, math.Min(1, x)) }
func lerp(a, b, t float64) float64 { return a + (b-a)*t }

// writeKnot writes a tube of radius 0.45 around the (2,3) torus knot, with
// seg rings of sides vertices; u runs along the knot (4 repeats), v around
// the tube.
func writeKnot(path string, seg, sides int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# (2,3) torus knot tube, %d triangles, made by scenes/examples/assets/gen\n", 2*seg*sides)
	const r = 0.45
	up := vec{0, 0, 1}
	for i := 0; i <= seg; i++ {
		t := 2 * math.Pi * float64(i) / float64(seg)
		c, tg := knot(t), tangent(t)
		n := up.sub(tg.mul(up.dot(tg))).norm()
		b := tg.cross(n)
		for j := 0; j <= sides; j++ {
			a := 2 * math.Pi * float64(j) / float64(sides)
			d := n.mul(math.Cos(a)).add(b.mul(math.Sin(a)))
			p := c.add(d.mul(r))
			fmt.Fprintf(w, "v %.4f %.4f %.4f\n", p[0], p[1], p[2])
			fmt.Fprintf(w, "vt %.4f %.4f\n", 4*float64(i)/float64(seg), float64(j)/float64(sides))
			fmt.Fprintf(w, "vn %.4f %.4f %.4f\n", d[0], d[1], d[2])
		}
	}
	idx := func(i, j int) int { return i*(sides+1) + j + 1 }
	for i := 0; i < seg; i++ {
		for j := 0; j < sides; j++ {
			a, b, c, d := idx(i, j), idx(i+1, j), idx(i+1, j+1), idx(i, j+1)
			fmt.Fprintf(w, "f %d/%d/%d %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, b, b, b, c, c, c, d, d, d)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// writeTiles writes a size×size texture of 4×4 glazed tiles in warm and
// cool colours with dark grout.
func writeTiles(path string, size int) error {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	palette := [][3]float64{{0.85, 0.45, 0.2}, {0.2, 0.45, 0.7}, {0.9, 0.8, 0.45}, {0.35, 0.6, 0.45}}
	tile := size / 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			tx, ty := x/tile, y/tile
			c := palette[(tx+2*ty+ty/2)%len(palette)]
			fx, fy := float64(x%tile)/float64(tile), float64(y%tile)/float64(tile)
			// Grout at the edges, a soft glaze shading inside.
			edge := math.Min(math.Min(fx, 1-fx), math.Min(fy, 1-fy))
			shade := lerp(0.75, 1.0, clamp(edge*6)) * (0.92 + 0.08*math.Sin(fx*7+fy*5+float64(tx*3+ty)))
			if edge < 0.04 {
				c, shade = [3]float64{0.25, 0.23, 0.22}, 1
			}
			img.SetNRGBA(x, y, color.NRGBA{
				uint8(255 * clamp(c[0]*shade)), uint8(255 * clamp(c[1]*shade)), uint8(255 * clamp(c[2]*shade)), 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		return err
	}
	return f.Close()
}

// writeSpheres writes an n×n grid of unit spheres (seg × rings UV spheres,
// with normals and texture coordinates) 2.5 apart in the xy plane, facing
// −z; row i (from the bottom) has metallic i/(n−1), column j roughness
// j/(n−1) (columns run toward −x, the image's right for a camera looking
// along +z), and every base colour is a pale gold. One buffer, embedded as a
// data: URI, holds the shared geometry.
func writeSpheres(path string, n, seg, rings int) error {
	var b gltfBuffer
	accessors := b.sphere(seg, rings)
	var materials, meshes, nodes []map[string]any
	var children []int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m, r := float64(i)/float64(n-1), float64(j)/float64(n-1)
			materials = append(materials, map[string]any{
				"name": fmt.Sprintf("metallic %.2f roughness %.2f", m, r),
				"pbrMetallicRoughness": map[string]any{
					"baseColorFactor": []float64{1, 0.78, 0.45, 1}, "metallicFactor": m, "roughnessFactor": r},
			})
			meshes = append(meshes, map[string]any{"primitives": []map[string]any{{
				"attributes": map[string]int{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": len(materials) - 1}}})
			nodes = append(nodes, map[string]any{"mesh": len(meshes) - 1,
				"translation": []float64{-2.5 * (float64(j) - float64(n-1)/2), 2.5 * (float64(i) - float64(n-1)/2), 0}})
			children = append(children, len(nodes)-1)
		}
	}
	extra := map[string]any{}
	return b.writeScene(path, children, nodes, meshes, materials, accessors, extra)
}

// sphere adds a unit UV sphere of seg × rings quads, with normals and
// texture coordinates, to b and returns its accessors: POSITION 0,
// NORMAL 1, TEXCOORD_0 2 and the indices 3.
func (b *gltfBuffer) sphere(seg, rings int) []map[string]any {
	var pos, nor []float32
	var uv []float32
	var idx []uint16
	for r := 0; r <= rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for k := 0; k <= seg; k++ {
			ph := 2 * math.Pi * float64(k) / float64(seg)
			p := vec{math.Sin(th) * math.Cos(ph), math.Cos(th), math.Sin(th) * math.Sin(ph)}
			pos = append(pos, float32(p[0]), float32(p[1]), float32(p[2]))
			nor = append(nor, float32(p[0]), float32(p[1]), float32(p[2]))
			uv = append(uv, float32(float64(k)/float64(seg)), float32(float64(r)/float64(rings)))
		}
	}
	for r := 0; r < rings; r++ {
		for k := 0; k < seg; k++ {
			a := uint16(r*(seg+1) + k)
			c := a + uint16(seg+1)
			idx = append(idx, a, a+1, c, a+1, c+1, c)
		}
	}
	vp, vn, vt, vi := b.add(pos, 34962), b.add(nor, 34962), b.add(uv, 34962), b.add(idx, 34963)
	nv := len(pos) / 3
	return []map[string]any{
		{"bufferView": vp, "componentType": 5126, "count": nv, "type": "VEC3", "min": []float64{-1, -1, -1}, "max": []float64{1, 1, 1}},
		{"bufferView": vn, "componentType": 5126, "count": nv, "type": "VEC3"},
		{"bufferView": vt, "componentType": 5126, "count": nv, "type": "VEC2"},
		{"bufferView": vi, "componentType": 5123, "count": len(idx), "type": "SCALAR"},
	}
}

// gltfBuffer is a glTF file's one buffer and its views, built as arrays
// are added.
type gltfBuffer struct {
	buf   bytes.Buffer
	views []map[string]any
}

// add appends data (little-endian, 4-byte aligned) as a buffer view for
// target and returns the view's index.
func (b *gltfBuffer) add(data any, target int) int {
	for b.buf.Len()%4 != 0 {
		b.buf.WriteByte(0)
	}
	off := b.buf.Len()
	binary.Write(&b.buf, binary.LittleEndian, data)
	b.views = append(b.views, map[string]any{"buffer": 0, "byteOffset": off, "byteLength": b.buf.Len() - off, "target": target})
	return len(b.views) - 1
}

// write writes doc to path as indented JSON, with the buffer embedded as
// a data: URI and its views.
func (b *gltfBuffer) write(path string, doc map[string]any) error {
	doc["bufferViews"] = b.views
	doc["buffers"] = []map[string]any{{"byteLength": b.buf.Len(),
		"uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(b.buf.Bytes())}}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// writeScene writes a glTF file of one scene at path: the root nodes
// children, nodes, meshes, materials and accessors, and the top-level
// fields in extra (textures, samplers, images, extensionsUsed), with b's
// buffer (write).
func (b *gltfBuffer) writeScene(path string, children []int, nodes, meshes, materials, accessors []map[string]any, extra map[string]any) error {
	doc := map[string]any{
		"asset":     map[string]string{"version": "2.0", "generator": "scenes/examples/assets/gen"},
		"scene":     0,
		"scenes":    []map[string]any{{"nodes": children}},
		"nodes":     nodes,
		"meshes":    meshes,
		"materials": materials,
		"accessors": accessors,
	}
	maps.Copy(doc, extra)
	return b.write(path, doc)
}

// writeSky writes a w×h equirectangular sky in Radiance RGBE (flat
// scanlines): a blue zenith fading to a pale horizon, a dim grey-brown
// ground below it, and a sun 4° in radius 35° up, toward −x and +z (the
// camera's front right), about 600 times brighter than the sky: the kind
// of light that environment importance sampling is for.
func writeSky(path string, w, h int) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "#?RADIANCE\n# made by scenes/examples/assets/gen\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w)
	sun := vec{-math.Cos(35*math.Pi/180) * math.Sin(math.Pi/5), math.Sin(35 * math.Pi / 180), math.Cos(35*math.Pi/180) * math.Cos(math.Pi/5)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// The direction of texel (x, y), inverting the lookup of
			// docs/scene-format.md: u = (atan2(−d.x, d.z) + π)/2π,
			// v = 1 − acos(d.y)/π, row 0 at the top.
			u := (float64(x) + 0.5) / float64(w)
			v := 1 - (float64(y)+0.5)/float64(h)
			th := (1 - v) * math.Pi
			ph := u*2*math.Pi - math.Pi
			d := vec{-math.Sin(th) * math.Sin(ph), math.Cos(th), math.Sin(th) * math.Cos(ph)}
			var c vec
			if d[1] >= 0 {
				t := math.Pow(d[1], 0.5)
				c = vec{lerp(1.1, 0.25, t), lerp(1.15, 0.45, t), lerp(1.2, 0.95, t)}
			} else {
				c = vec{0.12, 0.1, 0.08}
			}
			if d.dot(sun) > math.Cos(4*math.Pi/180) {
				c = vec{600, 540, 440}
			}
			buf.Write(rgbe(c))
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// rgbe encodes a colour as Radiance's shared-exponent bytes.
func rgbe(c vec) []byte {
	m := math.Max(c[0], math.Max(c[1], c[2]))
	if m < 1e-32 {
		return []byte{0, 0, 0, 0}
	}
	f, e := math.Frexp(m)
	s := f * 256 / m
	return []byte{byte(c[0] * s), byte(c[1] * s), byte(c[2] * s), byte(e + 128)}
}

// writeAlphaModesModel writes AlphaModes.gltf and alpha.png into dir.
func writeAlphaModesModel(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeAlphaTexture(filepath.Join(dir, "alpha.png"), 64); err != nil {
		return err
	}
	return writeAlphaModes(filepath.Join(dir, "AlphaModes.gltf"))
}

// writeAlphaTexture writes a size×size RGBA image: a light green whose
// alpha is x/(size−1), with a darker stripe every eighth row so that
// what shows through can be told from what is drawn.
func writeAlphaTexture(path string, size int) error {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			c := color.NRGBA{150, 230, 100, uint8((255*x + (size-1)/2) / (size - 1))}
			if y%8 == 0 {
				c.R, c.G, c.B = 60, 110, 40
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return writePNG(path, img)
}

func writeAlphaModes(path string) error {
	// One unit quad in the xy-plane facing +z, and a backdrop 9 × 2.5.
	quad := []float32{-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0}
	back := []float32{-4.5, -1.25, 0, 4.5, -1.25, 0, 4.5, 1.25, 0, -4.5, 1.25, 0}
	normals := []float32{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}
	uvs := []float32{0, 1, 1, 1, 1, 0, 0, 0} // glTF's v runs down the image
	idx := []uint16{0, 1, 2, 0, 2, 3}

	var b gltfBuffer
	vq, vb, vn, vt, vi := b.add(quad, 34962), b.add(back, 34962), b.add(normals, 34962), b.add(uvs, 34962), b.add(idx, 34963)
	accessors := []map[string]any{
		{"bufferView": vq, "componentType": 5126, "count": 4, "type": "VEC3", "min": []float64{-0.5, -0.5, 0}, "max": []float64{0.5, 0.5, 0}},
		{"bufferView": vb, "componentType": 5126, "count": 4, "type": "VEC3", "min": []float64{-4.5, -1.25, 0}, "max": []float64{4.5, 1.25, 0}},
		{"bufferView": vn, "componentType": 5126, "count": 4, "type": "VEC3"},
		{"bufferView": vt, "componentType": 5126, "count": 4, "type": "VEC2"},
		{"bufferView": vi, "componentType": 5123, "count": 6, "type": "SCALAR"},
	}
	tex := map[string]any{"index": 0}
	type variant struct {
		name string
		mode string
		pbr  map[string]any
		more map[string]any
	}
	variants := []variant{
		{"opaque", "OPAQUE", map[string]any{"baseColorTexture": tex}, nil},
		{"mask", "MASK", map[string]any{"baseColorTexture": tex}, nil},
		{"mask cutoff 0.25", "MASK", map[string]any{"baseColorTexture": tex}, map[string]any{"alphaCutoff": 0.25}},
		{"blend", "BLEND", map[string]any{"baseColorTexture": tex}, nil},
		{"blend factor 0.5", "BLEND", map[string]any{"baseColorTexture": tex, "baseColorFactor": []float64{1, 1, 1, 0.5}}, nil},
		{"blend no texture 0.3", "BLEND", map[string]any{"baseColorFactor": []float64{0.6, 0.9, 0.4, 0.3}}, nil},
	}
	materials := []map[string]any{{
		"name": "backdrop", "doubleSided": true,
		"pbrMetallicRoughness": map[string]any{"baseColorFactor": []float64{0.7, 0.15, 0.1, 1}, "metallicFactor": 0},
	}}
	meshes := []map[string]any{{"name": "backdrop", "primitives": []map[string]any{{
		"attributes": map[string]int{"POSITION": 1, "NORMAL": 2, "TEXCOORD_0": 3}, "indices": 4, "material": 0}}}}
	nodes := []map[string]any{{"name": "backdrop", "mesh": 0, "translation": []float64{0, 0, -0.5}}}
	children := []int{0}
	for i, v := range variants {
		v.pbr["metallicFactor"] = 0
		m := map[string]any{"name": v.name, "alphaMode": v.mode, "doubleSided": true, "pbrMetallicRoughness": v.pbr}
		for k, x := range v.more {
			m[k] = x
		}
		materials = append(materials, m)
		meshes = append(meshes, map[string]any{"name": v.name, "primitives": []map[string]any{{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 2, "TEXCOORD_0": 3}, "indices": 4, "material": len(materials) - 1}}})
		nodes = append(nodes, map[string]any{"name": v.name, "mesh": len(meshes) - 1,
			"translation": []float64{1.25 * (float64(i) - 2.5), 0, 0}})
		children = append(children, len(nodes)-1)
	}
	extra := map[string]any{
		"textures": []map[string]any{{"source": 0, "sampler": 0}},
		"samplers": []map[string]any{{"wrapS": 33071, "wrapT": 33071, "magFilter": 9729, "minFilter": 9729}},
		"images":   []map[string]any{{"uri": "alpha.png"}},
	}
	return b.writeScene(path, children, nodes, meshes, materials, accessors, extra)
}

// writeGlassModel writes Glass.gltf and checker.png into dir.
func writeGlassModel(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeChecker(filepath.Join(dir, "checker.png"), 64, 8); err != nil {
		return err
	}
	return writeGlass(filepath.Join(dir, "Glass.gltf"))
}

// writePNG writes img to path as a PNG.
func writePNG(path string, img image.Image) error {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeChecker writes a size×size checkerboard of n×n squares, cream and
// slate, for what a glass bends to show.
func writeChecker(path string, size, n int) error {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			c := color.NRGBA{235, 225, 200, 255}
			if (x*n/size+y*n/size)%2 == 1 {
				c = color.NRGBA{50, 60, 80, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return writePNG(path, img)
}

// writeGlass writes four glass spheres of radius 0.5 in a row along x,
// 1.25 apart, before a backdrop 6 × 2.5 at z = −1 facing +z that emits a
// checkerboard (nearest texels).
func writeGlass(path string) error {
	var b gltfBuffer
	accessors := b.sphere(48, 24)
	back := []float32{-3, -1.25, 0, 3, -1.25, 0, 3, 1.25, 0, -3, 1.25, 0}
	normals := []float32{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}
	uvs := []float32{0, 2.5 / 6 * 4, 4, 2.5 / 6 * 4, 4, 0, 0, 0} // square checks, 4 textures across
	vb, vn, vt, vi := b.add(back, 34962), b.add(normals, 34962), b.add(uvs, 34962), b.add([]uint16{0, 1, 2, 0, 2, 3}, 34963)
	accessors = append(accessors,
		map[string]any{"bufferView": vb, "componentType": 5126, "count": 4, "type": "VEC3", "min": []float64{-3, -1.25, 0}, "max": []float64{3, 1.25, 0}},
		map[string]any{"bufferView": vn, "componentType": 5126, "count": 4, "type": "VEC3"},
		map[string]any{"bufferView": vt, "componentType": 5126, "count": 4, "type": "VEC2"},
		map[string]any{"bufferView": vi, "componentType": 5123, "count": 6, "type": "SCALAR"})
	// The backdrop emits its checks and reflects nothing: a diffuse one
	// would differ by Blender's Principled BSDF, whose diffuse is not
	// Lambert's, where only the glass is to be compared.
	materials := []map[string]any{{
		"name": "backdrop", "doubleSided": true,
		"pbrMetallicRoughness": map[string]any{"baseColorFactor": []float64{0, 0, 0, 1}, "metallicFactor": 0, "roughnessFactor": 1},
		"emissiveTexture":      map[string]any{"index": 0},
		"emissiveFactor":       []float64{1, 1, 1},
	}}
	meshes := []map[string]any{{"name": "backdrop", "primitives": []map[string]any{{
		"attributes": map[string]int{"POSITION": 4, "NORMAL": 5, "TEXCOORD_0": 6}, "indices": 7, "material": 0}}}}
	nodes := []map[string]any{{"name": "backdrop", "mesh": 0, "translation": []float64{0, 0, -1}}}
	children := []int{0}
	glasses := []struct {
		name      string
		color     []float64
		roughness float64
		ior       float64
	}{
		{"clear glass", []float64{1, 1, 1, 1}, 0, 1.5},
		{"rough glass", []float64{1, 1, 1, 1}, 0.3, 1.5},
		{"tinted glass", []float64{0.55, 0.85, 0.65, 1}, 0, 1.5},
		{"water", []float64{1, 1, 1, 1}, 0, 1.33},
	}
	for i, g := range glasses {
		materials = append(materials, map[string]any{
			"name": g.name,
			"pbrMetallicRoughness": map[string]any{
				"baseColorFactor": g.color, "metallicFactor": 0, "roughnessFactor": g.roughness},
			"extensions": map[string]any{
				"KHR_materials_transmission": map[string]any{"transmissionFactor": 1},
				"KHR_materials_ior":          map[string]any{"ior": g.ior},
			},
		})
		meshes = append(meshes, map[string]any{"name": g.name, "primitives": []map[string]any{{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": len(materials) - 1}}})
		nodes = append(nodes, map[string]any{"name": g.name, "mesh": len(meshes) - 1,
			"translation": []float64{1.25 * (float64(i) - 1.5), 0, 0}, "scale": []float64{0.5, 0.5, 0.5}})
		children = append(children, len(nodes)-1)
	}
	extra := map[string]any{
		"extensionsUsed": []string{"KHR_materials_transmission", "KHR_materials_ior"},
		"textures":       []map[string]any{{"source": 0, "sampler": 0}},
		// Nearest texels: the spheres magnify the checks, and Cycles
		// blends an 8-bit sRGB image's texels before decoding them where
		// trace blends decoded ones, which would set the glass apart.
		"samplers": []map[string]any{{"wrapS": 10497, "wrapT": 10497, "magFilter": 9728, "minFilter": 9728}},
		"images":   []map[string]any{{"uri": "checker.png"}},
	}
	return b.writeScene(path, children, nodes, meshes, materials, accessors, extra)
}

// writeSpecGlossModel writes DIR/SpecGloss.gltf with its textures
// (diffuse.png, specgloss.png, mr.png): three spheres of
// KHR_materials_pbrSpecularGlossiness in the upper row and, below each,
// its metallic-roughness twin, after the Khronos sample model
// SpecGlossVsMetalRough, whose halves should look alike: a red plastic
// (specular 0.04, glossiness 0.6; base red, metallic 0, roughness 0.4),
// gold (diffuse black, specular the gold, glossiness 0.75; base the
// gold, metallic 1, roughness 0.25) and a textured one (a colour
// checker as diffuse and base colour; specular sRGB 56, 0.04 linear,
// glossiness 0.9 on the texture's left half and 0.3 on its right, its
// twin roughness 0.1 and 0.7 from a metallic-roughness texture). The
// lower row is the upper one's mirror image, so that a camera level with
// the middle sees each pair alike.
func writeSpecGlossModel(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const n = 64
	diffuse, sg, mr := image.NewNRGBA(image.Rect(0, 0, n, n)), image.NewNRGBA(image.Rect(0, 0, n, n)), image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			c := color.NRGBA{230, 200, 60, 255}
			if (x*8/n+y*8/n)%2 == 1 {
				c = color.NRGBA{40, 90, 200, 255}
			}
			diffuse.SetNRGBA(x, y, c)
			gloss := uint8(230) // 0.9
			if x >= n/2 {
				gloss = 77 // 0.3
			}
			sg.SetNRGBA(x, y, color.NRGBA{56, 56, 56, gloss})
			mr.SetNRGBA(x, y, color.NRGBA{0, 255 - gloss, 0, 255})
		}
	}
	for name, img := range map[string]image.Image{"diffuse.png": diffuse, "specgloss.png": sg, "mr.png": mr} {
		if err := writePNG(filepath.Join(dir, name), img); err != nil {
			return err
		}
	}
	var b gltfBuffer
	accessors := b.sphere(48, 24)
	gold := []float64{1, 0.77, 0.34}
	materials := []map[string]any{
		{"name": "plastic, specular-glossiness", "extensions": map[string]any{gltfSpecGloss: map[string]any{
			"diffuseFactor": []float64{0.8, 0.1, 0.1, 1}, "specularFactor": []float64{0.04, 0.04, 0.04}, "glossinessFactor": 0.6}}},
		{"name": "gold, specular-glossiness", "extensions": map[string]any{gltfSpecGloss: map[string]any{
			"diffuseFactor": []float64{0, 0, 0, 1}, "specularFactor": gold, "glossinessFactor": 0.75}}},
		{"name": "textured, specular-glossiness", "extensions": map[string]any{gltfSpecGloss: map[string]any{
			"diffuseTexture": map[string]any{"index": 0}, "specularFactor": []float64{1, 1, 1}, "glossinessFactor": 1,
			"specularGlossinessTexture": map[string]any{"index": 1}}}},
		{"name": "plastic, metallic-roughness", "pbrMetallicRoughness": map[string]any{
			"baseColorFactor": []float64{0.8, 0.1, 0.1, 1}, "metallicFactor": 0, "roughnessFactor": 0.4}},
		{"name": "gold, metallic-roughness", "pbrMetallicRoughness": map[string]any{
			"baseColorFactor": append(gold, 1), "metallicFactor": 1, "roughnessFactor": 0.25}},
		{"name": "textured, metallic-roughness", "pbrMetallicRoughness": map[string]any{
			"baseColorTexture": map[string]any{"index": 0}, "metallicFactor": 0, "roughnessFactor": 1,
			"metallicRoughnessTexture": map[string]any{"index": 2}}},
	}
	var meshes, nodes []map[string]any
	var children []int
	for i, m := range materials {
		meshes = append(meshes, map[string]any{"name": m["name"], "primitives": []map[string]any{{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": i}}})
		// The lower row mirrored (y scale −0.55): the camera, level with
		// the rows' middle, sees it as the mirror image of the upper one,
		// texture included.
		nodes = append(nodes, map[string]any{"name": m["name"], "mesh": i,
			"translation": []float64{1.3 * float64(i%3-1), 0.65 - 1.3*float64(i/3), 0}, "scale": []float64{0.55, 0.55 - 1.1*float64(i/3), 0.55}})
		children = append(children, i)
	}
	extra := map[string]any{
		"extensionsUsed": []string{gltfSpecGloss},
		"textures":       []map[string]any{{"source": 0, "sampler": 0}, {"source": 1, "sampler": 0}, {"source": 2, "sampler": 0}},
		// Nearest texels: Cycles blends an 8-bit sRGB image's texels
		// before decoding them where trace blends decoded ones.
		"samplers": []map[string]any{{"wrapS": 10497, "wrapT": 10497, "magFilter": 9728, "minFilter": 9728}},
		"images":   []map[string]any{{"uri": "diffuse.png"}, {"uri": "specgloss.png"}, {"uri": "mr.png"}},
	}
	return b.writeScene(filepath.Join(dir, "SpecGloss.gltf"), children, nodes, meshes, materials, accessors, extra)
}

// gltfSpecGloss is glTF's specular-glossiness extension.
const gltfSpecGloss = "KHR_materials_pbrSpecularGlossiness"

// gltfUnlit is glTF's unlit extension.
const gltfUnlit = "KHR_materials_unlit"

// writeUnlitModel writes dir/Unlit.gltf and dir/checker.png: a row of
// three spheres of KHR_materials_unlit, whose camera-facing colour is the
// base colour alone (a factor of (0.8, 0.3, 0.1); a checker texture of
// 8-bit sRGB 230, 200, 60 and 40, 90, 200 under a factor of (1, 0.5,
// 1), nearest texels; a factor of (0.2, 0.6, 0.9)), above a row of their
// lit metallic-roughness twins (metallic 0, roughness 0.5).
func writeUnlitModel(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const n = 64
	checker := image.NewNRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			c := color.NRGBA{230, 200, 60, 255}
			if (x*8/n+y*8/n)%2 == 1 {
				c = color.NRGBA{40, 90, 200, 255}
			}
			checker.SetNRGBA(x, y, c)
		}
	}
	if err := writePNG(filepath.Join(dir, "checker.png"), checker); err != nil {
		return err
	}
	var b gltfBuffer
	accessors := b.sphere(48, 24)
	pbr := []map[string]any{
		{"baseColorFactor": []float64{0.8, 0.3, 0.1, 1}, "metallicFactor": 0, "roughnessFactor": 0.5},
		{"baseColorFactor": []float64{1, 0.5, 1, 1}, "baseColorTexture": map[string]any{"index": 0}, "metallicFactor": 0, "roughnessFactor": 0.5},
		{"baseColorFactor": []float64{0.2, 0.6, 0.9, 1}, "metallicFactor": 0, "roughnessFactor": 0.5},
	}
	var materials, meshes, nodes []map[string]any
	var children []int
	for i := range 2 * len(pbr) {
		m := map[string]any{"name": fmt.Sprintf("lit %d", i%3), "pbrMetallicRoughness": pbr[i%3]}
		if i < len(pbr) {
			m["name"] = fmt.Sprintf("unlit %d", i)
			m["extensions"] = map[string]any{gltfUnlit: map[string]any{}}
		}
		materials = append(materials, m)
		meshes = append(meshes, map[string]any{"name": m["name"], "primitives": []map[string]any{{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "material": i}}})
		nodes = append(nodes, map[string]any{"name": m["name"], "mesh": i,
			"translation": []float64{1.3 * float64(i%3-1), 0.65 - 1.3*float64(i/3), 0}, "scale": []float64{0.55, 0.55, 0.55}})
		children = append(children, i)
	}
	extra := map[string]any{
		"extensionsUsed": []string{gltfUnlit},
		"textures":       []map[string]any{{"source": 0, "sampler": 0}},
		// Nearest texels, as in SpecGloss.gltf.
		"samplers": []map[string]any{{"wrapS": 10497, "wrapT": 10497, "magFilter": 9728, "minFilter": 9728}},
		"images":   []map[string]any{{"uri": "checker.png"}},
	}
	return b.writeScene(filepath.Join(dir, "Unlit.gltf"), children, nodes, meshes, materials, accessors, extra)
}
