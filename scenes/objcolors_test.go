package scenes

import (
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// TestOBJColorsWithComputedNormals: vertex colours (v x y z r g b) stay
// with their positions when normals are computed and a crease splits a
// vertex in two: one colour per vertex of the mesh, the file's colour of
// its position.
func TestOBJColorsWithComputedNormals(t *testing.T) {
	// Two triangles folded at 90° along the edge 1–2: each of vertices 1
	// and 2 becomes two, one per side of the crease.
	obj := "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nv 0 0 1 1 1 0\nf 1 2 3\nf 1 4 2\n"
	colour := map[mgl32.Vec3]mgl32.Vec3{{0, 0, 0}: {1, 0, 0}, {1, 0, 0}: {0, 1, 0}, {0, 1, 0}: {0, 0, 1}, {0, 0, 1}: {1, 1, 0}}
	dir := t.TempDir()
	im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj))
	if err != nil {
		t.Fatal(err)
	}
	if msg := checkImported(im); msg != "" {
		t.Fatal(msg)
	}
	m := im.meshes[0]
	if len(m.Positions) != 6 || len(m.Colors) != len(m.Positions) || len(m.Normals) != len(m.Positions) {
		t.Fatalf("%d positions, %d colours, %d normals: want 6 of each (two vertices split by the crease)", len(m.Positions), len(m.Colors), len(m.Normals))
	}
	for i, p := range m.Positions {
		if m.Colors[i] != colour[p] {
			t.Errorf("vertex %d at %v: colour %v, want %v", i, p, m.Colors[i], colour[p])
		}
	}
}
