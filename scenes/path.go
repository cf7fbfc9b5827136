package scenes

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON paths name a value inside a scene file the way a user writes it:
// camera.position[2], objects[3].radius, materials.glass.ior. A key that
// is not a plain identifier is written in brackets: materials["my glass"].

// joinKey returns the path of member key of the object at parent.
func joinKey(parent, key string) string {
	if !isIdentifier(key) {
		return parent + "[" + quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// joinIndex returns the path of element i of the array at parent.
func joinIndex(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// isIdentifier reports whether key can follow a dot in a path: ASCII
// letters, digits, '_' and '-', not starting with a digit or '-'.
func isIdentifier(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// maxQuoted is how many characters of a user's string an error message
// quotes; the rest is elided.
const maxQuoted = 40

// quote returns s as a Go string literal, shortened to maxQuoted
// characters, so that a message stays one readable line whatever the
// scene file holds.
func quote(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == maxQuoted {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

// quoteFile returns a file name written in a scene or asset file as a Go
// string literal, in full (quote would shorten it), so that the name a
// message shows is exact and no control character in it reaches the
// user's terminal.
func quoteFile(name string) string { return strconv.Quote(name) }

// safeName returns name as it is when every character of it is printable
// and it holds no quote, and as a Go string literal otherwise: for the
// FILE of an error's FILE:LINE:COL, which tools that jump to errors read
// unquoted.
func safeName(name string) string {
	if !utf8.ValidString(name) || strings.ContainsRune(name, '"') {
		return strconv.Quote(name)
	}
	for _, r := range name {
		if !strconv.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	return name
}

// pathSegment is one step of a path under construction: an object key, or
// an array index when isIndex is set.
type pathSegment struct {
	key     string
	index   int
	isIndex bool
}

// joinSegments renders a path from its segments.
func joinSegments(segs []pathSegment) string {
	p := ""
	for _, s := range segs {
		if s.isIndex {
			p = joinIndex(p, s.index)
		} else {
			p = joinKey(p, s.key)
		}
	}
	return p
}

// loc is the path of a value being decoded, kept in parts and rendered
// only when an error needs it, so that decoding a large scene does not
// build a string per value read: base, then .key when hasKey is set, then
// [index] when index >= 0.
type loc struct {
	base   string
	key    string
	hasKey bool
	index  int
}

// at returns the loc of the value at path p.
func at(p string) loc { return loc{base: p, index: -1} }

// member returns the loc of member key of the object at l.
func (l loc) member(key string) loc {
	base := l.base
	if l.hasKey || l.index >= 0 {
		base = l.String()
	}
	return loc{base: base, key: key, hasKey: true, index: -1}
}

// elem returns the loc of element i of the array at l.
func (l loc) elem(i int) loc {
	if l.index >= 0 {
		return loc{base: l.String(), index: i}
	}
	l.index = i
	return l
}

// String renders l as a path.
func (l loc) String() string {
	p := l.base
	if l.hasKey {
		p = joinKey(p, l.key)
	}
	if l.index >= 0 {
		p = joinIndex(p, l.index)
	}
	return p
}
