package scenes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadGLTFDuplicateKey: a glTF file whose JSON gives an object the
// same key twice is refused, naming the key's path, as a scene file is;
// in a .gltf with its line and column.
func TestLoadGLTFDuplicateKey(t *testing.T) {
	tests := []struct {
		name, json, want string
		line, col        int
	}{
		{"top level", `{"asset": {"version": "2.0"}, "asset": {"version": "2.0"}}`, `asset: duplicate key "asset"`, 1, 31},
		{"nested", "{\"asset\": {\"version\": \"2.0\",\n  \"version\": \"3.0\"}}", `asset.version: duplicate key "version"`, 2, 3},
		{"in an array", `{"asset": {"version": "2.0"}, "nodes": [{}, {"mesh": 0, "children": [], "mesh": 1}]}`, `nodes[1].mesh: duplicate key "mesh"`, 1, 73},
		{"in nested arrays", `{"asset": {"version": "2.0"}, "a": [[1, {"x": [2, {}]}], [{"k": 1, "k": 2}]]}`, `a[1][0].k: duplicate key "k"`, 1, 68},
		{"odd key", `{"asset": {"version": "2.0"}, "extras": {"my key\u001b": 1, "my key\u001b": 2}}`, `extras["my key\x1b"]: duplicate key "my key\x1b"`, 1, 61},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, a := gltfScene(t)
			path := filepath.Join(dir, "model.gltf")
			if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadGLTF(a, path)
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error %v, want an *Error", err)
			}
			if e.File != path || e.Msg != tc.want || e.Line != tc.line || e.Col != tc.col {
				t.Errorf("error %q at %d:%d, want %q at %d:%d", e.Msg, e.Line, e.Col, tc.want, tc.line, tc.col)
			}
		})
	}
	// The same in a GLB's JSON chunk: no line, the path alone.
	dir, a := gltfScene(t)
	chunk := []byte(`{"asset": {"version": "2.0"}, "scene": 0, "scene": 0}  `)
	var glb bytes.Buffer
	le := binary.LittleEndian
	binary.Write(&glb, le, []uint32{glbMagic, 2, uint32(12 + 8 + len(chunk)), uint32(len(chunk)), glbChunkJSON})
	glb.Write(chunk)
	path := filepath.Join(dir, "model.glb")
	if err := os.WriteFile(path, glb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loadGLTF(a, path)
	if e, ok := errors.AsType[*Error](err); !ok || e.Msg != `scene: duplicate key "scene"` || e.Line != 0 {
		t.Errorf("GLB: error %v, want the duplicate scene key", err)
	}
	// Keys repeated in different objects are no duplicates.
	doc := `{"asset": {"version": "2.0"}, "nodes": [{"name": "a"}, {"name": "b"}], "extras": {"name": "c"}}`
	if k, _, _, dup := gltfDuplicateKey([]byte(doc)); dup {
		t.Errorf("duplicate %s found in %s", k, doc)
	}
}
