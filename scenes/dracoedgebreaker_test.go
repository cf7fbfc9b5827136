package scenes

import (
	"bytes"
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

// TestDracoEdgebreakerHostile: every prefix of an edgebreaker stream, and
// the stream with a byte changed, is an error or a connectivity within
// its counts, never a panic or a hang.
func TestDracoEdgebreakerHostile(t *testing.T) {
	for _, name := range []string{"sphere-cl3", "sphere-cl7"} {
		src := readDracoVector(t, name)
		for n := 0; n < len(src); n++ {
			if d, err := decodeDracoConnectivity(src[:n], nil); err == nil {
				checkDracoIndices(t, d.mesh)
			}
		}
		for i := 0; i < len(src); i++ {
			for _, x := range []byte{0x01, 0x5a, 0xff} {
				b := bytes.Clone(src)
				b[i] ^= x
				if d, err := decodeDracoConnectivity(b, nil); err == nil {
					checkDracoIndices(t, d.mesh)
				}
			}
		}
	}
}

func checkDracoIndices(t *testing.T, m *dracoMesh) {
	t.Helper()
	for _, v := range m.indices {
		if int(v) >= m.numPoints {
			t.Fatalf("index %d of %d points", v, m.numPoints)
		}
	}
}
