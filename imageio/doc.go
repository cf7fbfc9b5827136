// Package imageio writes a render's image: it picks the format from the
// output's name or an explicit Encoding, encodes the framebuffer as PNG,
// JPEG (tone-mapped through the film) or as OpenEXR, Radiance HDR or PFM
// (linear radiance), and writes files so that one appears only once the
// image is complete (Create, Output.Commit). Package tracer keeps the
// pixels and the film's math (tracer.Framebuffer.Image); this package
// keeps the files.
package imageio
