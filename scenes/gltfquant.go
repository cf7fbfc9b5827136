package scenes

import (
	"fmt"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// gltfQuantizationExt widens the component types of mesh attributes
// (KHR_mesh_quantization: gltfpack's and glTF-Transform's output).
const gltfQuantizationExt = "KHR_mesh_quantization"

// gltfQuantized is what a file listing KHR_mesh_quantization allows
// besides FLOAT, for each attribute: POSITION and TEXCOORD_n take
// BYTE, UNSIGNED_BYTE, SHORT and UNSIGNED_SHORT, normalized or not;
// NORMAL and TANGENT only normalized BYTE and SHORT.
var gltfQuantized = map[string]struct {
	types      []gltf.ComponentType
	normalized bool // required
}{
	gltf.POSITION:   {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentUbyte, gltf.ComponentShort, gltf.ComponentUshort}, false},
	gltf.TEXCOORD_0: {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentUbyte, gltf.ComponentShort, gltf.ComponentUshort}, false},
	gltf.NORMAL:     {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentShort}, true},
	gltf.TANGENT:    {[]gltf.ComponentType{gltf.ComponentByte, gltf.ComponentShort}, true},
}

// quantizedAllowed reports whether the file's extensions allow attribute
// name (TEXCOORD_1 as TEXCOORD_0) in acc's component type, an integer
// one: only when the file lists KHR_mesh_quantization, as glTF 2.0 core
// allows FLOAT alone (and normalised UNSIGNED_BYTE and UNSIGNED_SHORT
// for texture coordinates).
func (l *gltfLoader) quantizedAllowed(name string, acc *gltf.Accessor) bool {
	if !l.quantized {
		return false
	}
	if name == gltf.TEXCOORD_1 {
		name = gltf.TEXCOORD_0
	}
	q, ok := gltfQuantized[name]
	if !ok || q.normalized && !acc.Normalized {
		return false
	}
	for _, c := range q.types {
		if c == acc.ComponentType {
			return true
		}
	}
	return false
}

// dequantize reads accessors[ai], of n components (VEC2, VEC3 or VEC4)
// of BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT, as float32 values, n
// by n, as KHR_mesh_quantization says: a normalized component c is
// max(c/127, −1) (BYTE), c/255 (UNSIGNED_BYTE), max(c/32767, −1)
// (SHORT) or c/65535 (UNSIGNED_SHORT); an unnormalised one is c. The
// node transforms (or a skin's inverse bind matrices, and for texture
// coordinates KHR_texture_transform) then map them back to the model's
// range, as the extension has them do.
func (l *gltfLoader) dequantize(acc *gltf.Accessor, ai, n int, where string) ([]float32, error) {
	data, err := modeler.ReadAccessor(l.doc, acc, nil)
	if err != nil {
		return nil, l.errorf(err, "%s: accessors[%d]: %v", where, ai, err)
	}
	norm := acc.Normalized
	var out []float32
	switch d := data.(type) {
	case [][2]int8:
		out = gltfFlat2(d, norm, gltf.DenormalizeByte)
	case [][3]int8:
		out = gltfFlat3(d, norm, gltf.DenormalizeByte)
	case [][4]int8:
		out = gltfFlat4(d, norm, gltf.DenormalizeByte)
	case [][2]uint8:
		out = gltfFlat2(d, norm, gltf.DenormalizeUbyte)
	case [][3]uint8:
		out = gltfFlat3(d, norm, gltf.DenormalizeUbyte)
	case [][4]uint8:
		out = gltfFlat4(d, norm, gltf.DenormalizeUbyte)
	case [][2]int16:
		out = gltfFlat2(d, norm, gltf.DenormalizeShort)
	case [][3]int16:
		out = gltfFlat3(d, norm, gltf.DenormalizeShort)
	case [][4]int16:
		out = gltfFlat4(d, norm, gltf.DenormalizeShort)
	case [][2]uint16:
		out = gltfFlat2(d, norm, gltf.DenormalizeUshort)
	case [][3]uint16:
		out = gltfFlat3(d, norm, gltf.DenormalizeUshort)
	case [][4]uint16:
		out = gltfFlat4(d, norm, gltf.DenormalizeUshort)
	}
	if out == nil || len(out) != n*acc.Count {
		return nil, l.errorf(nil, "%s: accessors[%d]: unexpected data %T", where, ai, data)
	}
	return out, nil
}

// gltfInt is a component type that KHR_mesh_quantization allows.
type gltfInt interface{ int8 | uint8 | int16 | uint16 }

// gltfFlat2, gltfFlat3 and gltfFlat4 return the components of rows,
// row after row, as float32: through denorm when normalized, else as
// they are.
func gltfFlat2[T gltfInt](rows [][2]T, normalized bool, denorm func(T) float32) []float32 {
	out := make([]float32, 0, 2*len(rows))
	for _, r := range rows {
		out = gltfAppend(out, r[:], normalized, denorm)
	}
	return out
}

func gltfFlat3[T gltfInt](rows [][3]T, normalized bool, denorm func(T) float32) []float32 {
	out := make([]float32, 0, 3*len(rows))
	for _, r := range rows {
		out = gltfAppend(out, r[:], normalized, denorm)
	}
	return out
}

func gltfFlat4[T gltfInt](rows [][4]T, normalized bool, denorm func(T) float32) []float32 {
	out := make([]float32, 0, 4*len(rows))
	for _, r := range rows {
		out = gltfAppend(out, r[:], normalized, denorm)
	}
	return out
}

// gltfAppend appends the components of one row to out.
func gltfAppend[T gltfInt](out []float32, row []T, normalized bool, denorm func(T) float32) []float32 {
	for _, c := range row {
		if normalized {
			out = append(out, denorm(c))
		} else {
			out = append(out, float32(c))
		}
	}
	return out
}

// quantizedHint ends a message about an attribute's type with what
// KHR_mesh_quantization would allow (the types given): allowed, when the
// file lists it, or needing it, when it does not.
func (l *gltfLoader) quantizedHint(types string) string {
	if l.quantized {
		return fmt.Sprintf(", or with %s %s", gltfQuantizationExt, types)
	}
	return fmt.Sprintf("; %s, which the file does not list in extensionsUsed, would allow %s", gltfQuantizationExt, types)
}

// gltfNormalizedWord is " normalized" for a normalized accessor, for a
// message.
func gltfNormalizedWord(acc *gltf.Accessor) string {
	if acc.Normalized {
		return " normalized"
	}
	return ""
}

// gltfVec3s groups values three by three.
func gltfVec3s(v []float32) [][3]float32 {
	out := make([][3]float32, len(v)/3)
	for i := range out {
		out[i] = [3]float32(v[3*i : 3*i+3])
	}
	return out
}
