package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
	"github.com/tracerender/trace/tracer/fmath"
)

// transform is a mesh object's placement in the scene: a point p of the
// mesh file goes to M·p with M = T · Rz · Ry · Rx · S acting on column
// vectors — scaled, then rotated about the x axis, then about y, then
// about z (all world axes through the origin, counter-clockwise looking
// from the positive axis toward the origin, in degrees), then translated.
//
// The arithmetic is float64 with every product rounded on its own
// (float64(...) keeps the compiler from fusing it into a multiply-add),
// and sines and cosines come from tracer/fmath (exact at multiples of
// 90°), so a scene loads to the same bits on every machine.
type transform struct {
	linear [3][3]float64 // R·S
	normal [3][3]float64 // (R·S)^−T = R·S^−1: normals go through it
	offset [3]float64    // T
	// flip is set when the determinant is negative (an odd number of
	// negative scale factors): a mirror, which turns counter-clockwise
	// triangles clockwise.
	flip bool
}

// transformFields are the members of a mesh object's transform.
var transformFields = []string{"translate", "rotate", "scale"}

// nonZero accepts any x but 0.
func nonZero(x float64) string {
	if x != 0 {
		return ""
	}
	return "must not be zero"
}

// transform decodes a mesh object's transform member; an absent one is
// the identity.
func (d *decoder) transform(f fields) transform {
	if f.v == nil {
		return identityTransform
	}
	f.known(transformFields...)
	translate := f.vec3("translate", mgl32.Vec3{})
	rotate := f.vec3("rotate", mgl32.Vec3{})
	scale := mgl32.Vec3{1, 1, 1}
	if v := f.lookup("scale"); v != nil && !d.failed() {
		l := f.at("scale")
		switch v.kind {
		case kindNumber:
			s := d.float(v, l, nonZero)
			scale = mgl32.Vec3{s, s, s}
		case kindArray:
			if d.array(v, l, 3, "numbers") {
				for i := range scale {
					scale[i] = d.float(&v.elems[i], l.elem(i), nonZero)
				}
			}
		default:
			d.fail(v, l, "expected a number or an array of 3 numbers, found %s", v.kind)
		}
	}
	return newTransform(translate, rotate, scale)
}

// identityTransform leaves a mesh as its file gives it.
var identityTransform = newTransform(mgl32.Vec3{}, mgl32.Vec3{}, mgl32.Vec3{1, 1, 1})

// newTransform returns the transform that scales by scale (no component
// zero), rotates by rotate (degrees about x, then y, then z) and
// translates by translate.
func newTransform(translate, rotate, scale mgl32.Vec3) transform {
	sx, cx := sincosDegrees(rotate[0])
	sy, cy := sincosDegrees(rotate[1])
	sz, cz := sincosDegrees(rotate[2])
	rx := [3][3]float64{{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}}
	ry := [3][3]float64{{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}}
	rz := [3][3]float64{{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}}
	r := mul3(rz, mul3(ry, rx))
	var t transform
	for i := range 3 {
		for j := range 3 {
			t.linear[i][j] = r[i][j] * float64(scale[j])
			t.normal[i][j] = r[i][j] / float64(scale[j])
		}
		t.offset[i] = float64(translate[i])
	}
	t.flip = (scale[0] < 0) != (scale[1] < 0) != (scale[2] < 0)
	return t
}

// sincosDegrees returns the sine and cosine of deg degrees: exact at
// multiples of 90°, otherwise fmath's float32 values.
func sincosDegrees(deg float32) (sin, cos float64) {
	r := math.Mod(float64(deg), 360) // exact
	if r < 0 {
		r += 360
	}
	switch r {
	case 0, 360:
		return 0, 1
	case 90:
		return 1, 0
	case 180:
		return 0, -1
	case 270:
		return -1, 0
	}
	rad := float32(r * (math.Pi / 180))
	return float64(fmath.Sin(rad)), float64(fmath.Cos(rad))
}

// mul3 returns the matrix product a·b.
func mul3(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			c[i][j] = float64(a[i][0]*b[0][j]) + float64(a[i][1]*b[1][j]) + float64(a[i][2]*b[2][j])
		}
	}
	return c
}

// apply returns m·p (+ the offset when point is set), in float64.
func apply(m *[3][3]float64, off *[3]float64, p mgl32.Vec3) [3]float64 {
	x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
	var out [3]float64
	for i := range 3 {
		out[i] = float64(m[i][0]*x) + float64(m[i][1]*y) + float64(m[i][2]*z)
		if off != nil {
			out[i] += off[i]
		}
	}
	return out
}

// point returns the transformed position p, and false when a coordinate
// does not fit in float32.
func (t *transform) point(p mgl32.Vec3) (mgl32.Vec3, bool) {
	q := apply(&t.linear, &t.offset, p)
	out := mgl32.Vec3{float32(q[0]), float32(q[1]), float32(q[2])}
	for _, x := range out {
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return out, false
		}
	}
	return out, true
}

// direction returns the transformed unit normal n, and false when it
// cannot be normalised (n is zero, or not finite).
func (t *transform) direction(n mgl32.Vec3) (mgl32.Vec3, bool) {
	q := apply(&t.normal, nil, n)
	l := math.Sqrt(float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]))
	if !(l > 0) || math.IsInf(l, 0) {
		return mgl32.Vec3{}, false
	}
	return mgl32.Vec3{float32(q[0] / l), float32(q[1] / l), float32(q[2] / l)}, true
}

// tangents returns glTF-style tangents (xyz, w = ±1 the handedness)
// transformed: xyz by the linear part, renormalised, w negated by a
// mirror (the bitangent w·(N × T) must stay the image of the old one). A
// tangent that cannot be normalised becomes zero (the tracer then picks
// one orthogonal to the normal).
func (t *transform) tangents(in []mgl32.Vec4) []mgl32.Vec4 {
	out := make([]mgl32.Vec4, len(in))
	for i, x := range in {
		q := apply(&t.linear, nil, mgl32.Vec3{x[0], x[1], x[2]})
		l := math.Sqrt(float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]))
		w := x[3]
		if t.flip {
			w = -w
		}
		if !(l > 0) || math.IsInf(l, 0) {
			out[i] = mgl32.Vec4{0, 0, 0, w}
			continue
		}
		out[i] = mgl32.Vec4{float32(q[0] / l), float32(q[1] / l), float32(q[2] / l), w}
	}
	return out
}

// mesh returns the geometry of m transformed (Materials and Material are
// left for the caller): new positions, normals through the inverse
// transpose and renormalised, and, for a mirror, each triangle's second
// and third indices swapped so its front stays on the outside. Normals
// that cannot be normalised (a zero normal in the file) drop the normals
// of the whole mesh: it is shaded flat. The UVs and, unless flipped, the
// indices are m's own slices unless copy is set. It returns false when a
// transformed position does not fit in float32.
func (t *transform) mesh(m *tracer.MeshDesc, copyShared bool) (tracer.MeshDesc, bool) {
	out := tracer.MeshDesc{
		Positions: make([]mgl32.Vec3, len(m.Positions)),
		UVs:       m.UVs,
		Indices:   m.Indices,
		UV1s:      m.UV1s,
		Colors:    m.Colors,
	}
	for i, p := range m.Positions {
		q, ok := t.point(p)
		if !ok {
			return out, false
		}
		out.Positions[i] = q
	}
	if len(m.Normals) > 0 {
		out.Normals = make([]mgl32.Vec3, len(m.Normals))
		for i, n := range m.Normals {
			q, ok := t.direction(n)
			if !ok {
				out.Normals = nil
				break
			}
			out.Normals[i] = q
		}
	}
	if len(m.Tangents) > 0 {
		out.Tangents = t.tangents(m.Tangents)
	}
	switch {
	case t.flip:
		out.Indices = make([]uint32, len(m.Indices))
		for i := 0; i+2 < len(m.Indices); i += 3 {
			out.Indices[i], out.Indices[i+1], out.Indices[i+2] = m.Indices[i], m.Indices[i+2], m.Indices[i+1]
		}
	case copyShared:
		out.Indices = append([]uint32(nil), m.Indices...)
	}
	if copyShared && m.UVs != nil {
		out.UVs = append([]mgl32.Vec2(nil), m.UVs...)
	}
	if copyShared && m.UV1s != nil {
		out.UV1s = append([]mgl32.Vec2(nil), m.UV1s...)
	}
	if copyShared && m.Colors != nil {
		out.Colors = append([]mgl32.Vec3(nil), m.Colors...)
	}
	return out, true
}

// det returns the determinant of t's linear part: the factor by which it
// scales volumes (negative for a mirror).
func (t *transform) det() float64 {
	m := &t.linear
	return float64(m[0][0]*float64(m[1][1]*m[2][2]-m[1][2]*m[2][1])) -
		float64(m[0][1]*float64(m[1][0]*m[2][2]-m[1][2]*m[2][0])) +
		float64(m[0][2]*float64(m[1][0]*m[2][1]-m[1][1]*m[2][0]))
}
