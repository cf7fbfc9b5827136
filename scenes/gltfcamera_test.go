package scenes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
)

// cameraDoc is a triangle and two perspective cameras: "side" on a node
// at (1, 2, 3) turned 90° about +y (so it looks along −x), yfov 0.5, and
// "top" under a parent moved up by 10, looking down, yfov 1; and two
// orthographic cameras: "flat" (ymag 1) on a node stretched 3 times
// along y, and "zero" (ymag 0).
func cameraDoc() *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Cameras = []*gltf.Camera{
		{Name: "side", Type: "perspective", Perspective: &gltf.Perspective{Yfov: 0.5, Znear: 0.1}},
		{Name: "top", Type: "perspective", Perspective: &gltf.Perspective{Yfov: 1, Znear: 0.1}},
		{Name: "flat", Type: "orthographic", Orthographic: &gltf.Orthographic{Xmag: 1, Ymag: 1, Zfar: 10}},
		{Name: "zero", Type: "orthographic", Orthographic: &gltf.Orthographic{Xmag: 1, Ymag: 0, Zfar: 10}},
	}
	s := math.Sqrt(0.5)
	doc.Nodes = append(doc.Nodes,
		&gltf.Node{Camera: gltf.Index(0), Translation: [3]float64{1, 2, 3}, Rotation: [4]float64{0, s, 0, s}},
		&gltf.Node{Translation: [3]float64{0, 10, 0}, Children: []int{3}},
		&gltf.Node{Camera: gltf.Index(1), Rotation: [4]float64{-s, 0, 0, s}},
		&gltf.Node{Camera: gltf.Index(2), Scale: [3]float64{1, 3, 1}},
		&gltf.Node{Camera: gltf.Index(3)},
	)
	doc.Scenes[0].Nodes = []int{0, 1, 2, 4, 5}
	return doc
}

// TestGLTFCamera: a scene's camera taken from a glTF file sits where its
// node's world matrix puts it, looks along the node's −z with +y up and
// has the file's vertical field of view, or, orthographic, the height
// 2·ymag stretched by the node's scale along y; "camera" picks one by
// index or name (the first by default); an orthographic camera with a
// lens or without a positive ymag, a missing name or index, and a file
// without cameras are errors naming them.
func TestGLTFCamera(t *testing.T) {
	dir := t.TempDir()
	writeGLTF(t, filepath.Join(dir, "model.gltf"), cameraDoc())
	plain := newGLTFDoc(gltfTriangle, nil)
	writeGLTF(t, filepath.Join(dir, "plain.gltf"), plain)
	if err := os.WriteFile(filepath.Join(dir, "broken.gltf"), []byte(`{"asset": {"version": "2.0"}, "nodes": [{"camera": 3}], "scenes": [{"nodes": [0]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(camera string) (*sceneCamera, error) {
		path := filepath.Join(dir, "scene.json")
		src := `{"version": 1, "render": {"width": 8, "height": 8, "samples": 1},
			"camera": {` + camera + `},
			"materials": {"white": {"type": "diffuse", "color": [0.5, 0.5, 0.5]}},
			"objects": [{"type": "mesh", "file": "model.gltf", "material": "white"}]}`
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			return nil, err
		}
		c := s.Camera
		return &sceneCamera{c.Position, c.LookAt.Sub(c.Position), c.Up.Normalize(), c.FOV, c.Aperture, c.Orthographic, c.Height}, nil
	}
	near := func(a, b mgl32.Vec3) bool { return a.Sub(b).Len() < 1e-5 }
	for _, tt := range []struct {
		camera       string
		pos, dir, up mgl32.Vec3
		fov          float64
		height       float32 // orthographic
	}{
		{`"gltf": "model.gltf"`, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{-1, 0, 0}, mgl32.Vec3{0, 1, 0}, 0.5, 0},
		{`"gltf": "model.gltf", "camera": 1`, mgl32.Vec3{0, 10, 0}, mgl32.Vec3{0, -1, 0}, mgl32.Vec3{0, 0, -1}, 1, 0},
		{`"gltf": "model.gltf", "camera": "top", "aperture": 0.1`, mgl32.Vec3{0, 10, 0}, mgl32.Vec3{0, -1, 0}, mgl32.Vec3{0, 0, -1}, 1, 0},
		{`"gltf": "model.gltf", "camera": 2`, mgl32.Vec3{0, 0, 0}, mgl32.Vec3{0, 0, -1}, mgl32.Vec3{0, 1, 0}, 0, 6},
	} {
		c, err := load(tt.camera)
		if err != nil {
			t.Errorf("%s: %v", tt.camera, err)
			continue
		}
		wantFOV := float32(tt.fov * 180 / math.Pi)
		if !near(c.pos, tt.pos) || !near(c.dir, tt.dir) || !near(c.up, tt.up) || math.Abs(float64(c.fov-wantFOV)) > 1e-4 ||
			c.ortho != (tt.height != 0) || math.Abs(float64(c.height-tt.height)) > 1e-5 {
			t.Errorf("%s: position %v direction %v up %v fov %g orthographic %v height %g; want %v %v %v %g, height %g",
				tt.camera, c.pos, c.dir, c.up, c.fov, c.ortho, c.height, tt.pos, tt.dir, tt.up, wantFOV, tt.height)
		}
		if strings.Contains(tt.camera, "aperture") && c.aperture != 0.1 {
			t.Errorf("%s: aperture %g, want 0.1", tt.camera, c.aperture)
		}
	}
	for _, tt := range []struct{ camera, want string }{
		{`"gltf": "model.gltf", "camera": 2, "aperture": 0.1`, "cameras[2] is orthographic, which has no lens: aperture must be 0"},
		{`"gltf": "model.gltf", "camera": "zero"`, "cameras[3]: orthographic ymag 0 is not a positive number"},
		{`"gltf": "model.gltf", "camera": "front"`, `no camera named "front" (named cameras: "side", "top", "flat", "zero")`},
		{`"gltf": "model.gltf", "camera": 7`, "no node of its scene holds cameras[7]"},
		{`"gltf": "plain.gltf"`, "has no camera on a node of its scene"},
		{`"gltf": "model.gltf", "position": [0, 0, 0]`, `unknown field "position"`},
		{`"gltf": "model.obj"`, "is not a glTF file"},
		{`"gltf": "missing.gltf"`, "no such file"},
		{`"gltf": "broken.gltf"`, `camera.gltf: "broken.gltf": nodes[0].camera: cameras[3] does not exist`},
	} {
		_, err := load(tt.camera)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.camera, err, tt.want)
		}
	}
}

// sceneCamera is what TestGLTFCamera compares of a loaded camera.
type sceneCamera struct {
	pos, dir, up mgl32.Vec3
	fov          float32
	aperture     float32
	ortho        bool
	height       float32
}
