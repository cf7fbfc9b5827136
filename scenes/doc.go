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
// Mesh objects and image textures and backgrounds are part of the format
// but not supported yet; a scene that uses them is rejected with an error
// that says so.
package scenes
