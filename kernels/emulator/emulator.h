/* emulator.h: the C side of the kernel emulator, as the Go side sees it. */
#ifndef TRACE_EMULATOR_H
#define TRACE_EMULATOR_H

/* emu_run runs the kernel trace_pixels for the threads of blocks
 * [first_block, end_block) of a grid of blocks of block_dim threads, one
 * thread after another, on the calling thread. scene is a TraceScene. */
void emu_run(const void* scene, const unsigned int* pixels, unsigned int npixels, float* out,
             unsigned long long* rays, unsigned long long* nonfinite, unsigned int block_dim,
             unsigned int first_block, unsigned int end_block);

/* EmuField is one row of the layout table: the offset and size of a field
 * of one of the kernel's structs (field "" gives the struct's size). */
typedef struct {
    const char* type;
    const char* field;
    const char* kind; /* the field's type as Go names it, roughly */
    unsigned long offset;
    unsigned long size;
} EmuField;

/* emu_layout returns row i of the layout table, or 0 past its end. */
const EmuField* emu_layout(int i);

/* EmuConst is one of the kernel's named constants. */
typedef struct {
    const char* name;
    long long value;
} EmuConst;

/* emu_const returns constant i, or 0 past the end. */
const EmuConst* emu_const(int i);

/* emu_fmath evaluates fmath function fn (see kernel.c) at (a[i], b[i]) for
 * i < n into out[i]. */
void emu_fmath(int fn, const float* a, const float* b, float* out, int n);

/* emu_sampler writes the numbers of the sampler of (seed, x, y, s), drawn in
 * threes: one by sampler_float, a pair by sampler_float2 (n a multiple of 3). */
void emu_sampler(unsigned long long seed, unsigned int x, unsigned int y, unsigned int s, float* out, int n);

#endif
