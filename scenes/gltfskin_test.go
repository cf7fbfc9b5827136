package scenes

import (
	"runtime"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestNodeWorldChain: the world matrices of a skeleton's joints are
// computed once per node, so that a file whose skin names every node of
// a chain thousands deep as a joint costs thousands of matrices, not
// millions (a hostile file's hang); each is its parents' translations
// summed; a joint index that names no node, and a cycle, are errors.
func TestNodeWorldChain(t *testing.T) {
	const n = 3000
	doc := gltf.NewDocument()
	for i := range n {
		node := &gltf.Node{Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale, Translation: [3]float64{1, 0, 0}}
		if i+1 < n {
			node.Children = []int{i + 1}
		}
		doc.Nodes = append(doc.Nodes, node)
	}
	l := &gltfLoader{doc: doc}
	for j := n - 1; j >= 0; j-- { // the deepest first: the longest walk up
		m, err := l.nodeWorld(j)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := m.Col(3).Vec3(), float64(j+1); got[0] != want || got[1] != 0 || got[2] != 0 {
			t.Fatalf("nodes[%d]: world translation %v, want (%g, 0, 0)", j, got, want)
		}
	}
	if l.localMatrices != n {
		t.Errorf("%d local matrices computed for %d nodes, want each once", l.localMatrices, n)
	}

	for _, c := range []struct {
		joint int
		want  string
	}{{-1, "nodes[-1] does not exist"}, {n, "nodes[3000] does not exist"}} {
		if _, err := l.nodeWorld(c.joint); err == nil || err.Error() != c.want {
			t.Errorf("nodeWorld(%d): %v, want %q", c.joint, err, c.want)
		}
	}

	doc.Nodes[n-1].Children = []int{0} // a ring: every node its own ancestor
	l = &gltfLoader{doc: doc}
	if _, err := l.nodeWorld(5); err == nil || !strings.HasSuffix(err.Error(), "is its own ancestor") {
		t.Errorf("nodeWorld in a ring: %v, want an ancestor error", err)
	}
}

// TestSkinsShareInverseBindMatrices: many skins naming one large accessor
// of inverse bind matrices read only the matrices their joints need (each
// skin decoded all 20,000 of them: 200 skins of one joint allocated over
// 250 MB, and a file of a few MB took minutes); a negative skin index is
// an error, not an unskinned mesh.
func TestSkinsShareInverseBindMatrices(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]uint8{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}})
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]float32{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
	ibm := make([][4][4]float32, 20000)
	for i := range ibm {
		ibm[i] = [4][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
	}
	acc := modeler.WriteAccessor(doc, gltf.TargetNone, ibm)
	joint := len(doc.Nodes)
	doc.Nodes = append(doc.Nodes, &gltf.Node{Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
	doc.Nodes[0].Skin = gltf.Index(0)
	for i := range 200 {
		doc.Skins = append(doc.Skins, &gltf.Skin{Joints: []int{joint}, InverseBindMatrices: gltf.Index(acc)})
		if i > 0 {
			doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0), Skin: gltf.Index(i),
				Matrix: gltf.DefaultMatrix, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
			doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, len(doc.Nodes)-1)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m := mustLoadGLTFDoc(t, doc, true)
	runtime.ReadMemStats(&after)
	if len(m.meshes) != 200 {
		t.Fatalf("%d meshes, want 200", len(m.meshes))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("loading allocated %d MB, want under 64", got>>20)
	}

	doc.Nodes[0].Skin = gltf.Index(-3)
	if _, err := loadGLTFDoc(t, doc, true); err == nil || !strings.HasSuffix(err.Error(), "nodes[0]: skins[-3] does not exist") {
		t.Errorf("a negative skin: %v, want an error", err)
	}
}
