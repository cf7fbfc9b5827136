/*
 * CUDA 13 compatibility shim for gorgonia.org/cu v0.9.6.
 *
 * Put this folder first on the C include path of a cuda-tagged build
 * (CGO_CFLAGS="-I kernels/cudastub/compat ...", as `make cuda` does): it
 * includes the real <cuda.h> found further down the path and, when that
 * header is CUDA 13.0 or later, maps back the five driver entry points whose
 * macros CUDA 13 pointed at new symbols with new signatures. gorgonia.org/cu
 * v0.9.6 calls them with the CUDA 12 arguments; the CUDA 13 driver still
 * exports the CUDA 12 symbols, so upstream compiles and links unmodified.
 * With CUDA 11.x and 12.x this header changes nothing.
 *
 *   cuCtxCreate             13: cuCtxCreate_v4 (CUctxCreateParams*)   -> cuCtxCreate_v2
 *   cuMemAdvise             13: cuMemAdvise_v2 (CUmemLocation)        -> cuMemAdvise
 *   cuMemPrefetchAsync      13: cuMemPrefetchAsync_v2 (CUmemLocation) -> cuMemPrefetchAsync
 *   cuGraphAddDependencies  13: ..._v2 (CUgraphEdgeData*)             -> cuGraphAddDependencies
 *   cuGraphGetEdges         13: ..._v2 (CUgraphEdgeData*)             -> cuGraphGetEdges
 *
 * The project's own code calls none of them; they matter only because
 * gorgonia.org/cu wraps them.
 */
#ifndef TRACE_CUDA_COMPAT_H
#define TRACE_CUDA_COMPAT_H

#include_next <cuda.h>

#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000

#undef cuCtxCreate
#define cuCtxCreate cuCtxCreate_v2
CUresult CUDAAPI cuCtxCreate(CUcontext* pctx, unsigned int flags, CUdevice dev);

#undef cuMemAdvise
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);

#undef cuMemPrefetchAsync
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);

#undef cuGraphAddDependencies
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, size_t numDependencies);

#undef cuGraphGetEdges
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, size_t* numEdges);

#endif /* CUDA_VERSION >= 13000 */

#endif /* TRACE_CUDA_COMPAT_H */
