package tracer

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
)

// Scene is a compiled scene: flat arrays that the per-ray code reads with no
// interface call, and that the GPU kernel reads as the same bytes.
type Scene struct {
	Settings   Settings
	Camera     Camera
	Film       Film
	Background Background
	// Nodes is the BVH over the triangles and the bounded shapes.
	Nodes []BVHNode
	// Triangles and TriangleAttrs are in BVH order; Vertices holds the
	// normals and (u, v) that TriangleAttrs index.
	Triangles     []Triangle
	TriangleAttrs []TriangleAttr
	Vertices      []Vertex
	// Shapes holds the bounded shapes in BVH order (Shapes[:FirstPlane]),
	// then the infinite planes, which every ray tests.
	Shapes     []Shape
	FirstPlane int
	Materials  []Material
	Textures   []Texture
	// Texels holds every image texture's linear RGB texels (see
	// Texture.Offset).
	Texels []float32
	Lights []PointLight
	// Emitters lists the bounded shapes and triangles whose material
	// emits (an emissive material, or a pbr material with an Emission;
	// see isEmitter): the area lights that next-event estimation samples.
	Emitters []Emitter
	// LightNodes is the light tree over Emitters (lighttree.go), and with
	// TreeLights over the point and spot lights of inverse-square falloff
	// too, from which next-event estimation picks one light as seen from
	// the shading point; empty without any.
	LightNodes []LightNode
	// TreeLights is set by Compile when the path integrator picks the
	// point and spot lights of inverse-square falloff from the light tree
	// (Settings.PointLightTree) rather than sampling every one at every
	// vertex (inTree); the other lights are sampled all the same.
	TreeLights bool
	// powerPicks makes the Go tracer pick emitters as it did before the
	// light tree, in proportion to their power alone (Emitter.CDF).
	// Tests set it to render the reference that the tree must agree
	// with; the kernel has no such switch.
	powerPicks bool
	// BVHBuildTime is how long building the BVH took.
	BVHBuildTime time.Duration
	// SeeThrough is set by Compile when some material may let rays
	// through (an alpha mode other than opaque, or single-sided; see
	// alpha.go): only then do rays test the surfaces they hit for it.
	SeeThrough bool
	// glassBSDFOnly makes tracePath treat rough glass as it did before
	// it was light-sampled: BSDF sampling alone, emission found in
	// full. Tests set it to render the reference that light sampling
	// must agree with; the kernel has no such switch.
	glassBSDFOnly bool
	// UV1 and Colors hold the second texture coordinate set and the
	// vertex colours (linear RGB) of the triangles flagged TriangleUV1
	// and TriangleColor, indexed as Vertices (TriangleAttr.V). They are
	// empty unless a mesh has them, and no longer than the last such
	// mesh's vertices reach: 8 and 12 bytes per vertex.
	UV1    [][2]float32
	Colors []vec3
	// Tangents holds the tangent frames of the normal-mapped meshes'
	// vertices: Tangents[i] is Vertices[i]'s, those vertices coming first
	// (see TriangleTangent).
	Tangents []Tangent
	// wide is Nodes collapsed into a 4-wide BVH (bvh4.go), which the CPU
	// traverses; the GPU reads Nodes.
	wide wideBVH
}

// Emitter is an emissive triangle (Kind HitTriangle) or bounded shape
// (HitShape): its material is emissive, or pbr with an Emission.
// Next-event estimation picks one from the light tree (LightNodes); CDF
// is the pick by power alone that it replaced (Go's powerPicks).
type Emitter struct {
	Kind  HitKind
	Index uint32
	CDF   float32 // the emitters' cumulative power up to this one, over the total; the last is 1
	// Trail is the emitter's path from the light tree's root to its
	// leaf: bit d is 1 where the inner node at depth d leads to its
	// second child.
	Trail uint32
}

// Bytes returns the memory the compiled scene's arrays take.
func (s *Scene) Bytes() int {
	return len(s.Nodes)*int(unsafe.Sizeof(BVHNode{})) +
		len(s.Triangles)*int(unsafe.Sizeof(Triangle{})) +
		len(s.TriangleAttrs)*int(unsafe.Sizeof(TriangleAttr{})) +
		len(s.Vertices)*int(unsafe.Sizeof(Vertex{})) +
		len(s.Shapes)*int(unsafe.Sizeof(Shape{})) +
		len(s.Materials)*int(unsafe.Sizeof(Material{})) +
		len(s.Textures)*int(unsafe.Sizeof(Texture{})) +
		len(s.Texels)*4 +
		len(s.Lights)*int(unsafe.Sizeof(PointLight{})) +
		len(s.Emitters)*int(unsafe.Sizeof(Emitter{})) +
		len(s.LightNodes)*int(unsafe.Sizeof(LightNode{})) +
		len(s.UV1)*8 + len(s.Colors)*12 +
		len(s.Tangents)*int(unsafe.Sizeof(Tangent{})) +
		s.wideBytes()
}

// Compile checks a scene description and builds its render-time form.
// The scene file parser reports bad input with file positions; the checks
// here are the tracer's own guard for descriptions built in code.
// Degenerate mesh triangles (zero area) are dropped: no ray can hit them.
func Compile(d *SceneDesc) (*Scene, error) {
	if err := checkDesc(d); err != nil {
		return nil, err
	}
	releaseGarbage(d)
	s := &Scene{
		Settings:   d.Settings,
		Camera:     newCamera(d.Camera, d.Settings.Width, d.Settings.Height),
		Film:       d.Film,
		Background: d.Background,
		Materials:  append([]Material(nil), d.Materials...),
		Lights:     append([]PointLight(nil), d.Lights...),
	}
	s.Camera.setFilter(&d.Film)
	s.compileAbsorption()
	s.compileTextures(d)
	s.compileAlpha(d)
	ts := s.newTriangleSource(d)
	var shapes []Shape
	for _, sp := range d.Spheres {
		shapes = append(shapes, newSphere(sp.Center, sp.Radius, uint32(sp.Material)))
	}
	for _, q := range d.Quads {
		shapes = append(shapes, newQuad(q.Corner, q.Edge1, q.Edge2, uint32(q.Material)))
	}

	// One BVH over triangles and bounded shapes, then both arrays put in
	// the order of its leaves. The primitives are made from the
	// description (degenerate triangles left out), and sorted in the
	// memory that then receives the ordered triangles (see primsIn), so
	// the build touches no more fresh memory than the scene keeps; a
	// triangle primitive's index is its ordinal in ts.
	// buf has room for the degenerate triangles too, which are rare: they
	// are found as the primitives are made.
	start := time.Now()
	buf := make([]Triangle, ts.len()+len(shapes))
	adviseHugePages(buf)
	prims := primsIn(buf)
	ntris := ts.setPrims(prims)
	buf, prims = buf[:ntris+len(shapes)], prims[:ntris+len(shapes)]
	for i := range shapes {
		lo, hi := shapes[i].bounds()
		prims[ntris+i] = bvhPrim{lo: lo, hi: hi, index: uint32(i), kind: LeafShapes}
	}
	s.Nodes = buildBVH(prims)
	releaseGarbage(d) // the build's scratch: subtrees' nodes, buckets
	s.Shapes = make([]Shape, len(shapes), len(shapes)+len(d.Planes))
	nt := ntris
	if len(shapes) > 0 {
		// A leaf's Index is its first primitive's place in prims: make it
		// its place in its own array, where triangles and shapes each keep
		// the order the leaves give them. Without shapes the two are the
		// same. The triangles' primitives move to the front of prims, in
		// order (each to a place at or before its own).
		slot := make([]uint32, len(prims))
		nt = 0
		ns := 0
		for i := range prims {
			if p := prims[i]; p.kind == LeafTriangles {
				slot[i], prims[nt] = uint32(nt), p
				nt++
			} else {
				slot[i], s.Shapes[ns] = uint32(ns), shapes[p.index]
				ns++
			}
		}
		for i := range s.Nodes {
			if n := &s.Nodes[i]; n.Count > 0 {
				n.Index = slot[n.Index]
			}
		}
	}
	// Triangle i overwrites only primitives i and later (a Triangle is
	// larger than a bvhPrim), so going down from the last, each primitive
	// is read before its memory is reused.
	s.Triangles, s.TriangleAttrs = buf[:nt], make([]TriangleAttr, nt)
	adviseHugePages(s.TriangleAttrs)
	if runtime.GOMAXPROCS(0) == 1 || nt < 1<<15 {
		for i := nt - 1; i >= 0; i-- {
			g := prims[i].index
			ts.put(int(g), &s.Triangles[i], &s.TriangleAttrs[i])
		}
	} else {
		// On every core: the order is copied out of prims first, as the
		// triangles overwrite them.
		order := make([]uint32, nt)
		parallelFor(nt, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				order[i] = prims[i].index
			}
		})
		parallelFor(nt, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				ts.put(int(order[i]), &s.Triangles[i], &s.TriangleAttrs[i])
			}
		})
	}
	if len(s.Nodes) > 0 {
		var err error
		if s.wide, err = collapseBVH4(s.Nodes); err != nil {
			return nil, err
		}
		s.wide.prefetchLeaves(s.Triangles)
	}
	s.BVHBuildTime = time.Since(start)

	s.FirstPlane = len(s.Shapes)
	for _, p := range d.Planes {
		s.Shapes = append(s.Shapes, newPlane(p.Point, p.Normal, uint32(p.Material)))
	}
	for i := range s.TriangleAttrs {
		if isEmitter(&s.Materials[s.TriangleAttrs[i].Material]) {
			s.Emitters = append(s.Emitters, Emitter{Kind: HitTriangle, Index: uint32(i)})
		}
	}
	for i := 0; i < s.FirstPlane; i++ {
		if isEmitter(&s.Materials[s.Shapes[i].Material]) {
			s.Emitters = append(s.Emitters, Emitter{Kind: HitShape, Index: uint32(i)})
		}
	}
	s.TreeLights = treeLights(&d.Settings, s.Lights)
	s.buildLightTree(s.compileLightPicks())
	s.compileEnvironment(d)
	return s, nil
}

// treeLights reports whether a path-traced scene of the settings st and
// the lights ls picks its point and spot lights of inverse-square falloff
// from the light tree: Settings.PointLightTree's choice, by default when
// they count as more than PointLightTreeMin point lights
// (PointLightWeight).
func treeLights(st *Settings, ls []PointLight) bool {
	if st.Integrator != IntegratorPath || st.PointLightTree == PointLightTreeNever {
		return false
	}
	n := 0
	for i := range ls {
		if ls[i].Falloff == FalloffInverseSquare {
			n++
		}
	}
	return n > 0 && (st.PointLightTree == PointLightTreeAlways || PointLightWeight(ls) > PointLightTreeMin)
}

// PointLightWeight returns what the point and spot lights of
// inverse-square falloff among ls count as, in point lights (lightWeight's
// sum), for PointLightTreeAuto to weigh against PointLightTreeMin. A sum
// of whole numbers, a scene of point lights counts them exactly.
func PointLightWeight(ls []PointLight) float64 {
	w := 0.0
	for i := range ls {
		if ls[i].Falloff == FalloffInverseSquare {
			w += lightWeight(&ls[i])
		}
	}
	return w
}

// lightWeight returns what light l counts as, in point lights, when
// PointLightTreeAuto chooses between the light tree and sampling every
// light: 1 for a point light, (1 − cos outer)/3 for a spot light (cos
// outer = −SpotOffset/SpotScale, in float64), two thirds of the share of
// all directions its cone lights, (1 − cos outer)/2: 0.06 for an outer
// angle of 35°, 0.28 for 80°, 1/3 for 90°. Sampling every light costs a
// shadow ray only toward the lights whose cone holds the point
// (directLight), so a room of narrow spots is cheap to sample all, and its
// direct light noiseless; in rooms of spots the tree and sampling all
// break even where their shares of directions add to between 10.5 and 15
// (docs/scene-format.md), not at PointLightTreeMin, hence the two thirds.
func lightWeight(l *PointLight) float64 {
	if l.SpotDir == (vec3{}) {
		return 1
	}
	cosOut := math.Max(-1, math.Min(1, -float64(l.SpotOffset)/float64(l.SpotScale)))
	return (1 - cosOut) / 3
}

// inTree reports whether light l is a leaf of the light tree (TreeLights),
// picked there rather than sampled at every vertex.
func (s *Scene) inTree(l *PointLight) bool {
	return s.TreeLights && l.Falloff == FalloffInverseSquare
}

// collectMinTriangles is the size of scene from which Compile first
// returns the memory of the garbage that loading it left (see
// releaseGarbage).
const collectMinTriangles = 1 << 20

// releaseGarbage collects the garbage of building a large description
// (a mesh file's text and parser arrays, meshes before their transform),
// or of building its BVH (the subtrees' nodes), and returns its memory to
// the operating system, before Compile allocates more of the scene:
// otherwise the collector, which lets the heap grow to twice what was
// live after its last cycle, leaves it in the process beside the new
// arrays, and the peak is half as large again. The arrays hold no
// pointers, so a collection takes milliseconds; small scenes skip it.
func releaseGarbage(d *SceneDesc) {
	n := len(d.Triangles)
	for i := range d.Meshes {
		n += len(d.Meshes[i].Indices) / 3
	}
	if n >= collectMinTriangles {
		debug.FreeOSMemory()
	}
}

// primsIn returns a slice of bvhPrim over the memory of buf, one per
// Triangle, for Compile to sort the primitives in the array that then
// receives the ordered triangles. Both types hold no pointers, and a
// bvhPrim is no larger than a Triangle, so the primitives fit.
func primsIn(buf []Triangle) []bvhPrim {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*bvhPrim)(unsafe.Pointer(unsafe.SliceData(buf))), len(buf))
}

// A bvhPrim must fit in a Triangle for primsIn: this fails to compile
// otherwise.
const _ = unsafe.Sizeof(Triangle{}) - unsafe.Sizeof(bvhPrim{})

// parallelFor calls f on consecutive chunks of [0, n) on every core and
// waits. Each index is in exactly one chunk, so f may write to disjoint
// parts of shared slices.
func parallelFor(n int, f func(lo, hi int)) {
	const minChunk = 1 << 14
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/minChunk)
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() { defer wg.Done(); f(lo, hi) }()
	}
	wg.Wait()
}

// compileTriangles gathers the triangle objects and the meshes'
// triangles that are not degenerate, with their shading attributes, in
// description order (Compile itself makes them from the description as
// it needs them; see triangleSource).
func (s *Scene) compileTriangles(d *SceneDesc) ([]Triangle, []TriangleAttr) {
	ts := s.newTriangleSource(d)
	var tris []Triangle
	var attrs []TriangleAttr
	for g := range ts.len() {
		if t, a := ts.at(g); !t.degenerate() {
			tris = append(tris, t)
			attrs = append(attrs, a)
		}
	}
	return tris, attrs
}

// addTangentTriangle appends the vertices and tangents of a normal-mapped
// triangle object: its UVs (or (0, 0), (1, 0), (0, 1), which give the
// same (u, v) as the barycentric weights), its face normal's tangent.
func (s *Scene) addTangentTriangle(t *TriangleDesc) {
	m := MeshDesc{Positions: t.Vertices[:], Indices: []uint32{0, 1, 2},
		UVs: []mgl32.Vec2{{0, 0}, {1, 0}, {0, 1}}}
	if t.HasUV {
		m.UVs = t.UV[:]
	}
	for k := 0; k < 3; k++ {
		s.Vertices = append(s.Vertices, Vertex{UV: [2]float32{m.UVs[k][0], m.UVs[k][1]}})
	}
	s.Tangents = append(s.Tangents, ComputeTangents(&m)...)
}

// compileLightPicks sets the emitters' cumulative power (CDF) and the
// emitting materials' LightPDF, and returns the emitters' powers: an
// emitter's power is its material's mean emitted luminance times its
// area; LightPDF is luminance / (total power), the density of a point of
// an emitter of the material picked by power alone (powerPicks). Where
// nothing emits, or the total is not finite, LightPDF is 0 and no emitter
// is sampled.
func (s *Scene) compileLightPicks() []float64 {
	lum := make([]float64, len(s.Materials))
	texelMeans := map[uint32][3]float64{} // by image texture, for the pbr emitters
	for i := range s.Materials {
		if m := &s.Materials[i]; m.Kind == MaterialEmissive {
			lum[i] = max(0, float64(m.Intensity)*s.meanLuminance(m))
		} else if isEmitter(m) {
			lum[i] = s.meanEmissionLuminance(m, texelMeans)
		}
		s.Materials[i].LightPDF = 0
	}
	power := make([]float64, len(s.Emitters))
	var total float64
	for k, e := range s.Emitters {
		if e.Kind == HitTriangle {
			power[k] = lum[s.TriangleAttrs[e.Index].Material] * float64(s.Triangles[e.Index].area())
		} else {
			sh := &s.Shapes[e.Index]
			power[k] = lum[sh.Material] * float64(sh.Area)
		}
		total += power[k]
	}
	if !(total > 0) || math.IsInf(total, 0) {
		// Nothing emits: pick uniformly (every emitter sends black).
		for k := range s.Emitters {
			s.Emitters[k].CDF = float32(k+1) / float32(len(s.Emitters))
		}
		return power
	}
	var sum float64
	for k := range s.Emitters {
		sum += power[k]
		s.Emitters[k].CDF = float32(sum / total)
	}
	s.Emitters[len(s.Emitters)-1].CDF = 1
	for i := range s.Materials {
		s.Materials[i].LightPDF = float32(lum[i] / total)
	}
	return power
}

// meanLuminance returns the mean luminance of a material's colour over its
// texture (the colour itself without one).
func (s *Scene) meanLuminance(m *Material) float64 {
	if m.Texture == NoTexture {
		return float64(luminance(m.Color))
	}
	t := &s.Textures[m.Texture]
	if t.Kind == TextureChecker {
		return 0.5 * (float64(luminance(t.Even)) + float64(luminance(t.Odd)))
	}
	var sum float64
	n := int(t.Width * t.Height)
	for i := 0; i < n; i++ {
		k := int(t.Offset) + 3*i
		sum += max(0, float64(luminance(vec3{s.Texels[k], s.Texels[k+1], s.Texels[k+2]})))
	}
	return sum / float64(n)
}

// isEmitter reports whether surfaces of material m emit light, and so
// are area lights for next-event estimation: an emissive material, or a
// pbr material with a non-zero Emission (which also scatters).
func isEmitter(m *Material) bool {
	return m.Kind == MaterialEmissive || m.Kind == MaterialPBR && m.Emission != (vec3{})
}

// meanEmissionLuminance returns the mean luminance of a pbr material's
// emitted radiance over its EmissionMap (Emission's without one, that of
// the checker's two colours in equal parts, or the mean over an image's
// texels, tint included): the emitter's power per unit area that light
// picks are proportional to. It is 0 when that is negative or not a
// number, so that such an emitter is never picked (and its emission,
// found by rays, then counts in full). means holds the mean texel of the
// image textures seen so far, by texture, so that materials sharing an
// emission map read its texels once.
func (s *Scene) meanEmissionLuminance(m *Material, means map[uint32][3]float64) float64 {
	e := m.Emission
	var l float64
	if m.EmissionMap == 0 {
		l = float64(luminance(e))
	} else if t := &s.Textures[m.EmissionMap-1]; t.Kind == TextureChecker {
		l = 0.5 * (float64(luminance(mul(e, t.Even))) + float64(luminance(mul(e, t.Odd))))
	} else {
		mean, ok := means[m.EmissionMap-1]
		if !ok {
			n := int(t.Width * t.Height)
			for i := 0; i < n; i++ {
				k := int(t.Offset) + 3*i
				for c := 0; c < 3; c++ {
					mean[c] += float64(s.Texels[k+c])
				}
			}
			for c := range mean {
				mean[c] /= float64(n)
			}
			means[m.EmissionMap-1] = mean
		}
		var c [3]float64
		for k := range c {
			c[k] = mean[k] * float64(e[k]) * float64(t.Even[k])
		}
		l = float64(0.2126*c[0]) + float64(0.7152*c[1]) + float64(0.0722*c[2]) // luminance, in float64
	}
	if !(l > 0) || math.IsInf(l, 0) {
		return 0
	}
	return l
}

// compileTextures copies the textures and lays the images' texels out in
// one array (texelLayout): the images' own when they lie in one array so
// laid out (one image, or images that PackImages laid out), so that the
// scene's largest array is not copied; else a copy, one allocation with
// room for the alpha that compileAlpha appends.
func (s *Scene) compileTextures(d *SceneDesc) {
	l := layoutTexels(d)
	if l.inPlace(d) {
		s.Texels = d.Images[0].Pix[:l.n] // its capacity kept for compileAlpha
	} else {
		s.Texels = make([]float32, l.n, l.total)
		for i, img := range d.Images {
			if l.same[i] == i {
				copy(s.Texels[l.colours[i]:], img.Pix[:3*img.Width*img.Height])
			}
		}
	}
	s.Textures = append([]Texture(nil), d.Textures...)
	for i := range s.Textures {
		t := &s.Textures[i]
		if t.Kind == TextureImage {
			img := &d.Images[t.Image]
			t.Width, t.Height, t.Offset = uint32(img.Width), uint32(img.Height), uint32(l.colours[t.Image])
			if t.Even == (vec3{}) {
				t.Even = vec3{1, 1, 1} // no tint
			}
		}
	}
}

// appendTexels is append(texels, a...), except that it never writes past
// len(texels), where the memory may be an image's (compileTextures keeps a
// lone image's Pix as the texels), that it takes a as it is when a lies
// right after texels already (an image's alpha decoded into one array
// with its colours): neither copied, and that a new array is exactly as
// long as needed (append's grows by a quarter or more).
func appendTexels(texels, a []float32) []float32 {
	n := len(texels)
	if len(a) > 0 && n > 0 && cap(texels) >= n+len(a) && &texels[:n+1][n] == &a[0] {
		return texels[:n+len(a)]
	}
	out := make([]float32, n+len(a))
	copy(out, texels)
	copy(out[n:], a)
	return out
}

func checkDesc(d *SceneDesc) error {
	st := d.Settings
	switch {
	case st.Width < 1 || st.Width > MaxImageSide || st.Height < 1 || st.Height > MaxImageSide:
		return fmt.Errorf("image size %d×%d: each side must be in [1, %d]", st.Width, st.Height, MaxImageSide)
	case st.Samples < 1 || st.Samples > MaxSamples:
		return fmt.Errorf("samples %d: must be in [1, %d]", st.Samples, MaxSamples)
	case st.MaxDepth < 0 || st.MaxDepth > MaxDepth:
		return fmt.Errorf("max depth %d: must be in [0, %d]", st.MaxDepth, MaxDepth)
	case st.Integrator >= NumIntegrators:
		return fmt.Errorf("unknown integrator %d", st.Integrator)
	case st.PointLightTree >= NumPointLightTrees:
		return fmt.Errorf("unknown point light tree choice %d", st.PointLightTree)
	}
	if f := d.Film; f.Filter >= NumPixelFilters {
		return fmt.Errorf("film: unknown filter %d", f.Filter)
	} else if (f.Filter != PixelFilterBox || f.FilterWidth != 0) && !(f.FilterWidth >= MinFilterWidth && f.FilterWidth <= MaxFilterWidth) {
		return fmt.Errorf("film: filter width %g: must be in [%g, %g] pixels", f.FilterWidth, float32(MinFilterWidth), float32(MaxFilterWidth))
	}
	c := d.Camera
	fwd := c.LookAt.Sub(c.Position)
	if length(fwd) == 0 {
		return errors.New("camera: look_at equals position")
	}
	if length(cross(normalize(fwd), normalize(c.Up))) < 1e-6 {
		return errors.New("camera: up is zero or parallel to the view direction")
	}
	switch {
	case c.Orthographic && !(c.Height > 0 && c.Height <= math.MaxFloat32):
		return fmt.Errorf("camera: orthographic height %g: must be a positive number", c.Height)
	case c.Orthographic && c.Aperture != 0:
		return fmt.Errorf("camera: an orthographic camera has no lens (aperture %g)", c.Aperture)
	case !c.Orthographic && !(c.FOV > 0 && c.FOV < 180):
		return fmt.Errorf("camera: fov %g: must be in (0, 180) degrees", c.FOV)
	}
	n := len(d.Spheres) + len(d.Planes) + len(d.Quads)
	if n > MaxShapes {
		return fmt.Errorf("%d shapes: at most %d", n, MaxShapes)
	}
	texels := 0
	for i, img := range d.Images {
		if img.Width < 1 || img.Height < 1 || img.Width > MaxImageSide || img.Height > MaxImageSide || len(img.Pix) < 3*img.Width*img.Height {
			return fmt.Errorf("images[%d]: bad size %d×%d with %d values", i, img.Width, img.Height, len(img.Pix))
		}
		if len(img.Alpha) != 0 && len(img.Alpha) < img.Width*img.Height {
			return fmt.Errorf("images[%d]: %d alpha values for %d×%d texels", i, len(img.Alpha), img.Width, img.Height)
		}
		texels += img.Width * img.Height
	}
	if texels > MaxImageTexels {
		return fmt.Errorf("%d texels in all images: at most %d", texels, MaxImageTexels)
	}
	for i, t := range d.Textures {
		switch {
		case t.Kind == TextureImage && (t.Image < 0 || int(t.Image) >= len(d.Images)):
			return fmt.Errorf("textures[%d]: image %d out of range", i, t.Image)
		case t.Kind >= NumTextureKinds:
			return fmt.Errorf("textures[%d]: unknown kind %d", i, t.Kind)
		case t.WrapS >= NumWraps || t.WrapT >= NumWraps:
			return fmt.Errorf("textures[%d]: unknown wrap mode %d or %d", i, t.WrapS, t.WrapT)
		case t.Filter >= NumFilters:
			return fmt.Errorf("textures[%d]: unknown filter %d", i, t.Filter)
		case t.TexCoord > 1:
			return fmt.Errorf("textures[%d]: texture coordinate set %d (at most 1)", i, t.TexCoord)
		}
	}
	if b := d.Background; b.Kind == BackgroundImage {
		if b.Texture < 0 || int(b.Texture) >= len(d.Textures) || d.Textures[b.Texture].Kind != TextureImage {
			return fmt.Errorf("background: texture %d is not an image texture", b.Texture)
		}
		if err := checkRotation(&b.Rotation); err != nil {
			return fmt.Errorf("background: rotation: %w", err)
		}
	} else if b.Kind >= NumBackgroundKinds {
		return fmt.Errorf("background: unknown kind %d", b.Kind)
	}
	for i, m := range d.Materials {
		if m.Texture != NoTexture && (m.Texture < 0 || int(m.Texture) >= len(d.Textures)) {
			return fmt.Errorf("materials[%d]: texture %d out of range", i, m.Texture)
		}
		if m.Kind >= NumMaterialKinds {
			return fmt.Errorf("materials[%d]: unknown kind %d", i, m.Kind)
		}
		if int(m.RoughMap) > len(d.Textures) || int(m.EmissionMap) > len(d.Textures) {
			return fmt.Errorf("materials[%d]: map %d or %d out of range", i, m.RoughMap, m.EmissionMap)
		}
		if err := checkAlpha(&m, len(d.Textures)); err != nil {
			return fmt.Errorf("materials[%d]: %w", i, err)
		}
		if int(m.NormalMap) > len(d.Textures) {
			return fmt.Errorf("materials[%d]: normal map %d out of range", i, m.NormalMap)
		}
		if int(m.SpecularMap) > len(d.Textures) || int(m.SpecularColorMap) > len(d.Textures) {
			return fmt.Errorf("materials[%d]: specular map %d or %d out of range", i, m.SpecularMap, m.SpecularColorMap)
		}
		if int(m.ClearcoatMap) > len(d.Textures) || int(m.ClearcoatRoughnessMap) > len(d.Textures) {
			return fmt.Errorf("materials[%d]: clear coat map %d or %d out of range", i, m.ClearcoatMap, m.ClearcoatRoughnessMap)
		}
		if !finite(m.NormalScale) {
			return fmt.Errorf("materials[%d]: normal scale %g is not finite", i, m.NormalScale)
		}
		if err := checkAttenuation(&m); err != nil {
			return fmt.Errorf("materials[%d]: %w", i, err)
		}
		if err := checkSheen(&m); err != nil {
			return fmt.Errorf("materials[%d]: %w", i, err)
		}
	}
	check := func(what string, i, m int) error {
		if m < 0 || m >= len(d.Materials) {
			return fmt.Errorf("%s[%d]: material %d out of range", what, i, m)
		}
		return nil
	}
	for i, x := range d.Spheres {
		if err := check("spheres", i, x.Material); err != nil {
			return err
		}
		if !(x.Radius > 0) {
			return fmt.Errorf("spheres[%d]: radius %g must be positive", i, x.Radius)
		}
	}
	for i, x := range d.Planes {
		if err := check("planes", i, x.Material); err != nil {
			return err
		}
		if length(x.Normal) == 0 {
			return fmt.Errorf("planes[%d]: zero normal", i)
		}
	}
	for i, x := range d.Quads {
		if err := check("quads", i, x.Material); err != nil {
			return err
		}
		if length(cross(x.Edge1, x.Edge2)) == 0 {
			return fmt.Errorf("quads[%d]: degenerate (parallel or zero edges)", i)
		}
	}
	ntri := len(d.Triangles)
	for i, x := range d.Triangles {
		if err := check("triangles", i, x.Material); err != nil {
			return err
		}
		if length(cross(x.Vertices[1].Sub(x.Vertices[0]), x.Vertices[2].Sub(x.Vertices[0]))) == 0 {
			return fmt.Errorf("triangles[%d]: degenerate (zero area)", i)
		}
	}
	for i := range d.Meshes {
		if err := checkMesh(d, i); err != nil {
			return fmt.Errorf("meshes[%d]: %w", i, err)
		}
		ntri += len(d.Meshes[i].Indices) / 3
	}
	if ntri > MaxTriangles {
		return fmt.Errorf("%d triangles: at most %d", ntri, MaxTriangles)
	}
	return nil
}

func checkMesh(d *SceneDesc, i int) error {
	m := &d.Meshes[i]
	nv := len(m.Positions)
	switch {
	case len(m.Indices)%3 != 0:
		return fmt.Errorf("%d indices: not a multiple of 3", len(m.Indices))
	case len(m.Normals) != 0 && len(m.Normals) != nv:
		return fmt.Errorf("%d normals for %d positions", len(m.Normals), nv)
	case len(m.UVs) != 0 && len(m.UVs) != nv:
		return fmt.Errorf("%d uvs for %d positions", len(m.UVs), nv)
	case len(m.UV1s) != 0 && len(m.UV1s) != nv:
		return fmt.Errorf("%d second uvs for %d positions", len(m.UV1s), nv)
	case len(m.Colors) != 0 && len(m.Colors) != nv:
		return fmt.Errorf("%d vertex colours for %d positions", len(m.Colors), nv)
	case len(m.Tangents) != 0 && len(m.Tangents) != nv:
		return fmt.Errorf("%d tangents for %d positions", len(m.Tangents), nv)
	case len(m.Materials) != 0 && len(m.Materials) != len(m.Indices)/3:
		return fmt.Errorf("%d materials for %d triangles", len(m.Materials), len(m.Indices)/3)
	case m.Material < 0 || m.Material >= len(d.Materials):
		return fmt.Errorf("material %d out of range", m.Material)
	}
	for _, ix := range m.Indices {
		if int(ix) >= nv {
			return fmt.Errorf("index %d out of range (%d positions)", ix, nv)
		}
	}
	for _, mt := range m.Materials {
		if mt < 0 || int(mt) >= len(d.Materials) {
			return fmt.Errorf("material %d out of range", mt)
		}
	}
	for _, p := range m.Positions {
		if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
			return fmt.Errorf("position %v is not finite", p)
		}
	}
	for _, t := range m.Tangents {
		if !finite(t[0]) || !finite(t[1]) || !finite(t[2]) || !finite(t[3]) {
			return fmt.Errorf("tangent %v is not finite", t)
		}
	}
	if len(m.UVs) == 0 && meshUsesNormalMap(d, m) {
		return errors.New("a material with a normal map on a mesh without texture coordinates (normal maps need UVs for their tangents)")
	}
	return nil
}
