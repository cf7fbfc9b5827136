// Package radiometry holds closed forms that the renderer's tests check
// its pictures against: the light a diffuse surface receives from a
// polygon or a sphere of uniform radiance. It is plain float64 and
// imports nothing of the renderer, so that the answers are independent of
// the code they check.
package radiometry

import "math"

// Vec is a point or vector.
type Vec [3]float64

func sub(a, b Vec) Vec     { return Vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b Vec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b Vec) Vec {
	return Vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func unit(a Vec) Vec            { l := math.Sqrt(dot(a, a)); return Vec{a[0] / l, a[1] / l, a[2] / l} }
func distance(a, b Vec) float64 { d := sub(a, b); return math.Sqrt(dot(d, d)) }

// PolygonFormFactor returns the form factor from a point p with unit
// normal n to a planar polygon (vertices in order, either winding) that
// lies wholly above p's horizon, by Lambert's formula:
// (1/2π)·|Σᵢ γᵢ · n·(Rᵢ × Rᵢ₊₁)/|Rᵢ × Rᵢ₊₁||, with Rᵢ the unit vectors
// from p to the vertices and γᵢ the angle between Rᵢ and Rᵢ₊₁. A diffuse
// surface of albedo ρ under the polygon, of uniform radiance L, reflects
// radiance ρ·L·F.
func PolygonFormFactor(p, n Vec, poly []Vec) float64 {
	var sum float64
	for i := range poly {
		a := unit(sub(poly[i], p))
		b := unit(sub(poly[(i+1)%len(poly)], p))
		g := math.Acos(max(-1, min(1, dot(a, b))))
		sum += g * dot(n, unit(cross(a, b)))
	}
	return math.Abs(sum) / (2 * math.Pi)
}

// SphereFormFactor returns the form factor from a point p with unit normal
// n to a sphere (centre c, radius r) wholly above p's horizon:
// (r/d)²·cos θ, with d the distance to the centre and θ its angle to n.
func SphereFormFactor(p, n, c Vec, r float64) float64 {
	d := distance(c, p)
	return r * r / (d * d) * dot(n, sub(c, p)) / d
}
