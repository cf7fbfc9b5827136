package scenes

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// near reports whether a and b agree within tol in every component.
func near(a, b mgl32.Vec3, tol float32) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > float64(tol) {
			return false
		}
	}
	return true
}

// TestTransformPoints checks where points go: M = T · Rz · Ry · Rx · S,
// rotations counter-clockwise about the world axes, in degrees. Quarter
// turns are exact.
func TestTransformPoints(t *testing.T) {
	one := mgl32.Vec3{1, 1, 1}
	tests := []struct {
		name                     string
		translate, rotate, scale mgl32.Vec3
		in, want                 mgl32.Vec3
		tol                      float32 // 0: exact
	}{
		{"identity", mgl32.Vec3{}, mgl32.Vec3{}, one, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{1, 2, 3}, 0},
		{"rotate x 90: y to z", mgl32.Vec3{}, mgl32.Vec3{90, 0, 0}, one, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{0, 0, 1}, 0},
		{"rotate x 90: z to -y", mgl32.Vec3{}, mgl32.Vec3{90, 0, 0}, one, mgl32.Vec3{0, 0, 1}, mgl32.Vec3{0, -1, 0}, 0},
		{"rotate y 90: z to x", mgl32.Vec3{}, mgl32.Vec3{0, 90, 0}, one, mgl32.Vec3{0, 0, 1}, mgl32.Vec3{1, 0, 0}, 0},
		{"rotate y 90: x to -z", mgl32.Vec3{}, mgl32.Vec3{0, 90, 0}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, -1}, 0},
		{"rotate z 90: x to y", mgl32.Vec3{}, mgl32.Vec3{0, 0, 90}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 1, 0}, 0},
		{"rotate z 90: y to -x", mgl32.Vec3{}, mgl32.Vec3{0, 0, 90}, one, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{-1, 0, 0}, 0},
		{"rotate z -90 = 270", mgl32.Vec3{}, mgl32.Vec3{0, 0, -90}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, -1, 0}, 0},
		{"rotate z 450 = 90", mgl32.Vec3{}, mgl32.Vec3{0, 0, 450}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 1, 0}, 0},
		{"rotate y 180", mgl32.Vec3{}, mgl32.Vec3{0, 180, 0}, one, mgl32.Vec3{1, 2, 3}, mgl32.Vec3{-1, 2, -3}, 0},
		// X first: y → z, then Y: z → x.
		{"x then y", mgl32.Vec3{}, mgl32.Vec3{90, 90, 0}, one, mgl32.Vec3{0, 1, 0}, mgl32.Vec3{1, 0, 0}, 0},
		// Y first would give y → y → -x; Y then Z: x → -z → -z.
		{"y then z", mgl32.Vec3{}, mgl32.Vec3{0, 90, 90}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, -1}, 0},
		{"rotate z 30", mgl32.Vec3{}, mgl32.Vec3{0, 0, 30}, one, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0.8660254, 0.5, 0}, 1e-6},
		// Scale, then rotate, then translate.
		{"scale rotate translate", mgl32.Vec3{1, 2, 3}, mgl32.Vec3{0, 0, 90}, mgl32.Vec3{2, 2, 2}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{1, 4, 3}, 0},
		{"non-uniform scale", mgl32.Vec3{}, mgl32.Vec3{}, mgl32.Vec3{2, -1, 0.5}, mgl32.Vec3{1, 1, 1}, mgl32.Vec3{2, -1, 0.5}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xf := newTransform(tt.translate, tt.rotate, tt.scale)
			got, ok := xf.point(tt.in)
			if !ok || !near(got, tt.want, tt.tol) {
				t.Errorf("point(%v) = %v, %v; want %v", tt.in, got, ok, tt.want)
			}
		})
	}
}

// TestTransformNormals checks that normals go through the inverse
// transpose and come out unit length.
func TestTransformNormals(t *testing.T) {
	tests := []struct {
		name          string
		rotate, scale mgl32.Vec3
		in, want      mgl32.Vec3
	}{
		{"rotation", mgl32.Vec3{0, 90, 0}, mgl32.Vec3{1, 1, 1}, mgl32.Vec3{0, 0, -1}, mgl32.Vec3{-1, 0, 0}},
		{"unnormalised input", mgl32.Vec3{}, mgl32.Vec3{1, 1, 1}, mgl32.Vec3{0, 3, 0}, mgl32.Vec3{0, 1, 0}},
		// The plane x + y = c, stretched by 2 along x, is x/2 + y = c:
		// its normal (1, 1) becomes (1/2, 1), not (2, 1).
		{"non-uniform scale", mgl32.Vec3{}, mgl32.Vec3{2, 1, 1}, mgl32.Vec3{1, 1, 0}, mgl32.Vec3{1, 2, 0}.Normalize()},
		{"uniform scale", mgl32.Vec3{}, mgl32.Vec3{5, 5, 5}, mgl32.Vec3{0, 0, 1}, mgl32.Vec3{0, 0, 1}},
		{"mirror", mgl32.Vec3{}, mgl32.Vec3{-1, 1, 1}, mgl32.Vec3{1, 0, 0}, mgl32.Vec3{-1, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xf := newTransform(mgl32.Vec3{}, tt.rotate, tt.scale)
			got, ok := xf.direction(tt.in)
			if !ok || !near(got, tt.want, 1e-6) {
				t.Errorf("direction(%v) = %v, %v; want %v", tt.in, got, ok, tt.want)
			}
		})
	}
	if _, ok := identityTransform.direction(mgl32.Vec3{}); ok {
		t.Errorf("a zero normal was normalised")
	}
}

// TestTransformMesh checks a whole mesh: a mirror (an odd number of
// negative scale factors) swaps each triangle's last two indices so that
// the geometric normal still agrees with the shading normals; an even
// number does not; a zero normal drops the normals; shared slices are
// copied when asked.
func TestTransformMesh(t *testing.T) {
	m := tracer.MeshDesc{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		UVs:       []mgl32.Vec2{{0, 0}, {1, 0}, {0, 1}},
		Indices:   []uint32{0, 1, 2},
	}
	tests := []struct {
		name    string
		scale   mgl32.Vec3
		indices []uint32
	}{
		{"no mirror", mgl32.Vec3{2, 3, 4}, []uint32{0, 1, 2}},
		{"mirror x", mgl32.Vec3{-1, 1, 1}, []uint32{0, 2, 1}},
		{"mirror z", mgl32.Vec3{1, 1, -2}, []uint32{0, 2, 1}},
		{"two mirrors: a rotation", mgl32.Vec3{-1, -1, 1}, []uint32{0, 1, 2}},
		{"three mirrors", mgl32.Vec3{-1, -1, -1}, []uint32{0, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xf := newTransform(mgl32.Vec3{}, mgl32.Vec3{10, 20, 30}, tt.scale)
			out, ok := xf.mesh(&m, false)
			if !ok {
				t.Fatal("transform failed")
			}
			if !slices.Equal(out.Indices, tt.indices) {
				t.Fatalf("indices %v, want %v", out.Indices, tt.indices)
			}
			p := out.Positions
			i := out.Indices
			g := p[i[1]].Sub(p[i[0]]).Cross(p[i[2]].Sub(p[i[0]])).Normalize()
			if n := out.Normals[0]; g.Dot(n) < 0.9999 {
				t.Errorf("geometric normal %v, shading normal %v", g, n)
			}
			if slices.Equal(tt.indices, m.Indices) && &out.Indices[0] != &m.Indices[0] {
				t.Errorf("indices copied without need")
			}
		})
	}
	if !slices.Equal(m.Indices, []uint32{0, 1, 2}) {
		t.Errorf("the input mesh was changed: %v", m.Indices)
	}
	out, _ := identityTransform.mesh(&m, true)
	if &out.Indices[0] == &m.Indices[0] || &out.UVs[0] == &m.UVs[0] {
		t.Errorf("copyShared did not copy")
	}
	zero := m
	zero.Normals = []mgl32.Vec3{{0, 0, 1}, {0, 0, 0}, {0, 0, 1}}
	if out, ok := identityTransform.mesh(&zero, false); !ok || out.Normals != nil {
		t.Errorf("a zero normal kept the normals: %v", out.Normals)
	}
	huge := m
	huge.Positions = []mgl32.Vec3{{0, 0, 0}, {3e38, 0, 0}, {0, 1, 0}}
	double := newTransform(mgl32.Vec3{}, mgl32.Vec3{}, mgl32.Vec3{2, 2, 2})
	if _, ok := double.mesh(&huge, false); ok {
		t.Errorf("an overflowing position was accepted")
	}
}

// TestTransformDecode checks the transform member as a scene file writes
// it, and its errors.
func TestTransformDecode(t *testing.T) {
	tests := []struct {
		name      string
		transform string
		want      mgl32.Vec3 // where the quad's vertex (1, 0, 0) goes
		err       string
	}{
		{"absent", ``, mgl32.Vec3{1, 0, 0}, ""},
		{"empty", `, "transform": {}`, mgl32.Vec3{1, 0, 0}, ""},
		{"number scale", `, "transform": {"scale": 3}`, mgl32.Vec3{3, 0, 0}, ""},
		{"vector scale", `, "transform": {"scale": [3, 1, 1], "translate": [0, 0, 1]}`, mgl32.Vec3{3, 0, 1}, ""},
		{"rotate", `, "transform": {"rotate": [0, 0, 90]}`, mgl32.Vec3{0, 1, 0}, ""},
		{"zero scale", `, "transform": {"scale": 0}`, mgl32.Vec3{}, "objects[0].transform.scale: must not be zero, found 0"},
		{"zero scale component", `, "transform": {"scale": [1, 0, 1]}`, mgl32.Vec3{}, "objects[0].transform.scale[1]: must not be zero, found 0"},
		{"underflowing scale", `, "transform": {"scale": 1e-50}`, mgl32.Vec3{}, "objects[0].transform.scale: must not be zero, found 1e-50 (0 as float32)"},
		{"scale of two", `, "transform": {"scale": [1, 1]}`, mgl32.Vec3{}, "objects[0].transform.scale: expected 3 numbers, found 2"},
		{"scale string", `, "transform": {"scale": "big"}`, mgl32.Vec3{}, "objects[0].transform.scale: expected a number or an array of 3 numbers, found a string"},
		{"unknown field", `, "transform": {"scael": 2}`, mgl32.Vec3{}, `objects[0].transform: unknown field "scael"; did you mean "scale"?`},
		{"not an object", `, "transform": [1, 2]`, mgl32.Vec3{}, "objects[0].transform: expected an object, found an array"},
		{"too large", `, "transform": {"scale": 1e38, "translate": [3e38, 0, 0]}`, mgl32.Vec3{}, `objects[0].transform: "quad.obj": a transformed vertex is too large for float32`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scene := `{"version": 1, "camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}, "materials": {"white": {"type": "diffuse"}},
				"objects": [{"type": "mesh", "file": "quad.obj", "material": "white"` + tt.transform + `}]}`
			s, err := Parse(meshDir+"/t.json", []byte(scene))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Meshes[0].Positions[1]; !near(got, tt.want, 1e-6) {
				t.Errorf("vertex at %v, want %v", got, tt.want)
			}
		})
	}
}
