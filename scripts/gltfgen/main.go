// Command gltfgen writes glTF test models that exercise one feature each,
// for scripts/sample-models.sh to render with trace and, through Blender's
// own glTF importer, with Cycles. Run it from the repository root:
//
//	go run ./scripts/gltfgen -o DIR
//
// It writes DIR/AlphaModes.gltf and DIR/alpha.png, after the Khronos
// sample model AlphaBlendModeTest: six quads in a row before an opaque
// backdrop, with a base colour texture whose alpha rises from 0 at the
// left to 1 at the right, as OPAQUE, MASK (the default cutoff 0.5), MASK
// with cutoff 0.25, BLEND, BLEND with a base colour factor alpha of 0.5,
// and BLEND with no texture and a factor alpha of 0.3. The output is
// deterministic.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("o", ".", "the folder to write into")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	if err := writeAlphaTexture(filepath.Join(*out, "alpha.png"), 64); err != nil {
		log.Fatal(err)
	}
	if err := writeAlphaModes(filepath.Join(*out, "AlphaModes.gltf")); err != nil {
		log.Fatal(err)
	}
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
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeAlphaModes(path string) error {
	// One unit quad in the xy-plane facing +z, and a backdrop 9 × 2.5.
	quad := []float32{-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0}
	back := []float32{-4.5, -1.25, 0, 4.5, -1.25, 0, 4.5, 1.25, 0, -4.5, 1.25, 0}
	normals := []float32{0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}
	uvs := []float32{0, 1, 1, 1, 1, 0, 0, 0} // glTF's v runs down the image
	idx := []uint16{0, 1, 2, 0, 2, 3}

	var buf bytes.Buffer
	var views []map[string]any
	add := func(data any, target int) int {
		for buf.Len()%4 != 0 {
			buf.WriteByte(0)
		}
		off := buf.Len()
		binary.Write(&buf, binary.LittleEndian, data)
		views = append(views, map[string]any{"buffer": 0, "byteOffset": off, "byteLength": buf.Len() - off, "target": target})
		return len(views) - 1
	}
	vq, vb, vn, vt, vi := add(quad, 34962), add(back, 34962), add(normals, 34962), add(uvs, 34962), add(idx, 34963)
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
	doc := map[string]any{
		"asset":       map[string]string{"version": "2.0", "generator": "scripts/gltfgen"},
		"scene":       0,
		"scenes":      []map[string]any{{"nodes": children}},
		"nodes":       nodes,
		"meshes":      meshes,
		"materials":   materials,
		"textures":    []map[string]any{{"source": 0, "sampler": 0}},
		"samplers":    []map[string]any{{"wrapS": 33071, "wrapT": 33071, "magFilter": 9729, "minFilter": 9729}},
		"images":      []map[string]any{{"uri": "alpha.png"}},
		"accessors":   accessors,
		"bufferViews": views,
		"buffers": []map[string]any{{"byteLength": buf.Len(),
			"uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}},
	}
	data, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
