package scenes

// Draco's attribute decoding over edgebreaker connectivity: the traversal
// that orders an attribute's values (MeshTraversalSequencer with
// DepthFirstTraverser and MeshAttributeIndicesEncodingObserver), and the
// mesh prediction schemes of Draco's levels
// (src/draco/compression/attributes/prediction_schemes): parallelogram
// (positions, texcoords at level 6), tex coords portable (levels 7 to 10)
// and geometric normal (the normals, with the canonicalized octahedron
// transform), and those of levels 9 and 10: the constrained
// multi-parallelogram prediction (positions) over the prediction-degree
// traversal (MaxPredictionDegreeTraverser). All integer arithmetic is the reference's, its int64 and
// uint64 wrap-around included; a value the stream cannot have (an entry
// out of range, a corner without a vertex) is an error.

import (
	"errors"
	"fmt"
	"math"
)

// dracoSequence is the order of an attributes decoder's values: per entry
// its point (nil: entry i is point i) and, over a mesh, the corner it was
// met at and each vertex's entry, on the table view of its traversal.
type dracoSequence struct {
	entries      int
	pointIDs     []int32
	view         *ebView
	dataToCorner []int32
	vertexToData []int32
}

// ebView is a corner table as a traversal and a prediction see it: the
// positions' table, or an attribute's (whose opposite corners stop at its
// seams and whose vertices are its values).
type ebView struct {
	t *dracoCorners
	a *dracoAttrCorners // nil: the positions' table
}

func (w *ebView) vert(c int32) int32 {
	if w.a != nil {
		return dracoAt(w.a.vertex, c)
	}
	return w.t.vert(c)
}

func (w *ebView) opp(c int32) int32 {
	if w.a != nil && c >= 0 && int(c) < len(w.a.edgeSeam) && w.a.edgeSeam[c] {
		return -1
	}
	return w.t.opp(c)
}

func (w *ebView) numVertices() int {
	if w.a != nil {
		return len(w.a.leftmost)
	}
	return len(w.t.leftmost)
}

func (w *ebView) leftMost(v int32) int32 {
	if w.a != nil {
		return dracoAt(w.a.leftmost, v)
	}
	return w.t.leftMost(v)
}

func (w *ebView) swingLeft(c int32) int32  { return ebNext(w.opp(ebNext(c))) }
func (w *ebView) swingRight(c int32) int32 { return ebPrev(w.opp(ebPrev(c))) }

// nextCorner is VertexCornersIterator::Next: the corner after c round the
// vertex whose corners the iteration started at start, swinging left
// while left, then right from start once the left swing meets a
// boundary; -1 after the last. It returns whether it still swings left.
func (w *ebView) nextCorner(start, c int32, left bool) (int32, bool) {
	if !left {
		return w.swingRight(c), false
	}
	if c = w.swingLeft(c); c < 0 {
		return w.swingRight(start), false
	}
	if c == start {
		return -1, true
	}
	return c, true
}

// onBoundary is IsOnBoundary.
func (w *ebView) onBoundary(v int32) bool {
	c := w.leftMost(v)
	return c < 0 || w.swingLeft(c) < 0
}

// traverse is the attributes decoder's MeshTraversalSequencer: a
// depth-first traversal from every face in order, each vertex an entry
// when first met (GenerateSequence).
func (d *dracoDecoder) traverse(g *dracoGroup) (*dracoSequence, error) {
	t := d.eb.corners
	w := &ebView{t: t}
	if g.perCorner {
		w.a = d.eb.attrs[g.dataID]
	}
	nv := w.numVertices()
	nc := len(t.vertex)
	// MeshAttributeIndicesEncodingData::Init: the larger of the two
	// tables' vertex counts, zeros.
	nmap := max(nv, len(t.leftmost))
	if err := d.alloc(uint64(nmap), 4+1); err != nil {
		return nil, err
	}
	if err := d.alloc(uint64(nv), 8); err != nil {
		return nil, err
	}
	if err := d.alloc(uint64(nc), 4); err != nil {
		return nil, err
	}
	s := &dracoSequence{view: w, vertexToData: make([]int32, nmap)}
	vvisited := make([]bool, nv)
	fvisited := make([]bool, nc/3)
	idx := d.mesh.indices
	visit := func(v, c int32) {
		vvisited[v] = true
		s.vertexToData[v] = int32(len(s.pointIDs))
		s.pointIDs = append(s.pointIDs, int32(idx[c]))
		s.dataToCorner = append(s.dataToCorner, c)
	}
	faceVisited := func(c int32) bool { return c < 0 || fvisited[c/3] }
	vertOK := func(v int32) bool { return v >= 0 && int(v) < nv }
	if g.traversal == 1 {
		d.eb.degreeTraversals++
		if err := s.traverseDegree(visit, vvisited, fvisited, nv); err != nil {
			return nil, err
		}
		s.entries = len(s.pointIDs)
		return s, nil
	}
	var stack []int32
	for f := 0; f < nc/3; f++ {
		c := int32(3 * f)
		if fvisited[f] {
			continue
		}
		stack = append(stack[:0], c)
		next, prev := w.vert(ebNext(c)), w.vert(ebPrev(c))
		if !vertOK(next) || !vertOK(prev) {
			return nil, errors.New("traversal: a corner without a vertex")
		}
		if !vvisited[next] {
			visit(next, ebNext(c))
		}
		if !vvisited[prev] {
			visit(prev, ebPrev(c))
		}
		for len(stack) > 0 {
			c = stack[len(stack)-1]
			if faceVisited(c) {
				stack = stack[:len(stack)-1]
				continue
			}
			for {
				if c < 0 {
					return nil, errors.New("traversal: an interior vertex is open")
				}
				fvisited[c/3] = true
				v := w.vert(c)
				if !vertOK(v) {
					return nil, errors.New("traversal: a corner without a vertex")
				}
				if !vvisited[v] {
					boundary := w.onBoundary(v)
					visit(v, c)
					if !boundary {
						c = w.opp(ebNext(c))
						continue
					}
				}
				right, left := w.opp(ebNext(c)), w.opp(ebPrev(c))
				if faceVisited(right) {
					if faceVisited(left) {
						stack = stack[:len(stack)-1]
						break
					}
					c = left
				} else {
					if faceVisited(left) {
						c = right
					} else {
						stack[len(stack)-1] = left
						stack = append(stack, right)
						break
					}
				}
			}
		}
	}
	s.entries = len(s.pointIDs)
	return s, nil
}

// traverseDegree is MaxPredictionDegreeTraverser (Draco's levels 9 and
// 10): from every face in order, the faces whose tip vertex is not yet
// visited first, and of those the ones it is met by for the second time
// or more (the vertices whose values have more parallelograms to be
// predicted from).
func (s *dracoSequence) traverseDegree(visit func(v, c int32), vvisited, fvisited []bool, nv int) error {
	w := s.view
	if nv == 0 {
		return nil
	}
	degree := make([]int32, nv)
	var stacks [3][]int32
	best := 0
	vertOK := func(v int32) bool { return v >= 0 && int(v) < nv }
	priority := func(c int32) (int, error) {
		v := w.vert(c)
		if !vertOK(v) {
			return 0, errors.New("traversal: a corner without a vertex")
		}
		if vvisited[v] {
			return 0, nil
		}
		degree[v]++
		if degree[v] > 1 {
			return 1, nil
		}
		return 2, nil
	}
	push := func(c int32, p int) {
		stacks[p] = append(stacks[p], c)
		best = min(best, p)
	}
	pop := func() int32 {
		for i := best; i < len(stacks); i++ {
			if n := len(stacks[i]); n > 0 {
				c := stacks[i][n-1]
				stacks[i] = stacks[i][:n-1]
				best = i
				return c
			}
		}
		return -1
	}
	faceVisited := func(c int32) bool { return c < 0 || fvisited[c/3] }
	for f := 0; f < len(fvisited); f++ {
		c := int32(3 * f)
		stacks[0] = append(stacks[0], c)
		best = 0
		for _, k := range [3]int32{ebNext(c), ebPrev(c), c} {
			v := w.vert(k)
			if !vertOK(v) {
				return errors.New("traversal: a corner without a vertex")
			}
			if !vvisited[v] {
				visit(v, k)
			}
		}
		for c = pop(); c >= 0; c = pop() {
			if fvisited[c/3] {
				continue
			}
			for {
				fvisited[c/3] = true
				v := w.vert(c)
				if !vertOK(v) {
					return errors.New("traversal: a corner without a vertex")
				}
				if !vvisited[v] {
					visit(v, c)
				}
				right, left := w.opp(ebNext(c)), w.opp(ebPrev(c))
				rightDone, leftDone := faceVisited(right), faceVisited(left)
				if !leftDone {
					p, err := priority(left)
					if err != nil {
						return err
					}
					if rightDone && p <= best {
						c = left
						continue
					}
					push(left, p)
				}
				if !rightDone {
					p, err := priority(right)
					if err != nil {
						return err
					}
					if p <= best {
						c = right
						continue
					}
					push(right, p)
				}
				break
			}
		}
	}
	return nil
}

// pointEntries is UpdatePointToAttributeIndexMapping: each point's entry,
// through its corners' vertices.
func (d *dracoDecoder) pointEntries(s *dracoSequence) ([]int32, error) {
	np := d.mesh.numPoints
	if err := d.alloc(uint64(np), 4); err != nil {
		return nil, err
	}
	m := make([]int32, np)
	for i := range m {
		m[i] = -1
	}
	for c, p := range d.mesh.indices {
		v := s.view.vert(int32(c))
		if v < 0 || int(v) >= len(s.vertexToData) {
			return nil, errors.New("a corner without a vertex")
		}
		e := s.vertexToData[v]
		if int(e) >= np || int(e) >= s.entries {
			return nil, fmt.Errorf("entry %d of %d values", e, s.entries)
		}
		m[p] = e
	}
	for p, e := range m {
		if e < 0 {
			return nil, fmt.Errorf("point %d is on no face", p)
		}
	}
	return m, nil
}

// dracoScheme is a prediction scheme decoder: it reads its data after the
// corrections and turns them into the values in place.
type dracoScheme interface {
	decodeData(r *dracoReader) error
	correctionsPositive() bool
	originals(vals []int32, comps int) error
	method() int8 // PredictionSchemeMethod
}

// scheme creates the prediction scheme of method pm and transform tt for
// ad, as CreatePredictionSchemeForDecoder does: nil where the decoder
// takes no such transform, a mesh scheme where there is connectivity,
// else the difference.
func (d *dracoDecoder) scheme(ad *dracoAttributeDecoder, seq *dracoSequence, pm, tt int8) (dracoScheme, error) {
	mesh := seq.view != nil
	if ad.decoder == 3 {
		if tt != 3 {
			return nil, nil
		}
		oct := &dracoOctahedral{}
		if mesh && pm == 6 {
			pos, err := d.positions(seq)
			if err != nil {
				return nil, err
			}
			return &dracoGeometricNormal{oct: oct, seq: seq, pos: pos}, nil
		}
		return &dracoDeltaScheme{t: oct}, nil
	}
	if tt != 1 {
		return nil, nil
	}
	wrap := &dracoWrap{}
	if !mesh {
		return &dracoDeltaScheme{t: wrap}, nil
	}
	switch pm {
	case 1:
		return &dracoParallelogram{wrap: wrap, seq: seq}, nil
	case 2, 3:
		return nil, dracoUnsupported("the deprecated prediction scheme %d (Draco before 1.2)", pm)
	case 4:
		return &dracoMultiParallelogram{dracoParallelogram{wrap: wrap, seq: seq}, [4][]bool{}}, nil
	case 5:
		pos, err := d.positions(seq)
		if err != nil {
			return nil, err
		}
		return &dracoTexCoords{wrap: wrap, seq: seq, pos: pos}, nil
	case 6:
		return nil, dracoUnsupported("the geometric normal prediction without the octahedral transform")
	}
	return &dracoDeltaScheme{t: wrap}, nil
}

// dracoPositions reads the positions' quantized values at an entry of
// another attribute's sequence (GetPositionForEntryId).
type dracoPositions struct {
	seq      *dracoSequence
	portable []int32
	entry    []int32 // the positions' point → entry, nil identity
}

func (d *dracoDecoder) positions(seq *dracoSequence) (*dracoPositions, error) {
	p := d.position
	if p == nil || p.portable == nil || p.attr.components != 3 || p.portableComponents != 3 {
		return nil, errors.New("a mesh prediction without decoded integer positions of 3 components")
	}
	return &dracoPositions{seq: seq, portable: p.portable, entry: p.pointEntry}, nil
}

func (p *dracoPositions) at(entry int32) ([3]int64, bool) {
	if entry < 0 || int(entry) >= len(p.seq.pointIDs) {
		return [3]int64{}, false
	}
	pt := p.seq.pointIDs[entry]
	if p.entry != nil {
		if int(pt) >= len(p.entry) {
			return [3]int64{}, false
		}
		pt = p.entry[pt]
	}
	if pt < 0 || 3*int(pt)+3 > len(p.portable) {
		return [3]int64{}, false
	}
	v := p.portable[3*pt:]
	return [3]int64{int64(v[0]), int64(v[1]), int64(v[2])}, true
}

// dataOf is the sequence's entry of the vertex at corner c, or -1.
func (s *dracoSequence) dataOf(c int32) int32 {
	return dracoAt(s.vertexToData, s.view.vert(c))
}

// dracoDeltaScheme is PredictionSchemeDeltaDecoder.
type dracoDeltaScheme struct{ t dracoPrediction }

func (s *dracoDeltaScheme) method() int8                    { return 0 }
func (s *dracoParallelogram) method() int8                  { return 1 }
func (s *dracoTexCoords) method() int8                      { return 5 }
func (s *dracoGeometricNormal) method() int8                { return 6 }
func (s *dracoDeltaScheme) decodeData(r *dracoReader) error { return s.t.decodeData(r) }
func (s *dracoDeltaScheme) correctionsPositive() bool       { return s.t.correctionsPositive() }
func (s *dracoDeltaScheme) originals(vals []int32, comps int) error {
	dracoDelta(s.t, vals, comps)
	return nil
}

// dracoParallelogram is MeshPredictionSchemeParallelogramDecoder.
type dracoParallelogram struct {
	wrap *dracoWrap
	seq  *dracoSequence
}

func (s *dracoParallelogram) decodeData(r *dracoReader) error { return s.wrap.decodeData(r) }
func (s *dracoParallelogram) correctionsPositive() bool       { return false }

func (s *dracoParallelogram) originals(vals []int32, comps int) error {
	n := len(s.seq.dataToCorner)
	if n*comps != len(vals) {
		return errors.New("values and corners differ in number")
	}
	pred := make([]int32, comps)
	s.wrap.original(pred, vals[:comps], vals[:comps])
	for p := 1; p < n; p++ {
		out := vals[p*comps : (p+1)*comps]
		if s.predict(int32(p), s.seq.dataToCorner[p], vals, comps, pred) {
			s.wrap.original(pred, out, out)
		} else {
			s.wrap.original(vals[(p-1)*comps:p*comps], out, out)
		}
	}
	return nil
}

// predict is ComputeParallelogramPrediction.
func (s *dracoParallelogram) predict(p, c int32, vals []int32, comps int, out []int32) bool {
	o := s.seq.view.opp(c)
	if o < 0 {
		return false
	}
	vo, vn, vp := s.seq.dataOf(o), s.seq.dataOf(ebNext(o)), s.seq.dataOf(ebPrev(o))
	if vo < 0 || vn < 0 || vp < 0 || vo >= p || vn >= p || vp >= p {
		return false
	}
	for k := 0; k < comps; k++ {
		r := int64(vals[int(vn)*comps+k]) + int64(vals[int(vp)*comps+k]) - int64(vals[int(vo)*comps+k])
		out[k] = int32(r)
	}
	return true
}

// dracoMultiParallelogram is
// MeshPredictionSchemeConstrainedMultiParallelogramDecoder: the mean of
// the parallelograms round the vertex (up to 4) that the encoder did not
// flag as crossing a crease, one list of flags per number of them.
type dracoMultiParallelogram struct {
	dracoParallelogram
	crease [4][]bool
}

func (s *dracoMultiParallelogram) method() int8 { return 4 }

func (s *dracoMultiParallelogram) decodeData(r *dracoReader) error {
	nc := len(s.seq.view.t.vertex)
	for i := range s.crease {
		n, err := r.varint32()
		if err != nil {
			return err
		}
		if uint64(n) > uint64(nc) {
			return fmt.Errorf("%d crease flags for %d corners", n, nc)
		}
		if n == 0 {
			continue
		}
		var bits dracoBitRANS
		if err := bits.start(r); err != nil {
			return fmt.Errorf("crease flags: %w", err)
		}
		s.crease[i] = make([]bool, n)
		for j := range s.crease[i] {
			s.crease[i][j] = bits.bit()
		}
	}
	return s.wrap.decodeData(r)
}

func (s *dracoMultiParallelogram) originals(vals []int32, comps int) error {
	n := len(s.seq.dataToCorner)
	if n*comps != len(vals) {
		return errors.New("values and corners differ in number")
	}
	w := s.seq.view
	var preds [4][]int32
	for i := range preds {
		preds[i] = make([]int32, comps)
	}
	multi := make([]int32, comps)
	var pos [4]int
	s.wrap.original(preds[0], vals[:comps], vals[:comps])
	for p := 1; p < n; p++ {
		start := s.seq.dataToCorner[p]
		c, count, first := start, 0, true
		for k := 0; c >= 0; k++ {
			if k > len(w.t.vertex) {
				return errors.New("a vertex's corners do not end")
			}
			if s.predict(int32(p), c, vals, comps, preds[count]) {
				if count++; count == len(preds) {
					break
				}
			}
			if first {
				c = w.swingLeft(c)
			} else {
				c = w.swingRight(c)
			}
			if c == start {
				break
			}
			if c < 0 && first {
				first = false
				c = w.swingRight(start)
			}
		}
		used := int32(0)
		if count > 0 {
			clear(multi)
			ctx := count - 1
			for i := 0; i < count; i++ {
				if pos[ctx] >= len(s.crease[ctx]) {
					return errors.New("more parallelograms than crease flags")
				}
				crease := s.crease[ctx][pos[ctx]]
				pos[ctx]++
				if !crease {
					used++
					for j := range multi {
						multi[j] = int32(uint32(multi[j]) + uint32(preds[i][j]))
					}
				}
			}
		}
		out := vals[p*comps : (p+1)*comps]
		if used == 0 {
			s.wrap.original(vals[(p-1)*comps:p*comps], out, out)
			continue
		}
		for j := range multi {
			multi[j] /= used
		}
		s.wrap.original(multi, out, out)
	}
	return nil
}

// dracoTexCoords is MeshPredictionSchemeTexCoordsPortableDecoder.
type dracoTexCoords struct {
	wrap        *dracoWrap
	seq         *dracoSequence
	pos         *dracoPositions
	orientation []bool
}

func (s *dracoTexCoords) correctionsPositive() bool { return false }

func (s *dracoTexCoords) decodeData(r *dracoReader) error {
	n, err := r.u32()
	if err != nil {
		return err
	}
	// One orientation per value predicted from two others at most.
	if uint64(n) > uint64(s.seq.entries) {
		return fmt.Errorf("%d orientations for %d values", n, s.seq.entries)
	}
	var bits dracoBitRANS
	if err := bits.start(r); err != nil {
		return fmt.Errorf("orientations: %w", err)
	}
	s.orientation = make([]bool, n)
	last := true
	for i := range s.orientation {
		if !bits.bit() {
			last = !last
		}
		s.orientation[i] = last
	}
	return s.wrap.decodeData(r)
}

func (s *dracoTexCoords) originals(vals []int32, comps int) error {
	if comps != 2 {
		return fmt.Errorf("texture coordinates of %d components (2)", comps)
	}
	n := len(s.seq.dataToCorner)
	if n*comps != len(vals) {
		return errors.New("values and corners differ in number")
	}
	var pred [2]int32
	for p := 0; p < n; p++ {
		if err := s.predict(int32(p), s.seq.dataToCorner[p], vals, &pred); err != nil {
			return err
		}
		out := vals[2*p : 2*p+2]
		s.wrap.original(pred[:], out, out)
	}
	return nil
}

// predict is MeshPredictionSchemeTexCoordsPortablePredictor::ComputePredictedValue.
func (s *dracoTexCoords) predict(id, c int32, data []int32, out *[2]int32) error {
	next, prev := s.seq.dataOf(ebNext(c)), s.seq.dataOf(ebPrev(c))
	if next < 0 || prev < 0 {
		return errors.New("a corner without a vertex")
	}
	if prev < id && next < id {
		nu, nv := int64(data[2*next]), int64(data[2*next+1])
		pu, pv := int64(data[2*prev]), int64(data[2*prev+1])
		if nu == pu && nv == pv {
			out[0], out[1] = int32(pu), int32(pv)
			return nil
		}
		tip, ok1 := s.pos.at(id)
		np, ok2 := s.pos.at(next)
		pp, ok3 := s.pos.at(prev)
		if !ok1 || !ok2 || !ok3 {
			return errors.New("a texture coordinate without a position")
		}
		var pn, cn [3]int64
		for k := range pn {
			pn[k] = pp[k] - np[k]
			cn[k] = tip[k] - np[k]
		}
		pnNorm2 := uint64(pn[0]*pn[0] + pn[1]*pn[1] + pn[2]*pn[2])
		if pnNorm2 != 0 {
			cnDotPn := pn[0]*cn[0] + pn[1]*cn[1] + pn[2]*cn[2]
			pnU, pnV := pu-nu, pv-nv
			if uint64(max(dracoAbs64(nu), dracoAbs64(nv))) > uint64(math.MaxInt64)/pnNorm2 {
				return errors.New("texture coordinates out of range")
			}
			pnUVMax := max(dracoAbs64(pnU), dracoAbs64(pnV))
			if dracoAbs64(cnDotPn) > math.MaxInt64/pnUVMax {
				return errors.New("texture coordinates out of range")
			}
			xU := nu*int64(pnNorm2) + cnDotPn*pnU
			xV := nv*int64(pnNorm2) + cnDotPn*pnV
			pnMax := max(dracoAbs64(pn[0]), dracoAbs64(pn[1]), dracoAbs64(pn[2]))
			if dracoAbs64(cnDotPn) > math.MaxInt64/pnMax {
				return errors.New("positions out of range")
			}
			var cx [3]int64
			for k := range cx {
				xp := np[k] + cnDotPn*pn[k]/int64(pnNorm2)
				cx[k] = tip[k] - xp
			}
			cxNorm2 := uint64(cx[0]*cx[0] + cx[1]*cx[1] + cx[2]*cx[2])
			norm := int64(dracoIntSqrt(cxNorm2 * pnNorm2))
			cxU, cxV := pnV*norm, -pnU*norm
			if len(s.orientation) == 0 {
				return errors.New("more texture coordinates than orientations")
			}
			o := s.orientation[len(s.orientation)-1]
			s.orientation = s.orientation[:len(s.orientation)-1]
			var u, v int64
			if o {
				u, v = int64(uint64(xU)+uint64(cxU)), int64(uint64(xV)+uint64(cxV))
			} else {
				u, v = int64(uint64(xU)-uint64(cxU)), int64(uint64(xV)-uint64(cxV))
			}
			out[0], out[1] = int32(u/int64(pnNorm2)), int32(v/int64(pnNorm2))
			return nil
		}
	}
	off := int32(0)
	if prev < id {
		off = 2 * prev
	}
	if next < id {
		off = 2 * next
	} else if id > 0 {
		off = 2 * (id - 1)
	} else {
		out[0], out[1] = 0, 0
		return nil
	}
	out[0], out[1] = data[off], data[off+1]
	return nil
}

func dracoAbs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// dracoIntSqrt is Draco's IntSqrt: floor(√n) by Newton's method.
func dracoIntSqrt(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	act, r := n, uint64(1)
	for act >= 2 {
		r *= 2
		act /= 4
	}
	for {
		r = (r + n/r) / 2
		if r*r <= n {
			return r
		}
	}
}

// dracoGeometricNormal is MeshPredictionSchemeGeometricNormalDecoder with
// the triangle-area predictor and the canonicalized octahedron transform.
type dracoGeometricNormal struct {
	oct  *dracoOctahedral
	seq  *dracoSequence
	pos  *dracoPositions
	flip dracoBitRANS
}

func (s *dracoGeometricNormal) correctionsPositive() bool { return true }

func (s *dracoGeometricNormal) decodeData(r *dracoReader) error {
	if err := s.oct.decodeData(r); err != nil {
		return err
	}
	if err := s.flip.start(r); err != nil {
		return fmt.Errorf("normal flips: %w", err)
	}
	return nil
}

func (s *dracoGeometricNormal) originals(vals []int32, comps int) error {
	if comps != 2 {
		return fmt.Errorf("octahedral normals of %d components (2)", comps)
	}
	n := len(s.seq.dataToCorner)
	if n*comps != len(vals) {
		return errors.New("values and corners differ in number")
	}
	o := &s.oct.oct
	var pred [2]int32
	for id := 0; id < n; id++ {
		nrm, err := s.predict(s.seq.dataToCorner[id])
		if err != nil {
			return err
		}
		v := [3]int32{int32(nrm[0]), int32(nrm[1]), int32(nrm[2])}
		o.canonicalize(&v)
		if s.flip.bit() {
			v = [3]int32{-v[0], -v[1], -v[2]}
		}
		pred[0], pred[1] = o.fromIntegerVector(v)
		out := vals[2*id : 2*id+2]
		s.oct.original(pred[:], out, out)
	}
	return nil
}

// predict is MeshPredictionSchemeGeometricNormalPredictorArea's sum of the
// cross products of the faces round the corner's vertex.
func (s *dracoGeometricNormal) predict(c int32) ([3]int64, error) {
	w := s.seq.view
	posOf := func(c int32) ([3]int64, error) {
		e := s.seq.dataOf(c)
		p, ok := s.pos.at(e)
		if !ok {
			return p, errors.New("a normal without a position")
		}
		return p, nil
	}
	cent, err := posOf(c)
	if err != nil {
		return cent, err
	}
	var nrm [3]uint64
	// VertexCornersIterator from c: left, then right from c.
	start, cur, left := c, c, true
	for k := 0; cur >= 0; k++ {
		if k > len(w.t.vertex) {
			return [3]int64{}, errors.New("a vertex's corners do not end")
		}
		pn, err := posOf(ebNext(cur))
		if err != nil {
			return pn, err
		}
		pp, err := posOf(ebPrev(cur))
		if err != nil {
			return pp, err
		}
		var dn, dp [3]int64
		for i := range dn {
			dn[i], dp[i] = pn[i]-cent[i], pp[i]-cent[i]
		}
		cross := [3]int64{dn[1]*dp[2] - dn[2]*dp[1], dn[2]*dp[0] - dn[0]*dp[2], dn[0]*dp[1] - dn[1]*dp[0]}
		for i := range nrm {
			nrm[i] += uint64(cross[i])
		}
		cur, left = w.nextCorner(start, cur, left)
	}
	v := [3]int64{int64(nrm[0]), int64(nrm[1]), int64(nrm[2])}
	const upper = 1 << 29
	if sum := dracoAbs64(v[0]) + dracoAbs64(v[1]) + dracoAbs64(v[2]); sum > upper {
		q := sum / upper
		for i := range v {
			v[i] /= q
		}
	}
	return v, nil
}

// canonicalize is CanonicalizeIntegerVector: the vector scaled to an
// absolute sum of the centre value.
func (o *dracoOctahedron) canonicalize(v *[3]int32) {
	sum := int64(dracoIAbs(v[0])) + int64(dracoIAbs(v[1])) + int64(dracoIAbs(v[2]))
	if sum == 0 {
		v[0] = o.center
		return
	}
	v[0] = int32(int64(v[0]) * int64(o.center) / sum)
	v[1] = int32(int64(v[1]) * int64(o.center) / sum)
	if v[2] >= 0 {
		v[2] = o.center - dracoIAbs(v[0]) - dracoIAbs(v[1])
	} else {
		v[2] = -(o.center - dracoIAbs(v[0]) - dracoIAbs(v[1]))
	}
}

// fromIntegerVector is IntegerVectorToQuantizedOctahedralCoords.
func (o *dracoOctahedron) fromIntegerVector(v [3]int32) (int32, int32) {
	var s, t int32
	if v[0] >= 0 {
		s, t = v[1]+o.center, v[2]+o.center
	} else {
		if v[1] < 0 {
			s = dracoIAbs(v[2])
		} else {
			s = o.maxValue - dracoIAbs(v[2])
		}
		if v[2] < 0 {
			t = dracoIAbs(v[1])
		} else {
			t = o.maxValue - dracoIAbs(v[1])
		}
	}
	// CanonicalizeOctahedralCoords.
	switch m, c := o.maxValue, o.center; {
	case s == 0 && t == 0, s == 0 && t == m, s == m && t == 0:
		s, t = m, m
	case s == 0 && t > c:
		t = c - (t - c)
	case s == m && t < c:
		t = c + (c - t)
	case t == m && s < c:
		s = c + (c - s)
	case t == 0 && s > c:
		s = c - (s - c)
	}
	return s, t
}
