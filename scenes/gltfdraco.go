package scenes

import (
	"fmt"
	"maps"
	"slices"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// gltfDracoExt compresses a primitive's geometry with Draco
// (KHR_draco_mesh_compression: Blender's exporter's "Compression",
// gltf-pipeline -d, glTF-Transform's draco): the primitive's indices and
// the attributes its map names are decoded from one bufferView
// (scenes/draco.go), and its accessors keep only their count, type and
// component type.
const gltfDracoExt = "KHR_draco_mesh_compression"

// gltfDracoPrimitive is a primitive's KHR_draco_mesh_compression object.
type gltfDracoPrimitive struct {
	BufferView *int            `json:"bufferView"`
	Attributes map[string]*int `json:"attributes"` // glTF semantic → Draco attribute unique id
}

// gltfDracoComponent is the glTF component type of each Draco data type
// an accessor may read.
var gltfDracoComponent = map[int]gltf.ComponentType{
	dracoInt8: gltf.ComponentByte, dracoUint8: gltf.ComponentUbyte,
	dracoInt16: gltf.ComponentShort, dracoUint16: gltf.ComponentUshort,
	dracoUint32: gltf.ComponentUint, dracoFloat32: gltf.ComponentFloat,
}

// decodeDraco decodes every primitive with KHR_draco_mesh_compression and
// points its accessors at the decoded data: each attribute the extension
// maps, and the indices (an accessor of UNSIGNED_INT, added where the
// primitive has none), get a buffer and a view of their own, which the
// primitive then reads as any accessor, so KHR_mesh_quantization's types,
// colours and the rest apply as before. Draco's points are glTF's
// vertices. The decoded bytes count against MaxAssetBytes (assets.reserve)
// before they are allocated; a bufferView decoded once is not decoded
// again for a primitive that shares it. Errors name the primitive's
// extension object.
func (l *gltfLoader) decodeDraco() error {
	doc := l.doc
	decoded := map[int]*dracoMesh{}          // by bufferView
	claimed := map[int]string{}              // accessor → the Draco attribute that wrote it ("bufferView/id")
	indexViews := map[int]*gltf.BufferView{} // by bufferView: the indices' view, shared
	for mi, m := range doc.Meshes {
		if m == nil {
			continue
		}
		for k, gp := range m.Primitives {
			if gp == nil {
				continue
			}
			raw, ok := gp.Extensions[gltfDracoExt]
			if !ok {
				continue
			}
			where := fmt.Sprintf("meshes[%d].primitives[%d].extensions.%s", mi, k, gltfDracoExt)
			var ext gltfDracoPrimitive
			if err := gltfExtension(raw, &ext); err != nil {
				return l.errorf(err, "%s: %v", where, err)
			}
			if ext.BufferView == nil {
				return l.errorf(nil, "%s: no bufferView", where)
			}
			if ext.Attributes == nil {
				return l.errorf(nil, "%s: no attributes", where)
			}
			if gp.Mode != gltf.PrimitiveTriangles {
				return l.errorf(nil, "%s: mode %s (Draco decodes TRIANGLES only)", where, gp.Mode)
			}
			bvi := *ext.BufferView
			dm, ok := decoded[bvi]
			if !ok {
				if bvi < 0 || bvi >= len(doc.BufferViews) || doc.BufferViews[bvi] == nil {
					return l.errorf(nil, "%s: bufferViews[%d] does not exist", where, bvi)
				}
				src, err := modeler.ReadBufferView(doc, doc.BufferViews[bvi])
				if err != nil {
					return l.errorf(err, "%s: bufferViews[%d] is outside its buffer: %v", where, bvi, err)
				}
				if dm, err = decodeDraco(src, l.a.reserve); err != nil {
					return l.errorf(err, "%s: bufferViews[%d]: %v", where, bvi, err)
				}
				decoded[bvi] = dm
			}
			if dm.renumbered {
				if l.renumbered == nil {
					l.renumbered = map[[2]int]bool{}
				}
				l.renumbered[[2]int{mi, k}] = true // its morph targets' order is not the points' (gltfmorph.go)
			}
			for _, sem := range slices.Sorted(maps.Keys(ext.Attributes)) {
				if err := l.dracoAttribute(gp, dm, sem, ext.Attributes[sem], bvi, claimed, where); err != nil {
					return err
				}
			}
			if err := l.dracoIndices(gp, dm, bvi, indexViews, claimed, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// dracoAttribute points the accessor of semantic sem at Draco attribute
// id of dm, decoded from bufferViews[bvi].
func (l *gltfLoader) dracoAttribute(gp *gltf.Primitive, dm *dracoMesh, sem string, id *int, bvi int, claimed map[int]string, where string) error {
	doc := l.doc
	at := where + ".attributes." + sem
	if id == nil || *id < 0 {
		return l.errorf(nil, "%s is not a Draco attribute id", at)
	}
	ai, ok := gp.Attributes[sem]
	if !ok {
		return l.errorf(nil, "%s: the primitive has no %s attribute", at, sem)
	}
	if ai < 0 || ai >= len(doc.Accessors) || doc.Accessors[ai] == nil {
		return l.errorf(nil, "%s: accessors[%d] does not exist", at, ai)
	}
	acc := doc.Accessors[ai]
	da := dm.attribute(uint32(*id))
	if da == nil {
		return l.errorf(nil, "%s: the Draco stream of bufferViews[%d] has no attribute of unique id %d", at, bvi, *id)
	}
	key := fmt.Sprintf("%d/%d", bvi, *id)
	if prev, ok := claimed[ai]; ok {
		if prev != key {
			return l.errorf(nil, "%s: accessors[%d] is also another Draco attribute's", at, ai)
		}
		return nil // decoded for a primitive that shares it
	}
	ct, ok := gltfDracoComponent[da.dataType]
	if !ok || ct != acc.ComponentType || da.components != gltf.SizeOfElement(gltf.ComponentUbyte, acc.Type) {
		return l.errorf(nil, "%s: accessors[%d] is %s %s, the Draco attribute %d × %s", at, ai, acc.ComponentType, acc.Type, da.components, dracoTypeName[da.dataType])
	}
	if acc.Count != dm.numPoints {
		return l.errorf(nil, "%s: accessors[%d] has %d elements, the Draco stream %d points", at, ai, acc.Count, dm.numPoints)
	}
	l.dracoView(acc, da.data)
	claimed[ai] = key
	return nil
}

// dracoIndices points the primitive's indices at dm's triangles, adding
// an accessor where it has none.
func (l *gltfLoader) dracoIndices(gp *gltf.Primitive, dm *dracoMesh, bvi int, views map[int]*gltf.BufferView, claimed map[int]string, where string) error {
	doc := l.doc
	if len(dm.indices) == 0 {
		return l.errorf(nil, "%s: the Draco stream of bufferViews[%d] has no triangles", where, bvi)
	}
	key := fmt.Sprintf("%d/indices", bvi)
	if gp.Indices == nil {
		doc.Accessors = append(doc.Accessors, &gltf.Accessor{ComponentType: gltf.ComponentUint, Type: gltf.AccessorScalar, Count: len(dm.indices)})
		ai := len(doc.Accessors) - 1
		gp.Indices = &ai
	}
	ai := *gp.Indices
	if ai < 0 || ai >= len(doc.Accessors) || doc.Accessors[ai] == nil {
		return l.errorf(nil, "%s: indices: accessors[%d] does not exist", where, ai)
	}
	acc := doc.Accessors[ai]
	if prev, ok := claimed[ai]; ok {
		if prev != key {
			return l.errorf(nil, "%s: indices: accessors[%d] is also another Draco attribute's", where, ai)
		}
		return nil
	}
	if acc.Type != gltf.AccessorScalar || acc.Count != len(dm.indices) {
		return l.errorf(nil, "%s: indices: accessors[%d] is %d × %s, the Draco stream's %d indices", where, ai, acc.Count, acc.Type, len(dm.indices))
	}
	if bv, ok := views[bvi]; ok {
		acc.BufferView, acc.ByteOffset, acc.Sparse = gltf.Index(slices.Index(doc.BufferViews, bv)), 0, nil
	} else {
		if err := l.a.reserve(4 * int64(len(dm.indices))); err != nil {
			return l.errorf(err, "%s: indices: %v", where, err)
		}
		data := make([]byte, 4*len(dm.indices))
		for i, v := range dm.indices {
			data[4*i], data[4*i+1], data[4*i+2], data[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		l.dracoView(acc, data)
		views[bvi] = doc.BufferViews[*acc.BufferView]
	}
	acc.ComponentType = gltf.ComponentUint
	claimed[ai] = key
	return nil
}

// dracoView gives acc a buffer and a view of its own holding data, tightly
// packed, from offset 0.
func (l *gltfLoader) dracoView(acc *gltf.Accessor, data []byte) {
	doc := l.doc
	doc.Buffers = append(doc.Buffers, &gltf.Buffer{ByteLength: len(data), Data: data})
	doc.BufferViews = append(doc.BufferViews, &gltf.BufferView{Buffer: len(doc.Buffers) - 1, ByteLength: len(data)})
	acc.BufferView, acc.ByteOffset, acc.Sparse = gltf.Index(len(doc.BufferViews)-1), 0, nil
	l.bufferBytes += len(data)
}
