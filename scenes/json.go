package scenes

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxNesting is how deeply arrays and objects may nest in a scene file. A
// valid scene needs five levels; the limit keeps a malformed file from
// exhausting the stack.
const MaxNesting = 64

// MaxValues is the most JSON values a scene file may hold, object keys
// included: about 700,000 spheres or 440,000 triangles written out in the
// file. The decoder holds every value in memory (some 60 bytes each), so
// this bounds the memory that parsing takes, whatever the file's size;
// large geometry belongs in mesh files.
const MaxValues = 1 << 23

// kind is the type of a JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String names the kind for error messages: "expected a number, found a
// string".
func (k kind) String() string {
	switch k {
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "null"
}

// value is a node of the JSON tree that the scene decoder walks. It keeps
// the byte offset of the value in the file so that errors found while
// decoding can name a line and column.
type value struct {
	kind kind
	b    bool    // for kindBool
	off  int32   // byte offset of the value's first byte (MaxFileSize fits)
	num  float64 // for kindNumber; ±Inf when the literal overflows float64
	str  string  // for kindString
	// elems are an array's elements, or an object's members as key, value
	// pairs in file order: elems[2i] is the i-th key (a kindString value
	// at the key's offset), elems[2i+1] its value.
	elems []value
}

// members returns how many members an object has.
func (v *value) members() int { return len(v.elems) / 2 }

// key returns the i-th key of an object.
func (v *value) key(i int) *value { return &v.elems[2*i] }

// member returns the value of the i-th member of an object.
func (v *value) member(i int) *value { return &v.elems[2*i+1] }

// parser reads strict JSON (RFC 8259) into a tree of values: one value,
// with only white space after it; no comments, trailing commas, NaN or
// duplicate keys. Strings must be valid UTF-8.
type parser struct {
	file      string
	data      []byte
	pos       int
	depth     int
	count     int           // values read so far, keys included
	maxValues int           // the most values allowed: MaxValues, less in tests
	path      []pathSegment // where the parser is, for error messages
	// interned holds the short strings met so far, so that the keys and
	// type names that every object repeats are allocated once.
	interned map[string]string
	// stack holds the elements of the open arrays and objects, innermost
	// last; a closed one gets an exactly sized copy of its elements. One
	// buffer for the whole parse is much cheaper than growing the slice
	// of every array and object by appending.
	stack []value
}

// parseJSON parses data, the contents of file, into a tree.
func parseJSON(file string, data []byte) (*value, *Error) {
	p := &parser{file: file, data: data, maxValues: MaxValues}
	return p.parse()
}

// parse parses the parser's data into a tree.
func (p *parser) parse() (*value, *Error) {
	if bytes.HasPrefix(p.data, utf8BOM) {
		p.pos = len(utf8BOM)
	}
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf(p.pos, "unexpected %s after the end of the top-level value", p.describe(p.pos))
	}
	return &root, nil
}

// errorf returns an error at byte offset off, at the parser's path.
func (p *parser) errorf(off int, format string, args ...any) *Error {
	return newError(p.file, p.data, off, joinSegments(p.path), fmt.Sprintf(format, args...))
}

// describe says what is at offset off, for "unexpected ..." messages.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	r, size := utf8.DecodeRune(p.data[off:])
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("byte 0x%02X", p.data[off])
	case r == '/' && off+1 < len(p.data) && (p.data[off+1] == '/' || p.data[off+1] == '*'):
		return "comment (JSON has no comments)"
	case strconv.IsPrint(r):
		return fmt.Sprintf("character %q", r)
	}
	return fmt.Sprintf("character %U", r)
}

// skipSpace moves past JSON white space.
func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses the value at p.pos (after white space). Values are
// returned, not filled in through a pointer, so that the recursion does
// not move every value to the heap.
func (p *parser) value() (value, *Error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return value{}, p.errorf(p.pos, "unexpected end of input; expected a value")
	}
	if err := p.counted(); err != nil {
		return value{}, err
	}
	v := value{off: int32(p.pos)}
	var err *Error
	switch c := p.data[p.pos]; {
	case c == '{':
		v.kind = kindObject
		v.elems, err = p.object()
	case c == '[':
		v.kind = kindArray
		v.elems, err = p.array()
	case c == '"':
		v.kind = kindString
		v.str, err = p.string()
	case c == '-' || c >= '0' && c <= '9':
		v.kind = kindNumber
		v.num, err = p.number()
	case c == 't':
		v.kind, v.b = kindBool, true
		err = p.literal("true")
	case c == 'f':
		v.kind = kindBool
		err = p.literal("false")
	case c == 'n':
		v.kind = kindNull
		err = p.literal("null")
	default:
		err = p.errorf(p.pos, "unexpected %s; expected a value", p.describe(p.pos))
	}
	return v, err
}

// counted counts the value (or key) at p.pos against MaxValues.
func (p *parser) counted() *Error {
	p.count++
	if p.count > p.maxValues {
		return p.errorf(p.pos, "the file holds more than %d JSON values (MaxValues); large geometry belongs in mesh files", p.maxValues)
	}
	return nil
}

// literal parses the keyword word (true, false or null).
func (p *parser) literal(word string) *Error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return p.errorf(p.pos, "unexpected %s; expected a value", p.describe(p.pos))
	}
	p.pos += len(word)
	return nil
}

// enter counts a level of nesting at the '{' or '[' at p.pos.
func (p *parser) enter() *Error {
	p.depth++
	if p.depth > MaxNesting {
		return p.errorf(p.pos, "arrays and objects nest more than %d levels deep", MaxNesting)
	}
	p.pos++
	return nil
}

// object parses an object, p.pos being at its '{', and returns its
// members as key, value pairs (see value.elems).
func (p *parser) object() ([]value, *Error) {
	open := p.pos
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return nil, nil
	}
	base := len(p.stack)
	var seen map[string]bool // built once the object is too large for a linear search
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of input; the object at %s is not closed", p.lineCol(open))
		}
		if p.data[p.pos] != '"' {
			if p.data[p.pos] == '}' && len(p.stack) > base {
				return nil, p.errorf(p.pos, "unexpected '}' after ','; JSON allows no trailing comma")
			}
			return nil, p.errorf(p.pos, "unexpected %s; expected a string key", p.describe(p.pos))
		}
		if err := p.counted(); err != nil {
			return nil, err
		}
		keyOff := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.duplicate(p.stack[base:], key, &seen) {
			return nil, p.errorf(keyOff, "duplicate key %s", quote(key))
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf(p.pos, "unexpected %s; expected ':' after key %s", p.describe(p.pos), quote(key))
		}
		p.pos++
		p.path = append(p.path, pathSegment{key: key})
		member, err := p.value()
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		p.push(value{kind: kindString, off: int32(keyOff), str: key})
		p.push(member)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of input; the object at %s is not closed", p.lineCol(open))
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return p.pop(base), nil
		default:
			return nil, p.errorf(p.pos, "unexpected %s; expected ',' or '}' after the value of %s", p.describe(p.pos), quote(key))
		}
	}
}

// duplicate reports whether key is among the keys of members, the key,
// value pairs of an object read so far. Small objects are searched; a
// large one (the materials of a big scene) gets a set.
func (p *parser) duplicate(members []value, key string, seen *map[string]bool) bool {
	const linear = 16
	n := len(members) / 2
	if n < linear {
		for i := range n {
			if members[2*i].str == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*n)
		for i := range n {
			(*seen)[members[2*i].str] = true
		}
	}
	if (*seen)[key] {
		return true
	}
	(*seen)[key] = true
	return false
}

// push adds v to the stack. The stack doubles when full, rather than
// growing by a quarter as append does for large slices: the values hold
// pointers, so each copy is costly.
func (p *parser) push(v value) {
	if len(p.stack) == cap(p.stack) {
		p.stack = slices.Grow(p.stack, max(len(p.stack), 256))
	}
	p.stack = append(p.stack, v)
}

// pop removes the elements of the innermost open array or object, which
// start at base, from the stack and returns a copy of them.
func (p *parser) pop(base int) []value {
	elems := make([]value, len(p.stack)-base)
	copy(elems, p.stack[base:])
	clear(p.stack[base:]) // drop references for the garbage collector
	p.stack = p.stack[:base]
	return elems
}

// array parses an array, p.pos being at its '[', and returns its
// elements.
func (p *parser) array() ([]value, *Error) {
	open := p.pos
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return nil, nil
	}
	base := len(p.stack)
	p.path = append(p.path, pathSegment{isIndex: true})
	for i := 0; ; i++ {
		p.skipSpace()
		if i > 0 && p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.path = p.path[:len(p.path)-1]
			return nil, p.errorf(p.pos, "unexpected ']' after ','; JSON allows no trailing comma")
		}
		p.path[len(p.path)-1].index = i
		elem, err := p.value()
		if err != nil {
			return nil, err
		}
		p.push(elem)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of input; the array at %s is not closed", p.lineCol(open))
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			p.path = p.path[:len(p.path)-1]
			return p.pop(base), nil
		default:
			return nil, p.errorf(p.pos, "unexpected %s; expected ',' or ']' after an array element", p.describe(p.pos))
		}
	}
}

// lineCol formats the position of offset off as LINE:COL.
func (p *parser) lineCol(off int) string {
	line, col := position(p.data, off)
	return fmt.Sprintf("%d:%d", line, col)
}

// number parses a number; p.pos is at its first byte. A literal too large
// for float64 is kept as ±Inf; the decoder rejects it with the path of the
// field.
func (p *parser) number() (float64, *Error) {
	start := p.pos
	digits := func() bool {
		n := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos > n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case !digits():
		return 0, p.errorf(p.pos, "unexpected %s in a number; expected a digit", p.describe(p.pos))
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if !digits() {
			return 0, p.errorf(p.pos, "unexpected %s in a number; expected a digit after '.'", p.describe(p.pos))
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !digits() {
			return 0, p.errorf(p.pos, "unexpected %s in a number; expected a digit in the exponent", p.describe(p.pos))
		}
	}
	// The literal is well formed, so the only error is ErrRange, for which
	// ParseFloat returns ±Inf.
	f, _ := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	return f, nil
}

// string parses a string; p.pos is at its opening quote.
func (p *parser) string() (string, *Error) {
	open := p.pos
	p.pos++
	start := p.pos
	var b *strings.Builder // nil until the string has an escape
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			if b == nil {
				return p.intern(p.data[start : p.pos-1]), nil
			}
			b.Write(p.data[start : p.pos-1])
			return b.String(), nil
		case c == '\\':
			if b == nil {
				b = new(strings.Builder)
			}
			b.Write(p.data[start:p.pos])
			if err := p.escape(b); err != nil {
				return "", err
			}
			start = p.pos
		case c < 0x20:
			return "", p.errorf(p.pos, "control character %U in a string; write it as an escape", rune(c))
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errorf(p.pos, "invalid UTF-8 byte 0x%02X in a string", c)
			}
			p.pos += size
		}
	}
	return "", p.errorf(open, "string not terminated")
}

// Bounds of the parser's table of interned strings.
const (
	maxInternedLen   = 32   // bytes; longer strings are rarely repeated
	maxInternedCount = 4096 // entries; past it, new strings are not added
)

// intern returns b as a string, the same one for equal short strings.
func (p *parser) intern(b []byte) string {
	if len(b) > maxInternedLen {
		return string(b)
	}
	if s, ok := p.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if p.interned == nil {
		p.interned = make(map[string]string)
	}
	if len(p.interned) < maxInternedCount {
		p.interned[s] = s
	}
	return s
}

// escape decodes the escape sequence at p.pos (at its backslash) into b.
// A \u escape of a lone UTF-16 surrogate becomes U+FFFD, as in
// encoding/json.
func (p *parser) escape(b *strings.Builder) *Error {
	at := p.pos
	p.pos++
	if p.pos >= len(p.data) {
		return p.errorf(at, "string not terminated")
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return p.errorf(at, "invalid \\u escape; expected four hex digits")
		}
		if utf16.IsSurrogate(r) {
			high := r
			r = utf8.RuneError
			// A high surrogate followed by a \u low surrogate is one rune.
			if save := p.pos; p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				p.pos += 2
				low, ok := p.hex4()
				if pair := utf16.DecodeRune(high, low); ok && pair != utf8.RuneError {
					r = pair
				} else {
					p.pos = save
				}
			}
		}
		b.WriteRune(r)
	default:
		return p.errorf(at, "invalid escape %s in a string", p.describe(at+1))
	}
	return nil
}

// hex4 reads four hex digits at p.pos.
func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}
