package scenes

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "a.json", Line: 3, Col: 7, Path: "objects[3].radius", Msg: "must be > 0, found -1"}, "a.json:3:7: objects[3].radius: must be > 0, found -1"},
		{Error{File: "a.json", Line: 3, Path: "camera", Msg: "m"}, "a.json:3: camera: m"},
		{Error{File: "a.json", Msg: "no such file or directory"}, "a.json: no such file or directory"},
		{Error{Line: 1, Col: 2, Msg: "m"}, "1:2: m"},
		{Error{Path: "render.width", Msg: "must be at least 1, found 0"}, "render.width: must be at least 1, found 0"},
		{Error{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestExactMessages pins a few whole messages, file name and position
// included, across several lines.
func TestExactMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{
			"{\n  \"version\": 1,\n  \"camera\": {\"position\": [0, 0, -1], \"look_at\": [0, 0, 0]},\n  \"materials\": {\"red\": {\"type\": \"diffuse\", \"colour\": [1, 0, 0]}}\n}\n",
			`scene.json:4:44: materials.red: unknown field "colour"; did you mean "color"?`,
		},
		{
			"{\n  \"version\": 1,\n  \"camera\": {\"position\": [0, 0, -1], \"look_at\": [0, 0, 0]},\n  \"materials\": {\"white\": {\"type\": \"diffuse\"}},\n  \"objects\": [\n    {\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1, \"material\": \"white\"},\n    {\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": -1, \"material\": \"white\"}\n  ]\n}\n",
			"scene.json:7:55: objects[1].radius: must be > 0, found -1",
		},
		{
			"{\n  \"version\": 1,\n  \"version\": 1\n}",
			`scene.json:3:3: duplicate key "version"`,
		},
		{
			"{\"version\": 1}\n}",
			"scene.json:2:1: unexpected character '}' after the end of the top-level value",
		},
		{
			"{\"version\": 1, \"camera\": {\"position\": [0, 0, 1e999], \"look_at\": [0, 0, 0]}}",
			"scene.json:1:46: camera.position[2]: not a finite number: 1e999",
		},
		{
			"{\"version\": 1, \"description\": \"é ü\", \"camera\": {\"position\": [0, 0, -1], \"look_at\": [0, 0, 0], \"fov\": \"wide\"}}",
			"scene.json:1:102: camera.fov: expected a number, found a string",
		},
		{
			strings.Repeat("[", MaxNesting+1),
			"scene.json:1:65: " + strings.Repeat("[0]", MaxNesting) + ": arrays and objects nest more than 64 levels deep",
		},
		{
			`{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}, "materials": {"white": {"type": "diffuse"}}, "objects": [{"type": "mesh", "file": "bunny.obj", "material": "white"}]}`,
			`scene.json:1:156: objects[0].file: "bunny.obj": no such file or directory`,
		},
	}
	for _, tt := range tests {
		_, err := Parse("scene.json", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.json")
	_, err := Load(missing)
	if err == nil || err.Error() != missing+": no such file or directory" {
		t.Errorf("Load(missing) = %v", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) error %v is not fs.ErrNotExist", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.File != missing {
		t.Errorf("Load(missing) error %#v does not name the file", err)
	}

	if _, err := Load(dir); err == nil || !strings.HasPrefix(err.Error(), dir+": ") {
		t.Errorf("Load(directory) = %v", err)
	}

	// A sparse file past the limit is refused before it is read.
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := big + ": the file is 268435457 bytes, more than the limit of 268435456 (MaxFileSize)"
	if _, err := Load(big); err == nil || err.Error() != want {
		t.Errorf("Load(big) = %v, want %s", err, want)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"version\": 1,\n\"camera\": {\"fov\": 40}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || err.Error() != bad+`:2:11: camera: missing required field "position"` {
		t.Errorf("Load(bad) = %v", err)
	}
}
