// Package vec64 is the float64 vector arithmetic that import-time
// geometry (computed normals and tangents) is done in, every product
// rounded on its own (float64(...)) so that no machine fuses it into a
// multiply-add and the results are the same everywhere.
package vec64

// Sub returns a − b.
func Sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Dot returns a·b.
func Dot(a, b [3]float64) float64 {
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}

// Cross returns a × b.
func Cross(a, b [3]float64) [3]float64 {
	return [3]float64{
		float64(a[1]*b[2]) - float64(a[2]*b[1]),
		float64(a[2]*b[0]) - float64(a[0]*b[2]),
		float64(a[0]*b[1]) - float64(a[1]*b[0]),
	}
}

// Of returns v in float64.
func Of(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
