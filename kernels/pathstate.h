/*
 * pathstate.h: the state of a sample in flight, for the resumable
 * integrators (path.h, whitted.h) and the wavefront entries (trace.cu).
 * Device-only structs, with no Go twin except their sizes
 * (kernels.PathSlotSize).
 *
 * The path integrator runs as a state machine over a PathState: path_step
 * runs it until it needs a ray-scene query, stores the query in the
 * state's RayQuery and returns; the next call, with the answer filled in,
 * resumes where it stopped. The megakernel answers each query at once
 * (render_pixels_path, trace.cu); the wavefront entries answer a whole batch's queries in
 * kernels of their own (wf_intersect, wf_occluded). Either way the same C
 * performs the same float operations in the same order, so both give the
 * Go tracer's bits. The Whitted integrator runs the same way over a
 * WhittedState (whitted_step, whitted.h), in the same slot.
 */
#ifndef TRACE_PATHSTATE_H
#define TRACE_PATHSTATE_H

#include "surface.h"

/* The kinds of query. */
#define QueryNone 0u
#define QueryClosest 1u /* the nearest hit: scene_intersect */
#define QueryAny 2u     /* any hit: scene_occluded */

/* RayQuery is a ray-scene query and its answer. */
typedef struct {
    Ray ray;
    u32 kind;     /* QueryNone, QueryClosest or QueryAny */
    u32 occluded; /* the answer of a QueryAny */
    Hit hit;      /* the answer of a QueryClosest */
} RayQuery;

/* SeenState is Scene.intersectSeen or Scene.occludedSeen (alpha.h) in flight: the
 * loops that pass rays through the surfaces that are not there. */
typedef struct {
    Ray r;
    vec3 end;      /* occludedSeen: the shadow ray's end */
    u32 stream;    /* the alpha stream */
    u32 pass;      /* the pass number */
    u32 fromLight; /* occludedSeen's fromLight */
    u32 phase;     /* TR_SEEN_* */
} SeenState;

/* PathState is Scene.tracePath (path.h) in flight, with direct_light (light.h)
 * inside it. */
typedef struct {
    RayQuery q;
    SeenState seen;
    Ray r; /* the path's ray */
    vec3 radiance, beta;
    float lastPdf;
    vec3 lastP;
    Hit lastAt;
    Hit h;         /* the hit being shaded */
    SurfaceHit sf; /* its surface */
    vec3 c;        /* its material colour */
    Sampler rng;
    i32 depth;
    u32 stage;   /* TR_PATH_* */
    u32 dlStage; /* direct_light's TR_DIRECT_* */
    u32 light;   /* direct_light's light index */
    u32 dlBase;  /* direct_light's base dimension */
    vec3 sum;    /* direct_light's sum so far */
    vec3 fcos;   /* the pending shadow ray's terms: sum = maddv(sum, fcos, */
    vec3 li;     /* li) for a light, vadd(sum, li) for the others */
} PathState;

/* WhittedBranch is tracer's whittedBranch: a ray waiting to be traced with
 * the weight its radiance adds with. */
typedef struct {
    Ray ray;
    vec3 weight;
    i32 depth;
} WhittedBranch;

/* WhittedState is Scene.traceWhitted (whitted.h) in flight, with phong_local's
 * light loop inside it. Its RayQuery comes first, as PathState's does, so
 * that the query kernels read either as slot->path.q. */
typedef struct {
    RayQuery q;
    SeenState seen;
    vec3 radiance;
    WhittedBranch b; /* the branch being traced */
    SurfaceHit sf;   /* its hit's surface */
    Sampler rng;     /* the sample's sampler, for the alpha tests */
    i32 sp;          /* the branches on the stack */
    u32 stage;       /* TR_WHITTED_* */
    vec3 c;          /* phong_local: the hit's colour */
    vec3 local;      /* its sum so far */
    u32 light;       /* the light in its loop */
    vec3 dir;        /* the pending shadow ray's unit direction, */
    float dist;      /* distance to the light, */
    float spot;      /* spot factor */
    float ndotl;     /* and N·L */
    WhittedBranch stack[MaxDepth + 1];
} WhittedState;

/* PathSlot is one pixel of a wavefront batch: its samples' sum
 * (Scene.RenderPixel's loop) and its path in flight (a PathState or, for
 * Whitted scenes, a WhittedState). The slots of a batch lie slot_bytes(s)
 * apart: a path scene's slot ends after its PathState, so that it does not
 * pay for the Whitted branch stack; only Whitted scenes' slots hold all
 * of PathSlot. So a slot is never copied whole. */
typedef struct {
    vec3 sum; /* the radiance of the pixel's finished samples, in order */
    u64 rays, nonfinite;
    u32 x, y;
    u32 sample; /* the sample in flight */
    u32 live;   /* 1 while a sample is in flight */
    union {
        PathState path;
        WhittedState whitted;
    };
} PathSlot;
PORT_STATIC_ASSERT(__builtin_offsetof(PathState, q) == 0 && __builtin_offsetof(WhittedState, q) == 0,
                   "the query kernels find either integrator's query at the same place");
PORT_STATIC_ASSERT(__builtin_offsetof(PathSlot, path) % 16 == 0, "a slot's query starts 16-byte aligned");

/* TR_SLOT_BYTES rounds a slot's bytes up to 16, so every slot of an array
 * starts 16-byte aligned. */
#define TR_SLOT_BYTES(n) ((((u64)(n)) + 15u) / 16u * 16u)
/* TR_PATH_SLOT_BYTES and TR_WHITTED_SLOT_BYTES: the distance between two
 * slots for each integrator (kernels.PathSlotSize, WhittedSlotSize: the
 * host allocates the slots). */
#define TR_PATH_SLOT_BYTES TR_SLOT_BYTES(__builtin_offsetof(PathSlot, path) + sizeof(PathState))
#define TR_WHITTED_SLOT_BYTES TR_SLOT_BYTES(sizeof(PathSlot))
PORT_STATIC_ASSERT(TR_PATH_SLOT_BYTES == 448, "a path scene's slot is kernels.PathSlotSize bytes");
PORT_STATIC_ASSERT(TR_WHITTED_SLOT_BYTES == 3248, "a Whitted scene's slot is kernels.WhittedSlotSize bytes");

/* slot_bytes: the distance between two slots of scene s's batches. */
DEVFN u64 slot_bytes(const TraceScene* s) {
    return s->Integrator == IntegratorWhitted ? TR_WHITTED_SLOT_BYTES : TR_PATH_SLOT_BYTES;
}

/* slot_at: slot i of a batch of scene s. */
DEVFN PathSlot* slot_at(const TraceScene* s, PathSlot* slots, u32 i) {
    return (PathSlot*)((char*)slots + (u64)i * slot_bytes(s));
}

#endif /* TRACE_PATHSTATE_H */
