package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// Wavefront OBJ import. The loader reads the polygonal subset that
// modelling tools write:
//
//	v x y z [w]           a position (w, and the vertex colours some tools
//	                      append as x y z r g b, are read and ignored)
//	vt u [v [w]]          a texture coordinate (v defaults to 0; w is ignored)
//	vn x y z              a normal (normalised when the mesh is built)
//	f v1 v2 v3 ...        a face of 3 or more vertices, each v, v/vt, v//vn or
//	                      v/vt/vn (v/vt/ and v// are read as v/vt and v);
//	                      indices start at 1, negative ones count
//	                      back from the last element read (-1 is the last)
//	usemtl NAME           the material of the faces that follow
//	mtllib FILE...        material libraries (see mtl.go), relative to the
//	                      OBJ file's folder; one that does not exist is a
//	                      warning (log/slog), its materials undescribed;
//	                      names that, joined by spaces, name a file are
//	                      that one file (Blender's "mtllib my model.mtl")
//	o, g, s, l, p, ...    accepted and ignored, as is any other statement
//
// A face of n vertices becomes n−2 triangles: a fan around its first
// vertex when it is convex, else those of ear clipping in its dominant
// plane (triangulate), so that a concave face (an L, a ring with a seam)
// keeps its shape. File names (mtllib, and the maps of an MTL file) may
// use "\" as a separator (assetName). A line ending in a backslash
// continues on the next line, and "#" starts a comment. A malformed
// statement that the loader reads (a bad number, an index that is 0 or
// out of range, a face of fewer than three vertices, a value that is NaN,
// infinite or too large for float32) is an error naming the file and
// line. The file is read a chunk at a time, not whole, and decoded on
// every core (objstream.go, objdecode.go), to the mesh and the first
// error of reading it statement by statement.

// loadOBJ reads the OBJ file at path, an absolute path from assets.resolve,
// with its material libraries. Its errors are *Error values whose File is
// the OBJ (or MTL) file and whose Line is the offending line.
func loadOBJ(a *assets, path string) (*importedMesh, error) {
	return loadOBJCrease(a, path, objCreaseDegrees)
}

// loadOBJCrease is loadOBJ with a crease angle of degrees for computed
// normals in a file without smoothing groups.
func loadOBJCrease(a *assets, path string, degrees float64) (*importedMesh, error) {
	t, err := a.openText(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer t.close()
	p := newOBJParser(a, path)
	p.creaseCos = creaseCosine(degrees)
	return p.parse(t)
}

// objVertex is one distinct (v, vt, vn) triple of a face: a vertex of the
// built mesh. vt and vn are −1 when the face gives none; next links the
// vertices that share v, newest first.
type objVertex struct {
	v, vt, vn, next int32
}

// objLibrary is an mtllib file name and the line that names it.
type objLibrary struct {
	name string
	line int
}

// objParser holds the state of one OBJ file being read. The PLY reader
// fills one too (plyReader.build), to build its faces into a mesh as an
// OBJ file's are.
type objParser struct {
	a    *assets
	path string
	line int // the line of the statement being read, 1-based
	// creaseCos is the cosine of the crease angle for files without
	// smoothing groups (objCreaseCos unless the scene object sets one).
	creaseCos float64

	positions []mgl32.Vec3
	texcoords []mgl32.Vec2
	normals   []mgl32.Vec3

	// verts are the built mesh's vertices; head[v] is the newest vertex
	// made from position v, or −1. Following the chain from head finds a
	// (v, vt, vn) triple without hashing: chains are as long as the
	// number of distinct (vt, vn) pairs that one position has, one to a
	// few.
	verts []objVertex
	// colors are the positions' vertex colours (v x y z r g b), nil
	// until one has a colour (the others are white).
	colors []mgl32.Vec3
	// blender is true for a file that Blender wrote (objblender.go),
	// whose vertex colours are sRGB.
	blender   bool
	head      []int32
	indices   []uint32
	anyUV     bool // some face vertex has a vt
	noNormals bool // some face vertex has no vn

	// Materials: matNames are the usemtl names that faces use, in order of
	// first use; mat is the current one (an index into matNames, or −1).
	// A usemtl sets pending (and pendingLine, its line), and the name is
	// looked up at the next face, so a name that no face uses is not
	// imported; matLines[k] is the line of the usemtl that first gave
	// matNames[k] to a face.
	matNames    []string
	matLines    []int
	matIndex    map[string]int32
	mat         int32
	pending     bool
	pendingName []byte
	pendingLine int
	triMats     []int32 // one per triangle; nil while no face has a material
	libraries   []objLibrary

	face []uint32 // the vertices of the face being read
	ear  earClipper

	// Smoothing groups (objnormals.go): group is the current one (0:
	// off), anyGroup whether any s statement was read, triGroups the
	// group of each triangle (nil while every one is 0; see groupOf).
	group     uint32
	anyGroup  bool
	triGroups []uint32
}

// parseOBJ parses data, the contents of the OBJ file at path.
func parseOBJ(a *assets, path string, data []byte) (*importedMesh, error) {
	return newOBJParser(a, path).parse(&objText{data: data})
}

// newOBJParser returns a parser for the OBJ file at path.
func newOBJParser(a *assets, path string) *objParser {
	return &objParser{a: a, path: path, mat: -1, matIndex: map[string]int32{}, creaseCos: objCreaseCos}
}

// parse reads the text t (see objstream.go) and builds the mesh.
func (p *objParser) parse(t *objText) (*importedMesh, error) {
	if err := p.read(t); err != nil {
		return nil, err
	}
	p.line = 0
	return p.finish()
}

// reserve sizes the parser's arrays for the statements of t, so that
// a large file is not copied over and over as they grow. Only lines long
// enough to be valid statements count, which keeps what is reserved
// within a small multiple of the file's size whatever it holds.
func (p *objParser) reserve(t *objText) error {
	var nv, nvt, nvn, nf int
	err := t.chunks(func(chunk []byte) bool {
		for data := chunk; len(data) > 0; {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				i = len(data)
			}
			line := data[:i]
			data = data[min(i+1, len(data)):]
			if len(line) < 4 {
				continue
			}
			switch {
			case line[0] == 'v' && isSpace(line[1]) && len(line) >= 7: // v 0 0 0
				nv++
			case line[0] == 'v' && line[1] == 't' && isSpace(line[2]): // vt 0
				nvt++
			case line[0] == 'v' && line[1] == 'n' && isSpace(line[2]) && len(line) >= 8: // vn 0 0 0
				nvn++
			case line[0] == 'f' && isSpace(line[1]) && len(line) >= 7: // f 1 2 3
				nf++
			}
		}
		t.release(chunk)
		return true
	})
	nv, nvt, nvn, nf = min(nv, tracer.MaxTriangles), min(nvt, tracer.MaxTriangles), min(nvn, tracer.MaxTriangles), min(nf, tracer.MaxTriangles)
	p.positions = make([]mgl32.Vec3, 0, nv)
	p.head = make([]int32, 0, nv)
	p.texcoords = make([]mgl32.Vec2, 0, nvt)
	p.normals = make([]mgl32.Vec3, 0, nvn)
	p.verts = make([]objVertex, 0, max(nv, nvt, nvn)+nv/8)
	p.indices = make([]uint32, 0, 3*nf)
	return err
}

// cutLine returns the first line of data, without its line ending, and
// the rest.
func cutLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest = data[:i], data[i+1:]
	} else {
		line = data
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// errorf returns an error at the current line of the OBJ file.
func (p *objParser) errorf(format string, args ...any) *Error {
	return &Error{File: p.path, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// isSpace reports whether c separates the fields of an OBJ or MTL line.
func isSpace(c byte) bool { return objSpace[c] }

// objSpace is isSpace's table.
var objSpace = [256]bool{' ': true, '\t': true, '\v': true, '\f': true}

// nextField returns the first field of line and what follows it; field is
// empty when line holds only white space.
func nextField(line []byte) (field, rest []byte) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	return line[i:j], line[j:]
}

// trimSpace removes the white space around b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// apply applies the statements of c, a decoded chunk (objdecode.go)
// that follows the file's first before lines.
func (p *objParser) apply(c *objChunk, before int) error {
	fl := c.floats
	for _, op := range c.ops {
		p.line = before + int(op.line)
		switch op.kind {
		case objOpV, objOpVColor:
			if len(p.positions) >= tracer.MaxTriangles {
				return p.errorf("more than %d vertex positions", tracer.MaxTriangles)
			}
			n, rgb := 3, []float32(nil)
			if op.kind == objOpVColor {
				n, rgb = 6, fl[op.a+3:op.a+6]
			}
			if err := p.vertexColor(n, rgb); err != nil {
				return err
			}
			p.positions = append(p.positions, mgl32.Vec3{fl[op.a], fl[op.a+1], fl[op.a+2]})
			p.head = append(p.head, -1)
		case objOpVT:
			if len(p.texcoords) >= tracer.MaxTriangles {
				return p.errorf("more than %d texture coordinates", tracer.MaxTriangles)
			}
			p.texcoords = append(p.texcoords, mgl32.Vec2{fl[op.a], fl[op.a+1]})
		case objOpVN:
			if len(p.normals) >= tracer.MaxTriangles {
				return p.errorf("more than %d normals", tracer.MaxTriangles)
			}
			p.normals = append(p.normals, mgl32.Vec3{fl[op.a], fl[op.a+1], fl[op.a+2]})
		case objOpF, objOpFBad:
			if err := p.faceStatement(c, op); err != nil {
				return err
			}
		case objOpUsemtl:
			if op.a == op.b {
				p.mat, p.pending = -1, false // some exporters write a bare usemtl for "none"
				continue
			}
			p.pending, p.pendingLine = true, p.line
			p.pendingName = append(p.pendingName[:0], c.names[op.a:op.b]...)
		case objOpS:
			p.group, p.anyGroup = uint32(op.a), true
		case objOpMtllib:
			p.libraries = append(p.libraries, objLibrary{name: assetName(c.names[op.a:op.b]), line: p.line})
		case objOpErr:
			return p.errorf("%s", c.msgs[op.a])
		}
	}
	return nil
}

// parseFloat32 reads a number of an OBJ or MTL file. It returns a message
// saying what is wrong with it, or "".
func parseFloat32(f []byte) (float32, string) {
	if x, ok := plainFloat32(f); ok {
		return x, ""
	}
	x, err := strconv.ParseFloat(string(f), 32)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && (math.IsInf(x, 0)):
		return 0, fmt.Sprintf("%s is too large for float32", quote(string(f)))
	case err != nil:
		return 0, fmt.Sprintf("not a number: %s", quote(string(f)))
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Sprintf("not a finite number: %s", quote(string(f)))
	}
	return float32(x), ""
}

// plainFloat32 reads f when it is a plain decimal number, [+-]ddd[.ddd],
// whose digits make an integer m below 2^24 with at most 10 of them after
// the point (k): the number is m/10^k, both exact in float32, so their
// quotient, rounded once, is the float32 nearest to it, as
// strconv.ParseFloat gives. It returns false for any other f, which
// ParseFloat then reads: exponents, longer numbers, and all that is
// malformed. Most numbers that exporters write are plain (0.123456).
func plainFloat32(f []byte) (float32, bool) {
	i, neg := 0, false
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		i, neg = 1, f[0] == '-'
	}
	var m uint32
	digits, k, dot := 0, 0, false
	for ; i < len(f); i++ {
		switch c := f[i]; {
		case c >= '0' && c <= '9':
			if m >= 1<<24 {
				return 0, false
			}
			m = m*10 + uint32(c-'0')
			digits++
			if dot {
				k++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || m >= 1<<24 || k > 10 {
		return 0, false
	}
	x := float32(m) / pow10f32[k]
	if neg {
		x = -x
	}
	return x, true
}

// pow10f32 holds 10^k for k up to 10, each exact in float32.
var pow10f32 = [11]float32{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// faceStatement resolves the vertices of the decoded f statement op of c
// and adds the face's triangles. For an objOpFBad face it stops after
// them: the error follows.
func (p *objParser) faceStatement(c *objChunk, op objOp) error {
	p.face = p.face[:0]
	var ix [3]int32
	for i := op.a; i < op.b; i++ {
		k := int(i-op.a) % 3
		if c.refs[i] == objAbsent {
			ix[k] = -1
		} else {
			var err error
			if ix[k], err = p.resolve(c, int(i), k); err != nil {
				return err
			}
		}
		if k == 2 {
			v, vt, vn := ix[0], ix[1], ix[2]
			if vt >= 0 {
				p.anyUV = true
			}
			if vn < 0 {
				p.noNormals = true
			}
			p.face = append(p.face, p.vertex(v, vt, vn))
		}
	}
	if op.kind == objOpFBad {
		return nil
	}
	if len(p.face) < 3 {
		return p.errorf("f: a face needs at least 3 vertices, found %d", len(p.face))
	}
	tris := len(p.indices) / 3
	add := len(p.face) - 2
	if tris+add > tracer.MaxTriangles {
		return p.errorf("more than %d triangles", tracer.MaxTriangles)
	}
	if p.pending {
		p.pending = false
		k, ok := p.matIndex[string(p.pendingName)]
		if !ok {
			k = int32(len(p.matNames))
			name := string(p.pendingName)
			p.matNames = append(p.matNames, name)
			p.matLines = append(p.matLines, p.pendingLine)
			p.matIndex[name] = k
		}
		p.mat = k
	}
	if p.triMats == nil && p.mat >= 0 {
		p.triMats = make([]int32, tris, max(cap(p.indices)/3, 2*tris, 1024))
		for i := range p.triMats {
			p.triMats[i] = -1
		}
	}
	p.triangulate()
	if p.triGroups == nil && p.group != 0 {
		p.triGroups = make([]uint32, tris, max(cap(p.indices)/3, 2*tris, 1024))
	}
	if p.triGroups != nil {
		for range add {
			p.triGroups = append(p.triGroups, p.group)
		}
	}
	if p.triMats != nil {
		for range add {
			p.triMats = append(p.triMats, p.mat)
		}
	}
	return nil
}

// resolve returns the 0-based index that c.refs[i], component k of a face
// vertex (0: v, 1: vt, 2: vn), refers to: 1-based or, when negative,
// relative to the elements read so far.
func (p *objParser) resolve(c *objChunk, i, k int) (int32, error) {
	what, count := "vertex", len(p.positions)
	switch k {
	case 1:
		what, count = "texture coordinate", len(p.texcoords)
	case 2:
		what, count = "normal", len(p.normals)
	}
	switch n := int64(c.refs[i]); {
	case n == 0:
		return 0, p.errorf("f: %s index 0 is invalid (OBJ indices start at 1)", what)
	case n < 0 && -n <= int64(count):
		return int32(int64(count) + n), nil
	case n > 0 && n <= int64(count):
		return int32(n - 1), nil
	}
	return 0, p.errorf("f: %s index %s is out of range: %d %s read so far", what, c.refText(i), count, plural(count, what))
}

// cutByte splits b around the first c. b is short (a face vertex): a
// loop beats bytes.IndexByte's call.
func cutByte(b []byte, c byte) (before, after []byte, found bool) {
	for i, x := range b {
		if x == c {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// plural returns what, or its plural when n is not 1.
func plural(n int, what string) string {
	if n == 1 {
		return what
	}
	switch what {
	case "vertex":
		return "vertices"
	}
	return what + "s"
}

// vertex returns the mesh vertex for the triple (v, vt, vn), adding it
// when it is new.
func (p *objParser) vertex(v, vt, vn int32) uint32 {
	for k := p.head[v]; k >= 0; k = p.verts[k].next {
		if x := &p.verts[k]; x.vt == vt && x.vn == vn {
			return uint32(k)
		}
	}
	k := int32(len(p.verts))
	p.verts = append(p.verts, objVertex{v: v, vt: vt, vn: vn, next: p.head[v]})
	p.head[v] = k
	return uint32(k)
}

// finish builds the mesh once every line is read, and reads the material
// libraries.
//
// Face vertices that give no vn get computed normals (computeNormals),
// unless every face is flat (smoothing group 0, with no vn anywhere):
// then the mesh has no normals. It has texture coordinates when any face
// vertex gives one; the others get (0, 0).
func (p *objParser) finish() (*importedMesh, error) {
	if len(p.indices) == 0 {
		return nil, &Error{File: p.path, Msg: "the file holds no faces"}
	}
	m := tracer.MeshDesc{Indices: p.indices, Materials: p.triMats, Material: -1}
	p.head = nil // read: no longer needed
	if p.needsComputedNormals() {
		p.computeNormals(&m)
	} else {
		p.vertexArrays(&m)
	}
	materials, missing, err := p.materials()
	if err != nil {
		return nil, err
	}
	return &importedMesh{meshes: []tracer.MeshDesc{m}, materials: materials, missingLibrary: missing, usemtlLines: p.matLines}, nil
}

// vertexArrays sets m's per-vertex arrays, one element per parser
// vertex: positions, and the texture coordinates when any face vertex
// gives one ((0, 0) for the others), the normals when every one gives
// one, and the vertex colours when any position has one.
func (p *objParser) vertexArrays(m *tracer.MeshDesc) {
	m.Positions = make([]mgl32.Vec3, len(p.verts))
	if p.anyUV {
		m.UVs = make([]mgl32.Vec2, len(p.verts))
	}
	if !p.noNormals {
		m.Normals = make([]mgl32.Vec3, len(p.verts))
	}
	if p.colors != nil {
		m.Colors = make([]mgl32.Vec3, len(p.verts))
	}
	for i, x := range p.verts {
		m.Positions[i] = p.positions[x.v]
		if m.Colors != nil {
			m.Colors[i] = p.colors[x.v]
		}
		if m.UVs != nil && x.vt >= 0 {
			m.UVs[i] = p.texcoords[x.vt]
		}
		if m.Normals != nil {
			m.Normals[i] = p.normals[x.vn]
		}
	}
}

// materials reads the material libraries and returns the materials that
// faces use, in the order of matNames. A name that no library defines
// gets a material without colour (HasColor false): the scene must define
// it, or the object's material stands in (with a warning, mesh.go). When libraries define a name
// more than once, the last definition wins. missing reports whether a
// library does not exist.
func (p *objParser) materials() (_ []importedMaterial, missing bool, err error) {
	defs := map[string]*mtlMaterial{}
	base := filepath.Dir(p.path)
	for _, lib := range p.libraryNames(base) {
		p.line = lib.line
		path, err := p.a.resolve(base, lib.name)
		if errors.Is(err, fs.ErrNotExist) {
			// Exporters often name a library they did not write, or
			// one that was not copied with the model: its materials
			// then stand undescribed, and the scene's materials of
			// their names, or the object's material, stand in.
			slog.Warn(fmt.Sprintf("%s:%d: mtllib %s: no such file; the object's material stands in for the materials it would describe",
				safeName(p.a.key(p.path)), lib.line, quoteFile(lib.name)))
			missing = true
			continue
		}
		if err != nil {
			return nil, false, p.libraryError(lib.name, err)
		}
		data, err := p.a.read(path)
		if err != nil {
			return nil, false, p.libraryError(lib.name, err)
		}
		if err := parseMTL(path, data, defs); err != nil {
			return nil, false, err
		}
	}
	out := make([]importedMaterial, len(p.matNames))
	images := &mtlImages{objDir: base}
	for i, name := range p.matNames {
		out[i].Name = name
		if def := defs[name]; def != nil {
			m, err := def.imported(p.a, name, images)
			if err != nil {
				return nil, false, err
			}
			out[i] = m
		}
	}
	return out, missing, nil
}

// libraryNames returns p.libraries, but where the names of one mtllib
// line, joined by spaces, name a file that exists: that one file. Blender
// and other exporters write "mtllib my model.mtl" for a model saved as
// "my model.obj", which the format would read as two files.
func (p *objParser) libraryNames(base string) []objLibrary {
	var out []objLibrary
	libs := p.libraries
	for len(libs) > 0 {
		n := 1
		for n < len(libs) && libs[n].line == libs[0].line {
			n++
		}
		if n > 1 {
			names := make([]string, n)
			for i, lib := range libs[:n] {
				names[i] = lib.name
			}
			whole := strings.Join(names, " ")
			if path, err := p.a.resolve(base, whole); err == nil && (p.a.files != nil || regularFile(path)) {
				// (A bundle holds the files its scene read: resolve
				// finds only those.)
				out = append(out, objLibrary{name: whole, line: libs[0].line})
				libs = libs[n:]
				continue
			}
		}
		out = append(out, libs[:n]...)
		libs = libs[n:]
	}
	return out
}

// regularFile reports whether a regular file (through symbolic links)
// is at path.
func regularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// libraryError is the error for an mtllib file that cannot be read.
func (p *objParser) libraryError(name string, err error) *Error {
	msg := err.Error()
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		msg = pe.Err.Error()
	}
	return &Error{File: p.path, Line: p.line, Msg: fmt.Sprintf("mtllib %s: %s", quoteFile(name), msg), Err: err}
}

// maxEarClipVertices bounds the faces that are ear clipped: clipping
// costs up to the square of a face's vertex count, so a larger face is
// split into a fan, as convex faces are, whatever its shape.
const maxEarClipVertices = 4096

// triangulate appends the n−2 triangles of the face p.face to p.indices.
// A convex face (no vertex turns against the face's winding, in its
// dominant plane) becomes a fan around its first vertex; a concave one is
// ear clipped (earClipper), so that it keeps its shape.
func (p *objParser) triangulate() {
	f := p.face
	if len(f) > 3 && len(f) <= maxEarClipVertices {
		pts := p.ear.project(f, func(k uint32) mgl32.Vec3 { return p.positions[p.verts[k].v] })
		if pts != nil {
			p.indices = p.ear.clip(f, pts, p.indices)
			return
		}
	}
	for i := 1; i+1 < len(f); i++ {
		p.indices = append(p.indices, f[0], f[i], f[i+1])
	}
}

// earClipper triangulates concave polygons by ear clipping (Eberly,
// "Triangulation by Ear Clipping", 2002). Its slices are scratch space,
// kept from one face to the next.
type earClipper struct {
	pts         [][2]float64 // the polygon in its dominant plane, counter-clockwise
	prev, next  []int32      // the ring of vertices not yet clipped
	reflex, ear []bool       // per vertex: turns clockwise (or not at all); is an ear
	reflexList  []int32      // the vertices reflex when clipping began
	removed     []bool
}

// project returns the polygon of vertices face (pos gives a vertex's
// position) projected onto the plane of its largest Newell normal
// component, oriented counter-clockwise; or nil when the polygon is
// convex or degenerate (no area), so that a fan gives it.
func (e *earClipper) project(face []uint32, pos func(uint32) mgl32.Vec3) [][2]float64 {
	n := len(face)
	var nx, ny, nz float64
	for i := range n {
		a, b := pos(face[i]), pos(face[(i+1)%n])
		nx += float64(a[1]-b[1]) * float64(a[2]+b[2])
		ny += float64(a[2]-b[2]) * float64(a[0]+b[0])
		nz += float64(a[0]-b[0]) * float64(a[1]+b[1])
	}
	// Drop the axis of the largest component, keeping the remaining two
	// in cyclic order (y z, z x or x y), so that the projection winds
	// counter-clockwise when that component is positive.
	u, v, flip := 0, 1, nz < 0
	switch ax, ay, az := math.Abs(nx), math.Abs(ny), math.Abs(nz); {
	case ax == 0 && ay == 0 && az == 0, math.IsNaN(ax + ay + az):
		return nil
	case ax >= ay && ax >= az:
		u, v, flip = 1, 2, nx < 0
	case ay >= az:
		u, v, flip = 2, 0, ny < 0
	}
	e.pts = e.pts[:0]
	for _, k := range face {
		q := pos(k)
		x := float64(q[u])
		if flip {
			x = -x
		}
		e.pts = append(e.pts, [2]float64{x, float64(q[v])})
	}
	for i := range n {
		if turn(e.pts[(i+n-1)%n], e.pts[i], e.pts[(i+1)%n]) < 0 {
			return e.pts // concave
		}
	}
	return nil
}

// turn is twice the signed area of the triangle a b c: positive when it
// winds counter-clockwise.
func turn(a, b, c [2]float64) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// clip appends to out the n−2 triangles of the polygon of vertices face,
// whose projection (from project) is pts, and returns out. Each triangle
// keeps the polygon's winding. The polygon should be simple; keyholes
// (a hole joined to the outside by a seam of two coincident edges, as
// exporters write rings) are simple enough. Where no ear is left (a
// polygon that crosses itself) a vertex is clipped anyway, so the count
// of triangles is always n−2.
func (e *earClipper) clip(face []uint32, pts [][2]float64, out []uint32) []uint32 {
	n := len(face)
	e.prev, e.next = resize(e.prev, n), resize(e.next, n)
	e.reflex, e.ear, e.removed = resize(e.reflex, n), resize(e.ear, n), resize(e.removed, n)
	e.reflexList = e.reflexList[:0]
	for i := range n {
		e.prev[i], e.next[i] = int32((i+n-1)%n), int32((i+1)%n)
		e.removed[i] = false
		e.reflex[i] = e.turnAt(int32(i)) <= 0
		if e.reflex[i] {
			e.reflexList = append(e.reflexList, int32(i))
		}
	}
	for i := range n {
		e.ear[i] = e.isEar(int32(i))
	}
	i, left, tried := int32(0), n, 0
	for left > 3 {
		if !e.ear[i] && tried < left {
			i, tried = e.next[i], tried+1
			continue
		}
		// An ear, or (tried == left) none left: clip i.
		a, b := e.prev[i], e.next[i]
		out = append(out, face[a], face[i], face[b])
		e.removed[i] = true
		e.next[a], e.prev[b] = b, a
		left--
		for _, k := range [2]int32{a, b} {
			e.reflex[k] = e.turnAt(k) <= 0
		}
		for _, k := range [2]int32{a, b} {
			e.ear[k] = e.isEar(k)
		}
		i, tried = b, 0
	}
	return append(out, face[e.prev[i]], face[i], face[e.next[i]])
}

// turnAt is turn at vertex i of the ring.
func (e *earClipper) turnAt(i int32) float64 {
	return turn(e.pts[e.prev[i]], e.pts[i], e.pts[e.next[i]])
}

// isEar reports whether vertex i of the ring is an ear: convex, with no
// reflex vertex of the ring inside its triangle or on its edges (a vertex
// at one of the triangle's corners, as on a keyhole's seam, does not
// count).
func (e *earClipper) isEar(i int32) bool {
	if e.reflex[i] {
		return false
	}
	a, b, c := e.pts[e.prev[i]], e.pts[i], e.pts[e.next[i]]
	for _, k := range e.reflexList {
		if e.removed[k] || !e.reflex[k] || k == i || k == e.prev[i] || k == e.next[i] {
			continue
		}
		q := e.pts[k]
		if q == a || q == b || q == c {
			continue
		}
		if turn(a, b, q) >= 0 && turn(b, c, q) >= 0 && turn(c, a, q) >= 0 {
			return false
		}
	}
	return true
}

// resize returns s with length n, reusing its array when it is large
// enough.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// assetName returns a file name written in an OBJ or MTL file with its
// backslashes made slashes: Windows exporters (3ds Max among them) write
// "textures\\wood.png". The name is then resolved as any other, so it
// still may not lead out of the scene's folder.
func assetName(b []byte) string {
	return strings.ReplaceAll(string(b), `\`, "/")
}

// vertexColor records the colour of the vertex being read: rgb, when its v
// statement had n = 6 numbers (x y z r g b, the common extension; linear
// RGB in [0, 1], as Kd, but sRGB in a file Blender wrote), else none
// (white).
func (p *objParser) vertexColor(n int, rgb []float32) error {
	if n != 6 {
		if p.colors != nil {
			p.colors = append(p.colors, mgl32.Vec3{1, 1, 1})
		}
		return nil
	}
	for _, x := range rgb {
		if !(x >= 0 && x <= 1) {
			return p.errorf("v: vertex colour %g %g %g is outside [0, 1]", rgb[0], rgb[1], rgb[2])
		}
	}
	if p.colors == nil {
		p.colors = make([]mgl32.Vec3, len(p.positions))
		for i := range p.colors {
			p.colors[i] = mgl32.Vec3{1, 1, 1}
		}
	}
	c := [3]float32{rgb[0], rgb[1], rgb[2]}
	if p.blender {
		c = blenderColor(c) // sRGB in Blender's files (objblender.go)
	}
	p.colors = append(p.colors, c)
	return nil
}
