package scenes

// Draco's edgebreaker connectivity (draco_encoder -cl 1 to 10, Blender's
// exporter at its defaults), decoded as the reference decoder decodes it
// (src/draco/compression/mesh: mesh_edgebreaker_decoder_impl.cc,
// mesh_edgebreaker_traversal_decoder.h and _valence_decoder.h; bitstream
// 2.2): the traversal's symbols (standard: 1 or 3 bits each; valence: rANS
// symbols in six contexts of the active vertex's valence) rebuild a corner
// table face by face, topology split events join its branches, start faces
// (an rANS bit each) close interior components, and per attribute data an
// rANS bit per interior edge marks the attribute seams that split a vertex
// into several points (a texcoord or normal seam). The points and faces
// are the reference's: the same face order, and point ids given by its
// AssignPointsToCorners (a new point at every seam met turning clockwise
// round each vertex from its left-most corner or its first seam).
//
// Every count the stream states is checked against the reference's bounds
// and reserved from the asset budget before the tables are allocated; every
// loop round a vertex is bounded by the corners, so a corrupt table is an
// error, never a hang or a panic.

import (
	"errors"
	"fmt"
	"math"
)

// Edgebreaker's topology symbols (EdgebreakerTopologyBitPattern).
const (
	ebC = 0
	ebS = 1
	ebL = 3
	ebR = 5
	ebE = 7
)

// ebValenceSymbols maps the valence coder's symbols to topology symbols.
var ebValenceSymbols = [5]uint32{ebC, ebS, ebL, ebR, ebE}

// dracoCorners is Draco's CornerTable: per corner its vertex and opposite
// corner (-1 none), per vertex its left-most corner (-1 isolated).
type dracoCorners struct {
	vertex   []int32
	opposite []int32
	leftmost []int32
}

func ebNext(c int32) int32 {
	switch {
	case c < 0:
		return c
	case c%3 == 2:
		return c - 2
	}
	return c + 1
}

func ebPrev(c int32) int32 {
	switch {
	case c < 0:
		return c
	case c%3 == 0:
		return c + 2
	}
	return c - 1
}

// dracoAt is s[i], or -1 (no corner, no vertex) where i is out of s's
// range.
func dracoAt(s []int32, i int32) int32 {
	if i < 0 || int(i) >= len(s) {
		return -1
	}
	return s[i]
}

func (t *dracoCorners) vert(c int32) int32     { return dracoAt(t.vertex, c) }
func (t *dracoCorners) opp(c int32) int32      { return dracoAt(t.opposite, c) }
func (t *dracoCorners) leftMost(v int32) int32 { return dracoAt(t.leftmost, v) }

func (t *dracoCorners) swingRight(c int32) int32 { return ebPrev(t.opp(ebPrev(c))) }
func (t *dracoCorners) swingLeft(c int32) int32  { return ebNext(t.opp(ebNext(c))) }

func (t *dracoCorners) setOpposite(a, b int32) {
	t.opposite[a] = b
	t.opposite[b] = a
}

// dracoAttrCorners is MeshAttributeCornerTable as the edgebreaker decoder
// builds it: the position table's corners with an attribute's seams,
// whose vertices are the attribute's values.
type dracoAttrCorners struct {
	base       *dracoCorners
	edgeSeam   []bool  // per corner: the edge opposite it is a seam
	vertexSeam []bool  // per base vertex
	vertex     []int32 // per corner: the attribute's vertex
	leftmost   []int32 // per attribute vertex
}

func (a *dracoAttrCorners) vert(c int32) int32 {
	if c < 0 {
		return -1
	}
	return a.vertex[c]
}

// swingLeft is the attribute table's SwingLeft: no edge across a seam.
func (a *dracoAttrCorners) swingLeft(c int32) int32 {
	n := ebNext(c)
	if n < 0 || a.edgeSeam[n] {
		return -1
	}
	return ebNext(a.base.opp(n))
}

// addSeam is AddSeamEdge.
func (a *dracoAttrCorners) addSeam(c int32) {
	t := a.base
	a.edgeSeam[c] = true
	a.vertexSeam[t.vert(ebNext(c))] = true
	a.vertexSeam[t.vert(ebPrev(c))] = true
	if o := t.opp(c); o >= 0 {
		a.edgeSeam[o] = true
		a.vertexSeam[t.vert(ebNext(o))] = true
		a.vertexSeam[t.vert(ebPrev(o))] = true
	}
}

// recompute is RecomputeVertices without an attribute: the attribute's
// vertices in the order the reference numbers them.
func (a *dracoAttrCorners) recompute() error {
	t := a.base
	steps := len(t.vertex) + 1
	a.leftmost = a.leftmost[:0]
	n := int32(0)
	for v := range t.leftmost {
		c := t.leftmost[v]
		if c < 0 {
			continue
		}
		first := c
		if a.vertexSeam[v] {
			for act, k := a.swingLeft(first), 0; act >= 0; act, k = a.swingLeft(act), k+1 {
				if act == c || k > steps {
					return errors.New("an attribute seam round a closed vertex")
				}
				first = act
			}
		}
		id := n
		n++
		a.vertex[first] = id
		a.leftmost = append(a.leftmost, first)
		for act, k := t.swingRight(first), 0; act >= 0 && act != first; act, k = t.swingRight(act), k+1 {
			if k > steps {
				return errors.New("a vertex's corners do not end")
			}
			if a.edgeSeam[ebNext(act)] {
				id = n
				n++
				a.leftmost = append(a.leftmost, act)
			}
			a.vertex[act] = id
		}
	}
	return nil
}

// dracoEdgebreaker is the edgebreaker decoder's state that the attribute
// decoding reads after the connectivity.
type dracoEdgebreaker struct {
	corners *dracoCorners
	attrs   []*dracoAttrCorners // per attribute data
	// What the traversal met, for the tests: split symbols, topology
	// split events, interior start faces, start faces on a boundary,
	// vertices removed after a split (without attribute data);
	// attributes decoders of the prediction-degree traversal; interior
	// vertices split into points by a seam.
	merges, splitEvents, interiorStarts, boundaryStarts, removed int
	degreeTraversals, interiorSeams                              int
}

// dracoBitRANS is RAnsBitDecoder: bits of probability p0/256 of being 0.
type dracoBitRANS struct {
	p0    uint32
	buf   []byte
	off   int
	state uint32
}

// start is RAnsBitDecoder::StartDecoding.
func (d *dracoBitRANS) start(r *dracoReader) error {
	p0, err := r.u8()
	if err != nil {
		return err
	}
	n, err := r.varint32()
	if err != nil {
		return err
	}
	if uint64(n) > uint64(r.remaining()) {
		return errDracoShort
	}
	buf, _ := r.bytes(int(n))
	if len(buf) < 1 {
		return errors.New("no coded bits")
	}
	if d.off, d.state, err = dracoRANSState(buf, 4096, false, "bit coder's"); err != nil {
		return err
	}
	d.p0, d.buf = uint32(p0), buf
	return nil
}

// bit is rabs_desc_read.
func (d *dracoBitRANS) bit() bool {
	p := 256 - d.p0
	if d.state < 4096 && d.off > 0 {
		d.off--
		d.state = d.state*256 + uint32(d.buf[d.off])
	}
	quot, rem := d.state/256, d.state%256
	xn := quot * p
	if rem < p {
		d.state = xn + rem
		return true
	}
	d.state = d.state - xn - p
	return false
}

// dracoBits reads bits from the low bit of each byte up; bits past the
// end read as 0 and are not counted (DecoderBuffer::BitDecoder).
type dracoBits struct {
	b   []byte
	pos int
}

func (d *dracoBits) read(n int) uint32 {
	v := uint32(0)
	for i := 0; i < n; i++ {
		if d.pos>>3 < len(d.b) {
			v |= uint32(d.b[d.pos>>3]>>(d.pos&7)&1) << i
			d.pos++
		}
	}
	return v
}

// ebSplit is a topology split event (TopologySplitEventData).
type ebSplit struct {
	source, split int64
	edge          uint32
}

// edgebreakerConnectivity reads MeshEdgebreakerDecoder's connectivity
// (bitstream 2.2) into d.mesh's faces and point count, and keeps the
// corner tables for the attributes.
func (d *dracoDecoder) edgebreakerConnectivity() error {
	r := d.r
	traversal, err := r.u8()
	if err != nil {
		return err
	}
	switch traversal {
	case 0, 2:
	case 1:
		return dracoUnsupported("edgebreaker connectivity, predictive (Draco 1.1's traversal, not written since)")
	default:
		return fmt.Errorf("edgebreaker traversal %d is not one", traversal)
	}
	valence := traversal == 2
	nev, err := r.varint32()
	if err != nil {
		return err
	}
	nf, err := r.varint32()
	if err != nil {
		return err
	}
	if nf > math.MaxInt32/3 {
		return fmt.Errorf("%d faces: too many", nf)
	}
	if uint64(nev) > 3*uint64(nf) {
		return fmt.Errorf("%d vertices for %d faces", nev, nf)
	}
	if uint64(nev)*(uint64(nev)-1)/2 < uint64(3*nf/2) {
		return fmt.Errorf("%d faces cannot be built on %d vertices", nf, nev)
	}
	nad, err := r.u8()
	if err != nil {
		return err
	}
	nsym, err := r.varint32()
	if err != nil {
		return err
	}
	if nf < nsym || uint64(nf) > uint64(nsym)+uint64(nsym/3) {
		return fmt.Errorf("%d faces from %d symbols", nf, nsym)
	}
	nsplit, err := r.varint32()
	if err != nil {
		return err
	}
	if nsplit > nsym {
		return fmt.Errorf("%d split symbols of %d", nsplit, nsym)
	}
	maxVerts := int(nev) + int(nsplit)
	if maxVerts > math.MaxInt32 {
		return fmt.Errorf("%d vertices: too many", maxVerts)
	}
	// The corner table (8 bytes a corner, 4 a vertex, 1 a vertex's hole
	// flag), the points' map (4 a corner) and the faces (4 a corner).
	nc := 3 * int(nf)
	if err := d.alloc(uint64(nc), 16); err != nil {
		return err
	}
	if err := d.alloc(uint64(maxVerts), 5); err != nil {
		return err
	}
	t := &dracoCorners{vertex: make([]int32, nc), opposite: make([]int32, nc), leftmost: make([]int32, 0, maxVerts)}
	for i := range t.vertex {
		t.vertex[i], t.opposite[i] = -1, -1
	}
	hole := make([]bool, maxVerts)
	for i := range hole {
		hole[i] = true
	}

	// Topology split events (DecodeHoleAndTopologySplitEvents).
	ns, err := r.varint32()
	if err != nil {
		return err
	}
	var splits []ebSplit
	if ns > 0 {
		if ns > nf || uint64(ns) > uint64(r.remaining()) {
			return fmt.Errorf("%d topology splits", ns)
		}
		splits = make([]ebSplit, ns)
		last := int64(0)
		for i := range splits {
			a, err := r.varint32()
			if err != nil {
				return err
			}
			b, err := r.varint32()
			if err != nil {
				return err
			}
			src := int64(a) + last
			if int64(b) > src || src > math.MaxInt32 {
				return fmt.Errorf("topology split %d: symbols %d and %d", i, src, int64(b))
			}
			splits[i] = ebSplit{source: src, split: src - int64(b)}
			last = src
		}
		bits := dracoBits{b: r.b[r.pos:]}
		for i := range splits {
			splits[i].edge = bits.read(1)
		}
		r.pos += (bits.pos + 7) / 8
	}

	// The traversal's coders (MeshEdgebreakerTraversalDecoder::Start).
	var symbols dracoBits
	if !valence {
		size, err := r.varint(10)
		if err != nil {
			return fmt.Errorf("traversal: %w", err)
		}
		if size > uint64(r.remaining()) {
			return fmt.Errorf("traversal: %w", errDracoShort)
		}
		symbols.b = r.b[r.pos:]
		r.pos += int(size)
	}
	var startFaces dracoBitRANS
	if err := startFaces.start(r); err != nil {
		return fmt.Errorf("start faces: %w", err)
	}
	seamBits := make([]dracoBitRANS, nad)
	for i := range seamBits {
		if err := seamBits[i].start(r); err != nil {
			return fmt.Errorf("attribute seams %d: %w", i, err)
		}
	}
	var contexts [6][]uint32
	var valences []int32
	active := -1
	if valence {
		if err := d.alloc(uint64(maxVerts), 4); err != nil {
			return err
		}
		valences = make([]int32, maxVerts)
		for i := range contexts {
			n, err := r.varint32()
			if err != nil {
				return fmt.Errorf("valence context %d: %w", i, err)
			}
			if n > nf {
				return fmt.Errorf("valence context %d: %d symbols for %d faces", i, n, nf)
			}
			if n == 0 {
				continue
			}
			if err := d.alloc(uint64(n), 4); err != nil {
				return err
			}
			contexts[i] = make([]uint32, n)
			if err := dracoSymbols(r, contexts[i], 1); err != nil {
				return fmt.Errorf("valence context %d: %w", i, err)
			}
		}
	}
	decodeSymbol := func() uint32 {
		if !valence {
			s := symbols.read(1)
			if s != ebC {
				s |= symbols.read(2) << 1
			}
			return s
		}
		if active < 0 {
			return ebE
		}
		ctx := contexts[active]
		if len(ctx) == 0 {
			return math.MaxUint32
		}
		s := ctx[len(ctx)-1]
		contexts[active] = ctx[:len(ctx)-1]
		if s > 4 {
			return math.MaxUint32
		}
		return ebValenceSymbols[s]
	}
	addValence := func(c int32, n int32) {
		if v := t.vert(c); v >= 0 && int(v) < len(valences) {
			valences[v] += n
		}
	}

	// The faces (DecodeConnectivity).
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("traversal: "+format, args...)
	}
	addVertex := func() (int32, error) {
		if len(t.leftmost) >= maxVerts {
			return 0, corrupt("more than %d vertices", maxVerts)
		}
		t.leftmost = append(t.leftmost, -1)
		return int32(len(t.leftmost) - 1), nil
	}
	eb := &dracoEdgebreaker{corners: t, splitEvents: len(splits)}
	var stack []int32
	splitCorners := map[int64]int32{}
	var invalid []int32
	removeInvalid := nad == 0
	numFaces := int32(0)
	for sid := int64(0); sid < int64(nsym); sid++ {
		corner := 3 * numFaces
		numFaces++
		checkSplit := false
		symbol := decodeSymbol()
		switch symbol {
		case ebC:
			if len(stack) == 0 {
				return corrupt("symbol %d: no active edge", sid)
			}
			a := stack[len(stack)-1]
			x := t.vert(ebNext(a))
			b := ebNext(t.leftMost(x))
			if b < 0 || a == b || t.opp(a) >= 0 || t.opp(b) >= 0 {
				return corrupt("symbol %d: corners %d and %d do not close a face", sid, a, b)
			}
			t.setOpposite(a, corner+1)
			t.setOpposite(b, corner+2)
			aPrev, bNext := t.vert(ebPrev(a)), t.vert(ebNext(b))
			if x == aPrev || x == bNext || aPrev < 0 || bNext < 0 {
				return corrupt("symbol %d: a degenerate face", sid)
			}
			t.vertex[corner], t.vertex[corner+1], t.vertex[corner+2] = x, bNext, aPrev
			t.leftmost[aPrev] = corner + 2
			hole[x] = false
			stack[len(stack)-1] = corner
		case ebR, ebL:
			if len(stack) == 0 {
				return corrupt("symbol %d: no active edge", sid)
			}
			a := stack[len(stack)-1]
			if t.opp(a) >= 0 {
				return corrupt("symbol %d: the active edge has a face", sid)
			}
			oppC, cl, cr := corner+1, corner, corner+2
			if symbol == ebR {
				oppC, cl, cr = corner+2, corner+1, corner
			}
			t.setOpposite(oppC, a)
			nv, err := addVertex()
			if err != nil {
				return err
			}
			t.vertex[oppC] = nv
			t.leftmost[nv] = oppC
			vr := t.vert(ebPrev(a))
			vl := t.vert(ebNext(a))
			if vr < 0 || vl < 0 {
				return corrupt("symbol %d: an unmapped corner", sid)
			}
			t.vertex[cr] = vr
			t.leftmost[vr] = cr
			t.vertex[cl] = vl
			stack[len(stack)-1] = corner
			checkSplit = true
		case ebS:
			if len(stack) == 0 {
				return corrupt("symbol %d: no active edge", sid)
			}
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if c, ok := splitCorners[sid]; ok {
				stack = append(stack, c)
			}
			if len(stack) == 0 {
				return corrupt("symbol %d: no second active edge", sid)
			}
			a := stack[len(stack)-1]
			if a == b || t.opp(a) >= 0 || t.opp(b) >= 0 {
				return corrupt("symbol %d: corners %d and %d do not close a face", sid, a, b)
			}
			t.setOpposite(a, corner+2)
			t.setOpposite(b, corner+1)
			vp := t.vert(ebPrev(a))
			vaNext := t.vert(ebNext(a))
			vbPrev := t.vert(ebPrev(b))
			n := ebNext(b)
			vn := t.vert(n)
			if vp < 0 || vaNext < 0 || vbPrev < 0 || vn < 0 {
				return corrupt("symbol %d: an unmapped corner", sid)
			}
			t.vertex[corner], t.vertex[corner+1], t.vertex[corner+2] = vp, vaNext, vbPrev
			t.leftmost[vbPrev] = corner + 2
			if valence {
				valences[vp] += valences[vn]
			}
			t.leftmost[vp] = t.leftmost[vn]
			first := n
			for k := 0; n >= 0; k++ {
				if k > nc {
					return corrupt("symbol %d: a vertex's corners do not end", sid)
				}
				t.vertex[n] = vp
				n = t.swingLeft(n)
				if n == first {
					return corrupt("symbol %d: a split round a closed vertex", sid)
				}
			}
			t.leftmost[vn] = -1
			eb.merges++
			if removeInvalid {
				invalid = append(invalid, vn)
			}
			stack[len(stack)-1] = corner
		case ebE:
			v0, err := addVertex()
			if err != nil {
				return err
			}
			v1, err := addVertex()
			if err != nil {
				return err
			}
			v2, err := addVertex()
			if err != nil {
				return err
			}
			t.vertex[corner], t.vertex[corner+1], t.vertex[corner+2] = v0, v1, v2
			t.leftmost[v0], t.leftmost[v1], t.leftmost[v2] = corner, corner+1, corner+2
			if uint64(len(stack)) >= uint64(nsym) {
				return corrupt("symbol %d: too many active edges", sid)
			}
			stack = append(stack, corner)
			checkSplit = true
		default:
			return corrupt("symbol %d is not a topology symbol", sid)
		}
		if valence {
			c := stack[len(stack)-1]
			next, prev := ebNext(c), ebPrev(c)
			switch symbol {
			case ebC, ebS:
				addValence(next, 1)
				addValence(prev, 1)
			case ebR:
				addValence(c, 1)
				addValence(next, 1)
				addValence(prev, 2)
			case ebL:
				addValence(c, 1)
				addValence(next, 2)
				addValence(prev, 1)
			case ebE:
				addValence(c, 2)
				addValence(next, 2)
				addValence(prev, 2)
			}
			v := int32(0)
			if nv := t.vert(next); nv >= 0 {
				v = valences[nv]
			}
			active = int(min(max(v, 2), 7) - 2)
		}
		if checkSplit {
			enc := int64(nsym) - sid - 1
			for len(splits) > 0 {
				s := splits[len(splits)-1]
				if s.source > enc {
					return corrupt("symbol %d: a topology split was missed", sid)
				}
				if s.source != enc {
					break
				}
				splits = splits[:len(splits)-1]
				top := stack[len(stack)-1]
				c := ebPrev(top)
				if s.edge == 1 { // the right edge
					c = ebNext(top)
				}
				splitCorners[int64(nsym)-s.split-1] = c
			}
		}
	}
	// Start faces: an interior one closes the component.
	for len(stack) > 0 {
		corner := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !startFaces.bit() {
			eb.boundaryStarts++
			continue
		}
		eb.interiorStarts++
		if numFaces >= int32(nf) {
			return corrupt("more faces than %d", nf)
		}
		a := corner
		vn := t.vert(ebNext(a))
		b := ebNext(t.leftMost(vn))
		vx := t.vert(ebNext(b))
		c := ebNext(t.leftMost(vx))
		if b < 0 || c < 0 || a == b || a == c || b == c || t.opp(a) >= 0 || t.opp(b) >= 0 || t.opp(c) >= 0 {
			return corrupt("a start face's corners do not close it")
		}
		vp := t.vert(ebNext(c))
		if vp < 0 {
			return corrupt("a start face's corner is unmapped")
		}
		nc := 3 * numFaces
		numFaces++
		t.setOpposite(nc, a)
		t.setOpposite(nc+1, b)
		t.setOpposite(nc+2, c)
		t.vertex[nc], t.vertex[nc+1], t.vertex[nc+2] = vx, vp, vn
		hole[vx], hole[vp], hole[vn] = false, false, false
	}
	if numFaces != int32(nf) {
		return corrupt("%d faces, the stream states %d", numFaces, nf)
	}
	numVerts := len(t.leftmost)
	w := &ebView{t: t}
	for _, iv := range invalid {
		src := int32(numVerts - 1)
		for t.leftMost(src) < 0 {
			numVerts--
			src = int32(numVerts - 1)
			if src < 0 {
				return corrupt("no vertex left")
			}
		}
		if src < iv {
			continue
		}
		// Every corner of src (VertexCornersIterator) becomes iv's.
		start := t.leftmost[src]
		left := true
		for c, k := start, 0; c >= 0; k++ {
			if k > nc {
				return corrupt("a vertex's corners do not end")
			}
			if t.vertex[c] != src {
				return corrupt("corner %d is not of vertex %d", c, src)
			}
			t.vertex[c] = iv
			c, left = w.nextCorner(start, c, left)
		}
		t.leftmost[iv] = t.leftmost[src]
		t.leftmost[src] = -1
		hole[iv], hole[src] = hole[src], false
		numVerts--
		eb.removed++
	}

	// Attribute seams (DecodeAttributeConnectivitiesOnFace).
	if nad > 0 {
		if err := d.alloc(uint64(nad), 6*uint64(nc)+uint64(len(t.leftmost))); err != nil {
			return err
		}
		for range nad {
			eb.attrs = append(eb.attrs, &dracoAttrCorners{
				base: t, edgeSeam: make([]bool, nc), vertexSeam: make([]bool, len(t.leftmost)),
				vertex: make([]int32, nc)})
		}
		for c0 := int32(0); c0 < int32(nc); c0 += 3 {
			for _, c := range [3]int32{c0, c0 + 1, c0 + 2} {
				o := t.opposite[c]
				if o < 0 {
					for _, a := range eb.attrs {
						a.addSeam(c)
					}
					continue
				}
				if o/3 < c0/3 {
					continue
				}
				for i, a := range eb.attrs {
					if seamBits[i].bit() {
						a.addSeam(c)
					}
				}
			}
		}
		for i, a := range eb.attrs {
			for c := range a.vertex {
				a.vertex[c] = -1
			}
			if err := a.recompute(); err != nil {
				return fmt.Errorf("attribute seams %d: %w", i, err)
			}
		}
	}
	d.eb = eb

	// Points (AssignPointsToCorners).
	idx := make([]uint32, nc)
	if nad == 0 {
		for c, v := range t.vertex {
			idx[c] = uint32(v)
		}
		d.mesh.indices, d.mesh.numPoints = idx, numVerts
		return nil
	}
	points := 0
	for v := range t.leftmost {
		c := t.leftmost[v]
		if c < 0 {
			continue
		}
		first := c
		if !hole[v] {
			for _, a := range eb.attrs {
				if !a.vertexSeam[t.vertex[c]] {
					continue
				}
				av := a.vertex[c]
				found := false
				for act, k := t.swingRight(c), 0; act != c; act, k = t.swingRight(act), k+1 {
					if act < 0 || k > nc {
						return corrupt("an interior vertex is open")
					}
					if a.vertex[act] != av {
						first, found = act, true
						eb.interiorSeams++
						break
					}
				}
				if found {
					break
				}
			}
		}
		idx[first] = uint32(points)
		points++
		prev := first
		for c, k := t.swingRight(first), 0; c >= 0 && c != first; c, k = t.swingRight(c), k+1 {
			if k > nc {
				return corrupt("a vertex's corners do not end")
			}
			seam := false
			for _, a := range eb.attrs {
				if a.vertex[c] != a.vertex[prev] {
					seam = true
					break
				}
			}
			if seam {
				idx[c] = uint32(points)
				points++
			} else {
				idx[c] = idx[prev]
			}
			prev = c
		}
	}
	d.mesh.indices, d.mesh.numPoints = idx, points
	return nil
}
