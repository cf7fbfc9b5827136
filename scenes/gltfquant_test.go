package scenes

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestLoadGLTFQuantized: in a file that lists KHR_mesh_quantization,
// POSITION, NORMAL, TANGENT and TEXCOORD_n of integer types are read as
// the extension says (a normalized BYTE c is max(c/127, −1), an
// UNSIGNED_BYTE c/255, SHORT max(c/32767, −1); an unnormalised value is
// itself), and the node's scale dequantizes the positions; without the
// extension, or with a type it does not allow, they are errors.
func TestLoadGLTFQuantized(t *testing.T) {
	type attrs struct {
		pos, nrm, tan, uv any
		posNorm, nrmNorm  bool
		tanNorm, uvNorm   bool
	}
	doc := func(a attrs, listed bool) *gltf.Document {
		d := gltf.NewDocument()
		write := func(data any, normalized bool) int {
			i := modeler.WriteAccessor(d, gltf.TargetArrayBuffer, data)
			d.Accessors[i].Normalized = normalized
			return i
		}
		prim := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: write(a.pos, a.posNorm)}}
		if a.nrm != nil {
			prim.Attributes[gltf.NORMAL] = write(a.nrm, a.nrmNorm)
		}
		if a.tan != nil {
			prim.Attributes[gltf.TANGENT] = write(a.tan, a.tanNorm)
		}
		if a.uv != nil {
			prim.Attributes[gltf.TEXCOORD_0] = write(a.uv, a.uvNorm)
		}
		d.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{prim}}}
		d.Nodes = []*gltf.Node{{Mesh: gltf.Index(0), Scale: [3]float64{0.01, 0.01, 0.01}}}
		d.Scenes[0].Nodes = []int{0}
		if listed {
			d.ExtensionsUsed = []string{"KHR_mesh_quantization"}
			d.ExtensionsRequired = []string{"KHR_mesh_quantization"}
		}
		return d
	}

	// gltfpack's usual output: SHORT positions (dequantized by the node's
	// scale), normalized BYTE normals and tangents, normalized SHORT
	// texture coordinates.
	m := mustLoadGLTFDoc(t, doc(attrs{
		pos: [][3]int16{{0, 0, 0}, {100, 0, 0}, {0, 100, 0}},
		nrm: [][3]int8{{0, 0, 127}, {0, 0, -128}, {127, 0, 0}}, nrmNorm: true,
		tan: [][4]int8{{127, 0, 0, 127}, {127, 0, 0, -127}, {0, 127, 0, 127}}, tanNorm: true,
		uv: [][2]int16{{32767, 0}, {0, -32768}, {16384, 32767}}, uvNorm: true,
	}, true), false)
	mesh := m.meshes[0]
	checkPositions(t, mesh, []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	if want := []mgl32.Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}}; !slices.Equal(mesh.Normals, want) {
		t.Errorf("normals %v, want %v", mesh.Normals, want)
	}
	if want := []mgl32.Vec4{{1, 0, 0, 1}, {1, 0, 0, -1}, {0, 1, 0, 1}}; !slices.Equal(mesh.Tangents, want) {
		t.Errorf("tangents %v, want %v", mesh.Tangents, want)
	}
	// v flipped: 1 − v.
	if want := []mgl32.Vec2{{1, 1}, {0, 2}, {float32(16384) / 32767, 0}}; !slices.Equal(mesh.UVs, want) {
		t.Errorf("uvs %v, want %v", mesh.UVs, want)
	}

	// Normalized positions and unnormalised texture coordinates.
	m = mustLoadGLTFDoc(t, doc(attrs{
		pos: [][3]uint8{{0, 0, 0}, {255, 0, 51}, {0, 255, 0}}, posNorm: true,
		uv: [][2]uint8{{2, 3}, {0, 0}, {1, 1}},
	}, true), false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {0.01, 0, float32(51) / 255 * 0.01}, {0, 0.01, 0}})
	if want := []mgl32.Vec2{{2, -2}, {0, 1}, {1, 0}}; !slices.Equal(m.meshes[0].UVs, want) {
		t.Errorf("uvs %v, want %v", m.meshes[0].UVs, want)
	}
	m = mustLoadGLTFDoc(t, doc(attrs{pos: [][3]int8{{-128, 0, 0}, {127, 0, 0}, {0, 127, 0}}, posNorm: true}, true), false)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{-0.01, 0, 0}, {0.01, 0, 0}, {0, 0.01, 0}})

	for _, tc := range []struct {
		name   string
		a      attrs
		listed bool
		msg    string
	}{
		{"positions, not listed", attrs{pos: [][3]int16{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}, false,
			"POSITION is SHORT VEC3, not supported (only FLOAT VEC3; KHR_mesh_quantization, which the file does not list in extensionsUsed"},
		{"normals, not listed", attrs{pos: gltfTriangle, nrm: [][3]int8{{0, 0, 127}, {0, 0, 127}, {0, 0, 127}}, nrmNorm: true}, false,
			"NORMAL is BYTE VEC3 normalized, not supported"},
		{"texture coordinates, not listed", attrs{pos: gltfTriangle, uv: [][2]int16{{0, 0}, {1, 0}, {0, 1}}}, false,
			"TEXCOORD_0 is SHORT VEC2, not supported"},
		{"unnormalised normals", attrs{pos: gltfTriangle, nrm: [][3]int8{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}}, true,
			"NORMAL is BYTE VEC3, not supported (only FLOAT VEC3, or with KHR_mesh_quantization normalized BYTE or SHORT)"},
		{"unsigned normals", attrs{pos: gltfTriangle, nrm: [][3]uint8{{0, 0, 255}, {0, 0, 255}, {0, 0, 255}}, nrmNorm: true}, true,
			"NORMAL is UNSIGNED_BYTE VEC3 normalized, not supported"},
		{"positions of a VEC4", attrs{pos: [][4]int16{{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}}}, true,
			"POSITION is SHORT VEC4, not supported (only VEC3)"},
	} {
		_, err := loadGLTFDoc(t, doc(tc.a, tc.listed), false)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.msg)
		}
	}
}
