package scenes

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// objectTypes are the accepted values of an object's type.
var objectTypes = []string{"sphere", "plane", "quad", "triangle", "mesh"}

// objectFields are the members each object type accepts.
var objectFields = map[string][]string{
	"sphere":   {"type", "name", "material", "center", "radius"},
	"plane":    {"type", "name", "material", "point", "normal"},
	"quad":     {"type", "name", "material", "corner", "edge1", "edge2"},
	"triangle": {"type", "name", "material", "vertices", "uv"},
	"mesh":     {"type", "name", "material", "file", "transform", "crease_angle", "animation", "time"}, // see mesh.go, animation.go
}

// objects decodes the objects array a (nil when absent) at l into the
// shape lists of s; mats resolves material names.
func (d *decoder) objects(a *value, l loc, mats materialTable, s *tracer.SceneDesc) {
	if a == nil {
		return
	}
	if len(a.elems) > tracer.MaxShapes {
		d.fail(a, l, "%d objects, more than the limit of %d shapes", len(a.elems), tracer.MaxShapes)
		return
	}
	for i := range a.elems {
		if d.failed() {
			return
		}
		d.shape(d.object(&a.elems[i], l.elem(i)), mats, s)
	}
	if n := len(s.Triangles) + d.meshTriangles; n > tracer.MaxTriangles && !d.failed() {
		d.fail(a, l, "%d triangles in meshes and triangle objects, more than the limit of %d", n, tracer.MaxTriangles)
	}
}

// shape decodes one element of the objects array: a sphere, plane, quad,
// triangle or mesh.
func (d *decoder) shape(f fields, mats materialTable, s *tracer.SceneDesc) {
	typ := f.choice("type", "", "object type", objectTypes)
	if d.failed() {
		return
	}
	if typ == "mesh" {
		d.mesh(f, mats, s)
		return
	}
	f.known(objectFields[typ]...)
	f.string("name", "")
	material := d.materialRef(f, mats)
	switch typ {
	case "sphere":
		s.Spheres = append(s.Spheres, tracer.SphereDesc{
			Center:   f.requiredVec3("center"),
			Radius:   f.requiredFloat("radius", above(0)),
			Material: material,
		})
	case "plane":
		p := tracer.PlaneDesc{Point: f.requiredVec3("point"), Normal: f.requiredVec3("normal"), Material: material}
		switch {
		case d.failed():
		case p.Normal == mgl32.Vec3{}:
			f.failField("normal", "must not be zero")
		case !normalizable(p.Normal):
			f.failField("normal", "is too short or too long to normalise in float32")
		}
		s.Planes = append(s.Planes, p)
	case "quad":
		q := tracer.QuadDesc{
			Corner:   f.requiredVec3("corner"),
			Edge1:    f.requiredVec3("edge1"),
			Edge2:    f.requiredVec3("edge2"),
			Material: material,
		}
		switch {
		case d.failed():
		case parallel(q.Edge1, q.Edge2):
			d.failAt(f.offset("edge2"), f.path, "the quad is degenerate: edge1 and edge2 are zero or parallel")
		case !normalizable(q.Edge1.Cross(q.Edge2)):
			d.failAt(f.offset("edge2"), f.path, "the quad is too small or too large for float32 arithmetic")
		}
		s.Quads = append(s.Quads, q)
	case "triangle":
		d.triangle(f, material, s)
	}
}

// triangle decodes a triangle object.
func (d *decoder) triangle(f fields, material int, s *tracer.SceneDesc) {
	t := tracer.TriangleDesc{Material: material}
	if v := f.required("vertices"); v != nil && d.array(v, f.at("vertices"), 3, "points") {
		for i := range t.Vertices {
			t.Vertices[i] = d.vec3(&v.elems[i], f.at("vertices").elem(i))
		}
	}
	if v := f.lookup("uv"); v != nil && d.array(v, f.at("uv"), 3, "[u, v] pairs") {
		for i := range t.UV {
			d.floats(&v.elems[i], f.at("uv").elem(i), t.UV[i][:])
		}
		t.HasUV = true
	}
	if d.failed() {
		return
	}
	e1 := t.Vertices[1].Sub(t.Vertices[0])
	e2 := t.Vertices[2].Sub(t.Vertices[0])
	switch {
	case parallel(e1, e2):
		f.failField("vertices", "the triangle is degenerate: its vertices coincide or lie on a line")
	case !normalizable(e1.Cross(e2)):
		f.failField("vertices", "the triangle is too small or too large for float32 arithmetic")
	}
	s.Triangles = append(s.Triangles, t)
}

// materialRef resolves an object's material member, a material name.
func (d *decoder) materialRef(f fields, mats materialTable) int {
	v := f.required("material")
	if v == nil {
		return 0
	}
	name, ok := d.str(v, f.at("material"))
	if !ok {
		return 0
	}
	i, ok := mats.index[name]
	switch {
	case ok:
		return i
	case len(mats.names) == 0:
		d.fail(v, f.at("material"), "undefined material %s: the scene defines no materials", quote(name))
	default:
		d.fail(v, f.at("material"), "undefined material %s%s", quote(name), didYouMean(name, mats.names))
	}
	return 0
}
