/*
 * scene.h: the compiled scene as the kernel reads it. Every struct has
 * exactly the layout of the Go struct of the same name in package tracer
 * (field names, order, sizes and offsets), so the Go arrays are uploaded
 * as they are. The structs, the kinds and flags (the values of the Go
 * constants of the same names, each enumeration closed by its count
 * sentinel Num<Type>s) and the limits are generated from the Go types
 * into scene_gen.h, with a static assertion per field offset and struct
 * size: a layout that differs from Go's fails the compile. Here is only
 * what is not generated.
 *
 * TraceScene mirrors kernels.TraceScene: the scalars the kernel needs and
 * one device pointer per array (host addresses in the emulator; an empty
 * array's pointer may be null), with the arrays' lengths in elements.
 */
#ifndef TRACE_SCENE_H
#define TRACE_SCENE_H

#include "port.h"

/* vec3 is mgl32.Vec3, [3]float32. */
typedef struct {
    float x, y, z;
} vec3;

/* A member named as its type is fine in C; C++ wants the type qualified. */
#ifdef __cplusplus
#define PORT_GLOBAL_TYPE(T) ::T
#else
#define PORT_GLOBAL_TYPE(T) T
#endif

#include "scene_gen.h"

#endif /* TRACE_SCENE_H */
