/*
 * scene.h: the compiled scene as the kernel reads it. Every struct here has
 * exactly the layout of the Go struct of the same name in package tracer
 * (field names, order, sizes and offsets), so the Go arrays are uploaded
 * as they are; TestLayout in kernels/emulator compares them field by field.
 * TraceScene mirrors kernels.TraceScene: the scalars the kernel needs and
 * one device pointer per array.
 */
#ifndef TRACE_SCENE_H
#define TRACE_SCENE_H

#include "port.h"

/* vec3 is mgl32.Vec3, [3]float32. */
typedef struct {
    float x, y, z;
} vec3;

/* Enumerations: the values of the Go constants of the same names. */
enum {
    IntegratorPath = 0,
    IntegratorWhitted = 1,

    BackgroundColor = 0,
    BackgroundGradient = 1,
    BackgroundImage = 2,

    FalloffInverseSquare = 0,
    FalloffNone = 1,
    FalloffDirectional = 2,

    MaterialDiffuse = 0,
    MaterialMetal = 1,
    MaterialDielectric = 2,
    MaterialEmissive = 3,
    MaterialPhong = 4,
    MaterialPBR = 5,

    TextureChecker = 0,
    TextureImage = 1,

    ShapeSphere = 0,
    ShapeQuad = 1,
    ShapePlane = 2,

    HitNone = 0,
    HitTriangle = 1,
    HitShape = 2,

    LeafTriangles = 0,
    LeafShapes = 1,

    TriangleSmooth = 1,
    TriangleUV = 2,
    TriangleUV1 = 4,
    TriangleColor = 8,
    TriangleTangent = 16,

    WrapRepeat = 0,
    WrapClamp = 1,
    WrapMirror = 2,

    FilterLinear = 0,
    FilterNearest = 1,

    NoTexture = -1,

    AlphaOpaque = 0,
    AlphaMask = 1,
    AlphaBlend = 2,
    /* tracer.MaxAlphaPasses: the surfaces one ray passes through. */
    MaxAlphaPasses = 16,

    /* tracer.MaxDepth: the deepest path; the Whitted stack has one more
     * slot. */
    MaxDepth = 64,
    /* The BVH traversal stack (tracer's bvhStackSize). */
    BVHStackSize = 64
};

/* tracer.BVHNode, 32 bytes. */
typedef struct {
    vec3 Min;
    u32 Index;
    vec3 Max;
    u16 Count;
    u16 Info;
} BVHNode;

/* tracer.Triangle, 36 bytes. */
typedef struct {
    vec3 P0;
    vec3 E1;
    vec3 E2;
} Triangle;

/* tracer.TriangleAttr, 20 bytes. */
typedef struct {
    u32 V[3];
    u32 Material;
    u32 Flags;
} TriangleAttr;

/* tracer.Vertex, 20 bytes. */
typedef struct {
    vec3 N;
    float UV[2];
} Vertex;

/* tracer.Tangent, 16 bytes. */
typedef struct {
    vec3 T;
    float W;
} Tangent;

/* tracer.Shape, 72 bytes. */
typedef struct {
    u32 Kind;
    u32 Material;
    float Area;
    vec3 P0;
    vec3 P1;
    vec3 P2;
    vec3 N;
    vec3 W;
} Shape;

/* tracer.Material, 108 bytes. */
typedef struct {
    u32 Kind;
    i32 Texture;
    vec3 Color;
    float Intensity;
    float IOR;
    float Roughness;
    float Metallic;
    vec3 Emission;
    u32 RoughMap, EmissionMap;
    float Ambient, Diffuse, Specular, Shininess, Reflection;
    float LightPDF;
    u32 AlphaMode;
    float Alpha;
    float AlphaCutoff;
    u32 AlphaMap;
    u32 SingleSided;
    u32 NormalMap;
    float NormalScale;
} Material;

/* tracer.Texture, 92 bytes. */
typedef struct {
    u32 Kind;
    float Scale;
    vec3 Even;
    vec3 Odd;
    i32 Image;
    u32 Width, Height;
    u32 Offset;
    float UV[6];
    u32 AlphaOffset;
    u32 WrapS, WrapT;
    u32 Filter;
    u32 TexCoord;
} Texture;

/* tracer.PointLight, 56 bytes. A zero SpotDir is an omnidirectional
 * point light; else a spot light's cone (SpotScale, SpotOffset). With
 * Falloff FalloffDirectional, a directional light: Position is the unit
 * direction toward it, and DiskOneMinusCos, when above 0, 1 − cos of its
 * sun disk's angular radius. */
typedef struct {
    vec3 Position;
    vec3 Color;
    float Intensity;
    u32 Falloff;
    vec3 SpotDir;
    float SpotScale;
    float SpotOffset;
    float DiskOneMinusCos;
} PointLight;

/* tracer.Emitter, 12 bytes. */
typedef struct {
    u32 Kind;
    u32 Index;
    float CDF;
} Emitter;

/* tracer.Camera, 80 bytes. */
typedef struct {
    vec3 Eye;
    vec3 Right;
    vec3 Up;
    vec3 Forward;
    u32 Width;
    u32 Height;
    float PlaneW;
    float PlaneH;
    float ShiftX;
    float ShiftY;
    float LensR;
    float FocusDst;
} Camera;

/* tracer.Background, 48 bytes. */
typedef struct {
    u32 Kind;
    vec3 Color;
    vec3 Bottom;
    vec3 Top;
    i32 Texture;
    u32 Distribution;
} Background;

/* A member named as its type is fine in C; C++ wants the type qualified. */
#ifdef __cplusplus
#define PORT_GLOBAL_TYPE(T) ::T
#else
#define PORT_GLOBAL_TYPE(T) T
#endif

/* TraceScene is kernels.TraceScene: what the kernel knows of the scene.
 * The pointers are device addresses (host addresses in the emulator); an
 * empty array's pointer may be null. Num* are the arrays' lengths in
 * elements; Samples, MaxDepth, Integrator and Seed are tracer.Settings'. */
typedef struct {
    const BVHNode* Nodes;
    const Triangle* Triangles;
    const TriangleAttr* TriangleAttrs;
    const Vertex* Vertices;
    const Shape* Shapes;
    const Material* Materials;
    const Texture* Textures;
    const float* Texels;
    const PointLight* Lights;
    const Emitter* Emitters;
    u64 Seed;
    u32 NumNodes;
    u32 NumTriangles;
    u32 NumVertices;
    u32 NumShapes;
    u32 FirstPlane;
    u32 NumMaterials;
    u32 NumTextures;
    u32 NumTexels;
    u32 NumLights;
    u32 NumEmitters;
    u32 Samples;
    u32 MaxDepth;
    u32 Integrator;
    PORT_GLOBAL_TYPE(Camera) Camera;
    PORT_GLOBAL_TYPE(Background) Background;
    u32 SeeThrough; /* tracer.Scene.SeeThrough */
    /* tracer.Scene's UV1 (two floats per vertex) and Colors. */
    const float* UV1;
    const vec3* Colors;
    u32 NumUV1;
    u32 NumColors;
    const PORT_GLOBAL_TYPE(Tangent) * Tangents;
    u32 NumTangents;
} TraceScene;

PORT_STATIC_ASSERT(sizeof(BVHNode) == 32, "BVHNode is 32 bytes");
PORT_STATIC_ASSERT(sizeof(Triangle) == 36, "Triangle is 36 bytes");
PORT_STATIC_ASSERT(sizeof(TriangleAttr) == 20, "TriangleAttr is 20 bytes");
PORT_STATIC_ASSERT(sizeof(Shape) == 72, "Shape is 72 bytes");
PORT_STATIC_ASSERT(sizeof(Texture) == 92, "Texture is 92 bytes");
PORT_STATIC_ASSERT(sizeof(Tangent) == 16, "Tangent is 16 bytes");
PORT_STATIC_ASSERT(sizeof(Material) == 108, "Material is 108 bytes");

#endif /* TRACE_SCENE_H */
