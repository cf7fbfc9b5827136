package scenes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// STL import: the triangle soups of CAD and 3D printing. Two encodings:
//
//   - binary: an 80-byte header (ignored), a little-endian uint32 count of
//     facets, then per facet 50 bytes: a normal and three vertices, 12
//     float32s, and a 2-byte attribute count (ignored; some tools keep a
//     colour there, which is not read);
//   - ASCII: "solid NAME", then facets of the form
//
//     facet normal nx ny nz
//     outer loop
//     vertex x y z    (three times)
//     endloop
//     endfacet
//
//     and "endsolid NAME"; several solids may follow one another.
//     Keywords are read in any case.
//
// A file is binary when its size is exactly 84 + 50 × its count (whatever
// its first bytes: many binary files' headers begin with "solid"), else
// ASCII when it begins with "solid", else binary. Bytes after a binary
// file's facets are ignored, with a warning.
//
// Each facet is a triangle of three vertices of its own, drawn flat:
// the mesh has no normals, so that each triangle's normal is that of its
// vertices' winding (counter-clockwise seen from the front, as STL
// specifies), as trace draws a flat triangle. The facet normal is not
// read, as Blender and MeshLab ignore it on import (they recompute it
// from the winding; exporters often write zero or stale normals). STL
// has no units: the coordinates are taken as scene units (usually
// millimetres for 3D printing; scale the object to suit), and no
// materials, colours or texture coordinates: the object's material
// applies.

// loadSTL reads the STL file at path, an absolute path from
// assets.resolve. Its errors are *Error values naming the file, and for
// an ASCII file the line.
func loadSTL(a *assets, path string) (*importedMesh, error) {
	data, err := a.read(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return parseSTL(a, path, data)
}

// stlFacetSize is the bytes of a binary STL facet; stlHeaderSize those
// before the first.
const (
	stlFacetSize  = 50
	stlHeaderSize = 84
)

// parseSTL parses data, the contents of the STL file at path.
func parseSTL(a *assets, path string, data []byte) (*importedMesh, error) {
	var positions []mgl32.Vec3
	var err error
	if binarySTL(data) {
		positions, err = readBinarySTL(a, path, data)
	} else {
		positions, err = readTextSTL(path, data)
	}
	if err != nil {
		return nil, err
	}
	if len(positions) == 0 {
		return nil, &Error{File: path, Msg: "the file holds no facets"}
	}
	indices := make([]uint32, len(positions))
	for i := range indices {
		indices[i] = uint32(i)
	}
	return &importedMesh{meshes: []tracer.MeshDesc{{Positions: positions, Indices: indices, Material: -1}}}, nil
}

// binarySTL reports whether data is a binary STL file: its size is that
// of the facets its count announces, or it does not begin with "solid"
// (after a UTF-8 byte order mark, as readTextSTL reads it).
func binarySTL(data []byte) bool {
	if len(data) >= stlHeaderSize {
		n := uint64(binary.LittleEndian.Uint32(data[80:]))
		if stlHeaderSize+stlFacetSize*n == uint64(len(data)) {
			return true
		}
	}
	kw, _ := nextField(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n"))
	return !bytes.EqualFold(kw, []byte("solid"))
}

// readBinarySTL returns the vertices of the facets of the binary STL
// file data, three a facet.
func readBinarySTL(a *assets, path string, data []byte) ([]mgl32.Vec3, error) {
	if len(data) < stlHeaderSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("a binary STL file is at least %d bytes; this one is %d", stlHeaderSize, len(data))}
	}
	n := int64(binary.LittleEndian.Uint32(data[80:]))
	if have := int64(len(data)-stlHeaderSize) / stlFacetSize; n > have {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the header gives %d facets, but the file is %d bytes, room for %d", n, len(data), have)}
	}
	if n > tracer.MaxTriangles {
		return nil, &Error{File: path, Msg: fmt.Sprintf("more than %d triangles", tracer.MaxTriangles)}
	}
	if extra := int64(len(data)) - stlHeaderSize - stlFacetSize*n; extra > 0 {
		slog.Warn(fmt.Sprintf("%s: %d bytes after the last of the %d facets: ignored", safeName(a.key(path)), extra, n))
	}
	positions := make([]mgl32.Vec3, 3*n)
	for i := range int(n) {
		f := data[stlHeaderSize+stlFacetSize*i+12:] // past the normal
		for k := range 3 {
			var v mgl32.Vec3
			for c := range 3 {
				v[c] = math.Float32frombits(binary.LittleEndian.Uint32(f[4*(3*k+c):]))
			}
			if !finite(v[0]) || !finite(v[1]) || !finite(v[2]) {
				return nil, &Error{File: path, Msg: fmt.Sprintf("facet %d: vertex %d, %g %g %g, is not finite", i, k, v[0], v[1], v[2])}
			}
			positions[3*i+k] = v
		}
	}
	return positions, nil
}

// stlText reads the lines of an ASCII STL file.
type stlText struct {
	path string
	data []byte
	line int // the line last read
}

// next returns the keyword and the rest of the next line that is not
// blank, or an empty keyword at the end of the file.
func (t *stlText) next() (kw, rest []byte) {
	for len(t.data) > 0 {
		var line []byte
		line, t.data = cutLine(t.data)
		t.line++
		if kw, rest = nextField(line); len(kw) > 0 {
			return kw, rest
		}
	}
	return nil, nil
}

// errorf returns an error at the line last read.
func (t *stlText) errorf(format string, args ...any) *Error {
	return &Error{File: t.path, Line: t.line, Msg: fmt.Sprintf(format, args...)}
}

// expect reads the next line, which must begin with the keyword want,
// and returns what follows it.
func (t *stlText) expect(want string) ([]byte, error) {
	kw, rest := t.next()
	switch {
	case len(kw) == 0:
		return nil, &Error{File: t.path, Msg: fmt.Sprintf("the file ends before %s", want)}
	case !bytes.EqualFold(kw, []byte(want)):
		return nil, t.errorf("expected %s, found %s", want, quote(string(kw)))
	}
	return rest, nil
}

// readTextSTL returns the vertices of the facets of the ASCII STL file
// data, three a facet.
func readTextSTL(path string, data []byte) ([]mgl32.Vec3, error) {
	t := &stlText{path: path, data: bytes.TrimPrefix(data, utf8BOM)}
	if _, err := t.expect("solid"); err != nil {
		return nil, err
	}
	var positions []mgl32.Vec3
	for {
		kw, rest := t.next()
		switch {
		case len(kw) == 0:
			return nil, &Error{File: path, Msg: "the file ends before endsolid"}
		case bytes.EqualFold(kw, []byte("endsolid")):
			if kw, _ = t.next(); len(kw) == 0 {
				return positions, nil
			}
			if !bytes.EqualFold(kw, []byte("solid")) {
				return nil, t.errorf("expected solid or the end of the file, found %s", quote(string(kw)))
			}
			continue
		case !bytes.EqualFold(kw, []byte("facet")):
			return nil, t.errorf("expected facet or endsolid, found %s", quote(string(kw)))
		}
		// The facet normal is not read (see above).
		if f, _ := nextField(rest); !bytes.EqualFold(f, []byte("normal")) {
			return nil, t.errorf("expected facet normal, found facet %s", quote(string(f)))
		}
		if len(positions) >= 3*tracer.MaxTriangles {
			return nil, t.errorf("more than %d triangles", tracer.MaxTriangles)
		}
		rest, err := t.expect("outer")
		if err != nil {
			return nil, err
		}
		if f, _ := nextField(rest); !bytes.EqualFold(f, []byte("loop")) {
			return nil, t.errorf("expected outer loop, found outer %s", quote(string(f)))
		}
		for range 3 {
			rest, err := t.expect("vertex")
			if err != nil {
				return nil, err
			}
			var v [3]float32
			if _, msg := numbers(rest, v[:], 3, "vertex", "x y z"); msg != "" {
				return nil, t.errorf("%s", msg)
			}
			positions = append(positions, v)
		}
		if kw, _ := t.next(); !bytes.EqualFold(kw, []byte("endloop")) {
			if bytes.EqualFold(kw, []byte("vertex")) {
				return nil, t.errorf("a facet of more than 3 vertices: STL facets are triangles")
			}
			if len(kw) == 0 {
				return nil, &Error{File: path, Msg: "the file ends before endloop"}
			}
			return nil, t.errorf("expected endloop, found %s", quote(string(kw)))
		}
		if _, err := t.expect("endfacet"); err != nil {
			return nil, err
		}
	}
}
