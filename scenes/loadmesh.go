package scenes

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tracerender/trace/tracer"
)

// LoadMesh reads a mesh file (.obj, .gltf, .glb, .ply or .stl) on its
// own, without a scene, for tools such as `trace bench --mesh`: every
// triangle of the file merged into one mesh in the file's coordinates
// (with a glTF file's node transforms), without materials. The files it
// names must lie in its folder.
func LoadMesh(path string) (*tracer.MeshDesc, error) {
	a, err := newAssets(path, false)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(path))
	load := meshLoader(ext, objCreaseDegrees)
	if load == nil {
		return nil, fmt.Errorf("%s: unknown mesh format %q (accepted: %s)", path, ext, strings.Join(meshExtensions, ", "))
	}
	im, err := load(a, abs)
	if err != nil {
		return nil, err
	}
	var out tracer.MeshDesc
	smooth, uv := true, true
	for _, m := range im.meshes {
		smooth = smooth && len(m.Normals) > 0
		uv = uv && len(m.UVs) > 0
	}
	for _, m := range im.meshes {
		base := uint32(len(out.Positions))
		out.Positions = append(out.Positions, m.Positions...)
		if smooth {
			out.Normals = append(out.Normals, m.Normals...)
		}
		if uv {
			out.UVs = append(out.UVs, m.UVs...)
		}
		for _, ix := range m.Indices {
			out.Indices = append(out.Indices, base+ix)
		}
	}
	if len(out.Indices) == 0 {
		return nil, fmt.Errorf("%s: no triangles", path)
	}
	return &out, nil
}
