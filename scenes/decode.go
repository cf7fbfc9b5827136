package scenes

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// decoder turns the JSON tree of a scene file into tracer values. It keeps
// the first error and makes every later read a no-op that returns a zero
// value, so that the section decoders read as straight-line code; loops
// check failed to stop early.
type decoder struct {
	file string
	data []byte
	err  *Error

	opt    Options
	assets *assets // the scene's files (meshes, images); made at first use
	// meshFiles are the mesh files read so far, by absolute path, and
	// images the images added to SceneDesc.Images, by the loader's
	// pointer, so that a file used twice is read and added once.
	meshFiles     map[string]*meshFile
	imported      map[string]*importedMesh // the files' imports, by absolute path
	images        map[*tracer.Image]int32
	meshTriangles int // the triangles of s.Meshes so far
	// imageFiles are the image files of textures and the background
	// added to SceneDesc.Images, so that a file used twice is decoded
	// once (texture.go).
	imageFiles map[imageKey]int32
	// scaledGlass are the copies of a mesh file's absorbing glass
	// materials that objects of another scale use (decoder.placedGlass).
	scaledGlass map[scaledGlassKey]int32
}

// failed reports whether the decoder has met an error.
func (d *decoder) failed() bool { return d.err != nil }

// failAt records an error at byte offset off unless one is recorded.
func (d *decoder) failAt(off int32, path, format string, args ...any) {
	if d.err == nil {
		d.err = newError(d.file, d.data, int(off), path, fmt.Sprintf(format, args...))
	}
}

// fail records an error about v, at l.
func (d *decoder) fail(v *value, l loc, format string, args ...any) {
	if d.err == nil {
		d.failAt(v.off, l.String(), format, args...)
	}
}

// numberText returns a number's text as the file spells it.
func (d *decoder) numberText(v *value) string {
	end := int(v.off)
	for end < len(d.data) && strings.IndexByte("+-.0123456789eE", d.data[end]) >= 0 {
		end++
	}
	return string(d.data[v.off:end])
}

// literal returns a number's text as the file spells it, shortened for a
// message.
func (d *decoder) literal(v *value) string {
	s := d.numberText(v)
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "…"
	}
	return s
}

// number returns v as a float64 that is finite as a float32.
func (d *decoder) number(v *value, l loc) (float64, bool) {
	x, ok := d.finite(v, l)
	if ok && math.IsInf(float64(float32(x)), 0) {
		d.fail(v, l, "not a finite number: %s is too large for float32", d.literal(v))
		return 0, false
	}
	return x, ok
}

// finite returns v as a finite float64.
func (d *decoder) finite(v *value, l loc) (float64, bool) {
	switch {
	case d.failed():
		return 0, false
	case v.kind != kindNumber:
		d.fail(v, l, "expected a number, found %s", v.kind)
		return 0, false
	case math.IsInf(v.num, 0):
		d.fail(v, l, "not a finite number: %s", d.literal(v))
		return 0, false
	}
	return v.num, true
}

// check says why a number is out of range ("must be > 0"), or returns ""
// when it is in range.
type check func(x float64) string

// atLeast accepts x >= lo.
func atLeast(lo float64) check {
	return func(x float64) string {
		if x >= lo {
			return ""
		}
		return fmt.Sprintf("must be >= %g", lo)
	}
}

// above accepts x > lo.
func above(lo float64) check {
	return func(x float64) string {
		if x > lo {
			return ""
		}
		return fmt.Sprintf("must be > %g", lo)
	}
}

// within accepts x in [lo, hi].
func within(lo, hi float64) check {
	return func(x float64) string {
		if x >= lo && x <= hi {
			return ""
		}
		return fmt.Sprintf("must be in [%g, %g]", lo, hi)
	}
}

// between accepts x in (lo, hi), the bounds excluded.
func between(lo, hi float64) check {
	return func(x float64) string {
		if x > lo && x < hi {
			return ""
		}
		return fmt.Sprintf("must be in (%g, %g), bounds excluded", lo, hi)
	}
}

// float returns v as a float32 that passes the checks. The checks see the
// float32 value, the one the renderer will use.
func (d *decoder) float(v *value, l loc, checks ...check) float32 {
	x, ok := d.number(v, l)
	if !ok {
		return 0
	}
	y := float32(x)
	for _, c := range checks {
		if msg := c(float64(y)); msg != "" {
			found := d.literal(v)
			if c(x) == "" {
				found += fmt.Sprintf(" (%g as float32)", y)
			}
			d.fail(v, l, "%s, found %s", msg, found)
			return 0
		}
	}
	return y
}

// integer returns v as an integer. Integral literals are read exactly;
// values past the int64 range are clamped to it, which puts them past any
// limit.
func (d *decoder) integer(v *value, l loc) (int64, bool) {
	x, ok := d.finite(v, l) // an integer need not be a float32's
	if !ok {
		return 0, false
	}
	if x != math.Trunc(x) {
		d.fail(v, l, "expected an integer, found %s", d.literal(v))
		return 0, false
	}
	if lit := d.numberText(v); !strings.ContainsAny(lit, ".eE") {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return n, true
		}
	}
	switch {
	case x >= 0x1p63:
		return math.MaxInt64, true
	case x < -0x1p63:
		return math.MinInt64, true
	}
	return int64(x), true
}

// str returns v as a string.
func (d *decoder) str(v *value, l loc) (string, bool) {
	switch {
	case d.failed():
		return "", false
	case v.kind != kindString:
		d.fail(v, l, "expected a string, found %s", v.kind)
		return "", false
	}
	return v.str, true
}

// array checks that v is an array of n elements, each a what ("points").
func (d *decoder) array(v *value, l loc, n int, what string) bool {
	switch {
	case d.failed():
		return false
	case v.kind != kindArray:
		d.fail(v, l, "expected an array of %d %s, found %s", n, what, v.kind)
		return false
	case len(v.elems) != n:
		d.fail(v, l, "expected %d %s, found %d", n, what, len(v.elems))
		return false
	}
	return true
}

// floats reads v, an array of len(out) numbers, into out.
func (d *decoder) floats(v *value, l loc, out []float32) {
	if !d.array(v, l, len(out), "numbers") {
		return
	}
	for i := range out {
		x, _ := d.number(&v.elems[i], l.elem(i))
		out[i] = float32(x)
	}
}

// vec3 reads v, an [x, y, z] array.
func (d *decoder) vec3(v *value, l loc) mgl32.Vec3 {
	var out mgl32.Vec3
	d.floats(v, l, out[:])
	return out
}

// color reads v, an [r, g, b] array of linear RGB components >= 0.
func (d *decoder) color(v *value, l loc) mgl32.Vec3 {
	c := d.vec3(v, l)
	for i, x := range c {
		if x < 0 && !d.failed() {
			e := &v.elems[i]
			d.fail(e, l.elem(i), "a colour component must be >= 0, found %s", d.literal(e))
		}
	}
	return c
}

// fields is a JSON object being decoded: the render section, a material,
// an object. Its reads take a member's key and return the member's value,
// or a default when the member is absent. An absent optional section is a
// fields with a nil v: every read gives the default.
type fields struct {
	d    *decoder
	v    *value // the object, or nil
	path string
}

// object returns v, at path, as fields; it fails if v is not an object.
func (d *decoder) object(v *value, l loc) fields {
	if !d.failed() && v.kind != kindObject {
		d.fail(v, l, "expected an object, found %s", v.kind)
	}
	if v.kind != kindObject {
		return fields{d: d, path: l.String()}
	}
	return fields{d: d, v: v, path: l.String()}
}

// at returns the loc of member key.
func (f fields) at(key string) loc { return at(f.path).member(key) }

// lookup returns the value of member key, or nil.
func (f fields) lookup(key string) *value {
	if f.v == nil {
		return nil
	}
	for i := range f.v.members() {
		if f.v.key(i).str == key {
			return f.v.member(i)
		}
	}
	return nil
}

// offset returns where an error about member key belongs: at its value, or
// at the object when the member is absent.
func (f fields) offset(key string) int32 {
	if v := f.lookup(key); v != nil {
		return v.off
	}
	if f.v != nil {
		return f.v.off
	}
	return 0
}

// failField records an error about member key, present or not.
func (f fields) failField(key, format string, args ...any) {
	f.d.failAt(f.offset(key), f.at(key).String(), format, args...)
}

// missing records that the required member key is absent.
func (f fields) missing(key string) {
	f.d.failAt(f.offset(key), f.path, "missing required field %s", quote(key))
}

// known fails on the first member whose key is not in names, suggesting
// the closest known name.
func (f fields) known(names ...string) {
	if f.v == nil || f.d.failed() {
		return
	}
	for i := range f.v.members() {
		k := f.v.key(i)
		if slices.Contains(names, k.str) {
			continue
		}
		if s := didYouMean(k.str, names); s != "" {
			f.d.failAt(k.off, f.path, "unknown field %s%s", quote(k.str), s)
		} else {
			f.d.failAt(k.off, f.path, "unknown field %s (expected one of %s)", quote(k.str), quoteList(names))
		}
		return
	}
}

// required returns the value of member key, failing when it is absent.
func (f fields) required(key string) *value {
	v := f.lookup(key)
	if v == nil && !f.d.failed() {
		f.missing(key)
	}
	return v
}

// section returns member key as fields; an absent member gives fields
// whose reads return defaults.
func (f fields) section(key string) fields {
	if v := f.lookup(key); v != nil {
		return f.d.object(v, f.at(key))
	}
	return fields{d: f.d, path: f.at(key).String()}
}

// requiredSection is section for a member that must be present.
func (f fields) requiredSection(key string) fields {
	if v := f.required(key); v != nil {
		return f.d.object(v, f.at(key))
	}
	return fields{d: f.d, path: f.at(key).String()}
}

// list returns member key, which must be an array, or nil when it is
// absent.
func (f fields) list(key string) *value {
	v := f.lookup(key)
	if v == nil || f.d.failed() {
		return nil
	}
	if v.kind != kindArray {
		f.d.fail(v, f.at(key), "expected an array, found %s", v.kind)
		return nil
	}
	return v
}

// float returns member key as a float32 that passes the checks, or def.
func (f fields) float(key string, def float32, checks ...check) float32 {
	if v := f.lookup(key); v != nil {
		return f.d.float(v, f.at(key), checks...)
	}
	return def
}

// requiredFloat is float for a member that must be present.
func (f fields) requiredFloat(key string, checks ...check) float32 {
	if v := f.required(key); v != nil {
		return f.d.float(v, f.at(key), checks...)
	}
	return 0
}

// integer returns member key as an integer in [lo, hi], or def. limit
// names what sets hi ("tracer.MaxSamples") for the message; it may be "".
func (f fields) integer(key string, def, lo, hi int64, limit string) int64 {
	v := f.lookup(key)
	if v == nil {
		return def
	}
	n, ok := f.d.integer(v, f.at(key))
	if !ok {
		return 0
	}
	if msg := rangeMessage(n, lo, hi, limit); msg != "" {
		f.d.fail(v, f.at(key), "%s, found %s", msg, f.d.literal(v))
		return 0
	}
	return n
}

// rangeMessage says why n is outside [lo, hi], or returns "".
func rangeMessage(n, lo, hi int64, limit string) string {
	switch {
	case n < lo:
		return fmt.Sprintf("must be at least %d", lo)
	case n > hi && limit != "":
		return fmt.Sprintf("must be at most %d (%s)", hi, limit)
	case n > hi:
		return fmt.Sprintf("must be at most %d", hi)
	}
	return ""
}

// string returns member key as a string, or def.
func (f fields) string(key, def string) string {
	if v := f.lookup(key); v != nil {
		s, _ := f.d.str(v, f.at(key))
		return s
	}
	return def
}

// choice returns member key, a string that must be one of accepted; what
// names it in the message ("integrator"). An absent member gives def, or
// fails when def is "".
func (f fields) choice(key, def, what string, accepted []string) string {
	v := f.lookup(key)
	if v == nil {
		if def == "" {
			f.missing(key)
		}
		return def
	}
	s, ok := f.d.str(v, f.at(key))
	if !ok {
		return ""
	}
	if !slices.Contains(accepted, s) {
		f.d.fail(v, f.at(key), "unknown %s %s%s (accepted: %s)", what, quote(s), didYouMean(s, accepted), quoteList(accepted))
		return ""
	}
	return s
}

// option is one accepted name of a string-valued field and the value it
// stands for.
type option[T any] struct {
	name string
	val  T
}

// choose is choice for a field whose names stand for values of type T.
func choose[T any](f fields, key, def, what string, opts []option[T]) T {
	names := make([]string, len(opts))
	for i, o := range opts {
		names[i] = o.name
	}
	var zero T
	s := f.choice(key, def, what, names)
	for _, o := range opts {
		if o.name == s {
			return o.val
		}
	}
	return zero
}

// vec3 returns member key, an [x, y, z] array, or def.
func (f fields) vec3(key string, def mgl32.Vec3) mgl32.Vec3 {
	if v := f.lookup(key); v != nil {
		return f.d.vec3(v, f.at(key))
	}
	return def
}

// requiredVec3 is vec3 for a member that must be present.
func (f fields) requiredVec3(key string) mgl32.Vec3 {
	if v := f.required(key); v != nil {
		return f.d.vec3(v, f.at(key))
	}
	return mgl32.Vec3{}
}

// color returns member key, a linear RGB colour, or def.
func (f fields) color(key string, def mgl32.Vec3) mgl32.Vec3 {
	if v := f.lookup(key); v != nil {
		return f.d.color(v, f.at(key))
	}
	return def
}

// requiredColor is color for a member that must be present.
func (f fields) requiredColor(key string) mgl32.Vec3 {
	if v := f.required(key); v != nil {
		return f.d.color(v, f.at(key))
	}
	return mgl32.Vec3{}
}
