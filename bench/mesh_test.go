package bench

import "testing"

func TestIcosphereCounts(t *testing.T) {
	for _, tc := range []struct{ freq, tris, verts int }{
		{1, 20, 12}, {2, 80, 42}, {50, 50000, 25002},
	} {
		m := Icosphere(tc.freq)
		if got := len(m.Indices) / 3; got != tc.tris {
			t.Errorf("freq %d: %d triangles, want %d", tc.freq, got, tc.tris)
		}
		// A closed geodesic sphere has 10·freq² + 2 vertices.
		if got := len(m.Positions); got != tc.verts {
			t.Errorf("freq %d: %d vertices, want %d (shared edges)", tc.freq, got, tc.verts)
		}
		for _, p := range m.Positions {
			if r := p.Len(); r < 0.93 || r > 1.07 {
				t.Fatalf("freq %d: vertex at radius %v", tc.freq, r)
			}
		}
	}
}
