/*
 * Stub CUDA driver library for the compile-only header beside it: lets the
 * cuda-tagged build link and run on a machine without CUDA (CI). The real
 * build links the toolkit's libcuda and never sees this file.
 *
 * By default the driver initialises and reports no devices. cuInit succeeds
 * on purpose: gorgonia.org/cu calls it from a package init and exits the
 * process when it fails, so a stub that failed there would let nothing
 * run. With it, a cuda-tagged trace starts, renders on the CPU and answers
 * --gpus with "no CUDA device", which CI checks.
 *
 * With TRACE_CUDASTUB_DEVICES=N in the environment it reports N emulated
 * devices ("cudastub emulator", compute capability 9.0) that run the
 * project's kernel: trace.cu compiled here as C11, as the emulator package
 * compiles it. Device memory is host memory, copies are memcpy, a module
 * is "loaded" when the PTX text defines entries of the kernel, and holds
 * those only (cuModuleGetFunction finds no other), and a
 * launch runs the kernel over the grid on a few threads, reading each
 * argument from its parameter slot as the driver does. A stream is a
 * thread that runs its queue in order: a launch, and an asynchronous copy
 * from or to page-locked memory (cuMemHostAlloc), are queued and the call
 * returns at once, as on a GPU, so that host code reading a result before
 * it synchronised reads stale bytes here too; an asynchronous copy from
 * or to pageable memory waits for the stream and copies, as the driver
 * stages it. That lets CI run the cuda build's own code (kernels/cuda.go:
 * the device goroutine, the uploads, the header's addresses, the argument
 * slots, the lanes' streams and staging, the copies) and compare its
 * frames with the CPU's. It proves nothing about a GPU, the PTX or the
 * real driver: scripts/gpu-check.sh does that on a GPU machine.
 *
 * Failures on demand, for the tests of the error paths:
 * TRACE_CUDASTUB_FAIL is a comma-separated list of driver functions, each
 * `name` (every call fails) or `name#k` (the k-th call fails, counted
 * from when the variable took its present value), among cuStreamCreate,
 * cuMemAlloc, cuMemHostAlloc, cuMemcpyHtoDAsync, cuMemcpyDtoHAsync,
 * cuLaunchKernel, cuStreamSynchronize and cuEventRecord; an allocation
 * fails with CUDA_ERROR_OUT_OF_MEMORY, a launch or synchronisation with
 * CUDA_ERROR_LAUNCH_FAILED, a copy or an event's record with
 * CUDA_ERROR_INVALID_VALUE. And cuDeviceGetAttribute answers four private
 * attributes, CUDASTUB_ATTR_LIVE_DEVICE_ALLOCS, _HOST_ALLOCS, _STREAMS,
 * _EVENTS and _MODULES (0x7fff0000 on), with the number of device
 * allocations, page-locked allocations, streams, events and modules not
 * yet freed, so that tests can check a failure frees what it had
 * allocated.
 *
 * Events (cuEventCreate, cuEventRecord, cuEventElapsedTime, ...) are
 * queued on a stream like a copy and take the host's monotonic clock when
 * the stream reaches them: the milliseconds between two are the time the
 * stream's thread spent between them.
 *
 * Every other function fails with CUDA_ERROR_NO_DEVICE.
 *
 * Built by the Makefile (vet-cuda) into a temporary shared libcuda.so with
 * the include path of the Go code (../compat, then this folder) and
 * -std=c11, which keeps the kernel's arithmetic free of fused
 * multiply-adds.
 */
#define _POSIX_C_SOURCE 200809L

#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kernel, its entries renamed so that they cannot clash with the
 * emulator package's copy in the same program. */
#define trace_pixels cudastub_trace_pixels
#define trace_pixels_path cudastub_trace_pixels_path
#define trace_pixels_whitted cudastub_trace_pixels_whitted
#define wf_init cudastub_wf_init
#define wf_shade cudastub_wf_shade
#define wf_intersect cudastub_wf_intersect
#define wf_occluded cudastub_wf_occluded
#define wf_finish cudastub_wf_finish
#define trace_reduce cudastub_trace_reduce
#include "../../trace.cu"
#undef trace_pixels
#undef trace_pixels_path
#undef trace_pixels_whitted
#undef wf_init
#undef wf_shade
#undef wf_intersect
#undef wf_occluded
#undef wf_finish
#undef trace_reduce

#define NO_DEVICE CUDA_ERROR_NO_DEVICE

/* Distinct non-null handles. */
static char the_context;

/* Guards the fault injection's state, the live counts and the list of
 * page-locked allocations. */
static pthread_mutex_t stub_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- Failures on demand (TRACE_CUDASTUB_FAIL) ---- */

static char fault_spec[256];
enum { MaxCounted = 32 };
static struct {
    char name[40];
    unsigned long calls;
} counted[MaxCounted];
static int ncounted;

/* faulty reports whether this call of the driver function name is one
 * that TRACE_CUDASTUB_FAIL says fails. */
static int faulty(const char* name)
{
    const char* spec = getenv("TRACE_CUDASTUB_FAIL");
    if (!spec) {
        spec = "";
    }
    int fail = 0;
    pthread_mutex_lock(&stub_mu);
    if (strncmp(spec, fault_spec, sizeof fault_spec - 1) != 0) {
        strncpy(fault_spec, spec, sizeof fault_spec - 1);
        ncounted = 0;
    }
    if (fault_spec[0]) {
        int i = 0;
        while (i < ncounted && strcmp(counted[i].name, name) != 0) {
            i++;
        }
        if (i == ncounted && ncounted < MaxCounted) {
            strncpy(counted[i].name, name, sizeof counted[i].name - 1);
            counted[i].calls = 0;
            ncounted++;
        }
        unsigned long calls = i < ncounted ? ++counted[i].calls : 0;
        size_t len = strlen(name);
        for (const char* p = fault_spec; *p;) {
            const char* end = strchr(p, ',');
            if (!end) {
                end = p + strlen(p);
            }
            const char* hash = memchr(p, '#', (size_t)(end - p));
            const char* name_end = hash ? hash : end;
            if ((size_t)(name_end - p) == len && strncmp(p, name, len) == 0 &&
                (!hash || strtoul(hash + 1, 0, 10) == calls)) {
                fail = 1;
            }
            p = *end ? end + 1 : end;
        }
    }
    pthread_mutex_unlock(&stub_mu);
    return fail;
}

/* ---- What is live, and which host memory is page-locked ---- */

enum {
    CUDASTUB_ATTR_LIVE_DEVICE_ALLOCS = 0x7fff0000,
    CUDASTUB_ATTR_LIVE_HOST_ALLOCS,
    CUDASTUB_ATTR_LIVE_STREAMS,
    CUDASTUB_ATTR_LIVE_EVENTS,
    CUDASTUB_ATTR_LIVE_MODULES,
};
static long live_device, live_host, live_streams, live_events, live_modules;

typedef struct Pinned {
    char* p;
    size_t bytes;
    struct Pinned* next;
} Pinned;
static Pinned* pinned;

static void count(long* live, long d)
{
    pthread_mutex_lock(&stub_mu);
    *live += d;
    pthread_mutex_unlock(&stub_mu);
}

/* is_pinned reports whether [p, p+bytes) lies in one page-locked
 * allocation. */
static int is_pinned(const void* p, size_t bytes)
{
    int in = 0;
    pthread_mutex_lock(&stub_mu);
    for (Pinned* a = pinned; a && !in; a = a->next) {
        in = (const char*)p >= a->p && (const char*)p + bytes <= a->p + a->bytes;
    }
    pthread_mutex_unlock(&stub_mu);
    return in;
}

/* The kernel's entries, by name; a CUfunction is a pointer to one. */
typedef void (*Entry)(const TraceScene*, const unsigned int*, unsigned int, float*, unsigned long long*,
                      unsigned long long*, unsigned int*, unsigned int);
/* The wavefront entries' ABI (trace.cu): three more arguments, the slots
 * and the two queues, between npixels and out. */
typedef void (*WaveEntry)(const TraceScene*, const unsigned int*, unsigned int, PathSlot*, unsigned int*,
                          unsigned int*, float*, unsigned long long*, unsigned long long*, unsigned int);
typedef struct {
    const char* name;
    Entry entry;
    WaveEntry wave; /* set instead of entry for a wavefront entry */
} Function;
static const Function functions[] = {
    {"trace_pixels", cudastub_trace_pixels, 0},
    {"trace_pixels_path", cudastub_trace_pixels_path, 0},
    {"trace_pixels_whitted", cudastub_trace_pixels_whitted, 0},
    {"wf_init", 0, cudastub_wf_init},
    {"wf_shade", 0, cudastub_wf_shade},
    {"wf_intersect", 0, cudastub_wf_intersect},
    {"wf_occluded", 0, cudastub_wf_occluded},
    {"wf_finish", 0, cudastub_wf_finish},
    {"trace_reduce", cudastub_trace_reduce, 0},
};
enum { NFunctions = sizeof functions / sizeof functions[0] };

static const Function* function_of(CUfunction f)
{
    for (int i = 0; i < NFunctions; i++) {
        if (f == (CUfunction)(void*)&functions[i]) {
            return &functions[i];
        }
    }
    return 0;
}
static size_t stack_limit = 1024;

static int device_count(void)
{
    const char* s = getenv("TRACE_CUDASTUB_DEVICES");
    int n = s ? atoi(s) : 0;
    return n < 0 ? 0 : n > 8 ? 8 : n;
}

CUresult cuInit(unsigned int Flags) { return CUDA_SUCCESS; }

CUresult cuDriverGetVersion(int* driverVersion)
{
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count)
{
    *count = device_count();
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal)
{
    if (ordinal < 0 || ordinal >= device_count()) {
        return device_count() == 0 ? NO_DEVICE : CUDA_ERROR_INVALID_DEVICE;
    }
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev)
{
    if (len < 1) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    strncpy(name, "cudastub emulator", (size_t)len - 1);
    name[len - 1] = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev)
{
    long* live = 0;
    switch ((int)attrib) {
    case CUDASTUB_ATTR_LIVE_DEVICE_ALLOCS: live = &live_device; break;
    case CUDASTUB_ATTR_LIVE_HOST_ALLOCS: live = &live_host; break;
    case CUDASTUB_ATTR_LIVE_STREAMS: live = &live_streams; break;
    case CUDASTUB_ATTR_LIVE_EVENTS: live = &live_events; break;
    case CUDASTUB_ATTR_LIVE_MODULES: live = &live_modules; break;
    }
    if (live) {
        pthread_mutex_lock(&stub_mu);
        *pi = (int)*live;
        pthread_mutex_unlock(&stub_mu);
        return CUDA_SUCCESS;
    }
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
    default: *pi = 0;
    }
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev)
{
    *bytes = (size_t)1 << 30;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev)
{
    *pctx = (CUcontext)(void*)&the_context;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext ctx) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }

CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit)
{
    *pvalue = limit == CU_LIMIT_STACK_SIZE ? stack_limit : 0;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    if (limit == CU_LIMIT_STACK_SIZE) {
        stack_limit = value;
    }
    return CUDA_SUCCESS;
}

/* A module loads when the image is PTX that defines the kernel's entry;
 * otherwise the error log says so, as the JIT compiler's would. */
/* A module: which of the kernel's entries its image defines, a bit per
 * function of functions[], so that cuModuleGetFunction finds those only,
 * as a driver does. */
typedef struct {
    unsigned defined;
} Module;

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options,
                            void** optionValues)
{
    unsigned defined = 0;
    for (int i = 0; i < NFunctions; i++) {
        char decl[64];
        snprintf(decl, sizeof decl, ".entry %s(", functions[i].name);
        if (strstr((const char*)image, decl)) {
            defined |= 1u << i;
        }
    }
    if (defined == 0) {
        char* log = 0;
        size_t size = 0;
        for (unsigned int i = 0; i < numOptions; i++) {
            if (options[i] == CU_JIT_ERROR_LOG_BUFFER) {
                log = (char*)optionValues[i];
            } else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
                size = (size_t)(uintptr_t)optionValues[i];
            }
        }
        if (log && size > 0) {
            strncpy(log, "cudastub: the image defines none of the kernel's entries", size - 1);
            log[size - 1] = 0;
        }
        return CUDA_ERROR_INVALID_PTX;
    }
    Module* m = (Module*)malloc(sizeof *m);
    if (!m) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->defined = defined;
    count(&live_modules, 1);
    *module = (CUmodule)(void*)m;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) { return cuModuleLoadDataEx(module, image, 0, 0, 0); }

CUresult cuModuleUnload(CUmodule hmod)
{
    if (!hmod) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    free(hmod);
    count(&live_modules, -1);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name)
{
    const Module* m = (const Module*)(void*)hmod;
    for (int i = 0; i < NFunctions; i++) {
        if (strcmp(name, functions[i].name) == 0 && (m->defined & (1u << i))) {
            *hfunc = (CUfunction)(void*)&functions[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

/* The emulated device, of one multiprocessor, holds one block of any
 * function at a time: a wave is a block's threads, so that a batch is
 * several waves, and the megakernels' threads take pixels beyond their
 * own (trace.cu), as on a GPU. */
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize)
{
    if (!func) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!numBlocks || blockSize <= 0 || blockSize > 1024) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *numBlocks = 1;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    if (!hfunc) {
        return CUDA_ERROR_INVALID_HANDLE; /* as a GPU's driver answers a function never loaded */
    }
    *pi = attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
    return CUDA_SUCCESS;
}

/* A launch of one of the entries: the arguments as the driver reads them from
 * the parameter slots (a .u64 reads 8 bytes, the .u32 npixels 4), then the
 * grid's blocks shared out among a few threads, each running its blocks'
 * threads one after another. */
typedef struct {
    Entry entry;
    WaveEntry wave;
    const TraceScene* scene;
    const unsigned int* pixels;
    unsigned int npixels;
    PathSlot* slots;
    unsigned int *qin, *qout;
    float* out;
    unsigned long long *rays, *nonfinite;
    unsigned int* next; /* the megakernels' pixel counter */
    unsigned int parts; /* the batch's parts (trace.cu), every entry's last argument */
    unsigned int grid, block, first, step;
} Launch;

static void* run_blocks(void* arg)
{
    const Launch* l = (const Launch*)arg;
    port_block_dim = l->block;
    for (unsigned int b = l->first; b < l->grid; b += l->step) {
        port_block_idx = b;
        for (unsigned int t = 0; t < l->block; t++) {
            port_thread_idx = t;
            if (l->wave) {
                l->wave(l->scene, l->pixels, l->npixels, l->slots, l->qin, l->qout, l->out, l->rays, l->nonfinite,
                        l->parts);
            } else {
                l->entry(l->scene, l->pixels, l->npixels, l->out, l->rays, l->nonfinite, l->next, l->parts);
            }
        }
    }
    return 0;
}

typedef struct Stream Stream;
static void run_launch(const Launch* launch);
static CUresult queue_launch(Stream* s, const Launch* launch);

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra)
{
    const Function* fn = function_of(f);
    if (!fn || !kernelParams || extra) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (gridDimX == 0 || gridDimY != 1 || gridDimZ != 1 || blockDimX == 0 || blockDimX > 1024 || blockDimY != 1 ||
        blockDimZ != 1) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    Launch base;
    base.entry = fn->entry;
    base.wave = fn->wave;
    base.scene = (const TraceScene*)(uintptr_t) * (const unsigned long long*)kernelParams[0];
    base.pixels = (const unsigned int*)(uintptr_t) * (const unsigned long long*)kernelParams[1];
    base.npixels = *(const unsigned int*)kernelParams[2];
    int k = 3;
    base.slots = 0;
    base.qin = base.qout = 0;
    if (fn->wave) {
        base.slots = (PathSlot*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
        base.qin = (unsigned int*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
        base.qout = (unsigned int*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
    }
    base.out = (float*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
    base.rays = (unsigned long long*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
    base.nonfinite = (unsigned long long*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
    base.next = 0;
    if (!fn->wave) {
        base.next = (unsigned int*)(uintptr_t) * (const unsigned long long*)kernelParams[k++];
    }
    base.parts = *(const unsigned int*)kernelParams[k];
    base.grid = gridDimX;
    base.block = blockDimX;
    if (faulty("cuLaunchKernel")) {
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    if (!hStream) {
        run_launch(&base);
        return CUDA_SUCCESS;
    }
    return queue_launch((Stream*)hStream, &base);
}

/* run_launch runs a launch's grid, its blocks shared out among a few
 * threads. */
static void run_launch(const Launch* launch)
{
    Launch base = *launch;
    enum { MaxThreads = 16 };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned int n = cpus < 1 ? 1 : cpus > MaxThreads ? MaxThreads : (unsigned int)cpus;
    if (n > base.grid) {
        n = base.grid;
    }
    Launch parts[MaxThreads];
    pthread_t threads[MaxThreads];
    unsigned int started = 0;
    for (unsigned int i = 0; i < n; i++) {
        parts[i] = base;
        parts[i].first = i;
        parts[i].step = n;
        if (i > 0 && pthread_create(&threads[i], 0, run_blocks, &parts[i]) == 0) {
            started |= 1u << i;
        } else if (i > 0) {
            run_blocks(&parts[i]);
        }
    }
    run_blocks(&parts[0]);
    for (unsigned int i = 1; i < n; i++) {
        if (started & (1u << i)) {
            pthread_join(threads[i], 0);
        }
    }
}

/* ---- Streams, memory and copies ---- */

/* An event: the time the stream reached it, once it has. */
typedef struct Event {
    int recorded;  /* cuEventRecord was called */
    int pending;   /* records queued on a stream and not yet reached */
    struct timespec at;
} Event;

/* An operation queued on a stream: a copy, a launch or an event's record. */
typedef struct Op {
    int is_launch;
    Event* event;
    void* dst;
    const void* src;
    size_t bytes;
    Launch launch;
    struct Op* next;
} Op;

static void event_reached(Event* e);

/* A stream: a thread that runs its queue in order. */
struct Stream {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* the queue or running changed */
    Op *head, *tail;
    int running; /* an operation is off the queue and running */
    int quit;
    pthread_t thread;
};

static void* stream_main(void* arg)
{
    Stream* s = (Stream*)arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->head && !s->quit) {
            pthread_cond_wait(&s->cv, &s->mu);
        }
        if (!s->head) {
            break;
        }
        Op* op = s->head;
        s->head = op->next;
        if (!s->head) {
            s->tail = 0;
        }
        s->running = 1;
        pthread_mutex_unlock(&s->mu);
        if (op->is_launch) {
            run_launch(&op->launch);
        } else if (op->event) {
            event_reached(op->event);
        } else {
            memcpy(op->dst, op->src, op->bytes);
        }
        free(op);
        pthread_mutex_lock(&s->mu);
        s->running = 0;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void stream_push(Stream* s, Op* op);

/* ---- Events ---- */

/* Signalled, under stub_mu, when a stream reaches an event. */
static pthread_cond_t event_cv = PTHREAD_COND_INITIALIZER;

static void event_reached(Event* e)
{
    pthread_mutex_lock(&stub_mu);
    clock_gettime(CLOCK_MONOTONIC, &e->at);
    e->pending--;
    pthread_cond_broadcast(&event_cv);
    pthread_mutex_unlock(&stub_mu);
}

CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags)
{
    Event* e = calloc(1, sizeof *e);
    if (!e) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    count(&live_events, 1);
    *phEvent = (CUevent)(void*)e;
    return CUDA_SUCCESS;
}

/* event_wait returns when every record of e queued on a stream has been
 * reached. */
static void event_wait(Event* e)
{
    pthread_mutex_lock(&stub_mu);
    while (e->pending > 0) {
        pthread_cond_wait(&event_cv, &stub_mu);
    }
    pthread_mutex_unlock(&stub_mu);
}

/* An event destroyed with records still queued is freed once they are
 * reached (here: waited for), as the driver defers it. */
CUresult cuEventDestroy(CUevent hEvent)
{
    Event* e = (Event*)hEvent;
    if (!e) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    event_wait(e);
    free(e);
    count(&live_events, -1);
    return CUDA_SUCCESS;
}

/* A record on a stream is reached when the stream has run what was queued
 * before it; on the null stream, at once. */
CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    Event* e = (Event*)hEvent;
    if (!e) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (faulty("cuEventRecord")) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&stub_mu);
    e->recorded = 1;
    e->pending++;
    pthread_mutex_unlock(&stub_mu);
    if (!hStream) {
        event_reached(e);
        return CUDA_SUCCESS;
    }
    Op* op = calloc(1, sizeof *op);
    if (!op) {
        event_reached(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->event = e;
    stream_push((Stream*)hStream, op);
    return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent hEvent)
{
    Event* e = (Event*)hEvent;
    if (!e) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&stub_mu);
    int pending = e->pending;
    pthread_mutex_unlock(&stub_mu);
    return pending > 0 ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    Event* e = (Event*)hEvent;
    if (!e) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    event_wait(e);
    return CUDA_SUCCESS;
}

/* The milliseconds from hStart's last record to hEnd's: an event never
 * recorded is an invalid handle, one not yet reached not ready, as the
 * driver answers. */
CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd)
{
    Event *a = (Event*)hStart, *b = (Event*)hEnd;
    if (!a || !b || !pMilliseconds) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&stub_mu);
    if (!a->recorded || !b->recorded) {
        r = CUDA_ERROR_INVALID_HANDLE;
    } else if (a->pending > 0 || b->pending > 0) {
        r = CUDA_ERROR_NOT_READY;
    } else {
        *pMilliseconds = (float)((double)(b->at.tv_sec - a->at.tv_sec) * 1e3 + (double)(b->at.tv_nsec - a->at.tv_nsec) / 1e6);
    }
    pthread_mutex_unlock(&stub_mu);
    return r;
}

static void stream_push(Stream* s, Op* op)
{
    pthread_mutex_lock(&s->mu);
    if (s->tail) {
        s->tail->next = op;
    } else {
        s->head = op;
    }
    s->tail = op;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* stream_wait returns when everything queued on s has run. */
static void stream_wait(Stream* s)
{
    if (!s) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    while (s->head || s->running) {
        pthread_cond_wait(&s->cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
}

static CUresult queue_launch(Stream* s, const Launch* launch)
{
    Op* op = calloc(1, sizeof *op);
    if (!op) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->launch = *launch;
    op->is_launch = 1;
    stream_push(s, op);
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags)
{
    if (faulty("cuStreamCreate")) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Stream* s = calloc(1, sizeof *s);
    if (!s) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&s->mu, 0);
    pthread_cond_init(&s->cv, 0);
    if (pthread_create(&s->thread, 0, stream_main, s) != 0) {
        free(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    count(&live_streams, 1);
    *phStream = (CUstream)(void*)s;
    return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream hStream)
{
    Stream* s = (Stream*)hStream;
    if (!s) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    stream_wait(s);
    pthread_mutex_lock(&s->mu);
    s->quit = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, 0);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
    count(&live_streams, -1);
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    stream_wait((Stream*)hStream);
    return faulty("cuStreamSynchronize") ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr* dptr, size_t bytesize)
{
    if (bytesize == 0) {
        return CUDA_ERROR_INVALID_VALUE; /* as the driver answers */
    }
    if (faulty("cuMemAlloc")) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    void* p = malloc(bytesize);
    if (!p) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    count(&live_device, 1);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr)
{
    if (dptr) {
        free((void*)(uintptr_t)dptr);
        count(&live_device, -1);
    }
    return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags)
{
    if (bytesize == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (faulty("cuMemHostAlloc")) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Pinned* a = malloc(sizeof *a);
    void* p = 0;
    if (!a || posix_memalign(&p, 4096, bytesize) != 0) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->p = (char*)p;
    a->bytes = bytesize;
    pthread_mutex_lock(&stub_mu);
    a->next = pinned;
    pinned = a;
    live_host++;
    pthread_mutex_unlock(&stub_mu);
    *pp = p;
    return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void* p)
{
    pthread_mutex_lock(&stub_mu);
    Pinned** link = &pinned;
    while (*link && (*link)->p != (char*)p) {
        link = &(*link)->next;
    }
    Pinned* a = *link;
    if (a) {
        *link = a->next;
        live_host--;
    }
    pthread_mutex_unlock(&stub_mu);
    if (!a) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    free(a->p);
    free(a);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount)
{
    memcpy((void*)(uintptr_t)dstDevice, srcHost, ByteCount);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    memcpy(dstHost, (const void*)(uintptr_t)srcDevice, ByteCount);
    return CUDA_SUCCESS;
}

/* copy_async copies on stream s: queued when the host side is
 * page-locked, else once s has run what was queued before. */
static CUresult copy_async(void* dst, const void* src, size_t bytes, const void* host, Stream* s)
{
    if (s && is_pinned(host, bytes)) {
        Op* op = calloc(1, sizeof *op);
        if (!op) {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        op->dst = dst;
        op->src = src;
        op->bytes = bytes;
        stream_push(s, op);
        return CUDA_SUCCESS;
    }
    stream_wait(s);
    memcpy(dst, src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream)
{
    if (faulty("cuMemcpyHtoDAsync")) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return copy_async((void*)(uintptr_t)dstDevice, srcHost, ByteCount, srcHost, (Stream*)hStream);
}

CUresult cuMemcpyDtoHAsync(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    if (faulty("cuMemcpyDtoHAsync")) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return copy_async(dstHost, (const void*)(uintptr_t)srcDevice, ByteCount, dstHost, (Stream*)hStream);
}

/* The CUDA 12 symbols that ../compat/cuda.h maps the five CUDA 13 macros to. */
CUresult cuCtxCreate(CUcontext* pctx, unsigned int flags, CUdevice dev) { return NO_DEVICE; }
CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device) { return NO_DEVICE; }
CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) { return NO_DEVICE; }
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, size_t numDependencies) { return NO_DEVICE; }
CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, size_t* numEdges) { return NO_DEVICE; }

/* Everything else gorgonia.org/cu wraps. */
CUresult cuArray3DCreate(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray) { return NO_DEVICE; }
CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor, CUarray hArray) { return NO_DEVICE; }
CUresult cuArrayCreate(CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray) { return NO_DEVICE; }
CUresult cuArrayDestroy(CUarray hArray) { return NO_DEVICE; }
CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor, CUarray hArray) { return NO_DEVICE; }
CUresult cuCtxDestroy(CUcontext ctx) { return NO_DEVICE; }
CUresult cuCtxDisablePeerAccess(CUcontext peerContext) { return NO_DEVICE; }
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) { return NO_DEVICE; }
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) { return NO_DEVICE; }
CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) { return NO_DEVICE; }
CUresult cuCtxGetCurrent(CUcontext* pctx) { return NO_DEVICE; }
CUresult cuCtxGetDevice(CUdevice* device) { return NO_DEVICE; }
CUresult cuCtxGetFlags(unsigned int* flags) { return NO_DEVICE; }
CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pConfig) { return NO_DEVICE; }
CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) { return NO_DEVICE; }
CUresult cuCtxPopCurrent(CUcontext* pctx) { return NO_DEVICE; }
CUresult cuCtxPushCurrent(CUcontext ctx) { return NO_DEVICE; }
CUresult cuCtxResetPersistingL2Cache(void) { return NO_DEVICE; }
CUresult cuCtxSetCacheConfig(CUfunc_cache config) { return NO_DEVICE; }
CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) { return NO_DEVICE; }
CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) { return NO_DEVICE; }
CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice) { return NO_DEVICE; }
CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return NO_DEVICE; }
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) { return NO_DEVICE; }
CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return NO_DEVICE; }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) { return NO_DEVICE; }
CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) { return NO_DEVICE; }
CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config) { return NO_DEVICE; }
CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, CUgraph childGraph) { return NO_DEVICE; }
CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies) { return NO_DEVICE; }
CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams) { return NO_DEVICE; }
CUresult cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams) { return NO_DEVICE; }
CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_MEMCPY3D* copyParams, CUcontext ctx) { return NO_DEVICE; }
CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext ctx) { return NO_DEVICE; }
CUresult cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) { return NO_DEVICE; }
CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) { return NO_DEVICE; }
CUresult cuGraphDestroy(CUgraph hGraph) { return NO_DEVICE; }
CUresult cuGraphDestroyNode(CUgraphNode hNode) { return NO_DEVICE; }
CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) { return NO_DEVICE; }
CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name, unsigned int numOptions, CUjit_option* options, void** optionValues) { return NO_DEVICE; }
CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char* path, unsigned int numOptions, CUjit_option* options, void** optionValues) { return NO_DEVICE; }
CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) { return NO_DEVICE; }
CUresult cuLinkCreate(unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut) { return NO_DEVICE; }
CUresult cuLinkDestroy(CUlinkState state) { return NO_DEVICE; }
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) { return NO_DEVICE; }
CUresult cuMemAllocPitch(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes) { return NO_DEVICE; }
CUresult cuMemGetAddressRange(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) { return NO_DEVICE; }
CUresult cuMemGetInfo(size_t* free, size_t* total) { return NO_DEVICE; }
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpy2D(const CUDA_MEMCPY2D* pCopy) { return NO_DEVICE; }
CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D* pCopy, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D* pCopy) { return NO_DEVICE; }
CUresult cuMemcpy3D(const CUDA_MEMCPY3D* pCopy) { return NO_DEVICE; }
CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D* pCopy, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER* pCopy) { return NO_DEVICE; }
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER* pCopy, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpyAtoA(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyAtoD(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyAtoH(void* dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyAtoHAsync(void* dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpyDtoA(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpyHtoA(CUarray dstArray, size_t dstOffset, const void* srcHost, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyHtoAAsync(CUarray dstArray, size_t dstOffset, const void* srcHost, size_t ByteCount, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount) { return NO_DEVICE; }
CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, size_t N) { return NO_DEVICE; }
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD2D16(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height) { return NO_DEVICE; }
CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD2D32(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height) { return NO_DEVICE; }
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD2D8(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) { return NO_DEVICE; }
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N) { return NO_DEVICE; }
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) { return NO_DEVICE; }
CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) { return NO_DEVICE; }
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) { return NO_DEVICE; }
CUresult cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) { return NO_DEVICE; }
CUresult cuModuleGetSurfRef(CUsurfref* pSurfRef, CUmodule hmod, const char* name) { return NO_DEVICE; }
CUresult cuModuleGetTexRef(CUtexref* pTexRef, CUmodule hmod, const char* name) { return NO_DEVICE; }
CUresult cuModuleLoad(CUmodule* module, const char* fname) { return NO_DEVICE; }
CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) { return NO_DEVICE; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags) { return NO_DEVICE; }
CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) { return NO_DEVICE; }
CUresult cuPointerSetAttribute(const void* value, CUpointer_attribute attribute, CUdeviceptr ptr) { return NO_DEVICE; }
CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) { return NO_DEVICE; }
CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) { return NO_DEVICE; }
CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) { return NO_DEVICE; }
CUresult cuStreamGetPriority(CUstream hStream, int* priority) { return NO_DEVICE; }
CUresult cuStreamQuery(CUstream hStream) { return NO_DEVICE; }
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) { return NO_DEVICE; }
CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return NO_DEVICE; }
CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags) { return NO_DEVICE; }
CUresult cuSurfRefGetArray(CUarray* phArray, CUsurfref hSurfRef) { return NO_DEVICE; }
CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags) { return NO_DEVICE; }
CUresult cuTexRefGetAddress(CUdeviceptr* pdptr, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetAddressMode(CUaddress_mode* pam, CUtexref hTexRef, int dim) { return NO_DEVICE; }
CUresult cuTexRefGetArray(CUarray* phArray, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetBorderColor(float* pBorderColor, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetFilterMode(CUfilter_mode* pfm, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetFlags(unsigned int* pFlags, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetFormat(CUarray_format* pFormat, int* pNumChannels, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefGetMaxAnisotropy(int* pmaxAniso, CUtexref hTexRef) { return NO_DEVICE; }
CUresult cuTexRefSetAddress(size_t* ByteOffset, CUtexref hTexRef, CUdeviceptr dptr, size_t bytes) { return NO_DEVICE; }
CUresult cuTexRefSetAddress2D(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR* desc, CUdeviceptr dptr, size_t Pitch) { return NO_DEVICE; }
CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am) { return NO_DEVICE; }
CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags) { return NO_DEVICE; }
CUresult cuTexRefSetBorderColor(CUtexref hTexRef, float* pBorderColor) { return NO_DEVICE; }
CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm) { return NO_DEVICE; }
CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags) { return NO_DEVICE; }
CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents) { return NO_DEVICE; }
CUresult cuTexRefSetMaxAnisotropy(CUtexref hTexRef, unsigned int maxAniso) { return NO_DEVICE; }
CUresult cuTexRefSetMipmapFilterMode(CUtexref hTexRef, CUfilter_mode fm) { return NO_DEVICE; }
CUresult cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias) { return NO_DEVICE; }
CUresult cuTexRefSetMipmapLevelClamp(CUtexref hTexRef, float minMipmapLevelClamp, float maxMipmapLevelClamp) { return NO_DEVICE; }
