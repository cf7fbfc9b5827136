package scenes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// parseOBJText parses obj, an OBJ file's text, and returns its mesh.
func parseOBJText(t *testing.T, obj string) *tracer.MeshDesc {
	t.Helper()
	dir := t.TempDir()
	im, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte(obj))
	if err != nil {
		t.Fatal(err)
	}
	return &im.meshes[0]
}

// cubeOBJ is a unit cube's 8 positions and 6 quads (counter-clockwise
// seen from outside), with smoothing statement s before the faces ("" for
// none).
func cubeOBJ(s string) string {
	return "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n" + s +
		"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n"
}

// checkFlatCorners checks that every corner of m has its triangle's own
// (geometric) normal.
func checkFlatCorners(t *testing.T, m *tracer.MeshDesc) {
	t.Helper()
	for c, k := range m.Indices {
		tri := c / 3 * 3
		a, b, d := m.Positions[m.Indices[tri]], m.Positions[m.Indices[tri+1]], m.Positions[m.Indices[tri+2]]
		if g := b.Sub(a).Cross(d.Sub(a)).Normalize(); !closeVec3(m.Normals[k], g) {
			t.Errorf("corner %d at %v: normal %v, want the face's %v", c, m.Positions[k], m.Normals[k], g)
		}
	}
}

// TestOBJSmoothingOff: a cube without vn whose faces are all in group 0
// (s off, s 0) is flat: no normals at all, as before smoothing existed.
func TestOBJSmoothingOff(t *testing.T) {
	for _, s := range []string{"s off\n", "s 0\n", "s 1\ns off\n"} {
		if m := parseOBJText(t, cubeOBJ(s)); len(m.Normals) != 0 || len(m.Positions) != 8 {
			t.Errorf("%q: %d normals, %d positions; want none (flat) and the 8 positions", s, len(m.Normals), len(m.Positions))
		}
	}
}

// TestOBJSmoothingGroupCube: a cube in one smoothing group shares one
// normal per corner, along the cube's diagonal (each of the three faces
// meets it at a right angle: equal weights); in a file without s the
// 60° crease keeps its faces apart (they meet at 90°): flat normals.
func TestOBJSmoothingGroupCube(t *testing.T) {
	m := parseOBJText(t, cubeOBJ("s 1\n"))
	if len(m.Positions) != 8 || len(m.Normals) != 8 {
		t.Fatalf("%d positions, %d normals; want 8 and 8", len(m.Positions), len(m.Normals))
	}
	for k, p := range m.Positions {
		want := p.Sub(mgl32.Vec3{0.5, 0.5, 0.5}).Normalize()
		if !closeVec3(m.Normals[k], want) {
			t.Errorf("corner %v: normal %v, want %v", p, m.Normals[k], want)
		}
	}
	m = parseOBJText(t, cubeOBJ(""))
	if len(m.Positions) != 24 || len(m.Normals) != 24 {
		t.Errorf("no s: %d positions, %d normals; want 24 (4 per face)", len(m.Positions), len(m.Normals))
	}
	checkFlatCorners(t, m)
}

// sphereOBJ is a UV sphere of radius 1 (rings × segments quads, the poles
// as triangle fans) in smoothing group s.
func sphereOBJ(rings, segments int, s string) string {
	var b strings.Builder
	b.WriteString("v 0 1 0\n")
	for i := 1; i < rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := range segments {
			ph := 2 * math.Pi * float64(j) / float64(segments)
			fmt.Fprintf(&b, "v %.9g %.9g %.9g\n", math.Sin(th)*math.Cos(ph), math.Cos(th), -math.Sin(th)*math.Sin(ph))
		}
	}
	b.WriteString("v 0 -1 0\n" + s)
	at := func(i, j int) int { return 2 + (i-1)*segments + j%segments }
	last := 2 + (rings-1)*segments
	for j := range segments {
		fmt.Fprintf(&b, "f 1 %d %d\n", at(1, j), at(1, j+1))
		fmt.Fprintf(&b, "f %d %d %d\n", last, at(rings-1, j+1), at(rings-1, j))
	}
	for i := 1; i+1 < rings; i++ {
		for j := range segments {
			fmt.Fprintf(&b, "f %d %d %d %d\n", at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1))
		}
	}
	return b.String()
}

// TestOBJSmoothSphere: a UV sphere without vn in group 1 gets one normal
// per position, within 0.2° of the analytic normal (the position itself)
// at 32 × 64; the same faces in group 0 are flat.
func TestOBJSmoothSphere(t *testing.T) {
	const rings, segments = 32, 64
	npos := 2 + (rings-1)*segments
	m := parseOBJText(t, sphereOBJ(rings, segments, "s 1\n"))
	if len(m.Positions) != npos || len(m.Normals) != npos {
		t.Fatalf("%d positions, %d normals; want %d of each", len(m.Positions), len(m.Normals), npos)
	}
	worst := 1.0
	for k, p := range m.Positions {
		worst = math.Min(worst, float64(m.Normals[k].Dot(p.Normalize())))
	}
	if deg := math.Acos(math.Min(worst, 1)) * 180 / math.Pi; !(deg < 0.2) {
		t.Errorf("largest angle between a computed and the analytic normal %.3g°, want < 0.2°", deg)
	}
	if m := parseOBJText(t, sphereOBJ(rings, segments, "s off\n")); len(m.Normals) != 0 {
		t.Errorf("s off: %d normals, want none", len(m.Normals))
	}
}

// foldOBJ is two unit squares sharing the edge x = 0 (positions 1 and 2),
// the second folded down by deg degrees from the first's plane, with s1
// and s2 before each.
func foldOBJ(deg float64, s1, s2 string) string {
	r := deg * math.Pi / 180
	return fmt.Sprintf("v 0 0 0\nv 0 0 1\nv -1 0 1\nv -1 0 0\nv %.9g %.9g 1\nv %.9g %.9g 0\n", math.Cos(r), -math.Sin(r), math.Cos(r), -math.Sin(r)) +
		s1 + "f 1 4 3 2\n" + s2 + "f 1 2 5 6\n"
}

// edgeNormals returns the normals m has at positions on the shared edge
// x = 0 of foldOBJ, by face (0: the flat square, 1: the folded one).
func edgeNormals(m *tracer.MeshDesc) [2][]mgl32.Vec3 {
	var out [2][]mgl32.Vec3
	for c, k := range m.Indices {
		if p := m.Positions[k]; p[0] == 0 && p[1] == 0 {
			f := c / 6 // two triangles per square
			out[f] = append(out[f], m.Normals[k])
		}
	}
	return out
}

// TestOBJSmoothingGroupsEdge: two faces meeting on an edge share the
// edge's normals when they are in one group, and keep two normals (their
// own) when they are in two, however gently they fold; in a file without
// s, a fold of less than 60° is smoothed (the bisecting normal) and one
// of more is a crease.
func TestOBJSmoothingGroupsEdge(t *testing.T) {
	bisect := func(deg float64) mgl32.Vec3 {
		r := deg / 2 * math.Pi / 180
		return mgl32.Vec3{float32(math.Sin(r)), float32(math.Cos(r)), 0}
	}
	tests := []struct {
		name   string
		obj    string
		shared bool
		deg    float64
	}{
		{"one group", foldOBJ(20, "s 1\n", ""), true, 20},
		{"one group, sharp", foldOBJ(80, "s 3\n", "s 3\n"), true, 80},
		{"two groups", foldOBJ(20, "s 1\n", "s 2\n"), false, 20},
		{"group and off", foldOBJ(20, "s 1\n", "s off\n"), false, 20},
		{"no s, below the crease", foldOBJ(59, "", ""), true, 59},
		{"no s, above the crease", foldOBJ(61, "", ""), false, 61},
	}
	for _, tt := range tests {
		m := parseOBJText(t, tt.obj)
		en := edgeNormals(m)
		if len(en[0]) == 0 || len(en[1]) == 0 {
			t.Fatalf("%s: edge normals %v", tt.name, en)
		}
		r := tt.deg * math.Pi / 180
		own := [2]mgl32.Vec3{{0, 1, 0}, {float32(math.Sin(r)), float32(math.Cos(r)), 0}}
		for f := range 2 {
			want := own[f]
			if tt.shared {
				want = bisect(tt.deg)
			}
			for _, n := range en[f] {
				if !closeVec3(n, want) {
					t.Errorf("%s: face %d's normal on the edge %v, want %v", tt.name, f, n, want)
				}
			}
		}
	}
}

// TestOBJSmoothAngleWeighted: the normal at a position does not depend on
// how the faces around it are split into triangles: a square split into
// four triangles around the shared corner weighs the same as one split
// into two (angle weighting; counting faces would tilt it toward the
// finer split).
func TestOBJSmoothAngleWeighted(t *testing.T) {
	const fold = 40
	coarse := parseOBJText(t, foldOBJ(fold, "s 1\n", ""))
	// The flat square fanned from the edge's corner (0, 0, 0) into four
	// triangles through extra points on its far edges.
	fine := parseOBJText(t, "v 0 0 0\nv 0 0 1\nv -1 0 1\nv -1 0 0\nv -0.5 0 1\nv -1 0 0.5\n"+
		fmt.Sprintf("v %.9g %.9g 1\nv %.9g %.9g 0\n", math.Cos(fold*math.Pi/180), -math.Sin(fold*math.Pi/180), math.Cos(fold*math.Pi/180), -math.Sin(fold*math.Pi/180))+
		"s 1\nf 1 5 2\nf 1 3 5\nf 1 6 3\nf 1 4 6\nf 1 2 7 8\n")
	at := func(m *tracer.MeshDesc) mgl32.Vec3 {
		for k, p := range m.Positions {
			if p == (mgl32.Vec3{}) {
				return m.Normals[k]
			}
		}
		t.Fatal("no vertex at the origin")
		return mgl32.Vec3{}
	}
	if a, b := at(coarse), at(fine); !closeVec3(a, b) {
		t.Errorf("normal at the corner: %v split in two, %v split in four; want equal", a, b)
	}
}

// TestOBJSmoothingGroupSyntax: s takes off or a number.
func TestOBJSmoothingGroupSyntax(t *testing.T) {
	dir := t.TempDir()
	_, err := parseOBJ(testAssets(t, dir), filepath.Join(dir, "t.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\ns on\nf 1 2 3\n"))
	if err == nil || !strings.Contains(err.Error(), `t.obj:4: s: smoothing group "on" is not off or a number`) {
		t.Errorf("s on: error %v", err)
	}
}

// TestOBJCreaseAngleSetting: a mesh object's crease_angle replaces the
// 60° crease of a file without s: a fold of 70° is smoothed under a crease
// of 80° and kept sharp under the default, and objects placing one file
// with two crease angles get one reading of it each; a crease angle is
// refused outside [0, 180] and for glTF files.
func TestOBJCreaseAngleSetting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fold.obj"), []byte(foldOBJ(70, "", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(objects string) (*tracer.SceneDesc, error) {
		path := filepath.Join(dir, "scene.json")
		if err := os.WriteFile(path, []byte(meshScene(`"grey": {"type": "diffuse"}`, objects)), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(path)
	}
	s, err := load(`{"type": "mesh", "file": "fold.obj", "material": "grey"},
		{"type": "mesh", "file": "fold.obj", "material": "grey", "crease_angle": 80}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Meshes) != 2 {
		t.Fatalf("%d meshes, want 2", len(s.Meshes))
	}
	for i, smooth := range []bool{false, true} {
		en := edgeNormals(&s.Meshes[i])
		shared := len(en[0]) > 0 && len(en[1]) > 0 && closeVec3(en[0][0], en[1][0])
		if shared != smooth {
			t.Errorf("object %d: edge normals %v; smoothed %v, want %v", i, en, shared, smooth)
		}
	}
	for _, tt := range []struct{ obj, err string }{
		{`{"type": "mesh", "file": "fold.obj", "material": "grey", "crease_angle": 181}`, "crease_angle: must be in [0, 180]"},
		{`{"type": "mesh", "file": "fold.gltf", "material": "grey", "crease_angle": 30}`, `crease_angle applies to OBJ files, whose normals trace computes; "fold.gltf" is a .gltf file`},
	} {
		if _, err := load(tt.obj); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.obj, err, tt.err)
		}
	}
}
