package tracer

import (
	"errors"
	"fmt"
)

// Scene is a compiled scene: flat arrays that the per-ray code reads with no
// interface call, and that the GPU kernel reads as the same bytes.
type Scene struct {
	Settings   Settings
	Camera     Camera
	Film       Film
	Background Background
	// Shapes holds the bounded shapes in BVH order (Shapes[:NumBounded]),
	// then the infinite planes, which every ray tests.
	Shapes     []Shape
	NumBounded int
	Nodes      []BVHNode
	Materials  []Material
	Textures   []Texture
	Lights     []PointLight
	// Emitters indexes the bounded shapes with an emissive material: the
	// area lights that next-event estimation samples.
	Emitters []uint32
}

// Compile checks a scene description and builds its render-time form.
// The scene file parser reports bad input with file positions; the checks
// here are the tracer's own guard for descriptions built in code.
func Compile(d *SceneDesc) (*Scene, error) {
	if err := checkDesc(d); err != nil {
		return nil, err
	}
	s := &Scene{
		Settings:   d.Settings,
		Camera:     newCamera(d.Camera, d.Settings.Width, d.Settings.Height),
		Film:       d.Film,
		Background: d.Background,
		Materials:  append([]Material(nil), d.Materials...),
		Textures:   append([]Texture(nil), d.Textures...),
		Lights:     append([]PointLight(nil), d.Lights...),
	}
	var bounded []Shape
	for _, sp := range d.Spheres {
		bounded = append(bounded, newSphere(sp.Center, sp.Radius, uint32(sp.Material)))
	}
	for _, q := range d.Quads {
		bounded = append(bounded, newQuad(q.Corner, q.Edge1, q.Edge2, uint32(q.Material)))
	}
	for _, t := range d.Triangles {
		bounded = append(bounded, newTriangle(t.Vertices, t.UV, t.HasUV, uint32(t.Material)))
	}
	s.Nodes, s.Shapes = buildBVH(bounded)
	s.NumBounded = len(s.Shapes)
	for _, p := range d.Planes {
		s.Shapes = append(s.Shapes, newPlane(p.Point, p.Normal, uint32(p.Material)))
	}
	for i := 0; i < s.NumBounded; i++ {
		if s.Materials[s.Shapes[i].Material].Kind == MaterialEmissive {
			s.Emitters = append(s.Emitters, uint32(i))
		}
	}
	return s, nil
}

func checkDesc(d *SceneDesc) error {
	st := d.Settings
	switch {
	case st.Width < 1 || st.Width > MaxImageSide || st.Height < 1 || st.Height > MaxImageSide:
		return fmt.Errorf("image size %d×%d: each side must be in [1, %d]", st.Width, st.Height, MaxImageSide)
	case st.Samples < 1 || st.Samples > MaxSamples:
		return fmt.Errorf("samples %d: must be in [1, %d]", st.Samples, MaxSamples)
	case st.MaxDepth < 0 || st.MaxDepth > MaxDepth:
		return fmt.Errorf("max depth %d: must be in [0, %d]", st.MaxDepth, MaxDepth)
	case st.Integrator > IntegratorWhitted:
		return fmt.Errorf("unknown integrator %d", st.Integrator)
	}
	c := d.Camera
	fwd := c.LookAt.Sub(c.Position)
	if length(fwd) == 0 {
		return errors.New("camera: look_at equals position")
	}
	if length(cross(normalize(fwd), normalize(c.Up))) < 1e-6 {
		return errors.New("camera: up is zero or parallel to the view direction")
	}
	if !(c.FOV > 0 && c.FOV < 180) {
		return fmt.Errorf("camera: fov %g: must be in (0, 180) degrees", c.FOV)
	}
	n := len(d.Spheres) + len(d.Planes) + len(d.Quads) + len(d.Triangles)
	if n > MaxShapes {
		return fmt.Errorf("%d shapes: at most %d", n, MaxShapes)
	}
	for i, t := range d.Textures {
		if t.Kind != TextureChecker {
			return fmt.Errorf("textures[%d]: unknown kind %d", i, t.Kind)
		}
	}
	for i, m := range d.Materials {
		if m.Texture != NoTexture && (m.Texture < 0 || int(m.Texture) >= len(d.Textures)) {
			return fmt.Errorf("materials[%d]: texture %d out of range", i, m.Texture)
		}
		if m.Kind > MaterialPhong {
			return fmt.Errorf("materials[%d]: unknown kind %d", i, m.Kind)
		}
	}
	check := func(what string, i, m int) error {
		if m < 0 || m >= len(d.Materials) {
			return fmt.Errorf("%s[%d]: material %d out of range", what, i, m)
		}
		return nil
	}
	for i, x := range d.Spheres {
		if err := check("spheres", i, x.Material); err != nil {
			return err
		}
		if !(x.Radius > 0) {
			return fmt.Errorf("spheres[%d]: radius %g must be positive", i, x.Radius)
		}
	}
	for i, x := range d.Planes {
		if err := check("planes", i, x.Material); err != nil {
			return err
		}
		if length(x.Normal) == 0 {
			return fmt.Errorf("planes[%d]: zero normal", i)
		}
	}
	for i, x := range d.Quads {
		if err := check("quads", i, x.Material); err != nil {
			return err
		}
		if length(cross(x.Edge1, x.Edge2)) == 0 {
			return fmt.Errorf("quads[%d]: degenerate (parallel or zero edges)", i)
		}
	}
	for i, x := range d.Triangles {
		if err := check("triangles", i, x.Material); err != nil {
			return err
		}
		if length(cross(x.Vertices[1].Sub(x.Vertices[0]), x.Vertices[2].Sub(x.Vertices[0]))) == 0 {
			return fmt.Errorf("triangles[%d]: degenerate (zero area)", i)
		}
	}
	return nil
}
