package kernels

import _ "embed" // for PTX

// PTX is the kernel (trace.cu and its headers) compiled to PTX 7.0 for
// sm_80 by Debian's clang-19, which any CUDA driver from 11.1 on compiles
// for its GPU (compute capability 8.0 or later) when the module is loaded.
// It is generated: `make kernels` rebuilds trace.ptx from the source and CI
// fails when the committed file differs from what the source gives
// (`make check-ptx`). Only the cuda build loads it; every build embeds it.
//
//go:embed trace.ptx
var PTX string
