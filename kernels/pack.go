package kernels

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// TraceScene is the scene header the kernel reads (struct TraceScene in
// scene.h, the same layout): the settings and camera it needs, and a
// device address and a length per array. A Device fills in the addresses
// of its own copy; Pack leaves them zero.
type TraceScene struct {
	// Device addresses of the arrays (host addresses in the emulator);
	// zero for an empty array.
	Nodes, Triangles, TriangleAttrs, Vertices, Shapes, Materials, Textures, Texels, Lights, Emitters uint64

	Seed uint64 // tracer.Settings.Seed

	// Lengths of the arrays in elements (NumTriangles also of
	// TriangleAttrs). Shapes[FirstPlane:] are the planes.
	NumNodes, NumTriangles, NumVertices, NumShapes, FirstPlane   uint32
	NumMaterials, NumTextures, NumTexels, NumLights, NumEmitters uint32

	Samples    uint32 // samples per pixel
	MaxDepth   uint32 // tracer.Settings.MaxDepth
	Integrator uint32 // a tracer.Integrator

	Camera     tracer.Camera
	Background tracer.Background
	SeeThrough uint32 // 1 when tracer.Scene.SeeThrough

	// Device addresses of tracer.Scene's UV1 and Colors, and their
	// lengths in vertices (zero when the scene has none).
	UV1, Colors       uint64
	NumUV1, NumColors uint32

	// Tangents is the device address of tracer.Scene.Tangents (zero when
	// empty), NumTangents its length.
	Tangents    uint64
	NumTangents uint32

	// Stop, when not 0, ends every thread of a megakernel launch at its
	// next sample's start (stop_asked, trace.cu), its pixel unfinished.
	// Pack leaves it 0; the cuda device sets it in device memory, from
	// another stream, to cancel a batch in flight, whose results it then
	// drops (cudaDevice.runLanes).
	Stop uint32

	// TriangleRecords is the device address of the triangles as the
	// traversals read them (Packed.TriangleRecords), NumTriangles of them.
	TriangleRecords uint64

	// LightNodes is the device address of tracer.Scene.LightNodes, the
	// light tree over the emitters and the lights in it (2·(NumEmitters
	// + those lights) − 1 nodes; zero without any).
	LightNodes uint64

	// Adaptive sampling (tracer/adaptive.go): MinSamples is the samples
	// of a pixel's first convergence test
	// (tracer.Settings.AdaptiveMinSamples), 0 when the scene samples
	// every pixel Samples times; NoiseLimit what a pixel's error (over
	// √(2/π)) must fall below, tracer.Settings.NoiseLimit.
	MinSamples uint32
	NoiseLimit float32

	// TreeLights is 1 when tracer.Scene.TreeLights: the light tree
	// (LightNodes) holds the point and spot lights of inverse-square
	// falloff beside the emitters, and the path integrator samples the
	// others alone at every vertex.
	TreeLights uint32
	_          uint32
}

// Adaptive reports whether the header's scene samples adaptively: then
// its pixels' counts carry the samples each took (PixelCounts), and a
// batch of them is never split into parts (SplitSamples).
func (h *TraceScene) Adaptive() bool { return h.MinSamples > 0 }

// SplitSamples is the samples a pixel of the header's scene shares out
// among the parts of a split batch (SampleParts, BatchParts): Samples, or
// 1 (so never split) under adaptive sampling, where a pixel's later
// samples depend on its earlier ones' sum.
func (h *TraceScene) SplitSamples() int {
	if h.Adaptive() {
		return 1
	}
	return int(int32(h.Samples))
}

// PixelCounts splits a pixel's nonfinite word, as Device.TracePixels
// writes it, into its samples whose radiance was replaced by black, and
// the samples it took: under adaptive sampling the kernel writes those in
// the word's high 32 bits (pixel_counts, trace.cu); otherwise they are 0
// there and the pixel took samples, the scene's Samples.
func PixelCounts(word uint64, samples int) (nonfinite, taken uint64) {
	nonfinite, taken = word&(1<<32-1), word>>32
	if taken == 0 {
		taken = uint64(max(samples, 0))
	}
	return nonfinite, taken
}

// Bytes returns the header's memory, to be copied to the device as it is.
func (h *TraceScene) Bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(h)), unsafe.Sizeof(*h))
}

// Addrs returns pointers to the address fields, in the order of
// Packed.Arrays.
func (h *TraceScene) Addrs() []*uint64 {
	return []*uint64{&h.Nodes, &h.Triangles, &h.TriangleAttrs, &h.Vertices, &h.Shapes,
		&h.Materials, &h.Textures, &h.Texels, &h.Lights, &h.Emitters, &h.UV1, &h.Colors, &h.Tangents,
		&h.TriangleRecords, &h.LightNodes}
}

// Packed is a compiled scene as the kernel reads it: the header and the
// scene's arrays, which alias the tracer.Scene's (the scene must not
// change while a device renders it), and TriangleRecords, the one array
// Pack makes.
type Packed struct {
	Scene         TraceScene
	Nodes         []tracer.BVHNode
	Triangles     []tracer.Triangle
	TriangleAttrs []tracer.TriangleAttr
	Vertices      []tracer.Vertex
	Shapes        []tracer.Shape
	Materials     []tracer.Material
	Textures      []tracer.Texture
	Texels        []float32
	Lights        []tracer.PointLight
	Emitters      []tracer.Emitter
	UV1           [][2]float32
	Colors        []mgl32.Vec3
	Tangents      []tracer.Tangent
	LightNodes    []tracer.LightNode
	// TriangleRecords are the triangles again, as the BVH traversals read
	// them: TriangleRecord, 48 bytes each.
	TriangleRecords []TriangleRecord
}

// TriangleRecord is a triangle as the kernel's BVH traversals read it:
// tracer.Triangle's nine floats (P0, E1, E2) and three of padding, 48
// bytes, so that on the GPU it is three 16-byte read-only loads (device
// allocations are 256-byte aligned) where a 36-byte Triangle, 4-byte
// aligned in its array, is nine 4-byte loads: on an H200 such scalar
// loads were 12.8 % of the path megakernel's instructions (ncu-source).
// The other readers of triangles (surface, lights) keep Triangles.
type TriangleRecord [12]float32

// triangleRecords returns ts as TriangleRecords.
func triangleRecords(ts []tracer.Triangle) []TriangleRecord {
	r := make([]TriangleRecord, len(ts))
	for i, t := range ts {
		r[i] = TriangleRecord{t.P0[0], t.P0[1], t.P0[2], t.E1[0], t.E1[1], t.E1[2], t.E2[0], t.E2[1], t.E2[2]}
	}
	return r
}

// Array is one of a packed scene's arrays, as the bytes to upload.
type Array struct {
	Name  string // the tracer.Scene field
	Bytes []byte // the array's memory; aliases the scene: do not modify
}

// Arrays returns the scene's arrays in the order of TraceScene.Addrs: a
// Device copies each to its memory and stores the address in its copy of
// the header.
func (p *Packed) Arrays() []Array {
	return []Array{
		{"Nodes", bytesOf(p.Nodes)},
		{"Triangles", bytesOf(p.Triangles)},
		{"TriangleAttrs", bytesOf(p.TriangleAttrs)},
		{"Vertices", bytesOf(p.Vertices)},
		{"Shapes", bytesOf(p.Shapes)},
		{"Materials", bytesOf(p.Materials)},
		{"Textures", bytesOf(p.Textures)},
		{"Texels", bytesOf(p.Texels)},
		{"Lights", bytesOf(p.Lights)},
		{"Emitters", bytesOf(p.Emitters)},
		{"UV1", bytesOf(p.UV1)},
		{"Colors", bytesOf(p.Colors)},
		{"Tangents", bytesOf(p.Tangents)},
		{"TriangleRecords", bytesOf(p.TriangleRecords)},
		{"LightNodes", bytesOf(p.LightNodes)},
	}
}

// Bytes returns the memory the packed arrays take.
func (p *Packed) Bytes() int {
	n := int(unsafe.Sizeof(p.Scene))
	for _, a := range p.Arrays() {
		n += len(a.Bytes)
	}
	return n
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// Limits of the kernel, beside tracer's own.
const (
	// MaxDepth is the deepest path the kernel traces: its Whitted stack
	// has MaxDepth+1 slots (scene.h).
	MaxDepth = 64
	// BVHStackSize is the depth of the kernel's BVH traversal stack
	// (scene.h); a deeper tree is refused.
	BVHStackSize = 64
)

// ErrUnsupported is wrapped by Pack's errors for a scene that the kernel
// cannot render exactly as the CPU tracer does.
var ErrUnsupported = errors.New("not supported by the GPU kernel")

// Pack returns the scene as the kernel reads it, or an error wrapping
// ErrUnsupported that names what the kernel cannot do: a scene is refused,
// never drawn differently from the CPU. Today the kernel renders every
// scene tracer.Compile builds; the checks here guard against values
// past a kind's count sentinel (tracer.NumMaterialKinds, ...: the kernel
// knows every kind below it, scene_gen.h being generated from the Go
// constants), a flag it ignores, and arrays too large for its 32-bit
// indices. Pack copies no array but the triangles (TriangleRecords);
// the checks read every array once.
func Pack(s *tracer.Scene) (*Packed, error) {
	p := &Packed{
		Nodes: s.Nodes, Triangles: s.Triangles, TriangleAttrs: s.TriangleAttrs, Vertices: s.Vertices,
		Shapes: s.Shapes, Materials: s.Materials, Textures: s.Textures, Texels: s.Texels,
		Lights: s.Lights, Emitters: s.Emitters, UV1: s.UV1, Colors: s.Colors, Tangents: s.Tangents,
		LightNodes: s.LightNodes,
	}
	if err := Check(s); err != nil {
		return nil, err
	}
	p.TriangleRecords = triangleRecords(s.Triangles)
	st := s.Settings
	p.Scene = TraceScene{
		Seed:     st.Seed,
		NumNodes: uint32(len(s.Nodes)), NumTriangles: uint32(len(s.Triangles)), NumVertices: uint32(len(s.Vertices)),
		NumShapes: uint32(len(s.Shapes)), FirstPlane: uint32(s.FirstPlane),
		NumMaterials: uint32(len(s.Materials)), NumTextures: uint32(len(s.Textures)), NumTexels: uint32(len(s.Texels)),
		NumLights: uint32(len(s.Lights)), NumEmitters: uint32(len(s.Emitters)),
		Samples: uint32(st.Samples), MaxDepth: uint32(st.MaxDepth), Integrator: uint32(st.Integrator),
		Camera: s.Camera, Background: s.Background,
		NumUV1: uint32(len(s.UV1)), NumColors: uint32(len(s.Colors)), NumTangents: uint32(len(s.Tangents)),
	}
	if s.SeeThrough {
		p.Scene.SeeThrough = 1
	}
	if s.TreeLights {
		p.Scene.TreeLights = 1
	}
	if st.Adaptive() {
		p.Scene.MinSamples = uint32(st.AdaptiveMinSamples())
		p.Scene.NoiseLimit = st.NoiseLimit()
	}
	return p, nil
}

// Check is Pack's refusal without the packing: nil for a scene Pack
// accepts, else the same error (wrapping ErrUnsupported). It allocates
// nothing, where Pack makes the TriangleRecords.
func Check(s *tracer.Scene) error {
	if err := check(s); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return nil
}

// check returns what in s the kernel cannot render, or nil.
func check(s *tracer.Scene) error {
	st := s.Settings
	switch {
	case st.Integrator >= tracer.NumIntegrators:
		return fmt.Errorf("integrator %d", st.Integrator)
	case st.Samples < 1 || st.Samples > tracer.MaxSamples:
		return fmt.Errorf("%d samples per pixel", st.Samples)
	case st.MaxDepth < 0 || st.MaxDepth > MaxDepth:
		return fmt.Errorf("max depth %d (at most %d)", st.MaxDepth, MaxDepth)
	case st.Width < 1 || st.Height < 1 || st.Width > tracer.MaxImageSide || st.Height > tracer.MaxImageSide:
		return fmt.Errorf("image size %d×%d", st.Width, st.Height)
	case s.Camera.Width != uint32(st.Width) || s.Camera.Height != uint32(st.Height):
		return fmt.Errorf("camera compiled for %d×%d, image %d×%d", s.Camera.Width, s.Camera.Height, st.Width, st.Height)
	}
	for _, a := range []struct {
		name string
		n    int
	}{
		{"nodes", len(s.Nodes)}, {"triangles", len(s.Triangles)}, {"vertices", len(s.Vertices)},
		{"shapes", len(s.Shapes)}, {"materials", len(s.Materials)}, {"textures", len(s.Textures)},
		{"texels", len(s.Texels)}, {"lights", len(s.Lights)}, {"emitters", len(s.Emitters)},
		{"second uvs", len(s.UV1)}, {"vertex colours", len(s.Colors)}, {"tangents", len(s.Tangents)},
	} {
		if uint64(a.n) > math.MaxUint32 {
			return fmt.Errorf("%d %s (at most 2³²−1)", a.n, a.name)
		}
	}
	if len(s.TriangleAttrs) != len(s.Triangles) {
		return fmt.Errorf("%d triangle attributes for %d triangles", len(s.TriangleAttrs), len(s.Triangles))
	}
	if s.FirstPlane < 0 || s.FirstPlane > len(s.Shapes) {
		return fmt.Errorf("first plane %d of %d shapes", s.FirstPlane, len(s.Shapes))
	}
	nm := len(s.Materials)
	for i, m := range s.Materials {
		if m.Kind >= tracer.NumMaterialKinds {
			return fmt.Errorf("materials[%d]: kind %d", i, m.Kind)
		}
		if int(m.RoughMap) > len(s.Textures) || int(m.EmissionMap) > len(s.Textures) || int(m.NormalMap) > len(s.Textures) {
			return fmt.Errorf("materials[%d]: map %d, %d or %d of %d textures", i, m.RoughMap, m.EmissionMap, m.NormalMap, len(s.Textures))
		}
		if int(m.SpecularMap) > len(s.Textures) || int(m.SpecularColorMap) > len(s.Textures) {
			return fmt.Errorf("materials[%d]: specular map %d or %d of %d textures", i, m.SpecularMap, m.SpecularColorMap, len(s.Textures))
		}
		if int(m.ClearcoatMap) > len(s.Textures) || int(m.ClearcoatRoughnessMap) > len(s.Textures) {
			return fmt.Errorf("materials[%d]: clear coat map %d or %d of %d textures", i, m.ClearcoatMap, m.ClearcoatRoughnessMap, len(s.Textures))
		}
		if m.Texture != tracer.NoTexture && (m.Texture < 0 || int(m.Texture) >= len(s.Textures)) {
			return fmt.Errorf("materials[%d]: texture %d of %d", i, m.Texture, len(s.Textures))
		}
		if m.AlphaMode >= tracer.NumAlphaModes || int(m.AlphaMap) > len(s.Textures) {
			return fmt.Errorf("materials[%d]: alpha mode %d, alpha map %d of %d textures", i, m.AlphaMode, m.AlphaMap, len(s.Textures))
		}
		if (m.AlphaMode != tracer.AlphaOpaque || m.SingleSided != 0) && !s.SeeThrough {
			return fmt.Errorf("materials[%d]: see-through, and the scene is not marked SeeThrough", i)
		}
	}
	for i, t := range s.Textures {
		if t.Kind >= tracer.NumTextureKinds {
			return fmt.Errorf("textures[%d]: kind %d", i, t.Kind)
		}
		if t.Kind == tracer.TextureImage {
			texels := 3 * uint64(t.Width) * uint64(t.Height)
			if t.Width < 1 || t.Height < 1 || uint64(t.Offset)+texels > uint64(len(s.Texels)) || uint64(t.Offset)+texels > math.MaxInt32 {
				return fmt.Errorf("textures[%d]: image %d×%d at texel %d of %d", i, t.Width, t.Height, t.Offset, len(s.Texels))
			}
			if alpha := uint64(t.Width) * uint64(t.Height); t.AlphaOffset != 0 && (uint64(t.AlphaOffset)+alpha > uint64(len(s.Texels)) || uint64(t.AlphaOffset)+alpha > math.MaxInt32) {
				return fmt.Errorf("textures[%d]: alpha of %d×%d at texel %d of %d", i, t.Width, t.Height, t.AlphaOffset, len(s.Texels))
			}
		}
		if t.WrapS >= tracer.NumWraps || t.WrapT >= tracer.NumWraps || t.Filter >= tracer.NumFilters || t.TexCoord > 1 {
			return fmt.Errorf("textures[%d]: wrap %d, %d, filter %d, coordinate set %d", i, t.WrapS, t.WrapT, t.Filter, t.TexCoord)
		}
	}
	if b := s.Background; b.Kind >= tracer.NumBackgroundKinds {
		return fmt.Errorf("background: kind %d", b.Kind)
	} else if b.Kind == tracer.BackgroundImage {
		if b.Texture < 0 || int(b.Texture) >= len(s.Textures) || s.Textures[b.Texture].Kind != tracer.TextureImage {
			return fmt.Errorf("background: texture %d is not an image texture", b.Texture)
		}
		t := s.Textures[b.Texture]
		if n := uint64(t.Height) + uint64(t.Width)*uint64(t.Height); b.Distribution != 0 && uint64(b.Distribution)+n > uint64(len(s.Texels)) {
			return fmt.Errorf("background: distribution of %d values at texel %d of %d", n, b.Distribution, len(s.Texels))
		}
	}
	for i, l := range s.Lights {
		if l.Falloff >= tracer.NumFalloffs {
			return fmt.Errorf("lights[%d]: falloff %d", i, l.Falloff)
		}
	}
	for i, sh := range s.Shapes {
		if i < s.FirstPlane {
			if sh.Kind >= tracer.NumShapeKinds || sh.Kind == tracer.ShapePlane {
				return fmt.Errorf("shapes[%d]: kind %d among the bounded shapes", i, sh.Kind)
			}
		} else if sh.Kind != tracer.ShapePlane {
			return fmt.Errorf("shapes[%d]: kind %d among the planes", i, sh.Kind)
		}
		if int(sh.Material) >= nm {
			return fmt.Errorf("shapes[%d]: material %d of %d", i, sh.Material, nm)
		}
	}
	for i, a := range s.TriangleAttrs {
		if int(a.Material) >= nm {
			return fmt.Errorf("triangles[%d]: material %d of %d", i, a.Material, nm)
		}
		if a.Flags&^(tracer.TriangleSmooth|tracer.TriangleUV|tracer.TriangleUV1|tracer.TriangleColor|tracer.TriangleTangent) != 0 {
			return fmt.Errorf("triangles[%d]: flags %#x", i, a.Flags)
		}
		if a.Flags&tracer.TriangleTangent != 0 {
			for _, v := range a.V {
				if int(v) >= len(s.Tangents) {
					return fmt.Errorf("triangles[%d]: tangent %d of %d", i, v, len(s.Tangents))
				}
			}
		}
		if a.Flags != 0 {
			for _, v := range a.V {
				if int(v) >= len(s.Vertices) {
					return fmt.Errorf("triangles[%d]: vertex %d of %d", i, v, len(s.Vertices))
				}
				if a.Flags&tracer.TriangleUV1 != 0 && int(v) >= len(s.UV1) {
					return fmt.Errorf("triangles[%d]: second uv %d of %d", i, v, len(s.UV1))
				}
				if a.Flags&tracer.TriangleColor != 0 && int(v) >= len(s.Colors) {
					return fmt.Errorf("triangles[%d]: vertex colour %d of %d", i, v, len(s.Colors))
				}
			}
		}
	}
	for i, e := range s.Emitters {
		switch {
		case e.Kind == tracer.HitTriangle && int(e.Index) < len(s.Triangles):
		case e.Kind == tracer.HitShape && int(e.Index) < s.FirstPlane:
		default:
			return fmt.Errorf("emitters[%d]: kind %d index %d", i, e.Kind, e.Index)
		}
	}
	if err := checkLightTree(s); err != nil {
		return err
	}
	return checkBVH(s)
}

// checkLightTree checks that the light tree has a node per emitter and
// per light in it (with TreeLights, those of inverse-square falloff) and
// one fewer inner nodes, laid out as the kernel walks it (an inner node's
// first child next to it), each leaf's emitter or light in range, once,
// an emitter reached by its Trail, within the Trail's bits; and that
// TreeLights puts a light in it.
func checkLightTree(s *tracer.Scene) error {
	nodes, ne := s.LightNodes, len(s.Emitters)
	nl := 0
	inTree := make([]bool, len(s.Lights))
	for i := range s.Lights {
		if s.TreeLights && s.Lights[i].Falloff == tracer.FalloffInverseSquare {
			inTree[i] = true
			nl++
		}
	}
	if s.TreeLights && nl == 0 {
		return errors.New("tree lights without a light of inverse-square falloff")
	}
	if ne+nl == 0 && len(nodes) == 0 {
		return nil
	}
	if len(nodes) != 2*(ne+nl)-1 {
		return fmt.Errorf("light tree of %d nodes for %d emitters and %d lights", len(nodes), ne, nl)
	}
	type item struct {
		node, trail uint32
		depth       int
	}
	stack := []item{{0, 0, 0}}
	seen := make([]bool, ne)
	seenLight := make([]bool, len(s.Lights))
	for visited := 0; len(stack) > 0; visited++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited >= len(nodes) {
			return errors.New("light tree: not a tree")
		}
		n := &nodes[it.node]
		if n.Flags&tracer.LightLeaf != 0 {
			if n.Flags&tracer.LightPoint != 0 {
				if int(n.Ref) >= len(s.Lights) || !inTree[n.Ref] || seenLight[n.Ref] {
					return fmt.Errorf("light tree node %d: light %d of %d, not in the tree or twice", it.node, n.Ref, len(s.Lights))
				}
				seenLight[n.Ref] = true
				continue
			}
			if int(n.Ref) >= ne || seen[n.Ref] || s.Emitters[n.Ref].Trail != it.trail {
				return fmt.Errorf("light tree node %d: emitter %d of %d, or its trail", it.node, n.Ref, ne)
			}
			seen[n.Ref] = true
			continue
		}
		if it.depth >= 32 || uint64(it.node)+1 >= uint64(len(nodes)) || n.Ref <= it.node+1 || int(n.Ref) >= len(nodes) {
			return fmt.Errorf("light tree node %d: children at %d and %d of %d nodes, depth %d", it.node, it.node+1, n.Ref, len(nodes), it.depth)
		}
		stack = append(stack, item{it.node + 1, it.trail, it.depth + 1}, item{n.Ref, it.trail | 1<<it.depth, it.depth + 1})
	}
	return nil
}

// checkBVH checks that every node's children and primitives are in range,
// every leaf holds one known kind, and the tree fits the kernel's stack.
func checkBVH(s *tracer.Scene) error {
	nodes := s.Nodes
	if len(nodes) == 0 {
		return nil
	}
	type item struct {
		node  uint32
		depth int
	}
	stack := []item{{0, 1}}
	visited := 0
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited++; visited > len(nodes) {
			return errors.New("BVH: not a tree")
		}
		n := &nodes[it.node]
		if n.Count == 0 {
			// The traversal pushes at most one entry per level below the
			// root, so a depth of BVHStackSize+1 levels still fits.
			if it.depth > BVHStackSize {
				return fmt.Errorf("BVH deeper than the kernel's stack of %d", BVHStackSize)
			}
			if n.Index%2 != 0 || uint64(n.Index)+1 >= uint64(len(nodes)) || n.Index == 0 {
				return fmt.Errorf("BVH node %d: children at %d of %d nodes", it.node, n.Index, len(nodes))
			}
			stack = append(stack, item{n.Index, it.depth + 1}, item{n.Index + 1, it.depth + 1})
			continue
		}
		end := uint64(n.Index) + uint64(n.Count)
		switch {
		case n.Info == tracer.LeafTriangles && end <= uint64(len(s.Triangles)):
		case n.Info == tracer.LeafShapes && end <= uint64(s.FirstPlane):
		default:
			return fmt.Errorf("BVH node %d: leaf kind %d, primitives %d–%d", it.node, n.Info, n.Index, end)
		}
	}
	return nil
}
