package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tracerender/trace/tracer"
)

// importedMaterial is a material named or defined by a mesh file (an OBJ
// file's usemtl and its material library, a glTF material). The scene's
// own material of the same name, if any, wins over it.
type importedMaterial struct {
	Name string
	// HasColor is false when the file names the material but does not
	// describe it (a usemtl without a library entry).
	HasColor bool
	Color    mgl32.Vec3 // base colour, linear RGB (OBJ Kd, glTF baseColorFactor)
	// Image is the base colour texture (linear RGB) or nil, shared by every
	// material that uses the file; Color is its tint, applied at shading
	// time (tracer.Texture.Even), not to a copy of the texels.
	Image *tracer.Image
	// PBR makes the material glTF's metallic-roughness model
	// (tracer.MaterialPBR) rather than diffuse: Metallic and Roughness
	// factors, times RoughImage's blue and green when it is not nil;
	// Emission, times EmissionImage when it is not nil.
	PBR                 bool
	Metallic, Roughness float32
	// Clearcoat and ClearcoatRoughness are the pbr material's clear coat
	// (tracer.Material's; glTF's KHR_materials_clearcoat, MTL's Pc and
	// Pcr): 0, no coat.
	Clearcoat, ClearcoatRoughness float32
	// ClearcoatImage (its red multiplies Clearcoat) and
	// ClearcoatRoughnessImage (its green multiplies ClearcoatRoughness),
	// linear, are glTF's clearcoatTexture and clearcoatRoughnessTexture,
	// or nil (tracer.Material's ClearcoatMap and ClearcoatRoughnessMap),
	// with their UV transforms and samplers.
	ClearcoatImage, ClearcoatRoughnessImage     *tracer.Image
	ClearcoatUV, ClearcoatRoughnessUV           [6]float32
	ClearcoatSampler, ClearcoatRoughnessSampler textureSampler
	// SheenColor and SheenRoughness are the pbr material's sheen
	// (tracer.Material's; glTF's KHR_materials_sheen): black, no sheen.
	SheenColor     mgl32.Vec3
	SheenRoughness float32
	// HasSpecular gives the pbr material the dielectric reflectance
	// SpecularF0 and SpecularF90 (tracer.Material's, DielectricSpecular
	// 1; glTF's KHR_materials_specular and KHR_materials_ior) in place of
	// glTF's default, F0 0.04 and F90 1.
	HasSpecular               bool
	SpecularF0                mgl32.Vec3
	SpecularF90               float32
	Emission                  mgl32.Vec3
	RoughImage, EmissionImage *tracer.Image
	// SpecularImage (its alpha multiplies the specular factor) and
	// SpecularColorImage (sRGB-decoded: its colour multiplies the
	// specular colour) are glTF's specularTexture and
	// specularColorTexture, or nil (tracer.Material's SpecularMap and
	// SpecularColorMap; HasSpecular is then true), with their UV
	// transforms and samplers.
	SpecularImage, SpecularColorImage     *tracer.Image
	SpecularUV, SpecularColorUV           [6]float32
	SpecularSampler, SpecularColorSampler textureSampler
	// The textures' UV transforms (tracer.Texture.UV; zero for none).
	ImageUV, RoughUV, EmissionUV [6]float32
	// The textures' samplers and coordinate sets (the zero value:
	// repeat, linear, set 0).
	ImageSampler, RoughSampler, EmissionSampler textureSampler
	// NormalImage is a tangent-space normal map (linear values) or nil,
	// NormalUV its UV transform and NormalScale the scale of its X and Y
	// (tracer.Material.NormalScale).
	NormalImage   *tracer.Image
	NormalUV      [6]float32
	NormalScale   float32
	NormalSampler textureSampler
	// AlphaMode, Alpha and AlphaCutoff are tracer.Material's (glTF's
	// alphaMode, the base colour factor's alpha and alphaCutoff; MTL's d,
	// Tr and map_d): the zero AlphaMode is opaque. AlphaImage is an alpha
	// map (MTL map_d: its alpha channel, or its grey level) or nil,
	// AlphaUV its UV transform; the base colour texture's alpha channel
	// counts too, as in the scene format.
	AlphaMode   tracer.AlphaMode
	Alpha       float32
	AlphaCutoff float32
	AlphaImage  *tracer.Image
	AlphaUV     [6]float32
	// Glass makes the material trace's dielectric (tracer.MaterialDielectric;
	// a glTF material of full transmission, gltfglass.go) of index of
	// refraction IOR, tinted by Color (and Image) and of roughness
	// Roughness; PBR is then false.
	Glass bool
	IOR   float32
	// Unlit makes the material trace's unlit one (tracer.MaterialUnlit;
	// glTF's KHR_materials_unlit, gltfunlit.go): Color (and Image) seen
	// by camera rays as is; PBR and Glass are then false.
	Unlit bool
	// AttenuationColor and AttenuationDistance are the glass's
	// absorption inside (tracer.Material's; glTF's
	// KHR_materials_volume), the distance in the scene's units once
	// placed; a distance of 0 absorbs nothing.
	AttenuationColor    mgl32.Vec3
	AttenuationDistance float32
	// Default marks glTF's default material, which the file's primitives
	// without a material get (glTF 2.0 §3.9.6: metallic-roughness with
	// every factor 1 and no texture); a scene object's "material" takes
	// its place.
	Default bool
	// Unsupported names, for a warning, what of the material trace does
	// not read: the glTF extensions (KHR_materials_clearcoat,
	// KHR_materials_transmission that is partial, ...; a name other than
	// letters, digits and underscores quoted), sorted, then what a glass
	// material leaves out (gltfGlass.notes); for an MTL material, the
	// glass-related values dropped (mtlGlass.notes). The material is
	// drawn without them.
	Unsupported []string
	// Refused, when not "", says why the material cannot be drawn: it
	// needs an extension that the file requires and trace does not read
	// on this material (a glTF material of partial transmission in a file
	// that requires KHR_materials_transmission). Drawing it is an error;
	// a material of the same name in the scene's "materials" may take its
	// place.
	Refused string
}

// textureSampler is how an imported texture is sampled: tracer.Texture's
// WrapS, WrapT, Filter and TexCoord.
type textureSampler struct {
	WrapS, WrapT tracer.Wrap
	Filter       tracer.Filter
	TexCoord     uint32
}

// usesSet1 reports whether any of the material's textures is looked up
// by texture coordinate set 1.
func (m *importedMaterial) usesSet1() bool {
	return (m.Image != nil && m.ImageSampler.TexCoord == 1) || (m.RoughImage != nil && m.RoughSampler.TexCoord == 1) ||
		(m.EmissionImage != nil && m.EmissionSampler.TexCoord == 1) || (m.NormalImage != nil && m.NormalSampler.TexCoord == 1) ||
		(m.SpecularImage != nil && m.SpecularSampler.TexCoord == 1) || (m.SpecularColorImage != nil && m.SpecularColorSampler.TexCoord == 1) ||
		(m.ClearcoatImage != nil && m.ClearcoatSampler.TexCoord == 1) || (m.ClearcoatRoughnessImage != nil && m.ClearcoatRoughnessSampler.TexCoord == 1)
}

// importedMesh is what a mesh file yields: meshes in the file's own
// coordinates (for glTF, with the file's node transforms applied; the
// scene's transform is applied afterwards), whose MeshDesc.Materials index
// materials (or are −1 where the file gives no material), and the file's
// lights in the same coordinates (glTF's KHR_lights_punctual), with
// intensities for the file's own unit of length.
type importedMesh struct {
	meshes    []tracer.MeshDesc
	materials []importedMaterial
	lights    []tracer.PointLight
	cameras   []importedCamera
	// missingLibrary is true for an OBJ file one of whose material
	// libraries does not exist (a warning of its own says so): the names
	// that no library defines may be that one's.
	missingLibrary bool
	// usemtlLines are, for an OBJ file, the lines of the first usemtl
	// that gives each material to a face (for messages); nil elsewhere.
	usemtlLines []int
}

// importedCamera is a glTF node's camera: the node, the camera's index
// and name, its vertical field of view in radians (perspective) or NaN
// and its ymag, half the view's height (orthographic), and the node's
// world matrix (the camera looks along its −z, up its +y).
type importedCamera struct {
	node, camera int
	name         string
	yfov, ymag   float64
	world        mgl64.Mat4
}
