package scenes

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/tracerender/trace/tracer"
)

// gltfChannel is one channel of a test animation: the node and path it
// animates, its sampler's interpolation, keyframe times and values
// ([][3]float32, [][4]float32 or []float32; for CUBICSPLINE in-tangent,
// value and out-tangent per keyframe).
type gltfChannel struct {
	node   int
	path   gltf.TRSProperty
	interp gltf.Interpolation
	times  []float32
	values any
}

// addGLTFAnimation appends an animation named name of the channels to
// doc, each with a sampler of its own.
func addGLTFAnimation(doc *gltf.Document, name string, channels ...gltfChannel) {
	a := &gltf.Animation{Name: name}
	for _, c := range channels {
		in := modeler.WriteAccessor(doc, gltf.TargetNone, c.times)
		out := modeler.WriteAccessor(doc, gltf.TargetNone, c.values)
		a.Samplers = append(a.Samplers, &gltf.AnimationSampler{Input: in, Output: out, Interpolation: c.interp})
		a.Channels = append(a.Channels, &gltf.AnimationChannel{Sampler: len(a.Samplers) - 1,
			Target: gltf.AnimationChannelTarget{Node: gltf.Index(c.node), Path: c.path}})
	}
	doc.Animations = append(doc.Animations, a)
}

// loadGLTFPosedDoc writes doc to model.gltf in a new scene folder and
// loads it posed by p.
func loadGLTFPosedDoc(t *testing.T, doc *gltf.Document, p gltfPose) (*importedMesh, error) {
	t.Helper()
	dir, a := gltfScene(t)
	return loadGLTFPose(a, writeGLTF(t, filepath.Join(dir, "model.gltf"), doc), p)
}

// mustPose is loadGLTFPosedDoc for a document that must load.
func mustPose(t *testing.T, doc *gltf.Document, p gltfPose) *importedMesh {
	t.Helper()
	m, err := loadGLTFPosedDoc(t, doc, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// posedAt is the pose of animation name at time t.
func posedAt(name string, t float64) gltfPose { return gltfPose{name: name, index: -1, time: t} }

// TestGLTFAnimationLinear: a LINEAR translation between keyframes is
// (1 − u)·v_k + u·v_k+1 (Appendix C), u the fraction of the way from
// t_k to t_k+1; before the first keyframe the first value holds, after
// the last the last, on a keyframe its value; without an animation the
// node stays where the file has it.
func TestGLTFAnimationLinear(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Nodes[0].Translation = [3]float64{9, 9, 9}
	addGLTFAnimation(doc, "Slide", gltfChannel{0, gltf.TRSTranslation, gltf.InterpolationLinear,
		[]float32{1, 3, 4}, [][3]float32{{0, 0, 0}, {4, 2, 0}, {4, 2, 8}}})
	for _, tc := range []struct {
		time float64
		want mgl32.Vec3
	}{
		{1.5, mgl32.Vec3{1, 0.5, 0}}, // u = 0.25 of the way to (4, 2, 0)
		{3.5, mgl32.Vec3{4, 2, 4}},   // halfway to (4, 2, 8)
		{3, mgl32.Vec3{4, 2, 0}},     // on a keyframe
		{0, mgl32.Vec3{0, 0, 0}},     // before the first: clamped
		{100, mgl32.Vec3{4, 2, 8}},   // after the last: clamped
	} {
		m := mustPose(t, doc, posedAt("Slide", tc.time))
		checkPositions(t, m.meshes[0], []mgl32.Vec3{tc.want, tc.want.Add(mgl32.Vec3{1, 0, 0}), tc.want.Add(mgl32.Vec3{0, 1, 0})})
	}
	m := mustPose(t, doc, noGLTFPose)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{9, 9, 9}, {10, 9, 9}, {9, 10, 9}})
}

// TestGLTFAnimationSlerp: a LINEAR rotation is spherical (Appendix C):
// a third of the way from no turn to 90° about z is 30°, where a
// normalised linear blend of the quaternions would give 29.3°; with the
// second quaternion negated (the same turn) it goes the short way, to
// the same 30°.
func TestGLTFAnimationSlerp(t *testing.T) {
	s := float32(math.Sqrt(0.5))
	for _, sign := range []float32{1, -1} {
		doc := newGLTFDoc(gltfTriangle, nil)
		addGLTFAnimation(doc, "Turn", gltfChannel{0, gltf.TRSRotation, gltf.InterpolationLinear,
			[]float32{0, 3}, [][4]float32{{0, 0, 0, 1}, {0, 0, sign * s, sign * s}}})
		m := mustPose(t, doc, posedAt("Turn", 1))
		c, sn := float32(math.Cos(math.Pi/6)), float32(math.Sin(math.Pi/6))
		checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {c, sn, 0}, {-sn, c, 0}})
	}
}

// TestGLTFAnimationStep: STEP holds each keyframe's value until the next
// (a scale here), and a scale and a translation of one node animate
// together.
func TestGLTFAnimationStep(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	addGLTFAnimation(doc, "Grow",
		gltfChannel{0, gltf.TRSScale, gltf.InterpolationStep, []float32{0, 1, 2}, [][3]float32{{1, 1, 1}, {2, 2, 2}, {3, 3, 3}}},
		gltfChannel{0, gltf.TRSTranslation, gltf.InterpolationStep, []float32{0, 1.5}, [][3]float32{{0, 0, 0}, {0, 0, 5}}})
	for _, tc := range []struct {
		time   float64
		scale  float32
		height float32
	}{{0.5, 1, 0}, {1, 2, 0}, {1.99, 2, 5}, {7, 3, 5}} {
		m := mustPose(t, doc, gltfPose{index: 0, time: tc.time})
		k, z := tc.scale, tc.height
		checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, z}, {k, 0, z}, {0, k, z}})
	}
}

// TestGLTFAnimationCubic: CUBICSPLINE is Appendix C's Hermite spline,
// the tangents scaled by the keyframes' spacing t_d: from x = 0 (out-
// tangent 1) to x = 4 (in-tangent −2) over t_d = 2 s, at u = 0.25:
// 0.84375·0 + 2·0.140625·1 + 0.15625·4 + 2·(−0.046875)·(−2) = 1.09375.
// A cubic rotation is normalised: a quarter of the way from no turn to
// 90° about z, with zero tangents, is 13.2°, halfway 45°.
func TestGLTFAnimationCubic(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	s := float32(math.Sqrt(0.5))
	doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0)})
	doc.Scenes[0].Nodes = []int{0, 1}
	addGLTFAnimation(doc, "Ease",
		gltfChannel{0, gltf.TRSTranslation, gltf.InterpolationCubicSpline, []float32{1, 3},
			[][3]float32{{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {-2, 0, 0}, {4, 0, 0}, {9, 9, 9}}},
		gltfChannel{1, gltf.TRSRotation, gltf.InterpolationCubicSpline, []float32{1, 3},
			[][4]float32{{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, s, s}, {0, 0, 0, 0}}})
	m := mustPose(t, doc, posedAt("Ease", 1.5))
	x := float32(1.09375)
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{x, 0, 0}, {x + 1, 0, 0}, {x, 1, 0}})
	// The rotation at u = 0.25: 0.84375·(0, 0, 0, 1) + 0.15625·(0, 0, √½,
	// √½), normalised, a turn of 2·atan2(z, w) about z.
	z, w := 0.15625*math.Sqrt(0.5), 0.84375+0.15625*math.Sqrt(0.5)
	c, sn := float32(math.Cos(2*math.Atan2(z, w))), float32(math.Sin(2*math.Atan2(z, w)))
	checkPositions(t, m.meshes[1], []mgl32.Vec3{{0, 0, 0}, {c, sn, 0}, {-sn, c, 0}})
	m = mustPose(t, doc, posedAt("Ease", 2))
	checkPositions(t, m.meshes[1], []mgl32.Vec3{{0, 0, 0}, {s, s, 0}, {-s, s, 0}}) // halfway: 45°
	// On the last keyframe, its value.
	m = mustPose(t, doc, posedAt("Ease", 3))
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{4, 0, 0}, {5, 0, 0}, {4, 1, 0}})
}

// TestGLTFAnimationWeights: an animation of a node's morph target weights
// (Khronos's SimpleMorph: LINEAR through (0, 0), (0, 1), (1, 1), (1, 0),
// (0, 0) at 0 to 4 s) poses the targets, in place of the mesh's weights
// (0.5, 0.5): at 1.5 s the weights are (0.5, 1), which move the top
// vertex (0.5, 0.5) by 0.5·(−1, 1) + (1, 1) to (1, 2); at 2.5 s, (1,
// 0.5), to (0, 2). Weights stored as normalized UNSIGNED_BYTE (STEP)
// are read as glTF denormalises them: 51/255 = 0.2.
func TestGLTFAnimationWeights(t *testing.T) {
	src := filepath.Join("testdata", "khronos", "SimpleMorph", "SimpleMorph.gltf")
	for _, tc := range []struct {
		time float64
		top  mgl32.Vec3
	}{{1.5, mgl32.Vec3{1, 2, 0}}, {2.5, mgl32.Vec3{0, 2, 0}}, {0, mgl32.Vec3{0.5, 0.5, 0}}} {
		dir, a := gltfScene(t)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "SimpleMorph.gltf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := loadGLTFPose(a, p, gltfPose{index: 0, time: tc.time})
		if err != nil {
			t.Fatal(err)
		}
		checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, tc.top})
	}

	doc := morphDoc()
	doc.Meshes[0].Weights = []float64{1, 1}
	addGLTFAnimation(doc, "Blink", gltfChannel{0, gltf.TRSWeights, gltf.InterpolationStep, []float32{0, 1}, []uint8{51, 0, 255, 255}})
	doc.Accessors[doc.Animations[0].Samplers[0].Output].Normalized = true
	m := mustPose(t, doc, posedAt("Blink", 0.5))
	// 0.2·target 0 alone: (0, 0, 0.4), (1.2, 0, 0), (0, 1, 0).
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0.4}, {1.2, 0, 0}, {0, 1, 0}})
}

// TestGLTFAnimationSkin: an animated joint poses the skin it belongs to.
func TestGLTFAnimationSkin(t *testing.T) {
	doc := newGLTFDoc(gltfTriangle, nil)
	prim := doc.Meshes[0].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]uint8{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}})
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, [][4]float32{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
	doc.Nodes[0].Skin = gltf.Index(0)
	doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "bone"})
	doc.Scenes[0].Nodes = []int{0, 1}
	doc.Skins = []*gltf.Skin{{Joints: []int{1}}}
	addGLTFAnimation(doc, "Lift", gltfChannel{1, gltf.TRSTranslation, gltf.InterpolationLinear, []float32{0, 1}, [][3]float32{{0, 0, 0}, {0, 0, 2}}})
	m := mustPose(t, doc, posedAt("Lift", 0.25))
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 0.5}, {1, 0, 0.5}, {0, 1, 0.5}})
}

// TestGLTFAnimationErrors: an animation the file does not have is an
// error naming those it has (errGLTFAnimationPick), and a sampler glTF
// does not allow is an error naming it.
func TestGLTFAnimationErrors(t *testing.T) {
	base := func() *gltf.Document {
		doc := newGLTFDoc(gltfTriangle, nil)
		addGLTFAnimation(doc, "Walk", gltfChannel{0, gltf.TRSTranslation, gltf.InterpolationLinear, []float32{0, 1}, [][3]float32{{0, 0, 0}, {1, 0, 0}}})
		addGLTFAnimation(doc, "", gltfChannel{0, gltf.TRSScale, gltf.InterpolationLinear, []float32{0, 1}, [][3]float32{{1, 1, 1}, {2, 2, 2}}})
		return doc
	}
	for _, tc := range []struct {
		name string
		edit func(*gltf.Document)
		pose gltfPose
		msg  string
	}{
		{"name", nil, posedAt("Run", 0), `no animation named "Run" (the file's animations: 0 "Walk", 1 (no name))`},
		{"index", nil, gltfPose{index: 2}, `no animations[2] (the file's animations: 0 "Walk", 1 (no name))`},
		{"none", func(d *gltf.Document) { d.Animations = nil }, gltfPose{index: 0}, `no animations[0] (the file has no animations)`},
		{"matrix", func(d *gltf.Document) { d.Nodes[0].Matrix[12] = 1 }, posedAt("Walk", 0),
			"animations[0].channels[0] animates the translation of nodes[0], which has a matrix"},
		{"twice", func(d *gltf.Document) {
			d.Animations[0].Channels = append(d.Animations[0].Channels, d.Animations[0].Channels[0])
		}, posedAt("Walk", 0),
			"animations[0].channels[1]: another channel of animations[0] animates the translation of nodes[0]"},
		{"times", func(d *gltf.Document) {
			d.Animations[0].Samplers[0].Input = modeler.WriteAccessor(d, gltf.TargetNone, []float32{1, 1})
		}, posedAt("Walk", 0), "animations[0].samplers[0].input: keyframe 1's time 1 is not after keyframe 0's, 1"},
		{"count", func(d *gltf.Document) {
			d.Animations[0].Samplers[0].Output = modeler.WriteAccessor(d, gltf.TargetNone, [][3]float32{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}})
		}, posedAt("Walk", 0), "animations[0].samplers[0]: output has 9 values, 2 keyframes of LINEAR translation want 6"},
		{"cubic", func(d *gltf.Document) {
			d.Animations[0].Samplers[0].Interpolation = gltf.InterpolationCubicSpline
			d.Animations[0].Samplers[0].Input = modeler.WriteAccessor(d, gltf.TargetNone, []float32{0})
		}, posedAt("Walk", 0), "animations[0].samplers[0]: CUBICSPLINE with 1 keyframe (it needs at least 2)"},
		{"type", func(d *gltf.Document) {
			d.Animations[0].Samplers[0].Output = modeler.WriteAccessor(d, gltf.TargetNone, [][3]int16{{0, 0, 0}, {1, 0, 0}})
		}, posedAt("Walk", 0), "animations[0].samplers[0].output: accessors[5] is SHORT VEC3, not supported for translation (only FLOAT VEC3)"},
		{"weights", func(d *gltf.Document) { d.Animations[0].Channels[0].Target.Path = gltf.TRSWeights }, posedAt("Walk", 0),
			"animations[0].channels[0] animates the weights of nodes[0], which has no mesh with morph targets"},
		{"node", func(d *gltf.Document) { d.Animations[0].Channels[0].Target.Node = gltf.Index(5) }, posedAt("Walk", 0),
			"animations[0].channels[0].target: nodes[5] does not exist"},
		{"budget", func(d *gltf.Document) {
			// 64 nodes moved by 64 outputs over one view: more bytes
			// of keyframes than the file's buffers hold.
			out := d.Accessors[d.Animations[0].Samplers[0].Output]
			for i := range 64 {
				d.Nodes = append(d.Nodes, &gltf.Node{})
				d.Accessors = append(d.Accessors, &gltf.Accessor{BufferView: out.BufferView, ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: 2})
				d.Animations[0].Samplers = append(d.Animations[0].Samplers, &gltf.AnimationSampler{Input: d.Animations[0].Samplers[0].Input, Output: len(d.Accessors) - 1})
				d.Animations[0].Channels = append(d.Animations[0].Channels, &gltf.AnimationChannel{Sampler: i + 1,
					Target: gltf.AnimationChannelTarget{Node: gltf.Index(len(d.Nodes) - 1), Path: gltf.TRSTranslation}})
			}
		}, posedAt("Walk", 0), "animations[0].samplers[3].output: accessors[7]: the animation's keyframes take 104 bytes in all, more than the 100 bytes of the file's buffers"},
		{"zero rotation", func(d *gltf.Document) {
			d.Animations[0].Channels[0].Target.Path = gltf.TRSRotation
			d.Animations[0].Samplers[0].Interpolation = gltf.InterpolationCubicSpline
			d.Animations[0].Samplers[0].Output = modeler.WriteAccessor(d, gltf.TargetNone, [][4]float32{{}, {0, 0, 0, 1}, {}, {}, {0, 0, 0, -1}, {}})
		}, gltfPose{name: "Walk", index: -1, time: 0.5}, "animations[0].samplers[0]: the rotation at 0.5 s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := base()
			if tc.edit != nil {
				tc.edit(doc)
			}
			dir, a := gltfScene(t)
			path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
			_, err := loadGLTFPose(a, path, tc.pose)
			checkGLTFError(t, err, path, tc.msg)
		})
	}
}

// TestSceneGLTFAnimation: a mesh object and a camera section pose their
// glTF file with "animation" (name or index) and "time"; the same file
// at two times is two poses. A name the file lacks is an error at the
// "animation" member naming what the file has; a negative time, a time
// without an animation and an animation of an OBJ file are errors naming
// the member.
func TestSceneGLTFAnimation(t *testing.T) {
	dir := t.TempDir()
	doc := newGLTFDoc(gltfTriangle, nil)
	doc.Cameras = []*gltf.Camera{{Perspective: &gltf.Perspective{Yfov: 0.8, Znear: 0.1}}}
	doc.Nodes = append(doc.Nodes, &gltf.Node{Camera: gltf.Index(0), Translation: [3]float64{0, 0, 5}})
	doc.Scenes[0].Nodes = []int{0, 1}
	addGLTFAnimation(doc, "Walk",
		gltfChannel{0, gltf.TRSTranslation, gltf.InterpolationLinear, []float32{0, 2}, [][3]float32{{0, 0, 0}, {2, 0, 0}}},
		gltfChannel{1, gltf.TRSTranslation, gltf.InterpolationLinear, []float32{0, 2}, [][3]float32{{0, 0, 5}, {0, 4, 5}}})
	writeGLTF(t, filepath.Join(dir, "walk.gltf"), doc)
	if err := os.WriteFile(filepath.Join(dir, "tri.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(camera, objects string) (*tracer.SceneDesc, error) {
		scene := filepath.Join(dir, "scene.json")
		src := `{"version": 1, "camera": ` + camera + `, "materials": {"m": {"type": "diffuse", "color": [1, 1, 1]}}, "objects": [` + objects + `]}`
		if err := os.WriteFile(scene, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(scene)
	}
	d, err := load(`{"gltf": "walk.gltf", "animation": "Walk", "time": 1}`,
		`{"type": "mesh", "file": "walk.gltf", "material": "m", "animation": 0, "time": 0.5},
		 {"type": "mesh", "file": "walk.gltf", "material": "m", "animation": "Walk", "time": 3},
		 {"type": "mesh", "file": "walk.gltf", "material": "m"}`)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range []float32{0.5, 2, 0} {
		checkPositions(t, d.Meshes[i], []mgl32.Vec3{{x, 0, 0}, {x + 1, 0, 0}, {x, 1, 0}})
	}
	if want := (mgl32.Vec3{0, 2, 5}); !closeVec3(d.Camera.Position, want) {
		t.Errorf("camera at %v, want %v", d.Camera.Position, want)
	}

	for _, tc := range []struct {
		camera, object, msg string
	}{
		{`{"position": [0, 0, 5], "look_at": [0, 0, 0]}`, `{"type": "mesh", "file": "walk.gltf", "material": "m", "animation": "Run"}`,
			`scene.json:1:214: objects[0].animation: "walk.gltf": no animation named "Run" (the file's animations: 0 "Walk")`}, // at "Run"
		{`{"gltf": "walk.gltf", "animation": 3}`, `{"type": "mesh", "file": "walk.gltf", "material": "m"}`,
			`camera.animation: "walk.gltf": no animations[3] (the file's animations: 0 "Walk")`},
		{`{"position": [0, 0, 5], "look_at": [0, 0, 0]}`, `{"type": "mesh", "file": "walk.gltf", "material": "m", "animation": "Walk", "time": -0.5}`,
			`objects[0].time: must be >= 0 (seconds), found -0.5`},
		{`{"gltf": "walk.gltf", "time": 1}`, `{"type": "mesh", "file": "walk.gltf", "material": "m"}`,
			`camera.time: "time" poses an animation: give the object an "animation" too`},
		{`{"position": [0, 0, 5], "look_at": [0, 0, 0]}`, `{"type": "mesh", "file": "tri.obj", "material": "m", "animation": 0}`,
			`objects[0].animation: animation applies to glTF files (.gltf, .glb); "tri.obj" is a .obj file`},
		{`{"position": [0, 0, 5], "look_at": [0, 0, 0]}`, `{"type": "mesh", "file": "walk.gltf", "material": "m", "animation": true}`,
			`objects[0].animation: expected an animation's name or index, found`},
	} {
		if _, err := load(tc.camera, tc.object); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s / %s: error %v, want one with %q", tc.camera, tc.object, err, tc.msg)
		}
	}
}

// manyWeightChannels returns morphDoc's triangle with targets morph
// targets (all the same displacement) and nodes nodes holding it, and an
// animation "Faces" whose channels set the weights of every node: all
// from one sampler, or, with inputs, each from a sampler of its own
// with an input accessor of its own (one keyframe at 0 s, the same
// bytes), all sharing one output of targets weights of 0.5.
func manyWeightChannels(targets, nodes int, inputs bool) *gltf.Document {
	doc := newGLTFDoc(gltfTriangle, nil)
	d := modeler.WritePosition(doc, [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}})
	doc.Meshes[0].Primitives[0].Targets = make([]gltf.PrimitiveAttributes, targets)
	for i := range targets {
		doc.Meshes[0].Primitives[0].Targets[i] = gltf.PrimitiveAttributes{gltf.POSITION: d}
	}
	weights := make([]float32, targets)
	for i := range weights {
		weights[i] = 0.5
	}
	in := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0})
	out := modeler.WriteAccessor(doc, gltf.TargetNone, weights)
	a := &gltf.Animation{Name: "Faces"}
	for n := range nodes {
		if n > 0 {
			doc.Nodes = append(doc.Nodes, &gltf.Node{Mesh: gltf.Index(0)})
		}
		if n == 0 || inputs {
			acc := *doc.Accessors[in]
			doc.Accessors = append(doc.Accessors, &acc)
			a.Samplers = append(a.Samplers, &gltf.AnimationSampler{Input: len(doc.Accessors) - 1, Output: out})
		}
		a.Channels = append(a.Channels, &gltf.AnimationChannel{Sampler: len(a.Samplers) - 1,
			Target: gltf.AnimationChannelTarget{Node: gltf.Index(n), Path: gltf.TRSWeights}})
	}
	doc.Animations = []*gltf.Animation{a}
	return doc
}

// TestGLTFAnimationSharedWeights: 2000 channels sharing one sampler set
// the 2000 weights of 2000 nodes: the sampled weights are computed once
// and shared, not copied per channel (2000 × 2000 × 8 bytes = 32 MB), so
// that a file's channel and target counts cannot multiply into memory
// the file does not bring. The triangle is drawn at its weights.
func TestGLTFAnimationSharedWeights(t *testing.T) {
	const targets, nodes = 2000, 2000
	doc := manyWeightChannels(targets, nodes, false)
	dir, a := gltfScene(t)
	path := writeGLTF(t, filepath.Join(dir, "model.gltf"), doc)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := loadGLTFPose(a, path, posedAt("Faces", 0))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	// Each target moves every vertex by (0, 0, 1), at 0.5: z = 1000.
	checkPositions(t, m.meshes[0], []mgl32.Vec3{{0, 0, 1000}, {1, 0, 1000}, {0, 1, 1000}})
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(16<<20); got > most {
		t.Errorf("posing allocated %d bytes, want at most %d (the weights sampled once, %d bytes)", got, most, targets*8)
	}
}

// TestGLTFAnimationSampledBudget: samplers that each read an input
// accessor of their own (4 bytes) and one shared output of 1000 weights
// would set 1000 × 1000 weights, far more values than the file's
// buffers hold bytes: an error, before they are sampled.
func TestGLTFAnimationSampledBudget(t *testing.T) {
	doc := manyWeightChannels(1000, 1000, true)
	modeler.WriteBufferView(doc, gltf.TargetNone, make([]byte, 8000)) // room for the inputs' 4000 bytes
	_, err := loadGLTFPosedDoc(t, doc, posedAt("Faces", 0))
	if err == nil || !strings.Contains(err.Error(), "sampled") {
		t.Fatalf("error %v, want one about the sampled values", err)
	}
	// The same with one sampler loads.
	mustPose(t, manyWeightChannels(1000, 1000, false), posedAt("Faces", 0))
}
