package scenes

import (
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
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
