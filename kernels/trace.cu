/*
 * trace.cu: the tracer's kernel, the same ray path as package tracer, in
 * the C that is also CUDA C++ (port.h says which subset). The headers it
 * includes port the Go files one for one: vec.h (vec.go, mathutil.go,
 * ray.go, rng.go), fmath.h (tracer/fmath), camera.h, shape.h (shape.go,
 * triangle.go, sample.go's sphere cone), intersect.h, texture.h, surface.h
 * (surface.go, material.go, bsdf.go, sample.go), environment.h, light.h,
 * path.h and whitted.h; this file holds
 * RenderPixel and the kernel entries. Any change to the Go ray path must be
 * made here too, operation for operation: the emulator's tests
 * (kernels/emulator) compare every pixel bit for bit.
 *
 * ABI
 *
 *   extern "C" __global__ void trace_pixels(
 *       const TraceScene* scene,       // device memory: the scene header
 *       const unsigned int* pixels,    // 2·npixels: x0, y0, x1, y1, ...
 *       unsigned int npixels,
 *       float* out,                    // 3·npixels: linear RGB radiance
 *       unsigned long long* rays,      // npixels: ray-scene queries
 *       unsigned long long* nonfinite) // npixels: samples replaced by black
 *
 * and two entries of the same ABI with the integrator fixed:
 * trace_pixels_path renders scene->Integrator == IntegratorPath scenes,
 * trace_pixels_whitted IntegratorWhitted ones. Each is the same C as
 * trace_pixels with the integrator a constant (render_pixel), so they give
 * trace_pixels' bits; but each holds one integrator's code, registers and
 * stack only (the Whitted branch stack is not in the path entry's frame).
 * With TRACE_GPU_KERNEL=megakernel the cuda build launches the one for
 * the uploaded scene's integrator (by default it runs the wavefront,
 * below); the emulator's megakernel is trace_pixels.
 *
 * One thread per pixel, a 1-D grid of 1-D blocks of any size: thread
 * i = blockIdx.x·blockDim.x + threadIdx.x renders pixel (pixels[2i],
 * pixels[2i+1]) as tracer.Scene.RenderPixel does (the mean of
 * scene->Samples samples) and writes out[3i..3i+2], rays[i] and
 * nonfinite[i]; threads with i ≥ npixels return at once. No shared memory,
 * no atomics, no synchronisation: pixels are independent, so any grid and
 * any split of a batch across launches or devices gives the same bits.
 * scene (kernels.TraceScene, scene.h) and every array it points to live in
 * device memory and are only read. The per-thread stack needs about 4 KB
 * (the Whitted state with its branch stack, MaxDepth+1 entries, and the
 * BVH stack).
 *
 * The wavefront entries render a batch of pixels of a scene of either
 * integrator with the same bits, in rounds of small launches
 * (kernels.RunWavefront drives them; wavefront.h, pathstate.h):
 *
 *   extern "C" __global__ void wf_init, wf_shade, wf_intersect,
 *       wf_occluded, wf_finish(
 *       const TraceScene* scene,
 *       const unsigned int* pixels,    // 2·n: x0, y0, x1, y1, ...
 *       unsigned int n,                // slots, one per pixel
 *       PathSlot* slots,               // n: device memory, slot_bytes(scene) apart (448 B, Whitted 3248 B)
 *       unsigned int* flags,           // 1: QueryClosest | QueryAny
 *       float* out,                    // 3·n, as trace_pixels'
 *       unsigned long long* rays,      // n
 *       unsigned long long* nonfinite) // n
 *
 * each with thread i on slot i (i ≥ n return at once), any 1-D grid:
 *   wf_init       slot i takes pixel i (pixels[2i], pixels[2i+1]) and
 *                 starts its sample 0 (the camera ray);
 *   wf_shade      every live slot runs its sample on the scene's
 *                 integrator (scene->Integrator: path_step over the
 *                 slot's PathState, whitted_step over its WhittedState,
 *                 a union, each with its RayQuery first) to its next
 *                 ray-scene query and ORs the query's kind into *flags;
 *                 a path that ends adds its radiance to the pixel's sum
 *                 (non-finite: black, counted) and the slot starts the
 *                 pixel's next sample at once, so samples are summed in
 *                 index order, as render_pixel sums them; after the last
 *                 the slot is dead;
 *   wf_intersect  answers the slots' nearest-hit queries (scene_intersect);
 *   wf_occluded   answers their any-hit queries (scene_occluded): these
 *                 two only trace rays (launch bounds: blocks of at most
 *                 128 threads, 64 registers), alpha pass-through is
 *                 wf_shade's, which asks again;
 *   wf_finish     writes out[3i..3i+2], rays[i] and nonfinite[i] as
 *                 trace_pixels does.
 * The host runs wf_init, then wf_shade and the query kernels its flags
 * ask for, clearing *flags before each wf_shade, until a wf_shade sets
 * none, then wf_finish. *flags is the kernel's one atomic; no pixel
 * depends on it or on the order in which slots run. A batch may be split
 * into lanes, each with its own pixels, slots, flags word and outputs, on
 * streams of their own whose launches interleave (kernels.RunWavefronts):
 * the lanes share only the scene, which every entry only reads.
 */
#include "port.h"
#include "camera.h"
#include "path.h"
#include "whitted.h"
#include "wavefront.h"

/* render_pixel: Scene.RenderPixel, the mean radiance of pixel (x, y) with
 * the integrator given (s->Integrator, or a constant in the entries that
 * fix it); adds its ray-scene queries to *rays and its non-finite samples
 * to *nonfinite. */
DEVFN vec3 render_pixel(const TraceScene* s, u32 x, u32 y, u64* rays, u64* nonfinite, u32 integrator) {
    int n = (int)s->Samples;
    vec3 sum = v3(0.0f, 0.0f, 0.0f);
    for (int i = 0; i < n; i++) {
        Sampler rng;
        Ray r = pixel_ray(s, x, y, (u32)i, n, &rng);
        vec3 c;
        if (integrator == IntegratorWhitted) {
            c = trace_whitted(s, r, &rng, rays);
        } else {
            c = trace_path(s, r, &rng, rays);
        }
        sum = add_sample(sum, c, nonfinite);
    }
    return pixel_mean(sum, n);
}

/* trace_thread: the work of one thread of any of the entries. */
DEVFN void trace_thread(const TraceScene* scene, const unsigned int* pixels, unsigned int npixels, float* out,
                        unsigned long long* rays, unsigned long long* nonfinite, u32 integrator) {
    u32 i = PORT_BLOCK_IDX() * PORT_BLOCK_DIM() + PORT_THREAD_IDX();
    if (i >= npixels) {
        return;
    }
    u64 nrays = 0, nnonfinite = 0;
    vec3 c = render_pixel(scene, pixels[2 * (u64)i], pixels[2 * (u64)i + 1], &nrays, &nnonfinite, integrator);
    out[3 * (u64)i] = c.x;
    out[3 * (u64)i + 1] = c.y;
    out[3 * (u64)i + 2] = c.z;
    rays[i] = nrays;
    nonfinite[i] = nnonfinite;
}

PORT_EXTERN_C __global__ void trace_pixels(const TraceScene* scene, const unsigned int* pixels, unsigned int npixels,
                                           float* out, unsigned long long* rays, unsigned long long* nonfinite) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, scene->Integrator);
}

PORT_EXTERN_C __global__ void trace_pixels_path(const TraceScene* scene, const unsigned int* pixels,
                                                unsigned int npixels, float* out, unsigned long long* rays,
                                                unsigned long long* nonfinite) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, IntegratorPath);
}

PORT_EXTERN_C __global__ void trace_pixels_whitted(const TraceScene* scene, const unsigned int* pixels,
                                                   unsigned int npixels, float* out, unsigned long long* rays,
                                                   unsigned long long* nonfinite) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, IntegratorWhitted);
}

/* The wavefront entries (scenes of either integrator): the same ABI for
 * all five, the arguments an entry does not use ignored. Thread i works on
 * slot i of n. */
#define WAVE_ARGS                                                                                                 \
    const TraceScene *scene, const unsigned int *pixels, unsigned int n, PathSlot *slots, unsigned int *flags,   \
        float *out, unsigned long long *rays, unsigned long long *nonfinite
#define WAVE_SLOT()                                                                                               \
    u32 i = PORT_BLOCK_IDX() * PORT_BLOCK_DIM() + PORT_THREAD_IDX();                                               \
    if (i >= n) {                                                                                                 \
        return;                                                                                                   \
    }                                                                                                             \
    PathSlot* slot = slot_at(scene, slots, i)

PORT_EXTERN_C __global__ void wf_init(WAVE_ARGS) {
    WAVE_SLOT();
    wave_init(scene, slot, pixels[2 * (u64)i], pixels[2 * (u64)i + 1]);
}

PORT_EXTERN_C __global__ void wf_shade(WAVE_ARGS) {
    WAVE_SLOT();
    wave_shade(scene, slot, flags);
}

PORT_EXTERN_C __global__ WAVE_QUERY_BOUNDS void wf_intersect(WAVE_ARGS) {
    WAVE_SLOT();
    RayQuery* q = &slot->path.q;
    if (q->kind == QueryClosest) {
        q->hit = scene_intersect(scene, q->ray);
    }
}

PORT_EXTERN_C __global__ WAVE_QUERY_BOUNDS void wf_occluded(WAVE_ARGS) {
    WAVE_SLOT();
    RayQuery* q = &slot->path.q;
    if (q->kind == QueryAny) {
        q->occluded = (u32)scene_occluded(scene, q->ray);
    }
}

PORT_EXTERN_C __global__ void wf_finish(WAVE_ARGS) {
    WAVE_SLOT();
    vec3 c = pixel_mean(slot->sum, (int)scene->Samples);
    out[3 * (u64)i] = c.x;
    out[3 * (u64)i + 1] = c.y;
    out[3 * (u64)i + 2] = c.z;
    rays[i] = slot->rays;
    nonfinite[i] = slot->nonfinite;
}
