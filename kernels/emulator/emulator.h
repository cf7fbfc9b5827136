/* emulator.h: the C side of the kernel emulator, as the Go side sees it. */
#ifndef TRACE_EMULATOR_H
#define TRACE_EMULATOR_H

/* emu_run runs the kernel trace_pixels (reduce 0) or trace_reduce
 * (reduce 1) for the threads of blocks [first_block, end_block) of a grid
 * of blocks of block_dim threads, one thread after another, on the
 * calling thread. scene is a TraceScene; *next is the next item to take,
 * shared by the grid's threads; parts splits the batch (trace.cu). */
void emu_run(int reduce, const void* scene, const unsigned int* pixels, unsigned int npixels, float* out,
             unsigned long long* rays, unsigned long long* nonfinite, unsigned int* next, unsigned int parts,
             unsigned int block_dim, unsigned int first_block, unsigned int end_block);

/* emu_wave runs wavefront entry number entry (wf_init, wf_shade,
 * wf_intersect, wf_occluded, wf_finish: kernels.WaveEntry) for the
 * threads of blocks [first_block, end_block), as emu_run does; slots is an
 * array of n PathSlot, qin and qout queues of emu_queue_words(n) words;
 * n is the batch's pixels times parts (trace.cu).
 * It returns -1 for an unknown entry, else 0. */
int emu_wave(int entry, const void* scene, const unsigned int* pixels, unsigned int n, void* slots,
             unsigned int* qin, unsigned int* qout, float* out, unsigned long long* rays, unsigned long long* nonfinite,
             unsigned int parts, unsigned int block_dim, unsigned int first_block, unsigned int end_block);

/* emu_queue_words is the words of a wavefront queue of a lane of n slots
 * (WAVE_QUEUE_WORDS). */
unsigned int emu_queue_words(unsigned int n);

/* emu_slot_bytes is the distance between two wavefront slots for scenes of
 * the integrator given (slot_bytes). */
unsigned long emu_slot_bytes(unsigned int integrator);

/* emu_query_kind is QueryClosest (any 0) or QueryAny (any 1). */
unsigned int emu_query_kind(int any);

/* emu_census counts, in counts[0..5], the live slots of a wavefront batch
 * of n slots and the groups of warp consecutive slots holding one, then
 * likewise the live slots asking a nearest-hit query and those asking
 * an any-hit query. */
void emu_census(const void* scene, void* slots, unsigned int n, unsigned int warp, unsigned long long* counts);

/* emu_fmath evaluates fmath function fn (see kernel.c) at (a[i], b[i]) for
 * i < n into out[i]. */
void emu_fmath(int fn, const float* a, const float* b, float* out, int n);

/* emu_sampler writes the numbers of the sampler of (seed, x, y, s), drawn in
 * threes: one by sampler_float, a pair by sampler_float2 (n a multiple of 3). */
void emu_sampler(unsigned long long seed, unsigned int x, unsigned int y, unsigned int s, float* out, int n);

#endif
