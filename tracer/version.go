package tracer

// PixelVersion numbers what this tracer's pixels are. Two builds of trace
// with the same PixelVersion render every scene to the same bits; builds
// with different ones may not. Render workers and checkpoints carry it:
// a coordinator does not use a worker of another PixelVersion, and a
// checkpoint written by another PixelVersion is not resumed, so that no
// frame is ever stitched from two renderers' tiles.
//
// The rule (docs/pixel-version.md): bump it in the same commit as any
// change that can change any pixel of a scene that rendered before the
// change — a formula, a constant, a sampling strategy, the order or number
// of random numbers drawn, a polynomial of package fmath, the film's
// curves — in the Go tracer and the kernel alike. A change that only adds
// what existing scenes cannot use (a new field whose default renders as
// before, a new material kind) keeps it. Speed-ups that keep the bits
// (a BVH layout, SIMD) keep it too; TestPixelVersionGallery (package
// scheduler) fails when the gallery's pixels change and PixelVersion
// does not.
const PixelVersion uint32 = 20
