package scenes

import (
	"path/filepath"
	"strings"
	"testing"
)

// esc is a file name part that would start a terminal escape sequence.
const esc = "\x1b[2J"

// TestFileNamesQuoted: every error that names a file a scene or asset
// file names shows it quoted, so that no control character in the name
// reaches the terminal.
func TestFileNamesQuoted(t *testing.T) {
	badOBJ := "v 0 0 0\nf 1 2 x\n"
	tests := []struct {
		name  string
		files map[string]string // written beside scene.json
		obj   string            // the scene's object
		mats  string            // extra materials
	}{
		{"missing mesh", nil, `{"type": "mesh", "file": "\u001b[2Jm.obj", "material": "white"}`, ""},
		{"unsupported mesh", nil, `{"type": "mesh", "file": "\u001b[2Jm.stl", "material": "white"}`, ""},
		{"bad mesh", map[string]string{esc + "m.obj": badOBJ}, `{"type": "mesh", "file": "\u001b[2Jm.obj", "material": "white"}`, ""},
		{"mesh outside", nil, `{"type": "mesh", "file": "../\u001b[2Jm.obj", "material": "white"}`, ""},
		{"unreadable mtllib", map[string]string{"m.obj": "mtllib " + esc + ".mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", esc + ".mtl/x": ""}, `{"type": "mesh", "file": "m.obj", "material": "white"}`, ""},
		{"missing map_Kd", map[string]string{
			"m.obj": "mtllib m.mtl\nusemtl a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
			"m.mtl": "newmtl a\nmap_Kd " + esc + ".png\n",
		}, `{"type": "mesh", "file": "m.obj"}`, ""},
		{"missing image", nil, `{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "tex"}`,
			`, "tex": {"type": "diffuse", "texture": {"type": "image", "file": "\u001b[2Jt.png"}}`},
		{"not an image", map[string]string{esc + "t.png": "hello"}, `{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "tex"}`,
			`, "tex": {"type": "diffuse", "texture": {"type": "image", "file": "\u001b[2Jt.png"}}`},
		{"missing glTF buffer", map[string]string{"m.gltf": `{"asset": {"version": "2.0"}, "buffers": [{"uri": "%1B[2Jb.bin", "byteLength": 4}]}`},
			`{"type": "mesh", "file": "m.gltf", "material": "white"}`, ""},
		{"missing glTF image", map[string]string{"m.gltf": `{"asset": {"version": "2.0"}, "images": [{"uri": "%1B[2Ji.png"}], "textures": [{"source": 0}],
			"materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
			"buffers": [{"uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA", "byteLength": 36}],
			"bufferViews": [{"buffer": 0, "byteLength": 36}],
			"accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
			"meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
			"nodes": [{"mesh": 0}]}`},
			`{"type": "mesh", "file": "m.gltf", "material": "white"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"scene.json": meshScene(`"white": {"type": "diffuse"}`+tc.mats, tc.obj)}
			for name, data := range tc.files {
				files[name] = data
			}
			dir := writeFiles(t, files)
			_, err := Load(filepath.Join(dir, "scene.json"))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\x1b\x00\r\n") {
				t.Errorf("the error holds control characters: %q", msg)
			}
			if !strings.Contains(msg, `\x1b[2J`) && !strings.Contains(msg, `"%1B[2J`) { // a glTF URI as written
				t.Errorf("the error does not show the name quoted: %q", msg)
			}
		})
	}
}

// TestSafeName: an error's FILE is quoted only when it must be.
func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"scene.json":          "scene.json",
		"my scenes/été.json":  "my scenes/été.json",
		"a\x1b[2J.obj":        `"a\x1b[2J.obj"`,
		"a\nb":                `"a\nb"`,
		"a\"b":                `"a\"b"`,
		"bad\xffutf8":         `"bad\xffutf8"`,
		"zero\u200bwidth.obj": `"zero\u200bwidth.obj"`,
	} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %s, want %s", in, got, want)
		}
	}
}
