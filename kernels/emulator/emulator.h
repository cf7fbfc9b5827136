/* emulator.h: the C side of the kernel emulator, as the Go side sees it. */
#ifndef TRACE_EMULATOR_H
#define TRACE_EMULATOR_H

/* emu_run runs the kernel trace_pixels for the threads of blocks
 * [first_block, end_block) of a grid of blocks of block_dim threads, one
 * thread after another, on the calling thread. scene is a TraceScene. */
void emu_run(const void* scene, const unsigned int* pixels, unsigned int npixels, float* out,
             unsigned long long* rays, unsigned long long* nonfinite, unsigned int block_dim,
             unsigned int first_block, unsigned int end_block);

/* emu_fmath evaluates fmath function fn (see kernel.c) at (a[i], b[i]) for
 * i < n into out[i]. */
void emu_fmath(int fn, const float* a, const float* b, float* out, int n);

/* emu_sampler writes the numbers of the sampler of (seed, x, y, s), drawn in
 * threes: one by sampler_float, a pair by sampler_float2 (n a multiple of 3). */
void emu_sampler(unsigned long long seed, unsigned int x, unsigned int y, unsigned int s, float* out, int n);

#endif
