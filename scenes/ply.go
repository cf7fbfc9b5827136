package scenes

import (
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// PLY import (the Stanford polygon file format,
// http://paulbourke.net/dataformats/ply/): what scanners, MeshLab and
// Blender write, and the format of the Stanford models. The loader reads
//
//	ply
//	format ascii 1.0                (or binary_little_endian 1.0, binary_big_endian 1.0)
//	comment ..., obj_info ...       ignored
//	element NAME COUNT              any elements, in any order
//	property TYPE NAME              a scalar: char uchar short ushort int uint
//	                                float double, or int8 uint8 int16 uint16
//	                                int32 uint32 float32 float64
//	property list COUNT TYPE NAME   a list: a count of integer type COUNT, then
//	                                that many values of TYPE
//	end_header
//
// and of the body, the element "vertex" — x y z (required), nx ny nz (all
// three or none), a texture coordinate pair u v, s t, texture_u texture_v
// or texture_s texture_t (the first pair present; v runs up, as OBJ's vt:
// no flip), and a colour red green blue or diffuse_red diffuse_green
// diffuse_blue (uchar /255, ushort /65535, or float or double in [0, 1];
// sRGB, decoded to linear, as Blender's importer reads them) — and the
// element "face", whose list vertex_indices (or vertex_index) of any
// integer types gives a polygon's vertices, 0-based. Every other element
// and property is skipped. A "tristrips" element is refused. In an ASCII
// body each element is one line (blank lines are skipped); its values
// that trace does not read are not checked, but the counts of its lists.
//
// The faces are built as an OBJ file's are, by the OBJ reader's own code
// (objParser's vertex, triangulate and finish): a polygon of n vertices
// becomes n−2 triangles (a fan, or ear clipping for a concave one), and a
// file without normals gets computed smooth normals with a crease angle,
// as an OBJ file without vn and without s statements.
//
// The file is read whole. Its header is checked against its size before
// anything is allocated: the elements it announces must fit in the bytes
// after it (each value of a binary element takes its size, each value of
// an ASCII element at least two bytes, a face's list at least three
// values), and a list must fit in what is left of the file. The body is
// read by plyBinary or plyText (plybody.go). A malformed header or body, an index out of range, a
// value that is not finite or too large for float32, or a file that ends
// early is an error naming the file and, in the header or an ASCII body,
// the line; bytes after the last element are ignored with a warning.

// plyType is the type of a PLY value.
type plyType uint8

const (
	plyInt8 plyType = iota + 1
	plyUint8
	plyInt16
	plyUint16
	plyInt32
	plyUint32
	plyFloat32
	plyFloat64
)

// plyTypes are the PLY type names, the format's and their aliases.
var plyTypes = map[string]plyType{
	"char": plyInt8, "uchar": plyUint8, "short": plyInt16, "ushort": plyUint16,
	"int": plyInt32, "uint": plyUint32, "float": plyFloat32, "double": plyFloat64,
	"int8": plyInt8, "uint8": plyUint8, "int16": plyInt16, "uint16": plyUint16,
	"int32": plyInt32, "uint32": plyUint32, "float32": plyFloat32, "float64": plyFloat64,
}

// size is the bytes a value of type t takes in a binary body.
func (t plyType) size() int {
	return [...]int{plyInt8: 1, plyUint8: 1, plyInt16: 2, plyUint16: 2, plyInt32: 4, plyUint32: 4, plyFloat32: 4, plyFloat64: 8}[t]
}

// integer reports whether t is an integer type.
func (t plyType) integer() bool { return t < plyFloat32 }

// bounds returns the least and greatest values of integer type t.
func (t plyType) bounds() (lo, hi int64) {
	switch t {
	case plyInt8:
		return math.MinInt8, math.MaxInt8
	case plyUint8:
		return 0, math.MaxUint8
	case plyInt16:
		return math.MinInt16, math.MaxInt16
	case plyUint16:
		return 0, math.MaxUint16
	case plyInt32:
		return math.MinInt32, math.MaxInt32
	}
	return 0, math.MaxUint32
}

// plyRole is what trace reads a property as.
type plyRole uint8

const (
	plySkip plyRole = iota
	plyX
	plyY
	plyZ
	plyNX
	plyNY
	plyNZ
	plyU
	plyV
	plyRed
	plyGreen
	plyBlue
	plyIndices // the face's vertex list
	plyRoles
)

// plyUVNames are the names of texture coordinate pairs, in order of
// preference; plyColorNames those of colours.
var (
	plyUVNames    = [][2]string{{"u", "v"}, {"s", "t"}, {"texture_u", "texture_v"}, {"texture_s", "texture_t"}}
	plyColorNames = [][3]string{{"red", "green", "blue"}, {"diffuse_red", "diffuse_green", "diffuse_blue"}}
)

// plyProperty is a property of an element.
type plyProperty struct {
	name      string
	typ       plyType // a scalar's type, or a list's values'
	countType plyType // a list's count type; 0 for a scalar
	typName   string  // typ as the header writes it, for messages
	role      plyRole
	line      int // the header line
}

// plyElement is an element of the header: its name, how many the body
// holds, and their properties.
type plyElement struct {
	name  string
	count int
	props []plyProperty
	line  int
	// minSize is the least bytes one takes in the body: the sizes of
	// its scalars and list counts (binary), or two a value (ASCII).
	minSize int
	fixed   bool // a binary element of scalars only, of minSize bytes
}

// plyFormat is the encoding of a PLY body.
type plyFormat uint8

const (
	plyASCII plyFormat = iota
	plyLittleEndian
	plyBigEndian
)

// plyHeader is a PLY file's header.
type plyHeader struct {
	format   plyFormat
	elements []plyElement
	body     int // the offset of the body
	lines    int // the header's lines
}

// plyValues are the values of one element that trace reads: its scalars
// by role, and a face's vertex indices.
type plyValues struct {
	v    [plyRoles]float64
	list []int64
}

// loadPLY reads the PLY file at path, an absolute path from
// assets.resolve, computing the normals of a file without them with a
// crease of degrees. Its errors are *Error values naming the file.
func loadPLY(a *assets, path string, degrees float64) (*importedMesh, error) {
	data, err := a.read(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return parsePLY(a, path, data, creaseCosine(degrees))
}

// plyReader holds the state of one PLY file being read.
type plyReader struct {
	path string
	h    plyHeader

	positions []mgl32.Vec3
	normals   []mgl32.Vec3 // nil without nx ny nz
	uvs       []mgl32.Vec2 // nil without texture coordinates
	colors    []mgl32.Vec3 // nil without colours
	// The faces: face k's vertices are corners[ends[k-1]:ends[k]].
	corners   []uint32
	ends      []uint32
	triangles int
	nvertices int // the header's vertex count
}

// parsePLY parses data, the contents of the PLY file at path; creaseCos
// is the cosine of the crease angle of computed normals.
func parsePLY(a *assets, path string, data []byte, creaseCos float64) (*importedMesh, error) {
	r := &plyReader{path: path}
	if err := r.header(data); err != nil {
		return nil, err
	}
	var body plyBody
	switch r.h.format {
	case plyASCII:
		body = &plyText{r: r, data: data[r.h.body:], line: r.h.lines}
	case plyLittleEndian:
		body = &plyBinary{r: r, data: data, pos: r.h.body, order: binary.LittleEndian}
	default:
		body = &plyBinary{r: r, data: data, pos: r.h.body, order: binary.BigEndian}
	}
	for i := range r.h.elements {
		e := &r.h.elements[i]
		var err error
		switch e.name {
		case "vertex":
			err = r.vertices(body, e)
		case "face":
			err = r.faces(body, e)
		default:
			err = body.skip(e)
		}
		if err != nil {
			return nil, err
		}
	}
	if n, line := body.rest(); n > 0 {
		where := fmt.Sprintf("%d bytes after the last element", n)
		if line > 0 {
			where = fmt.Sprintf("the text from line %d on", line)
		}
		slog.Warn(fmt.Sprintf("%s: %s: ignored (the header's element counts may be wrong)", safeName(a.key(path)), where))
	}
	return r.build(a, creaseCos)
}

// errorf returns an error about the file at line (0: the file as a whole).
func (r *plyReader) errorf(line int, format string, args ...any) *Error {
	return &Error{File: r.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// header reads the header of data into r.h.
func (r *plyReader) header(data []byte) error {
	h := &r.h
	rest := data
	formatSeen := false
	var e *plyElement
	for line := 1; ; line++ {
		if len(rest) == 0 {
			return r.errorf(0, "the header has no end_header line")
		}
		var text []byte
		text, rest = cutLine(rest)
		kw, args := nextField(text)
		if line == 1 {
			if string(trimSpace(text)) != "ply" {
				return r.errorf(0, `not a PLY file: its first line is not "ply"`)
			}
			continue
		}
		switch string(kw) {
		case "", "comment", "obj_info":
		case "format":
			f, v := nextField(args)
			if formatSeen {
				return r.errorf(line, "a second format line")
			}
			switch string(f) {
			case "ascii":
				h.format = plyASCII
			case "binary_little_endian":
				h.format = plyLittleEndian
			case "binary_big_endian":
				h.format = plyBigEndian
			default:
				return r.errorf(line, "format %s: expected ascii, binary_little_endian or binary_big_endian", quote(string(f)))
			}
			if v := string(trimSpace(v)); v != "1.0" {
				return r.errorf(line, "format version %s: only 1.0 is read", quote(v))
			}
			formatSeen = true
		case "element":
			name, n := nextField(args)
			count, err := strconv.ParseUint(string(trimSpace(n)), 10, 63)
			if len(name) == 0 || err != nil {
				return r.errorf(line, "element: expected a name and a count, found %s", quote(string(trimSpace(args))))
			}
			for _, x := range h.elements {
				if x.name == string(name) && (x.name == "vertex" || x.name == "face") {
					return r.errorf(line, "a second element %s", quote(x.name))
				}
			}
			if string(name) == "tristrips" {
				return r.errorf(line, "element tristrips: triangle strips are not read; convert them to faces (MeshLab, Blender)")
			}
			h.elements = append(h.elements, plyElement{name: string(name), count: int(min(count, math.MaxInt32+1)), line: line})
			e = &h.elements[len(h.elements)-1]
		case "property":
			if e == nil {
				return r.errorf(line, "a property before any element")
			}
			p, msg := plyPropertyLine(args)
			if msg != "" {
				return r.errorf(line, "property: %s", msg)
			}
			p.line = line
			for _, q := range e.props {
				if q.name == p.name {
					return r.errorf(line, "element %s: a second property %s", e.name, quote(p.name))
				}
			}
			e.props = append(e.props, p)
		case "end_header":
			if !formatSeen {
				return r.errorf(line, "end_header before any format line")
			}
			h.body, h.lines = len(data)-len(rest), line
			return r.checkHeader(len(rest))
		default:
			return r.errorf(line, "unknown header line %s", quote(string(text)))
		}
	}
}

// plyPropertyLine reads the arguments of a property line. It returns a
// message saying what is wrong with them, or "".
func plyPropertyLine(args []byte) (plyProperty, string) {
	var p plyProperty
	f, args := nextField(args)
	if string(f) == "list" {
		c, rest := nextField(args)
		ct, ok := plyTypes[string(c)]
		if !ok || !ct.integer() {
			return p, fmt.Sprintf("list count type %s is not a PLY integer type", quote(string(c)))
		}
		p.countType = ct
		f, args = nextField(rest)
	}
	t, ok := plyTypes[string(f)]
	if !ok {
		return p, fmt.Sprintf("type %s is not a PLY type (char, uchar, short, ushort, int, uint, float, double)", quote(string(f)))
	}
	name, extra := nextField(args)
	if len(name) == 0 || len(trimSpace(extra)) > 0 {
		return p, fmt.Sprintf("expected [list COUNT] TYPE NAME, found %s", quote(string(trimSpace(args))))
	}
	p.typ, p.typName, p.name = t, string(f), string(name)
	return p, ""
}

// checkHeader gives the properties of the vertex and face elements their
// roles, and checks that the elements fit in the rest bytes of the body.
func (r *plyReader) checkHeader(rest int) error {
	budget := int64(rest)
	if r.h.format == plyASCII {
		budget++ // the last line may lack its newline
	}
	for i := range r.h.elements {
		e := &r.h.elements[i]
		if err := r.roles(e); err != nil {
			return err
		}
		e.fixed = r.h.format != plyASCII
		for _, p := range e.props {
			// A face's list has at least 3 values, or it is an error.
			least := 0
			if p.role == plyIndices {
				least = 3
			}
			switch {
			case r.h.format == plyASCII:
				e.minSize += 2 + 2*least
			case p.countType != 0:
				e.minSize += p.countType.size() + least*p.typ.size()
				e.fixed = false
			default:
				e.minSize += p.typ.size()
			}
		}
		if e.minSize > 0 && int64(e.count) > budget/int64(e.minSize) {
			return r.errorf(e.line, "element %s: %d elements of at least %d bytes each do not fit in the %d bytes of the file after its header (less the elements before them)",
				e.name, e.count, e.minSize, rest)
		}
		budget -= int64(e.count) * int64(e.minSize)
		switch {
		case e.name == "vertex" && e.count > 3*tracer.MaxTriangles:
			return r.errorf(e.line, "element vertex: more than %d vertices (3·MaxTriangles)", 3*tracer.MaxTriangles)
		case e.name == "face" && e.count > tracer.MaxTriangles:
			return r.errorf(e.line, "element face: more than %d faces (MaxTriangles)", tracer.MaxTriangles)
		case e.name == "vertex":
			r.nvertices = e.count
		}
	}
	return nil
}

// roles sets the roles of the properties of e that trace reads.
func (r *plyReader) roles(e *plyElement) error {
	find := func(name string) *plyProperty {
		for i := range e.props {
			if e.props[i].name == name {
				return &e.props[i]
			}
		}
		return nil
	}
	// set gives the properties names the roles from first on, all or
	// none: it returns an error when some are missing or lists, or
	// when required and none are there.
	set := func(first plyRole, required bool, names ...string) (bool, error) {
		var found, missing []string
		for _, n := range names {
			if find(n) == nil {
				missing = append(missing, n)
			} else {
				found = append(found, n)
			}
		}
		switch {
		case len(found) == 0 && !required:
			return false, nil
		case len(found) == 0:
			return false, r.errorf(e.line, "element %s: no properties %s", e.name, quoteList(missing))
		case len(missing) > 0:
			return false, r.errorf(e.line, "element %s: property %s without %s", e.name, quoteList(found), quoteList(missing))
		}
		for k, n := range names {
			p := find(n)
			if p.countType != 0 {
				return false, r.errorf(p.line, "element %s: property %s is a list, not a number", e.name, quote(n))
			}
			p.role = first + plyRole(k)
		}
		return true, nil
	}
	switch e.name {
	case "vertex":
		if _, err := set(plyX, true, "x", "y", "z"); err != nil {
			return err
		}
		if _, err := set(plyNX, false, "nx", "ny", "nz"); err != nil {
			return err
		}
		for _, uv := range plyUVNames {
			if ok, err := set(plyU, false, uv[0], uv[1]); ok || err != nil {
				if err != nil {
					return err
				}
				break
			}
		}
		for _, c := range plyColorNames {
			ok, err := set(plyRed, false, c[0], c[1], c[2])
			if err != nil {
				return err
			}
			if ok {
				for _, n := range c {
					if p := find(n); p.typ != plyUint8 && p.typ != plyUint16 && p.typ.integer() {
						return r.errorf(p.line, "element vertex: property %s is %s; a colour is uchar, ushort, float or double", quote(n), p.typName)
					}
				}
				break
			}
		}
	case "face":
		p := find("vertex_indices")
		if p == nil {
			p = find("vertex_index")
		}
		switch {
		case p == nil:
			return r.errorf(e.line, `element face: no property "vertex_indices" (or "vertex_index")`)
		case p.countType == 0:
			return r.errorf(p.line, "element face: property %s is not a list", quote(p.name))
		case !p.typ.integer():
			return r.errorf(p.line, "element face: property %s holds %s values, not integers", quote(p.name), p.typName)
		}
		p.role = plyIndices
	}
	return nil
}

// vertices reads the vertex element e.
func (r *plyReader) vertices(body plyBody, e *plyElement) error {
	roles := map[plyRole]bool{}
	for _, p := range e.props {
		roles[p.role] = true
	}
	r.positions = make([]mgl32.Vec3, e.count)
	if roles[plyNX] {
		r.normals = make([]mgl32.Vec3, e.count)
	}
	if roles[plyU] {
		r.uvs = make([]mgl32.Vec2, e.count)
	}
	if roles[plyRed] {
		r.colors = make([]mgl32.Vec3, e.count)
	}
	var scale [3]float64 // turns each colour value of its type into [0, 1]
	for _, p := range e.props {
		if p.role >= plyRed && p.role <= plyBlue {
			scale[p.role-plyRed] = 1
			switch p.typ {
			case plyUint8:
				scale[p.role-plyRed] = 1.0 / 255
			case plyUint16:
				scale[p.role-plyRed] = 1.0 / 65535
			}
		}
	}
	var vals plyValues
	for i := range e.count {
		if err := body.element(e, i, &vals); err != nil {
			return err
		}
		v := &vals.v
		msg := plyFloats("position", v[plyX], v[plyY], v[plyZ])
		r.positions[i] = mgl32.Vec3{float32(v[plyX]), float32(v[plyY]), float32(v[plyZ])}
		if msg == "" && r.normals != nil {
			msg = plyFloats("normal", v[plyNX], v[plyNY], v[plyNZ])
			r.normals[i] = mgl32.Vec3{float32(v[plyNX]), float32(v[plyNY]), float32(v[plyNZ])}
		}
		if msg == "" && r.uvs != nil {
			msg = plyFloats("texture coordinate", v[plyU], v[plyV])
			r.uvs[i] = mgl32.Vec2{float32(v[plyU]), float32(v[plyV])}
		}
		if msg == "" && r.colors != nil {
			var c [3]float32
			for k := range 3 {
				x := v[plyRed+plyRole(k)] * scale[k]
				if !(x >= 0 && x <= 1) {
					msg = fmt.Sprintf("colour %g %g %g is outside [0, 1]", v[plyRed], v[plyGreen], v[plyBlue])
				}
				c[k] = float32(x)
			}
			r.colors[i] = blenderColor(c) // sRGB, as Blender reads it
		}
		if msg != "" {
			return r.valueError(body, e, i, msg)
		}
	}
	return nil
}

// valueError is the error msg about element i of e, just read from body.
func (r *plyReader) valueError(body plyBody, e *plyElement, i int, msg string) error {
	line := 0
	if t, ok := body.(*plyText); ok {
		line = t.line
	}
	return r.errorf(line, "%s %d: %s", e.name, i, msg)
}

// plyFloats returns "", or a message saying that the what, of values xs,
// is not finite or too large for float32.
func plyFloats(what string, xs ...float64) string {
	for _, x := range xs {
		if !(math.Abs(x) <= math.MaxFloat32) {
			text := fmt.Sprint(xs)
			text = text[1 : len(text)-1]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Sprintf("%s %s is not finite", what, text)
			}
			return fmt.Sprintf("%s %s is too large for float32", what, text)
		}
	}
	return ""
}

// faces reads the face element e, checking each vertex index against the
// header's vertex count.
func (r *plyReader) faces(body plyBody, e *plyElement) error {
	r.ends = make([]uint32, 0, e.count) // checkHeader bounded the count by the file's size
	r.corners = make([]uint32, 0, 3*e.count)
	var vals plyValues
	for i := range e.count {
		if err := body.element(e, i, &vals); err != nil {
			return err
		}
		n := len(vals.list)
		if n < 3 {
			return r.valueError(body, e, i, fmt.Sprintf("a face needs at least 3 vertices, found %d", n))
		}
		if r.triangles += n - 2; r.triangles > tracer.MaxTriangles {
			return r.valueError(body, e, i, fmt.Sprintf("more than %d triangles", tracer.MaxTriangles))
		}
		for _, k := range vals.list {
			if k < 0 || k >= int64(r.nvertices) {
				return r.valueError(body, e, i, fmt.Sprintf("vertex index %d is out of range: the file has %d %s", k, r.nvertices, plural(r.nvertices, "vertex")))
			}
			r.corners = append(r.corners, uint32(k))
		}
		r.ends = append(r.ends, uint32(len(r.corners)))
	}
	return nil
}

// build makes the mesh with the OBJ reader's code, as an OBJ file of the
// same vertices and faces, each vertex with its texture coordinate and
// normal, if any, would be: its faces triangulated, and its normals
// computed with the crease whose cosine is creaseCos when it has none.
func (r *plyReader) build(a *assets, creaseCos float64) (*importedMesh, error) {
	p := newOBJParser(a, r.path)
	p.creaseCos = creaseCos
	p.positions, p.texcoords, p.normals, p.colors = r.positions, r.uvs, r.normals, r.colors
	p.anyUV, p.noNormals = r.uvs != nil, r.normals == nil
	p.head = make([]int32, len(r.positions))
	for i := range p.head {
		p.head[i] = -1
	}
	p.verts = make([]objVertex, 0, len(r.positions))
	p.indices = make([]uint32, 0, 3*r.triangles)
	start := uint32(0)
	for _, end := range r.ends {
		p.face = p.face[:0]
		for _, k := range r.corners[start:end] {
			vt, vn := int32(-1), int32(-1)
			if r.uvs != nil {
				vt = int32(k)
			}
			if r.normals != nil {
				vn = int32(k)
			}
			p.face = append(p.face, p.vertex(int32(k), vt, vn))
		}
		p.triangulate()
		start = end
	}
	r.corners, r.ends = nil, nil
	return p.finish()
}
