/*
 * wavefront.h: the pixel loop of Scene.RenderPixel, shared by the
 * megakernel (trace_thread, trace.cu) and the wavefront entries (wf_*,
 * trace.cu), and the wavefront's work on one slot.
 *
 * In the wavefront, slot i of a batch renders pixel i (or, split into
 * parts, item i, part i / npixels of pixel i % npixels: below): its samples one
 * after another (path regeneration: when a path ends, its radiance joins
 * the pixel's sum, in sample order, and the slot starts the next sample at
 * once), each sample run by its integrator's state machine (path_step,
 * path.h, or whitted_step, whitted.h) one query at a time. The
 * queries are answered by kernels that only trace rays (wf_intersect,
 * wf_occluded), so that those hold no surface, texture or light code and
 * few registers; alpha pass-through stays in wf_shade, which asks again.
 */
#ifndef TRACE_WAVEFRONT_H
#define TRACE_WAVEFRONT_H

#include "camera.h"
#include "path.h"
#include "whitted.h"

/* pixel_ray: the camera ray of sample i of the n of pixel (x, y), its
 * sampler *rng (left past the camera's dimensions). */
DEVFN Ray pixel_ray(const TraceScene* s, u32 x, u32 y, u32 i, int n, Sampler* rng) {
    *rng = new_sampler(s->Seed, x, y, i);
    float jx, jy, px, py;
    sampler_float2(rng, &jx, &jy);
    pixel_point(&s->Camera, x, y, jx, jy, n, &px, &py);
    float lu, lv;
    sampler_float2(rng, &lu, &lv);
    return camera_ray(&s->Camera, px, py, lu, lv);
}

/* path_start: starts sample i of the n of pixel (x, y) in *p: its camera
 * ray and path_begin. Out of line: inlined into render_pixels_path's loop
 * (trace.cu) it took trace_pixels_path to 182 registers unbound, 8 warps
 * a multiprocessor, and spilled under SHADE_BOUNDS (below); out of line,
 * 165 registers, 12 warps (161 since the megakernels regenerate pixels). */
DEVFN_CALL void path_start(const TraceScene* s, u32 x, u32 y, int i, int n, PathState* p) {
    Sampler rng;
    Ray r = pixel_ray(s, x, y, (u32)i, n, &rng);
    path_begin(p, r, &rng);
}

/* sample_value: sample radiance c as a pixel's sum takes it: a
 * non-finite c replaced by black and counted in *nonfinite. */
DEVFN vec3 sample_value(vec3 c, u64* nonfinite) {
    if (!finite32(c.x) || !finite32(c.y) || !finite32(c.z)) {
        (*nonfinite)++;
        c = v3(0.0f, 0.0f, 0.0f);
    }
    return c;
}

/* add_sample: the pixel's sum with sample radiance c added (sample_value). */
DEVFN vec3 add_sample(vec3 sum, vec3 c, u64* nonfinite) { return vadd(sum, sample_value(c, nonfinite)); }

/* A batch split into parts (kernels.SampleParts): a batch of npixels
 * pixels too few to fill the device is rendered as npixels · parts items,
 * item c · npixels + p rendering part c of pixel p's samples, a run of
 * consecutive samples (part_first to part_end: the n samples dealt out as
 * evenly as they go, none empty while parts ≤ n), each on its own thread
 * or slot, at once. A float sum depends on its order, so an item does not
 * sum its samples: it writes each sample's value (sample_value), the
 * sample k of pixel p at out[3 (k · npixels + p)] (put_sample; out holds
 * 3 · n · npixels floats), and its counts; then a launch over the pixels
 * (trace_reduce after the megakernels, wf_finish on the wavefront) sums
 * each pixel's n values in sample order (parts_sum) — the float
 * operations of the pixel loop, in its order — and writes the pixel's
 * mean and counts over its sample 0's value, which only its own thread
 * reads. parts = 1 (or 0) is the batch as it was: an item a pixel, its sum
 * in the item's thread or slot. */
DEVFN u32 part_first(u32 c, int n, u32 parts) { return (u32)((u64)c * (u32)n / parts); }
DEVFN u32 part_end(u32 c, int n, u32 parts) { return (u32)(((u64)c + 1u) * (u32)n / parts); }

/* put_sample writes the value v of sample k of pixel p of a split batch
 * of npixels pixels. */
DEVFN void put_sample(float* out, u32 npixels, u32 p, u32 k, vec3 v) {
    u64 j = 3 * ((u64)k * npixels + p);
    out[j] = v.x;
    out[j + 1] = v.y;
    out[j + 2] = v.z;
}

/* parts_sum: the sum, in sample order, of the n sample values of pixel p
 * of a split batch of npixels pixels, as add_sample sums them. */
DEVFN vec3 parts_sum(const float* out, u32 npixels, u32 p, int n) {
    vec3 sum = v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < n; k++) {
        u64 j = 3 * ((u64)k * npixels + p);
        sum = vadd(sum, v3(out[j], out[j + 1], out[j + 2]));
    }
    return sum;
}

/* pixel_mean: the mean of n samples of sum sum. */
DEVFN vec3 pixel_mean(vec3 sum, int n) {
    float inv = (float)n;
    return v3(sum.x / inv, sum.y / inv, sum.z / inv);
}

/* Adaptive sampling (tracer/adaptive.go; s->MinSamples > 0): a pixel
 * sums its samples' squares too (into its sq sum), is tested after
 * s->MinSamples samples and every TR_ADAPTIVE_STEP after (adaptive_due),
 * on its own sums alone (pixel_converged), and when it has converged
 * takes no more samples: its value is the mean of those it took (the
 * slot's or the thread's sample count), and its nonfinite word carries
 * that count in its high 32 bits (pixel_counts; kernels.PixelCounts).
 * Never in a batch split into parts (the host does not split one:
 * kernels.TraceScene.SplitSamples). */
#define TR_ADAPTIVE_STEP 16u /* tracer.AdaptiveStep */

/* adaptive_due: whether a pixel of scene s that has taken n of its
 * samples, more to come, is tested now (tracer's adaptiveTest.due). */
DEVFN int adaptive_due(const TraceScene* s, u32 n) {
    u32 first = s->MinSamples;
    return first > 0u && n >= first && n < s->Samples && (n - first) % TR_ADAPTIVE_STEP == 0u;
}

/* sq_add: a pixel's sum of squares sq with sample v's added
 * (tracer.maddv(sq, v, v)). */
DEVFN vec3 sq_add(vec3 sq, vec3 v) { return v3(sq.x + v.x * v.x, sq.y + v.y * v.y, sq.z + v.z * v.z); }

/* sample_se: tracer.stdErr, the standard error of the mean of n samples
 * of sum s and sum of squares q, scale 1/n and dof n − 1:
 * √((q − s²/n)/(n − 1)/n), 0 where rounding leaves q − s²/n at or below
 * 0 (or not a number). */
DEVFN float sample_se(float s, float q, float scale, float dof) {
    float v = q - (s * s) * scale;
    if (!(v > 0.0f)) {
        v = 0.0f;
    }
    return fm_sqrt((v / dof) * scale);
}

/* pixel_converged: tracer.converged, the same float operations: whether
 * a pixel whose n samples sum to sum, their squares to sq, has
 * Σ_c SE_c/(0.0001 + N) below limit (TraceScene.NoiseLimit: 5 times the
 * threshold times tracer.NoiseThresholdScale over √(2/π), the factor that
 * makes it Cycles' expected Σ|I − A|/n over √i, or i from 1 up). */
DEVFN int pixel_converged(vec3 sum, vec3 sq, u32 n, float limit) {
    float scale = 1.0f / (float)n;
    float dof = (float)(n - 1u);
    float d = sample_se(sum.x, sq.x, scale, dof) + sample_se(sum.y, sq.y, scale, dof) + sample_se(sum.z, sq.z, scale, dof);
    float i = (sum.x + sum.y + sum.z) * scale;
    float norm = i;
    if (i < 1.0f) {
        norm = fm_sqrt(i);
    }
    return d / (0.0001f + norm) < limit;
}

/* pixel_stops: whether a pixel of scene s, unsplit (parts ≤ 1), that has
 * taken n samples of sums sum and sq stops there (adaptive sampling).
 * Out of line: tested once a sample, it kept its temporaries out of the
 * megakernels' path loop (trace.cu, pixel_next_call). */
DEVFN_CALL int pixel_stops(const TraceScene* s, u32 parts, vec3 sum, vec3 sq, u32 n) {
    return parts <= 1u && adaptive_due(s, n) && pixel_converged(sum, sq, n, s->NoiseLimit);
}

/* pixel_counts: a pixel's nonfinite word: its samples replaced by black,
 * and under adaptive sampling, in the high 32 bits, the samples it took. */
DEVFN u64 pixel_counts(const TraceScene* s, u64 nonfinite, u32 taken) {
    return s->MinSamples > 0u ? nonfinite | ((u64)taken << 32) : nonfinite;
}

/* The wavefront's queues. A lane of n slots has two queues of
 * WAVE_QUEUE_WORDS(n) words each, in turn the one a round of wf_shade
 * works through and the one it fills: words 0 and 1 count the slots that
 * ask a nearest-hit and an any-hit query, and the slots' indices follow,
 * the nearest-hit askers from word 2 up, the any-hit askers from the last
 * word down (every slot asks at most one query a round, so the two never
 * meet). So each kernel runs one thread per slot with work, and the host
 * reads the two counts to size the next launches and to see the batch
 * done. The queues' order is the order their slots asked in, which varies
 * from run to run; no pixel depends on it. */
#define WAVE_QUEUE_WORDS(n) (2u + (u32)(n))

/* wave_reserve: a place in the queue of count, whose *count is the next
 * free one: the only atomics of the kernel. On the GPU, the lanes of a
 * warp that reserve together take consecutive places with one atomic. */
DEVFN u32 wave_reserve(u32* count) {
#if defined(__CUDA_ARCH__) && defined(__clang__)
    u32 active = (u32)__nvvm_activemask();
    u32 lane = __nvvm_read_ptx_sreg_laneid();
    u32 leader = (u32)__builtin_ctz(active);
    u32 base = 0;
    if (lane == leader) {
        base = (u32)__nvvm_atom_add_gen_i((int*)count, __builtin_popcount(active));
    }
    base = (u32)__nvvm_shfl_sync_idx_i32(active, (int)base, (int)leader, 31);
    return base + (u32)__builtin_popcount(active & __nvvm_read_ptx_sreg_lanemask_lt());
#elif defined(__CUDACC__)
    return atomicAdd(count, 1u);
#else
    return __atomic_fetch_add(count, 1u, __ATOMIC_RELAXED);
#endif
}

/* wave_push: queues slot i, which asks a query of kind, in queue q of a
 * lane of n slots. */
DEVFN void wave_push(u32* q, u32 n, u32 i, u32 kind) {
    if (kind == QueryClosest) {
        q[2 + wave_reserve(&q[0])] = i;
    } else {
        q[2 + (n - 1 - wave_reserve(&q[1]))] = i;
    }
}

/* wave_queued: the slot of thread t of a launch over queue q of a lane of
 * n slots: its nearest-hit askers, then its any-hit askers; n (none) past
 * the end. */
DEVFN u32 wave_queued(const volatile u32* q, u32 n, u32 t) {
    u32 closest = q[0], any = q[1];
    if (t < closest) {
        return q[2 + t];
    }
    if (t - closest < any) {
        return q[2 + (n - 1 - (t - closest))];
    }
    return n;
}

/* wave_shade_all says whether a round of wf_shade runs a thread per slot
 * (slot t for thread t) rather than one per slot queue q lists, for a
 * lane of n slots: while at least TRACE_SHADE_ALL_QUARTERS quarters of
 * them (by default 2: half) are live; every live slot asked a query, and
 * only those are queued. A warp then shades 32 consecutive slots, whose
 * words lie together (SlotArray), and queues their queries in runs of
 * such slots, so that the query kernels' warps read few runs of words
 * too; the threads of dead slots return at once, but a warp with a live
 * lane runs as long as it. Over the queue, every lane of a warp has work,
 * but its slots spread further with each round (a warp reads the runs
 * several warps queued). On the gallery (the emulator, 128×96, 16
 * samples), with half the slots live the warps over consecutive slots had
 * 74 % (cornell-box) to 97 % (materials, mesh) of their lanes live: dead
 * pixels lie together (the sky). The host launches a thread per slot
 * from half the slots live on (kernels.ShadeThreads); a higher quarter
 * count (a variant to time: 3, 4, or 5 for never) leaves the threads
 * past the queue idle in the rounds between. */
#ifndef TRACE_SHADE_ALL_QUARTERS
#define TRACE_SHADE_ALL_QUARTERS 2
#endif
PORT_STATIC_ASSERT(TRACE_SHADE_ALL_QUARTERS >= 2, "kernels.ShadeThreads launches a thread per slot from half the slots on");
DEVFN int wave_shade_all(const volatile u32* q, u32 n) {
    return 4u * ((u64)q[0] + q[1]) >= (u64)TRACE_SHADE_ALL_QUARTERS * n;
}

/* wave_shaded: the slot of thread t of wf_shade over queue q of a lane of
 * n slots (wave_shade_all); n (none) past the end. The queue is read
 * afresh at each call (volatile): wave_shade finds its slot again after
 * the slot's path has run, so that the slot's address is not kept across
 * the path's code (in registers: at 168 a thread, SHADE_BOUNDS, wf_shade
 * spilled 16 bytes so). */
DEVFN u32 wave_shaded(const volatile u32* q, u32 n, u32 t) {
    if (wave_shade_all(q, n)) {
        return t < n ? t : n;
    }
    return wave_queued(q, n, t);
}

/* ShadeSlot is the slot of a thread of wf_shade, and how to find it: the
 * thread t of a round over queue q, of the n slots at slots. */
typedef struct {
    void* slots;
    const u32* q;
    u32 n, t;
} ShadeSlot;

/* shade_slot_ref: the slot of a thread of wf_shade (wave_shaded). */
DEVFN SlotRef shade_slot_ref(const TraceScene* s, ShadeSlot w) {
    return slot_ref(slot_array(s, w.slots, w.n), wave_shaded(w.q, w.n, w.t));
}

/* wave_head: a slot's head for pixel (x, y), at sample first, its
 * samples up to end. */
DEVFN SlotHead wave_head(u32 x, u32 y, u32 first, u32 end) {
    SlotHead h;
    h.sum = v3(0.0f, 0.0f, 0.0f);
    h.sq = h.sum;
    h.pad = 0;
    h.end = end;
    h.rays = 0;
    h.nonfinite = 0;
    h.x = x;
    h.y = y;
    h.sample = first;
    h.live = first < end;
    return h;
}

/* wave_parts: a wavefront entry's parts argument, 0 read as 1. */
DEVFN u32 wave_parts(unsigned int parts) { return parts > 1u ? parts : 1u; }

/* wave_sample_done: a slot's sample, of radiance c, has ended: summed
 * into its head (its square into the sq sum), or, in a batch
 * split into parts (parts > 1), written out (put_sample) for thread t of
 * the round over queue q of the lane's n slots (wave_shaded finds the
 * slot again, so that its index need not be kept across the path). Then
 * the slot moves on to its next sample, or is dead (not live) after its
 * last, or when it stops (pixel_stops: adaptive sampling); 0 then. Out
 * of line, as its megakernel twin pixel_next: a sample's end is rare in
 * wf_shade's loop, and inline, its adaptive test spilled 4 B at
 * SHADE_BOUNDS once the light tree's lastN joined the slot (168
 * registers, 928 B; out of line 167, 912 B, no spills). */
DEVFN_CALL int wave_sample_done(const TraceScene* s, SlotHead* h, vec3 c, float* out, u32 parts, const u32* q, u32 n,
                                u32 t) {
    if (parts > 1u) {
        u32 npixels = n / parts;
        put_sample(out, npixels, wave_shaded(q, n, t) % npixels, h->sample, sample_value(c, &h->nonfinite));
    } else {
        vec3 v = sample_value(c, &h->nonfinite);
        h->sum = vadd(h->sum, v);
        if (s->MinSamples > 0u) {
            h->sq = sq_add(h->sq, v);
        }
    }
    h->sample++;
    if (h->sample >= h->end || pixel_stops(s, parts, h->sum, h->sq, h->sample)) {
        h->live = 0;
        return 0;
    }
    return 1;
}

/* wave_start_whitted: starts a Whitted scene's slot's sample
 * slot->h.sample. */
DEVFN void wave_start_whitted(const TraceScene* s, PathSlot* slot) {
    Sampler rng;
    Ray r = pixel_ray(s, slot->h.x, slot->h.y, slot->h.sample, (int)s->Samples, &rng);
    whitted_begin(&slot->whitted, r, &rng);
}

/* wave_init: slot r takes pixel (x, y) and starts its sample first, its
 * samples up to end. */
DEVFN void wave_init(const TraceScene* s, SlotRef r, u32 x, u32 y, u32 first, u32 end) {
    if (s->Integrator == IntegratorWhitted) {
        PathSlot* slot = slot_whole(r);
        slot->h = wave_head(x, y, first, end);
        slot->whitted.q.kind = QueryNone;
        if (slot->h.live) {
            wave_start_whitted(s, slot);
        }
        return;
    }
    PathOnlySlot p __attribute__((aligned(16)));
    __builtin_memset(&p, 0, sizeof p);
    p.h = wave_head(x, y, first, end);
    p.path.q.kind = QueryNone;
    if (p.h.live) {
        path_start(s, x, y, (int)first, (int)s->Samples, &p.path);
    }
    slot_store(r, 0, TR_PATH_SLOT_WORDS, &p);
}

/* wave_shade_whitted: wave_shade for a Whitted scene, on the slot in
 * place (its state, with the branch stack, is 3 KB). */
DEVFN u32 wave_shade_whitted(const TraceScene* s, PathSlot* slot, float* out, u32 parts, ShadeSlot w) {
    if (!slot->h.live) {
        return QueryNone;
    }
    for (;;) {
        if (whitted_step(s, &slot->whitted, &slot->h.rays)) {
            return slot->whitted.q.kind;
        }
        if (!wave_sample_done(s, &slot->h, slot->whitted.radiance, out, parts, w.q, w.n, w.t)) {
            return QueryNone;
        }
        wave_start_whitted(s, slot);
    }
}

/* wave_shade: runs slot r's samples (thread w's, found again at the
 * end), one after another, on the scene's integrator (path_step or
 * whitted_step) until one asks a query, which it queues in qout as slot
 * i's (wave_push), or the pixel's last sample ends; a slot that is not
 * live queues nothing.
 *
 * Each integrator's branch queues its own query: with the kind returned
 * to one wave_push after both, ptxas kept a convergence barrier over the
 * whole shading for that join, held in a register across path_step's
 * calls, and on sm_80 at SHADE_BOUNDS' 168 registers it spilled that
 * register (4 B, once pbr's sheen came; kernels/README.md, Registers).
 *
 * A path scene's slot is copied into the thread's own memory, run there
 * and copied back, in 16-byte words (SlotArray: the warp's lanes copy
 * each word of consecutive slots from one run of bytes), so that each
 * field path_step reads or writes is the thread's own memory (registers,
 * or its stack, which the GPU interleaves thread by thread: a warp's 32
 * lanes in one access), not a load or store of 4 bytes a lane, 16 n
 * bytes apart. On an H200 wf_shade spent 87 % of the wavefront's kernel
 * time on such fields in place (kernels/README.md, The wavefront on a
 * GPU). The copy changes no float operation. */
DEVFN void wave_shade(const TraceScene* s, SlotRef r, ShadeSlot w, float* out, u32 parts, u32* qout, u32 i) {
    if (s->Integrator == IntegratorWhitted) {
        u32 k = wave_shade_whitted(s, slot_whole(r), out, parts, w);
        if (k != QueryNone) {
            wave_push(qout, w.n, i, k);
        }
        return;
    }
    PathOnlySlot p __attribute__((aligned(16)));
    PORT_STATIC_ASSERT(sizeof p == 16 * TR_PATH_SLOT_WORDS, "a path slot is copied in 16-byte words");
    PORT_STATIC_ASSERT(__builtin_offsetof(SlotHead, live) / 16 == TR_HEAD_WORDS - 1, "live is in the head's last word");
    slot_load(r, TR_HEAD_WORDS - 1u, 1, (char*)&p + 16u * (TR_HEAD_WORDS - 1u));
    if (!p.h.live) {
        return;
    }
    slot_load(r, 0, TR_HEAD_WORDS - 1u, &p);
    slot_load(r, TR_HEAD_WORDS, TR_PATH_SLOT_WORDS - TR_HEAD_WORDS, (char*)&p + 16u * TR_HEAD_WORDS);
    u32 kind = QueryNone;
    for (;;) {
        if (path_step(s, &p.path, &p.h.rays)) {
            kind = p.path.q.kind;
            break;
        }
        if (!wave_sample_done(s, &p.h, p.path.radiance, out, parts, w.q, w.n, w.t)) {
            break;
        }
        path_start(s, p.h.x, p.h.y, (int)p.h.sample, (int)s->Samples, &p.path);
    }
    slot_store(shade_slot_ref(s, w), 0, TR_PATH_SLOT_WORDS, &p);
    if (kind != QueryNone) {
        wave_push(qout, w.n, i, kind);
    }
}

/* The query kernels' launch bounds: blocks of at most 128 threads, and
 * as many of them per multiprocessor as ptxas can give without spilling
 * (make ptx-report, sm_80 and sm_90; registers go 8 a thread at a time):
 * 9 blocks, 36 warps of 64, hold wf_intersect to 56 registers (at 48 it
 * spills 12 bytes), 12 blocks, 48 warps, wf_occluded to 40 (at 32 it
 * spills 100). The entries that shade, wf_shade and trace_pixels_path,
 * are bound to 3 blocks, 12 warps, 168 registers (they take 167 and 168;
 * 165 and 167 unbound), so that code that needs more spills, which CI
 * refuses, rather than dropping them to 8 warps unseen. wf_finish, a
 * thread a pixel once a batch, is not bound: it takes 40 registers (48
 * warps) since slot heads hold a second sum (adaptive sampling); bound to
 * 32 (64 warps, its count before) it spills 12 bytes. trace_pixels_whitted
 * is bound to 4 blocks, 16 warps, 128 registers: it takes 123 there
 * without spilling (137 unbound, 12 warps). */
#if defined(PORT_CUDA)
#define WAVE_INTERSECT_BOUNDS __attribute__((launch_bounds(128, 9)))
#define WAVE_OCCLUDED_BOUNDS __attribute__((launch_bounds(128, 12)))
#define SHADE_BOUNDS __attribute__((launch_bounds(128, 3)))
#define WHITTED_BOUNDS __attribute__((launch_bounds(128, 4)))
#else
#define WAVE_INTERSECT_BOUNDS
#define WAVE_OCCLUDED_BOUNDS
#define SHADE_BOUNDS
#define WHITTED_BOUNDS
#endif

#endif /* TRACE_WAVEFRONT_H */
