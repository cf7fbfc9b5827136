/*
 * driver-jit: does the NVIDIA driver accept the kernel's PTX, and what does
 * its JIT compiler make of it? scripts/gpu-check.sh runs it before anything
 * is built, since it needs no CUDA toolkit, no cuda.h and no Go: only a C
 * compiler and the driver's libcuda.so.1, opened with dlopen.
 *
 *   cc -std=c11 -O2 -o driver-jit driver-jit.c -ldl
 *   driver-jit LIBCUDA PTXFILE BLOCKDIM ENTRY...
 *
 * It loads PTXFILE into the primary context of device 0 (the driver
 * compiling it for that GPU, or taking it from its JIT cache,
 * CUDA_CACHE_PATH), then for each ENTRY prints the registers per thread,
 * local memory (the stack frame) and the blocks of BLOCKDIM threads that
 * fit on one multiprocessor, as the driver reports them. Exit status 0 when
 * the module loads and every entry is found, 1 when the driver refuses
 * (the JIT's error log is printed), 2 on bad arguments or a missing
 * library.
 *
 * The few driver API entry points and constants it uses are declared here
 * with the values of CUDA's cuda.h (they have been stable since CUDA 4);
 * none of them is one of the _v2 symbols that cuda.h remaps.
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;

enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_LOG_VERBOSE = 12,
};
enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
};
enum {
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
};

static void* lib;

static void* sym(const char* name, int required)
{
    void* p = dlsym(lib, name);
    if (!p && required) {
        fprintf(stderr, "driver-jit: %s has no %s: %s\n", "libcuda", name, dlerror());
        exit(2);
    }
    return p;
}

static CUresult (*p_cuGetErrorString)(CUresult, const char**);

static const char* errname(CUresult r)
{
    const char* s = 0;
    if (p_cuGetErrorString && p_cuGetErrorString(r, &s) == 0 && s) {
        return s;
    }
    return "(no description)";
}

static void check(CUresult r, const char* what)
{
    if (r != 0) {
        printf("driver-jit: %s: CUDA error %d %s\n", what, r, errname(r));
        exit(1);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char* read_file(const char* path)
{
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "driver-jit: cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "driver-jit: cannot read %s\n", path);
        exit(2);
    }
    b[n] = 0;
    fclose(f);
    return b;
}

int main(int argc, char** argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: driver-jit LIBCUDA PTXFILE BLOCKDIM ENTRY...\n");
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "driver-jit: dlopen %s: %s\n", argv[1], dlerror());
        return 2;
    }
    char* ptx = read_file(argv[2]);
    int block = atoi(argv[3]);
    if (block <= 0 || block > 1024) {
        fprintf(stderr, "driver-jit: block size %s out of range\n", argv[3]);
        return 2;
    }

    CUresult (*cuInit)(unsigned) = (CUresult(*)(unsigned))sym("cuInit", 1);
    CUresult (*cuDriverGetVersion)(int*) = (CUresult(*)(int*))sym("cuDriverGetVersion", 1);
    CUresult (*cuDeviceGet)(CUdevice*, int) = (CUresult(*)(CUdevice*, int))sym("cuDeviceGet", 1);
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = (CUresult(*)(char*, int, CUdevice))sym("cuDeviceGetName", 1);
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) =
        (CUresult(*)(int*, int, CUdevice))sym("cuDeviceGetAttribute", 1);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) =
        (CUresult(*)(CUcontext*, CUdevice))sym("cuDevicePrimaryCtxRetain", 1);
    CUresult (*cuCtxSetCurrent)(CUcontext) = (CUresult(*)(CUcontext))sym("cuCtxSetCurrent", 1);
    CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) =
        (CUresult(*)(CUmodule*, const void*, unsigned, int*, void**))sym("cuModuleLoadDataEx", 1);
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) =
        (CUresult(*)(CUfunction*, CUmodule, const char*))sym("cuModuleGetFunction", 1);
    CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) =
        (CUresult(*)(int*, int, CUfunction))sym("cuFuncGetAttribute", 1);
    CUresult (*cuOccupancy)(int*, CUfunction, int, size_t) =
        (CUresult(*)(int*, CUfunction, int, size_t))sym("cuOccupancyMaxActiveBlocksPerMultiprocessor", 0);
    p_cuGetErrorString = (CUresult(*)(CUresult, const char**))sym("cuGetErrorString", 0);

    check(cuInit(0), "cuInit");
    int version = 0;
    check(cuDriverGetVersion(&version), "cuDriverGetVersion");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet(0)");
    char name[256];
    check(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    int major = 0, minor = 0, sms = 0, regs_sm = 0, threads_sm = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&regs_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, dev);
    cuDeviceGetAttribute(&threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    printf("device: %s, sm_%d%d, %d multiprocessors, %d registers and %d threads per multiprocessor; driver CUDA %d.%d\n",
           name, major, minor, sms, regs_sm, threads_sm, version / 1000, version % 1000 / 10);

    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

    static char info[64 << 10], error[64 << 10];
    int opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void* vals[] = {info, (void*)(size_t)sizeof info, error, (void*)(size_t)sizeof error, (void*)(size_t)1};
    double t0 = now();
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, ptx, 5, opts, vals);
    double secs = now() - t0;
    if (info[0]) {
        printf("JIT info log:\n%s\n", info);
    }
    if (r != 0) {
        printf("driver-jit: the driver refused %s: CUDA error %d %s\nJIT error log:\n%s\n", argv[2], r, errname(r),
               error[0] ? error : "(empty)");
        return 1;
    }
    printf("loaded %s in %.2f s (compiled for sm_%d%d, or taken from the JIT cache)\n", argv[2], secs, major, minor);

    int status = 0;
    for (int i = 4; i < argc; i++) {
        CUfunction fn;
        r = cuModuleGetFunction(&fn, mod, argv[i]);
        if (r != 0) {
            printf("driver-jit: entry %s: CUDA error %d %s\n", argv[i], r, errname(r));
            status = 1;
            continue;
        }
        int nregs = -1, local = -1, maxthreads = -1, ptxv = -1, binv = -1, blocks = -1;
        cuFuncGetAttribute(&nregs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
        cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
        cuFuncGetAttribute(&maxthreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);
        cuFuncGetAttribute(&ptxv, CU_FUNC_ATTRIBUTE_PTX_VERSION, fn);
        cuFuncGetAttribute(&binv, CU_FUNC_ATTRIBUTE_BINARY_VERSION, fn);
        char occ[128] = "n/a (the driver has no occupancy calculator)";
        if (cuOccupancy) {
            r = cuOccupancy(&blocks, fn, block, 0);
            if (r == 0) {
                snprintf(occ, sizeof occ, "%d blocks of %d = %d warps", blocks, block, blocks * block / 32);
                if (threads_sm > 0) {
                    snprintf(occ + strlen(occ), sizeof occ - strlen(occ), " of %d", threads_sm / 32);
                }
            } else {
                snprintf(occ, sizeof occ, "n/a (CUDA error %d %s)", r, errname(r));
            }
        }
        printf("entry %s: %d registers, %d bytes local memory (stack), at most %d threads per block, PTX %d, "
               "binary sm_%d; per multiprocessor: %s\n",
               argv[i], nregs, local, maxthreads, ptxv, binv, occ);
    }
    return status;
}
