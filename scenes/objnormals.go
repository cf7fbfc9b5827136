package scenes

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/internal/vec64"
	"github.com/tracerender/trace/tracer"
	"github.com/tracerender/trace/tracer/fmath"
)

// Computed vertex normals for OBJ faces that give none (no vn).
//
// A corner of a face without vn gets the sum of the unit normals of the
// faces around its position that share its smoothing group, each weighted
// by its angle at that position (Thürmer and Wüthrich's angle weighting,
// so that how a polygon is split into triangles does not matter),
// renormalised. Faces of smoothing group 0 (s off, s 0) stay flat. A file
// with no s statement at all is smoothed with a crease angle instead:
// two faces share a normal at a position only when their normals are
// within objCreaseDegrees of each other. Corners that give vn keep it.

// objCreaseDegrees is the crease angle of files without smoothing groups,
// unless a scene's mesh object gives its own crease_angle.
const objCreaseDegrees = 60

// objCreaseCos is cos(objCreaseDegrees).
const objCreaseCos = 0.5

// creaseCosine returns the cosine of a crease angle of degrees:
// objCreaseCos, exactly, for objCreaseDegrees.
func creaseCosine(degrees float64) float64 {
	if degrees == objCreaseDegrees {
		return objCreaseCos
	}
	return math.Cos(degrees * math.Pi / 180)
}

// objCreaseFan bounds the faces around one position that the crease rule
// compares (a cost of up to their number per corner, where their normals
// spread beyond the crease: normalsAround): around a position shared by
// more, as at the tip of a finely divided cone, every face of the
// position shares one normal.
const objCreaseFan = 4096

// smoothingGroup reads the argument of an s statement: 0 for off. It
// returns the group, or a message saying what is wrong.
func smoothingGroup(rest []byte) (uint32, string) {
	f, _ := nextField(rest)
	if string(f) == "off" {
		return 0, ""
	}
	g, err := strconv.ParseUint(string(f), 10, 32)
	if err != nil {
		return 0, fmt.Sprintf("s: smoothing group %q is not off or a number", f)
	}
	return uint32(g), ""
}

// needsComputedNormals reports whether finish must compute normals: some
// face lacks vn and is smoothed (in a group, or in a file without
// groups). A file none of whose faces give vn and all of whose faces are
// in group 0 is flat, as a mesh without normals.
func (p *objParser) needsComputedNormals() bool {
	if !p.noNormals {
		return false
	}
	if !p.anyGroup {
		return true
	}
	for _, g := range p.triGroups {
		if g != 0 {
			return true
		}
	}
	// Every face is flat: with no vn at all, no normals are needed.
	for _, x := range p.verts {
		if x.vn >= 0 {
			return true
		}
	}
	return false
}

// objCorner is a vertex of the mesh with computed normals: the parser's
// vertex k and its normal; next chains the corners of the same k.
type objCorner struct {
	k    uint32
	n    mgl32.Vec3
	next int32
}

// objCornerChain bounds the corners of one parser vertex that
// computeNormals finds by following their chain; further ones (a parser
// vertex with many normals: the flat or differently grouped faces around
// a cone's tip) are found through a map, so that the search does not cost
// the square of their number.
const objCornerChain = 8

// objCornerKey identifies a corner of computeNormals beyond a parser
// vertex's chain: the vertex and its normal's bits (0 for −0, which
// equals 0).
type objCornerKey struct {
	k uint32
	n [3]uint32
}

// cornerKey returns the map key of parser vertex k with normal n.
func cornerKey(k uint32, n mgl32.Vec3) objCornerKey {
	key := objCornerKey{k: k}
	for i, x := range n {
		if x != 0 {
			key.n[i] = math.Float32bits(x)
		}
	}
	return key
}

// computeNormals sets m (whose Indices index p.verts) to a mesh with a
// normal at every vertex: the file's where a face vertex gives vn, else
// computed. A parser vertex that needs several normals (a crease, a
// flat face, two groups meeting) is split into one vertex per normal.
// It returns the steps that the sums, the crease tests and the search
// for split vertices took: about linear in the corners (normalsAround,
// objCornerChain), as the tests check.
func (p *objParser) computeNormals(m *tracer.MeshDesc) (steps int) {
	idx := m.Indices
	nt := len(idx) / 3
	pos := func(k uint32) [3]float64 {
		q := p.positions[p.verts[k].v]
		return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	}
	// Unit face normals and corner angles (float32 values: fmath's).
	faceN := make([][3]float64, nt)
	angle := make([]float32, 3*nt)
	for t := range nt {
		a, b, c := pos(idx[3*t]), pos(idx[3*t+1]), pos(idx[3*t+2])
		n := vec64.Cross(vec64.Sub(b, a), vec64.Sub(c, a))
		if l := len64(n); l > 0 && !math.IsInf(l, 0) {
			faceN[t] = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		}
		q := [3][3]float64{a, b, c}
		for i := range 3 {
			e1, e2 := vec64.Sub(q[(i+1)%3], q[i]), vec64.Sub(q[(i+2)%3], q[i])
			angle[3*t+i] = fmath.Atan2(float32(len64(vec64.Cross(e1, e2))), float32(vec64.Dot(e1, e2)))
		}
	}
	// The corners without vn around each position (compressed rows, each
	// in increasing order).
	start := make([]int32, len(p.positions)+1)
	for _, k := range idx {
		if p.verts[k].vn < 0 {
			start[p.verts[k].v+1]++
		}
	}
	for i := range len(p.positions) {
		start[i+1] += start[i]
	}
	around := make([]int32, start[len(p.positions)])
	fill := append([]int32(nil), start[:len(p.positions)]...)
	for c, k := range idx {
		if v := p.verts[k].v; p.verts[k].vn < 0 {
			around[fill[v]] = int32(c)
			fill[v]++
		}
	}
	// The computed normal of every corner without vn, a position at a
	// time.
	fan := objFan{p: p, faceN: faceN, angle: angle, normals: make([]mgl32.Vec3, len(idx))}
	for v := range len(p.positions) {
		if row := around[start[v]:start[v+1]]; len(row) > 0 {
			steps += fan.normalsAround(row)
		}
	}

	head := make([]int32, len(p.verts))
	for i := range head {
		head[i] = -1
	}
	corners := make([]objCorner, 0, len(p.verts)) // one per vertex used, and one per split
	var far map[objCornerKey]int32                // corners beyond their vertex's chain
	out := make([]uint32, len(idx))
	for c, k := range idx {
		x := p.verts[k]
		n := fan.normals[c]
		if x.vn >= 0 {
			n = p.normals[x.vn]
		}
		j, chain := head[k], 0
		for j >= 0 && corners[j].n != n {
			j, chain = corners[j].next, chain+1
		}
		steps += chain
		if j < 0 && chain == objCornerChain {
			if i, ok := far[cornerKey(k, n)]; ok {
				j = i
			}
		}
		if j < 0 {
			j = int32(len(corners))
			if chain < objCornerChain {
				corners = append(corners, objCorner{k: k, n: n, next: head[k]})
				head[k] = j
			} else {
				if far == nil {
					far = map[objCornerKey]int32{}
				}
				corners = append(corners, objCorner{k: k, n: n, next: -1})
				far[cornerKey(k, n)] = j
			}
		}
		out[c] = uint32(j)
	}
	m.Indices = out
	m.Positions = make([]mgl32.Vec3, len(corners))
	m.Normals = make([]mgl32.Vec3, len(corners))
	if p.anyUV {
		m.UVs = make([]mgl32.Vec2, len(corners))
	}
	if p.colors != nil {
		m.Colors = make([]mgl32.Vec3, len(corners))
	}
	for i, cr := range corners {
		x := p.verts[cr.k]
		m.Positions[i], m.Normals[i] = p.positions[x.v], cr.n
		if m.UVs != nil && x.vt >= 0 {
			m.UVs[i] = p.texcoords[x.vt]
		}
		if m.Colors != nil {
			m.Colors[i] = p.colors[x.v]
		}
	}
	return steps
}

// objFan computes the normals of the corners around one position after
// another: faceN and angle are the triangles' unit normals and the
// corners' angles, normals (one per corner of the mesh) what it computes,
// sorted and passing scratch space.
type objFan struct {
	p       *objParser
	faceN   [][3]float64
	angle   []float32
	normals []mgl32.Vec3

	sorted, passing []int32
}

// normalsAround sets the normal of every corner of row, the corners
// without vn around one position in increasing order. The normal of a
// corner of triangle t is its sum renormalised (unitNormal), the sum in
// row's order of angle × face normal over the corners of row
//
//   - of t's smoothing group in a file with s statements (t's own
//     normal, unweighted, in group 0);
//   - of t, or of faces whose normals' dot product with t's is at least
//     creaseCos, in a file without (every corner when row is longer than
//     objCreaseFan).
//
// Corners whose sums take the same terms in the same order share one sum,
// so that the result is the same bits as summing for each corner (as
// before these sums were shared), at a cost about linear in len(row): one
// sum per smoothing group, or, under a crease, one when all the faces'
// normals lie well within the crease of each other, else one per distinct
// face normal (len(row) times their number: at most objCreaseFan per
// corner, at the tip of a sharp cone). It returns the steps taken.
func (f *objFan) normalsAround(row []int32) int {
	p := f.p
	switch {
	case p.anyGroup:
		group := func(c int32) uint32 { return p.groupOf(int(c) / 3) }
		return f.classes(row, func(a, b int32) int { return cmp.Compare(group(a), group(b)) }, func(class []int32) int {
			if group(class[0]) == 0 {
				for _, c := range class {
					t := c / 3
					f.normals[c] = unitNormal(f.faceN[t], f.faceN[t])
				}
				return len(class)
			}
			f.share(class, f.sum(class))
			return 2 * len(class)
		})
	case len(row) > objCreaseFan || f.withinCrease(row):
		f.share(row, f.sum(row))
		return 4 * len(row)
	default:
		return f.classes(row, compareNormals(f.faceN), func(class []int32) int {
			return f.creased(row, class)
		})
	}
}

// creased sets the normals of class, corners of row whose faces have one
// normal, under the crease.
func (f *objFan) creased(row, class []int32) int {
	n, cos := f.faceN[class[0]/3], f.p.creaseCos
	passing := f.passing[:0]
	for _, u := range row {
		if vec64.Dot(f.faceN[u/3], n) >= cos {
			passing = append(passing, u)
		}
	}
	f.passing = passing
	steps := len(row)
	if vec64.Dot(n, n) >= cos {
		f.share(class, f.sum(passing))
		return steps + len(passing) + len(class)
	}
	// A normal that fails its own test (a face of no area under a crease
	// below 90°, a crease of about 0°): each triangle adds its own corners
	// to the passing ones, which are of other normals. A triangle's
	// corners are consecutive in class, in row's order.
	for len(class) > 0 {
		t := class[0] / 3
		own := 1
		for own < len(class) && class[own]/3 == t {
			own++
		}
		var sum [3]float64
		i, j := 0, 0
		for i < len(passing) || j < own {
			var c int32
			if j == own || (i < len(passing) && passing[i] < class[j]) {
				c, i = passing[i], i+1
			} else {
				c, j = class[j], j+1
			}
			sum = addTerm(sum, f.angle[c], f.faceN[c/3])
		}
		f.share(class[:own], sum)
		steps += len(passing) + own
		class = class[own:]
	}
	return steps
}

// withinCrease reports whether every two faces of row pass the crease
// test with room to spare, so that every corner's sum is over all of row:
// all their normals lie within a cone around their mean whose opening
// (twice the largest angle to the mean) is smaller than the crease angle
// by a margin (1e-9 in the cosine) far above the rounding of the normals
// and of vec64.Dot (about 1e-15). A face of no area fails it.
func (f *objFan) withinCrease(row []int32) bool {
	var mean [3]float64
	for _, c := range row {
		n := f.faceN[c/3]
		mean = [3]float64{mean[0] + n[0], mean[1] + n[1], mean[2] + n[2]}
	}
	l := len64(mean)
	if !(l > 0) {
		return false
	}
	least := 1.0
	for _, c := range row {
		least = min(least, vec64.Dot(f.faceN[c/3], mean)/l)
	}
	// Two normals within θ of the mean are within 2θ of each other:
	// their dot product is at least cos 2θ = 2cos²θ − 1 (for θ ≤ 90°).
	return least > 0 && 2*least*least-1 >= f.p.creaseCos+1e-9
}

// sum returns the sum, in order, of the angle-weighted face normals of
// the corners cs.
func (f *objFan) sum(cs []int32) [3]float64 {
	var s [3]float64
	for _, c := range cs {
		s = addTerm(s, f.angle[c], f.faceN[c/3])
	}
	return s
}

// share sets the normal of each corner of cs from sum.
func (f *objFan) share(cs []int32, sum [3]float64) {
	for _, c := range cs {
		f.normals[c] = unitNormal(sum, f.faceN[c/3])
	}
}

// classes calls each with the classes of row that compare puts together,
// each in row's order, and returns the steps they took (with those of
// sorting row when it has more than one class).
func (f *objFan) classes(row []int32, compare func(a, b int32) int, each func(class []int32) int) int {
	one := true
	for _, c := range row[1:] {
		if compare(row[0], c) != 0 {
			one = false
			break
		}
	}
	if one {
		return len(row) + each(row)
	}
	sorted := append(f.sorted[:0], row...)
	f.sorted = sorted
	slices.SortStableFunc(sorted, compare)
	steps := len(row) * bits.Len(uint(len(row)))
	for len(sorted) > 0 {
		n := 1
		for n < len(sorted) && compare(sorted[0], sorted[n]) == 0 {
			n++
		}
		steps += each(sorted[:n])
		sorted = sorted[n:]
	}
	return steps
}

// compareNormals orders corners by their faces' normals (bit patterns).
func compareNormals(faceN [][3]float64) func(a, b int32) int {
	return func(a, b int32) int {
		na, nb := faceN[a/3], faceN[b/3]
		for i := range 3 {
			if c := cmp.Compare(math.Float64bits(na[i]), math.Float64bits(nb[i])); c != 0 {
				return c
			}
		}
		return 0
	}
}

// addTerm returns sum plus angle × n (each product rounded on its own:
// no fused multiply-add, so the bits do not depend on the machine).
func addTerm(sum [3]float64, angle float32, n [3]float64) [3]float64 {
	w := float64(angle)
	return [3]float64{sum[0] + float64(w*n[0]), sum[1] + float64(w*n[1]), sum[2] + float64(w*n[2])}
}

// unitNormal returns sum renormalised; a sum of no length (faces that
// cancel out, or a triangle of no area) gives own, the triangle's normal,
// else any unit vector (a triangle of no area is never hit).
func unitNormal(sum, own [3]float64) mgl32.Vec3 {
	l := len64(sum)
	if !(l > 0) {
		if sum = own; len64(sum) == 0 {
			return mgl32.Vec3{0, 0, 1}
		}
		l = 1
	}
	return mgl32.Vec3{float32(sum[0] / l), float32(sum[1] / l), float32(sum[2] / l)}
}

// groupOf returns the smoothing group of triangle t.
func (p *objParser) groupOf(t int) uint32 {
	if p.triGroups == nil {
		return 0
	}
	return p.triGroups[t]
}

func len64(a [3]float64) float64 { return math.Sqrt(vec64.Dot(a, a)) }
