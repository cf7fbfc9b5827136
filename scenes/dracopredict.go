package scenes

// Draco's prediction schemes and transforms for sequential attributes
// (src/draco/compression/attributes/prediction_schemes and
// normal_compression_utils.h): the difference prediction (each value
// predicted by the one before), with the wrap transform (corrections
// wrapped into the values' range) or, for octahedral normals, the
// canonicalized octahedron transform; and the octahedral coordinates'
// unit vectors.

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/tracerender/trace/tracer/fmath"
)

// dracoPrediction is a prediction transform: it reads its data and turns
// a predicted value and a correction into the original value.
type dracoPrediction interface {
	decodeData(r *dracoReader) error
	correctionsPositive() bool
	// original writes the original value of pred and corr to out
	// (ComputeOriginalValue); all three have the attribute's
	// components.
	original(pred, corr, out []int32)
}

// dracoDelta undoes the difference prediction in place
// (PredictionSchemeDeltaDecoder): the first value is predicted by zeros,
// each next one by the one before.
func dracoDelta(t dracoPrediction, vals []int32, comps int) {
	zero := make([]int32, comps)
	t.original(zero, vals[:comps], vals[:comps])
	for i := comps; i+comps <= len(vals); i += comps {
		t.original(vals[i-comps:i], vals[i:i+comps], vals[i:i+comps])
	}
}

// dracoWrap is PredictionSchemeWrapDecodingTransform.
type dracoWrap struct {
	lo, hi, maxDif int32
	clamped        []int32
}

func (w *dracoWrap) correctionsPositive() bool { return false }

func (w *dracoWrap) decodeData(r *dracoReader) error {
	lo, err := r.u32()
	if err != nil {
		return err
	}
	hi, err := r.u32()
	if err != nil {
		return err
	}
	w.lo, w.hi = int32(lo), int32(hi)
	dif := int64(w.hi) - int64(w.lo)
	if dif < 0 || dif >= 1<<31-1 {
		return fmt.Errorf("wrap range [%d, %d]", w.lo, w.hi)
	}
	w.maxDif = int32(dif + 1)
	return nil
}

func (w *dracoWrap) original(pred, corr, out []int32) {
	if len(w.clamped) != len(pred) {
		w.clamped = make([]int32, len(pred))
	}
	for i, p := range pred {
		w.clamped[i] = min(max(p, w.lo), w.hi)
	}
	for i := range out {
		v := int32(uint32(w.clamped[i]) + uint32(corr[i]))
		if v > w.hi {
			v -= w.maxDif
		} else if v < w.lo {
			v += w.maxDif
		}
		out[i] = v
	}
}

// dracoOctahedron is OctahedronToolBox: octahedral coordinates of
// quantization bits q, in [0, 2^q − 2] each.
type dracoOctahedron struct {
	bits, maxQuantized, maxValue, center int32
	scale                                float32
}

// setBits is SetQuantizationBits; false outside 2 to 30.
func (o *dracoOctahedron) setBits(q int32) bool {
	if q < 2 || q > 30 {
		return false
	}
	o.bits = q
	o.maxQuantized = 1<<q - 1
	o.maxValue = o.maxQuantized - 1
	o.scale = 2 / float32(o.maxValue)
	o.center = o.maxValue / 2
	return true
}

// unitVector is QuantizedOctahedralCoordsToUnitVector, in float32 as the
// reference computes it (no fused products; sqrt is IEEE).
func (o *dracoOctahedron) unitVector(s, t int32) [3]float32 {
	y := float32(float32(s)*o.scale) - 1
	z := float32(float32(t)*o.scale) - 1
	x := 1 - dracoAbs(y) - dracoAbs(z)
	off := max(-x, 0)
	if y < 0 {
		y += off
	} else {
		y -= off
	}
	if z < 0 {
		z += off
	} else {
		z -= off
	}
	n2 := float32(x*x) + float32(y*y) + float32(z*z)
	if float64(n2) < 1e-6 { // compared in double, as in C++
		return [3]float32{}
	}
	d := 1 / fmath.Sqrt(n2)
	return [3]float32{float32(x * d), float32(y * d), float32(z * d)}
}

func dracoAbs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// inDiamond is IsInDiamond for coordinates centred on 0.
func (o *dracoOctahedron) inDiamond(s, t int32) bool {
	return uint32(dracoIAbs(s))+uint32(dracoIAbs(t)) <= uint32(o.center)
}

func dracoIAbs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// invertDiamond is InvertDiamond, in the reference's unsigned arithmetic.
func (o *dracoOctahedron) invertDiamond(s, t *int32) {
	var signS, signT int32
	switch {
	case *s >= 0 && *t >= 0:
		signS, signT = 1, 1
	case *s <= 0 && *t <= 0:
		signS, signT = -1, -1
	default:
		signS, signT = 1, 1
		if *s <= 0 {
			signS = -1
		}
		if *t <= 0 {
			signT = -1
		}
	}
	cs, ct := uint32(signS*o.center), uint32(signT*o.center)
	us, ut := uint32(*s), uint32(*t)
	us = us + us - cs
	ut = ut + ut - ct
	if signS*signT >= 0 {
		us, ut = -ut, -us
	} else {
		us, ut = ut, us
	}
	us += cs
	ut += ct
	*s, *t = int32(us)/2, int32(ut)/2
}

// modMax is ModMax.
func (o *dracoOctahedron) modMax(x int32) int32 {
	if x > o.center {
		return x - o.maxQuantized
	}
	if x < -o.center {
		return x + o.maxQuantized
	}
	return x
}

// dracoOctahedral is PredictionSchemeNormalOctahedronCanonicalizedDecodingTransform.
type dracoOctahedral struct {
	oct dracoOctahedron
}

func (c *dracoOctahedral) correctionsPositive() bool { return true }

func (c *dracoOctahedral) decodeData(r *dracoReader) error {
	maxQ, err := r.u32()
	if err != nil {
		return err
	}
	if _, err := r.u32(); err != nil { // the centre, implied by maxQ
		return err
	}
	m := int32(maxQ)
	if m%2 == 0 {
		return errors.New("an even largest octahedral value")
	}
	q := int32(0)
	if m > 0 {
		q = int32(32 - bits.LeadingZeros32(uint32(m)))
	}
	if !c.oct.setBits(q) {
		return fmt.Errorf("octahedral values of %d bits (2 to 30)", q)
	}
	return nil
}

func (c *dracoOctahedral) original(pred, corr, out []int32) {
	o := &c.oct
	ps, pt := pred[0]-o.center, pred[1]-o.center
	inDiamond := o.inDiamond(ps, pt)
	if !inDiamond {
		o.invertDiamond(&ps, &pt)
	}
	bottomLeft := ps == 0 && pt == 0 || ps < 0 && pt <= 0
	rot := dracoRotationCount(ps, pt)
	if !bottomLeft {
		ps, pt = dracoRotate(ps, pt, rot)
	}
	s := o.modMax(int32(uint32(ps) + uint32(corr[0])))
	t := o.modMax(int32(uint32(pt) + uint32(corr[1])))
	if !bottomLeft {
		s, t = dracoRotate(s, t, (4-rot)%4)
	}
	if !inDiamond {
		o.invertDiamond(&s, &t)
	}
	out[0], out[1] = s+o.center, t+o.center
}

// dracoRotationCount is GetRotationCount.
func dracoRotationCount(x, y int32) int32 {
	switch {
	case x == 0:
		switch {
		case y == 0:
			return 0
		case y > 0:
			return 3
		}
		return 1
	case x > 0:
		if y >= 0 {
			return 2
		}
		return 1
	}
	if y <= 0 {
		return 0
	}
	return 3
}

// dracoRotate is RotatePoint.
func dracoRotate(x, y, n int32) (int32, int32) {
	switch n {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}
