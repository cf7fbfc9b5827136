package scenes

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// A skinned mesh is drawn in the pose its skeleton's nodes hold in the
// file (their matrix or translation, rotation and scale, no animation),
// as a glTF viewer shows it before an animation plays: each vertex is
// moved by the blend of its joints' matrices (linear blend skinning,
// glTF 2.0 §3.7.3), each joint's being the joint node's world matrix
// times its inverse bind matrix. The skinned node's own transform is
// ignored, as glTF specifies. A character exported from Blender with its
// armature rotated or scaled (a Z-up model turned Y-up, a rig in
// centimetres scaled by 0.01) then stands as it does in Blender, where
// its vertices as stored would lie on their side at a hundred times the
// size.

// gltfPlace is an affine map of a glTF mesh's vertices: m for points, lin
// its linear part for directions in the surface (tangents), cof its
// cofactor matrix times the sign of det for normals (det·lin's inverse
// transpose, without dividing by a possibly tiny det).
type gltfPlace struct {
	m        mgl64.Mat4
	lin, cof mgl64.Mat3
	det      float64
}

// newGLTFPlace returns m as a gltfPlace.
func newGLTFPlace(m mgl64.Mat4) gltfPlace {
	lin := m.Mat3()
	det := lin.Det()
	// The cofactor matrix [b×c | c×a | a×b] of lin = [a | b | c] is det
	// times lin's inverse transpose.
	a, b, c := lin.Col(0), lin.Col(1), lin.Col(2)
	cof := mgl64.Mat3FromCols(b.Cross(c), c.Cross(a), a.Cross(b))
	if det < 0 {
		cof = cof.Mul(-1)
	}
	return gltfPlace{m: m, lin: lin, cof: cof, det: det}
}

// gltfSkinning is how the vertices of one skinned primitive are placed:
// each vertex's four joints and their weights (normalised to a sum of 1),
// and the skin's joint matrices.
type gltfSkinning struct {
	joints  [][4]uint16
	weights [][4]float32
	mats    []mgl64.Mat4
}

// place returns the map of vertex i: the weighted sum of its joints'
// matrices.
func (s *gltfSkinning) place(i int) gltfPlace {
	var m mgl64.Mat4
	for k, j := range s.joints[i] {
		w := float64(s.weights[i][k])
		if w == 0 {
			continue
		}
		for e := range m {
			m[e] += w * s.mats[j][e]
		}
	}
	return newGLTFPlace(m)
}

// skinMatrices returns the joint matrices of skins[si] (once per skin):
// for each joint, its node's world matrix in the file's pose times its
// inverse bind matrix (identity when the skin has none).
func (l *gltfLoader) skinMatrices(si int) ([]mgl64.Mat4, error) {
	if m, ok := l.skinMats[si]; ok {
		return m, nil
	}
	doc := l.doc
	where := fmt.Sprintf("skins[%d]", si)
	if si < 0 || si >= len(doc.Skins) || doc.Skins[si] == nil {
		return nil, l.errorf(nil, "%s does not exist", where)
	}
	skin := doc.Skins[si]
	if len(skin.Joints) == 0 {
		return nil, l.errorf(nil, "%s has no joints", where)
	}
	var ibm [][4][4]float32
	if skin.InverseBindMatrices != nil {
		ai := *skin.InverseBindMatrices
		acc, err := l.accessor(ai, where+".inverseBindMatrices")
		if err != nil {
			return nil, err
		}
		if acc.ComponentType != gltf.ComponentFloat || acc.Type != gltf.AccessorMat4 {
			return nil, l.errorf(nil, "%s.inverseBindMatrices is %s %s, not FLOAT MAT4", where, acc.ComponentType, acc.Type)
		}
		if acc.Count < len(skin.Joints) {
			return nil, l.errorf(nil, "%s.inverseBindMatrices has %d matrices for %d joints", where, acc.Count, len(skin.Joints))
		}
		if ibm, err = l.inverseBindMatrices(ai, acc, len(skin.Joints)); err != nil {
			return nil, l.errorf(err, "%s.inverseBindMatrices: accessors[%d]: %v", where, ai, err)
		}
	}
	mats := make([]mgl64.Mat4, len(skin.Joints))
	for k, j := range skin.Joints {
		world, err := l.nodeWorld(j)
		if err != nil {
			return nil, l.errorf(nil, "%s.joints[%d]: %v", where, k, err)
		}
		inv := mgl64.Ident4()
		if ibm != nil {
			for c := range 4 {
				for r := range 4 {
					x := float64(ibm[k][c][r])
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, l.errorf(nil, "%s.inverseBindMatrices[%d] is not finite", where, k)
					}
					inv[4*c+r] = x
				}
			}
		}
		mats[k] = world.Mul4(inv)
	}
	if l.skinMats == nil {
		l.skinMats = map[int][]mgl64.Mat4{}
	}
	l.skinMats[si] = mats
	return mats, nil
}

// inverseBindMatrices reads the first n matrices of accessors[ai] (acc,
// checked to hold at least n): only those, so that many skins naming one
// large accessor do not each decode all of it. A sparse accessor is read
// whole, once however many skins name it, and all the sparse ones a file's
// skins name together may not decode more bytes than its buffers hold.
func (l *gltfLoader) inverseBindMatrices(ai int, acc *gltf.Accessor, n int) ([][4][4]float32, error) {
	if acc.Sparse == nil {
		head := *acc
		head.Count = n
		return modeler.ReadInverseBindMatrices(l.doc, &head, nil)
	}
	if m, ok := l.sparseIBMs[ai]; ok {
		return m, nil
	}
	if l.sparseIBMBytes += acc.Count * 64; l.sparseIBMBytes > l.bufferBytes {
		return nil, fmt.Errorf("sparse inverse bind matrices of %d bytes in all: more than the %d bytes of the file's buffers", l.sparseIBMBytes, l.bufferBytes)
	}
	m, err := modeler.ReadInverseBindMatrices(l.doc, acc, nil)
	if err != nil {
		return nil, err
	}
	if l.sparseIBMs == nil {
		l.sparseIBMs = map[int][][4][4]float32{}
	}
	l.sparseIBMs[ai] = m
	return m, nil
}

// nodeWorld returns nodes[i]'s world matrix in the file's pose: its
// parent's world matrix times its local matrix, whether or not the default
// scene holds it (a skin's joints need not be drawn). Each node's is
// computed once and kept, so that the joints of a deep skeleton cost
// time in proportion to its nodes, not to their number times its depth.
func (l *gltfLoader) nodeWorld(i int) (mgl64.Mat4, error) {
	doc := l.doc
	if i < 0 || i >= len(doc.Nodes) || doc.Nodes[i] == nil {
		return mgl64.Mat4{}, fmt.Errorf("nodes[%d] does not exist", i)
	}
	if l.parents == nil {
		l.parents = make([]int, len(doc.Nodes))
		for k := range l.parents {
			l.parents[k] = -1
		}
		for p, n := range doc.Nodes {
			if n == nil {
				continue
			}
			for _, c := range n.Children {
				if c >= 0 && c < len(doc.Nodes) {
					l.parents[c] = p
				}
			}
		}
		l.worlds = make([]mgl64.Mat4, len(doc.Nodes))
		l.worldKnown = make([]bool, len(doc.Nodes))
	}
	// The nodes from i up to the first whose world matrix is known (or
	// the root), then their matrices from the top down.
	var chain []int
	for j := i; j >= 0 && !l.worldKnown[j]; j = l.parents[j] {
		if len(chain) == len(doc.Nodes) {
			return mgl64.Mat4{}, fmt.Errorf("nodes[%d] is its own ancestor", j)
		}
		chain = append(chain, j)
	}
	if len(chain) == 0 {
		return l.worlds[i], nil
	}
	m := mgl64.Ident4()
	if top := l.parents[chain[len(chain)-1]]; top >= 0 {
		m = l.worlds[top]
	}
	for k := len(chain) - 1; k >= 0; k-- {
		j := chain[k]
		local, err := gltfNodeMatrix(doc.Nodes[j])
		l.localMatrices++
		if err != nil {
			return m, fmt.Errorf("nodes[%d]: %v", j, err)
		}
		m = m.Mul4(local)
		l.worlds[j], l.worldKnown[j] = m, true
	}
	return m, nil
}

// skinning reads the JOINTS_0 and WEIGHTS_0 of a primitive of nv vertices
// that nodes[node] skins with skins[si].
func (l *gltfLoader) skinning(node, si, mesh, k, nv int) (*gltfSkinning, error) {
	mats, err := l.skinMatrices(si)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("meshes[%d].primitives[%d]", mesh, k)
	gp := l.doc.Meshes[mesh].Primitives[k]
	ji, okJ := gp.Attributes[gltf.JOINTS_0]
	wi, okW := gp.Attributes[gltf.WEIGHTS_0]
	if !okJ || !okW {
		return nil, l.errorf(nil, "%s: nodes[%d] skins it with skins[%d], but it has no JOINTS_0 or no WEIGHTS_0", where, node, si)
	}
	s := &gltfSkinning{mats: mats}
	acc, err := l.accessor(ji, where+".attributes.JOINTS_0")
	if err != nil {
		return nil, err
	}
	if acc.Count != nv {
		return nil, l.errorf(nil, "%s: JOINTS_0 has %d elements, POSITION %d", where, acc.Count, nv)
	}
	if s.joints, err = modeler.ReadJoints(l.doc, acc, nil); err != nil {
		return nil, l.errorf(err, "%s: JOINTS_0: accessors[%d]: %v", where, ji, err)
	}
	if acc, err = l.accessor(wi, where+".attributes.WEIGHTS_0"); err != nil {
		return nil, err
	}
	if acc.Count != nv {
		return nil, l.errorf(nil, "%s: WEIGHTS_0 has %d elements, POSITION %d", where, acc.Count, nv)
	}
	if s.weights, err = modeler.ReadWeights(l.doc, acc, nil); err != nil {
		return nil, l.errorf(err, "%s: WEIGHTS_0: accessors[%d]: %v", where, wi, err)
	}
	for i := range nv {
		var sum float64
		for c := range 4 {
			w := s.weights[i][c]
			if !(w >= 0) || math.IsInf(float64(w), 0) {
				return nil, l.errorf(nil, "%s: WEIGHTS_0 %d, %v, is not finite and >= 0", where, i, s.weights[i])
			}
			if w > 0 && int(s.joints[i][c]) >= len(mats) {
				return nil, l.errorf(nil, "%s: JOINTS_0 %d names joint %d, but skins[%d] has %d", where, i, s.joints[i][c], si, len(mats))
			}
			sum += float64(w)
		}
		if !(sum > 0) {
			return nil, l.errorf(nil, "%s: WEIGHTS_0 %d is all zeros", where, i)
		}
		for c := range 4 {
			s.weights[i][c] = float32(float64(s.weights[i][c]) / sum)
		}
	}
	return s, nil
}
