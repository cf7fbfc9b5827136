package scenes

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// A primitive with morph targets is drawn in the shape its weights give
// (glTF 2.0 §3.7.2.2): each vertex's POSITION, NORMAL and TANGENT are the
// base's plus the sum of weight_i times target i's displacement, the
// weights being the node's "weights", else the mesh's, else zeros. The
// morphed vertices are then skinned and placed as any (morphing comes
// first, as glTF says), and normals and tangents renormalised there.
// A target's displacements are read as any accessor is: sparse, from a
// meshopt-compressed view, and, in a file that lists
// KHR_mesh_quantization, of the integer types it allows for targets
// (gltfQuantizedTarget). Targets of other attributes (TEXCOORD_n,
// COLOR_n) are not applied, with a warning naming them.

// gltfTarget is one morph target of a primitive: its displacements, nil
// for an attribute it does not move.
type gltfTarget struct {
	positions, normals, tangents [][3]float32
}

// gltfQuantizedTarget is what a file listing KHR_mesh_quantization allows
// a morph target's attributes besides FLOAT VEC3: BYTE and SHORT
// displacements, normalized or not for POSITION, normalized only for
// NORMAL and TANGENT (the extension's "Extending Morph Target
// Attributes").
var gltfQuantizedTarget = map[string]struct {
	types      []gltf.ComponentType
	normalized bool // required
}{
	gltf.POSITION: {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentShort}, false},
	gltf.NORMAL:   {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentShort}, true},
	gltf.TANGENT:  {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentShort}, true},
}

// morphTargets reads the targets of the primitive gp (at where, of nv
// vertices) into p.targets. Their vertices count against the file's
// limit of 3·MaxTriangles vertices, as the instances' do, before any is
// read.
func (l *gltfLoader) morphTargets(gp *gltf.Primitive, p *gltfPrimitive, where string, nv int) error {
	if len(gp.Targets) == 0 {
		return nil
	}
	if n := len(gp.Targets); n > 3*tracer.MaxTriangles/max(nv, 1) || l.vertices+n*nv > 3*tracer.MaxTriangles {
		return l.errorf(nil, "%s: %d morph targets of %d vertices: more than %d vertices (3·MaxTriangles) in the file's meshes and morph targets together", where, n, nv, 3*tracer.MaxTriangles)
	}
	l.vertices += len(gp.Targets) * nv
	p.targets = make([]gltfTarget, len(gp.Targets))
	for ti, attrs := range gp.Targets {
		at := fmt.Sprintf("%s.targets[%d]", where, ti)
		names := make([]string, 0, len(attrs))
		for name := range attrs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ai := attrs[name]
			var dst *[][3]float32
			switch name {
			case gltf.POSITION:
				dst = &p.targets[ti].positions
			case gltf.NORMAL:
				dst = &p.targets[ti].normals
			case gltf.TANGENT:
				dst = &p.targets[ti].tangents
			default:
				l.unmorphed = append(l.unmorphed, at+"."+name)
				continue
			}
			v, err := l.targetVec3s(ai, at, name, nv)
			if err != nil {
				return err
			}
			*dst = v
		}
	}
	return nil
}

// targetVec3s reads the displacements of attribute name of the morph
// target at where: nv finite VEC3 of FLOAT or of what
// gltfQuantizedTarget allows.
func (l *gltfLoader) targetVec3s(ai int, where, name string, nv int) ([][3]float32, error) {
	at := where + "." + name
	acc, err := l.accessor(ai, at)
	if err != nil {
		return nil, err
	}
	q := gltfQuantizedTarget[name]
	quantized := l.quantized && slices.Contains(q.types, acc.ComponentType) && (acc.Normalized || !q.normalized)
	if acc.Type != gltf.AccessorVec3 || acc.ComponentType != gltf.ComponentFloat && !quantized {
		types := "BYTE or SHORT"
		if q.normalized {
			types = "normalized BYTE or SHORT"
		}
		return nil, l.errorf(nil, "%s is %s %s%s, not supported (only FLOAT VEC3%s)", at, acc.ComponentType, acc.Type, gltfNormalizedWord(acc), l.quantizedHint(types))
	}
	if acc.Count != nv {
		return nil, l.errorf(nil, "%s has %d elements, POSITION %d", at, acc.Count, nv)
	}
	var out [][3]float32
	if acc.ComponentType == gltf.ComponentFloat {
		if out, err = modeler.ReadPosition(l.doc, acc, nil); err != nil {
			return nil, l.errorf(err, "%s: accessors[%d]: %v", at, ai, err)
		}
	} else {
		v, err := l.dequantize(acc, ai, 3, at)
		if err != nil {
			return nil, err
		}
		out = gltfVec3s(v)
	}
	for i, d := range out {
		if !gltfFinite(d) {
			return nil, l.errorf(nil, "%s %d is not finite", at, i)
		}
	}
	return out, nil
}

// morphWeights returns the weights nodes[node] gives the targets of
// meshes[mesh].primitives[k], p: the node's, else the mesh's, else nil
// (all zero). A list of another length than the targets', or a weight
// that is not finite, is an error.
func (l *gltfLoader) morphWeights(node, mesh, k int, p *gltfPrimitive) ([]float64, error) {
	if len(p.targets) == 0 {
		return nil, nil
	}
	w, from := l.doc.Nodes[node].Weights, fmt.Sprintf("nodes[%d].weights", node)
	if w == nil {
		w, from = l.doc.Meshes[mesh].Weights, fmt.Sprintf("meshes[%d].weights", mesh)
	}
	if w == nil {
		return nil, nil
	}
	if len(w) != len(p.targets) {
		return nil, l.errorf(nil, "%s has %d values, meshes[%d].primitives[%d] %d morph targets", from, len(w), mesh, k, len(p.targets))
	}
	for i, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, l.errorf(nil, "%s[%d] is %g, not a finite number", from, i, x)
		}
	}
	return w, nil
}

// gltfMoves reports whether a target with a weight other than 0 has
// displacements of(target).
func gltfMoves(targets []gltfTarget, weights []float64, of func(*gltfTarget) [][3]float32) bool {
	for i := range targets {
		if i < len(weights) && weights[i] != 0 && of(&targets[i]) != nil {
			return true
		}
	}
	return false
}

// gltfMorph returns base plus the sum of weights[i] times the
// displacements of(targets[i]), computed in float64 and rounded once, and
// −1; or, where a result is not finite, nil and its index.
func gltfMorph(base [][3]float32, targets []gltfTarget, weights []float64, of func(*gltfTarget) [][3]float32) ([][3]float32, int) {
	out := make([][3]float32, len(base))
	for v, b := range base {
		s := [3]float64{float64(b[0]), float64(b[1]), float64(b[2])}
		for i := range targets {
			d := of(&targets[i])
			if d == nil || weights[i] == 0 {
				continue
			}
			for c := range 3 {
				s[c] += weights[i] * float64(d[v][c])
			}
		}
		out[v] = [3]float32{float32(s[0]), float32(s[1]), float32(s[2])}
		if !gltfFinite(out[v]) {
			return nil, v
		}
	}
	return out, -1
}

// gltfPositions, gltfNormals and gltfTangents pick a target's
// displacements of one attribute.
func gltfPositions(t *gltfTarget) [][3]float32 { return t.positions }
func gltfNormals(t *gltfTarget) [][3]float32   { return t.normals }
func gltfTangents(t *gltfTarget) [][3]float32  { return t.tangents }

// morph returns the positions, normals and tangents of p, meshes[mesh].
// primitives[k], as the weights nodes[node] gives it morph them: p's own
// slices where no target with a weight moves them. A result out of
// float32's range is an error naming the vertex, as a position out of it
// is; so are weights other than 0 on a primitive compressed with
// Draco's edgebreaker encoding. KHR_draco_mesh_compression compresses
// the base attributes alone and says nothing of targets, whose
// accessors are read uncompressed, vertex by vertex: that holds for
// Draco's sequential encoding, which keeps the points in the order the
// encoder was given them (Blender's exporter encodes a mesh with shape
// keys so, "preserving the triangle order", and writes the targets in
// that order), not for edgebreaker, which numbers them in its
// traversal's order.
func (l *gltfLoader) morph(node, mesh, k int, p *gltfPrimitive) (pos, nrm [][3]float32, tan [][4]float32, err error) {
	pos, nrm, tan = p.positions, p.normals, p.tangents
	weights, err := l.morphWeights(node, mesh, k, p)
	if err != nil || weights == nil {
		return pos, nrm, tan, err
	}
	where := fmt.Sprintf("nodes[%d]: meshes[%d].primitives[%d]", node, mesh, k)
	movesPos := gltfMoves(p.targets, weights, gltfPositions)
	movesNrm := nrm != nil && gltfMoves(p.targets, weights, gltfNormals)
	movesTan := tan != nil && gltfMoves(p.targets, weights, gltfTangents)
	if !movesPos && !movesNrm && !movesTan {
		return pos, nrm, tan, nil
	}
	if l.renumbered[[2]int{mesh, k}] {
		return nil, nil, nil, l.errorf(nil, "%s: morph targets with weights other than 0 on a primitive compressed with Draco's edgebreaker encoding: not supported (%s compresses the base attributes alone, and edgebreaker renumbers the vertices, which the targets' uncompressed accessors follow in their old order; Draco's sequential encoding, Blender's for meshes with shape keys, keeps it)", where, gltfDracoExt)
	}
	// Nodes giving p the same weights (one slice: the mesh's, or an
	// animation sampler's, shared) share the last result for it, so that
	// a primitive instanced by many nodes is not morphed once per node.
	pk := [2]int{mesh, k}
	if m, ok := l.morphed[pk]; ok && m.weights == &weights[0] {
		return m.pos, m.nrm, m.tan, nil
	}
	bad := -1
	l.morphs += gltfCount01(movesPos) + gltfCount01(movesNrm) + gltfCount01(movesTan)
	if movesPos {
		if pos, bad = gltfMorph(pos, p.targets, weights, gltfPositions); pos == nil {
			return nil, nil, nil, l.errorf(nil, "%s: POSITION %d is not finite after the morph targets", where, bad)
		}
	}
	if movesNrm {
		if nrm, bad = gltfMorph(nrm, p.targets, weights, gltfNormals); nrm == nil {
			return nil, nil, nil, l.errorf(nil, "%s: NORMAL %d is not finite after the morph targets", where, bad)
		}
	}
	if movesTan {
		xyz := make([][3]float32, len(tan))
		for i, t := range tan {
			xyz[i] = [3]float32{t[0], t[1], t[2]}
		}
		moved, bad := gltfMorph(xyz, p.targets, weights, gltfTangents)
		if moved == nil {
			return nil, nil, nil, l.errorf(nil, "%s: TANGENT %d is not finite after the morph targets", where, bad)
		}
		tan = make([][4]float32, len(moved))
		for i, t := range moved {
			tan[i] = [4]float32{t[0], t[1], t[2], p.tangents[i][3]} // the handedness stays
		}
	}
	if l.morphed == nil {
		l.morphed = map[[2]int]gltfMorphed{}
	}
	l.morphed[pk] = gltfMorphed{&weights[0], pos, nrm, tan}
	return pos, nrm, tan, nil
}

// gltfMorphed is a primitive's last morph (gltfLoader.morph): the weights
// it was computed with (their first element: the slice) and its vertices,
// read only.
type gltfMorphed struct {
	weights  *float64
	pos, nrm [][3]float32
	tan      [][4]float32
}

// gltfCount01 is 1 for true, 0 for false.
func gltfCount01(b bool) int {
	if b {
		return 1
	}
	return 0
}
