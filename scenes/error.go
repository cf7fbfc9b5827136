package scenes

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a problem with a scene file: bad JSON syntax, a field of the
// wrong type, a value out of range, or a file that cannot be read. Every
// error returned by this package is an *Error.
type Error struct {
	File string // the file name given to Load or Parse; empty when unknown
	Line int    // 1-based line of the offending value; 0 when unknown
	// Col is the 1-based column of the offending value's first character
	// (counted in Unicode code points, a tab being one); 0 when unknown.
	Col  int
	Path string // JSON path of the offending value, e.g. objects[3].radius; empty for the whole file
	Msg  string // what is wrong, one line
	// Err is the underlying error (from the file system, say; for a
	// problem inside a mesh file, the importer's *Error naming its file
	// and line), or nil.
	Err error
}

// Error formats e as FILE:LINE:COL: PATH: MSG on one line, leaving out the
// parts that are empty or zero. FILE is quoted when it holds a character
// that is not printable, or a quote (see safeName).
func (e *Error) Error() string {
	var b strings.Builder
	loc := safeName(e.File) // a mesh's or image's name comes from the scene
	if e.Line > 0 {
		if loc != "" {
			loc += ":"
		}
		loc += strconv.Itoa(e.Line)
		if e.Col > 0 {
			loc += ":" + strconv.Itoa(e.Col)
		}
	}
	for _, part := range []string{loc, e.Path} {
		if part != "" {
			b.WriteString(part)
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error, so that errors.Is(err,
// fs.ErrNotExist) works on an error from Load.
func (e *Error) Unwrap() error { return e.Err }

// newError returns an *Error for the value at byte offset off of data.
func newError(file string, data []byte, off int, path, msg string) *Error {
	line, col := position(data, off)
	return &Error{File: file, Line: line, Col: col, Path: path, Msg: msg}
}

// utf8BOM is the byte order mark that some editors put at the start of a
// UTF-8 file; the parser skips it.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// position returns the 1-based line and column of byte offset off in data.
// Columns count Unicode code points; a leading byte order mark is not
// counted.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	if start == 0 && bytes.HasPrefix(before, utf8BOM) {
		start = len(utf8BOM)
	}
	return line, utf8.RuneCount(data[start:off]) + 1
}
