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
    vec3 lastP, lastN; /* the last vertex and its geometric normal */
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
    u32 pad;     /* to whole 16-byte words in a slot (PathOnlySlot) */
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

/* SlotHead is the pixel of a wavefront slot, or its part of the pixel's
 * samples (a batch split into parts, trace.cu): its samples' sum
 * (Scene.RenderPixel's loop), its counts and where it is. */
typedef struct {
    vec3 sum; /* the radiance of the pixel's finished samples, in order (unused when split: SampleParts) */
    u32 end;  /* the sample after the slot's last: the scene's samples, or its part's end */
    vec3 sq;  /* the sum of its samples' squares, for adaptive sampling (pixel_converged) */
    u32 pad;
    u64 rays, nonfinite;
    u32 x, y;
    u32 sample; /* the sample in flight; once the slot is dead, the samples it took */
    u32 live;   /* 1 while a sample is in flight */
} SlotHead;
PORT_STATIC_ASSERT(sizeof(SlotHead) == 64, "a slot's head is four 16-byte words");

/* PathSlot is one pixel of a wavefront batch: its head and its path in
 * flight (a PathState or, for Whitted scenes, a WhittedState). A path
 * scene's slot is a PathOnlySlot, the same bytes without the Whitted
 * state (TR_PATH_SLOT_BYTES); only Whitted scenes' slots hold all of
 * PathSlot. */
typedef struct {
    SlotHead h;
    union {
        PathState path;
        WhittedState whitted;
    };
} PathSlot;

/* PathOnlySlot is a path scene's slot: PathSlot's first bytes. */
typedef struct {
    SlotHead h;
    PathState path;
} PathOnlySlot;
PORT_STATIC_ASSERT(__builtin_offsetof(PathState, q) == 0 && __builtin_offsetof(WhittedState, q) == 0,
                   "the query kernels find either integrator's query at the same place");
PORT_STATIC_ASSERT(__builtin_offsetof(PathSlot, path) % 16 == 0, "a slot's query starts 16-byte aligned");
PORT_STATIC_ASSERT(__builtin_offsetof(PathOnlySlot, path) == __builtin_offsetof(PathSlot, path),
                   "a path scene's slot is PathSlot's first bytes");
PORT_STATIC_ASSERT(sizeof(SlotHead) % 16 == 0, "a slot's head is whole 16-byte words");

/* TR_SLOT_BYTES rounds a slot's bytes up to 16, so every slot of an array
 * starts 16-byte aligned. */
#define TR_SLOT_BYTES(n) ((((u64)(n)) + 15u) / 16u * 16u)
/* TR_PATH_SLOT_BYTES and TR_WHITTED_SLOT_BYTES: the bytes of a slot for
 * each integrator (kernels.PathSlotSize, WhittedSlotSize: the host
 * allocates n slots' bytes). */
#define TR_PATH_SLOT_BYTES TR_SLOT_BYTES(sizeof(PathOnlySlot))
#define TR_WHITTED_SLOT_BYTES TR_SLOT_BYTES(sizeof(PathSlot))
PORT_STATIC_ASSERT(TR_PATH_SLOT_BYTES == 480 && sizeof(PathOnlySlot) == 480, "a path scene's slot is kernels.PathSlotSize bytes");
PORT_STATIC_ASSERT(TR_WHITTED_SLOT_BYTES == 3264, "a Whitted scene's slot is kernels.WhittedSlotSize bytes");
/* TR_PATH_SLOT_WORDS: a path scene's slot in 16-byte words; TR_HEAD_WORDS
 * its head; TR_QUERY_WORD the word its query (either integrator's)
 * starts at. */
#define TR_PATH_SLOT_WORDS (TR_PATH_SLOT_BYTES / 16u)
#define TR_HEAD_WORDS ((u32)(sizeof(SlotHead) / 16u))
#define TR_QUERY_WORD ((u32)(__builtin_offsetof(PathSlot, path) / 16u))

/* slot_bytes: the bytes of one of scene s's slots. */
DEVFN u64 slot_bytes(const TraceScene* s) {
    return s->Integrator == IntegratorWhitted ? TR_WHITTED_SLOT_BYTES : TR_PATH_SLOT_BYTES;
}

/* SlotArray is a batch's n slots as the wavefront entries address them,
 * by 16-byte word: word k of slot i at base + i·step + k·stride. A path
 * scene's slots lie word by word (step 16, stride 16 n: word 0 of every
 * slot, then word 1, ...), so that the lanes of a warp on consecutive
 * slots read or write a word in one run of 512 bytes, where slots 448
 * bytes apart took 32 separate pieces (on an H200, wf_shade's global
 * sectors were twice what it used); wf_shade works on a copy of the slot
 * (wave_shade). A Whitted scene's slots lie whole (step
 * TR_WHITTED_SLOT_BYTES, stride 16), and are shaded in place: their branch
 * stack is 3 KB. */
typedef struct {
    char* base;
    u64 step;
    u32 stride;
} SlotArray;

/* slot_array: the n slots at slots of a batch of scene s. */
DEVFN SlotArray slot_array(const TraceScene* s, void* slots, u32 n) {
    SlotArray a;
    a.base = (char*)slots;
    if (s->Integrator == IntegratorWhitted) {
        a.step = TR_WHITTED_SLOT_BYTES;
        a.stride = 16;
    } else {
        a.step = 16;
        a.stride = 16u * n; /* n ≤ kernels.MaxBatchPixels: 64 MiB */
    }
    return a;
}

/* SlotRef is slot i of a SlotArray: its word 0 and the stride between its
 * words (two values a thread keeps, where the array and the index are
 * four). */
typedef struct {
    char* w0;
    u32 stride;
} SlotRef;

/* slot_ref: slot i of a. */
DEVFN SlotRef slot_ref(SlotArray a, u32 i) {
    SlotRef r;
    r.w0 = a.base + (u64)i * a.step;
    r.stride = a.stride;
    return r;
}

/* slot_word: word k of slot r. */
DEVFN char* slot_word(SlotRef r, u32 k) { return r.w0 + (u64)k * r.stride; }

/* slot_byte: byte off of slot r, for a field that does not cross a word. */
DEVFN char* slot_byte(SlotRef r, u32 off) { return slot_word(r, off / 16u) + off % 16u; }

/* slot_whole: a Whitted scene's slot, whose words lie together. */
DEVFN PathSlot* slot_whole(SlotRef r) { return (PathSlot*)r.w0; }

/* slot_load copies words [first, first + n) of slot r into dst;
 * slot_store copies src's first n words back to them. */
DEVFN void slot_load(SlotRef r, u32 first, u32 n, void* dst) { port_gather16(dst, slot_word(r, first), r.stride, n); }
DEVFN void slot_store(SlotRef r, u32 first, u32 n, const void* src) {
    port_scatter16(slot_word(r, first), r.stride, src, n);
}

/* TR_QUERY_WORDS: the words of a slot's query that hold its ray and
 * kind; TR_HIT_BYTE and TR_OCCLUDED_BYTE: where its answers lie in the
 * slot. */
#define TR_QUERY_WORDS ((u32)((__builtin_offsetof(RayQuery, kind) + 4u + 15u) / 16u))
#define TR_HIT_BYTE (16u * TR_QUERY_WORD + (u32)__builtin_offsetof(RayQuery, hit))
#define TR_OCCLUDED_BYTE (16u * TR_QUERY_WORD + (u32)__builtin_offsetof(RayQuery, occluded))
PORT_STATIC_ASSERT(TR_OCCLUDED_BYTE % 4 == 0 && TR_OCCLUDED_BYTE % 16 <= 12, "the any-hit answer lies in one word");
PORT_STATIC_ASSERT(TR_HIT_BYTE % 4 == 0 && sizeof(Hit) % 4 == 0 && (TR_HIT_BYTE + sizeof(Hit) - 1) / 16 == TR_HIT_BYTE / 16 + 1,
                   "the nearest-hit answer lies in two words, 4-byte aligned");

/* slot_query: slot r's query, its ray and kind (not its answer). */
DEVFN void slot_query(SlotRef r, Ray* ray, u32* kind) {
    u32 w[4 * TR_QUERY_WORDS] __attribute__((aligned(16)));
    slot_load(r, TR_QUERY_WORD, TR_QUERY_WORDS, w);
    __builtin_memcpy(ray, (const char*)w + __builtin_offsetof(RayQuery, ray), sizeof *ray);
    __builtin_memcpy(kind, (const char*)w + __builtin_offsetof(RayQuery, kind), sizeof *kind);
}

/* slot_answer_hit: h into the RayQuery of slot r, whose answer lies in
 * words at and after at (slot_byte(r, TR_HIT_BYTE)), stride apart; 4
 * bytes at a time. */
DEVFN void slot_answer_hit(char* at, u32 stride, Hit h) {
    const u32 first = 16u - TR_HIT_BYTE % 16u; /* the bytes in the first word */
    __builtin_memcpy(__builtin_assume_aligned(at, 4), &h, first);
    __builtin_memcpy(__builtin_assume_aligned(at + stride - TR_HIT_BYTE % 16u, 16), (const char*)&h + first, sizeof h - first);
}

/* slot_answer_occluded: the any-hit answer into the 4 bytes at
 * (slot_byte(r, TR_OCCLUDED_BYTE)). */
DEVFN void slot_answer_occluded(char* at, u32 occluded) { __builtin_memcpy(__builtin_assume_aligned(at, 4), &occluded, 4); }

#endif /* TRACE_PATHSTATE_H */
