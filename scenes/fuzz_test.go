package scenes

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// FuzzParse checks that Parse never panics, that every error is a
// one-line *Error, and that a scene it accepts is one the renderer can
// use: settings within limits, every index in range, every float finite.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	examples, err := filepath.Glob(filepath.Join("examples", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	files = append(files, examples...)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// Broken variants: cut short, a byte changed, a typo.
		for _, cut := range []int{1, len(data) / 3, len(data) / 2, len(data) - 2} {
			f.Add(data[:cut])
		}
		changed := append([]byte(nil), data...)
		changed[len(changed)/2] ^= 0x20
		f.Add(changed)
		f.Add([]byte(strings.Replace(string(data), `"color"`, `"colour"`, 1)))
		f.Add([]byte(strings.Replace(string(data), `"sphere"`, `"mesh"`, 1)))
		f.Add([]byte(strings.Replace(string(data), `1`, `1e999`, 3)))
	}
	for _, tt := range parseErrorTests {
		f.Add([]byte(strings.Replace(tt.in, mark, "", 1)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.json", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if s != nil {
				t.Fatalf("Parse returned a scene and an error")
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if e.Line < 0 || e.Col < 0 || (e.Line == 0) != (e.Col == 0) {
				t.Fatalf("bad position %d:%d in %v", e.Line, e.Col, err)
			}
			return
		}
		checkScene(t, s)
	})
}

// checkScene fails t unless s is a scene the renderer can take.
func checkScene(t *testing.T, s *tracer.SceneDesc) {
	t.Helper()
	if err := ValidateSettings(s.Settings); err != nil {
		t.Fatalf("accepted settings fail ValidateSettings: %v", err)
	}
	if len(s.Materials) > tracer.MaxMaterials || len(s.Textures) > tracer.MaxMaterials || len(s.Lights) > tracer.MaxLights ||
		len(s.Spheres)+len(s.Planes)+len(s.Quads)+len(s.Triangles) > tracer.MaxShapes {
		t.Fatalf("counts past the limits")
	}
	for i, m := range s.Materials {
		if m.Texture != tracer.NoTexture && (m.Texture < 0 || int(m.Texture) >= len(s.Textures)) {
			t.Fatalf("material %d: texture %d out of range", i, m.Texture)
		}
	}
	var mats []int
	for _, x := range s.Spheres {
		mats = append(mats, x.Material)
		if !(x.Radius > 0) {
			t.Fatalf("sphere radius %g", x.Radius)
		}
	}
	for _, x := range s.Planes {
		mats = append(mats, x.Material)
	}
	for _, x := range s.Quads {
		mats = append(mats, x.Material)
	}
	for _, x := range s.Triangles {
		mats = append(mats, x.Material)
	}
	for _, m := range mats {
		if m < 0 || m >= len(s.Materials) {
			t.Fatalf("material index %d out of range [0, %d)", m, len(s.Materials))
		}
	}
	if !(s.Camera.FOV > 0 && s.Camera.FOV < 180) || s.Camera.Position == s.Camera.LookAt {
		t.Fatalf("bad camera %+v", s.Camera)
	}
	if path, ok := allFinite(reflect.ValueOf(*s), "scene"); !ok {
		t.Fatalf("%s is not finite", path)
	}
}

// allFinite reports whether every float in v is finite, and if not, where
// the first one that is not is.
func allFinite(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return path, !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.Struct:
		for i := range v.NumField() {
			if p, ok := allFinite(v.Field(i), path+"."+v.Type().Field(i).Name); !ok {
				return p, false
			}
		}
	case reflect.Array, reflect.Slice:
		for i := range v.Len() {
			if p, ok := allFinite(v.Index(i), path+"[]"); !ok {
				return p, false
			}
		}
	}
	return path, true
}
