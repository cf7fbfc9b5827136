package kernels

// scene_gen.h, the kernel's declarations of the compiled scene, is
// generated from the Go types (kernels/internal/gendecl); the albedo
// tables of the GGX lobes and of rough glass, ggx_albedo_gen.h and
// tracer/ggx_albedo_gen.go, by kernels/internal/genalbedo.
//go:generate go run ./internal/gendecl -o scene_gen.h
//go:generate go run ./internal/genalbedo -go ../tracer/ggx_albedo_gen.go -h ggx_albedo_gen.h
