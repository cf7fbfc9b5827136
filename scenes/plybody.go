package scenes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The bodies of PLY files (ply.go): binary, in either byte order, and
// ASCII, one element a line.

// plyBody reads the elements of a PLY body, one at a time, in order.
type plyBody interface {
	// element reads element i of e into out.
	element(e *plyElement, i int, out *plyValues) error
	// skip passes over the count elements of e, none of whose
	// properties trace reads.
	skip(e *plyElement) error
	// rest returns the bytes left after the last element (in an ASCII
	// body, from the first that is not white space; 0 for none) and the
	// line they start on (0 in a binary body).
	rest() (n, line int)
}

// plyBinary reads a binary body.
type plyBinary struct {
	r     *plyReader
	data  []byte
	pos   int
	order binary.ByteOrder
}

// value reads a value of type t; the caller has checked that it is there.
func (b *plyBinary) value(t plyType) float64 {
	d := b.data[b.pos:]
	b.pos += t.size()
	switch t {
	case plyInt8:
		return float64(int8(d[0]))
	case plyUint8:
		return float64(d[0])
	case plyInt16:
		return float64(int16(b.order.Uint16(d)))
	case plyUint16:
		return float64(b.order.Uint16(d))
	case plyInt32:
		return float64(int32(b.order.Uint32(d)))
	case plyUint32:
		return float64(b.order.Uint32(d))
	case plyFloat32:
		return float64(math.Float32frombits(b.order.Uint32(d)))
	}
	return math.Float64frombits(b.order.Uint64(d))
}

// short is the error for element i of e, which the file ends in.
func (b *plyBinary) short(e *plyElement, i int) error {
	return b.r.errorf(0, "the file ends in %s %d of %d (byte %d)", e.name, i, e.count, len(b.data))
}

func (b *plyBinary) element(e *plyElement, i int, out *plyValues) error {
	out.list = out.list[:0]
	for _, p := range e.props {
		if p.countType == 0 {
			if len(b.data)-b.pos < p.typ.size() {
				return b.short(e, i)
			}
			x := b.value(p.typ)
			out.v[p.role] = x
			continue
		}
		if len(b.data)-b.pos < p.countType.size() {
			return b.short(e, i)
		}
		n := int64(b.value(p.countType))
		if n < 0 {
			return b.r.errorf(0, "%s %d: %s: a list of %d values", e.name, i, p.name, n)
		}
		size := p.typ.size()
		if n > int64((len(b.data)-b.pos)/size) {
			return b.r.errorf(0, "%s %d: %s: a list of %d values of %d bytes each, more than the %d bytes left in the file", e.name, i, p.name, n, size, len(b.data)-b.pos)
		}
		if p.role != plyIndices {
			b.pos += int(n) * size
			continue
		}
		for range int(n) {
			out.list = append(out.list, int64(b.value(p.typ)))
		}
	}
	return nil
}

func (b *plyBinary) skip(e *plyElement) error {
	if e.fixed {
		// checkHeader made sure the header's elements fit.
		if int64(len(b.data)-b.pos) < int64(e.count)*int64(e.minSize) {
			return b.short(e, (len(b.data)-b.pos)/e.minSize)
		}
		b.pos += e.count * e.minSize
		return nil
	}
	var vals plyValues
	for i := range e.count {
		if err := b.element(e, i, &vals); err != nil {
			return err
		}
	}
	return nil
}

func (b *plyBinary) rest() (int, int) { return len(b.data) - b.pos, 0 }

// plyText reads an ASCII body: each element a line.
type plyText struct {
	r    *plyReader
	data []byte
	line int // the line last read
}

// next returns the next line that is not blank, or false at the end.
func (t *plyText) next() ([]byte, bool) {
	for len(t.data) > 0 {
		var line []byte
		line, t.data = cutLine(t.data)
		t.line++
		if len(trimSpace(line)) > 0 {
			return line, true
		}
	}
	return nil, false
}

func (t *plyText) element(e *plyElement, i int, out *plyValues) error {
	out.list = out.list[:0]
	line, ok := t.next()
	if !ok {
		return t.r.errorf(0, "the file ends before %s %d (the header gives %d %s elements)", e.name, i, e.count, e.name)
	}
	fail := func(format string, args ...any) error {
		return t.r.errorf(t.line, "%s %d: %s", e.name, i, fmt.Sprintf(format, args...))
	}
	for _, p := range e.props {
		var f []byte
		f, line = nextField(line)
		if len(f) == 0 {
			return fail("expected %d values, found fewer", len(e.props))
		}
		if p.countType == 0 {
			if p.role == plySkip {
				continue
			}
			x, msg := plyNumber(f, p.typ)
			if msg != "" {
				return fail("%s: %s", p.name, msg)
			}
			out.v[p.role] = x
			continue
		}
		c, msg := plyNumber(f, p.countType)
		if msg != "" {
			return fail("%s: list count: %s", p.name, msg)
		}
		if c < 0 || c > float64(len(line)) { // each value takes a space and a character
			return fail("%s: a list of %g values is longer than the line", p.name, c)
		}
		for range int(c) {
			f, line = nextField(line)
			if len(f) == 0 {
				return fail("%s: a list of %g values is longer than the line", p.name, c)
			}
			if p.role == plyIndices {
				x, msg := plyNumber(f, p.typ)
				if msg != "" {
					return fail("%s: %s", p.name, msg)
				}
				out.list = append(out.list, int64(x))
			}
		}
	}
	if f, _ := nextField(line); len(f) > 0 {
		return fail("more values than the header's %d properties", len(e.props))
	}
	return nil
}

func (t *plyText) skip(e *plyElement) error {
	if len(e.props) == 0 {
		return nil // nothing to read: as in a binary body
	}
	var vals plyValues
	for i := range e.count {
		if err := t.element(e, i, &vals); err != nil {
			return err
		}
	}
	return nil
}

func (t *plyText) rest() (int, int) {
	line := t.line
	for i := 0; i < len(t.data); i++ {
		switch c := t.data[i]; {
		case c == '\n':
			line++
		case !isSpace(c) && c != '\r':
			return len(t.data) - i, line + 1
		}
	}
	return 0, 0
}

// plyNumber reads a value of type t written in an ASCII body: an integer
// in t's range, or a number that fits in float32 for float and double.
// It returns a message saying what is wrong with it, or "".
func plyNumber(f []byte, t plyType) (float64, string) {
	if !t.integer() {
		x, msg := parseFloat32(f)
		return float64(x), msg
	}
	n, ok := plyInt(f)
	if !ok {
		if _, err := strconv.ParseInt(string(f), 10, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Sprintf("not an integer: %s", quote(string(f)))
		}
	}
	if lo, hi := t.bounds(); !ok || n < lo || n > hi {
		return 0, fmt.Sprintf("%s is out of range for %s", quote(string(f)), plyTypeName(t))
	}
	return float64(n), ""
}

// plyInt reads f when it is an integer of at most 18 digits, which
// int64 holds: the values of every PLY integer type, written plainly.
func plyInt(f []byte) (int64, bool) {
	neg := false
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		neg, f = f[0] == '-', f[1:]
	}
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// plyTypeName is the format's name of t.
func plyTypeName(t plyType) string {
	return [...]string{plyInt8: "char", plyUint8: "uchar", plyInt16: "short", plyUint16: "ushort", plyInt32: "int", plyUint32: "uint", plyFloat32: "float", plyFloat64: "double"}[t]
}
