package scenes

import (
	"fmt"
	"strings"
	"testing"
)

// manySpheres returns a valid scene of n spheres, one per line, the way a
// script would write it.
func manySpheres(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"version": 1, ` + cam + `, "materials": {"red": {"type": "diffuse", "color": [0.9, 0.1, 0.1]}}, "objects": [` + "\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"type": "sphere", "center": [%g, %g, %g], "radius": 0.25, "material": "red"}`,
			float64(i%100)*0.5, float64(i/100%100)*0.5, float64(i/10000)*0.5)
	}
	b.WriteString("\n]}\n")
	return []byte(b.String())
}

// BenchmarkParseManySpheres parses a scene of 100,000 spheres (about 8 MB
// of JSON) and reports the throughput in MB/s.
func BenchmarkParseManySpheres(b *testing.B) {
	data := manySpheres(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse("spheres.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Spheres) != 100_000 {
			b.Fatalf("%d spheres", len(s.Spheres))
		}
	}
}
