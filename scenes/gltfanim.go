package scenes

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// A glTF file's animation can pose what it draws: a mesh object or a
// camera section that names the file picks one of its animations (by
// name or index) and a time in seconds, and every channel of that
// animation is sampled at that time, with its sampler's interpolation
// (glTF 2.0 §3.11 and Appendix C), into the translation, rotation, scale
// or morph target weights of the node it targets, before the nodes are
// walked, skins posed and targets applied. Each sampler is clamped to its
// own keyframes: before its first the first value holds, after its last
// the last (as glTF viewers hold them). Channels without a node (an
// extension's, such as KHR_animation_pointer's) are not read.

// gltfPose picks the animation that poses a glTF file and the time to
// sample it at; the zero gltfPose (and noGLTFPose) poses nothing.
type gltfPose struct {
	name  string  // the animation's name, or "" when picked by index
	index int     // its index when name is ""; −1: no animation
	time  float64 // seconds, >= 0
}

// noGLTFPose leaves a file as it holds its nodes.
var noGLTFPose = gltfPose{index: -1}

// posed reports whether p picks an animation.
func (p gltfPose) posed() bool { return p.name != "" || p.index >= 0 }

// key names p in a cache key ("" when it poses nothing).
func (p gltfPose) key() string {
	if !p.posed() {
		return ""
	}
	if p.name != "" {
		return fmt.Sprintf("\x00animation %q time %v", p.name, p.time)
	}
	return fmt.Sprintf("\x00animation %d time %v", p.index, p.time)
}

// errGLTFAnimationPick marks the error of an animation the file does not
// have, so that the scene's error points at the member that names it.
var errGLTFAnimationPick = errors.New("no such animation")

// loadGLTFPosed returns loadGLTF with the file's nodes posed by p.
func loadGLTFPosed(p gltfPose) func(*assets, string) (*importedMesh, error) {
	return func(a *assets, path string) (*importedMesh, error) { return loadGLTFPose(a, path, p) }
}

// pickAnimation returns the index of the animation p names, or an error
// naming the animations the file has.
func (l *gltfLoader) pickAnimation(p gltfPose) (int, error) {
	anims := l.doc.Animations
	var names []string
	for i, a := range anims {
		switch {
		case a == nil:
			return 0, l.errorf(nil, "animations[%d] is null", i)
		case p.name == "" && i == p.index, p.name != "" && a.Name == p.name:
			return i, nil
		}
		if a.Name != "" {
			names = append(names, fmt.Sprintf("%d %s", i, quote(a.Name)))
		} else {
			names = append(names, fmt.Sprintf("%d (no name)", i))
		}
	}
	if p.name != "" {
		return 0, l.errorf(errGLTFAnimationPick, "no animation named %s (%s)", quote(p.name), gltfAnimationList(names))
	}
	return 0, l.errorf(errGLTFAnimationPick, "no animations[%d] (%s)", p.index, gltfAnimationList(names))
}

// gltfAnimationList says which animations a file has, for a message.
func gltfAnimationList(names []string) string {
	if len(names) == 0 {
		return "the file has no animations"
	}
	return fmt.Sprintf("the file's animations: %s", gltfLongList(names))
}

// gltfLongList joins names for a message, eliding past twenty.
func gltfLongList(names []string) string {
	if len(names) <= 20 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:20], ", "), len(names)-20)
}

// gltfChannelKey is what a channel animates.
type gltfChannelKey struct {
	node int
	path gltf.TRSProperty
}

// animate samples the channels of the animation p picks at p's time into
// the nodes they target.
func (l *gltfLoader) animate(p gltfPose) error {
	if !p.posed() {
		return nil
	}
	ai, err := l.pickAnimation(p)
	if err != nil {
		return err
	}
	doc := l.doc
	anim := doc.Animations[ai]
	seen := map[gltfChannelKey]bool{}
	for ci, ch := range anim.Channels {
		where := fmt.Sprintf("animations[%d].channels[%d]", ai, ci)
		if ch == nil {
			return l.errorf(nil, "%s is null", where)
		}
		if ch.Target.Node == nil {
			continue // an extension's target
		}
		ni := *ch.Target.Node
		if ni < 0 || ni >= len(doc.Nodes) || doc.Nodes[ni] == nil {
			return l.errorf(nil, "%s.target: nodes[%d] does not exist", where, ni)
		}
		node := doc.Nodes[ni]
		key := gltfChannelKey{ni, ch.Target.Path}
		if seen[key] {
			return l.errorf(nil, "%s: another channel of animations[%d] animates the %s of nodes[%d] (each node and path may have one)", where, ai, ch.Target.Path, ni)
		}
		seen[key] = true
		var comps int
		switch ch.Target.Path {
		case gltf.TRSTranslation, gltf.TRSScale:
			comps = 3
		case gltf.TRSRotation:
			comps = 4
		case gltf.TRSWeights:
			if comps = l.nodeTargets(node); comps == 0 {
				return l.errorf(nil, "%s animates the weights of nodes[%d], which has no mesh with morph targets", where, ni)
			}
		default:
			return l.errorf(nil, "%s.target.path %s is not supported (only translation, rotation, scale and weights)", where, quote(string(ch.Target.Path)))
		}
		if ch.Target.Path != gltf.TRSWeights && node.Matrix != gltf.DefaultMatrix {
			return l.errorf(nil, "%s animates the %s of nodes[%d], which has a matrix (glTF 2.0 §3.11: an animated node has translation, rotation and scale only)", where, ch.Target.Path, ni)
		}
		si := ch.Sampler
		if si < 0 || si >= len(anim.Samplers) || anim.Samplers[si] == nil {
			return l.errorf(nil, "%s: samplers[%d] does not exist", where, si)
		}
		v, err := l.sampled(anim.Samplers[si], ch.Target.Path, comps, p.time, fmt.Sprintf("animations[%d].samplers[%d]", ai, si))
		if err != nil {
			return err
		}
		switch ch.Target.Path {
		case gltf.TRSTranslation:
			node.Translation = [3]float64(v)
		case gltf.TRSScale:
			node.Scale = [3]float64(v)
		case gltf.TRSRotation:
			node.Rotation = [4]float64(v)
		case gltf.TRSWeights:
			node.Weights = v
		}
	}
	return nil
}

// nodeTargets returns the number of morph targets of node's mesh (the
// most a primitive has: glTF has them all alike), or 0.
func (l *gltfLoader) nodeTargets(node *gltf.Node) int {
	if node.Mesh == nil || *node.Mesh < 0 || *node.Mesh >= len(l.doc.Meshes) || l.doc.Meshes[*node.Mesh] == nil {
		return 0
	}
	n := 0
	for _, p := range l.doc.Meshes[*node.Mesh].Primitives {
		if p != nil {
			n = max(n, len(p.Targets))
		}
	}
	return n
}

// gltfSampleKey is what a sampled value depends on, besides the time:
// samplers alike in these give channels one value, shared.
type gltfSampleKey struct {
	input, output int
	interpolation gltf.Interpolation
	path          gltf.TRSProperty
	comps         int
}

// sampled is sample, computed once for samplers alike (gltfSampleKey)
// however many channels use them, the nodes sharing the returned slice
// (read only), and the values of all that are computed no more than the
// file's buffers hold bytes: a file's counts of channels and morph
// targets cannot multiply into memory (channels × targets weights) it
// does not bring, where the keyframes a sampled value comes from take at
// least a byte per value.
func (l *gltfLoader) sampled(s *gltf.AnimationSampler, path gltf.TRSProperty, comps int, t float64, where string) ([]float64, error) {
	k := &l.keyframes
	key := gltfSampleKey{s.Input, s.Output, s.Interpolation, path, comps}
	if v, ok := k.sampled[key]; ok {
		return v, nil
	}
	if k.sampledValues += comps; k.sampledValues > l.bufferBytes {
		return nil, l.errorf(nil, "%s: the animation's channels take %d sampled values in all, more than the %d bytes of the file's buffers", where, k.sampledValues, l.bufferBytes)
	}
	v, err := l.sample(s, path, comps, t, where)
	if err != nil {
		return nil, err
	}
	if k.sampled == nil {
		k.sampled = map[gltfSampleKey][]float64{}
	}
	k.sampled[key] = v
	return v, nil
}

// sample returns the value of sampler s, of comps components, at time t:
// its keyframes' times (input: FLOAT, finite, increasing) and values
// (output: FLOAT, or for rotations and weights normalized integers, as
// glTF allows) read and interpolated as Appendix C says; a rotation is
// normalised.
func (l *gltfLoader) sample(s *gltf.AnimationSampler, path gltf.TRSProperty, comps int, t float64, where string) ([]float64, error) {
	times, err := l.keyTimes(s.Input, where+".input")
	if err != nil {
		return nil, err
	}
	per := 1 // values per keyframe
	if s.Interpolation == gltf.InterpolationCubicSpline {
		per = 3 // in-tangent, value, out-tangent
		if len(times) < 2 {
			return nil, l.errorf(nil, "%s: CUBICSPLINE with %d keyframe (it needs at least 2)", where, len(times))
		}
	}
	out, err := l.keyValues(s.Output, path, where+".output")
	if err != nil {
		return nil, err
	}
	if want := len(times) * per * comps; len(out) != want {
		return nil, l.errorf(nil, "%s: output has %d values, %d keyframes of %s %s want %d", where, len(out), len(times), s.Interpolation, path, want)
	}
	n := len(times)
	// The keyframe's value (of a CUBICSPLINE: the middle of its three).
	value := func(k int) []float64 { return out[(k*per+per/2)*comps:][:comps] }
	var v []float64
	k := sort.Search(n, func(i int) bool { return float64(times[i]) > t }) - 1 // times[k] <= t < times[k+1]
	switch {
	case k < 0:
		v = value(0) // before the first keyframe
	case k == n-1 || float64(times[k]) == t:
		v = value(k) // after the last, or on a keyframe
	default:
		td := float64(times[k+1]) - float64(times[k])
		u := (t - float64(times[k])) / td
		switch s.Interpolation {
		case gltf.InterpolationStep:
			v = value(k)
		case gltf.InterpolationLinear:
			if path == gltf.TRSRotation {
				v = gltfSlerp(value(k), value(k+1), u)
			} else {
				v = gltfLerp(value(k), value(k+1), u)
			}
		case gltf.InterpolationCubicSpline:
			b := out[(3*k+2)*comps:][:comps]   // out-tangent of k
			a := out[(3*(k+1))*comps:][:comps] // in-tangent of k+1
			v = gltfHermite(value(k), b, value(k+1), a, td, u)
		default:
			return nil, l.errorf(nil, "%s: interpolation %s is not supported", where, s.Interpolation)
		}
	}
	v = append([]float64(nil), v...)
	if path == gltf.TRSRotation {
		q := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
		if !(q > 1e-6) || math.IsInf(q, 0) {
			return nil, l.errorf(nil, "%s: the rotation at %g s, %v, is not a unit quaternion once normalised", where, t, v)
		}
		for i := range v {
			v[i] /= q
		}
	}
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
			return nil, l.errorf(nil, "%s: the %s at %g s, %v, is not finite", where, path, t, v)
		}
	}
	return v, nil
}

// keyframeBytes counts the bytes of the keyframe accessors an animation
// reads against the file's buffers: each accessor once however many
// samplers share it, and all of them no more than the buffers hold, so
// that many samplers naming large overlapping accessors cannot make the
// loader decode more than the file brings.
func (l *gltfLoader) keyframeBytes(ai int, acc *gltf.Accessor, where string) error {
	k := &l.keyframes
	if k.read == nil {
		k.read = map[int]bool{}
	}
	if k.read[ai] {
		return nil
	}
	k.read[ai] = true
	if k.bytes += acc.Count * gltf.SizeOfElement(acc.ComponentType, acc.Type); k.bytes > l.bufferBytes {
		return l.errorf(nil, "%s: accessors[%d]: the animation's keyframes take %d bytes in all, more than the %d bytes of the file's buffers", where, ai, k.bytes, l.bufferBytes)
	}
	return nil
}

// keyTimes reads a sampler's input: FLOAT SCALAR times in seconds, finite
// and strictly increasing.
func (l *gltfLoader) keyTimes(ai int, where string) ([]float32, error) {
	if v, ok := l.keyframes.times[ai]; ok {
		return v, nil
	}
	acc, err := l.accessor(ai, where)
	if err != nil {
		return nil, err
	}
	if err := l.keyframeBytes(ai, acc, where); err != nil {
		return nil, err
	}
	if acc.ComponentType != gltf.ComponentFloat || acc.Type != gltf.AccessorScalar {
		return nil, l.errorf(nil, "%s: accessors[%d] is %s %s, not FLOAT SCALAR", where, ai, acc.ComponentType, acc.Type)
	}
	data, err := modeler.ReadAccessor(l.doc, acc, nil)
	if err != nil {
		return nil, l.errorf(err, "%s: accessors[%d]: %v", where, ai, err)
	}
	times, ok := data.([]float32)
	if !ok || len(times) == 0 {
		return nil, l.errorf(nil, "%s: accessors[%d]: unexpected data %T", where, ai, data)
	}
	for i, x := range times {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, l.errorf(nil, "%s: keyframe %d's time is not finite", where, i)
		}
		if i > 0 && !(x > times[i-1]) {
			return nil, l.errorf(nil, "%s: keyframe %d's time %g is not after keyframe %d's, %g (the times must increase)", where, i, x, i-1, times[i-1])
		}
	}
	if l.keyframes.times == nil {
		l.keyframes.times = map[int][]float32{}
	}
	l.keyframes.times[ai] = times
	return times, nil
}

// keyValues reads a sampler's output as float64 components, one after
// another: FLOAT VEC3 for translation and scale; FLOAT, or normalized
// BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT, VEC4 for rotation and
// SCALAR for weights, as glTF 2.0 §3.11 allows.
func (l *gltfLoader) keyValues(ai int, path gltf.TRSProperty, where string) ([]float64, error) {
	key := gltfValuesKey{ai, path}
	if v, ok := l.keyframes.values[key]; ok {
		return v, nil
	}
	v, err := l.readKeyValues(ai, path, where)
	if err != nil {
		return nil, err
	}
	if l.keyframes.values == nil {
		l.keyframes.values = map[gltfValuesKey][]float64{}
	}
	l.keyframes.values[key] = v
	return v, nil
}

// gltfValuesKey is a sampler's output accessor as read for a path.
type gltfValuesKey struct {
	accessor int
	path     gltf.TRSProperty
}

// gltfKeyframes are the keyframe accessors the posing animation has
// read: decoded once however many samplers share them, their bytes
// counted once against the file's buffers (keyframeBytes).
type gltfKeyframes struct {
	times  map[int][]float32
	values map[gltfValuesKey][]float64
	read   map[int]bool
	bytes  int
	// sampled are the values sampled (sampled), sampledValues their
	// number.
	sampled       map[gltfSampleKey][]float64
	sampledValues int
}

// readKeyValues is keyValues without the cache.
func (l *gltfLoader) readKeyValues(ai int, path gltf.TRSProperty, where string) ([]float64, error) {
	acc, err := l.accessor(ai, where)
	if err != nil {
		return nil, err
	}
	if err := l.keyframeBytes(ai, acc, where); err != nil {
		return nil, err
	}
	typ := gltf.AccessorVec3
	switch path {
	case gltf.TRSRotation:
		typ = gltf.AccessorVec4
	case gltf.TRSWeights:
		typ = gltf.AccessorScalar
	}
	integer := path == gltf.TRSRotation || path == gltf.TRSWeights
	switch {
	case acc.Type != typ:
	case acc.ComponentType == gltf.ComponentFloat:
		data, err := modeler.ReadAccessor(l.doc, acc, nil)
		if err != nil {
			return nil, l.errorf(err, "%s: accessors[%d]: %v", where, ai, err)
		}
		var out []float64
		switch d := data.(type) {
		case []float32:
			out = gltfFloat64s(d)
		case [][3]float32:
			for _, e := range d {
				out = append(out, gltfFloat64s(e[:])...)
			}
		case [][4]float32:
			for _, e := range d {
				out = append(out, gltfFloat64s(e[:])...)
			}
		default:
			return nil, l.errorf(nil, "%s: accessors[%d]: unexpected data %T", where, ai, data)
		}
		return out, nil
	case integer && acc.Normalized:
		if typ == gltf.AccessorVec4 {
			v, err := l.dequantize(acc, ai, 4, where)
			if err != nil {
				return nil, err
			}
			return gltfFloat64s(v), nil
		}
		return l.normalizedScalars(acc, ai, where)
	}
	allowed := "FLOAT"
	if integer {
		allowed = "FLOAT, or normalized BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT"
	}
	return nil, l.errorf(nil, "%s: accessors[%d] is %s %s%s, not supported for %s (only %s %s)", where, ai, acc.ComponentType, acc.Type, gltfNormalizedWord(acc), path, allowed, typ)
}

// normalizedScalars reads a normalized integer SCALAR accessor as glTF
// denormalises it.
func (l *gltfLoader) normalizedScalars(acc *gltf.Accessor, ai int, where string) ([]float64, error) {
	data, err := modeler.ReadAccessor(l.doc, acc, nil)
	if err != nil {
		return nil, l.errorf(err, "%s: accessors[%d]: %v", where, ai, err)
	}
	var out []float64
	switch d := data.(type) {
	case []int8:
		for _, c := range d {
			out = append(out, float64(gltf.DenormalizeByte(c)))
		}
	case []uint8:
		for _, c := range d {
			out = append(out, float64(gltf.DenormalizeUbyte(c)))
		}
	case []int16:
		for _, c := range d {
			out = append(out, float64(gltf.DenormalizeShort(c)))
		}
	case []uint16:
		for _, c := range d {
			out = append(out, float64(gltf.DenormalizeUshort(c)))
		}
	default:
		return nil, l.errorf(nil, "%s: accessors[%d]: unexpected data %T", where, ai, data)
	}
	return out, nil
}

// gltfFloat64s widens v.
func gltfFloat64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// gltfLerp is (1 − u)·a + u·b, component by component.
func gltfLerp(a, b []float64, u float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = (1-u)*a[i] + u*b[i]
	}
	return out
}

// gltfSlerp is Appendix C's spherical linear interpolation of the unit
// quaternions a and b (x, y, z, w): with d = a·b, θ = arccos |d| and s the
// sign of d, sin((1 − u)θ)/sin θ · a + s · sin(uθ)/sin θ · b, the short
// way round; where θ is near 0 (sin θ below 1e-6), the linear
// interpolation it tends to.
func gltfSlerp(a, b []float64, u float64) []float64 {
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	s := 1.0
	if d < 0 {
		s, d = -1, -d
	}
	theta := math.Acos(min(d, 1))
	sin := math.Sin(theta)
	wa, wb := 1-u, s*u
	if sin > 1e-6 {
		wa, wb = math.Sin((1-u)*theta)/sin, s*math.Sin(u*theta)/sin
	}
	out := make([]float64, 4)
	for i := range out {
		out[i] = wa*a[i] + wb*b[i]
	}
	return out
}

// gltfHermite is Appendix C's cubic spline between the keyframes k and
// k+1, td seconds apart: (2u³ − 3u² + 1)·v0 + td(u³ − 2u² + u)·b0 +
// (−2u³ + 3u²)·v1 + td(u³ − u²)·a1, with b0 keyframe k's out-tangent and
// a1 keyframe k+1's in-tangent.
func gltfHermite(v0, b0, v1, a1 []float64, td, u float64) []float64 {
	u2, u3 := u*u, u*u*u
	h00, h10, h01, h11 := 2*u3-3*u2+1, td*(u3-2*u2+u), -2*u3+3*u2, td*(u3-u2)
	out := make([]float64, len(v0))
	for i := range out {
		out[i] = h00*v0[i] + h10*b0[i] + h01*v1[i] + h11*a1[i]
	}
	return out
}
