// Package scenes reads trace's scene files: JSON documents that describe a
// camera, render settings, film, background, materials, lights and shapes
// (the format is docs/scene-format.md).
//
// Load and Parse turn a scene file into a tracer.SceneDesc. Every field is
// checked: unknown fields, wrong types, values out of range and values past
// the tracer's limits are errors. Every error is an *Error that names the
// file, the line and column, and the JSON path of the offending value
// (objects[3].radius), so that a typo is caught and easy to find.
//
// The files a scene names are read too, relative to its folder and never
// outside it unless Options.AllowOutsideAssets says so: meshes from OBJ
// (with MTL material libraries), glTF 2.0, PLY and STL files, and images
// for textures and equirectangular backgrounds (PNG, JPEG, GIF, BMP, TIFF,
// WebP, Radiance HDR, PFM, TGA), decoded to linear RGB. LoadMesh reads a
// mesh file on its own.
package scenes
