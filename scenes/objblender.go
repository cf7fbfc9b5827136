package scenes

import (
	"bytes"
	"io"
)

// OBJ files written by Blender's OBJ exporters say so on their first line
// ("# Blender 3.4.1" from the C++ wm.obj_export, "# Blender v3.4.1 OBJ
// File: ''" from the legacy export_scene.obj). The C++ exporter's vertex
// colours (v x y z r g b, export_colors) are the colour attribute turned
// from linear to sRGB (linearrgb_to_srgb_v3_v3 in
// obj_export_file_writer.cc), and Blender's importer turns them back; so
// in Blender's files they are decoded from sRGB, where other files' are
// linear, as Kd.

// blenderOBJFile reports whether head, the first bytes of an OBJ file,
// says that Blender wrote it: its first line is a comment that begins
// with "# Blender".
func blenderOBJFile(head []byte) bool {
	line, _ := cutLine(bytes.TrimPrefix(head, utf8BOM))
	return bytes.HasPrefix(line, []byte("# Blender"))
}

// head returns up to n bytes from the start of the text, for a look at
// its first line before it is read.
func (t *objText) head(n int) []byte {
	if t.file == nil {
		return t.data[:min(n, len(t.data))]
	}
	b := make([]byte, n)
	k, err := t.file.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil // read reports it
	}
	return b[:k]
}

// blenderColor decodes c, a vertex colour of a Blender OBJ file, from
// sRGB to linear.
func blenderColor(c [3]float32) [3]float32 {
	for i, x := range c {
		c[i] = float32(srgbToLinear(float64(x)))
	}
	return c
}
