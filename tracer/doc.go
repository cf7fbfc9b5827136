// Package tracer is the renderer: camera, shapes, BVH, materials, textures,
// lights, the two integrators and the film.
//
// A scene is described with the types of desc.go (what the scene file
// parser builds), then compiled by Compile into a Scene: flat arrays of
// shapes, BVH nodes, materials, textures and lights that the per-ray code
// reads without an interface call, and that the CUDA kernel reads as the
// same bytes.
//
// Everything on the ray path is float32 with IEEE round-to-nearest basic
// operations; products that the Go compiler could fuse into a multiply-add
// are wrapped in float32(...), and the transcendental functions come from
// package fmath, so that the CPU tracer and the kernel agree bit for bit.
package tracer
