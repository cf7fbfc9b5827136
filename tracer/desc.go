package tracer

import "github.com/go-gl/mathgl/mgl32"

// Integrator selects the light transport algorithm.
type Integrator uint32

const (
	// IntegratorPath is unidirectional path tracing with next-event
	// estimation toward point lights and emissive shapes.
	IntegratorPath Integrator = iota
	// IntegratorWhitted is classic recursive ray tracing.
	IntegratorWhitted
	// NumIntegrators counts the integrators, kept last: every Integrator is below it.
	NumIntegrators
)

// Tonemap selects the curve that maps exposed linear radiance to [0, 1].
type Tonemap uint32

const (
	TonemapClamp    Tonemap = iota // min(max(x, 0), 1)
	TonemapReinhard                // x / (1 + x)
	TonemapACES                    // Narkowicz's fit of the ACES filmic curve
)

// Transfer selects how tone-mapped values are encoded in the output file.
type Transfer uint32

const (
	TransferSRGB   Transfer = iota // the sRGB opto-electronic curve
	TransferLinear                 // the values as they are
)

// BackgroundKind selects what a ray that leaves the scene sees.
type BackgroundKind uint32

const (
	BackgroundColor    BackgroundKind = iota // one colour in every direction
	BackgroundGradient                       // (1−t)·Bottom + t·Top, t = 0.5·(d.y+1)
	BackgroundImage                          // an equirectangular image: Background.Texture
	// NumBackgroundKinds counts the kinds, kept last: every BackgroundKind is below it.
	NumBackgroundKinds
)

// Falloff selects how a point light's radiance decreases with distance.
type Falloff uint32

const (
	FalloffInverseSquare Falloff = iota // intensity / d²
	FalloffNone                         // intensity, at any distance
	// FalloffDirectional makes a directional light, a light at infinity
	// (a sun): Position is then the unit direction from the scene toward
	// the light, the same everywhere, and Intensity the irradiance it
	// gives a surface facing it; the shadow ray has no far end.
	FalloffDirectional
	// NumFalloffs counts the falloffs, kept last: every Falloff is below it.
	NumFalloffs
)

// MaterialKind selects a material's scattering model.
type MaterialKind uint32

const (
	MaterialDiffuse    MaterialKind = iota // Lambertian
	MaterialMetal                          // a conductor: GGX microfacets, Schlick's Fresnel from Color
	MaterialDielectric                     // glass: exact Fresnel reflection and refraction, GGX when rough
	MaterialEmissive                       // an area light; does not scatter
	MaterialPhong                          // ambient + Lambert + Blinn-Phong + mirror reflection
	MaterialPBR                            // glTF 2.0's metallic-roughness model (Color is the base colour)
	// MaterialUnlit shows its colour (Color or Texture, × the vertex
	// colour) to camera rays as is, lit by nothing, and is invisible to
	// every other ray (glTF's KHR_materials_unlit, as Blender imports
	// it; tracer/alpha.go's present).
	MaterialUnlit
	// NumMaterialKinds counts the kinds, kept last: every MaterialKind is below it.
	NumMaterialKinds
)

// TextureKind selects a texture's pattern.
type TextureKind uint32

const (
	TextureChecker TextureKind = iota // Even where ⌊u·Scale⌋+⌊v·Scale⌋ is even, else Odd
	TextureImage                      // an image, bilinear, repeating: Texture.Image
	// NumTextureKinds counts the kinds, kept last: every TextureKind is below it.
	NumTextureKinds
)

// AlphaMode selects how a material's alpha decides where its surface is
// (docs/scene-format.md, "Alpha and single-sided surfaces").
type AlphaMode uint32

const (
	AlphaOpaque AlphaMode = iota // the surface is everywhere; alpha is ignored
	AlphaMask                    // the surface is there where alpha ≥ AlphaCutoff
	AlphaBlend                   // the surface is there with probability alpha (stochastic transparency)
	// NumAlphaModes counts the modes, kept last: every AlphaMode is below it.
	NumAlphaModes
)

// Wrap selects how an image texture maps coordinates outside [0, 1] to
// texels, along one axis (Texture.WrapS for u, WrapT for v).
type Wrap uint32

const (
	WrapRepeat Wrap = iota // period 1: u and u + 1 are the same point
	WrapClamp              // clamp to the edge: u < 0 is 0, u > 1 is 1
	WrapMirror             // period 2, every other period mirrored: 1 + x is 1 − x
	// NumWraps counts the wrap modes, kept last: every Wrap is below it.
	NumWraps
)

// Filter selects how an image texture is interpolated between texels.
type Filter uint32

const (
	FilterLinear  Filter = iota // bilinear between the four nearest texel centres
	FilterNearest               // the texel the point lies in
	// NumFilters counts the filters, kept last: every Filter is below it.
	NumFilters
)

// NoTexture is the Texture index of a material whose colour is constant.
const NoTexture int32 = -1

// Settings are the render settings of a scene.
type Settings struct {
	Width, Height int        // image size in pixels
	Samples       int        // samples per pixel; 1 shoots through the pixel centre
	MaxDepth      int        // bounces (path) or hits (whitted) after the camera ray
	Integrator    Integrator // light transport algorithm
	Seed          uint64     // seed of the counter-based random numbers
	// NoiseThreshold turns on adaptive sampling (adaptive.go) when
	// positive: a pixel stops taking samples once its error estimate is
	// below it (Cycles' Noise Threshold, in [0, 1]); Samples stays the
	// most a pixel takes. 0 takes Samples samples in every pixel.
	NoiseThreshold float32
	// MinSamples is the samples a pixel takes before adaptive sampling
	// first tests it; 0 derives it from NoiseThreshold as Cycles does
	// (AdaptiveMinSamples). Unused when NoiseThreshold is 0.
	MinSamples int
	// PointLightTree says how the path integrator's next-event
	// estimation samples the point and spot lights whose radiance falls
	// off with the squared distance: all of them at every vertex, or one
	// picked from the light tree beside the emitters (lighttree.go).
	PointLightTree PointLightTree
}

// PointLightTree selects how next-event estimation samples point and spot
// lights of inverse-square falloff (Settings.PointLightTree).
type PointLightTree uint32

const (
	// PointLightTreeAuto puts them in the light tree when they count as
	// more than PointLightTreeMin point lights, a spot light as
	// (1 − cos outer)/3 (PointLightWeight), and samples all of them
	// otherwise.
	PointLightTreeAuto PointLightTree = iota
	// PointLightTreeAlways puts them in the light tree.
	PointLightTreeAlways
	// PointLightTreeNever samples every one at every vertex.
	PointLightTreeNever
	// NumPointLightTrees counts the choices, kept last.
	NumPointLightTrees
)

// PointLightTreeMin is the most point lights of inverse-square falloff
// that a scene samples all at every vertex under PointLightTreeAuto; with
// more, one is picked from the light tree. A spot light counts as
// (1 − cos outer)/3 of one (PointLightWeight: a room of 48 downlights of
// 35° counts as 2.9, of 80° as 13). At this many and fewer, sampling all
// has the lower noise at equal CPU time (see docs/scene-format.md).
const PointLightTreeMin = 8

// CameraDesc describes a pinhole or thin-lens camera.
type CameraDesc struct {
	Position mgl32.Vec3 // the eye
	LookAt   mgl32.Vec3 // a point the camera looks at
	Up       mgl32.Vec3 // the world direction that appears up; need not be unit
	FOV      float32    // vertical field of view in degrees, in (0, 180)
	// Shift moves the image plane's centre by (Shift[0]·H, Shift[1]·H) along
	// the camera's right and up axes, H being the plane's height at
	// distance 1 (a view camera's lens shift).
	Shift [2]float32
	// Aperture is the lens diameter; 0 is a pinhole.
	Aperture float32
	// FocusDistance is the distance to the plane in focus; 0 means the
	// distance from Position to LookAt.
	FocusDistance float32
	// Orthographic makes the camera's rays parallel, along the view
	// direction, from a plane through Position of height Height (scene
	// units; the width follows the image's aspect); FOV is then unused,
	// and Shift is in units of Height. An orthographic camera has no lens
	// (Aperture 0).
	Orthographic bool
	Height       float32
}

// Film describes how linear radiance becomes output values.
type Film struct {
	Exposure float32 // in stops: radiance is scaled by 2^Exposure
	Tonemap  Tonemap
	Transfer Transfer
	// Filter and FilterWidth (in pixels, in [MinFilterWidth,
	// MaxFilterWidth]; 0, with PixelFilterBox only, is the default box of
	// width 1) are the pixel filter (filter.go), which spreads the
	// samples of a pixel.
	Filter      PixelFilter
	FilterWidth float32
}

// Background is what a ray that leaves the scene sees (linear RGB).
type Background struct {
	Kind   BackgroundKind
	Color  mgl32.Vec3 // for BackgroundColor
	Bottom mgl32.Vec3 // for BackgroundGradient: seen looking straight down
	Top    mgl32.Vec3 // for BackgroundGradient: seen looking straight up
	// Texture indexes Scene.Textures for BackgroundImage: an image texture
	// holding an equirectangular (latitude-longitude) map. The unit
	// direction d maps to u = (atan2(−d.x, d.z) + π)/2π and
	// v = 1 − acos(d.y)/π: the image's top row is straight up, its bottom
	// row straight down, its centre column looks along +z, and −x (the
	// right of a camera looking along +z) lies right of the centre, so the
	// panorama is seen unmirrored from inside.
	Texture int32
	// Distribution is filled in by Compile for BackgroundImage: the index
	// in Scene.Texels of the table next-event estimation picks directions
	// from (environment.go), or 0 when the image is black.
	Distribution uint32
	// Rotation turns a BackgroundImage: its rows are those of the inverse
	// R⁻¹ = Rᵀ of the rotation R that carries the map's frame into the
	// world, so that a world direction d looks the map up at
	// (Rotation[0]·d, Rotation[1]·d, Rotation[2]·d), and a direction m of
	// the map's frame lies along Σ m[i]·Rotation[i] in the world. All zero
	// (the default) for none: the lookup then uses d itself, bit for bit
	// as before rotations (an identity matrix would turn −0 into +0).
	Rotation [3]mgl32.Vec3
}

// Rotated reports whether b turns its image. Validate holds every row of
// a Rotation that is not all zero to unit length, so its first row says.
func (b *Background) Rotated() bool { return b.Rotation[0] != (mgl32.Vec3{}) }

// Texture is a colour pattern over a shape's (u, v) coordinates: a checker
// or an image.
type Texture struct {
	Kind  TextureKind
	Scale float32 // checker: checks per unit of u and of v
	// Even is the checker's even colour (linear RGB); for TextureImage,
	// the tint the image's colour is multiplied by at shading time, so that
	// materials sharing an image with different tints share its texels.
	// The zero value means no tint: Compile makes it [1, 1, 1].
	Even mgl32.Vec3
	Odd  mgl32.Vec3 // checker: linear RGB
	// Image indexes SceneDesc.Images for TextureImage. u runs right and v
	// runs up across the image, both repeating with period 1: (u, v) =
	// (0, 0) is the image's bottom-left corner, as in OBJ files (glTF's v
	// runs down; its importer flips it).
	Image int32
	// Filled in by Compile for TextureImage: the image's size in texels and
	// the index of its first float in Scene.Texels.
	Width, Height uint32
	Offset        uint32
	// UV maps a material's surface coordinates to the texture's before it
	// is looked up: (u', v') = (UV[0]·u + UV[1]·v + UV[4], UV[2]·u +
	// UV[3]·v + UV[5]). All zero means none (a transform's scale is
	// never 0).
	UV [6]float32
	// AlphaOffset is filled in by Compile for an image texture whose alpha
	// some material reads (Material.AlphaMode not AlphaOpaque, or a pbr
	// material's SpecularMap: alphaTextures): the index in Scene.Texels
	// of the image's Width·Height alpha values. 0 means the texture has
	// no alpha channel: its alpha is 1 everywhere.
	AlphaOffset uint32
	// WrapS and WrapT are how an image texture wraps u and v, Filter how
	// it interpolates (the zero values: repeat, bilinear). A checker
	// ignores them.
	WrapS, WrapT Wrap
	Filter       Filter
	// TexCoord is the coordinate set the texture is looked up by: 0, the
	// shape's (u, v) (a mesh's UVs), or 1, a mesh's UV1s (shapes and
	// meshes without a second set use set 0).
	TexCoord uint32
}

// Image is a texture image in linear RGB: Pix holds three float32 per
// texel, row-major, top row first. Colour images are decoded from sRGB
// when loaded; the tracer only filters and wraps.
//
// Compile does not copy the texels of a scene whose images lie in one
// array as the compiled scene lays them out (one image, images that
// PackImages laid out, or one image and copies of it without alpha): the
// compiled scene's Texels are then that memory, Alpha included when it
// lies in place (right after a lone image's Pix, as the scene loader
// decodes it), so neither may change while the scene is in use; so is an
// image background's sampling table when PackImages wrote it in the room
// after them (EnvironmentTableSize) and Compile finds it the same bits as
// it computes. Compile never writes to an image's memory.
type Image struct {
	Width, Height int
	Pix           []float32
	// Alpha, if not nil, holds one opacity in [0, 1] per texel, in Pix's
	// order (linear: alpha is never sRGB-encoded). nil means opaque.
	// Compile keeps it only for images that a material takes alpha from.
	Alpha []float32
}

// Material is a surface's scattering model. Which fields matter depends on
// Kind; the others are zero. The same struct is used by the compiled scene.
type Material struct {
	Kind MaterialKind
	// Texture indexes Scene.Textures, or is NoTexture; when set it replaces
	// Color.
	Texture int32
	// Color is the albedo (diffuse, phong), the reflectance (metal), the
	// transmission tint (dielectric), or the emitted colour (emissive);
	// linear RGB.
	Color mgl32.Vec3
	// Intensity scales an emissive material's Color into radiance.
	Intensity float32
	// IOR is a dielectric's index of refraction (outside is 1).
	IOR float32
	// Roughness is the perceptual roughness of a metal, a rough dielectric
	// or a pbr material: GGX's α is Roughness², and 0 is a mirror.
	Roughness float32
	// Metallic blends a pbr material from a dielectric (0: a diffuse base
	// under a clear coat of index 1.5) to a metal (1).
	Metallic float32
	// Emission is a pbr material's emitted radiance (linear RGB), from
	// both sides (the front only when SingleSided): when it is not zero,
	// the material's shapes and triangles are area lights that
	// next-event estimation samples, as an emissive material's are, and
	// they scatter too.
	Emission mgl32.Vec3
	// RoughMap and EmissionMap are 1 + an index into Scene.Textures, or 0
	// for none (a metal's or pbr material's): RoughMap's green multiplies
	// Roughness and its blue Metallic (glTF's metallicRoughnessTexture),
	// EmissionMap multiplies Emission.
	RoughMap, EmissionMap uint32
	// Phong coefficients (docs/scene-format.md): local shading = Ambient +
	// Diffuse·max(N·L,0)·colour·light + Specular·max(N·H,0)^Shininess·light,
	// and Reflection weights the mirror-reflected ray.
	Ambient, Diffuse, Specular, Shininess, Reflection float32
	// LightPDF is filled in by Compile for an emissive material and a
	// pbr material with an Emission: the density per unit area with
	// which a pick by power alone would pick a point on any shape of
	// this material (their share of the scene's emitted power, divided
	// by their area); 0 when it emits nothing, and then next-event
	// estimation never samples it. The light tree (LightNodes) picks
	// by more than power.
	LightPDF float32
	// AlphaMode says how alpha decides where the surface is; the zero
	// value, AlphaOpaque, ignores Alpha, AlphaCutoff and AlphaMap. The
	// alpha at (u, v) is Alpha × the alpha of the colour texture (if
	// Texture is an image texture with an alpha channel) × the alpha of
	// AlphaMap (1 + an index into Scene.Textures, or 0 for none).
	AlphaMode   AlphaMode
	Alpha       float32
	AlphaCutoff float32 // AlphaMask: the surface is there where alpha ≥ AlphaCutoff
	AlphaMap    uint32
	// SingleSided, when not 0, makes the back of the surface (the side
	// its geometric normal points away from; see surfaceHit.front)
	// invisible: rays that meet it there pass through, as glTF's
	// doubleSided false. 0, the default, shows both sides.
	SingleSided uint32
	// NormalMap is 1 + an index into Scene.Textures, or 0 for none: a
	// tangent-space normal map (linear values, OpenGL/glTF convention, +Y
	// up in the texture) that perturbs the shading normal (normalmap.go).
	// NormalScale scales the map's X and Y (glTF's normalTexture.scale).
	NormalMap   uint32
	NormalScale float32
	// AttenuationColor and AttenuationDistance are a dielectric's
	// absorption inside its volume (Beer–Lambert; glTF's
	// KHR_materials_volume, whose names they take): light that travels
	// AttenuationDistance inside the glass keeps the fraction
	// AttenuationColor of itself (linear RGB, each component in [0, 1]),
	// and after a distance x the fraction AttenuationColor^(x /
	// AttenuationDistance). AttenuationDistance 0, the default, absorbs
	// nothing; otherwise it is positive and finite, in scene units.
	AttenuationColor    mgl32.Vec3
	AttenuationDistance float32
	// Absorption is filled in by Compile for a dielectric with an
	// AttenuationDistance: the absorption coefficient σ = −ln(
	// AttenuationColor) / AttenuationDistance per unit of distance
	// (tracer/fmath's Log, in float32); zero for none. A path segment of
	// length t inside the glass keeps exp(−σ·t) of its light
	// (absorption.go).
	Absorption mgl32.Vec3
	// Clearcoat and ClearcoatRoughness are a pbr material's clear coat
	// (glTF's KHR_materials_clearcoat): a second, colourless GGX layer of
	// reflectance 0.04 at normal incidence and perceptual roughness
	// ClearcoatRoughness (in [0, 1]; GGX's α is its square) on top of
	// the base, of strength Clearcoat (in [0, 1]; 0, the default, is no
	// coat). The base below receives what the coat lets through
	// (microfacet.go).
	Clearcoat, ClearcoatRoughness float32
	// SpecularF0 and SpecularF90, when DielectricSpecular is not 0, are
	// a pbr material's dielectric specular reflectance at normal and at
	// grazing incidence (glTF's KHR_materials_specular and
	// KHR_materials_ior: dielectric_f0, linear RGB, and dielectric_f90;
	// each in [0, 1], F0 ≤ F90), as PBRSpecular computes them from an
	// index of refraction, a specular factor and a specular colour. Its
	// diffuse base is weighed by 1 − the largest component of Schlick's
	// Fresnel between them at the view direction (microfacet.go); the
	// metallic part is unaffected. DielectricSpecular 0, the zero value,
	// is glTF's default: F0 0.04 and F90 1 (ior 1.5, specular 1, white).
	SpecularF0         mgl32.Vec3
	SpecularF90        float32
	DielectricSpecular uint32
	// SpecularMap and SpecularColorMap are 1 + an index into
	// Scene.Textures, or 0 for none; a pbr material with
	// DielectricSpecular reads them (glTF's specularTexture and
	// specularColorTexture), the others ignore them. At a point, F0 is
	// min(SpecularF0 × SpecularColorMap's colour, SpecularF90) per
	// component, and then F0 and F90 are multiplied by SpecularMap's
	// alpha (Scene.dielectricSpecular). With a SpecularColorMap,
	// SpecularF0 is not clamped to F90 (PBRSpecularUnclamped), so that
	// the clamp comes after the colour, as glTF's F0 = min(((ior −
	// 1)/(ior + 1))² · specularColorFactor · specularColorTexture, 1) ·
	// specularFactor · specularTexture.a has it.
	SpecularMap, SpecularColorMap uint32
	// ClearcoatMap and ClearcoatRoughnessMap are 1 + an index into
	// Scene.Textures, or 0 for none; a pbr material reads them (glTF's
	// clearcoatTexture and clearcoatRoughnessTexture), the others ignore
	// them. At a point, Clearcoat is multiplied by ClearcoatMap's red
	// and ClearcoatRoughness by ClearcoatRoughnessMap's green there
	// (Scene.clearcoatParams), the textures' values linear.
	ClearcoatMap, ClearcoatRoughnessMap uint32
	// SheenColor and SheenRoughness are a pbr material's sheen (glTF's
	// KHR_materials_sheen; sheen.go): a layer of fibres over the base
	// and under the clear coat, the soft rim of cloth and velvet, of
	// colour SheenColor (linear RGB, each component in [0, 1]; black,
	// the default, is no sheen) and perceptual roughness SheenRoughness
	// (in [0, 1], taken as at least 0.07; the Charlie distribution's α
	// is its square). The base below is weighed by what the sheen lets
	// through.
	SheenColor     mgl32.Vec3
	SheenRoughness float32
}

// PBRSpecular returns a pbr material's dielectric F0 and F90
// (Material.SpecularF0 and SpecularF90) for an index of refraction ior
// (≥ 1), a specular factor in [0, 1] and a specular colour (linear RGB,
// each ≥ 0), glTF's KHR_materials_ior and KHR_materials_specular:
// F0 = min(((ior − 1)/(ior + 1))² · colour, 1) · factor, per component,
// and F90 = factor. It computes in float64 and rounds once, so that ior
// 1.5, factor 1 and white give the default's 0.04 exactly.
func PBRSpecular(ior, factor float64, color [3]float64) (f0 mgl32.Vec3, f90 float32) {
	r := (ior - 1) / (ior + 1)
	for i, c := range color {
		f0[i] = float32(min(r*r*c, 1) * factor)
	}
	return f0, float32(factor)
}

// PBRSpecularUnclamped is PBRSpecular without the clamp: F0 = ((ior −
// 1)/(ior + 1))² · colour · factor, per component, for a material with a
// SpecularColorMap, whose colour multiplies F0 before the clamp to F90 =
// factor (min(x·t, 1)·f = min(x·t·f, f) for f ≥ 0).
func PBRSpecularUnclamped(ior, factor float64, color [3]float64) (f0 mgl32.Vec3, f90 float32) {
	r := (ior - 1) / (ior + 1)
	for i, c := range color {
		f0[i] = float32(r * r * c * factor)
	}
	return f0, float32(factor)
}

// PointLight is a light at a point (linear RGB), shining in every
// direction or, as a spot light, in a cone; with Falloff
// FalloffDirectional, a directional light (Position is its direction).
type PointLight struct {
	Position  mgl32.Vec3
	Color     mgl32.Vec3
	Intensity float32
	Falloff   Falloff
	// SpotDir is the unit direction a spot light points to; zero makes an
	// omnidirectional point light, and then SpotScale and SpotOffset are
	// unused. A spot light's intensity toward the unit direction w (from
	// the light) is Intensity × a², a = clamp(w·SpotDir × SpotScale +
	// SpotOffset, 0, 1): glTF's KHR_lights_punctual cone, with SpotScale =
	// 1/max(0.001, cos inner − cos outer) and SpotOffset = −cos outer ×
	// SpotScale (see SpotCone).
	SpotDir    mgl32.Vec3
	SpotScale  float32
	SpotOffset float32
	// DiskOneMinusCos is, for a directional light, 1 − cos α, α half the
	// apparent diameter of the sun's disk (see SunDisk): 0, the default,
	// is a delta light with hard shadows. Above 0, path tracing samples
	// the light's direction uniformly in the cone of half-angle α about
	// Position, the disk's radiance making the irradiance of a surface
	// facing it Intensity × Color as before (soft shadows, the same
	// light); the Whitted integrator takes the delta light.
	DiskOneMinusCos float32
}

// SphereDesc is a sphere.
type SphereDesc struct {
	Center   mgl32.Vec3
	Radius   float32 // > 0
	Material int     // index into SceneDesc.Materials
}

// PlaneDesc is an infinite plane.
type PlaneDesc struct {
	Point    mgl32.Vec3 // any point of the plane
	Normal   mgl32.Vec3 // need not be unit; must not be zero
	Material int
}

// QuadDesc is a parallelogram: Corner + a·Edge1 + b·Edge2 for a, b in [0, 1].
// Its (u, v) are (a, b) and its normal is Edge1 × Edge2.
type QuadDesc struct {
	Corner, Edge1, Edge2 mgl32.Vec3
	Material             int
}

// MeshDesc is a triangle mesh in world space (the scene file's transform
// already applied).
type MeshDesc struct {
	Positions []mgl32.Vec3
	// Normals, if not empty, holds one unit shading normal per position:
	// normals are interpolated across each triangle (smooth shading).
	Normals []mgl32.Vec3
	// UVs, if not empty, holds one (u, v) per position.
	UVs []mgl32.Vec2
	// Indices holds three indices into Positions (and Normals, UVs) per
	// triangle, counter-clockwise seen from the front.
	Indices []uint32
	// Materials, if not empty, holds one index into SceneDesc.Materials per
	// triangle; otherwise every triangle uses Material.
	Materials []int32
	Material  int
	// UV1s, if not empty, holds a second (u, v) per position: the
	// coordinate set 1 of textures whose TexCoord is 1.
	UV1s []mgl32.Vec2
	// Colors, if not empty, holds one vertex colour (linear RGB) per
	// position: interpolated across each triangle, it multiplies the
	// material's colour (or texture).
	Colors []mgl32.Vec3
	// Tangents, if not empty, holds one tangent per position: xyz the
	// direction of increasing u, w = ±1 the handedness (the bitangent,
	// the direction of increasing v, is w·(N × T)), as glTF's TANGENT.
	// Without them a mesh whose material has a normal map gets tangents
	// computed from its UVs (ComputeTangents).
	Tangents []mgl32.Vec4
}

// TriangleDesc is a triangle with optional per-vertex (u, v) coordinates.
type TriangleDesc struct {
	Vertices [3]mgl32.Vec3
	// UV gives (u, v) at each vertex; when HasUV is false, (u, v) are the
	// barycentric coordinates of vertices 1 and 2.
	UV       [3]mgl32.Vec2
	HasUV    bool
	Material int
}

// SceneDesc is a whole scene as the scene file describes it, before
// compilation.
type SceneDesc struct {
	Settings   Settings
	Camera     CameraDesc
	Film       Film
	Background Background
	Materials  []Material
	Textures   []Texture
	Lights     []PointLight
	Spheres    []SphereDesc
	Planes     []PlaneDesc
	Quads      []QuadDesc
	Triangles  []TriangleDesc
	Meshes     []MeshDesc
	Images     []Image
}

// Limits on what a scene may ask for. They keep a typo (an extra zero or
// three) from asking for hours of work or gigabytes of memory; the scene
// file parser reports a value past a limit as an error.
const (
	MaxImageSide = 16384   // pixels, for width and for height
	MaxSamples   = 65536   // samples per pixel
	MaxDepth     = 64      // max_depth
	MaxShapes    = 1 << 22 // spheres + planes + quads + triangles
	MaxLights    = 4096    // point lights
	MaxMaterials = 65536   // materials (and, separately, textures)
	// MaxTriangles bounds the triangles of all meshes and triangle objects
	// together: 2^26, about 6 GB of compiled scene.
	MaxTriangles = 1 << 26
	// MaxImageTexels bounds the texels of all images together: 2^28, 3 GiB
	// of linear float32 RGB.
	MaxImageTexels = 1 << 28
)
