//go:build unix

package scenes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadWithin runs load, failing the test if it takes more than ten
// seconds; then it opens fifo, if any, for writing to release a reader
// stuck on it.
func loadWithin(t *testing.T, fifo string, load func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- load() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("loading blocked on the named pipe")
		return nil
	}
}

// TestSceneFileNotRegular: a scene file that is a named pipe, a device or
// a directory is refused at once with an error naming the file.
func TestSceneFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "scene.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a named pipe)"},
		{"/dev/null", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
	} {
		for name, load := range map[string]func() error{
			"LoadWith":   func() error { _, err := LoadWith(tc.path, Options{}); return err },
			"ReadBundle": func() error { _, _, err := ReadBundle(tc.path, Options{}); return err },
		} {
			err := loadWithin(t, fifo, load)
			var e *Error
			if !errors.As(err, &e) || e.File != tc.path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s(%s): error %v, want an *Error for the file saying %q", name, tc.path, err, tc.want)
			}
		}
	}
}

// TestAssetNotRegular: a mesh, material library or image that is a named
// pipe or (through a link, with outside assets allowed) a device is
// refused before anything is read from it.
func TestAssetNotRegular(t *testing.T) {
	for _, tc := range []struct {
		name, object, asset, dev, want string
	}{
		{"mesh pipe", `{"type": "mesh", "file": "m.obj", "material": "white"}`, "m.obj", "", `objects[0].file: "m.obj": not a regular file (a named pipe)`},
		{"mesh /dev/null", `{"type": "mesh", "file": "m.obj", "material": "white"}`, "m.obj", "/dev/null", `objects[0].file: "m.obj": not a regular file (a character device)`},
		{"mesh /dev/zero", `{"type": "mesh", "file": "m.obj", "material": "white"}`, "m.obj", "/dev/zero", `objects[0].file: "m.obj": not a regular file (a character device)`},
		{"gltf /dev/zero", `{"type": "mesh", "file": "m.glb", "material": "white"}`, "m.glb", "/dev/zero", `objects[0].file: "m.glb": not a regular file (a character device)`},
		{"image pipe", `{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "tex"}`, "t.png", "", `materials.tex.texture.file: "t.png": not a regular file (a named pipe)`},
		{"image /dev/zero", `{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "tex"}`, "t.png", "/dev/zero", `materials.tex.texture.file: "t.png": not a regular file (a character device)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			asset := filepath.Join(dir, tc.asset)
			if tc.dev == "" {
				if err := syscall.Mkfifo(asset, 0o600); err != nil {
					t.Skip("mkfifo:", err)
				}
			} else if err := os.Symlink(tc.dev, asset); err != nil {
				t.Fatal(err)
			}
			scene := filepath.Join(dir, "scene.json")
			mats := `"white": {"type": "diffuse"}`
			if strings.HasSuffix(tc.asset, ".png") {
				mats += `, "tex": {"type": "diffuse", "texture": {"type": "image", "file": "t.png"}}`
			}
			body := meshScene(mats, tc.object)
			if err := os.WriteFile(scene, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			err := loadWithin(t, asset, func() error {
				_, err := LoadWith(scene, Options{AllowOutsideAssets: true})
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}
