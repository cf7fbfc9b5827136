package tracer

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer/fmath"
)

// An image background lights the scene through next-event estimation: a
// direction is picked with a density proportional to the environment's
// brightness, from a piecewise-constant distribution over its texels
// (a 2-D table: the rows' cumulative distribution, then each row's), and
// weighed against BSDF sampling by the power heuristic.
//
// A texel's weight is the largest luminance among it and its eight
// neighbours (u wraps, v clamps), times sin θ of its row: the bilinear
// filter spreads a texel's light into its neighbours' cells, so this keeps
// the density positive wherever the background is not black. The table
// lives in Scene.Texels from Background.Distribution on: H floats of the
// rows' cumulative distribution, then H rows of W floats, each row's
// cumulative distribution; every one ends at exactly 1.

// luminance is the Rec. 709 luminance of linear RGB.
func luminance(c vec3) float32 {
	return float32(0.2126*c[0]) + float32(0.7152*c[1]) + float32(0.0722*c[2])
}

// EnvironmentTableSize returns the floats of the sampling table of an
// image background of width × height texels, which the compiled scene
// stores right after its texels (and alpha). A loader may decode the
// background with that much room after its colours, for PackImages to
// fill, so that Compile keeps the texels where it would copy them into a
// larger array.
func EnvironmentTableSize(width, height int) int { return height + width*height }

// compileEnvironment appends the distribution of an image background to
// s.Texels and sets s.Background.Distribution (left 0 when the background
// is black, or not an image). Where the texels are d's images' own array
// (compileTextures) and PackImages wrote the table right after them, in
// that array's room, the table is kept as it is once found the same bits
// as computed here; Compile writes nothing there, and otherwise copies the
// texels into a new array with the table.
func (s *Scene) compileEnvironment(d *SceneDesc) {
	b := &s.Background
	b.Distribution = 0
	if b.Kind != BackgroundImage {
		return
	}
	t := &s.Textures[b.Texture]
	W, H := int(t.Width), int(t.Height)
	pix := s.Texels[t.Offset : int(t.Offset)+3*W*H]
	rows, total, ok := environmentRows(pix, W, H)
	if !ok {
		return
	}
	off, n := len(s.Texels), EnvironmentTableSize(W, H)
	if len(d.Images) > 0 && len(s.Texels) > 0 && &s.Texels[0] == &d.Images[0].Pix[0] && cap(d.Images[0].Pix) >= off+n {
		room := d.Images[0].Pix[:off+n]
		if environmentCDFs(pix, W, H, rows, total, func(at int, cdf []float32) bool {
			return bitsEqual(room[off+at:off+at+len(cdf)], cdf)
		}) {
			s.Texels = room[: off+n : off+n]
			b.Distribution = uint32(off)
			return
		}
	}
	texels := make([]float32, off+n) // a new array: s.Texels may be an image's
	copy(texels, s.Texels)
	environmentCDFs(pix, W, H, rows, total, func(at int, cdf []float32) bool {
		copy(texels[off+at:], cdf)
		return true
	})
	s.Texels = texels
	b.Distribution = uint32(off)
}

// environmentRows returns the weights of the rows of an image background
// of colours pix (W × H texels, linear RGB) and their total; false when
// the background is black (or its total not finite): no table.
func environmentRows(pix []float32, W, H int) (rows []float64, total float64, ok bool) {
	rows = make([]float64, H)
	e := newEnvironmentWeights(pix, W, H)
	for j := 0; j < H; j++ {
		rows[j] = e.row(j)
		total += rows[j]
	}
	return rows, total, total > 0 && !math.IsInf(total, 0)
}

// environmentCDFs computes the sampling table of an image background
// (environmentRows' rows and total) and gives it to put in order: the rows'
// cumulative distribution at 0, then row j's at H + j·W, each in a slice
// that put must not keep. It stops, returning false, when put does.
func environmentCDFs(pix []float32, W, H int, rows []float64, total float64, put func(at int, cdf []float32) bool) bool {
	cdf := make([]float32, max(H, W))
	cumulate(cdf[:H], rows, total)
	if !put(0, cdf[:H]) {
		return false
	}
	e := newEnvironmentWeights(pix, W, H)
	for j := 0; j < H; j++ {
		if rows[j] > 0 {
			e.row(j)
			cumulate(cdf[:W], e.w, rows[j])
		} else {
			for i := 0; i < W; i++ { // never picked; any distribution will do
				cdf[i] = float32(i+1) / float32(W)
			}
		}
		if !put(H+j*W, cdf[:W]) {
			return false
		}
	}
	return true
}

// environmentWeights computes an image background's texel weights one row
// at a time, from the luminances of that row and its neighbours: a few
// rows beside the scene's texels, where whole float64 tables of
// luminances and weights took 16 bytes a texel.
type environmentWeights struct {
	pix  []float32
	W, H int
	lum  []float32 // rows j−1, j and j+1 (clamped)
	w    []float64 // row j's weights
}

func newEnvironmentWeights(pix []float32, W, H int) *environmentWeights {
	return &environmentWeights{pix: pix, W: W, H: H, lum: make([]float32, 3*W), w: make([]float64, W)}
}

// row computes row j's weights into e.w and returns their sum.
func (e *environmentWeights) row(j int) (row float64) {
	W, H, lum, w := e.W, e.H, e.lum, e.w
	for dj := -1; dj <= 1; dj++ {
		jj := min(max(j+dj, 0), H-1)
		for i := 0; i < W; i++ {
			k := 3 * (jj*W + i)
			lum[(dj+1)*W+i] = max(0, luminance(vec3{e.pix[k], e.pix[k+1], e.pix[k+2]}))
		}
	}
	sin := math.Sin(math.Pi * (float64(j) + 0.5) / float64(H))
	for i := 0; i < W; i++ {
		m := 0.0
		for dj := 0; dj < 3; dj++ {
			for di := -1; di <= 1; di++ {
				m = max(m, float64(lum[dj*W+(i+di+W)%W]))
			}
		}
		w[i] = float64(m * sin) // rounded: no fused multiply-add
		row += w[i]
	}
	return row
}

// bitsEqual reports whether a and b hold the same float32 bits.
func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// cumulate writes the cumulative sums of w, divided by total, to cdf,
// ending at exactly 1.
func cumulate(cdf []float32, w []float64, total float64) {
	var sum float64
	for i := range w {
		sum += w[i]
		cdf[i] = float32(sum / total)
	}
	cdf[len(cdf)-1] = 1
}

// searchCDF returns the first index k of cdf with u < cdf[k] and the
// position of u inside that bin, in [0, 1).
func searchCDF(cdf []float32, u float32) (int, float32) {
	lo, hi := 0, len(cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if u < cdf[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	below := float32(0)
	if lo > 0 {
		below = cdf[lo-1]
	}
	f := (u - below) / (cdf[lo] - below)
	return lo, min(max(f, 0), float32(0.99999994))
}

// binProbability returns the probability of bin k of a cumulative
// distribution.
func binProbability(cdf []float32, k int) float32 {
	if k == 0 {
		return cdf[0]
	}
	return cdf[k] - cdf[k-1]
}

// toMap returns the world direction d in the frame of the background's
// map: Rotation·d, or d itself when the background is not turned.
func (b *Background) toMap(d vec3) vec3 {
	if !b.Rotated() {
		return d
	}
	r := &b.Rotation
	return vec3{dot(r[0], d), dot(r[1], d), dot(r[2], d)}
}

// toWorld returns the direction m of the map's frame in the world:
// Rotationᵀ·m, toMap's inverse, or m itself when the background is not
// turned.
func (b *Background) toWorld(m vec3) vec3 {
	if !b.Rotated() {
		return m
	}
	r := &b.Rotation
	return madd(madd(scale(r[0], m[0]), r[1], m[1]), r[2], m[2])
}

// checkRotation accepts a Background.Rotation: all zero, or a rotation
// whose rows are orthonormal within float32 rounding (1e-4).
func checkRotation(r *[3]mgl32.Vec3) error {
	if *r == ([3]mgl32.Vec3{}) {
		return nil
	}
	for i := range 3 {
		for j := range 3 {
			if x := float64(r[i][j]); math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("row %d is not finite: %v", i, r[i])
			}
		}
	}
	for i := range 3 {
		for j := i; j < 3; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			var d float64
			for k := range 3 {
				d += float64(float64(r[i][k]) * float64(r[j][k]))
			}
			if math.Abs(d-want) > 1e-4 {
				return fmt.Errorf("rows %d and %d have dot product %g, not %g: not a rotation", i, j, d, want)
			}
		}
	}
	return nil
}

// environmentTables returns the background's row distribution and the
// table of its rows' distributions.
func (s *Scene) environmentTables() (t *Texture, rows, cols []float32) {
	b := &s.Background
	t = &s.Textures[b.Texture]
	W, H := int(t.Width), int(t.Height)
	off := int(b.Distribution)
	return t, s.Texels[off : off+H], s.Texels[off+H : off+H+W*H]
}

// sampleEnvironment picks a unit direction toward the environment from
// (u1, u2) and returns it with its solid-angle density (0 if unusable).
func (s *Scene) sampleEnvironment(u1, u2 float32) (vec3, float32) {
	t, rows, cols := s.environmentTables()
	W, H := int(t.Width), int(t.Height)
	j, fy := searchCDF(rows, u1)
	row := cols[j*W : (j+1)*W]
	i, fx := searchCDF(row, u2)
	theta := float32(pi * float32(float32(j)+fy) / float32(H))
	phi := float32(float32(2*pi)*(float32(i)+fx)/float32(W)) - pi
	sinT, cosT := fmath.SinCos(theta)
	if !(sinT > 0) {
		return vec3{}, 0
	}
	// atan2(−x, z) = φ and acos(y) = θ (Background's mapping), in the
	// map's frame, then turned into the world.
	sinPhi, cosPhi := fmath.SinCos(phi)
	dir := s.Background.toWorld(vec3{-float32(sinT * sinPhi), cosT, float32(sinT * cosPhi)})
	p := float32(float32(binProbability(rows, j)*binProbability(row, i)) * float32(W*H))
	return dir, p / float32(float32(float32(2*pi*pi)*sinT))
}

// environmentPdf returns the solid-angle density with which
// sampleEnvironment picks the unit direction d.
func (s *Scene) environmentPdf(d vec3) float32 {
	t, rows, cols := s.environmentTables()
	d = s.Background.toMap(d)
	W, H := int(t.Width), int(t.Height)
	sinT := sqrt32(max(0, 1-float32(d[1]*d[1])))
	if !(sinT > 0) {
		return 0
	}
	u := (fmath.Atan2(-d[0], d[2]) + pi) / float32(2*pi)
	// v is 1 − v of Background: 0 straight up. NaN (a direction that is
	// not one) becomes 0.
	v := fmath.Acos(max(-1, min(1, d[1]))) / pi
	if !(u >= 0) {
		u = 0
	}
	if !(v >= 0) {
		v = 0
	}
	// Clamped before the conversion, whose result out of range differs
	// between Go, C and GPUs.
	i := min(max(int(min(float32(u*float32(W)), 1e9)), 0), W-1)
	j := min(max(int(min(float32(v*float32(H)), 1e9)), 0), H-1)
	p := float32(float32(binProbability(rows, j)*binProbability(cols[j*W:(j+1)*W], i)) * float32(W*H))
	return p / float32(float32(float32(2*pi*pi)*sinT))
}

// environmentLight is directLight's sample of an image background; its
// shadow ray takes alpha stream stream.
func (s *Scene) environmentLight(sf *surfaceHit, d, c vec3, u1, u2 float32, smp *Sampler, stream uint32, st *Stats) vec3 {
	dir, pdf := s.sampleEnvironment(u1, u2)
	if !(pdf > 0) {
		return vec3{}
	}
	f0, f1, f2, bpdf := evalScatter(sf, &d, &c, dir[0], dir[1], dir[2])
	if f0 == 0 && f1 == 0 && f2 == 0 {
		return vec3{}
	}
	st.Rays++
	if s.occludedSeen(spawn(sf.p, sf.ng, sf.eps, dir), smp, stream, false, st) {
		return vec3{}
	}
	w := float32(powerHeuristic(pdf, bpdf) / pdf)
	return mul(vec3{f0, f1, f2}, scale(s.background(dir), w))
}
