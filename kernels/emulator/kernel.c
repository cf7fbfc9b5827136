/*
 * kernel.c: the kernel source compiled as C11 for the CPU emulator, and the
 * loop that runs it over a grid. cgo compiles this file with the package's
 * CFLAGS (-std=c11: no contraction into fused multiply-adds).
 */
#include "../trace.cu"

#include "emulator.h"

void emu_run(int reduce, const void* scene, const unsigned int* pixels, unsigned int npixels, float* out,
             unsigned long long* rays, unsigned long long* nonfinite, unsigned int* next, unsigned int parts,
             unsigned int block_dim, unsigned int first_block, unsigned int end_block) {
    port_block_dim = block_dim;
    for (u32 b = first_block; b < end_block; b++) {
        port_block_idx = b;
        for (u32 t = 0; t < block_dim; t++) {
            port_thread_idx = t;
            if (reduce) {
                trace_reduce((const TraceScene*)scene, pixels, npixels, out, rays, nonfinite, next, parts);
            } else {
                trace_pixels((const TraceScene*)scene, pixels, npixels, out, rays, nonfinite, next, parts);
            }
        }
    }
}

/* The wavefront entries by number: kernels.WaveEntry's order. */
typedef void (*WaveEntryFn)(const TraceScene*, const unsigned int*, unsigned int, PathSlot*, unsigned int*,
                            unsigned int*, float*, unsigned long long*, unsigned long long*, unsigned int);
static const WaveEntryFn wave_entries[] = {wf_init, wf_shade, wf_intersect, wf_occluded, wf_finish};

int emu_wave(int entry, const void* scene, const unsigned int* pixels, unsigned int n, void* slots,
             unsigned int* qin, unsigned int* qout, float* out, unsigned long long* rays, unsigned long long* nonfinite,
             unsigned int parts, unsigned int block_dim, unsigned int first_block, unsigned int end_block) {
    if (entry < 0 || entry >= (int)(sizeof(wave_entries) / sizeof(wave_entries[0]))) {
        return -1;
    }
    WaveEntryFn fn = wave_entries[entry];
    port_block_dim = block_dim;
    for (u32 b = first_block; b < end_block; b++) {
        port_block_idx = b;
        for (u32 t = 0; t < block_dim; t++) {
            port_thread_idx = t;
            fn((const TraceScene*)scene, pixels, n, (PathSlot*)slots, qin, qout, out, rays, nonfinite, parts);
        }
    }
    return 0;
}

unsigned long emu_slot_bytes(unsigned int integrator) {
    TraceScene s;
    s.Integrator = integrator;
    return (unsigned long)slot_bytes(&s);
}

unsigned int emu_query_kind(int any) { return any ? QueryAny : QueryClosest; }

unsigned int emu_queue_words(unsigned int n) { return WAVE_QUEUE_WORDS(n); }

void emu_census(const void* scene, void* slots, unsigned int n, unsigned int warp, unsigned long long* counts) {
    const TraceScene* s = (const TraceScene*)scene;
    for (u32 w = 0; w < n; w += warp) {
        u32 live = 0, closest = 0, any = 0;
        for (u32 i = w; i < n && i < w + warp; i++) {
            SlotRef slot = slot_ref(slot_array(s, slots, n), i);
            SlotHead h __attribute__((aligned(16)));
            slot_load(slot, 0, TR_HEAD_WORDS, &h);
            if (!h.live) {
                continue;
            }
            live++;
            Ray r;
            u32 kind;
            slot_query(slot, &r, &kind);
            closest += kind == QueryClosest;
            any += kind == QueryAny;
        }
        counts[0] += live;
        counts[1] += live > 0;
        counts[2] += closest;
        counts[3] += closest > 0;
        counts[4] += any;
        counts[5] += any > 0;
    }
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
