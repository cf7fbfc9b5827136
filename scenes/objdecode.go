package scenes

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// An OBJ file is read in two stages (objstream.go): its text, cut into
// chunks at statement boundaries, is decoded on every core — statements
// recognised, numbers and indices read (decodeOBJ) — and the decoded
// chunks are then applied in file order by one goroutine, which resolves
// the indices, builds the vertices and triangulates the faces
// (objParser.apply). Whatever depends on what came before in the file (an
// index's range, a relative index, the current material) is left to the
// second stage, so the mesh, and the first error, are those of reading the
// file statement by statement, however it is cut.

// objOpKind is the kind of a decoded statement.
type objOpKind uint8

const (
	objOpV      objOpKind = iota // v: floats[a:a+3]
	objOpVColor                  // v x y z r g b: floats[a:a+6]
	objOpVT                      // vt: floats[a:a+2]
	objOpVN                      // vn: floats[a:a+3]
	objOpF                       // f: refs[a:b], three per vertex
	objOpFBad                    // an f whose refs[a:b] end where an error (the next op) was found
	objOpUsemtl                  // usemtl: the name names[a:b], empty for none
	objOpS                       // s: group uint32(a)
	objOpMtllib                  // one file name of an mtllib, names[a:b]
	objOpErr                     // an error: msgs[a]
)

// objOp is one decoded statement: its kind, its first line (counted from
// the chunk's first line, 1) and its operands.
type objOp struct {
	kind objOpKind
	line int32
	a, b int32
}

// objAbsent is a face vertex's vt or vn that the file does not give.
const objAbsent = math.MinInt32

// objRefMax bounds the magnitude of a decoded index: past any count of
// elements (at most tracer.MaxTriangles), so the range check refuses it.
const objRefMax = math.MaxInt32

// objChunk is a chunk of an OBJ file, decoded.
type objChunk struct {
	lines  int // the chunk's lines
	ops    []objOp
	floats []float32
	// refs are the face vertices' indices as written, three per vertex
	// (v, vt, vn): 1-based, or negative (relative), 0 for a 0, or
	// objAbsent; clamped to ±objRefMax. texts holds, by position in
	// refs, those whose text is not what strconv.Itoa gives ("+1",
	// "007", a clamped one), for messages.
	refs  []int32
	texts map[int]string
	names []byte
	msgs  []string
}

// reset empties c for reuse.
func (c *objChunk) reset() {
	*c = objChunk{ops: c.ops[:0], floats: c.floats[:0], refs: c.refs[:0], names: c.names[:0]}
}

// decodeOBJ decodes data, whole statements of an OBJ file (the file's
// first chunk without its byte order mark), into c. It stops at the first
// error, which is c's last op.
func decodeOBJ(c *objChunk, data []byte) {
	c.reset()
	next := 0 // the number of the next line to read
	var joined []byte
	for len(data) > 0 {
		var line []byte
		line, data = cutLine(data)
		next++
		first := next
		if bytes.HasSuffix(line, []byte{'\\'}) {
			// Continuation lines: rare, so they may allocate.
			joined = append(joined[:0], line[:len(line)-1]...)
			for len(data) > 0 {
				line, data = cutLine(data)
				next++
				joined = append(append(joined, ' '), line...)
				if !bytes.HasSuffix(joined, []byte{'\\'}) {
					break
				}
				joined = joined[:len(joined)-1]
			}
			line = bytes.TrimSuffix(joined, []byte{'\\'})
		}
		if !c.statement(line, int32(first)) {
			break
		}
	}
	c.lines = next
}

// fail appends an error at line and returns false.
func (c *objChunk) fail(line int32, format string, args ...any) bool {
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...))
	c.ops = append(c.ops, objOp{kind: objOpErr, line: line, a: int32(len(c.msgs) - 1)})
	return false
}

// statement decodes one statement. It returns false after an error.
func (c *objChunk) statement(line []byte, at int32) bool {
	kw, rest := nextField(line)
	if len(kw) == 0 || kw[0] == '#' {
		return true
	}
	op := objOp{line: at, a: int32(len(c.floats))}
	switch string(kw) {
	case "v":
		var xyz [7]float32
		n, msg := numbers(rest, xyz[:], 3, "v", "x y z [w]")
		if msg != "" {
			return c.fail(at, "%s", msg)
		}
		op.kind = objOpV
		if n == 6 {
			op.kind = objOpVColor
			c.floats = append(c.floats, xyz[:6]...)
		} else {
			c.floats = append(c.floats, xyz[:3]...)
		}
	case "vt":
		var uvw [3]float32
		if _, msg := numbers(rest, uvw[:], 1, "vt", "u [v [w]]"); msg != "" {
			return c.fail(at, "%s", msg)
		}
		op.kind = objOpVT
		c.floats = append(c.floats, uvw[:2]...)
	case "vn":
		var xyz [3]float32
		if _, msg := numbers(rest, xyz[:], 3, "vn", "x y z"); msg != "" {
			return c.fail(at, "%s", msg)
		}
		op.kind = objOpVN
		c.floats = append(c.floats, xyz[:]...)
	case "f", "fo":
		return c.face(rest, at)
	case "usemtl":
		name := trimSpace(rest)
		op.kind, op.a = objOpUsemtl, int32(len(c.names))
		c.names = append(c.names, name...)
		op.b = int32(len(c.names))
	case "s":
		g, msg := smoothingGroup(rest)
		if msg != "" {
			return c.fail(at, "%s", msg)
		}
		op.kind, op.a = objOpS, int32(g)
	case "mtllib":
		for {
			var name []byte
			name, rest = nextField(rest)
			if len(name) == 0 {
				break
			}
			start := int32(len(c.names))
			c.names = append(c.names, name...)
			c.ops = append(c.ops, objOp{kind: objOpMtllib, line: at, a: start, b: int32(len(c.names))})
		}
		return true
	default:
		return true // o, g, l, p, ... and anything else: ignored
	}
	c.ops = append(c.ops, op)
	return true
}

// face decodes the vertices of an f statement: v, v/vt, v//vn or
// v/vt/vn (or v/vt/ or v//, read as v/vt and v). A malformed vertex ends
// the face with an objOpFBad op, followed by the error.
func (c *objChunk) face(rest []byte, at int32) bool {
	op := objOp{kind: objOpF, line: at, a: int32(len(c.refs))}
	bad := ""
	for bad == "" {
		var f []byte
		f, rest = nextField(rest)
		if len(f) == 0 || f[0] == '#' {
			break
		}
		part, f, more := cutByte(f, '/')
		if bad = c.ref(part, "vertex"); bad != "" || !more {
			if bad == "" {
				c.refs = append(c.refs, objAbsent, objAbsent)
			}
			continue
		}
		part, f, more = cutByte(f, '/')
		if len(part) == 0 {
			c.refs = append(c.refs, objAbsent)
		} else if bad = c.ref(part, "texture coordinate"); bad != "" {
			continue
		}
		if !more {
			c.refs = append(c.refs, objAbsent)
			continue
		}
		part, _, more = cutByte(f, '/')
		switch {
		case more:
			bad = "f: malformed face vertex: expected v, v/vt, v//vn or v/vt/vn"
		case len(part) == 0:
			c.refs = append(c.refs, objAbsent) // v/vt/ or v//: some exporters end every vertex in a slash
		default:
			bad = c.ref(part, "normal")
		}
	}
	op.b = int32(len(c.refs))
	if bad != "" {
		op.kind = objOpFBad
		c.ops = append(c.ops, op)
		return c.fail(at, "%s", bad)
	}
	c.ops = append(c.ops, op)
	return true
}

// ref decodes an index of a face vertex, 1-based or, when negative,
// relative, onto refs; what names the element ("vertex") for messages.
// It returns a message saying what is wrong with it, or "".
func (c *objChunk) ref(b []byte, what string) string {
	neg := false
	digits := b
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return fmt.Sprintf("f: malformed %s index %s", what, quote(string(b)))
	}
	n := int64(0)
	for _, d := range digits {
		if d < '0' || d > '9' {
			return fmt.Sprintf("f: malformed %s index %s", what, quote(string(b)))
		}
		if n < 1<<40 { // past any count; keeps n from overflowing
			n = n*10 + int64(d-'0')
		}
	}
	canonical := b[0] != '+' && (digits[0] != '0' || len(digits) == 1)
	n = min(n, objRefMax)
	if neg {
		n = -n
	}
	if !canonical || n == objRefMax || n == -objRefMax {
		if c.texts == nil {
			c.texts = map[int]string{}
		}
		c.texts[len(c.refs)] = string(b)
	}
	c.refs = append(c.refs, int32(n))
	return ""
}

// numbers reads the fields of rest, up to a comment, into out: at least
// min of them, at most len(out). It returns how many it read, or a
// message saying what is wrong. stmt and form name the statement and its
// syntax for messages.
func numbers(rest []byte, out []float32, min int, stmt, form string) (int, string) {
	n := 0
	for {
		var f []byte
		f, rest = nextField(rest)
		if len(f) == 0 || f[0] == '#' {
			break
		}
		if n == len(out) {
			return n, fmt.Sprintf("%s: too many numbers: expected %s", stmt, form)
		}
		x, err := parseFloat32(f)
		if err != "" {
			return n, fmt.Sprintf("%s: %s", stmt, err)
		}
		out[n] = x
		n++
	}
	if n < min {
		return n, fmt.Sprintf("%s: expected %s, found %d numbers", stmt, form, n)
	}
	return n, ""
}

// refText is the text of refs[i] of c as the file writes it.
func (c *objChunk) refText(i int) string {
	if s, ok := c.texts[i]; ok {
		return s
	}
	return strconv.Itoa(int(c.refs[i]))
}
