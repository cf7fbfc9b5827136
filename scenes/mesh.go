package scenes

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// A mesh object places the triangles of a mesh file in the scene:
//
//	{"type": "mesh", "file": "model.obj", "material": "white",
//	 "transform": {"translate": [0, 0, 0], "rotate": [0, 90, 0], "scale": 1}}
//
// The file (.obj, .gltf, .glb, .ply or .stl, in any case) is read
// relative to the scene file's folder and may not lead out of it unless
// Options.AllowOutsideAssets is set. The transform is described at
// transform. Each material the file names becomes:
//
//  1. the scene's material of the same name, when the scene defines one;
//  2. else, when the file describes it (an MTL entry, a glTF material), a
//     new material: diffuse of its Kd (and map_Kd) for a plain MTL entry,
//     pbr for an MTL entry with Ks, Ke, Pr or Pm and for every glTF
//     material (see mtl.go and gltf.go);
//  3. else the object's "material".
//
// Faces that the file gives no material use the object's "material" too;
// when some face needs it and the object has none, that is an error naming
// the file and the materials missing. A file used by several objects is
// read once, and its materials are added to the scene once (an absorbing
// glass once per scale it is placed at: placedGlass). The file's
// lights (glTF's KHR_lights_punctual) are added for each object, placed
// by its transform (meshLights). A glTF file may be posed by one of its
// animations: "animation" and "time" (animation.go).

// meshExtensions are the accepted mesh file name extensions.
var meshExtensions = []string{".obj", ".gltf", ".glb", ".ply", ".stl"}

// meshLoader returns the reader of mesh files of extension ext (lower
// case), which computes the normals that an OBJ or PLY file lacks with a
// crease of crease degrees; or nil for an extension not in meshExtensions.
func meshLoader(ext string, crease float64) func(*assets, string) (*importedMesh, error) {
	switch ext {
	case ".obj":
		return func(a *assets, path string) (*importedMesh, error) { return loadOBJCrease(a, path, crease) }
	case ".ply":
		return func(a *assets, path string) (*importedMesh, error) { return loadPLY(a, path, crease) }
	case ".gltf", ".glb":
		return loadGLTF
	case ".stl":
		return loadSTL
	}
	return nil
}

// meshFile is a mesh file read once for all the objects that use it.
type meshFile struct {
	im *importedMesh
	// scene[k] is the SceneDesc.Materials index that im.materials[k]
	// becomes, or −1 where the object's material stands in.
	scene      []int
	used       []bool // whether some triangle uses im.materials[k]
	noMaterial bool   // whether some triangle has no material in the file
	uses       int    // the objects placed so far
}

// mesh decodes a mesh object: it reads the file (once per scene), adds
// the materials the file describes, transforms the meshes and appends them
// to s.Meshes.
func (d *decoder) mesh(f fields, mats materialTable, s *tracer.SceneDesc) {
	f.known(objectFields["mesh"]...)
	f.string("name", "")
	fv := f.required("file")
	file := ""
	if fv != nil {
		file, _ = d.str(fv, f.at("file"))
	}
	objMat := -1
	if f.lookup("material") != nil {
		objMat = d.materialRef(f, mats)
	}
	xf := d.transform(f.section("transform"))
	if d.failed() {
		return
	}
	crease := float64(objCreaseDegrees)
	if f.lookup("crease_angle") != nil {
		crease = float64(f.float("crease_angle", objCreaseDegrees, within(0, 180)))
		if ext := strings.ToLower(filepath.Ext(file)); ext != ".obj" && ext != ".ply" && !d.failed() {
			d.failAt(f.offset("crease_angle"), f.at("crease_angle").String(),
				"crease_angle applies to OBJ and PLY files, whose normals trace computes; %s is a %s file", quoteFile(file), ext)
		}
	}
	pose, ok := d.gltfPose(f, file)
	if !ok || d.failed() {
		return
	}
	mf := d.meshFile(f, fv, file, crease, pose, mats, s)
	if mf == nil {
		return
	}
	if objMat < 0 {
		var missing []string
		for k, m := range mf.im.materials {
			if mf.used[k] && mf.scene[k] < 0 {
				missing = append(missing, m.Name)
			}
		}
		switch {
		case len(missing) > 0:
			d.failAt(f.offset("material"), f.path, "%s uses %s %s, which neither the scene nor the file defines; define %s in \"materials\" or give the object a \"material\"",
				quoteFile(file), plural(len(missing), "material"), shortList(missing), pronoun(len(missing)))
			return
		case mf.noMaterial:
			d.failAt(f.offset("material"), f.path, "%s gives some faces no material; give the object a \"material\"", quoteFile(file))
			return
		}
	}
	if mf.uses == 0 {
		if msg := undefinedWarning(mf); msg != "" {
			slog.Warn(fmt.Sprintf("%s: %s", quoteFile(file), msg))
		}
	}
	table := make([]int32, len(mf.scene)+1) // indexed by file material + 1
	table[0] = int32(objMat)
	for k, i := range mf.scene {
		table[k+1] = int32(i)
		if i < 0 || (objMat >= 0 && mf.im.materials[k].Default) {
			table[k+1] = int32(objMat)
		} else if i >= len(mats.names) { // the file's own material, not a scene's
			if table[k+1] = d.placedGlass(i, &xf, s); table[k+1] < 0 {
				d.failAt(f.offset("file"), f.at("file").String(), "%s: more than %d materials", quoteFile(file), tracer.MaxMaterials)
				return
			}
		}
	}
	copyShared := mf.uses > 0
	mf.uses++
	for i := range mf.im.meshes {
		m := &mf.im.meshes[i]
		tris := len(m.Indices) / 3
		if tris == 0 {
			continue
		}
		if total := len(s.Triangles) + d.meshTriangles + tris; total > tracer.MaxTriangles {
			d.fail(fv, f.at("file"), "%s: the scene's meshes and triangles would number %d triangles, more than the limit of %d", quoteFile(file), total, tracer.MaxTriangles)
			return
		}
		out, ok := xf.mesh(m, copyShared)
		if !ok {
			d.failAt(f.offset("transform"), f.at("transform").String(), "%s: a transformed vertex is too large for float32", quoteFile(file))
			return
		}
		mapMaterials(&out, m, table)
		if len(out.UVs) == 0 {
			if k := normalMapped(&out, s); k >= 0 {
				d.failAt(f.offset("file"), f.at("file").String(), "%s: material %s has a normal map, but the mesh has no texture coordinates to orient it (normal maps need UVs)",
					quoteFile(file), quote(materialName(mats, k)))
				return
			}
		}
		d.meshTriangles += tris
		s.Meshes = append(s.Meshes, out)
	}
	d.meshLights(f, fv, file, mf.im.lights, &xf, s)
}

// scaledGlassKey is SceneDesc.Materials[i] with its absorption distance
// scaled by scale.
type scaledGlassKey struct {
	i     int
	scale float64
}

// placedGlass returns the SceneDesc.Materials index of a mesh file's
// material i as an object placed by xf uses it: i itself, or, for glass
// that absorbs when xf scales, a copy whose AttenuationDistance, in the
// file's units, is in the scene's: times xf's scale, the cube root of its
// determinant's magnitude (as meshLights scales the file's lights). It
// returns −1 when a copy would pass tracer.MaxMaterials.
func (d *decoder) placedGlass(i int, xf *transform, s *tracer.SceneDesc) int32 {
	m := s.Materials[i]
	if m.AttenuationDistance == 0 {
		return int32(i)
	}
	sc := math.Cbrt(math.Abs(xf.det()))
	dist := float32(min(max(float64(m.AttenuationDistance)*sc, math.SmallestNonzeroFloat32), math.MaxFloat32))
	if !(sc > 0) || math.IsInf(sc, 0) || dist == m.AttenuationDistance {
		return int32(i)
	}
	key := scaledGlassKey{i, sc}
	if j, ok := d.scaledGlass[key]; ok {
		return j
	}
	if len(s.Materials) >= tracer.MaxMaterials {
		return -1
	}
	m.AttenuationDistance = dist
	j := int32(len(s.Materials))
	s.Materials = append(s.Materials, m)
	if d.scaledGlass == nil {
		d.scaledGlass = map[scaledGlassKey]int32{}
	}
	d.scaledGlass[key] = j
	return j
}

// meshLights appends a mesh file's lights to s, placed by the object's
// transform xf: positions and spot directions transformed, intensities
// scaled by the square of xf's scale (the cube root of its determinant's
// magnitude), so that the file's lights light its surfaces as the file
// meant whatever unit the scene is in; a directional light's direction is
// turned by xf and its intensity (an irradiance) kept.
func (d *decoder) meshLights(f fields, fv *value, file string, lights []tracer.PointLight, xf *transform, s *tracer.SceneDesc) {
	if len(lights) == 0 {
		return
	}
	if total := len(s.Lights) + len(lights); total > tracer.MaxLights {
		d.fail(fv, f.at("file"), "%s: the scene's lights would number %d, more than the limit of %d", quoteFile(file), total, tracer.MaxLights)
		return
	}
	k2 := math.Pow(math.Abs(xf.det()), 2.0/3)
	for _, l := range lights {
		out := l
		if l.Falloff == tracer.FalloffDirectional {
			// A direction, not a point; irradiance does not depend on the
			// unit of length, so the intensity stays.
			q := apply(&xf.linear, nil, l.Position)
			n := math.Sqrt(float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]))
			out.Position = mgl32.Vec3{float32(q[0] / n), float32(q[1] / n), float32(q[2] / n)}
			s.Lights = append(s.Lights, out)
			continue
		}
		p, ok := xf.point(l.Position)
		in := float64(l.Intensity) * k2
		if !ok || !(in*float64(maxComponent(l.Color)) <= math.MaxFloat32) {
			d.failAt(f.offset("transform"), f.at("transform").String(), "%s: a light's position or intensity is too large for float32 once transformed", quoteFile(file))
			return
		}
		out.Position, out.Intensity = p, float32(in)
		if l.SpotDir != (mgl32.Vec3{}) {
			q := apply(&xf.linear, nil, l.SpotDir)
			n := math.Sqrt(float64(q[0]*q[0]) + float64(q[1]*q[1]) + float64(q[2]*q[2]))
			out.SpotDir = mgl32.Vec3{float32(q[0] / n), float32(q[1] / n), float32(q[2] / n)}
		}
		s.Lights = append(s.Lights, out)
	}
}

// normalMapped returns the index of a material of m that has a normal map,
// or −1.
func normalMapped(m *tracer.MeshDesc, s *tracer.SceneDesc) int {
	if len(m.Materials) == 0 {
		if s.Materials[m.Material].NormalMap != 0 {
			return m.Material
		}
		return -1
	}
	for _, k := range m.Materials {
		if s.Materials[k].NormalMap != 0 {
			return int(k)
		}
	}
	return -1
}

// materialName returns the scene's name for material k, or "material k"
// for one a mesh file added.
func materialName(mats materialTable, k int) string {
	if k < len(mats.names) {
		return mats.names[k]
	}
	return fmt.Sprintf("%d", k)
}

// mapMaterials sets the materials of out, the scene's copy of m, through
// table (scene material by file material + 1). A mesh whose triangles all
// end up with one material gets no per-triangle list.
func mapMaterials(out, m *tracer.MeshDesc, table []int32) {
	if len(m.Materials) == 0 {
		out.Material = int(table[m.Material+1])
		return
	}
	first := table[m.Materials[0]+1]
	out.Material = int(first)
	same := true
	for _, k := range m.Materials {
		if table[k+1] != first {
			same = false
			break
		}
	}
	if same {
		return
	}
	out.Materials = make([]int32, len(m.Materials))
	for i, k := range m.Materials {
		out.Materials[i] = table[k+1]
	}
}

// shortList quotes names for a message, eliding past five.
func shortList(names []string) string {
	if len(names) <= 5 {
		return quoteList(names)
	}
	return fmt.Sprintf("%s and %d more", quoteList(names[:5]), len(names)-5)
}

// pronoun is "it" or "them".
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// sceneAssets returns the resolver of the scene's files, making it at the
// first call.
func (d *decoder) sceneAssets() (*assets, error) {
	if d.assets == nil {
		a, err := newSceneAssets(d.file, d.opt)
		if err != nil {
			return nil, err
		}
		d.assets = a
	}
	return d.assets, nil
}

// meshFile returns the mesh file named by the object f's file member fv,
// posed by pose (a glTF file's animation), reading it and adding its
// materials to s at its first use. It returns nil after recording an
// error.
func (d *decoder) meshFile(f fields, fv *value, file string, crease float64, pose gltfPose, mats materialTable, s *tracer.SceneDesc) *meshFile {
	l := f.at("file")
	load := meshLoader(strings.ToLower(filepath.Ext(file)), crease)
	if pose.posed() {
		load = loadGLTFPosed(pose)
	}
	if load == nil {
		d.fail(fv, l, "unsupported mesh file %s (accepted extensions: %s)", quoteFile(file), strings.Join(meshExtensions, ", "))
		return nil
	}
	a, err := d.sceneAssets()
	if err != nil {
		d.fail(fv, l, "%s: %v", quoteFile(file), err)
		return nil
	}
	path, err := a.resolve(a.dir, file)
	if err != nil {
		err = fileErr(file, err) // as for image files: "FILE: no such file or directory"
		d.fail(fv, l, "%v", err)
		d.err.Err = err
		return nil
	}
	key := path
	if crease != objCreaseDegrees {
		key = fmt.Sprintf("%s\x00crease %g", path, crease)
	}
	key += pose.key()
	if mf := d.meshFiles[key]; mf != nil {
		return mf
	}
	im, err := d.importFileAs(a, path, key, load)
	if errors.Is(err, errGLTFAnimationPick) {
		d.importFailed(f, f.lookup("animation"), f.at("animation"), path, file, err)
		return nil
	}
	if err != nil {
		d.importFailed(f, fv, l, path, file, err)
		return nil
	}
	if msg := checkImported(im); msg != "" {
		d.fail(fv, l, "%s: %s", quoteFile(file), msg)
		return nil
	}
	mf := &meshFile{im: im}
	if !d.addMaterials(f, file, mf, mats, s) {
		return nil
	}
	if d.meshFiles == nil {
		d.meshFiles = map[string]*meshFile{}
	}
	d.meshFiles[key] = mf
	return mf
}

// importFile loads the mesh file at path with load, once per scene: a
// glTF file that the camera section also reads is decoded once.
func (d *decoder) importFile(a *assets, path string, load func(*assets, string) (*importedMesh, error)) (*importedMesh, error) {
	return d.importFileAs(a, path, path, load)
}

// importFileAs is importFile under the cache key key (the path, and how
// the file is read when an object asks for something else than the
// default: its crease angle).
func (d *decoder) importFileAs(a *assets, path, key string, load func(*assets, string) (*importedMesh, error)) (*importedMesh, error) {
	if im := d.imported[key]; im != nil {
		return im, nil
	}
	im, err := load(a, path)
	if err != nil {
		return nil, err
	}
	if d.imported == nil {
		d.imported = map[string]*importedMesh{}
	}
	d.imported[key] = im
	return im, nil
}

// importFailed records the error of importing the mesh file at path
// (named file in the scene, by the member fv at l of f) where an image
// file's errors are: at the member's line and column in the scene file,
// under its JSON path. The message starts with the file that is wrong:
// for a problem inside the mesh file or one it reads (an importer's
// *Error with a line: an OBJ statement, an MTL map), that file and line,
// FILE:LINE, as tools that jump to errors read them; for one with the
// file as a whole (missing, not a regular file, not valid glTF), the name
// as the scene writes it, quoted. The recorded *Error wraps err.
func (d *decoder) importFailed(f fields, fv *value, l loc, path, file string, err error) {
	if d.failed() {
		return
	}
	msg := quoteFile(file) + ": " + err.Error()
	if e, ok := errors.AsType[*Error](err); ok {
		inner := *e
		if inner.File == "" || (inner.File == path && inner.Line == 0) {
			inner.File = ""
			msg = quoteFile(file) + ": " + inner.Error()
		} else {
			inner.File = d.displayPath(inner.File)
			msg = inner.Error()
		}
	}
	d.fail(fv, l, "%s", msg)
	d.err.Err = err
}

// displayPath returns the absolute path p of a scene's file as a message
// shows it: relative to the scene file's name when p is in its folder.
func (d *decoder) displayPath(p string) string {
	if d.assets == nil || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(d.assets.dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.Join(filepath.Dir(d.file), rel)
}

// addMaterials works out the scene material of each material of mf that
// some triangle uses, adding new ones (and their textures and images) to
// s. It returns false after recording an error.
func (d *decoder) addMaterials(f fields, file string, mf *meshFile, mats materialTable, s *tracer.SceneDesc) bool {
	im := mf.im
	mf.scene = make([]int, len(im.materials))
	mf.used = make([]bool, len(im.materials))
	mark := func(k int) {
		if k < 0 {
			mf.noMaterial = true
		} else {
			mf.used[k] = true
		}
	}
	for i := range im.meshes {
		m := &im.meshes[i]
		if len(m.Materials) == 0 {
			if len(m.Indices) > 0 {
				mark(m.Material)
			}
			continue
		}
		prev := int32(-2)
		for _, k := range m.Materials {
			if k != prev {
				mark(int(k))
				prev = k
			}
		}
	}
	fail := func(format string, args ...any) bool {
		d.failAt(f.offset("file"), f.at("file").String(), "%s: %s", quoteFile(file), fmt.Sprintf(format, args...))
		return false
	}
	var unsupported []int // the materials added whose extensions trace does not read
	for k, m := range im.materials {
		mf.scene[k] = -1
		if !mf.used[k] {
			continue
		}
		if i, ok := mats.index[m.Name]; ok {
			mf.scene[k] = i
			continue
		}
		if !m.HasColor {
			continue
		}
		if m.Refused != "" {
			return fail("%s; a material of the same name in \"materials\" may take its place", m.Refused)
		}
		// addTexture adds an image texture of img (once per image) with
		// the tint and UV transform, returning its index.
		addTexture := func(img *tracer.Image, tint mgl32.Vec3, uv [6]float32, sm textureSampler) (int32, bool) {
			ii, ok := d.images[img]
			if !ok {
				// Its texels were counted against tracer.MaxImageTexels
				// when it was decoded (assets.decodeImage).
				ii = int32(len(s.Images))
				s.Images = append(s.Images, *img)
				if d.images == nil {
					d.images = map[*tracer.Image]int32{}
				}
				d.images[img] = ii
			}
			if len(s.Textures) >= tracer.MaxMaterials {
				return 0, fail("more than %d textures", tracer.MaxMaterials)
			}
			s.Textures = append(s.Textures, tracer.Texture{Kind: tracer.TextureImage, Image: ii, Even: tint, UV: uv,
				WrapS: sm.WrapS, WrapT: sm.WrapT, Filter: sm.Filter, TexCoord: sm.TexCoord})
			return int32(len(s.Textures) - 1), true
		}
		mat := tracer.Material{Kind: tracer.MaterialDiffuse, Texture: tracer.NoTexture, Color: m.Color}
		if m.PBR {
			mat.Kind, mat.Metallic, mat.Roughness, mat.Emission = tracer.MaterialPBR, m.Metallic, m.Roughness, m.Emission
			mat.Clearcoat, mat.ClearcoatRoughness = m.Clearcoat, m.ClearcoatRoughness
			mat.SheenColor, mat.SheenRoughness = m.SheenColor, m.SheenRoughness
			if m.HasSpecular {
				mat.SpecularF0, mat.SpecularF90, mat.DielectricSpecular = m.SpecularF0, m.SpecularF90, 1
			}
		}
		if m.Unlit {
			mat.Kind = tracer.MaterialUnlit
		}
		if m.Glass {
			mat.Kind, mat.IOR, mat.Roughness = tracer.MaterialDielectric, m.IOR, m.Roughness
			mat.AttenuationColor, mat.AttenuationDistance = m.AttenuationColor, m.AttenuationDistance
		}
		// A black tint makes a black material, texture or not (the zero
		// tint would mean none).
		if m.Image != nil && m.Color != [3]float32{} {
			ti, ok := addTexture(m.Image, m.Color, m.ImageUV, m.ImageSampler)
			if !ok {
				return false
			}
			mat.Texture = ti
		}
		if m.PBR && m.RoughImage != nil {
			ti, ok := addTexture(m.RoughImage, mgl32.Vec3{}, m.RoughUV, m.RoughSampler)
			if !ok {
				return false
			}
			mat.RoughMap = uint32(ti) + 1
		}
		if m.PBR && m.EmissionImage != nil {
			ti, ok := addTexture(m.EmissionImage, mgl32.Vec3{}, m.EmissionUV, m.EmissionSampler)
			if !ok {
				return false
			}
			mat.EmissionMap = uint32(ti) + 1
		}
		if m.PBR && m.HasSpecular && m.SpecularImage != nil {
			ti, ok := addTexture(m.SpecularImage, mgl32.Vec3{}, m.SpecularUV, m.SpecularSampler)
			if !ok {
				return false
			}
			mat.SpecularMap = uint32(ti) + 1
		}
		if m.PBR && m.HasSpecular && m.SpecularColorImage != nil {
			ti, ok := addTexture(m.SpecularColorImage, mgl32.Vec3{}, m.SpecularColorUV, m.SpecularColorSampler)
			if !ok {
				return false
			}
			mat.SpecularColorMap = uint32(ti) + 1
		}
		if m.PBR && m.ClearcoatImage != nil {
			ti, ok := addTexture(m.ClearcoatImage, mgl32.Vec3{}, m.ClearcoatUV, m.ClearcoatSampler)
			if !ok {
				return false
			}
			mat.ClearcoatMap = uint32(ti) + 1
		}
		if m.PBR && m.ClearcoatRoughnessImage != nil {
			ti, ok := addTexture(m.ClearcoatRoughnessImage, mgl32.Vec3{}, m.ClearcoatRoughnessUV, m.ClearcoatRoughnessSampler)
			if !ok {
				return false
			}
			mat.ClearcoatRoughnessMap = uint32(ti) + 1
		}
		if m.NormalImage != nil {
			ti, ok := addTexture(m.NormalImage, mgl32.Vec3{}, m.NormalUV, m.NormalSampler)
			if !ok {
				return false
			}
			mat.NormalMap, mat.NormalScale = uint32(ti)+1, m.NormalScale
		}
		if m.AlphaMode != tracer.AlphaOpaque {
			mat.AlphaMode, mat.Alpha, mat.AlphaCutoff = m.AlphaMode, m.Alpha, m.AlphaCutoff
			if m.AlphaImage != nil {
				ti, ok := addTexture(m.AlphaImage, mgl32.Vec3{}, m.AlphaUV, textureSampler{})
				if !ok {
					return false
				}
				greyAlpha(&s.Images[s.Textures[ti].Image])
				mat.AlphaMap = uint32(ti) + 1
			}
		}
		if len(s.Materials) >= tracer.MaxMaterials {
			return fail("more than %d materials", tracer.MaxMaterials)
		}
		mf.scene[k] = len(s.Materials)
		s.Materials = append(s.Materials, mat)
		if len(m.Unsupported) > 0 {
			unsupported = append(unsupported, k)
		}
	}
	if msg := unsupportedWarning(im.materials, unsupported); msg != "" {
		slog.Warn(fmt.Sprintf("%s: %s", quoteFile(file), msg))
	}
	return true
}

// undefinedWarning says, in one line, which materials of mf's file
// (an OBJ file's usemtl names, with the line of the first usemtl of each)
// neither the file's material libraries nor the scene define, so that
// the object's material stands in for them; or returns "" for none, and
// for a file with a missing material library, whose own warning (obj.go)
// says as much.
func undefinedWarning(mf *meshFile) string {
	if mf.im.missingLibrary {
		return ""
	}
	var names []string
	for k, m := range mf.im.materials {
		if mf.used[k] && mf.scene[k] < 0 && !m.HasColor {
			name := quote(m.Name)
			if k < len(mf.im.usemtlLines) {
				name = fmt.Sprintf("%s (line %d)", name, mf.im.usemtlLines[k])
			}
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	return fmt.Sprintf("usemtl names %s %s, which no material library of the file nor the scene's \"materials\" defines; the object's material stands in for %s",
		plural(len(names), "material"), list, pronoun(len(names)))
}

// maxUnsupportedListed bounds what unsupportedWarning names of what the
// materials leave out; the rest are counted.
const maxUnsupportedListed = 8

// unsupportedWarning says, in one line, that the materials[k] of a glTF
// or OBJ file, for k in ks, are drawn without the extensions of theirs
// that trace does not read (such as KHR_materials_transmission) or the
// MTL values dropped (an MTL glass's Kd, say), and how to
// put a material of the scene in their place; or returns "" for none.
func unsupportedWarning(materials []importedMaterial, ks []int) string {
	if len(ks) == 0 {
		return ""
	}
	var names, exts []string
	seen, named := map[string]bool{}, map[string]bool{}
	for _, k := range ks {
		if !named[materials[k].Name] { // a glTF material scaled for two nodes is two
			named[materials[k].Name] = true
			names = append(names, materials[k].Name)
		}
		for _, e := range materials[k].Unsupported {
			if !seen[e] {
				seen[e] = true
				exts = append(exts, e)
			}
		}
	}
	slices.Sort(exts)
	list := strings.Join(exts, ", ")
	if len(exts) > maxUnsupportedListed {
		list = fmt.Sprintf("%s and %d more", strings.Join(exts[:maxUnsupportedListed], ", "), len(exts)-maxUnsupportedListed)
	}
	return fmt.Sprintf("%s %s drawn without %s, which trace does not support; a material of the same name in \"materials\" takes the place of a file's material",
		plural(len(names), "material"), shortList(names), list)
}

// checkImported says what is wrong with a mesh file's import, or returns
// "". The loaders check their files; this keeps a loader's slip, or a
// value the loader let through, from reaching the tracer.
func checkImported(im *importedMesh) string {
	tris := 0
	for i := range im.meshes {
		m := &im.meshes[i]
		n := len(m.Positions)
		t := len(m.Indices) / 3
		switch {
		case len(m.Indices)%3 != 0:
			return "the importer gave a mesh whose index count is not a multiple of 3"
		case len(m.Normals) != 0 && len(m.Normals) != n, len(m.UVs) != 0 && len(m.UVs) != n,
			len(m.UV1s) != 0 && len(m.UV1s) != n, len(m.Colors) != 0 && len(m.Colors) != n,
			len(m.Tangents) != 0 && len(m.Tangents) != n:
			return "the importer gave a mesh whose per-vertex arrays differ in length"
		case len(m.Materials) != 0 && len(m.Materials) != t:
			return "the importer gave a mesh whose material list does not match its triangles"
		case m.Material < -1 || m.Material >= len(im.materials):
			return "the importer gave a mesh with a material out of range"
		}
		for _, x := range m.Indices {
			if int(x) >= n {
				return fmt.Sprintf("a triangle uses vertex %d of a mesh of %d", x, n)
			}
		}
		for _, k := range m.Materials {
			if k < -1 || int(k) >= len(im.materials) {
				return "the importer gave a triangle a material out of range"
			}
		}
		for _, p := range m.Positions {
			if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
				return "a vertex position is not a finite number"
			}
		}
		for _, uv := range append(m.UVs[:len(m.UVs):len(m.UVs)], m.UV1s...) {
			if !finite(uv[0]) || !finite(uv[1]) {
				return "a texture coordinate is not a finite number"
			}
		}
		for _, c := range m.Colors {
			if !(c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && finite(c[0]) && finite(c[1]) && finite(c[2])) {
				return "a vertex colour is negative or not a finite number"
			}
		}
		tris += t
	}
	if tris == 0 {
		return "the file holds no triangles"
	}
	for _, l := range im.lights {
		p, c, sd := l.Position, l.Color, l.SpotDir
		if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) || !finite(l.Intensity) || l.Intensity < 0 ||
			!finite(c[0]) || !finite(c[1]) || !finite(c[2]) || c[0] < 0 || c[1] < 0 || c[2] < 0 ||
			!finite(sd[0]) || !finite(sd[1]) || !finite(sd[2]) || !finite(l.SpotScale) || !finite(l.SpotOffset) {
			return "the importer gave a light that is not finite, or negative"
		}
	}
	for _, m := range im.materials {
		if !finite(m.Color[0]) || !finite(m.Color[1]) || !finite(m.Color[2]) || m.Color[0] < 0 || m.Color[1] < 0 || m.Color[2] < 0 {
			return fmt.Sprintf("material %s: the colour is not finite and >= 0", quote(m.Name))
		}
		if img := m.Image; img != nil && (img.Width <= 0 || img.Height <= 0 || len(img.Pix) != 3*img.Width*img.Height) {
			return fmt.Sprintf("material %s: the importer gave an inconsistent image", quote(m.Name))
		}
	}
	return ""
}

// finite reports whether x is neither infinite nor NaN.
func finite(x float32) bool { return !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x)) }
