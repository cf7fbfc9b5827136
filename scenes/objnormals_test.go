package scenes

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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
		{`{"type": "mesh", "file": "fold.gltf", "material": "grey", "crease_angle": 30}`, `crease_angle applies to OBJ and PLY files, whose normals trace computes; "fold.gltf" is a .gltf file`},
	} {
		if _, err := load(tt.obj); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.obj, err, tt.err)
		}
	}
}

// normalsBothWays parses obj under a crease angle of deg degrees and
// returns its mesh, the steps that computeNormals takes for it (0 when
// the mesh needs no computed normals) and, when reference is set, the
// mesh of the reference algorithm (referenceComputeNormals) from the same
// parse.
func normalsBothWays(t *testing.T, obj string, deg float64, reference bool) (got, want tracer.MeshDesc, steps int) {
	t.Helper()
	dir := t.TempDir()
	p := newOBJParser(testAssets(t, dir), filepath.Join(dir, "t.obj"))
	if deg != objCreaseDegrees {
		p.creaseCos = math.Cos(deg * math.Pi / 180)
	}
	im, err := p.parse(&objText{data: []byte(obj)})
	if err != nil {
		t.Fatal(err)
	}
	got = im.meshes[0]
	want = tracer.MeshDesc{Indices: p.indices}
	switch {
	case !p.needsComputedNormals():
		p.vertexArrays(&want)
	case reference:
		p.referenceComputeNormals(&want)
	}
	if p.needsComputedNormals() {
		again := tracer.MeshDesc{Indices: p.indices}
		steps = p.computeNormals(&again)
	}
	return got, want, steps
}

// sameMeshBits reports the first difference between the indices,
// positions, normals and texture coordinates of a and b, comparing
// floats bit for bit; "" if there is none.
func sameMeshBits(a, b *tracer.MeshDesc) string {
	if !slices.Equal(a.Indices, b.Indices) {
		return fmt.Sprintf("indices differ (%d and %d)", len(a.Indices), len(b.Indices))
	}
	bits := func(vs []mgl32.Vec3) []uint32 {
		var out []uint32
		for _, v := range vs {
			out = append(out, math.Float32bits(v[0]), math.Float32bits(v[1]), math.Float32bits(v[2]))
		}
		return out
	}
	if !slices.Equal(bits(a.Positions), bits(b.Positions)) {
		return "positions differ"
	}
	if an, bn := bits(a.Normals), bits(b.Normals); !slices.Equal(an, bn) {
		for i := range min(len(an), len(bn)) {
			if an[i] != bn[i] {
				return fmt.Sprintf("normal %d: %v, want %v", i/3, a.Normals[i/3], b.Normals[i/3])
			}
		}
		return fmt.Sprintf("%d normals, want %d", len(an)/3, len(bn)/3)
	}
	if !slices.Equal(a.UVs, b.UVs) {
		return "texture coordinates differ"
	}
	return ""
}

// randomNormalsOBJ is a random mesh for TestOBJNormalsMatchReference:
// faces of 3 to 5 vertices over few positions (a grid with jitter, so
// that faces share positions, meet at every angle, repeat, or have no
// area), some of their vertices with vn, the faces under s statements
// when groups is set; and fans: a cone around one tip (sharp or shallow,
// so that its normals spread beyond the crease or stay within it) and
// repeated copies of one triangle.
func randomNormalsOBJ(r *rand.Rand, groups bool) string {
	var b strings.Builder
	npos := 4 + r.IntN(30)
	for range npos {
		q := func() float64 {
			if r.IntN(3) == 0 {
				return float64(r.IntN(3))
			}
			return float64(r.IntN(3)) + r.Float64()*0.3
		}
		fmt.Fprintf(&b, "v %.6g %.6g %.6g\n", q(), q(), q())
	}
	b.WriteString("vn 0 0 1\nvn 0.6 0.8 0\n")
	// The cone: its tip, then its rim.
	tip := npos + 1
	rim := 3 + r.IntN(60)
	height := []float64{0.05, 0.5, 3}[r.IntN(3)]
	fmt.Fprintf(&b, "v 5 5 %g\n", height)
	for i := range rim {
		a := 2 * math.Pi * float64(i) / float64(rim)
		fmt.Fprintf(&b, "v %.9g %.9g 0\n", 5+math.Cos(a), 5+math.Sin(a))
	}
	face := func() {
		n := 3 + r.IntN(3)
		b.WriteString("f")
		for range n {
			v := 1 + r.IntN(npos)
			if r.IntN(8) == 0 {
				fmt.Fprintf(&b, " %d//%d", v, 1+r.IntN(2))
			} else {
				fmt.Fprintf(&b, " %d", v)
			}
		}
		b.WriteString("\n")
	}
	for range 5 + r.IntN(60) {
		if groups && r.IntN(4) == 0 {
			fmt.Fprintf(&b, "s %s\n", []string{"off", "0", "1", "2", "3", "7"}[r.IntN(6)])
		}
		switch r.IntN(10) {
		case 0: // the cone
			for i := range rim {
				fmt.Fprintf(&b, "f %d %d %d\n", tip, tip+1+i, tip+1+(i+1)%rim)
			}
		case 1: // one triangle, repeated
			a, c, d := 1+r.IntN(npos), 1+r.IntN(npos), 1+r.IntN(npos)
			for range 2 + r.IntN(20) {
				fmt.Fprintf(&b, "f %d %d %d\n", a, c, d)
			}
		default:
			face()
		}
	}
	return b.String()
}

// TestOBJNormalsMatchReference: computeNormals gives the same meshes, bit
// for bit, as the reference algorithm it replaced (whose normals the
// golden images hold), on random meshes with shared positions, vn,
// smoothing groups and crease angles, and on a fan longer than
// objCreaseFan.
func TestOBJNormalsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	creases := []float64{objCreaseDegrees, 0, 1e-6, 10, 45, 89.99, 90, 120, 179, 180}
	for i := range 600 {
		groups := i%3 == 0
		obj := randomNormalsOBJ(r, groups)
		deg := creases[r.IntN(len(creases))]
		got, want, _ := normalsBothWays(t, obj, deg, true)
		if d := sameMeshBits(&got, &want); d != "" {
			t.Fatalf("mesh %d (crease %g°): %s\n%s", i, deg, d, obj)
		}
	}
	// A bumpy fan just longer than objCreaseFan, and one just within.
	for _, n := range []int{objCreaseFan - 1, objCreaseFan + 1} {
		var b strings.Builder
		b.WriteString("v 0 0 0\n")
		for i := range n {
			a := 2 * math.Pi * float64(i) / float64(n)
			fmt.Fprintf(&b, "v %.9g %.9g %.3g\n", math.Cos(a), math.Sin(a), r.Float64()*2-1)
		}
		for i := range n {
			fmt.Fprintf(&b, "f 1 %d %d\n", 2+i, 2+(i+1)%n)
		}
		got, want, _ := normalsBothWays(t, b.String(), objCreaseDegrees, true)
		if d := sameMeshBits(&got, &want); d != "" {
			t.Errorf("fan of %d faces: %s", n, d)
		}
	}
}

// TestOBJNormalsHighValence: the faces around one position cost steps
// linear in their corners, not their square (the reference took about
// 50,000² steps for 50,000 copies of one triangle, a file of 400 kB: 30 s;
// 1 M faces, hours): copies of one triangle, with and without a smoothing
// group, many more than objCreaseFan or fewer under the crease; a cone
// whose every face is its own group (a tip of 5,000 normals); a shallow
// cone under the crease; fans of faces of no area. The normals are the
// reference's where it is fast enough, else the (0, 0, 1) that every
// copy of the triangle must get, at its 3 vertices.
func TestOBJNormalsHighValence(t *testing.T) {
	copies := func(n int, head, tri string) string {
		return head + strings.Repeat(tri, n)
	}
	cone := func(n int, group bool) string {
		var b strings.Builder
		b.WriteString("v 0 0 1\n")
		for i := range n {
			a := 2 * math.Pi * float64(i) / float64(n)
			fmt.Fprintf(&b, "v %.9g %.9g 0\n", math.Cos(a), math.Sin(a))
		}
		for i := range n {
			if group {
				fmt.Fprintf(&b, "s %d\n", i+1)
			}
			fmt.Fprintf(&b, "f 1 %d %d\n", 2+i, 2+(i+1)%n)
		}
		return b.String()
	}
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	tests := []struct {
		name   string
		obj    string
		verify bool // compare with the reference (fast enough), else expect (0, 0, 1) at 3 vertices
	}{
		{"50,000 copies", copies(50000, tri, "f 1 2 3\n"), false},
		{"50,000 copies, s 1", copies(50000, tri+"s 1\n", "f 1 2 3\n"), false},
		{"4,000 copies under the crease", copies(4000, tri, "f 1 2 3\n"), true},
		{"4,000 faces of no area under the crease", copies(4000, "v 0 0 0\nv 1 0 0\nv 2 0 0\n", "f 1 2 3\n"), true},
		{"50,000 faces of no area, s 1", copies(50000, "v 0 0 0\nv 1 0 0\nv 2 0 0\ns 1\n", "f 1 2 3\n"), false},
		{"a cone of 5,000 groups", cone(5000, true), true},
		{"a shallow cone of 4,000 faces under the crease", strings.Replace(cone(4000, false), "v 0 0 1\n", "v 0 0 0.2\n", 1), true},
	}
	for _, tt := range tests {
		got, want, steps := normalsBothWays(t, tt.obj, objCreaseDegrees, tt.verify)
		corners := len(got.Indices)
		// Sorting a position's corners by group takes about log₂ of
		// their number steps each (16 for 50,000); every other pass is
		// a few steps a corner.
		if limit := 40 * corners; steps > limit {
			t.Errorf("%s: %d steps for %d corners, want at most %d", tt.name, steps, corners, limit)
		}
		if tt.verify {
			if d := sameMeshBits(&got, &want); d != "" {
				t.Errorf("%s: %s", tt.name, d)
			}
			continue
		}
		for k, n := range got.Normals {
			if n != (mgl32.Vec3{0, 0, 1}) {
				t.Errorf("%s: vertex %d's normal %v, want (0, 0, 1)", tt.name, k, n)
				break
			}
		}
		if len(got.Positions) != 3 {
			t.Errorf("%s: %d vertices, want 3", tt.name, len(got.Positions))
		}
	}
}
