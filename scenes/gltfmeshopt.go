package scenes

import (
	"fmt"

	"github.com/qmuntal/gltf"
)

// gltfMeshoptExt compresses buffer views with meshoptimizer's codecs
// (EXT_meshopt_compression: gltfpack -c and -cc, glTF-Transform's
// meshopt); gltfMeshoptKHRExt is its Khronos successor
// (KHR_meshopt_compression, gltfpack -ce khr), the same but for a version
// 1 of the vertex codec and a COLOR filter, which only it allows.
const (
	gltfMeshoptExt    = "EXT_meshopt_compression"
	gltfMeshoptKHRExt = "KHR_meshopt_compression"
)

// gltfMeshoptOf returns the name and object of the meshopt extension in
// ext (KHR's when both are there), or ok false.
func gltfMeshoptOf(ext gltf.Extensions) (name string, raw any, ok bool) {
	for _, name := range []string{gltfMeshoptKHRExt, gltfMeshoptExt} {
		if raw, ok := ext[name]; ok {
			return name, raw, true
		}
	}
	return "", nil, false
}

// gltfMeshoptView is a bufferView's EXT_meshopt_compression or
// KHR_meshopt_compression object.
type gltfMeshoptView struct {
	Buffer     *int   `json:"buffer"`
	ByteOffset int    `json:"byteOffset"`
	ByteLength *int   `json:"byteLength"`
	ByteStride *int   `json:"byteStride"`
	Count      *int   `json:"count"`
	Mode       string `json:"mode"`
	Filter     string `json:"filter"`
}

// gltfMeshoptBuffer is a buffer's EXT_meshopt_compression or
// KHR_meshopt_compression object.
type gltfMeshoptBuffer struct {
	Fallback bool `json:"fallback"`
}

var (
	gltfMeshoptModes   = map[string]meshoptMode{"ATTRIBUTES": meshoptAttributes, "TRIANGLES": meshoptTriangles, "INDICES": meshoptIndices}
	gltfMeshoptFilters = map[string]meshoptFilter{"": meshoptFilterNone, "NONE": meshoptFilterNone, "OCTAHEDRAL": meshoptFilterOctahedral, "QUATERNION": meshoptFilterQuaternion, "EXPONENTIAL": meshoptFilterExponential, "COLOR": meshoptFilterColor}
)

// meshoptFallback reports whether buffers[i] need not be read: it is
// marked as a meshopt extension's fallback, or it has no uri (and is
// not a GLB file's BIN chunk) in a file that uses either, the
// placeholder whose views all come from compressed data. A view that
// reads such a buffer without the extension is an error
// (decodeMeshopt).
func (l *gltfLoader) meshoptFallback(i int, b *gltf.Buffer, isGLB bool) (bool, error) {
	if !l.meshopt {
		return false, nil
	}
	if name, raw, ok := gltfMeshoptOf(b.Extensions); ok {
		var ext gltfMeshoptBuffer
		if err := gltfExtension(raw, &ext); err != nil {
			return false, l.errorf(err, "buffers[%d].extensions.%s: %v", i, name, err)
		}
		if ext.Fallback {
			return true, nil
		}
	}
	return b.URI == "" && !(i == 0 && isGLB), nil
}

// decodeMeshopt decodes every bufferView with EXT_meshopt_compression
// into a buffer of its own, which the view then reads (buffer, offset 0):
// accessors, images and skins read decoded data as they read any view.
// The decoded bytes count against the scene's MaxAssetBytes as a file's
// do, and a view's count is checked against the least its stream could
// hold (meshoptMinStreamBytes) before any allocation. A view of a
// fallback buffer without the extension is an error.
func (l *gltfLoader) decodeMeshopt(fallback []bool) error {
	doc := l.doc
	for i, bv := range doc.BufferViews {
		if bv == nil {
			continue // an error where a view is read
		}
		name, raw, ok := gltfMeshoptOf(bv.Extensions)
		if !ok {
			if bv.Buffer >= 0 && bv.Buffer < len(fallback) && fallback[bv.Buffer] {
				return l.errorf(nil, "bufferViews[%d] reads buffers[%d], a meshopt fallback buffer without data, and is not compressed", i, bv.Buffer)
			}
			continue
		}
		where := fmt.Sprintf("bufferViews[%d].extensions.%s", i, name)
		data, err := l.meshoptView(bv, raw, name == gltfMeshoptKHRExt, fallback, where)
		if err != nil {
			return err
		}
		doc.Buffers = append(doc.Buffers, &gltf.Buffer{ByteLength: len(data), Data: data})
		bv.Buffer, bv.ByteOffset = len(doc.Buffers)-1, 0
		l.bufferBytes += len(data)
	}
	return nil
}

// meshoptView checks bufferView bv's extension object raw (of
// KHR_meshopt_compression when khr, else of EXT_meshopt_compression) and
// returns the view's decoded bytes.
func (l *gltfLoader) meshoptView(bv *gltf.BufferView, raw any, khr bool, fallback []bool, where string) ([]byte, error) {
	var ext gltfMeshoptView
	if err := gltfExtension(raw, &ext); err != nil {
		return nil, l.errorf(err, "%s: %v", where, err)
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"buffer", ext.Buffer}, {"byteLength", ext.ByteLength}, {"byteStride", ext.ByteStride}, {"count", ext.Count}} {
		if f.v == nil {
			return nil, l.errorf(nil, "%s: no %s", where, f.name)
		}
	}
	mode, ok := gltfMeshoptModes[ext.Mode]
	if !ok {
		return nil, l.errorf(nil, "%s: mode %s is not ATTRIBUTES, TRIANGLES or INDICES", where, quote(ext.Mode))
	}
	filter, ok := gltfMeshoptFilters[ext.Filter]
	if !ok || filter == meshoptFilterColor && !khr {
		names := "NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL"
		if khr {
			names = "NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL or COLOR"
		}
		return nil, l.errorf(nil, "%s: filter %s is not %s", where, quote(ext.Filter), names)
	}
	count, stride := *ext.Count, *ext.ByteStride
	switch {
	case count < 1:
		return nil, l.errorf(nil, "%s: count %d is not positive", where, count)
	case mode == meshoptAttributes && (stride < 4 || stride > 256 || stride%4 != 0):
		return nil, l.errorf(nil, "%s: byteStride %d of ATTRIBUTES is not a multiple of 4 in [4, 256]", where, stride)
	case mode != meshoptAttributes && stride != 2 && stride != 4:
		return nil, l.errorf(nil, "%s: byteStride %d of %s is not 2 or 4", where, stride, ext.Mode)
	case mode == meshoptTriangles && count%3 != 0:
		return nil, l.errorf(nil, "%s: count %d of TRIANGLES is not a multiple of 3", where, count)
	case mode != meshoptAttributes && filter != meshoptFilterNone:
		return nil, l.errorf(nil, "%s: filter %s on %s (only ATTRIBUTES take a filter)", where, ext.Filter, ext.Mode)
	case filter == meshoptFilterOctahedral && stride != 4 && stride != 8:
		return nil, l.errorf(nil, "%s: byteStride %d of OCTAHEDRAL is not 4 or 8", where, stride)
	case filter == meshoptFilterColor && stride != 4 && stride != 8:
		return nil, l.errorf(nil, "%s: byteStride %d of COLOR is not 4 or 8", where, stride)
	case filter == meshoptFilterQuaternion && stride != 8:
		return nil, l.errorf(nil, "%s: byteStride %d of QUATERNION is not 8", where, stride)
	case bv.ByteStride != 0 && bv.ByteStride != stride:
		return nil, l.errorf(nil, "%s: byteStride %d is not the bufferView's byteStride %d", where, stride, bv.ByteStride)
	case count > bv.ByteLength/stride || count*stride != bv.ByteLength:
		return nil, l.errorf(nil, "%s: count %d × byteStride %d is not the bufferView's byteLength %d", where, count, stride, bv.ByteLength)
	}
	bi, off, n := *ext.Buffer, ext.ByteOffset, *ext.ByteLength
	if bi < 0 || bi >= len(l.doc.Buffers) {
		return nil, l.errorf(nil, "%s: buffers[%d] does not exist", where, bi)
	}
	if fallback[bi] {
		return nil, l.errorf(nil, "%s: buffers[%d] is a fallback buffer, without data", where, bi)
	}
	buf := l.doc.Buffers[bi].Data
	if off < 0 || n < 0 || off > len(buf) || n > len(buf)-off {
		return nil, l.errorf(nil, "%s: byteOffset %d and byteLength %d are outside buffers[%d] (%d bytes)", where, off, n, bi, len(buf))
	}
	src := buf[off : off+n]
	version, maxVersion := 0, 0
	if khr {
		maxVersion = 1
		if n > 0 && src[0] == meshoptVertexHeader|1 {
			version = 1
		}
	}
	if least := meshoptMinStreamBytes(mode, count, stride, version); n < least {
		return nil, l.errorf(nil, "%s: byteLength %d is less than the %d bytes of the shortest %s stream of %d elements of %d bytes", where, n, least, ext.Mode, count, stride)
	}
	if err := l.a.reserve(int64(count) * int64(stride)); err != nil {
		return nil, l.errorf(err, "%s: decoded: %v", where, err)
	}
	data := make([]byte, count*stride)
	if err := meshoptDecode(data, mode, count, stride, src, maxVersion); err != nil {
		return nil, l.errorf(err, "%s: the %s stream is corrupt: %v", where, ext.Mode, err)
	}
	meshoptUnfilter(data, filter, count, stride)
	return data, nil
}
