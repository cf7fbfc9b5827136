package scenes

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// fuzzBundle loads a scene whose one mesh object is the file name with
// the given contents (and, for OBJ, a material library lib.mtl), from
// memory, and checks what FuzzParse checks of the answer.
func fuzzBundle(t *testing.T, name string, files map[string][]byte) {
	scene := `{"version": 1, "camera": {"position": [0, 0, -5], "look_at": [0, 0, 0]},
	  "materials": {"m": {"type": "diffuse"}},
	  "objects": [{"type": "mesh", "file": "` + name + `", "material": "m"}]}`
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
// and that what it accepts is a mesh the renderer can use.
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
	f.Fuzz(func(t *testing.T, data []byte, glb bool) {
		name := "m.gltf"
		if glb {
			name = "m.glb"
		}
		fuzzBundle(t, name, map[string][]byte{name: data})
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
	f.Fuzz(func(t *testing.T, mtl []byte) {
		fuzzBundle(t, "m.obj", map[string][]byte{"m.obj": obj, "lib.mtl": mtl})
	})
}
