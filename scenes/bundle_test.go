package scenes

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A bundle loads into the same scene as the files it was read from, on a
// machine without them.
func TestBundleLoadsTheSameScene(t *testing.T) {
	paths, err := filepath.Glob("examples/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no gallery scenes: %v", err)
	}
	for _, path := range paths {
		b, want, err := ReadBundle(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.Load()
		if err != nil {
			t.Fatalf("%s: Load: %v", path, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the bundle's scene differs from the file's", path)
		}
	}
	b, _, err := ReadBundle("examples/mesh.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Files) == 0 {
		t.Fatal("the mesh scene's bundle holds no files")
	}
	for name := range b.Files {
		if strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
			t.Errorf("bundle file name %q is not a relative slash path", name)
		}
	}
}

// A bundle reads nothing from disk: a file it lacks is an error naming the
// file, even when the file exists beside the scene.
func TestBundleMissingFile(t *testing.T) {
	b, _, err := ReadBundle("examples/mesh.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name := range b.Files {
		c := *b
		c.Files = map[string][]byte{}
		for k, v := range b.Files {
			if k != name {
				c.Files[k] = v
			}
		}
		_, err := c.Load()
		if err == nil {
			t.Fatalf("bundle without %s loaded", name)
		}
		if !strings.Contains(err.Error(), filepath.Base(name)) {
			t.Errorf("bundle without %s: error %q does not name it", name, err)
		}
	}
}

// Paths outside the scene's folder, allowed when the bundle was read, keep
// working from the bundle.
func TestBundleOutsideAssets(t *testing.T) {
	dir := t.TempDir()
	knot, err := os.ReadFile("examples/assets/knot.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scene"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "knot.obj"), knot, 0o644); err != nil {
		t.Fatal(err)
	}
	scene := `{"version": 1, "camera": {"position": [0, 0, 5], "look_at": [0, 0, 0]},
		"materials": {"m": {"type": "diffuse", "color": [0.5, 0.5, 0.5]}},
		"objects": [{"type": "mesh", "file": "../knot.obj", "material": "m"},
		            {"type": "mesh", "file": "` + filepath.Join(dir, "knot.obj") + `", "material": "m"}]}`
	path := filepath.Join(dir, "scene", "s.json")
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadBundle(path, Options{}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("an outside mesh without AllowOutsideAssets: got %v, want an error saying it is outside", err)
	}
	b, want, err := ReadBundle(path, Options{AllowOutsideAssets: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	got, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the bundle's scene differs from the file's")
	}
}
