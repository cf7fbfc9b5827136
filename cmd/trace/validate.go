package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/spf13/pflag"
	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/tracer"
)

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: trace validate SCENE...\n\nChecks scene files without rendering: syntax, fields, references, limits.\nPrints one line per file, with what it holds: shapes, triangles, materials,\nits lights (point, spot and directional lights, emissive shapes, a background\nthat gives light) and images; warns of a scene in which nothing emits light. With --stats,\na second line gives the time spent loading and compiling it and the\ncompiled scene's size. Exit status 2 if any file is bad.\n\nFlags:\n%s", fs.FlagUsages())
	}
	outside := fs.Bool("allow-outside-assets", false, "let scenes read meshes and images outside their folder")
	stats := fs.Bool("stats", false, "also print the time spent loading (parsing the scene and its mesh files) and compiling (the BVH among it), and the compiled scene's bytes")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usagef("validate: no scene file given")
	}
	nbad := 0
	for _, path := range fs.Args() {
		start := time.Now()
		desc, err := scenes.LoadWith(path, scenes.Options{AllowOutsideAssets: *outside})
		loaded := time.Now()
		var scene *tracer.Scene
		if err == nil {
			scene, err = tracer.Compile(desc)
			if err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "trace: %v\n", err)
			nbad++
			continue
		}
		s := desc.Settings
		ntri := len(desc.Triangles)
		for _, m := range desc.Meshes {
			ntri += len(m.Indices) / 3
		}
		lights := countLights(desc, scene)
		samples := fmt.Sprintf("%d samples", s.Samples)
		if s.Adaptive() && s.AdaptiveMinSamples() < s.Samples {
			samples = fmt.Sprintf("%d to %d samples (noise threshold %g)", s.AdaptiveMinSamples(), s.Samples, s.NoiseThreshold)
		}
		fmt.Fprintf(stdout, "%s: ok (%d×%d, %s, %s, %s, %s, %s, %s)\n",
			path, s.Width, s.Height, samples,
			plural(len(desc.Spheres)+len(desc.Planes)+len(desc.Quads), "shape"), plural(ntri, "triangle"),
			plural(len(desc.Materials), "material"), lights, plural(len(desc.Images), "image"))
		if *stats {
			fmt.Fprintf(stdout, "%s: %s\n", path, validateStats(loaded.Sub(start), time.Since(loaded), scene, ntri))
		}
		if lights.none() {
			fmt.Fprintf(stderr, "trace: warning: %s: %s\n", path, noLightWarning)
		}
	}
	if nbad > 0 {
		return usageError{fmt.Errorf("%d of %d scene files are invalid", nbad, fs.NArg())}
	}
	return nil
}

// validateStats is --stats's line: "load 1.20 s, compile 0.80 s (BVH
// 0.50 s), compiled scene 1234567 bytes (86.1 B/triangle)", the last
// figure only for a scene with triangles (ntri, before degenerate ones
// are dropped).
func validateStats(load, compile time.Duration, scene *tracer.Scene, ntri int) string {
	line := fmt.Sprintf("load %.2f s, compile %.2f s (BVH %.2f s), compiled scene %d bytes",
		load.Seconds(), compile.Seconds(), scene.BVHBuildTime.Seconds(), scene.Bytes())
	if ntri > 0 {
		line += fmt.Sprintf(" (%.1f B/triangle)", float64(scene.Bytes())/float64(ntri))
	}
	return line
}

// noLightWarning is the warning for a scene in which nothing emits light.
const noLightWarning = "nothing in the scene emits light (no point, spot or directional light, no emissive shape, a black background): the image will be black but for phong ambient terms; see \"Lights and units\" in docs/scene-format.md"

// lightCount is what lights a scene.
type lightCount struct {
	points   int     // point lights with a colour and an intensity
	spots    int     // spot lights (point lights that shine in a cone), the same
	tree     int     // of the points and spots, the ones the light tree picks from (tracer.Scene.TreeLights)
	weight   float64 // where "auto" samples more than tracer.PointLightTreeMin points and spots all for their cones, what they count as in point lights (tracer.PointLightWeight); else 0
	suns     int     // directional lights with a colour and an intensity
	emissive int     // shapes (a mesh is one) whose material emits
	sky      bool    // a background that is not black
}

// countLights counts what emits light in a scene: point, spot and
// directional lights (the scene file's and its glTF files'), shapes of
// emissive materials (and pbr materials with an emission), and a
// background that is not black, which lights the scene under "path".
// scene is desc compiled, or nil when it was not compiled here.
func countLights(desc *tracer.SceneDesc, scene *tracer.Scene) lightCount {
	var n lightCount
	for _, l := range desc.Lights {
		switch {
		case !(l.Intensity > 0) || l.Color == (mgl32.Vec3{}):
		case l.Falloff == tracer.FalloffDirectional:
			n.suns++
		default:
			if l.SpotDir != (mgl32.Vec3{}) {
				n.spots++
			} else {
				n.points++
			}
			if scene != nil && scene.TreeLights && l.Falloff == tracer.FalloffInverseSquare {
				n.tree++
			}
		}
	}
	if scene != nil && n.tree == 0 && scene.Settings.Integrator == tracer.IntegratorPath &&
		scene.Settings.PointLightTree == tracer.PointLightTreeAuto {
		inverse := 0
		for _, l := range desc.Lights {
			if l.Falloff == tracer.FalloffInverseSquare {
				inverse++
			}
		}
		if inverse > tracer.PointLightTreeMin {
			n.weight = tracer.PointLightWeight(desc.Lights)
		}
	}
	emits := func(m int) bool {
		if m < 0 || m >= len(desc.Materials) {
			return false
		}
		mat := desc.Materials[m]
		switch mat.Kind {
		case tracer.MaterialEmissive:
			return mat.Intensity > 0 && (mat.Color != (mgl32.Vec3{}) || mat.Texture != tracer.NoTexture)
		case tracer.MaterialPBR:
			return mat.Emission != (mgl32.Vec3{})
		}
		return false
	}
	count := func(material int) {
		if emits(material) {
			n.emissive++
		}
	}
	for _, s := range desc.Spheres {
		count(s.Material)
	}
	for _, p := range desc.Planes {
		count(p.Material)
	}
	for _, q := range desc.Quads {
		count(q.Material)
	}
	for _, t := range desc.Triangles {
		count(t.Material)
	}
	for _, m := range desc.Meshes {
		lit := emits(m.Material) && len(m.Materials) == 0
		for _, tm := range m.Materials {
			lit = lit || emits(int(tm))
		}
		if lit {
			n.emissive++
		}
	}
	switch b := desc.Background; b.Kind {
	case tracer.BackgroundColor:
		n.sky = b.Color != (mgl32.Vec3{})
	case tracer.BackgroundGradient:
		n.sky = b.Top != (mgl32.Vec3{}) || b.Bottom != (mgl32.Vec3{})
	case tracer.BackgroundImage:
		if scene != nil {
			n.sky = scene.Background.Distribution != 0
		} else {
			n.sky = imageLit(desc, b.Texture)
		}
	}
	return n
}

// imageLit says whether some texel of the image of texture t is bright
// (its luminance above 0): what a compiled background's Distribution
// says, for a scene not compiled here.
func imageLit(desc *tracer.SceneDesc, t int32) bool {
	if t < 0 || int(t) >= len(desc.Textures) {
		return false
	}
	i := desc.Textures[t].Image
	if i < 0 || int(i) >= len(desc.Images) {
		return false
	}
	pix := desc.Images[i].Pix
	for k := 0; k+2 < len(pix); k += 3 {
		if 0.2126*float64(pix[k])+0.7152*float64(pix[k+1])+0.0722*float64(pix[k+2]) > 0 {
			return true
		}
	}
	return false
}

func (n lightCount) none() bool {
	return n.points == 0 && n.spots == 0 && n.suns == 0 && n.emissive == 0 && !n.sky
}

// String says what lights the scene: "1 point light, 2 spot lights,
// 1 directional light, 2 emissive shapes, a lit background", or "no
// light"; point and spot lights the path integrator picks from the light
// tree rather than sampling each at every vertex are said to be: "12
// point lights (picked from the light tree)", "5 point lights, 4 spot
// lights (8 of these 9 picked from the light tree)"; and more than
// tracer.PointLightTreeMin that "auto" samples all for their cones are
// too: "36 spot lights (sampled all: they count as 2.3 point lights)".
func (n lightCount) String() string {
	var parts []string
	if n.points > 0 {
		parts = append(parts, plural(n.points, "point light"))
	}
	if n.spots > 0 {
		parts = append(parts, plural(n.spots, "spot light"))
	}
	switch last := len(parts) - 1; {
	case n.tree == n.points+n.spots && n.tree > 0:
		parts[last] += " (picked from the light tree)"
	case n.tree > 0:
		parts[last] += fmt.Sprintf(" (%d of these %d picked from the light tree)", n.tree, n.points+n.spots)
	case n.weight > 0:
		parts[last] += fmt.Sprintf(" (sampled all: they count as %.1f point lights)", n.weight)
	}
	if n.suns > 0 {
		parts = append(parts, plural(n.suns, "directional light"))
	}
	if n.emissive > 0 {
		parts = append(parts, plural(n.emissive, "emissive shape"))
	}
	if n.sky {
		parts = append(parts, "a lit background")
	}
	if len(parts) == 0 {
		return "no light"
	}
	return strings.Join(parts, ", ")
}

// plural counts things: "1 image", "3 images".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
