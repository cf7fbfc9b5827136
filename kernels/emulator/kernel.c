/*
 * kernel.c: the kernel source compiled as C11 for the CPU emulator, and the
 * loop that runs it over a grid. cgo compiles this file with the package's
 * CFLAGS (-std=c11: no contraction into fused multiply-adds).
 */
#include "../trace.cu"

#include "emulator.h"

void emu_run(const void* scene, const unsigned int* pixels, unsigned int npixels, float* out,
             unsigned long long* rays, unsigned long long* nonfinite, unsigned int block_dim,
             unsigned int first_block, unsigned int end_block) {
    port_block_dim = block_dim;
    for (u32 b = first_block; b < end_block; b++) {
        port_block_idx = b;
        for (u32 t = 0; t < block_dim; t++) {
            port_thread_idx = t;
            trace_pixels((const TraceScene*)scene, pixels, npixels, out, rays, nonfinite);
        }
    }
}

/* KIND names a field's type as Go would: arrays decay to pointers here, so
 * "[]T" with the field's size gives the array's length; the kernel's
 * pointers are Go's uint64 device addresses. */
#define KIND(x)                                                                                                   \
    _Generic((x), float: "float32", u16: "uint16", u32: "uint32", i32: "int32", u64: "uint64",                   \
             vec3: "[3]float32", float*: "[]float32", u32*: "[]uint32", Camera: "Camera",                        \
             Background: "Background", const BVHNode*: "uint64", const Triangle*: "uint64",                     \
             const TriangleAttr*: "uint64", const Vertex*: "uint64", const Shape*: "uint64",                     \
             const Material*: "uint64", const Texture*: "uint64", const float*: "uint64",                        \
             const PointLight*: "uint64", const Emitter*: "uint64", const vec3*: "uint64", const Tangent*: "uint64",                   \
             default: "unknown")
#define FIELD(T, f) {#T, #f, KIND(((T*)0)->f), __builtin_offsetof(T, f), sizeof(((T*)0)->f)}
#define SIZE(T) {#T, "", "", 0, sizeof(T)}

static const EmuField layout[] = {
    SIZE(BVHNode), FIELD(BVHNode, Min), FIELD(BVHNode, Index), FIELD(BVHNode, Max), FIELD(BVHNode, Count),
    FIELD(BVHNode, Info),

    SIZE(Triangle), FIELD(Triangle, P0), FIELD(Triangle, E1), FIELD(Triangle, E2),

    SIZE(TriangleAttr), FIELD(TriangleAttr, V), FIELD(TriangleAttr, Material), FIELD(TriangleAttr, Flags),

    SIZE(Vertex), FIELD(Vertex, N), FIELD(Vertex, UV),

    SIZE(Shape), FIELD(Shape, Kind), FIELD(Shape, Material), FIELD(Shape, Area), FIELD(Shape, P0),
    FIELD(Shape, P1), FIELD(Shape, P2), FIELD(Shape, N), FIELD(Shape, W),

    SIZE(Material), FIELD(Material, Kind), FIELD(Material, Texture), FIELD(Material, Color),
    FIELD(Material, Intensity), FIELD(Material, IOR), FIELD(Material, Roughness),
    FIELD(Material, Metallic), FIELD(Material, Emission), FIELD(Material, RoughMap), FIELD(Material, EmissionMap), FIELD(Material, Ambient), FIELD(Material, Diffuse),
    FIELD(Material, Specular), FIELD(Material, Shininess), FIELD(Material, Reflection), FIELD(Material, LightPDF),
    FIELD(Material, AlphaMode), FIELD(Material, Alpha), FIELD(Material, AlphaCutoff), FIELD(Material, AlphaMap),
    FIELD(Material, SingleSided),
    FIELD(Material, NormalMap), FIELD(Material, NormalScale),

    SIZE(Tangent), FIELD(Tangent, T), FIELD(Tangent, W),

    SIZE(Texture), FIELD(Texture, Kind), FIELD(Texture, Scale), FIELD(Texture, Even), FIELD(Texture, Odd),
    FIELD(Texture, Image), FIELD(Texture, Width), FIELD(Texture, Height), FIELD(Texture, Offset),
    FIELD(Texture, UV), FIELD(Texture, AlphaOffset), FIELD(Texture, WrapS), FIELD(Texture, WrapT), FIELD(Texture, Filter), FIELD(Texture, TexCoord),

    SIZE(PointLight), FIELD(PointLight, Position), FIELD(PointLight, Color), FIELD(PointLight, Intensity),
    FIELD(PointLight, Falloff), FIELD(PointLight, SpotDir), FIELD(PointLight, SpotScale),
    FIELD(PointLight, SpotOffset), FIELD(PointLight, DiskOneMinusCos),

    SIZE(Emitter), FIELD(Emitter, Kind), FIELD(Emitter, Index), FIELD(Emitter, CDF),

    SIZE(Camera), FIELD(Camera, Eye), FIELD(Camera, Right), FIELD(Camera, Up), FIELD(Camera, Forward),
    FIELD(Camera, Width), FIELD(Camera, Height), FIELD(Camera, PlaneW), FIELD(Camera, PlaneH),
    FIELD(Camera, ShiftX), FIELD(Camera, ShiftY), FIELD(Camera, LensR), FIELD(Camera, FocusDst),

    SIZE(Background), FIELD(Background, Kind), FIELD(Background, Color), FIELD(Background, Bottom),
    FIELD(Background, Top), FIELD(Background, Texture), FIELD(Background, Distribution),

    SIZE(TraceScene), FIELD(TraceScene, Nodes), FIELD(TraceScene, Triangles), FIELD(TraceScene, TriangleAttrs),
    FIELD(TraceScene, Vertices), FIELD(TraceScene, Shapes), FIELD(TraceScene, Materials),
    FIELD(TraceScene, Textures), FIELD(TraceScene, Texels), FIELD(TraceScene, Lights),
    FIELD(TraceScene, Emitters), FIELD(TraceScene, Seed), FIELD(TraceScene, NumNodes),
    FIELD(TraceScene, NumTriangles), FIELD(TraceScene, NumVertices), FIELD(TraceScene, NumShapes),
    FIELD(TraceScene, FirstPlane), FIELD(TraceScene, NumMaterials), FIELD(TraceScene, NumTextures),
    FIELD(TraceScene, NumTexels), FIELD(TraceScene, NumLights), FIELD(TraceScene, NumEmitters),
    FIELD(TraceScene, Samples), FIELD(TraceScene, MaxDepth), FIELD(TraceScene, Integrator),
    FIELD(TraceScene, Camera), FIELD(TraceScene, Background), FIELD(TraceScene, SeeThrough), FIELD(TraceScene, UV1), FIELD(TraceScene, Colors),
    FIELD(TraceScene, NumUV1), FIELD(TraceScene, NumColors), FIELD(TraceScene, Tangents),
    FIELD(TraceScene, NumTangents),
};

const EmuField* emu_layout(int i) {
    if (i < 0 || i >= (int)(sizeof(layout) / sizeof(layout[0]))) {
        return 0;
    }
    return &layout[i];
}

#define CONST(c) {#c, (long long)(c)}

static const EmuConst consts[] = {
    CONST(IntegratorPath), CONST(IntegratorWhitted),
    CONST(BackgroundColor), CONST(BackgroundGradient), CONST(BackgroundImage),
    CONST(FalloffInverseSquare), CONST(FalloffNone), CONST(FalloffDirectional),
    CONST(MaterialDiffuse), CONST(MaterialMetal), CONST(MaterialDielectric), CONST(MaterialEmissive),
    CONST(MaterialPhong),
    CONST(MaterialPBR),
    CONST(TextureChecker), CONST(TextureImage),
    CONST(ShapeSphere), CONST(ShapeQuad), CONST(ShapePlane),
    CONST(HitNone), CONST(HitTriangle), CONST(HitShape),
    CONST(LeafTriangles), CONST(LeafShapes),
    CONST(TriangleSmooth), CONST(TriangleUV), CONST(TriangleUV1), CONST(TriangleColor),
    CONST(WrapRepeat), CONST(WrapClamp), CONST(WrapMirror), CONST(FilterLinear), CONST(FilterNearest), CONST(TriangleTangent),
    CONST(NoTexture), CONST(MaxDepth), CONST(BVHStackSize),
    CONST(AlphaOpaque), CONST(AlphaMask), CONST(AlphaBlend), CONST(MaxAlphaPasses),
};

const EmuConst* emu_const(int i) {
    if (i < 0 || i >= (int)(sizeof(consts) / sizeof(consts[0]))) {
        return 0;
    }
    return &consts[i];
}

void emu_fmath(int fn, const float* a, const float* b, float* out, int n) {
    for (int i = 0; i < n; i++) {
        float x = a[i], y = b[i], r = 0.0f;
        switch (fn) {
        case 0: r = fm_sqrt(x); break;
        case 1: r = fm_sin(x); break;
        case 2: r = fm_cos(x); break;
        case 3: r = fm_tan(x); break;
        case 4: r = fm_exp(x); break;
        case 5: r = fm_log(x); break;
        case 6: r = fm_pow(x, y); break;
        case 7: r = fm_atan2(x, y); break;
        case 8: r = fm_acos(x); break;
        }
        out[i] = r;
    }
}

void emu_sampler(unsigned long long seed, unsigned int x, unsigned int y, unsigned int s, float* out, int n) {
    Sampler rng = new_sampler(seed, x, y, s);
    for (int i = 0; i + 2 < n; i += 3) {
        out[i] = sampler_float(&rng);
        sampler_float2(&rng, &out[i + 1], &out[i + 2]);
    }
}
