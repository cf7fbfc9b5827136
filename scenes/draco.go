package scenes

// Draco's mesh bitstream (google/draco, bitstream version 2.2, written by
// Draco 1.3 to 1.5), the codec under glTF's KHR_draco_mesh_compression,
// decoded in pure Go as Draco's reference decoder decodes it
// (src/draco/compression: point_cloud_decoder.cc, mesh_sequential_decoder.cc,
// the sequential attribute decoders, entropy/ and prediction_schemes/;
// docs/spec is the same as pseudo-code).
//
// Read: the header (a mesh, version 2.2, no metadata), the sequential
// connectivity (draco_encoder -cl 0, and Blender's exporter for meshes with
// shape keys: faces as raw 8-, 16-bit, varint or 32-bit indices, or as
// rANS-coded index deltas), the edgebreaker connectivity of levels 1 to 10
// (dracoedgebreaker.go: standard and valence traversals, attribute seams),
// and the sequential attribute decoders (generic raw values, integers,
// quantized floats, octahedral normals) with rANS tagged or raw symbols, in
// point order or, over edgebreaker, in a depth-first traversal's order
// (dracomeshpredict.go; depth first, or by prediction degree), with the
// difference, parallelogram, constrained multi-parallelogram, portable
// texcoord and geometric normal predictions and the wrap and canonicalized
// octahedron transforms: every stream of draco_encoder's levels 0 to 10,
// so Blender's defaults (6). Refused, with an error naming the feature: the
// deprecated predictions (multi-parallelogram, tex coords) and traversal
// (predictive) of Draco before 1.2, point clouds, metadata, other versions.
//
// Every read is inside the stream: a short, long or foreign stream is an
// error, never a panic. Allocations proportional to a count the stream
// states (points, faces, symbols) go through a reserve function first, the
// loader's asset budget; the others are bounded by the stream's length.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Draco's attribute data types (draco/core/draco_types.h).
const (
	dracoInt8    = 1
	dracoUint8   = 2
	dracoInt16   = 3
	dracoUint16  = 4
	dracoInt32   = 5
	dracoUint32  = 6
	dracoInt64   = 7
	dracoUint64  = 8
	dracoFloat32 = 9
	dracoFloat64 = 10
	dracoBool    = 11
)

// dracoTypeSize is the bytes of each data type, 0 for an invalid one.
var dracoTypeSize = [...]int{0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1}

// dracoTypeName names each data type for messages.
var dracoTypeName = [...]string{"invalid", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64", "bool"}

// dracoAttributeKinds names Draco's attribute types
// (GeometryAttribute::Type; the last four only in transcoder builds).
var dracoAttributeKinds = [...]string{"POSITION", "NORMAL", "COLOR", "TEX_COORD", "GENERIC", "TANGENT", "MATERIAL", "JOINTS", "WEIGHTS"}

// dracoMesh is a decoded Draco mesh: triangles over points, and each
// attribute's value at every point.
type dracoMesh struct {
	numPoints int
	indices   []uint32 // three point ids per triangle
	attrs     []dracoAttribute
	// renumbered is whether the encoder numbered the points otherwise
	// than its input (edgebreaker: in its traversal's order); the
	// sequential encoding keeps them in order.
	renumbered bool
}

// dracoAttribute is one decoded attribute.
type dracoAttribute struct {
	kind       int    // Draco's attribute type (dracoAttributeKinds)
	dataType   int    // dracoInt8 … dracoBool
	components int    // values per point
	normalized bool   // as the encoder flagged it
	uniqueID   uint32 // the id glTF's attributes map names
	// prediction is the prediction scheme its values were decoded with
	// (Draco's PredictionSchemeMethod: -2 none, 0 difference, 1
	// parallelogram, 4 constrained multi-parallelogram, 5 tex coords
	// portable, 6 geometric normal), as the
	// decoder created it (the difference where a mesh scheme was named
	// without connectivity).
	prediction int8
	// data holds numPoints × components values of dataType, little
	// endian, in point order: the bytes a glTF accessor of the same
	// component type reads.
	data []byte
}

// attribute returns the attribute of unique id id, or nil.
func (m *dracoMesh) attribute(id uint32) *dracoAttribute {
	for i := range m.attrs {
		if m.attrs[i].uniqueID == id {
			return &m.attrs[i]
		}
	}
	return nil
}

// errDracoUnsupported marks the errors of a valid stream that uses a
// feature this decoder does not read.
var errDracoUnsupported = errors.New("not supported")

// dracoUnsupported returns an error for a Draco feature not read.
func dracoUnsupported(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), errDracoUnsupported)
}

// dracoReader reads a Draco stream front to back.
type dracoReader struct {
	b   []byte
	pos int
}

var errDracoShort = errors.New("the stream ends early")

func (r *dracoReader) remaining() int { return len(r.b) - r.pos }

func (r *dracoReader) bytes(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, errDracoShort
	}
	v := r.b[r.pos : r.pos+n]
	r.pos += n
	return v, nil
}

func (r *dracoReader) u8() (uint8, error) {
	v, err := r.bytes(1)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (r *dracoReader) u16() (uint16, error) {
	v, err := r.bytes(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(v), nil
}

func (r *dracoReader) u32() (uint32, error) {
	v, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(v), nil
}

func (r *dracoReader) f32() (float32, error) {
	v, err := r.u32()
	return math.Float32frombits(v), err
}

// varint reads an unsigned LEB128 number of at most maxBytes bytes (5 for
// Draco's 32-bit varints, 10 for its 64-bit ones); bits above 64 are lost
// as in the reference decoder's shifts.
func (r *dracoReader) varint(maxBytes int) (uint64, error) {
	var v uint64
	for i := 0; i < maxBytes; i++ {
		c, err := r.u8()
		if err != nil {
			return 0, err
		}
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("a varint longer than %d bytes", maxBytes)
}

func (r *dracoReader) varint32() (uint32, error) {
	v, err := r.varint(5)
	return uint32(v), err
}

// decodeDraco decodes a Draco mesh stream. reserve is called with the bytes
// of each allocation whose size the stream states before it is made; an
// error from it ends the decoding.
func decodeDraco(src []byte, reserve func(int64) error) (*dracoMesh, error) {
	d, err := decodeDracoConnectivity(src, reserve)
	if err != nil {
		return nil, err
	}
	if err := d.attributes(); err != nil {
		return nil, err
	}
	return d.mesh, nil
}

// decodeDracoConnectivity reads a stream's header and connectivity: the
// mesh's faces and point count.
func decodeDracoConnectivity(src []byte, reserve func(int64) error) (*dracoDecoder, error) {
	r := &dracoReader{b: src}
	magic, err := r.bytes(5)
	if err != nil || string(magic) != "DRACO" {
		return nil, errors.New("not a Draco stream (no DRACO header)")
	}
	hdr, err := r.bytes(4)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	major, minor, geometry, method := hdr[0], hdr[1], hdr[2], hdr[3]
	flags, err := r.u16()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if major != 2 || minor != 2 {
		return nil, dracoUnsupported("bitstream version %d.%d (only 2.2, Draco 1.3 to 1.5)", major, minor)
	}
	switch geometry {
	case 1:
	case 0:
		return nil, dracoUnsupported("a point cloud (only triangle meshes)")
	default:
		return nil, fmt.Errorf("geometry type %d is neither a point cloud nor a mesh", geometry)
	}
	if flags&0x8000 != 0 {
		return nil, dracoUnsupported("metadata (draco_encoder --metadata)")
	}
	d := &dracoDecoder{r: r, reserve: reserve, mesh: &dracoMesh{}}
	switch method {
	case 0:
		if err := d.sequentialConnectivity(); err != nil {
			return nil, fmt.Errorf("sequential connectivity: %w", err)
		}
	case 1:
		d.mesh.renumbered = true
		if err := d.edgebreakerConnectivity(); err != nil {
			return nil, fmt.Errorf("edgebreaker connectivity: %w", err)
		}
	default:
		return nil, fmt.Errorf("encoding method %d is neither sequential nor edgebreaker", method)
	}
	return d, nil
}

// dracoDecoder holds a decoding's state.
type dracoDecoder struct {
	r       *dracoReader
	reserve func(int64) error
	mesh    *dracoMesh
	eb      *dracoEdgebreaker // the edgebreaker connectivity's tables, or nil
	// position is the first POSITION attribute, whose portable values
	// (quantized) the texcoord and normal predictions read.
	position *dracoAttributeDecoder
}

// alloc reserves n elements of size bytes each.
func (d *dracoDecoder) alloc(n, size uint64) error {
	if n > 0 && size > 0 && n > math.MaxInt64/size {
		return fmt.Errorf("%d values of %d bytes: too many", n, size)
	}
	if d.reserve == nil {
		return nil
	}
	return d.reserve(int64(n * size))
}

// sequentialConnectivity reads MeshSequentialDecoder::DecodeConnectivity.
func (d *dracoDecoder) sequentialConnectivity() error {
	r := d.r
	nf, err := r.varint32()
	if err != nil {
		return err
	}
	np, err := r.varint32()
	if err != nil {
		return err
	}
	faces := uint64(nf)
	if faces > math.MaxUint32/3 || faces > uint64(r.remaining()/3) {
		return fmt.Errorf("%d faces: more than the stream's %d bytes can hold", nf, r.remaining())
	}
	if np > math.MaxInt32 {
		return fmt.Errorf("%d points: too many", np)
	}
	method, err := r.u8()
	if err != nil {
		return err
	}
	n := int(faces * 3)
	if err := d.alloc(uint64(n), 4); err != nil {
		return err
	}
	idx := make([]uint32, n)
	if method == 0 {
		if err := dracoSymbols(r, idx, 1); err != nil {
			return fmt.Errorf("indices: %w", err)
		}
		last := int64(0)
		for i, v := range idx {
			diff := int64(v >> 1)
			if v&1 != 0 {
				diff = -diff
			}
			last += diff
			if last < 0 || last > math.MaxInt32 {
				return fmt.Errorf("index %d of face %d is out of range", last, i/3)
			}
			idx[i] = uint32(last)
		}
	} else {
		for i := range idx {
			var v uint32
			switch {
			case np < 256:
				var b uint8
				b, err = r.u8()
				v = uint32(b)
			case np < 1<<16:
				var h uint16
				h, err = r.u16()
				v = uint32(h)
			case np < 1<<21:
				v, err = r.varint32()
			default:
				v, err = r.u32()
			}
			if err != nil {
				return fmt.Errorf("face %d: %w", i/3, err)
			}
			idx[i] = v
		}
	}
	for i, v := range idx {
		if v >= np {
			return fmt.Errorf("face %d: point %d is out of range (%d points)", i/3, v, np)
		}
	}
	d.mesh.indices = idx
	d.mesh.numPoints = int(np)
	return nil
}

// dracoAttributeDecoder is one attribute of an attributes decoder, with
// its sequential decoder's state.
type dracoAttributeDecoder struct {
	attr    *dracoAttribute
	decoder uint8 // 0 generic, 1 integer, 2 quantization, 3 normals
	// portable holds the integer values before the quantization or
	// octahedral transform, entries × portableComponents.
	portable           []int32
	portableComponents int
	// pointEntry maps each point to its entry (the explicit mapping of
	// a mesh traversal), nil where point i's value is the i-th.
	pointEntry []int32
}

// dracoGroup is an attributes decoder: its attributes and the sequence
// of points its values follow.
type dracoGroup struct {
	attrs []*dracoAttributeDecoder
	seq   *dracoSequence
	// Over edgebreaker connectivity: the attribute data it decodes (-1
	// the positions'), whether its values are per corner (the attribute
	// data's seams) and its traversal (0 depth first).
	dataID     int
	perCorner  bool
	traversal  uint8
	hasMeshDec bool
}

// attributes reads PointCloudDecoder::DecodePointAttributes: over
// sequential connectivity with sequential attribute decoders
// (SequentialAttributeDecodersController over a LinearSequencer: point i's
// value is the i-th), over edgebreaker connectivity with the same decoders
// over MeshTraversalSequencer (the values in the order a depth-first
// traversal of the corner table meets the vertices).
func (d *dracoDecoder) attributes() error {
	r := d.r
	n, err := r.u8()
	if err != nil {
		return fmt.Errorf("attribute decoders: %w", err)
	}
	groups := make([]dracoGroup, n)
	if d.eb != nil {
		// MeshEdgebreakerDecoderImpl::CreateAttributesDecoder.
		used := make([]bool, len(d.eb.attrs))
		posUsed := false
		for g := range groups {
			b, err := r.bytes(3)
			if err != nil {
				return fmt.Errorf("attribute decoder %d: %w", g, err)
			}
			id, kind, trav := int8(b[0]), b[1], b[2]
			gr := &groups[g]
			gr.dataID, gr.perCorner, gr.traversal, gr.hasMeshDec = int(id), kind != 0, trav, true
			switch {
			case id >= 0 && int(id) >= len(used):
				return fmt.Errorf("attribute decoder %d: attribute data %d of %d", g, id, len(used))
			case id >= 0 && used[id]:
				return fmt.Errorf("attribute decoder %d: attribute data %d is decoded twice", g, id)
			case id < 0 && posUsed:
				return fmt.Errorf("attribute decoder %d: the positions' connectivity is decoded twice", g)
			case trav > 1:
				return fmt.Errorf("attribute decoder %d: traversal %d is not one", g, trav)
			case gr.perCorner && (trav != 0 || id < 0):
				return fmt.Errorf("attribute decoder %d: per-corner values without their attribute data or a depth-first traversal", g)
			}
			if id >= 0 {
				used[id] = true
			} else {
				posUsed = true
			}
		}
	}
	ids := map[uint32]bool{}
	for g := range groups {
		na, err := r.varint32()
		if err != nil {
			return fmt.Errorf("attribute decoder %d: %w", g, err)
		}
		if na == 0 || 5*uint64(na) > uint64(r.remaining()) { // 5 bytes each at least
			return fmt.Errorf("attribute decoder %d: %d attributes", g, na)
		}
		// An attribute's description takes 5 bytes of the stream and
		// about 150 of memory here (its struct, decoder and id).
		if err := d.alloc(uint64(na), 150); err != nil {
			return err
		}
		for i := uint32(0); i < na; i++ {
			var desc [4]uint8
			for k := range desc {
				if desc[k], err = r.u8(); err != nil {
					return fmt.Errorf("attribute decoder %d: attribute %d: %w", g, i, err)
				}
			}
			kind, dt, comps, norm := desc[0], desc[1], desc[2], desc[3]
			switch {
			case int(kind) >= len(dracoAttributeKinds):
				return fmt.Errorf("attribute decoder %d: attribute %d: type %d is not an attribute type", g, i, kind)
			case dt == 0 || int(dt) >= len(dracoTypeSize):
				return fmt.Errorf("attribute decoder %d: attribute %d: data type %d is not a data type", g, i, dt)
			case comps == 0:
				return fmt.Errorf("attribute decoder %d: attribute %d: no components", g, i)
			}
			id, err := r.varint32()
			if err != nil {
				return fmt.Errorf("attribute decoder %d: attribute %d: %w", g, i, err)
			}
			if ids[id] {
				return fmt.Errorf("attribute decoder %d: attribute %d: unique id %d is used twice", g, i, id)
			}
			ids[id] = true
			d.mesh.attrs = append(d.mesh.attrs, dracoAttribute{kind: int(kind), dataType: int(dt), components: int(comps), normalized: norm > 0, uniqueID: id})
			groups[g].attrs = append(groups[g].attrs, &dracoAttributeDecoder{})
		}
		for i, ad := range groups[g].attrs {
			if ad.decoder, err = r.u8(); err != nil {
				return fmt.Errorf("attribute decoder %d: attribute %d: %w", g, i, err)
			}
			if ad.decoder > 3 {
				return fmt.Errorf("attribute decoder %d: attribute %d: sequential decoder %d is not generic, integer, quantization or normals", g, i, ad.decoder)
			}
		}
	}
	// Appending is done: the attributes no longer move.
	k := 0
	for g := range groups {
		for _, ad := range groups[g].attrs {
			ad.attr = &d.mesh.attrs[k]
			k++
			a := ad.attr
			switch {
			case ad.decoder == 2 && a.dataType != dracoFloat32:
				return fmt.Errorf("attribute %d: quantized, but of %s (only float32)", a.uniqueID, dracoTypeName[a.dataType])
			case ad.decoder == 3 && (a.dataType != dracoFloat32 || a.components != 3):
				return fmt.Errorf("attribute %d: an octahedral normal, but %d × %s (only 3 × float32)", a.uniqueID, a.components, dracoTypeName[a.dataType])
			}
			if a.kind == 0 && d.position == nil {
				d.position = ad // GetNamedAttributeId(POSITION): the first
			}
		}
	}
	for g := range groups {
		gr := &groups[g]
		if gr.hasMeshDec {
			seq, err := d.traverse(gr)
			if err != nil {
				return fmt.Errorf("attribute decoder %d: %w", g, err)
			}
			gr.seq = seq
			for _, ad := range gr.attrs {
				if ad.pointEntry, err = d.pointEntries(seq); err != nil {
					return fmt.Errorf("attribute decoder %d: %w", g, err)
				}
			}
		} else {
			gr.seq = &dracoSequence{entries: d.mesh.numPoints}
		}
		for _, ad := range gr.attrs {
			if err := d.portableValues(ad, gr.seq); err != nil {
				return fmt.Errorf("attribute decoder %d: attribute %d (%s): %w", g, ad.attr.uniqueID, dracoAttributeKinds[ad.attr.kind], err)
			}
		}
		for _, ad := range gr.attrs {
			if err := d.transform(ad, gr.seq.entries); err != nil {
				return fmt.Errorf("attribute decoder %d: attribute %d (%s): %w", g, ad.attr.uniqueID, dracoAttributeKinds[ad.attr.kind], err)
			}
		}
	}
	return nil
}

// portableValues reads an attribute's values (DecodePortableAttribute):
// raw bytes for the generic decoder, else integers through symbols and a
// prediction scheme; one value per entry of seq.
func (d *dracoDecoder) portableValues(ad *dracoAttributeDecoder, seq *dracoSequence) error {
	r, a := d.r, ad.attr
	ne := uint64(seq.entries)
	stride := uint64(a.components * dracoTypeSize[a.dataType])
	if ad.decoder == 0 {
		if ne*stride > uint64(r.remaining()) {
			return errDracoShort
		}
		raw, _ := r.bytes(int(ne * stride))
		a.data = raw
		return nil
	}
	comps := a.components
	if ad.decoder == 3 {
		comps = 2 // octahedral coordinates
	}
	ad.portableComponents = comps
	a.prediction = -2
	method, err := r.u8()
	if err != nil {
		return err
	}
	pm := int8(method)
	if pm < -2 || pm >= 7 {
		return fmt.Errorf("prediction scheme %d is not one", pm)
	}
	var pred dracoScheme
	if pm != -2 {
		tb, err := r.u8()
		if err != nil {
			return err
		}
		tt := int8(tb)
		if tt < -1 || tt >= 4 {
			return fmt.Errorf("prediction transform %d is not one", tt)
		}
		// The reference decoder creates a scheme only for the transform
		// its decoder takes, and reads the values without one otherwise.
		// Without connectivity every method is the difference.
		if pred, err = d.scheme(ad, seq, pm, tt); err != nil {
			return err
		}
		if pred != nil {
			a.prediction = pred.method()
		}
	}
	if err := d.alloc(ne*uint64(comps), 4); err != nil {
		return err
	}
	nv := int(ne) * comps
	vals := make([]int32, nv)
	compressed, err := r.u8()
	if err != nil {
		return err
	}
	if compressed > 0 {
		if err := dracoSymbols(r, vals, comps); err != nil {
			return err
		}
	} else {
		nb, err := r.u8()
		if err != nil {
			return err
		}
		if nb > 4 {
			return fmt.Errorf("raw values of %d bytes (at most 4)", nb)
		}
		if uint64(nv)*uint64(nb) > uint64(r.remaining()) {
			return errDracoShort
		}
		for i := range vals {
			raw, _ := r.bytes(int(nb))
			var v uint32
			for k, c := range raw {
				v |= uint32(c) << (8 * k)
			}
			vals[i] = int32(v)
		}
	}
	if nv > 0 && (pred == nil || !pred.correctionsPositive()) {
		for i, v := range vals {
			vals[i] = dracoSigned(uint32(v))
		}
	}
	if pred != nil {
		if err := pred.decodeData(r); err != nil {
			return fmt.Errorf("prediction data: %w", err)
		}
		if nv > 0 {
			if err := pred.originals(vals, comps); err != nil {
				return fmt.Errorf("prediction: %w", err)
			}
		}
	}
	ad.portable = vals
	return nil
}

// transform reads an attribute's transform parameters (quantization,
// octahedral bits) and turns its portable values into the attribute's
// data (DecodeDataNeededByPortableTransform, TransformAttributeToOriginalFormat),
// then gives each point its entry's value.
func (d *dracoDecoder) transform(ad *dracoAttributeDecoder, ne int) error {
	r, a := d.r, ad.attr
	switch ad.decoder {
	case 0:
	case 1:
		size := dracoTypeSize[a.dataType]
		switch a.dataType {
		case dracoInt8, dracoUint8, dracoInt16, dracoUint16, dracoInt32, dracoUint32:
		default:
			return fmt.Errorf("integer values for %s (only 8-, 16- and 32-bit integers)", dracoTypeName[a.dataType])
		}
		if err := d.alloc(uint64(len(ad.portable)), uint64(size)); err != nil {
			return err
		}
		a.data = make([]byte, len(ad.portable)*size)
		for i, v := range ad.portable {
			switch size {
			case 1:
				a.data[i] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(a.data[2*i:], uint16(v))
			default:
				binary.LittleEndian.PutUint32(a.data[4*i:], uint32(v))
			}
		}
	case 2:
		mins := make([]float32, a.components)
		for c := range mins {
			var err error
			if mins[c], err = r.f32(); err != nil {
				return fmt.Errorf("quantization: %w", err)
			}
		}
		rng, err := r.f32()
		if err != nil {
			return fmt.Errorf("quantization: %w", err)
		}
		qbits, err := r.u8()
		if err != nil {
			return fmt.Errorf("quantization: %w", err)
		}
		if qbits < 1 || qbits > 30 {
			return fmt.Errorf("quantization: %d bits (1 to 30)", qbits)
		}
		// Dequantizer: value × (range / max) + min, in float32 as
		// AttributeQuantizationTransform::InverseTransformAttribute.
		delta := rng / float32(int32(1)<<qbits-1)
		if err := d.alloc(uint64(ne*a.components), 4); err != nil {
			return err
		}
		a.data = make([]byte, 4*ne*a.components)
		for i, q := range ad.portable {
			v := float32(float32(q)*delta) + mins[i%a.components]
			binary.LittleEndian.PutUint32(a.data[4*i:], math.Float32bits(v))
		}
	case 3:
		qbits, err := r.u8()
		if err != nil {
			return fmt.Errorf("octahedral transform: %w", err)
		}
		var oct dracoOctahedron
		if !oct.setBits(int32(qbits)) {
			return fmt.Errorf("octahedral transform: %d bits (2 to 30)", qbits)
		}
		if err := d.alloc(uint64(3*ne), 4); err != nil {
			return err
		}
		a.data = make([]byte, 4*3*ne)
		for i := 0; i < ne; i++ {
			v := oct.unitVector(ad.portable[2*i], ad.portable[2*i+1])
			for c := range v {
				binary.LittleEndian.PutUint32(a.data[4*(3*i+c):], math.Float32bits(v[c]))
			}
		}
	}
	if ad != d.position {
		ad.portable = nil // the positions' are the parent of mesh predictions
	}
	if ad.pointEntry == nil {
		return nil
	}
	stride := a.components * dracoTypeSize[a.dataType]
	if err := d.alloc(uint64(d.mesh.numPoints), uint64(stride)); err != nil {
		return err
	}
	data := make([]byte, d.mesh.numPoints*stride)
	for p, e := range ad.pointEntry {
		copy(data[p*stride:(p+1)*stride], a.data[int(e)*stride:])
	}
	a.data = data
	return nil
}

// dracoSigned undoes Draco's folding of signed integers into symbols
// (ConvertSymbolToSignedInt): even v is v/2, odd v is −(v−1)/2 − 1.
func dracoSigned(v uint32) int32 {
	if v&1 == 0 {
		return int32(v >> 1)
	}
	return -int32(v>>1) - 1
}
