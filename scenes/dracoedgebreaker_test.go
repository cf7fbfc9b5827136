package scenes

import (
	"bytes"
	"errors"
	"testing"
)

// TestDracoEdgebreakerConnectivity: the edgebreaker streams (standard
// traversal at -cl 3, valence at Blender's -cl 6 and draco_encoder's -cl 7)
// give the reference decoder's points and faces: the same point count, and
// every face's point ids in the same order as draco_decoder's PLY.
func TestDracoEdgebreakerConnectivity(t *testing.T) {
	for _, name := range []string{"sphere-cl3", "sphere-cl6-blender", "sphere-cl7"} {
		d, err := decodeDracoConnectivity(readDracoVector(t, name), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref := readDracoPLY(t, name)
		m := d.mesh
		if m.numPoints != len(ref.points) || len(m.indices) != 3*len(ref.faces) {
			t.Fatalf("%s: %d points, %d faces; the reference %d, %d", name, m.numPoints, len(m.indices)/3, len(ref.points), len(ref.faces))
		}
		bad := 0
		for i, f := range ref.faces {
			if [3]uint32(m.indices[3*i:3*i+3]) != f {
				if bad++; bad < 5 {
					t.Errorf("%s: face %d: %v; the reference %v", name, i, m.indices[3*i:3*i+3], f)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d faces differ", name, bad, len(ref.faces))
		}
		// -cl 3 encodes every attribute on the positions' connectivity
		// (the encoder's single connectivity at speed 6 and above); -cl 6
		// and 7 give the texcoords and normals seams of their own.
		if want := name != "sphere-cl3"; (len(d.eb.attrs) > 0) != want {
			t.Errorf("%s: %d attribute data, want some: %v", name, len(d.eb.attrs), want)
		}
	}
}

// TestDracoEdgebreakerTopology decodes the edgebreaker streams of
// scripts/draco/topology.py (a torus, a grid with a hole, an octahedron, a
// lone triangle) as draco_decoder does, bit for bit, and checks that they
// take the traversal's rarer paths: split symbols merging vertices, a
// topology split event, an interior start face and start faces on
// boundaries; at -cl 3 (no attribute data) the merged vertices removed and
// renumbered, at -cl 6, 7 and 10 the texcoord and normal seams, the
// torus's texcoord seams splitting interior vertices into points (whose
// numbering starts at a seam, not at the vertex's left-most corner).
func TestDracoEdgebreakerTopology(t *testing.T) {
	for _, name := range []string{"topology-cl3", "topology-cl6-blender", "topology-cl7", "topology-cl10"} {
		t.Run(name, func(t *testing.T) {
			src := readDracoVector(t, name)
			d, err := decodeDracoConnectivity(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			eb := d.eb
			if eb.merges == 0 || eb.splitEvents == 0 || eb.interiorStarts == 0 || eb.boundaryStarts == 0 {
				t.Errorf("%d split symbols, %d topology splits, %d interior and %d boundary start faces; want each", eb.merges, eb.splitEvents, eb.interiorStarts, eb.boundaryStarts)
			}
			if cl3 := name == "topology-cl3"; (eb.removed > 0) != cl3 || (len(eb.attrs) == 0) != cl3 || (eb.interiorSeams == 0) != cl3 {
				t.Errorf("%d vertices removed, %d attribute data, %d interior vertices on seams", eb.removed, len(eb.attrs), eb.interiorSeams)
			}
			m, err := decodeDraco(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkDracoAgainstPLY(t, m, readDracoPLY(t, name))
		})
	}
}

// TestDracoEdgebreakerHostile: every prefix of an edgebreaker stream, and
// the stream with any byte changed (Blender's default -cl 6 of the
// sphere; -cl 3, 7 and 10 of the topology vectors: both edgebreaker
// traversals, both attribute traversals, every scheme, splits and start
// faces), is an error or a mesh within its counts
// (every index a point, every attribute a value per point), never a panic
// or a hang; what it allocates stays within 1 MB.
func TestDracoEdgebreakerHostile(t *testing.T) {
	for _, name := range []string{"sphere-cl6-blender", "topology-cl3", "topology-cl7", "topology-cl10"} {
		src := readDracoVector(t, name)
		decoded := 0
		try := func(b []byte) {
			if decodeDracoChecked(t, b) {
				decoded++
			}
		}
		for n := 0; n < len(src); n++ {
			try(src[:n])
		}
		for i := 0; i < len(src); i++ {
			b := bytes.Clone(src)
			b[i] ^= 0x5a
			try(b)
		}
		t.Logf("%s: %d of %d cut or changed streams decoded", name, decoded, 2*len(src))
	}
}

// decodeDracoChecked decodes src with a reserve that refuses more than
// 1 MB in all (decoding time grows with the bytes) and checks the mesh
// with checkDracoMesh where it decodes. It returns whether it decoded.
func decodeDracoChecked(t *testing.T, src []byte) bool {
	t.Helper()
	var spent int64
	m, err := decodeDraco(src, func(n int64) error {
		if spent += n; spent > 1<<20 {
			return errors.New("over budget")
		}
		return nil
	})
	if err != nil {
		return false
	}
	checkDracoMesh(t, m)
	return true
}

// checkDracoMesh checks a decoded mesh's indices and attributes against
// its point count.
func checkDracoMesh(t *testing.T, m *dracoMesh) {
	t.Helper()
	for _, v := range m.indices {
		if int(v) >= m.numPoints {
			t.Fatalf("index %d of %d points", v, m.numPoints)
		}
	}
	for _, a := range m.attrs {
		if len(a.data) != m.numPoints*a.components*dracoTypeSize[a.dataType] {
			t.Fatalf("attribute %d: %d bytes for %d points of %d × %s", a.uniqueID, len(a.data), m.numPoints, a.components, dracoTypeName[a.dataType])
		}
	}
}

// TestDracoEdgebreakerMatchesReference: the edgebreaker streams decode to
// draco_decoder's mesh bit for bit: every position, normal and texcoord
// of every point, every face. Between them they take every prediction
// scheme of levels 1 to 8: parallelogram positions and texcoords with
// difference-coded normals (-cl 3, standard traversal, one connectivity;
// -cl 6, valence, texcoord and normal seams), and parallelogram
// positions, portable texcoords and geometric normals (-cl 7), with the
// positions' constrained multi-parallelogram (-cl 9) over the
// prediction-degree traversal (-cl 10).
func TestDracoEdgebreakerMatchesReference(t *testing.T) {
	for name, want := range map[string][3]int8{
		"sphere-cl3":         {1, 1, 0},
		"sphere-cl6-blender": {1, 1, 0},
		"sphere-cl7":         {1, 5, 6},
		"sphere-cl9":         {4, 5, 6},
		"sphere-cl10":        {4, 5, 6},
	} {
		t.Run(name, func(t *testing.T) {
			src := readDracoVector(t, name)
			d, err := decodeDracoConnectivity(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.attributes(); err != nil {
				t.Fatal(err)
			}
			if got, want := d.eb.degreeTraversals > 0, name == "sphere-cl10"; got != want {
				t.Errorf("%d attributes decoders of the prediction-degree traversal, want some: %v", d.eb.degreeTraversals, want)
			}
			m, err := decodeDraco(src, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkDracoAgainstPLY(t, m, readDracoPLY(t, name))
			for i, kind := range []int{0, 3, 1} { // POSITION, TEX_COORD, NORMAL
				if got := dracoAttrOfKind(t, m, kind).prediction; got != want[i] {
					t.Errorf("%s: prediction scheme %d, want %d", dracoAttributeKinds[kind], got, want[i])
				}
			}
		})
	}
}
