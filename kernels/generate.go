package kernels

// scene_gen.h, the kernel's declarations of the compiled scene, is
// generated from the Go types (kernels/internal/gendecl).
//go:generate go run ./internal/gendecl -o scene_gen.h
