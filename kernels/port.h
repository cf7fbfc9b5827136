/*
 * port.h: the portability layer of the kernel source.
 *
 * The kernel (trace.cu and the headers it includes) is written in the
 * subset of C that is also CUDA C++, and compiled three ways:
 *
 *   1. clang in CUDA mode, device only, without CUDA headers (-nocudainc
 *      -nocudalib), for the PTX that the cuda build embeds: __CUDA__ and
 *      __CUDA_ARCH__ are defined, thread ids come from the
 *      __nvvm_read_ptx_sreg_* builtins;
 *   2. nvcc (__CUDACC__ without clang), which brings its own headers:
 *      threadIdx, blockIdx and blockDim;
 *   3. gcc as C11 through cgo, for the CPU emulator (kernels/emulator):
 *      the thread and block indices are _Thread_local variables that the
 *      emulator's loop sets before it calls the kernel for each thread.
 *
 * Rules for code that includes this header: no CUDA headers, no libm
 * transcendentals (fmath.h has the project's own), no shared memory, no
 * __syncthreads, no warp intrinsics or atomics (but the wavefront's
 * queues' counts, wave_reserve in wavefront.h, whose warp intrinsics are
 * the GPU's alone), no compound literals or
 * designated initializers (not C++), float literals always with an f
 * suffix (a double literal would promote the expression to double), and
 * every function DEVFN. Contraction of a*b+c into a fused multiply-add
 * must be off: -ffp-contract=off for clang, --fmad=false for nvcc, and
 * -std=c11 (which implies it) for gcc.
 */
#ifndef TRACE_PORT_H
#define TRACE_PORT_H

#if defined(__CUDA__) || defined(__CUDACC__)
#define PORT_CUDA 1
#endif

#ifdef PORT_CUDA
/* clang -nocudainc defines none of CUDA's keywords; nvcc defines them all. */
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#define PORT_EXTERN_C extern "C"
#define PORT_STATIC_ASSERT(c, msg) static_assert(c, msg)
#else
#define __device__
#define __global__
#define PORT_EXTERN_C
#define PORT_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#endif

/* DEVFN marks every function of the ray path: device code under CUDA,
 * plain static inline C in the emulator. */
#define DEVFN static __device__ inline

/* DEVFN_FLAT marks a function that must be inlined, so that a constant
 * argument of its caller's (an entry's integrator) folds away the code
 * it does not select. */
#define DEVFN_FLAT static __device__ inline __attribute__((always_inline))

/* DEVFN_CALL marks a function kept out of line, a call in the PTX, so
 * that its temporaries do not add to the registers of the loop that calls
 * it (ptxas counts an entry's registers at its busiest point). */
#define DEVFN_CALL static __device__ __attribute__((noinline))

/* PORT_TABLE declares a read-only lookup table of the kernel (the GGX
 * albedos, ggx_albedo_gen.h): in global memory on the GPU, read through
 * the L1 cache, which serves the lanes of a warp that read different
 * entries at once (clang puts a const __device__ array in __constant__
 * memory, which serialises them); const in the emulator. */
#ifdef PORT_CUDA
#define PORT_TABLE static __device__
#else
#define PORT_TABLE static const
#endif

/* Float expressions must be evaluated in float, as Go's float32 is. */
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0
#error "the kernel needs FLT_EVAL_METHOD 0 (float arithmetic in float)"
#endif

/* Fixed-width integers without <stdint.h> (no system headers on the device
 * side): the sizes hold on x86-64, arm64 and nvptx64. */
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
PORT_STATIC_ASSERT(sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8 && sizeof(void*) == 8,
                   "integer or pointer sizes");

/* Little-endian on every target (x86-64, arm64, nvptx64): a word read
 * whole has its lowest-addressed bytes in its low bits. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the kernel assumes a little-endian target"
#endif

/* Thread and block indices along x (the kernel uses a 1-D grid). */
#if defined(__CUDA_ARCH__) && defined(__clang__)
#define PORT_THREAD_IDX() __nvvm_read_ptx_sreg_tid_x()
#define PORT_BLOCK_IDX() __nvvm_read_ptx_sreg_ctaid_x()
#define PORT_BLOCK_DIM() __nvvm_read_ptx_sreg_ntid_x()
#elif defined(__CUDACC__)
#define PORT_THREAD_IDX() threadIdx.x
#define PORT_BLOCK_IDX() blockIdx.x
#define PORT_BLOCK_DIM() blockDim.x
#else
/* Set by the emulator's loop; one set per OS thread, so goroutines may
 * emulate parts of a grid in parallel. */
static _Thread_local u32 port_thread_idx, port_block_idx, port_block_dim;
#define PORT_THREAD_IDX() port_thread_idx
#define PORT_BLOCK_IDX() port_block_idx
#define PORT_BLOCK_DIM() port_block_dim
#endif

/* The IEEE basic operations that are not operators. All are exact or
 * correctly rounded on every target: sqrt.rn.f32, cvt.rmi.f32.f32 and
 * abs.f32 on the GPU, sqrtss, floorf and andps on x86-64. */
#define port_sqrtf(x) __builtin_sqrtf(x)
#define port_floorf(x) __builtin_floorf(x)

/* Bit casts. */
DEVFN u32 f2u(float f) {
    u32 u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
DEVFN float u2f(u32 u) {
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}

/* go_minf and go_maxf are Go's builtin min and max on float32 (the Go
 * runtime's fmin and fmax): a NaN argument gives NaN, and min(−0, +0) is
 * −0, max(−0, +0) is +0, whatever the order. fminf/fmaxf (a NaN gives the
 * other argument) and a plain comparison (the zeros' order depends on the
 * argument order) differ from them, so the ray path uses these. */
DEVFN float go_minf(float x, float y) {
    if (y != y || y < x) {
        return y;
    }
    if (x != x || x < y || x != 0.0f) {
        return x;
    }
    return u2f(f2u(x) | f2u(y)); /* both zeros: −0 if either is */
}
DEVFN float go_maxf(float x, float y) {
    if (y != y || y > x) {
        return y;
    }
    if (x != x || x > y || x != 0.0f) {
        return x;
    }
    return u2f(f2u(x) & f2u(y)); /* both zeros: −0 only if both are */
}
/* port_fminf and port_fmaxf are IEEE minNum and maxNum, one instruction on
 * the GPU (min.f32, max.f32): a NaN argument gives the other argument, and
 * the sign of a zero result is unspecified. Only the BVH slab test uses
 * them, where they give the same answers as Go's min and max: see
 * enter_pair in intersect.h. The emulator's versions have the same NaN
 * behaviour. */
#ifdef PORT_CUDA
#define port_fminf(x, y) __builtin_fminf(x, y)
#define port_fmaxf(x, y) __builtin_fmaxf(x, y)
#else
DEVFN float port_fminf(float x, float y) { return (x < y || y != y) ? x : y; }
DEVFN float port_fmaxf(float x, float y) { return (x > y || y != y) ? x : y; }
#endif

/* PORT_RESTRICT marks a pointer through which, while it is live, nothing
 * else reads or writes what it points to: the scene's arrays, which the
 * kernel only reads. __restrict__ in CUDA C++, C99's restrict in C. */
#ifdef PORT_CUDA
#define PORT_RESTRICT __restrict__
#else
#define PORT_RESTRICT restrict
#endif

/* Read-only loads of scene data, which no thread writes while a kernel
 * runs. On the GPU they go through the read-only data path
 * (ld.global.nc, __ldg: LDG.E.CONSTANT in SASS) from a global address;
 * in C they are plain reads. port_ldg16 copies the 16 bytes at src to
 * dst in one vector load (ld.global.nc.v4: LDG.E.128); src must be 16-byte
 * aligned on the GPU, as the device allocations (256 bytes) and 16-byte
 * multiples within them are; in C any alignment goes. */
#if defined(__CUDA_ARCH__) && defined(__clang__)
typedef float port_float4 __attribute__((ext_vector_type(4)));
DEVFN float port_ldg_f(const float* p) { return __nvvm_ldg_f(p); }
DEVFN u32 port_ldg_u(const u32* p) { return __nvvm_ldg_ui(p); }
DEVFN void port_ldg16(void* dst, const void* src) {
    port_float4 v = __nvvm_ldg_f4((const port_float4*)src);
    __builtin_memcpy(dst, &v, 16);
}
#elif defined(__CUDA_ARCH__)
DEVFN float port_ldg_f(const float* p) { return __ldg(p); }
DEVFN u32 port_ldg_u(const u32* p) { return __ldg(p); }
DEVFN void port_ldg16(void* dst, const void* src) {
    float4 v = __ldg((const float4*)src);
    __builtin_memcpy(dst, &v, 16);
}
#else
/* Through memcpy, so that a word of two u16 fields may be read as one. */
DEVFN float port_ldg_f(const float* p) {
    float f;
    __builtin_memcpy(&f, p, 4);
    return f;
}
DEVFN u32 port_ldg_u(const u32* p) {
    u32 u;
    __builtin_memcpy(&u, p, 4);
    return u;
}
DEVFN void port_ldg16(void* dst, const void* src) { __builtin_memcpy(dst, src, 16); }
#endif

/* port_gather16 copies n 16-byte words, src + j·stride for j < n, into
 * dst's first n words; port_scatter16 copies them back, dst + j·stride
 * from src's words. Everything 16-byte aligned on the GPU, and apart: a
 * vector load and store a word (LDG.E.128 or LD.E.128, and the store's
 * twin, in SASS: a plain copy of a struct of floats goes field by field,
 * or byte by byte). Eight words are loaded before any of them is
 * stored, so that a thread waits for memory once every eight words:
 * copied a word at a time, each store waited for its load (the copies in
 * and out of wf_shade's PathState, 25 words each, had 53 % of its stall
 * samples on an H200, ncu-source). The wavefront's path slots lie word by
 * word (pathstate.h): stride is then the batch's 16 n bytes. */
#if defined(__CUDA_ARCH__) && defined(__clang__)
#define PORT_COPY16_BATCHED(LOAD, STORE)                                                                \
    u32 j = 0;                                                                                        \
    for (; j + 8u <= n; j += 8u) {                                                                    \
        port_float4 w0 = LOAD(j), w1 = LOAD(j + 1), w2 = LOAD(j + 2), w3 = LOAD(j + 3);               \
        port_float4 w4 = LOAD(j + 4), w5 = LOAD(j + 5), w6 = LOAD(j + 6), w7 = LOAD(j + 7);           \
        STORE(j, w0);                                                                                 \
        STORE(j + 1, w1);                                                                             \
        STORE(j + 2, w2);                                                                             \
        STORE(j + 3, w3);                                                                             \
        STORE(j + 4, w4);                                                                             \
        STORE(j + 5, w5);                                                                             \
        STORE(j + 6, w6);                                                                             \
        STORE(j + 7, w7);                                                                             \
    }                                                                                                 \
    for (; j < n; j++) {                                                                              \
        STORE(j, LOAD(j));                                                                            \
    }
DEVFN void port_gather16(void* dst, const void* src, u64 stride, u32 n) {
    const char* PORT_RESTRICT s = (const char*)src;
    port_float4* PORT_RESTRICT d = (port_float4*)dst;
#define GATHER_LOAD(k) (*(const port_float4*)(s + (u64)(k) * stride))
#define GATHER_STORE(k, w) (d[k] = (w))
    PORT_COPY16_BATCHED(GATHER_LOAD, GATHER_STORE)
#undef GATHER_LOAD
#undef GATHER_STORE
}
DEVFN void port_scatter16(void* dst, u64 stride, const void* src, u32 n) {
    const port_float4* PORT_RESTRICT s = (const port_float4*)src;
    char* PORT_RESTRICT d = (char*)dst;
#define SCATTER_LOAD(k) (s[k])
#define SCATTER_STORE(k, w) (*(port_float4*)(d + (u64)(k) * stride) = (w))
    PORT_COPY16_BATCHED(SCATTER_LOAD, SCATTER_STORE)
#undef SCATTER_LOAD
#undef SCATTER_STORE
}
#undef PORT_COPY16_BATCHED
#else
DEVFN void port_gather16(void* dst, const void* src, u64 stride, u32 n) {
    for (u32 j = 0; j < n; j++) {
        __builtin_memcpy((char*)dst + 16 * (u64)j, (const char*)src + (u64)j * stride, 16);
    }
}
DEVFN void port_scatter16(void* dst, u64 stride, const void* src, u32 n) {
    for (u32 j = 0; j < n; j++) {
        __builtin_memcpy((char*)dst + (u64)j * stride, (const char*)src + 16 * (u64)j, 16);
    }
}
#endif

DEVFN int go_mini(int x, int y) { return y < x ? y : x; }
DEVFN int go_maxi(int x, int y) { return y > x ? y : x; }

#endif /* TRACE_PORT_H */
