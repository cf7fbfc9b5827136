package scenes

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/texturetransform"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// loadGLTF reads the glTF 2.0 file at path, an absolute path from
// a.resolve: a .gltf (JSON) or a .glb (binary) file, told apart by its
// first bytes rather than by its name.
//
// What it reads:
//   - Buffers: the GLB BIN chunk, data: URIs (base64), and files named by
//     relative URIs (percent-decoded), resolved from the .gltf's folder
//     through a, so they cannot leave the scene's folder and count against
//     its byte budget. Other URI schemes (http:, file:) are errors.
//     Buffer views compressed with EXT_meshopt_compression or
//     KHR_meshopt_compression are decoded first, into buffers of their own, and read as any view
//     (gltfmeshopt.go); the fallback buffers they stand for are not read.
//     Primitives compressed with KHR_draco_mesh_compression are decoded
//     next (gltfdraco.go, draco.go: Draco's sequential encoding; its
//     edgebreaker connectivity is refused), each decoded attribute and the
//     indices into a buffer of their own that the accessors then read.
//   - Geometry: the default scene (scene, else scenes[0]; with no scenes at
//     all, every node that is no other node's child), walked depth first,
//     each node's matrix or translation·rotation·scale composed with its
//     parents'. Accessors may be sparse, or without a bufferView.
//     Every primitive of every mesh a node holds becomes one
//     tracer.MeshDesc: POSITION (FLOAT VEC3, required), NORMAL (FLOAT VEC3)
//     and TEXCOORD_0 (FLOAT, or normalised UNSIGNED_BYTE or UNSIGNED_SHORT)
//     when present, and the integer types KHR_mesh_quantization adds
//     when the file lists it (gltfquant.go), TEXCOORD_1 (the same) when the primitive's material
//     has a texture on set 1, COLOR_0 (VEC3 or VEC4 of FLOAT in [0, 1] or
//     normalised UNSIGNED_BYTE or UNSIGNED_SHORT; alpha ignored) as
//     MeshDesc.Colors, indices or, without them, the vertices in order:
//     TRIANGLES three by three, TRIANGLE_STRIP and TRIANGLE_FAN
//     triangulated in the order glTF gives (gltfStrip, gltfFan). Positions are transformed by the node's world matrix, normals
//     by its inverse transpose and renormalised; a negative determinant
//     reverses the winding. A zero determinant, or a normal that is zero,
//     drops the instance's normals (the tracer then shades flat). v is
//     flipped (v' = 1 − v) since glTF's v runs down the image and the
//     tracer's runs up. TANGENT (FLOAT VEC4: xyz and the handedness w)
//     when present: xyz by the node's linear part, renormalised, w negated
//     by a mirror; without it the tracer computes tangents for meshes
//     whose material has a normal map (tracer.ComputeTangents). Other
//     attributes (JOINTS_0, ...) are ignored.
//   - Materials, as glTF's metallic-roughness model (tracer.MaterialPBR):
//     the name (or "material N" for materials[N] when it has none),
//     baseColorFactor's RGB (already linear in glTF) and the
//     baseColorTexture's image, sRGB-decoded and multiplied by that RGB;
//     metallicFactor and roughnessFactor (1 and 1 by default) and the
//     metallicRoughnessTexture, decoded linearly; KHR_materials_clearcoat's
//     clearcoatFactor and clearcoatRoughnessFactor, times the red of its
//     clearcoatTexture and the green of its clearcoatRoughnessTexture
//     (gltfclearcoat.go; its clearcoatNormalTexture is named in the
//     warning, not read); KHR_materials_specular's specularFactor and
//     specularColorFactor and KHR_materials_ior's ior as the dielectric's
//     F0 and F90, with their textures (gltfspecular.go); emissiveFactor ×
//     KHR_materials_emissive_strength and the emissiveTexture; each
//     texture's image (its EXT_texture_webp source when it has one, else
//     its source), KHR_texture_transform, texCoord and sampler (wrapS and
//     wrapT as tracer.Wrap, the filters as gltfFilter says); the
//     normalTexture (linear, its scale, its KHR_texture_transform) as
//     tracer.Material.NormalMap; alphaMode (MASK with alphaCutoff, BLEND)
//     with baseColorFactor's alpha times the base colour texture's alpha
//     channel as tracer.Material's alpha. doubleSided false is read as
//     two-sided, as Blender's importer and Cycles render it; occlusion
//     maps are ignored. A material with KHR_materials_unlit is
//     tracer.MaterialUnlit of its base colour and alpha alone
//     (gltfunlit.go).
//   - Lights (KHR_lights_punctual): point, spot and directional lights,
//     placed and turned by their nodes, into out.lights (gltflight.go).
//   - Skinned meshes are drawn in the pose of their joints' nodes
//     (gltfskin.go); primitives with morph targets at their node's or
//     mesh's weights, morphed before they are skinned (gltfmorph.go:
//     POSITION, NORMAL and TANGENT targets, sparse, quantized or from a
//     meshopt view; the targets' other attributes are named in a one-line
//     warning (slog), not applied).
//   - Glass: a material of full transmission (KHR_materials_transmission,
//     with KHR_materials_ior and KHR_materials_volume) becomes trace's
//     dielectric (gltfglass.go). Other material extensions but
//     KHR_materials_emissive_strength, KHR_materials_clearcoat and
//     KHR_materials_specular (not on glass), and partial transmission, are not
//     read; importedMaterial.Unsupported names them, for the warning of
//     the scene that draws such a material (decoder.addMaterials).
//   - Primitives of points and lines (POINTS, LINES, LINE_LOOP,
//     LINE_STRIP: Blender's loose vertices and edges) have no surface
//     to draw: they are left out, and the same warning names them.
//   - Cameras are recorded with their nodes' world matrices, for a scene
//     whose camera section names the file (camera.go); extras are
//     ignored without an error.
//   - Animations: none but the one loadGLTFPose's pose picks, whose
//     channels are sampled at its time into their nodes' translation,
//     rotation, scale and weights before the nodes are walked
//     (gltfanim.go); loadGLTF reads the nodes as the file holds them.
//
// What it refuses, with an *Error whose Msg names the element: an object
// with two members of the same key (named by its JSON path); any entry
// of extensionsRequired but those of gltfSupported (and a material with
// a required extension that it is drawn without — a glass extension on a
// material that is not glass, KHR_materials_clearcoat or
// KHR_materials_specular on glass — is
// refused where a scene draws it: importedMaterial.Refused); primitive modes that glTF does
// not define; accessors without a bufferView whose elements would take
// more bytes than the file's buffers have; POSITION or NORMAL other than FLOAT VEC3, TANGENT other than
// FLOAT VEC4, but for what KHR_mesh_quantization allows in a file that
// lists it; texCoord sets other than 0 and 1, and set 1 on a primitive
// without TEXCOORD_1; COLOR_0 of another type or outside [0, 1]; textures
// whose image comes only from an extension other than EXT_texture_webp
// (KHR_texture_basisu); non-finite positions, normals
// or texture coordinates; morph targets of other types or counts, weights
// lists of another length than the targets', non-finite weights or
// morphed vertices, and weights other than 0 on an edgebreaker-compressed
// Draco primitive (gltfmorph.go); indices out of range; TRIANGLES index or
// vertex counts that are not multiples of 3; bad lights (gltflight.go);
// glass and clear coat values that glTF does not allow (gltfglass.go,
// gltfclearcoat.go); nodes reached twice (cycles, shared
// children); more than tracer.MaxTriangles triangles, or 3·MaxTriangles
// vertices, over all instances and morph targets.
//
// Each returned MeshDesc has its own slices (no two share one); its
// Materials give every triangle the index of its material in the returned
// materials, or −1, and its Material is that same index. An image is
// decoded once per colour space however many textures, materials and
// images[] entries (of one buffer view, data: URI or file) use it, and
// shared between them: treat images as read-only.
func loadGLTF(a *assets, path string) (*importedMesh, error) {
	return loadGLTFPose(a, path, noGLTFPose)
}

// loadGLTFPose is loadGLTF with the file's nodes posed by the animation
// pose picks, sampled at its time (gltfanim.go), before the nodes are
// walked.
func loadGLTFPose(a *assets, path string, pose gltfPose) (*importedMesh, error) {
	l := newGLTFLoader(a, path)
	if err := l.load(pose); err != nil {
		return nil, err
	}
	if msg := l.poseWarning(); msg != "" {
		slog.Warn(fmt.Sprintf("%s: %s", filepath.ToSlash(a.key(path)), msg))
	}
	return &l.out, nil
}

// newGLTFLoader returns a loader of the glTF file at path.
func newGLTFLoader(a *assets, path string) *gltfLoader {
	return &gltfLoader{
		a:         a,
		path:      path,
		dir:       filepath.Dir(path),
		materials: map[int]int32{},
		scaled:    map[gltfScaledMaterial]int32{},
		images:    map[gltfImageKey]*tracer.Image{},
		sources:   map[gltfSourceKey]*tracer.Image{},
		prims:     map[[2]int]*gltfPrimitive{},
		dflt:      -1,
	}
}

// load reads the file into l.out, its nodes posed by pose.
func (l *gltfLoader) load(pose gltfPose) error {
	data, err := l.a.read(l.path)
	if err != nil {
		return fileError(l.path, err)
	}
	if err := l.decode(data); err != nil {
		return err
	}
	if err := l.animate(pose); err != nil {
		return err
	}
	return l.walk()
}

// poseWarning says, in one line, which morph targets' attributes are not
// applied and which primitives are not drawn at all (points and lines),
// or returns "".
func (l *gltfLoader) poseWarning() string {
	var parts []string
	if n := len(l.unmorphed); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s) %s not applied: only POSITION, NORMAL and TANGENT are morphed",
			gltfCount(n, "a morph target attribute", "morph target attributes"), gltfShortList(l.unmorphed), gltfVerb(n)))
	}
	if n := len(l.unsurfaced); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s) %s not drawn: only triangles are",
			gltfCount(n, "a primitive of points or lines", "primitives of points or lines"), gltfShortList(l.unsurfaced), gltfVerb(n)))
	}
	return strings.Join(parts, "; ")
}

// gltfCount is one for 1, else n and many.
func gltfCount(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// gltfVerb is "is" or "are".
func gltfVerb(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// gltfShortList joins names for a message, eliding past three.
func gltfShortList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// GLB container constants (glTF 2.0 specification, section 4.4).
const (
	glbMagic     = 0x46546C67 // "glTF"
	glbChunkJSON = 0x4E4F534A // "JSON"
	glbChunkBIN  = 0x004E4942 // "BIN\x00"
)

// gltfWebPExt gives a texture a WebP image (EXT_texture_webp).
const gltfWebPExt = "EXT_texture_webp"

// gltfSupported are the extensions a file may require. The glass
// extensions (gltfglass.go) are supported where a material is glass: a
// file that requires them is read, and a material it draws whose
// transmission trace cannot honour (partial, textured, metallic) is an
// error naming the material, not a warning (importedMaterial.Refused), as
// is a glass material with KHR_materials_clearcoat or
// KHR_materials_specular or KHR_materials_pbrSpecularGlossiness in a
// file that requires it. KHR_materials_ior is read on every material
// (gltfspecular.go); KHR_materials_pbrSpecularGlossiness is converted to
// a pbr material on every material but glass (gltfspecgloss.go).
var gltfSupported = map[string]bool{
	"EXT_texture_webp":                true,
	"KHR_lights_punctual":             true,
	"KHR_materials_emissive_strength": true,
	gltfClearcoatExt:                  true,
	gltfSheenExt:                      true,
	gltfSpecularExt:                   true,
	gltfSpecGlossExt:                  true,
	"KHR_mesh_quantization":           true,
	gltfMeshoptExt:                    true,
	gltfMeshoptKHRExt:                 true,
	gltfDracoExt:                      true,
	"KHR_texture_transform":           true,
	gltfTransmissionExt:               true,
	gltfIORExt:                        true,
	gltfVolumeExt:                     true,
	gltfUnlitExt:                      true,
}

// gltfLoader holds the state of one loadGLTF call.
type gltfLoader struct {
	a    *assets
	path string // the file, for errors
	dir  string // its folder: relative URIs start here
	doc  *gltf.Document

	out            importedMesh
	materials      map[int]int32                   // materials[i] → index in out.materials
	scaled         map[gltfScaledMaterial]int32    // absorbing glass at another scale → index in out.materials (placedMaterial)
	images         map[gltfImageKey]*tracer.Image  // images[i], decoded
	sources        map[gltfSourceKey]*tracer.Image // the same by where the bytes come from
	prims          map[[2]int]*gltfPrimitive       // meshes[m].primitives[k], read
	lights         []gltfLight                     // KHR_lights_punctual's lights, checked
	triangles      int                             // over all instances so far
	vertices       int                             // over all instances so far
	renumbered     map[[2]int]bool                 // meshes[m].primitives[k] whose Draco stream renumbers the vertices (edgebreaker)
	morphed        map[[2]int]gltfMorphed          // meshes[m].primitives[k]'s last morph, for the nodes that share its weights (gltfmorph.go)
	unmorphed      []string                        // the morph targets' attributes not applied (TEXCOORD_n, COLOR_n), for the warning
	unsurfaced     []string                        // the primitives of points and lines, not drawn
	dflt           int32                           // index of glTF's default material in out.materials, or -1
	quantized      bool                            // the file lists KHR_mesh_quantization (gltfquant.go)
	meshopt        bool                            // the file lists EXT_ or KHR_meshopt_compression (gltfmeshopt.go)
	bufferBytes    int                             // the bytes of all buffers, bounding accessors without a bufferView
	parents        []int                           // each node's parent, or -1 (nodeWorld)
	skinMats       map[int][]mgl64.Mat4            // skins[i]'s joint matrices (skinMatrices)
	sparseIBMs     map[int][][4][4]float32         // sparse accessors of inverse bind matrices, read (inverseBindMatrices)
	sparseIBMBytes int                             // their bytes, bounded by bufferBytes
	worlds         []mgl64.Mat4                    // nodes' world matrices, where worldKnown (nodeWorld)
	worldKnown     []bool
	glossRough     map[gltfGlossKey]*tracer.Image // roughness images derived from specular-glossiness textures (gltfspecgloss.go)
	keyframes      gltfKeyframes                  // the posing animation's keyframes, read (gltfanim.go)
	// localMatrices counts the local matrices nodeWorld computes, for the
	// tests.
	localMatrices int
	// morphs counts the attributes gltfMorph computes, for the tests.
	morphs int
}

// gltfPrimitive is a primitive's data as read from its accessors, before
// any node transform.
type gltfPrimitive struct {
	positions [][3]float32
	normals   [][3]float32 // nil when absent
	uvs       [][2]float32 // nil when absent; v already flipped
	uv1s      [][2]float32 // TEXCOORD_1, read only when the material uses it; v flipped
	colors    [][3]float32 // COLOR_0's RGB (linear), nil when absent
	indices   []uint32     // three per triangle, all < len(positions)
	material  int32        // index in out.materials, or −1
	tangents  [][4]float32 // TANGENT (xyz, w handedness); nil when absent
	targets   []gltfTarget // the morph targets' displacements (gltfmorph.go)
}

// errorf returns an *Error for the glTF file; err, if not nil, is the
// underlying error.
func (l *gltfLoader) errorf(err error, format string, args ...any) *Error {
	return &Error{File: l.path, Msg: fmt.Sprintf(format, args...), Err: err}
}

// decode parses the document (JSON, or a GLB container) and loads its
// buffers.
func (l *gltfLoader) decode(data []byte) error {
	jsonData := data
	var bin []byte
	isGLB := len(data) >= 4 && binary.LittleEndian.Uint32(data) == glbMagic
	if isGLB {
		var err error
		jsonData, bin, err = gltfSplitGLB(data)
		if err != nil {
			return l.errorf(nil, "not a valid GLB file: %v", err)
		}
	}
	jsonData = bytes.TrimPrefix(jsonData, utf8BOM)
	if path, key, off, dup := gltfDuplicateKey(jsonData); dup {
		e := l.errorf(nil, "%s: duplicate key %s", path, quote(key))
		if !isGLB {
			e.Line, e.Col = position(jsonData, off)
		}
		return e
	}
	doc := new(gltf.Document)
	if err := json.Unmarshal(jsonData, doc); err != nil {
		return l.errorf(err, "not a valid glTF file: %v", err)
	}
	l.doc = doc
	if v := doc.Asset.Version; !strings.HasPrefix(v, "2.") {
		return l.errorf(nil, "asset.version %q is not supported (only 2.x)", v)
	}
	if v := doc.Asset.MinVersion; v != "" && v != "2.0" {
		return l.errorf(nil, "asset.minVersion %q is not supported (only 2.0)", v)
	}
	for _, e := range doc.ExtensionsRequired {
		if !gltfSupported[e] {
			return l.errorf(nil, "extensionsRequired: %s is not supported (supported: %s)", quote(e), gltfSupportedList())
		}
	}
	l.quantized = slices.Contains(doc.ExtensionsUsed, gltfQuantizationExt) || slices.Contains(doc.ExtensionsRequired, gltfQuantizationExt)
	for _, e := range []string{gltfMeshoptExt, gltfMeshoptKHRExt} {
		l.meshopt = l.meshopt || slices.Contains(doc.ExtensionsUsed, e) || slices.Contains(doc.ExtensionsRequired, e)
	}
	fallback := make([]bool, len(doc.Buffers)) // not read (gltfmeshopt.go)
	for i, b := range doc.Buffers {
		if b != nil {
			var err error
			if fallback[i], err = l.meshoptFallback(i, b, isGLB); err != nil {
				return err
			}
			if fallback[i] {
				continue
			}
		}
		if err := l.loadBuffer(i, b, isGLB, bin); err != nil {
			return err
		}
		l.bufferBytes += len(b.Data)
	}
	if err := l.decodeMeshopt(fallback); err != nil {
		return err
	}
	if err := l.decodeDraco(); err != nil {
		return err
	}
	return l.decodeLights()
}

// gltfSupportedList names the extensions a file may require, sorted,
// for a message.
func gltfSupportedList() string {
	names := slices.Sorted(maps.Keys(gltfSupported))
	return strings.Join(names, ", ")
}

// gltfSplitGLB returns the JSON chunk and the BIN chunk (nil when there is
// none) of a GLB file.
func gltfSplitGLB(data []byte) (jsonChunk, bin []byte, err error) {
	le := binary.LittleEndian
	if len(data) < 20 {
		return nil, nil, errors.New("the file is too short")
	}
	if v := le.Uint32(data[4:]); v != 2 {
		return nil, nil, fmt.Errorf("version %d is not supported (only 2)", v)
	}
	total := le.Uint32(data[8:])
	if uint64(total) > uint64(len(data)) || total < 20 {
		return nil, nil, fmt.Errorf("the header gives a length of %d bytes, the file has %d", total, len(data))
	}
	data = data[12:total]
	var chunks [][]byte
	var types []uint32
	for len(data) >= 8 && len(chunks) < 2 {
		n, typ := le.Uint32(data), le.Uint32(data[4:])
		if uint64(n) > uint64(len(data)-8) {
			return nil, nil, fmt.Errorf("chunk %d is %d bytes, past the end of the file", len(chunks), n)
		}
		chunks = append(chunks, data[8:8+n])
		types = append(types, typ)
		data = data[8+n:]
	}
	if len(chunks) == 0 || types[0] != glbChunkJSON {
		return nil, nil, errors.New("the first chunk is not JSON")
	}
	if len(chunks) > 1 && types[1] == glbChunkBIN {
		bin = chunks[1]
	}
	return chunks[0], bin, nil
}

// loadBuffer fills in b.Data: from the GLB BIN chunk for a GLB file's
// first buffer without a URI, from a data: URI, or from a file.
func (l *gltfLoader) loadBuffer(i int, b *gltf.Buffer, isGLB bool, bin []byte) error {
	if b == nil {
		return l.errorf(nil, "buffers[%d] is null", i)
	}
	if b.ByteLength < 1 {
		return l.errorf(nil, "buffers[%d]: byteLength %d is not positive", i, b.ByteLength)
	}
	var data []byte
	switch {
	case b.URI == "" && i == 0 && isGLB:
		if bin == nil {
			return l.errorf(nil, "buffers[0]: the GLB file has no BIN chunk")
		}
		data = bin
	case b.URI == "":
		return l.errorf(nil, "buffers[%d] has no uri", i)
	case strings.HasPrefix(b.URI, "data:"):
		var err error
		if data, err = gltfDataURI(b.URI); err != nil {
			return l.errorf(err, "buffers[%d]: %v", i, err)
		}
	default:
		name, err := gltfURIPath(b.URI)
		if err != nil {
			return l.errorf(err, "buffers[%d]: %v", i, err)
		}
		p, err := l.a.resolve(l.dir, name)
		if err == nil {
			data, err = l.a.read(p)
		}
		if err != nil {
			if pe, ok := errors.AsType[*fs.PathError](err); ok {
				err = fmt.Errorf("%s: %w", quoteFile(b.URI), pe.Err) // not the absolute path
			} else if !strings.Contains(err.Error(), quoteFile(name)) {
				err = fmt.Errorf("%s: %w", quoteFile(b.URI), err)
			}
			return l.errorf(err, "buffers[%d]: %v", i, err)
		}
	}
	if len(data) < b.ByteLength {
		return l.errorf(nil, "buffers[%d]: byteLength is %d but the data has only %d bytes", i, b.ByteLength, len(data))
	}
	b.Data = data[:b.ByteLength:b.ByteLength]
	return nil
}

// gltfDataURI returns the bytes of a base64 data: URI, whatever its media
// type.
func gltfDataURI(uri string) ([]byte, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ",")
	if !ok {
		return nil, errors.New("data: URI without a comma")
	}
	if !strings.HasSuffix(meta, ";base64") {
		return nil, errors.New("data: URI is not base64 (only base64 data URIs are supported)")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("data: URI: %v", err)
	}
	return data, nil
}

// gltfURIPath turns a relative URI reference into a file name relative to
// the glTF file's folder: it refuses other schemes and undoes percent
// encoding. Whether the name stays inside the scene's folder is for
// assets.resolve to check.
func gltfURIPath(uri string) (string, error) {
	if i := strings.IndexByte(uri, ':'); i > 0 && gltfIsScheme(uri[:i]) {
		return "", fmt.Errorf("uri %q: only relative file names and data: URIs are supported", uri)
	}
	name, err := url.PathUnescape(uri)
	if err != nil {
		return "", fmt.Errorf("uri %q: %v", uri, err)
	}
	return filepath.FromSlash(name), nil
}

// gltfIsScheme reports whether s is a URI scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func gltfIsScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// walk visits the default scene's nodes depth first, emitting a MeshDesc
// per primitive of each node's mesh.
func (l *gltfLoader) walk() error {
	doc := l.doc
	var roots []int
	where := "scenes[0]"
	switch {
	case doc.Scene != nil:
		i := *doc.Scene
		if i < 0 || i >= len(doc.Scenes) || doc.Scenes[i] == nil {
			return l.errorf(nil, "scene: scenes[%d] does not exist", i)
		}
		roots, where = doc.Scenes[i].Nodes, fmt.Sprintf("scenes[%d]", i)
	case len(doc.Scenes) > 0:
		if doc.Scenes[0] == nil {
			return l.errorf(nil, "scenes[0] is null")
		}
		roots = doc.Scenes[0].Nodes
	default:
		where = "nodes"
		child := make([]bool, len(doc.Nodes))
		for _, n := range doc.Nodes {
			if n == nil {
				continue
			}
			for _, c := range n.Children {
				if c >= 0 && c < len(child) {
					child[c] = true
				}
			}
		}
		for i, isChild := range child {
			if !isChild {
				roots = append(roots, i)
			}
		}
	}

	type visit struct {
		node   int
		parent mgl64.Mat4
		from   string // what refers to the node, for errors
	}
	stack := make([]visit, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, visit{roots[i], mgl64.Ident4(), where})
	}
	seen := make([]bool, len(doc.Nodes))
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.node < 0 || v.node >= len(doc.Nodes) || doc.Nodes[v.node] == nil {
			return l.errorf(nil, "%s: nodes[%d] does not exist", v.from, v.node)
		}
		if seen[v.node] {
			return l.errorf(nil, "%s: nodes[%d] is reached twice (a cycle, or a node with two parents)", v.from, v.node)
		}
		seen[v.node] = true
		n := doc.Nodes[v.node]
		local, err := gltfNodeMatrix(n)
		if err != nil {
			return l.errorf(nil, "nodes[%d]: %v", v.node, err)
		}
		world := v.parent.Mul4(local)
		if n.Mesh != nil {
			skin := -1 // placed by world
			if n.Skin != nil {
				if skin = *n.Skin; skin < 0 { // placed by its joints (gltfskin.go)
					return l.errorf(nil, "nodes[%d]: skins[%d] does not exist", v.node, skin)
				}
			}
			if err := l.instance(v.node, *n.Mesh, world, skin); err != nil {
				return err
			}
		}
		if err := l.nodeLight(v.node, n, world); err != nil {
			return err
		}
		if n.Camera != nil {
			if err := l.nodeCamera(v.node, *n.Camera, world); err != nil {
				return err
			}
		}
		from := fmt.Sprintf("nodes[%d].children", v.node)
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, visit{n.Children[i], world, from})
		}
	}
	return nil
}

// nodeCamera records the camera cameras[ci] of node, placed by world: a
// perspective camera, or an orthographic one (its ymag; NaN without
// one). Their values are checked only when a scene asks for the camera
// (gltfCamera); the file's meshes load as before.
func (l *gltfLoader) nodeCamera(node, ci int, world mgl64.Mat4) error {
	doc := l.doc
	if ci < 0 || ci >= len(doc.Cameras) || doc.Cameras[ci] == nil {
		return l.errorf(nil, "nodes[%d].camera: cameras[%d] does not exist", node, ci)
	}
	c := doc.Cameras[ci]
	if c.Perspective == nil {
		ymag := math.NaN()
		if c.Orthographic != nil {
			ymag = c.Orthographic.Ymag
		}
		l.out.cameras = append(l.out.cameras, importedCamera{node: node, camera: ci, name: c.Name, yfov: math.NaN(), ymag: ymag, world: world})
		return nil
	}
	l.out.cameras = append(l.out.cameras, importedCamera{node: node, camera: ci, name: c.Name, yfov: c.Perspective.Yfov, world: world})
	return nil
}

// gltfNodeMatrix returns a node's local transform: its matrix, or
// translation·rotation·scale. The Node decoder fills in the defaults of
// the properties a file leaves out.
func gltfNodeMatrix(n *gltf.Node) (mgl64.Mat4, error) {
	m := mgl64.Mat4(n.Matrix)
	const tol = 1e-6 // for exporters that round the last row
	if math.Abs(m[3]) > tol || math.Abs(m[7]) > tol || math.Abs(m[11]) > tol || math.Abs(m[15]-1) > tol {
		return m, errors.New("matrix is not affine (its last row is not 0 0 0 1)")
	}
	m[3], m[7], m[11], m[15] = 0, 0, 0, 1
	r := n.Rotation
	q := mgl64.Quat{W: r[3], V: mgl64.Vec3{r[0], r[1], r[2]}}
	if l := q.Len(); !(l > 1e-6) || math.IsInf(l, 0) {
		return m, fmt.Errorf("rotation %v is not a unit quaternion", r)
	}
	t, s := n.Translation, n.Scale
	trs := mgl64.Translate3D(t[0], t[1], t[2]).
		Mul4(q.Normalize().Mat4()).
		Mul4(mgl64.Scale3D(s[0], s[1], s[2]))
	return m.Mul4(trs), nil
}

// instance emits the primitives of meshes[mesh], placed by world, or by
// the joints of skins[skin] when skin is not −1.
func (l *gltfLoader) instance(node, mesh int, world mgl64.Mat4, skin int) error {
	doc := l.doc
	if mesh < 0 || mesh >= len(doc.Meshes) || doc.Meshes[mesh] == nil {
		return l.errorf(nil, "nodes[%d]: meshes[%d] does not exist", node, mesh)
	}
	fixed := newGLTFPlace(world)
	for k := range doc.Meshes[mesh].Primitives {
		p, err := l.primitive(mesh, k)
		if err != nil {
			return err
		}
		if p == nil {
			continue // points or lines
		}
		where := fmt.Sprintf("nodes[%d]: meshes[%d].primitives[%d]", node, mesh, k)
		ntri := len(p.indices) / 3
		if l.triangles += ntri; l.triangles > tracer.MaxTriangles {
			return l.errorf(nil, "%s: more than %d triangles (MaxTriangles) in the file's meshes together", where, tracer.MaxTriangles)
		}
		if l.vertices += len(p.positions); l.vertices > 3*tracer.MaxTriangles {
			return l.errorf(nil, "%s: more than %d vertices (3·MaxTriangles) in the file's meshes together", where, 3*tracer.MaxTriangles)
		}
		place := func(int) gltfPlace { return fixed }
		if skin >= 0 {
			sk, err := l.skinning(node, skin, mesh, k, len(p.positions))
			if err != nil {
				return err
			}
			place = sk.place // vertex by vertex, computed where needed
		}
		positions, normals, tangents, err := l.morph(node, mesh, k, p) // before skinning, as glTF says
		if err != nil {
			return err
		}
		var m tracer.MeshDesc
		m.Positions = make([]mgl32.Vec3, len(positions))
		for i, q := range positions {
			w := place(i).m.Mul4x1(mgl64.Vec4{float64(q[0]), float64(q[1]), float64(q[2]), 1})
			v := mgl32.Vec3{float32(w[0]), float32(w[1]), float32(w[2])}
			if !gltfFinite(v) {
				return l.errorf(nil, "%s: POSITION %d is not finite after the node transforms", where, i)
			}
			m.Positions[i] = v
		}
		if normals != nil {
			m.Normals = make([]mgl32.Vec3, len(normals))
			for i, q := range normals {
				if place(i).det == 0 {
					m.Normals = nil // a flattening map: shade the instance flat
					break
				}
				w := place(i).cof.Mul3x1(mgl64.Vec3{float64(q[0]), float64(q[1]), float64(q[2])})
				n := w.Len()
				if !(n > 0) || math.IsInf(n, 0) {
					m.Normals = nil // a zero normal: shade the instance flat
					break
				}
				m.Normals[i] = mgl32.Vec3{float32(w[0] / n), float32(w[1] / n), float32(w[2] / n)}
			}
		}
		if tangents != nil {
			// Directions in the surface: the node's linear part, and a
			// mirror flips the handedness (see transform.tangents).
			m.Tangents = make([]mgl32.Vec4, len(tangents))
			for i, q := range tangents {
				pl := place(i)
				if pl.det == 0 {
					m.Tangents = nil
					break
				}
				w := pl.lin.Mul3x1(mgl64.Vec3{float64(q[0]), float64(q[1]), float64(q[2])})
				hand := q[3]
				if pl.det < 0 {
					hand = -hand
				}
				if n := w.Len(); n > 0 && !math.IsInf(n, 0) {
					w = w.Mul(1 / n)
				} else {
					w = mgl64.Vec3{}
				}
				m.Tangents[i] = mgl32.Vec4{float32(w[0]), float32(w[1]), float32(w[2]), hand}
			}
		}
		if p.uvs != nil {
			m.UVs = make([]mgl32.Vec2, len(p.uvs))
			for i, uv := range p.uvs {
				m.UVs[i] = uv
			}
		}
		for _, uv := range p.uv1s {
			m.UV1s = append(m.UV1s, uv)
		}
		for _, c := range p.colors {
			m.Colors = append(m.Colors, c)
		}
		m.Indices = make([]uint32, len(p.indices))
		copy(m.Indices, p.indices)
		for t := 0; t+2 < len(m.Indices); t += 3 {
			if place(int(m.Indices[t])).det < 0 { // a mirror: keep the outside out
				m.Indices[t+1], m.Indices[t+2] = m.Indices[t+2], m.Indices[t+1]
			}
		}
		mat := p.material
		if len(p.positions) > 0 {
			mat = l.placedMaterial(mat, place(0).det)
		}
		m.Material = int(mat)
		m.Materials = make([]int32, ntri)
		for t := range m.Materials {
			m.Materials[t] = mat
		}
		l.out.meshes = append(l.out.meshes, m)
	}
	return nil
}

// gltfScaledMaterial is out.materials[k] with its absorption distance
// scaled by scale.
type gltfScaledMaterial struct {
	k     int32
	scale float64
}

// placedMaterial returns the out.materials index of material k (−1 for
// none) as a node whose linear part has determinant det places it: k
// itself, or, for glass that absorbs under a node that scales, a copy
// whose AttenuationDistance, which glTF gives in the mesh's own units, is
// in the file's: times the node's scale, the cube root of |det| (a
// uniform scale's factor; for a non-uniform one, the scale of volumes).
// A skinned primitive takes the scale of its first vertex's place. A
// flattening node (det 0) keeps the distance: it leaves no volume.
func (l *gltfLoader) placedMaterial(k int32, det float64) int32 {
	if k < 0 || l.out.materials[k].AttenuationDistance == 0 {
		return k
	}
	sc := math.Cbrt(math.Abs(det))
	im := l.out.materials[k]
	d := float32(min(max(float64(im.AttenuationDistance)*sc, math.SmallestNonzeroFloat32), math.MaxFloat32))
	if !(sc > 0) || math.IsInf(sc, 0) || d == im.AttenuationDistance {
		return k
	}
	key := gltfScaledMaterial{k, sc}
	if i, ok := l.scaled[key]; ok {
		return i
	}
	im.AttenuationDistance = d
	i := int32(len(l.out.materials))
	l.out.materials = append(l.out.materials, im)
	l.scaled[key] = i
	return i
}

// gltfFinite reports whether v's components are all finite.
func gltfFinite(v mgl32.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// primitive reads meshes[mesh].primitives[k], once however many nodes
// hold the mesh.
func (l *gltfLoader) primitive(mesh, k int) (*gltfPrimitive, error) {
	if p, ok := l.prims[[2]int{mesh, k}]; ok {
		return p, nil
	}
	where := fmt.Sprintf("meshes[%d].primitives[%d]", mesh, k)
	gp := l.doc.Meshes[mesh].Primitives[k]
	if gp == nil {
		return nil, l.errorf(nil, "%s is null", where)
	}
	switch gp.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	case gltf.PrimitivePoints, gltf.PrimitiveLines, gltf.PrimitiveLineLoop, gltf.PrimitiveLineStrip:
		// Blender writes a mesh's loose edges and vertices as primitives
		// of lines and points beside its faces: they have no area to
		// draw, so the faces are drawn without them (with a warning).
		l.unsurfaced = append(l.unsurfaced, where)
		l.prims[[2]int{mesh, k}] = nil
		return nil, nil
	default:
		return nil, l.errorf(nil, "%s: mode %s is not supported (only TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN)", where, gp.Mode)
	}
	p := &gltfPrimitive{material: -1}

	ai, ok := gp.Attributes[gltf.POSITION]
	if !ok {
		return nil, l.errorf(nil, "%s: no POSITION attribute", where)
	}
	acc, err := l.accessor(ai, where+".attributes.POSITION")
	if err != nil {
		return nil, err
	}
	switch {
	case acc.Type != gltf.AccessorVec3:
		return nil, l.errorf(nil, "%s: POSITION is %s %s, not supported (only VEC3)", where, acc.ComponentType, acc.Type)
	case acc.ComponentType == gltf.ComponentFloat:
		if p.positions, err = modeler.ReadPosition(l.doc, acc, nil); err != nil {
			return nil, l.errorf(err, "%s: POSITION: accessors[%d]: %v", where, ai, err)
		}
	case l.quantizedAllowed(gltf.POSITION, acc):
		v, err := l.dequantize(acc, ai, 3, where+".attributes.POSITION")
		if err != nil {
			return nil, err
		}
		p.positions = gltfVec3s(v)
	default:
		return nil, l.errorf(nil, "%s: POSITION is %s %s, not supported (only FLOAT VEC3%s)", where, acc.ComponentType, acc.Type, l.quantizedHint("BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT"))
	}
	for i, q := range p.positions {
		if !gltfFinite(q) {
			return nil, l.errorf(nil, "%s: POSITION %d is not finite", where, i)
		}
	}
	nv := len(p.positions)

	if ai, ok := gp.Attributes[gltf.NORMAL]; ok {
		acc, err := l.accessor(ai, where+".attributes.NORMAL")
		if err != nil {
			return nil, err
		}
		if acc.Type != gltf.AccessorVec3 || acc.ComponentType != gltf.ComponentFloat && !l.quantizedAllowed(gltf.NORMAL, acc) {
			return nil, l.errorf(nil, "%s: NORMAL is %s %s%s, not supported (only FLOAT VEC3%s)", where, acc.ComponentType, acc.Type, gltfNormalizedWord(acc), l.quantizedHint("normalized BYTE or SHORT"))
		}
		if acc.Count != nv {
			return nil, l.errorf(nil, "%s: NORMAL has %d elements, POSITION %d", where, acc.Count, nv)
		}
		if acc.ComponentType == gltf.ComponentFloat {
			if p.normals, err = modeler.ReadNormal(l.doc, acc, nil); err != nil {
				return nil, l.errorf(err, "%s: NORMAL: accessors[%d]: %v", where, ai, err)
			}
		} else {
			v, err := l.dequantize(acc, ai, 3, where+".attributes.NORMAL")
			if err != nil {
				return nil, err
			}
			p.normals = gltfVec3s(v) // renormalised when placed
		}
		for i, q := range p.normals {
			if !gltfFinite(q) {
				return nil, l.errorf(nil, "%s: NORMAL %d is not finite", where, i)
			}
		}
	}

	if ai, ok := gp.Attributes[gltf.TEXCOORD_0]; ok {
		if p.uvs, err = l.texCoords(ai, where, gltf.TEXCOORD_0, nv); err != nil {
			return nil, err
		}
	}

	if ai, ok := gp.Attributes[gltf.COLOR_0]; ok {
		if p.colors, err = l.colors(ai, where+".attributes.COLOR_0", nv); err != nil {
			return nil, err
		}
	}
	if ai, ok := gp.Attributes[gltf.TANGENT]; ok {
		acc, err := l.accessor(ai, where+".attributes.TANGENT")
		if err != nil {
			return nil, err
		}
		if acc.Type != gltf.AccessorVec4 || acc.ComponentType != gltf.ComponentFloat && !l.quantizedAllowed(gltf.TANGENT, acc) {
			return nil, l.errorf(nil, "%s: TANGENT is %s %s%s, not supported (only FLOAT VEC4%s)", where, acc.ComponentType, acc.Type, gltfNormalizedWord(acc), l.quantizedHint("normalized BYTE or SHORT"))
		}
		if acc.Count != nv {
			return nil, l.errorf(nil, "%s: TANGENT has %d elements, POSITION %d", where, acc.Count, nv)
		}
		if acc.ComponentType == gltf.ComponentFloat {
			if p.tangents, err = modeler.ReadTangent(l.doc, acc, nil); err != nil {
				return nil, l.errorf(err, "%s: TANGENT: accessors[%d]: %v", where, ai, err)
			}
		} else {
			v, err := l.dequantize(acc, ai, 4, where+".attributes.TANGENT")
			if err != nil {
				return nil, err
			}
			p.tangents = make([][4]float32, nv) // xyz renormalised when placed
			for i := range p.tangents {
				p.tangents[i] = [4]float32(v[4*i : 4*i+4])
			}
		}
		for i, q := range p.tangents {
			if !gltfFinite(mgl32.Vec3{q[0], q[1], q[2]}) || !gltfFinite(mgl32.Vec3{q[3]}) {
				return nil, l.errorf(nil, "%s: TANGENT %d is not finite", where, i)
			}
		}
	}

	if err := l.morphTargets(gp, p, where, nv); err != nil {
		return nil, err
	}

	if gp.Indices != nil {
		ai := *gp.Indices
		acc, err := l.accessor(ai, where+".indices")
		if err != nil {
			return nil, err
		}
		if p.indices, err = modeler.ReadIndices(l.doc, acc, nil); err != nil {
			return nil, l.errorf(err, "%s: indices: accessors[%d]: %v", where, ai, err)
		}
		if len(p.indices)%3 != 0 && gp.Mode == gltf.PrimitiveTriangles {
			return nil, l.errorf(nil, "%s: %d indices, not a multiple of 3", where, len(p.indices))
		}
		for i, x := range p.indices {
			if uint64(x) >= uint64(nv) {
				return nil, l.errorf(nil, "%s: index %d is out of range (POSITION has %d vertices), at element %d of the indices", where, x, nv, i)
			}
		}
	} else {
		if nv%3 != 0 && gp.Mode == gltf.PrimitiveTriangles {
			return nil, l.errorf(nil, "%s: %d vertices and no indices: not a multiple of 3", where, nv)
		}
		p.indices = make([]uint32, nv)
		for i := range p.indices {
			p.indices[i] = uint32(i)
		}
	}
	switch gp.Mode {
	case gltf.PrimitiveTriangleStrip:
		p.indices = gltfStrip(p.indices)
	case gltf.PrimitiveTriangleFan:
		p.indices = gltfFan(p.indices)
	}

	if gp.Material != nil {
		if p.material, err = l.material(*gp.Material); err != nil {
			e := err.(*Error)
			e.Msg = where + ": " + e.Msg
			return nil, e
		}
		if l.out.materials[p.material].usesSet1() {
			ai, ok := gp.Attributes[gltf.TEXCOORD_1]
			if !ok {
				return nil, l.errorf(nil, "%s: materials[%d] has a texture with texCoord 1, but the primitive has no TEXCOORD_1 attribute", where, *gp.Material)
			}
			if p.uv1s, err = l.texCoords(ai, where, gltf.TEXCOORD_1, nv); err != nil {
				return nil, err
			}
		}
	}
	if gp.Material == nil {
		p.material = l.defaultMaterial()
	}
	l.prims[[2]int{mesh, k}] = p
	return p, nil
}

// defaultMaterial returns the index of glTF's default material, which a
// primitive without a material uses (glTF 2.0 §3.9.6: base colour,
// metallic and roughness factors 1, no textures), adding it on first use.
func (l *gltfLoader) defaultMaterial() int32 {
	if l.dflt < 0 {
		l.dflt = int32(len(l.out.materials))
		l.out.materials = append(l.out.materials, importedMaterial{
			Name: "glTF default material", HasColor: true, PBR: true,
			Color: mgl32.Vec3{1, 1, 1}, Metallic: 1, Roughness: 1, Default: true,
		})
	}
	return l.dflt
}

// accessor returns accessors[i], checked so that reading it stays inside
// its buffer view and buffer (and so allocates no more than they hold).
func (l *gltfLoader) accessor(i int, where string) (*gltf.Accessor, error) {
	doc := l.doc
	if i < 0 || i >= len(doc.Accessors) || doc.Accessors[i] == nil {
		return nil, l.errorf(nil, "%s: accessors[%d] does not exist", where, i)
	}
	acc := doc.Accessors[i]
	size := gltf.SizeOfElement(acc.ComponentType, acc.Type)
	if acc.BufferView == nil {
		// All zeros but for a sparse part: no more bytes of elements
		// than the file's buffers hold, as with a bufferView, so that a
		// count alone cannot make the reader allocate more than the
		// file brings.
		if acc.Count < 1 || size < 1 || acc.Count > l.bufferBytes/size {
			return nil, l.errorf(nil, "%s: accessors[%d]: %d elements of %d bytes without a bufferView: more than the %d bytes of the file's buffers", where, i, acc.Count, size, l.bufferBytes)
		}
	} else if err := l.fits(acc.ComponentType, acc.Type, acc.Count, *acc.BufferView, acc.ByteOffset, true); err != nil {
		return nil, l.errorf(nil, "%s: accessors[%d]: %v", where, i, err)
	}
	if sp := acc.Sparse; sp != nil {
		// Read by modeler.ReadAccessor: these values replace the
		// elements at these indices.
		if sp.Count < 1 || sp.Count > acc.Count {
			return nil, l.errorf(nil, "%s: accessors[%d]: sparse.count %d is not in [1, %d] (the accessor's count)", where, i, sp.Count, acc.Count)
		}
		switch sp.Indices.ComponentType {
		case gltf.ComponentUbyte, gltf.ComponentUshort, gltf.ComponentUint:
		default:
			return nil, l.errorf(nil, "%s: accessors[%d]: sparse.indices.componentType %s is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", where, i, sp.Indices.ComponentType)
		}
		if err := l.fits(sp.Indices.ComponentType, gltf.AccessorScalar, sp.Count, sp.Indices.BufferView, sp.Indices.ByteOffset, false); err != nil {
			return nil, l.errorf(nil, "%s: accessors[%d]: sparse.indices: %v", where, i, err)
		}
		if err := l.fits(acc.ComponentType, acc.Type, sp.Count, sp.Values.BufferView, sp.Values.ByteOffset, false); err != nil {
			return nil, l.errorf(nil, "%s: accessors[%d]: sparse.values: %v", where, i, err)
		}
	}
	return acc, nil
}

// fits checks that count elements of the component and accessor type, from
// offset in bufferViews[bi], lie inside it and its buffer; strided says
// whether the view's byteStride applies (it does not to sparse indices
// and values, which are tightly packed).
func (l *gltfLoader) fits(ct gltf.ComponentType, at gltf.AccessorType, count, bi, offset int, strided bool) error {
	doc := l.doc
	if bi < 0 || bi >= len(doc.BufferViews) || doc.BufferViews[bi] == nil {
		return fmt.Errorf("bufferViews[%d] does not exist", bi)
	}
	bv := doc.BufferViews[bi]
	view, err := modeler.ReadBufferView(doc, bv)
	if err != nil {
		return fmt.Errorf("bufferViews[%d] is outside its buffer: %v", bi, err)
	}
	size := gltf.SizeOfElement(ct, at)
	stride := size
	if strided && bv.ByteStride != 0 {
		stride = bv.ByteStride
	}
	if count < 1 || offset < 0 || size < 1 || stride < size ||
		offset > len(view) || count > len(view) ||
		offset+(count-1)*stride+size > len(view) {
		return fmt.Errorf("%d elements of %d bytes, %d apart from offset %d, do not fit in bufferViews[%d] (%d bytes)",
			count, size, stride, offset, bi, len(view))
	}
	return nil
}

// material converts materials[i] (once), returning its index in
// out.materials.
func (l *gltfLoader) material(i int) (int32, error) {
	if idx, ok := l.materials[i]; ok {
		return idx, nil
	}
	doc := l.doc
	if i < 0 || i >= len(doc.Materials) || doc.Materials[i] == nil {
		return 0, l.errorf(nil, "materials[%d] does not exist", i)
	}
	m := doc.Materials[i]
	where := fmt.Sprintf("materials[%d]", i)
	name := m.Name
	if name == "" {
		name = fmt.Sprintf("material %d", i)
	}
	im := importedMaterial{
		Name:      name,
		HasColor:  true,
		PBR:       true,
		Color:     mgl32.Vec3{1, 1, 1},
		Metallic:  1,
		Roughness: 1,
	}
	var exts []string
	for e := range m.Extensions {
		if e != "KHR_materials_emissive_strength" {
			exts = append(exts, e)
		}
	}
	slices.Sort(exts)
	glass, err := l.glassMaterial(m, where)
	if err != nil {
		return 0, err
	}
	im.Unsupported = glass.unsupported(exts)
	if raw, ok := m.Extensions[gltfClearcoatExt]; ok && !glass.glass {
		notes, err := l.clearcoat(raw, where, &im)
		if err != nil {
			return 0, err
		}
		im.Unsupported = append(slices.DeleteFunc(im.Unsupported, func(e string) bool { return e == gltfClearcoatExt }), notes...)
	}
	if raw, ok := m.Extensions[gltfSheenExt]; ok && !glass.glass {
		notes, err := l.sheen(raw, where, &im)
		if err != nil {
			return 0, err
		}
		im.Unsupported = append(slices.DeleteFunc(im.Unsupported, func(e string) bool { return e == gltfSheenExt }), notes...)
	}
	if !glass.glass {
		read, notes, err := l.specular(m, where, &im)
		if err != nil {
			return 0, err
		}
		im.Unsupported = append(slices.DeleteFunc(im.Unsupported, func(e string) bool { return slices.Contains(read, e) }), notes...)
		// Converted below (specularGlossiness).
		im.Unsupported = slices.DeleteFunc(im.Unsupported, func(e string) bool { return e == gltfSpecGlossExt })
	}
	for _, e := range exts {
		if slices.Contains(doc.ExtensionsRequired, e) && slices.Contains(im.Unsupported, e) {
			if e == gltfClearcoatExt || e == gltfSheenExt || e == gltfSpecularExt || e == gltfSpecGlossExt {
				im.Refused = fmt.Sprintf("%s (%s) needs %s, which the file requires and trace does not read on glass", where, quote(name), e)
			} else {
				im.Refused = fmt.Sprintf("%s (%s) needs %s, which the file requires and trace reads only on glass: a material of full transmission (transmissionFactor 1, no transmissionTexture, metallicFactor 0, ior in [1, 4])", where, quote(name), e)
			}
			break
		}
	}
	if pbr := m.PBRMetallicRoughness; pbr != nil {
		factor := pbr.BaseColorFactorOrDefault()
		for _, f := range factor[:3] {
			if !(f >= 0 && f <= 1) {
				return 0, l.errorf(nil, "%s: baseColorFactor %v is outside [0, 1]", where, factor)
			}
		}
		im.Color = mgl32.Vec3{float32(factor[0]), float32(factor[1]), float32(factor[2])}
		mf, rf := pbr.MetallicFactorOrDefault(), pbr.RoughnessFactorOrDefault()
		if !(mf >= 0 && mf <= 1) || !(rf >= 0 && rf <= 1) {
			return 0, l.errorf(nil, "%s: metallicFactor %g or roughnessFactor %g is outside [0, 1]", where, mf, rf)
		}
		im.Metallic, im.Roughness = float32(mf), float32(rf)
		if tex := pbr.BaseColorTexture; tex != nil {
			t, err := l.texture(tex, where+".pbrMetallicRoughness.baseColorTexture", true)
			if err != nil {
				return 0, err
			}
			im.Image, im.ImageUV, im.ImageSampler = t.img, t.uv, t.sampler // im.Color is its tint
		}
		if tex := pbr.MetallicRoughnessTexture; tex != nil {
			t, err := l.texture(tex, where+".pbrMetallicRoughness.metallicRoughnessTexture", false)
			if err != nil {
				return 0, err
			}
			im.RoughImage, im.RoughUV, im.RoughSampler = t.img, t.uv, t.sampler
		}
	}
	ef := m.EmissiveFactor
	for _, f := range ef {
		if !(f >= 0 && f <= 1) {
			return 0, l.errorf(nil, "%s: emissiveFactor %v is outside [0, 1]", where, ef)
		}
	}
	strength := 1.0
	if raw, ok := m.Extensions["KHR_materials_emissive_strength"]; ok {
		var es struct {
			EmissiveStrength *float64 `json:"emissiveStrength"`
		}
		data, _ := raw.(json.RawMessage)
		if err := json.Unmarshal(data, &es); err != nil || (es.EmissiveStrength != nil && !(*es.EmissiveStrength >= 0 && *es.EmissiveStrength <= math.MaxFloat32)) {
			return 0, l.errorf(err, "%s: KHR_materials_emissive_strength: emissiveStrength must be a number >= 0", where)
		}
		if es.EmissiveStrength != nil {
			strength = *es.EmissiveStrength
		}
	}
	im.Emission = mgl32.Vec3{float32(ef[0] * strength), float32(ef[1] * strength), float32(ef[2] * strength)}
	if tex := m.EmissiveTexture; tex != nil && im.Emission != (mgl32.Vec3{}) {
		t, err := l.texture(tex, where+".emissiveTexture", true)
		if err != nil {
			return 0, err
		}
		im.EmissionImage, im.EmissionUV, im.EmissionSampler = t.img, t.uv, t.sampler
	}
	if nt := m.NormalTexture; nt != nil {
		if nt.Index == nil {
			return 0, l.errorf(nil, "%s.normalTexture: no index", where)
		}
		sc := nt.ScaleOrDefault()
		if math.IsNaN(sc) || math.Abs(sc) > 100 {
			return 0, l.errorf(nil, "%s.normalTexture: scale %g must be a number in [-100, 100]", where, sc)
		}
		t, err := l.texture(&gltf.TextureInfo{Index: *nt.Index, TexCoord: nt.TexCoord, Extensions: nt.Extensions}, where+".normalTexture", false)
		if err != nil {
			return 0, err
		}
		im.NormalImage, im.NormalUV, im.NormalScale, im.NormalSampler = t.img, t.uv, float32(sc), t.sampler
	}
	switch m.AlphaMode {
	case gltf.AlphaMask:
		c := m.AlphaCutoffOrDefault()
		if !(c >= 0 && c <= 1) {
			return 0, l.errorf(nil, "%s: alphaCutoff %g is outside [0, 1]", where, c)
		}
		im.AlphaMode, im.AlphaCutoff = tracer.AlphaMask, float32(c)
	case gltf.AlphaBlend:
		im.AlphaMode = tracer.AlphaBlend
	}
	if im.AlphaMode != tracer.AlphaOpaque {
		im.Alpha = 1
		if pbr := m.PBRMetallicRoughness; pbr != nil {
			a := pbr.BaseColorFactorOrDefault()[3]
			if !(a >= 0 && a <= 1) {
				return 0, l.errorf(nil, "%s: baseColorFactor's alpha %g is outside [0, 1]", where, a)
			}
			im.Alpha = float32(a)
		}
	}
	_, unlit := m.Extensions[gltfUnlitExt]
	if raw, ok := m.Extensions[gltfSpecGlossExt]; ok && !glass.glass && !unlit {
		// In place of pbrMetallicRoughness, read above.
		if err := l.specularGlossiness(raw, where, &im); err != nil {
			return 0, err
		}
	}
	if unlit {
		// It wins over glass and specular-glossiness, as in Blender's
		// importer (gltfunlit.go).
		unlitMaterial(&im)
		im.Unsupported = unlitUnsupported(exts)
	} else if glass.glass {
		// Trace's dielectric: baseColorFactor × baseColorTexture is the
		// tint of the light it transmits, roughnessFactor its roughness.
		im.PBR, im.Glass, im.IOR = false, true, glass.ior
		im.AttenuationColor, im.AttenuationDistance = glass.attenuationColor, glass.attenuationDistance
		im.Metallic, im.Emission = 0, mgl32.Vec3{}
		im.RoughImage, im.EmissionImage = nil, nil
	}
	idx := int32(len(l.out.materials))
	l.out.materials = append(l.out.materials, im)
	l.materials[i] = idx
	return idx, nil
}

// gltfImageKey is an image as decoded: images[i], from sRGB or linear.
type gltfImageKey struct {
	i    int
	srgb bool
}

// gltfTexture is a texture as a material uses it: its image, and the UV
// transform of its KHR_texture_transform in the tracer's coordinates
// (tracer.Texture.UV; zero for none).
type gltfTexture struct {
	img     *tracer.Image
	uv      [6]float32
	sampler textureSampler // its sampler's wrap modes and filter, and texCoord
}

// texture returns the image of a material's texture, decoded from sRGB
// (colour) or not (data, such as a metallic-roughness map), and its UV
// transform, refusing what the tracer's texture lookup (TEXCOORD_0,
// repeating) cannot honour.
func (l *gltfLoader) texture(info *gltf.TextureInfo, where string, srgb bool) (gltfTexture, error) {
	doc := l.doc
	texCoord := info.TexCoord
	var out gltfTexture
	if ext, ok := info.Extensions["KHR_texture_transform"]; ok {
		var tt texturetransform.TextureTransform
		switch e := ext.(type) {
		case *texturetransform.TextureTransform:
			tt = *e
		case json.RawMessage:
			if err := json.Unmarshal(e, &tt); err != nil {
				return out, l.errorf(err, "%s: KHR_texture_transform: %v", where, err)
			}
		default:
			return out, l.errorf(nil, "%s: KHR_texture_transform is not an object", where)
		}
		if tt.TexCoord != nil {
			texCoord = *tt.TexCoord
		}
		uv, err := gltfUVTransform(tt)
		if err != nil {
			return out, l.errorf(nil, "%s: KHR_texture_transform: %v", where, err)
		}
		out.uv = uv
	}
	if texCoord != 0 && texCoord != 1 {
		return out, l.errorf(nil, "%s: texCoord %d is not supported (only 0 and 1)", where, texCoord)
	}
	out.sampler.TexCoord = uint32(texCoord)
	ti := info.Index
	if ti < 0 || ti >= len(doc.Textures) || doc.Textures[ti] == nil {
		return out, l.errorf(nil, "%s: textures[%d] does not exist", where, ti)
	}
	t := doc.Textures[ti]
	if t.Sampler != nil {
		si := *t.Sampler
		if si < 0 || si >= len(doc.Samplers) || doc.Samplers[si] == nil {
			return out, l.errorf(nil, "textures[%d]: samplers[%d] does not exist", ti, si)
		}
		s := doc.Samplers[si]
		var err error
		if out.sampler.WrapS, err = gltfWrap(s.WrapS); err != nil {
			return out, l.errorf(nil, "%s: samplers[%d].wrapS: %v", where, si, err)
		}
		if out.sampler.WrapT, err = gltfWrap(s.WrapT); err != nil {
			return out, l.errorf(nil, "%s: samplers[%d].wrapT: %v", where, si, err)
		}
		out.sampler.Filter = gltfFilter(s.MagFilter, s.MinFilter)
	}
	source := t.Source
	if ext, ok := t.Extensions[gltfWebPExt]; ok {
		// The WebP image, preferred to the core source, which is there
		// for readers that cannot decode WebP.
		var e struct {
			Source *int `json:"source"`
		}
		if err := gltfExtension(ext, &e); err != nil {
			return out, l.errorf(err, "textures[%d]: %s: %v", ti, gltfWebPExt, err)
		}
		if e.Source == nil {
			return out, l.errorf(nil, "textures[%d]: %s has no source", ti, gltfWebPExt)
		}
		source = e.Source
	}
	if source == nil {
		return out, l.errorf(nil, "textures[%d]: no source image (images from extensions such as KHR_texture_basisu are not supported)", ti)
	}
	img, err := l.image(*source, srgb)
	out.img = img
	return out, err
}

// gltfWrap returns the tracer's wrap mode for a sampler's wrapS or wrapT.
func gltfWrap(w gltf.WrappingMode) (tracer.Wrap, error) {
	switch w {
	case gltf.WrapRepeat:
		return tracer.WrapRepeat, nil
	case gltf.WrapClampToEdge:
		return tracer.WrapClamp, nil
	case gltf.WrapMirroredRepeat:
		return tracer.WrapMirror, nil
	}
	return 0, fmt.Errorf("unknown wrap mode %s", w)
}

// gltfFilter returns the tracer's filter for a sampler: the tracer has no
// mipmaps and one filter for magnification and minification, so it is
// NEAREST when magFilter is NEAREST, or when magFilter is undefined and
// minFilter is NEAREST, NEAREST_MIPMAP_NEAREST or NEAREST_MIPMAP_LINEAR
// (nearest within a level); else linear.
func gltfFilter(mag gltf.MagFilter, min gltf.MinFilter) tracer.Filter {
	switch {
	case mag == gltf.MagNearest:
		return tracer.FilterNearest
	case mag == gltf.MagUndefined && (min == gltf.MinNearest || min == gltf.MinNearestMipMapNearest || min == gltf.MinNearestMipMapLinear):
		return tracer.FilterNearest
	}
	return tracer.FilterLinear
}

// texCoords reads the attribute name (TEXCOORD_0 or TEXCOORD_1) of the
// primitive at where: an accessor of nv elements (FLOAT, or normalised
// UNSIGNED_BYTE or UNSIGNED_SHORT VEC2), v flipped.
func (l *gltfLoader) texCoords(ai int, where, name string, nv int) ([][2]float32, error) {
	acc, err := l.accessor(ai, where+".attributes."+name)
	if err != nil {
		return nil, err
	}
	if acc.Count != nv {
		return nil, l.errorf(nil, "%s: %s has %d elements, POSITION %d", where, name, acc.Count, nv)
	}
	core := acc.ComponentType == gltf.ComponentFloat ||
		acc.Normalized && (acc.ComponentType == gltf.ComponentUbyte || acc.ComponentType == gltf.ComponentUshort)
	if acc.Type != gltf.AccessorVec2 || !core && !l.quantizedAllowed(name, acc) {
		return nil, l.errorf(nil, "%s: %s is %s %s%s, not supported (only VEC2 of FLOAT, or normalized UNSIGNED_BYTE or UNSIGNED_SHORT%s)",
			where, name, acc.ComponentType, acc.Type, gltfNormalizedWord(acc), l.quantizedHint("BYTE and SHORT, and UNSIGNED_BYTE and UNSIGNED_SHORT not normalized"))
	}
	var uvs [][2]float32
	if core {
		if uvs, err = modeler.ReadTextureCoord(l.doc, acc, nil); err != nil {
			return nil, l.errorf(err, "%s: %s: accessors[%d]: %v", where, name, ai, err)
		}
	} else {
		v, err := l.dequantize(acc, ai, 2, where+".attributes."+name)
		if err != nil {
			return nil, err
		}
		uvs = make([][2]float32, nv)
		for i := range uvs {
			uvs[i] = [2]float32(v[2*i : 2*i+2])
		}
	}
	for i, uv := range uvs {
		if !gltfFinite(mgl32.Vec3{uv[0], uv[1], 0}) {
			return nil, l.errorf(nil, "%s: %s %d is not finite", where, name, i)
		}
		uvs[i][1] = 1 - uv[1]
	}
	return uvs, nil
}

// colors reads a COLOR_0 accessor of nv elements: VEC3 or VEC4 (alpha
// ignored) of FLOAT in [0, 1], or normalised UNSIGNED_BYTE (x/255) or
// UNSIGNED_SHORT (x/65535). glTF's vertex colours are linear.
func (l *gltfLoader) colors(ai int, where string, nv int) ([][3]float32, error) {
	acc, err := l.accessor(ai, where)
	if err != nil {
		return nil, err
	}
	if acc.Type != gltf.AccessorVec3 && acc.Type != gltf.AccessorVec4 {
		return nil, l.errorf(nil, "%s is %s %s, not supported (only VEC3 or VEC4)", where, acc.ComponentType, acc.Type)
	}
	switch acc.ComponentType {
	case gltf.ComponentFloat:
	case gltf.ComponentUbyte, gltf.ComponentUshort:
		if !acc.Normalized {
			return nil, l.errorf(nil, "%s is %s %s but not normalized, not supported (only FLOAT, or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)", where, acc.ComponentType, acc.Type)
		}
	default:
		return nil, l.errorf(nil, "%s is %s %s, not supported (only FLOAT, or normalized UNSIGNED_BYTE or UNSIGNED_SHORT)", where, acc.ComponentType, acc.Type)
	}
	if acc.Count != nv {
		return nil, l.errorf(nil, "%s has %d elements, POSITION %d", where, acc.Count, nv)
	}
	data, err := modeler.ReadAccessor(l.doc, acc, nil)
	if err != nil {
		return nil, l.errorf(err, "%s: accessors[%d]: %v", where, ai, err)
	}
	out := make([][3]float32, nv)
	switch d := data.(type) {
	case [][3]float32:
		copy(out, d)
	case [][4]float32:
		for i, c := range d {
			out[i] = [3]float32{c[0], c[1], c[2]}
		}
	case [][3]uint8:
		for i, c := range d {
			out[i] = [3]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255}
		}
	case [][4]uint8:
		for i, c := range d {
			out[i] = [3]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255}
		}
	case [][3]uint16:
		for i, c := range d {
			out[i] = [3]float32{float32(c[0]) / 65535, float32(c[1]) / 65535, float32(c[2]) / 65535}
		}
	case [][4]uint16:
		for i, c := range d {
			out[i] = [3]float32{float32(c[0]) / 65535, float32(c[1]) / 65535, float32(c[2]) / 65535}
		}
	default:
		return nil, l.errorf(nil, "%s: accessors[%d]: unexpected data %T", where, ai, data)
	}
	for i, c := range out {
		for _, x := range c {
			if !(x >= 0 && x <= 1) {
				return nil, l.errorf(nil, "%s: element %d, %v, is outside [0, 1]", where, i, c)
			}
		}
	}
	return out, nil
}

// gltfUVTransform converts a KHR_texture_transform, which maps glTF's
// coordinates (v down) as translation · rotation · scale, to the tracer's
// (v' = 1 − v): with glTF's u' = a·u + b·v + ox, v' = c·u + d·v + oy
// (a = sx cos r, b = sy sin r, c = −sx sin r, d = sy cos r), the tracer's
// V' = 1 − v' = −c·u + d·V + 1 − d − oy and u' = a·u − b·V + b + ox.
func gltfUVTransform(t texturetransform.TextureTransform) ([6]float32, error) {
	sx, sy := t.Scale[0], t.Scale[1]
	vals := []float64{t.Offset[0], t.Offset[1], t.Rotation, sx, sy}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e30 {
			return [6]float32{}, fmt.Errorf("offset, rotation and scale must be finite, found %v", vals)
		}
	}
	if sx == 0 || sy == 0 {
		return [6]float32{}, fmt.Errorf("a scale of 0 (%v) maps the texture to one texel", t.Scale)
	}
	cs, sn := math.Cos(t.Rotation), math.Sin(t.Rotation)
	a, b, c, d := sx*cs, sy*sn, -sx*sn, sy*cs
	return [6]float32{float32(a), float32(-b), float32(-c), float32(d), float32(b + t.Offset[0]), float32(1 - d - t.Offset[1])}, nil
}

// image decodes images[i] (once), from a buffer view, a data: URI or a
// file next to the glTF file, as sRGB colour.
func (l *gltfLoader) image(i int, srgb bool) (*tracer.Image, error) {
	key := gltfImageKey{i, srgb}
	if img, ok := l.images[key]; ok {
		return img, nil
	}
	doc := l.doc
	if i < 0 || i >= len(doc.Images) || doc.Images[i] == nil {
		return nil, l.errorf(nil, "images[%d] does not exist", i)
	}
	im := doc.Images[i]
	where := fmt.Sprintf("images[%d]", i)
	src := gltfSourceKey{srgb: srgb}
	switch {
	case im.BufferView != nil:
		src.from = fmt.Sprintf("bufferViews[%d]", *im.BufferView)
	case strings.HasPrefix(im.URI, "data:"):
		src.from = im.URI
	case im.URI != "":
		if name, err := gltfURIPath(im.URI); err == nil {
			src.from = "file " + filepath.Clean(name)
		}
	}
	if img, ok := l.sources[src]; ok && src.from != "" {
		l.images[key] = img
		return img, nil
	}
	var (
		img *tracer.Image
		err error
	)
	switch {
	case im.BufferView != nil:
		bi := *im.BufferView
		if bi < 0 || bi >= len(doc.BufferViews) || doc.BufferViews[bi] == nil {
			return nil, l.errorf(nil, "%s: bufferViews[%d] does not exist", where, bi)
		}
		data, verr := modeler.ReadBufferView(doc, doc.BufferViews[bi])
		if verr != nil {
			return nil, l.errorf(verr, "%s: bufferViews[%d] is outside its buffer: %v", where, bi, verr)
		}
		img, err = l.a.decodeImage(data, where, srgb) // its errors start with where
	case strings.HasPrefix(im.URI, "data:"):
		data, derr := gltfDataURI(im.URI)
		if derr != nil {
			return nil, l.errorf(derr, "%s: %v", where, derr)
		}
		img, err = l.a.decodeImage(data, where, srgb)
	case im.URI == "":
		return nil, l.errorf(nil, "%s has neither uri nor bufferView", where)
	default:
		name, nerr := gltfURIPath(im.URI)
		if nerr != nil {
			return nil, l.errorf(nerr, "%s: %v", where, nerr)
		}
		if img, err = loadImage(l.a, l.dir, name, srgb); err != nil {
			err = fmt.Errorf("%s: %w", where, err) // its errors start with the file's name, quoted
		}
	}
	if err != nil {
		return nil, l.errorf(err, "%v", err)
	}
	l.images[key] = img
	if src.from != "" {
		l.sources[src] = img
	}
	return img, nil
}

// gltfSourceKey is an image as decoded, named by where its bytes come
// from (a buffer view, a data: URI, a file name relative to the glTF
// file's folder), so that two image entries of the same bytes are
// decoded once.
type gltfSourceKey struct {
	from string
	srgb bool
}

// gltfStrip returns the triangles of a TRIANGLE_STRIP's vertex indices,
// three indices each: triangle i is (v_i, v_i+1, v_i+2) for even i and
// (v_i, v_i+2, v_i+1) for odd i, as glTF 2.0 (section 3.7.2.1) orders
// them so that all face the same way. Triangles with a repeated vertex
// (the degenerate ones that join strips) are left out.
func gltfStrip(v []uint32) []uint32 {
	out := make([]uint32, 0, 3*max(len(v)-2, 0))
	for i := 0; i+2 < len(v); i++ {
		a, b, c := v[i], v[i+1], v[i+2]
		if i%2 == 1 {
			b, c = c, b
		}
		if a != b && b != c && a != c {
			out = append(out, a, b, c)
		}
	}
	return out
}

// gltfFan returns the triangles of a TRIANGLE_FAN's vertex indices:
// triangle i is (v_i+1, v_i+2, v_0), glTF 2.0's order, leaving out those
// with a repeated vertex.
func gltfFan(v []uint32) []uint32 {
	out := make([]uint32, 0, 3*max(len(v)-2, 0))
	for i := 1; i+1 < len(v); i++ {
		a, b, c := v[i], v[i+1], v[0]
		if a != b && b != c && a != c {
			out = append(out, a, b, c)
		}
	}
	return out
}
