// Package kernels is the CUDA side of the renderer: the kernel source, the
// scene packed as the kernel reads it, and the Device interface that the
// scheduler's GPU worker drives.
//
// The kernel (trace.cu and the headers beside it) is the tracer's ray path
// written a second time, in the C that is also CUDA C++, operation for
// operation as package tracer does it, so that a pixel rendered on a GPU
// has the same bits as one rendered on a CPU (the determinism
// contract; see the README). It reads the compiled scene's flat arrays as they are: the C
// structs have the Go structs' layouts, being generated from them into
// scene_gen.h with the kinds and limits (go generate; see
// kernels/internal/gendecl).
//
// The kernel source is used three ways. clang compiles it to PTX, which
// the cuda build embeds and runs through gorgonia.org/cu (files with the
// cuda build tag). Package kernels/emulator compiles the same source with
// gcc through cgo and runs it over the grid on the CPU: that is how the
// default build and its tests prove the kernel right without a GPU. And
// Source embeds it, for tools, and so that packages that compile it rebuild
// when it changes.
//
// Pack turns a tracer.Scene into a Packed scene and refuses, with an
// error, any scene the kernel cannot render exactly; a Device uploads it
// once and then renders batches of pixels.
package kernels
