/*
 * trace.cu: the tracer's kernel, the same ray path as package tracer, in
 * the C that is also CUDA C++ (port.h says which subset). The headers it
 * includes port the Go files one for one: vec.h (vec.go, mathutil.go,
 * ray.go, rng.go), fmath.h (tracer/fmath), camera.h, shape.h (shape.go,
 * triangle.go, sample.go's sphere cone), intersect.h, texture.h, surface.h
 * (surface.go, material.go, bsdf.go, sample.go), environment.h, light.h,
 * absorption.h, path.h and whitted.h; this file holds
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
 *       unsigned long long* nonfinite, // npixels: samples replaced by black (adaptive
 *                                      // sampling: the samples taken in the high 32 bits)
 *       unsigned int* next,            // the next item to take: the threads launched
 *       unsigned int parts)            // 1 (or 0): an item a pixel; more: the batch split
 *
 * and, after a split batch (parts > 1, below), trace_reduce with the
 * same arguments over npixels threads.
 *
 * and two entries of the same ABI with the integrator fixed:
 * trace_pixels_path renders scene->Integrator == IntegratorPath scenes,
 * trace_pixels_whitted IntegratorWhitted ones. Each is the same C as
 * trace_pixels with the integrator a constant (trace_thread), so they give
 * trace_pixels' bits; but each holds one integrator's code, registers and
 * stack only (the Whitted branch stack is not in the path entry's frame).
 * With TRACE_GPU_KERNEL=megakernel the cuda build launches the one for
 * the uploaded scene's integrator (by default it runs the wavefront,
 * below); the emulator's megakernel is trace_pixels.
 *
 * A 1-D grid of 1-D blocks of any size, of up to npixels threads: thread
 * i = blockIdx.x·blockDim.x + threadIdx.x renders pixel i, (pixels[2i],
 * pixels[2i+1]), as tracer.Scene.RenderPixel does (the mean of
 * scene->Samples samples, or under adaptive sampling of those the pixel
 * took: wavefront.h, pixel_stops) and writes out[3i..3i+2], rays[i] and
 * nonfinite[i]; then, at once, the pixel *next hands out (an atomic add),
 * until it is past the batch (pixel regeneration: a lane whose pixel is
 * done does not wait for its warp's). The host sets *next to the threads
 * it launches, fewer than npixels (a wave of the device) or as many;
 * threads with i ≥ npixels return at once. A batch too small to fill
 * the device may come split into parts (kernels.SampleParts, wavefront.h):
 * then the threads work through npixels · parts items, item c · npixels +
 * p rendering part c of pixel p's samples, out holds 3 · Samples ·
 * npixels floats (each sample's value, put_sample), rays and nonfinite
 * npixels · parts counts (an item's), and trace_reduce sums each pixel
 * in sample order into out[3p..3p+2], rays[p] and nonfinite[p]: the
 * bits of the batch unsplit. No shared memory, no other
 * atomics, no synchronisation: pixels are independent, and each is
 * rendered by one thread, so any grid, any order and any split of a batch
 * across launches or devices gives the same bits.
 * scene (kernels.TraceScene, scene.h) and every array it points to live in
 * device memory and are only read, but for scene->Stop, which the host may
 * set during a launch to cancel it: each thread reads it before each
 * sample and, when set, ends with its pixel unfinished (stop_asked); the
 * host then drops the batch. The per-thread stack needs about 4 KB
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
 *       PathSlot* slots,               // n · slot_bytes(scene) bytes of device memory (464, Whitted 3264): a path
 *                                      // scene's word by word, a Whitted scene's whole (pathstate.h, SlotArray)
 *       unsigned int* qin,             // 2 + n: the queue the entry works through
 *       unsigned int* qout,            // 2 + n: the queue wf_init and wf_shade fill
 *       float* out,                    // 3·n, as trace_pixels'
 *       unsigned long long* rays,      // n
 *       unsigned long long* nonfinite, // n
 *       unsigned int parts)            // as trace_pixels': n = npixels · parts slots, one an item
 *
 * any 1-D grid (threads past the work return at once). A queue
 * (wavefront.h) counts the slots asking a nearest-hit query and those
 * asking an any-hit query (words 0 and 1) and lists them (the first from
 * word 2 up, the second from word n+1 down):
 *   wf_init       thread i: slot i takes pixel i (pixels[2i], pixels[2i+1])
 *                 and starts its sample 0 (the camera ray); qout lists
 *                 every slot (to shade), counted in word 0;
 *   wf_shade      a thread per slot qin lists (both kinds), or while at
 *                 least half the slots are queued, a thread per slot
 *                 (wave_shade_all; a dead slot's returns): the slot runs
 *                 its sample on the scene's integrator (scene->Integrator:
 *                 path_step over the slot's PathState, whitted_step over
 *                 its WhittedState, a union, each with its RayQuery first)
 *                 to its next ray-scene query and queues itself in qout by
 *                 the query's kind (qout's counts must be 0 before); a path
 *                 that ends adds its radiance to the pixel's sum
 *                 (non-finite: black, counted) and the slot starts the
 *                 pixel's next sample at once, so samples are summed in
 *                 index order, as render_pixels_path sums them; after the last
 *                 the slot is dead and queues nothing;
 *   wf_intersect  a thread per nearest-hit query qin lists: answers it
 *                 (scene_intersect);
 *   wf_occluded   a thread per any-hit query qin lists: answers it
 *                 (scene_occluded). These two only trace rays (launch
 *                 bounds: blocks of at most 128 threads, 56 and 40
 *                 registers),
 *                 alpha pass-through is wf_shade's, which asks again;
 *   wf_finish     thread i writes out[3i..3i+2], rays[i] and nonfinite[i]
 *                 as trace_pixels does (split: thread p of the n / parts
 *                 pixels sums the pixel's sample values and its parts'
 *                 counts from their slots' heads, as trace_reduce does).
 * The host runs wf_init, then rounds: wf_shade over the queue the last
 * wf_init or wf_shade filled (or all n slots: kernels.ShadeThreads, the
 * same rule as wave_shade_all), into the other queue with its counts
 * cleared; it reads the counts and launches wf_intersect and wf_occluded
 * over that queue for the kinds asked, until a round asks none, then
 * wf_finish. No pixel depends on the queues' order or on the order in
 * which slots run. A batch may be split into lanes, each with its own
 * pixels, slots, queues and outputs, on streams of their own whose
 * launches interleave (kernels.RunWavefronts):
 * the lanes share only the scene, which every entry only reads.
 */
#include "port.h"
#include "camera.h"
#include "path.h"
#include "whitted.h"
#include "wavefront.h"

/* stop_asked: whether the host has set the header's Stop word to cancel
 * the launch (kernels.TraceScene.Stop). A volatile read: the word changes
 * while the kernel runs, from a copy on another stream, and each read
 * must reach memory. Checked at each sample's start, so that a cancelled
 * launch ends within a sample of every running thread, and the threads
 * that start after it at once. The pixel is then unfinished; the host
 * drops the batch. */
DEVFN int stop_asked(const TraceScene* s) { return *(const volatile u32*)&s->Stop != 0u; }

/* put_pixel writes pixel i's mean radiance c and its counts. */
DEVFN void put_pixel(float* out, unsigned long long* rays, unsigned long long* nonfinite, u32 i, vec3 c, u64 nrays,
                     u64 nbad) {
    out[3 * (u64)i] = c.x;
    out[3 * (u64)i + 1] = c.y;
    out[3 * (u64)i + 2] = c.z;
    rays[i] = nrays;
    nonfinite[i] = nbad;
}

/* put_empty writes pixel i and the rest of the batch's that *next hands
 * this thread when the scene has no samples: the mean of none. */
DEVFN void put_empty(const TraceScene* s, u32 i, unsigned int npixels, float* out, unsigned long long* rays,
                     unsigned long long* nonfinite, unsigned int* next) {
    for (; i < npixels; i = wave_reserve(next)) {
        put_pixel(out, rays, nonfinite, i, pixel_mean(v3(0.0f, 0.0f, 0.0f), (int)s->Samples), 0, 0);
    }
}

/* PixelRun is a megakernel thread's pixel in flight, or its part of
 * the pixel's samples in a batch split into parts (wavefront.h): the
 * item's index in the batch, its pixel's, the pixel's coordinates, the
 * sample in flight (once the item is done, the samples it took) and the
 * item's end, its samples' sum so far (unsplit) and their squares'
 * (adaptive sampling, wavefront.h), and its counts. */
typedef struct {
    u32 i, p, x, y;
    u32 k, end;
    vec3 sum, sq;
    u64 rays, bad;
} PixelRun;

/* Batch is a megakernel launch's batch: npixels pixels in parts parts
 * (1: unsplit), the pixel list, the outputs and the item counter. */
typedef struct {
    const unsigned int* pixels;
    u32 npixels, parts;
    float* out;
    unsigned long long *rays, *nonfinite;
    unsigned int* next;
} Batch;

/* batch_items: the items of batch b, a pixel's parts each. */
DEVFN u64 batch_items(const Batch* b) { return (u64)b->npixels * b->parts; }

/* pixel_begin makes *px item i of batch b, of a scene of n samples, no
 * sample summed yet. */
DEVFN void pixel_begin(PixelRun* px, const Batch* b, int n, u32 i) {
    u32 p = i, c = 0;
    if (b->parts > 1u) {
        p = i % b->npixels;
        c = i / b->npixels;
    }
    px->i = i;
    px->p = p;
    px->x = b->pixels[2 * (u64)p];
    px->y = b->pixels[2 * (u64)p + 1];
    px->k = part_first(c, n, b->parts);
    px->end = part_end(c, n, b->parts);
    px->sum = v3(0.0f, 0.0f, 0.0f);
    px->sq = px->sum;
    px->rays = px->bad = 0;
}

/* pixel_sample_done: *px's sample, of radiance c, has ended: summed (its
 * square into the sq sum too), or in a split batch written out
 * (put_sample); the item moves on to its next sample. 0 when that is its
 * end, or when its pixel stops there (pixel_stops: adaptive sampling). */
DEVFN int pixel_sample_done(const TraceScene* s, PixelRun* px, const Batch* b, vec3 c) {
    if (b->parts > 1u) {
        put_sample(b->out, b->npixels, px->p, px->k, sample_value(c, &px->bad));
    } else {
        vec3 v = sample_value(c, &px->bad);
        px->sum = vadd(px->sum, v);
        if (s->MinSamples > 0u) {
            px->sq = sq_add(px->sq, v);
        }
    }
    px->k++;
    return px->k < px->end && !pixel_stops(s, b->parts, px->sum, px->sq, px->k);
}

/* pixel_next writes *px's item, its pixel's mean of the px->k samples it
 * took (n, but under adaptive sampling) and its counts (or, split, its
 * counts, for trace_reduce), and makes *px the next item with samples
 * that *next hands out; 0 when that is past the batch. */
DEVFN int pixel_next(const TraceScene* s, PixelRun* px, const Batch* b, int n) {
    for (;;) {
        if (b->parts > 1u) {
            b->rays[px->i] = px->rays;
            b->nonfinite[px->i] = px->bad;
        } else {
            put_pixel(b->out, b->rays, b->nonfinite, px->i, pixel_mean(px->sum, (int)px->k), px->rays,
                      pixel_counts(s, px->bad, px->k));
        }
        u32 i = wave_reserve(b->next);
        if (i >= batch_items(b)) {
            return 0;
        }
        pixel_begin(px, b, n, i);
        if (px->k < px->end) {
            return 1;
        }
    }
}

/* pixel_next_call: pixel_next out of line for render_pixels_path, the
 * batch's fields as arguments (a pointer to the thread's Batch would put
 * it on the stack: 1040 B). A pixel's end is rare in the path loop;
 * inline, it and the adaptive test (pixel_stops, out of line too) spilled
 * 12 B at SHADE_BOUNDS once adaptive sampling's sums and the light
 * tree's lastN met (168 registers, 1008 B; now 168, 992 B, no spills). */
DEVFN_CALL int pixel_next_call(const TraceScene* s, PixelRun* px, const unsigned int* pixels, u32 npixels, u32 parts,
                               float* out, unsigned long long* rays, unsigned long long* nonfinite, unsigned int* next,
                               int n) {
    Batch b = {pixels, npixels, parts, out, rays, nonfinite, next};
    return pixel_next(s, px, &b, n);
}

/* pixel_first makes *px item i of batch b, or, if it has no samples (more
 * parts than samples), the next that has; 0 when none is left. */
DEVFN int pixel_first(const TraceScene* s, PixelRun* px, const Batch* b, int n, u32 i) {
    pixel_begin(px, b, n, i);
    return px->k < px->end || pixel_next(s, px, b, n);
}

/* render_pixels_path and render_pixels_whitted: a megakernel thread's
 * work for one integrator, from pixel i on: Scene.RenderPixel of each
 * pixel, with path regeneration: one loop of the integrator's steps
 * (path_step, whitted_step) across all the pixel's samples and on to the
 * next pixel's, so that a lane whose sample ends starts the next at once, and
 * a lane whose pixel ends takes the batch's next pixel (*next) and starts
 * its first sample, where loops over pixels and samples, each traced to
 * its end, would wait for the longest path, and pixel, in its warp. Each
 * pixel's samples run one after another and are summed in index order:
 * the same float operations in the same order as RenderPixel. The Stop
 * word (stop_asked) ends the thread before a sample, its pixel unwritten.
 *
 * The loop runs in phases, the same for every thread: nearest-hit queries,
 * then any-hit queries, in turn (query_other). In a phase, only the
 * threads whose query is of its kind answer it (query_answer_kind) and
 * step on to their next query; the others wait for the next phase. So a
 * warp runs one traversal loop at a time, and its lanes that step have
 * taken the same kind of answer, so they run the same stage of the
 * integrator (the hit's shading after a nearest hit; the direct light's
 * end and the next bounce after a shadow ray). Answering each thread's
 * query at once instead, as the lanes' paths drift apart (a bounce
 * without a shadow ray, a path ended and begun again), ran both traversal
 * loops and both kinds of stage in each turn of a warp, each for part of
 * its lanes. On an H200 the phases took trace_pixels_path from 121 to
 * 158 M rays/s on pbr, 154 to 179 M on mesh, 264 to 345 M on the
 * 1.3M-triangle mesh (cornell-box, materials and whitted within 6 %);
 * its lanes active per instruction stayed at 5 of 32 (ncu-stalls), most
 * of them lost in the traversal loops (ncu-source). Which thread waits
 * changes no pixel: each runs its own samples' operations in order.
 * (TRACE_MEGA_LOCKSTEP, below, builds the loops without regeneration.) */
DEVFN void render_pixels_path(const TraceScene* s, const Batch* b, u32 i) {
    int n = (int)s->Samples;
    if (n <= 0) {
        put_empty(s, i, b->npixels, b->out, b->rays, b->nonfinite, b->next);
        return;
    }
    if (stop_asked(s)) {
        return;
    }
    PixelRun px;
    if (!pixel_first(s, &px, b, n, i)) {
        return;
    }
    PathState p;
    path_start(s, px.x, px.y, (int)px.k, n, &p);
    for (u32 phase = QueryClosest;; phase = query_other(phase)) {
        if (p.q.kind == phase) {
            query_answer_kind(s, &p.q, phase);
        } else if (p.q.kind != QueryNone) {
            continue;
        }
        while (!path_step(s, &p, &px.rays)) {
            int more = pixel_sample_done(s, &px, b, p.radiance);
            if (stop_asked(s)) {
                return;
            }
            if (!more && !pixel_next_call(s, &px, b->pixels, b->npixels, b->parts, b->out, b->rays, b->nonfinite,
                                          b->next, n)) {
                return;
            }
            path_start(s, px.x, px.y, (int)px.k, n, &p);
        }
    }
}

DEVFN void render_pixels_whitted(const TraceScene* s, const Batch* b, u32 i) {
    int n = (int)s->Samples;
    if (n <= 0) {
        put_empty(s, i, b->npixels, b->out, b->rays, b->nonfinite, b->next);
        return;
    }
    if (stop_asked(s)) {
        return;
    }
    PixelRun px;
    if (!pixel_first(s, &px, b, n, i)) {
        return;
    }
    WhittedState w;
    Sampler rng;
    whitted_begin(&w, pixel_ray(s, px.x, px.y, px.k, n, &rng), &rng);
    for (u32 phase = QueryClosest;; phase = query_other(phase)) {
        if (w.q.kind == phase) {
            query_answer_kind(s, &w.q, phase);
        } else if (w.q.kind != QueryNone) {
            continue;
        }
        while (!whitted_step(s, &w, &px.rays)) {
            int more = pixel_sample_done(s, &px, b, w.radiance);
            if (stop_asked(s)) {
                return;
            }
            if (!more && !pixel_next(s, &px, b, n)) {
                return;
            }
            whitted_begin(&w, pixel_ray(s, px.x, px.y, px.k, n, &rng), &rng);
        }
    }
}

#ifdef TRACE_MEGA_LOCKSTEP
/* render_pixels_lockstep: the megakernels' loops without path
 * regeneration, a variant to time on a GPU against them
 * (scripts/ptx-variants.sh lockstep=-DTRACE_MEGA_LOCKSTEP; gpu-check's
 * ptx-variants step): each sample traced to its end before the pixel's
 * next starts, each query answered at once, as the megakernels ran before
 * they regenerated paths (on an H200 then, faster on materials and
 * whitted, slower on pbr and the 1.3M-triangle mesh); pixels still come
 * from *next. The same pixels, bit for bit. */
DEVFN_FLAT void render_pixels_lockstep(const TraceScene* s, const Batch* b, u32 i, u32 integrator) {
    int n = (int)s->Samples;
    if (n <= 0) {
        put_empty(s, i, b->npixels, b->out, b->rays, b->nonfinite, b->next);
        return;
    }
    PixelRun px;
    if (!pixel_first(s, &px, b, n, i)) {
        return;
    }
    do {
        for (u32 k = px.k;; k = px.k) {
            if (stop_asked(s)) {
                return;
            }
            vec3 radiance;
            if (integrator == IntegratorWhitted) {
                WhittedState w;
                Sampler rng;
                whitted_begin(&w, pixel_ray(s, px.x, px.y, k, n, &rng), &rng);
                while (whitted_step(s, &w, &px.rays)) {
                    query_answer_kind(s, &w.q, w.q.kind);
                }
                radiance = w.radiance;
            } else {
                PathState p;
                path_start(s, px.x, px.y, (int)k, n, &p);
                while (path_step(s, &p, &px.rays)) {
                    query_answer_kind(s, &p.q, p.q.kind);
                }
                radiance = p.radiance;
            }
            if (!pixel_sample_done(s, &px, b, radiance)) {
                break;
            }
        }
    } while (pixel_next(s, &px, b, n));
}
#endif

/* trace_thread: the work of one thread of any of the megakernel entries,
 * with the integrator given (s->Integrator, or a constant in the entries
 * that fix it, which folds the other away). */
DEVFN_FLAT void trace_thread(const TraceScene* scene, const unsigned int* pixels, unsigned int npixels, float* out,
                             unsigned long long* rays, unsigned long long* nonfinite, unsigned int* next,
                             unsigned int parts, u32 integrator) {
    Batch b = {pixels, npixels, wave_parts(parts), out, rays, nonfinite, next};
    u32 i = PORT_BLOCK_IDX() * PORT_BLOCK_DIM() + PORT_THREAD_IDX();
    if (i >= batch_items(&b)) {
        return;
    }
#ifdef TRACE_MEGA_LOCKSTEP
    render_pixels_lockstep(scene, &b, i, integrator);
    return;
#endif
    if (integrator == IntegratorWhitted) {
        render_pixels_whitted(scene, &b, i);
    } else {
        render_pixels_path(scene, &b, i);
    }
}

#define MEGA_ARGS                                                                                                 \
    const TraceScene *scene, const unsigned int *pixels, unsigned int npixels, float *out,                       \
        unsigned long long *rays, unsigned long long *nonfinite, unsigned int *next, unsigned int parts

PORT_EXTERN_C __global__ void trace_pixels(MEGA_ARGS) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, next, parts, scene->Integrator);
}

PORT_EXTERN_C __global__ SHADE_BOUNDS void trace_pixels_path(MEGA_ARGS) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, next, parts, IntegratorPath);
}

PORT_EXTERN_C __global__ WHITTED_BOUNDS void trace_pixels_whitted(MEGA_ARGS) {
    trace_thread(scene, pixels, npixels, out, rays, nonfinite, next, parts, IntegratorWhitted);
}

/* trace_reduce: after a megakernel launch on a batch split into parts
 * (parts > 1), thread p of a grid of npixels sums pixel p's sample values
 * in order (parts_sum) and its items' counts, and writes the pixel's mean
 * and counts at out[3p..3p+2], rays[p] and nonfinite[p] (over its sample
 * 0's value and its part 0's counts, which only it reads). The same
 * arguments as the megakernels'; pixels and next are not read. */
PORT_EXTERN_C __global__ void trace_reduce(MEGA_ARGS) {
    u32 p = PORT_BLOCK_IDX() * PORT_BLOCK_DIM() + PORT_THREAD_IDX();
    if (p >= npixels || stop_asked(scene)) {
        return; /* stopped: the batch is dropped, as the megakernels left it */
    }
    int n = (int)scene->Samples;
    u64 nrays = 0, nbad = 0;
    for (u32 c = 0; c < wave_parts(parts); c++) {
        nrays += rays[(u64)c * npixels + p];
        nbad += nonfinite[(u64)c * npixels + p];
    }
    put_pixel(out, rays, nonfinite, p, pixel_mean(parts_sum(out, npixels, p, n), n), nrays, nbad);
}

/* The wavefront entries (scenes of either integrator): the same ABI for
 * all five, the arguments an entry does not use ignored. wf_init and
 * wf_finish run thread i on slot i of n; the others one thread per entry
 * of their queue qin (wavefront.h). */
#define WAVE_ARGS                                                                                                 \
    const TraceScene *scene, const unsigned int *pixels, unsigned int n, PathSlot *slots, unsigned int *qin,     \
        unsigned int *qout, float *out, unsigned long long *rays, unsigned long long *nonfinite, unsigned int parts
#define WAVE_THREAD() (PORT_BLOCK_IDX() * PORT_BLOCK_DIM() + PORT_THREAD_IDX())

PORT_EXTERN_C __global__ void wf_init(WAVE_ARGS) {
    u32 i = WAVE_THREAD();
    if (i >= n) {
        return;
    }
    u32 np = n / wave_parts(parts), p = i % np, c = i / np;
    int samples = (int)scene->Samples;
    wave_init(scene, slot_ref(slot_array(scene, slots, n), i), pixels[2 * (u64)p], pixels[2 * (u64)p + 1],
              part_first(c, samples, wave_parts(parts)), samples > 0 ? part_end(c, samples, wave_parts(parts)) : 0u);
    qout[2 + i] = i;
    if (i == 0) {
        qout[0] = (int)scene->Samples > 0 ? n : 0;
        qout[1] = 0;
    }
}

PORT_EXTERN_C __global__ SHADE_BOUNDS void wf_shade(WAVE_ARGS) {
    ShadeSlot w = {slots, qin, n, (u32)WAVE_THREAD()};
    u32 i = wave_shaded(qin, n, w.t);
    if (i >= n) {
        return;
    }
    wave_shade(scene, slot_ref(slot_array(scene, slots, n), i), w, out, wave_parts(parts), qout, i);
}

PORT_EXTERN_C __global__ WAVE_INTERSECT_BOUNDS void wf_intersect(WAVE_ARGS) {
    u32 t = WAVE_THREAD();
    if (t >= qin[0]) {
        return;
    }
    SlotRef slot = slot_ref(slot_array(scene, slots, n), qin[2 + t]);
    u32 kind;
    Ray r;
    slot_query(slot, &r, &kind);
    slot_answer_hit(slot_byte(slot, TR_HIT_BYTE), slot.stride, scene_intersect(scene, r));
}

PORT_EXTERN_C __global__ WAVE_OCCLUDED_BOUNDS void wf_occluded(WAVE_ARGS) {
    u32 t = WAVE_THREAD();
    if (t >= qin[1]) {
        return;
    }
    u32 kind;
    Ray r;
    slot_query(slot_ref(slot_array(scene, slots, n), qin[2 + (n - 1 - t)]), &r, &kind);
    u32 occluded = (u32)scene_occluded(scene, r);
    /* The slot found again, from a fresh read of the queue: kept from
     * before the traversal, its address took registers there, and 40 a
     * thread (WAVE_OCCLUDED_BOUNDS) spilled 8 bytes. */
    u32 i = ((volatile const u32*)qin)[2 + (n - 1 - t)];
    slot_answer_occluded(slot_byte(slot_ref(slot_array(scene, slots, n), i), TR_OCCLUDED_BYTE), occluded);
}

PORT_EXTERN_C __global__ void wf_finish(WAVE_ARGS) {
    u32 i = WAVE_THREAD(), np = n / wave_parts(parts);
    if (i >= np) {
        return;
    }
    SlotHead h __attribute__((aligned(16)));
    slot_load(slot_ref(slot_array(scene, slots, n), i), 0, TR_HEAD_WORDS, &h);
    int samples = (int)scene->Samples;
    if (wave_parts(parts) > 1u) {
        /* Split: the pixel's sample values in order (the items wrote
         * them), and its parts' counts, from their slots' heads. */
        for (u32 c = 1; c < parts; c++) {
            SlotHead hc __attribute__((aligned(16)));
            slot_load(slot_ref(slot_array(scene, slots, n), c * np + i), 0, TR_HEAD_WORDS, &hc);
            h.rays += hc.rays;
            h.nonfinite += hc.nonfinite;
        }
        h.sum = parts_sum(out, np, i, samples);
        h.sample = (u32)samples;
    }
    /* h.sample: the samples the pixel took (all, but under adaptive
     * sampling) */
    put_pixel(out, rays, nonfinite, i, pixel_mean(h.sum, (int)h.sample), h.rays,
              pixel_counts(scene, h.nonfinite, h.sample));
}
