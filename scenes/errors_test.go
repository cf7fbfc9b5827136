package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	stdpng "image/png"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"
)

// mark is put in a test input just before the byte an error must point
// at; the test removes it and computes the expected line and column.
const mark = "‸"

// Building blocks of small test scenes.
const (
	cam  = `"camera": {"position": [0, 0, -1], "look_at": [0, 0, 0]}`
	mats = `"materials": {"glass": {"type": "dielectric"}, "white": {"type": "diffuse"}}`
)

// sceneWith returns a valid scene with members added at the top level.
func sceneWith(members string) string {
	return `{"version": 1, ` + cam + `, ` + mats + `, ` + members + `}`
}

// object returns a scene with one object.
func object(obj string) string { return sceneWith(`"objects": [` + obj + `]`) }

// material returns a scene with one more material, named m.
func material(m string) string {
	return `{"version": 1, ` + cam + `, "materials": {"m": ` + m + `}}`
}

// camera returns a scene with the given camera members.
func camera(members string) string { return `{"version": 1, "camera": {` + members + `}}` }

// TestParseErrors checks that each class of bad input gets an error that
// names the right place: line and column (where the mark is) and path,
// followed by the message.
func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			off := strings.Index(tt.in, mark)
			if off < 0 {
				t.Fatal("test input has no mark")
			}
			in := tt.in[:off] + tt.in[off+len(mark):]
			line := 1 + strings.Count(in[:off], "\n")
			col := 1 + utf8.RuneCountInString(in[strings.LastIndexByte(in[:off], '\n')+1:off])
			s, err := Parse("test.json", []byte(in))
			if err == nil {
				t.Fatalf("Parse succeeded: %+v", *s)
			}
			if s != nil {
				t.Errorf("Parse returned a scene with an error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			if e.File != "test.json" || e.Line != line || e.Col != col {
				t.Errorf("error at %s:%d:%d, want test.json:%d:%d: %v", e.File, e.Line, e.Col, line, col, err)
			}
			want := fmt.Sprintf("test.json:%d:%d: %s", line, col, tt.want)
			if got := err.Error(); !strings.HasPrefix(got, want) {
				t.Errorf("error\n got %s\nwant %s…", got, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has a newline: %q", err.Error())
			}
			if strings.Contains(err.Error(), "tracer.") {
				t.Errorf("error names the program's internals: %q", err.Error())
			}
		})
	}
}

// parseErrorTests are bad inputs, one or more of each class, and the
// errors they get. FuzzParse starts from them too.
var parseErrorTests = []struct {
	name string
	in   string // with mark before the offending byte
	want string // "PATH: MSG" (or just MSG when there is no path); a prefix of what follows "FILE:LINE:COL: "
}{
	// JSON syntax.
	{"empty", mark, "unexpected end of input; expected a value"},
	{"only space", "  \n " + mark, "unexpected end of input; expected a value"},
	{"trailing garbage", `{"version": 1} ` + mark + `x`, "unexpected character 'x' after the end of the top-level value"},
	{"two objects", "{\"version\": 1}\n" + mark + `{}`, "unexpected character '{' after the end of the top-level value"},
	{"trailing comma in object", `{"version": 1, ` + cam + `,` + mark + `}`, "unexpected '}' after ','; JSON allows no trailing comma"},
	{"trailing comma in array", camera(`"position": [0, 0, 1,` + mark + `]`), "camera.position: unexpected ']' after ','; JSON allows no trailing comma"},
	{"duplicate key", `{"version": 1, ` + mark + `"version": 1}`, `duplicate key "version"`},
	{"duplicate nested key", camera(`"position": [0, 0, 1], "look_at": [0, 0, 0], ` + mark + `"position": [1, 1, 1]`), `camera: duplicate key "position"`},
	{"duplicate in large object", `{"materials": {` + manyMaterials(40) + `, ` + mark + `"m7": {}}}`, `materials: duplicate key "m7"`},
	{"missing colon", `{"version" ` + mark + `1}`, `unexpected character '1'; expected ':' after key "version"`},
	{"missing comma", "{\"version\": 1\n  " + mark + `"camera": {}}`, `unexpected character '"'; expected ',' or '}' after the value of "version"`},
	{"missing comma in array", camera(`"position": [0 ` + mark + `0, 1]`), "camera.position[0]: unexpected character '0'; expected ',' or ']' after an array element"},
	{"single-quoted key", `{` + mark + `'version': 1}`, `unexpected character '\''; expected a string key`},
	{"comment", "{\n  " + mark + "// the version\n  \"version\": 1}", "unexpected comment (JSON has no comments); expected a string key"},
	{"unclosed object", "{\"version\": 1,\n \"camera\": {\"fov\": 3}\n" + mark, "unexpected end of input; the object at 1:1 is not closed"},
	{"unclosed array", `{"objects": [` + mark, "objects[0]: unexpected end of input; expected a value"},
	{"unterminated string", `{"version": 1, ` + mark + `"camera`, "string not terminated"},
	{"control character in string", `{"description": "a` + mark + "\tb\"}", "description: control character U+0009 in a string; write it as an escape"},
	{"invalid utf-8", `{"description": "a` + mark + "\xff\"}", "description: invalid UTF-8 byte 0xFF in a string"},
	{"invalid escape", `{"description": "a` + mark + `\x"}`, `description: invalid escape character 'x' in a string`},
	{"short unicode escape", `{"description": "` + mark + `\u12"}`, `description: invalid \u escape; expected four hex digits`},
	{"NaN", `{"version": ` + mark + `NaN}`, "version: unexpected character 'N'; expected a value"},
	{"Infinity", `{"version": 1, ` + cam + `, "render": {"width": ` + mark + `Infinity}}`, "render.width: unexpected character 'I'; expected a value"},
	{"minus Infinity", `{"version": 1, ` + cam + `, "render": {"width": -` + mark + `Infinity}}`, "render.width: unexpected character 'I' in a number; expected a digit"},
	{"leading zero", `{"version": 0` + mark + `1}`, "unexpected character '1'; expected ',' or '}' after the value of \"version\""},
	{"bare dot", `{"version": 1.` + mark + `}`, "version: unexpected character '}' in a number; expected a digit after '.'"},
	{"bare exponent", `{"version": 1e` + mark + `}`, "version: unexpected character '}' in a number; expected a digit in the exponent"},
	{"plus sign", `{"version": ` + mark + `+1}`, "version: unexpected character '+'; expected a value"},
	{"misspelt literal", `{"version": ` + mark + `tru}`, "version: unexpected character 't'; expected a value"},
	{"stray byte", `{"version": ` + mark + "\x01}", "version: unexpected character U+0001; expected a value"},
	{"too deep", strings.Repeat("[", MaxNesting) + mark + "[]" + strings.Repeat("]", MaxNesting), "[0][0][0]"},

	// The top level.
	{"array at the top", mark + `[{"version": 1}]`, `a scene file holds a JSON object ({"version": 1, ...}), found an array`},
	{"null at the top", " " + mark + `null`, `a scene file holds a JSON object ({"version": 1, ...}), found null`},
	{"missing version", mark + `{` + cam + `}`, `missing required field "version"`},
	{"version 2", `{"version": ` + mark + `2, "camera": 5, "new": true}`, "version: unsupported scene file version 2; this build reads version 1"},
	{"version string", `{"version": ` + mark + `"1"}`, "version: expected a number, found a string"},
	{"version fraction", `{"version": ` + mark + `1.5}`, "version: expected an integer, found 1.5"},
	{"unknown top-level field", `{"version": 1, ` + mark + `"objets": []}`, `unknown field "objets"; did you mean "objects"?`},
	{"unknown field without suggestion", `{"version": 1, ` + mark + `"zzz": []}`, `unknown field "zzz" (expected one of "version", "description", "render", "camera", "film", "background", "materials", "lights", "objects")`},
	{"description not a string", `{"version": 1, ` + cam + `, "description": ` + mark + `7}`, "description: expected a string, found a number"},
	{"missing camera", mark + `{"version": 1}`, `missing required field "camera"`},

	// Numbers.
	{"1e999", sceneWith(`"render": {"width": ` + mark + `1e999}`), "render.width: not a finite number: 1e999"},
	{"-1e999", camera(`"position": [0, ` + mark + `-1e999, 0]`), "camera.position[1]: not a finite number: -1e999"},
	{"float32 overflow", object(`{"type": "sphere", "center": [0, 0, 0], "radius": ` + mark + `1e39, "material": "white"}`), "objects[0].radius: not a finite number: 1e39 is too large for float32"},
	{"underflow to zero", object(`{"type": "sphere", "center": [0, 0, 0], "radius": ` + mark + `1e-50, "material": "white"}`), "objects[0].radius: must be > 0, found 1e-50 (0 as float32)"},

	// render.
	{"unknown render field", sceneWith(`"render": {` + mark + `"widht": 3}`), `render: unknown field "widht"; did you mean "width"?`},
	{"width as string", sceneWith(`"render": {"width": ` + mark + `"800"}`), "render.width: expected a number, found a string"},
	{"width zero", sceneWith(`"render": {"width": ` + mark + `0}`), "render.width: must be at least 1, found 0"},
	{"width past limit", sceneWith(`"render": {"width": ` + mark + `16385}`), "render.width: must be at most 16384, found 16385"},
	{"height past limit", sceneWith(`"render": {"height": ` + mark + `1e9}`), "render.height: must be at most 16384, found 1e9"},
	{"width fraction", sceneWith(`"render": {"width": ` + mark + `640.5}`), "render.width: expected an integer, found 640.5"},
	{"samples past limit", sceneWith(`"render": {"samples": ` + mark + `65537}`), "render.samples: must be at most 65536, found 65537"},
	{"max_depth negative", sceneWith(`"render": {"max_depth": ` + mark + `-1}`), "render.max_depth: must be at least 0, found -1"},
	{"max_depth past limit", sceneWith(`"render": {"max_depth": ` + mark + `65}`), "render.max_depth: must be at most 64, found 65"},
	{"noise_threshold negative", sceneWith(`"render": {"noise_threshold": ` + mark + `-0.01}`), "render.noise_threshold: must be in [0, 1]"},
	{"noise_threshold past 1", sceneWith(`"render": {"noise_threshold": ` + mark + `1.5}`), "render.noise_threshold: must be in [0, 1]"},
	{"noise_threshold a string", sceneWith(`"render": {"noise_threshold": ` + mark + `"0.01"}`), "render.noise_threshold: expected a number"},
	{"min_samples negative", sceneWith(`"render": {"noise_threshold": 0.01, "min_samples": ` + mark + `-4}`), "render.min_samples: must be at least 0, found -4"},
	{"min_samples past limit", sceneWith(`"render": {"min_samples": ` + mark + `65537}`), "render.min_samples: must be at most 65536, found 65537"},
	{"min_samples fractional", sceneWith(`"render": {"min_samples": ` + mark + `4.5}`), "render.min_samples: "},
	{"seed negative", sceneWith(`"render": {"seed": ` + mark + `-1}`), "render.seed: must be at least 0, found -1"},
	{"seed past 2^53", sceneWith(`"render": {"seed": ` + mark + `9007199254740993}`), "render.seed: must be at most 9007199254740992 (2^53), found 9007199254740993"},
	{"seed huge", sceneWith(`"render": {"seed": ` + mark + `123456789012345678901234567890}`), "render.seed: must be at most 9007199254740992 (2^53)"},
	{"seed past float32", sceneWith(`"render": {"seed": ` + mark + `1e300}`), "render.seed: must be at most 9007199254740992 (2^53), found 1e300"},
	{"width past float32", sceneWith(`"render": {"width": ` + mark + `1e39}`), "render.width: must be at most"},
	{"unknown integrator", sceneWith(`"render": {"integrator": ` + mark + `"pth"}`), `render.integrator: unknown integrator "pth"; did you mean "path"? (accepted: "path", "whitted")`},
	{"unknown light_tree_points", sceneWith(`"render": {"light_tree_points": ` + mark + `"alway"}`), `render.light_tree_points: unknown value "alway"; did you mean "always"? (accepted: "auto", "always", "never")`},
	{"integrator not a string", sceneWith(`"render": {"integrator": ` + mark + `1}`), `render.integrator: expected a string, found a number`},
	{"render not an object", sceneWith(`"render": ` + mark + `[640, 480]`), "render: expected an object, found an array"},

	// camera.
	{"camera missing position", `{"version": 1, "camera": ` + mark + `{"look_at": [0, 0, 0]}}`, `camera: missing required field "position"`},
	{"camera position short", camera(`"position": ` + mark + `[0, 0], "look_at": [0, 0, 0]`), "camera.position: expected 3 numbers, found 2"},
	{"camera position scalar", camera(`"position": ` + mark + `5, "look_at": [0, 0, 0]`), "camera.position: expected an array of 3 numbers, found a number"},
	{"camera position element", camera(`"position": [0, ` + mark + `"1", 2], "look_at": [0, 0, 0]`), "camera.position[1]: expected a number, found a string"},
	{"camera position null", camera(`"position": [0, 1, ` + mark + `null], "look_at": [0, 0, 0]`), "camera.position[2]: expected a number, found null"},
	{"look_at equals position", camera(`"position": [1, 2, 3], "look_at": ` + mark + `[1, 2, 3]`), "camera.look_at: must differ from camera.position"},
	{"look_at too far", camera(`"position": [-3e38, 0, 0], "look_at": ` + mark + `[3e38, 0, 0]`), "camera.look_at: is too close to or too far from camera.position"},
	{"up zero", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "up": ` + mark + `[0, 0, 0]`), "camera.up: must not be zero"},
	{"up parallel", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "up": ` + mark + `[0, 0, -2]`), "camera.up: is parallel to the view direction (camera.look_at - camera.position)"},
	{"default up parallel", `{"version": 1, "camera": ` + mark + `{"position": [0, 5, 0], "look_at": [0, 0, 0]}}`, "camera.up: the default up [0, 1, 0] is parallel to the view direction; give camera.up"},
	{"fov zero", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "fov": ` + mark + `0`), "camera.fov: must be in (0, 180), bounds excluded, found 0"},
	{"fov 180", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "fov": ` + mark + `180`), "camera.fov: must be in (0, 180), bounds excluded, found 180"},
	{"aperture negative", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "aperture": ` + mark + `-0.1`), "camera.aperture: must be >= 0, found -0.1"},
	{"unknown camera type", camera(`"type": ` + mark + `"ortho", "position": [0, 0, -1], "look_at": [0, 0, 0]`), `camera.type: unknown camera type "ortho" (accepted: "perspective", "orthographic")`},
	{"height on a perspective camera", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "height": ` + mark + `2`), `camera.height: applies to an orthographic camera (camera.type "orthographic")`},
	{"orthographic with a lens", camera(`"type": "orthographic", "position": [0, 0, -1], "look_at": [0, 0, 0], "aperture": ` + mark + `0.1`), "camera.aperture: an orthographic camera has no lens: aperture must be 0"},
	{"orthographic height 0", camera(`"type": "orthographic", "position": [0, 0, -1], "look_at": [0, 0, 0], "height": ` + mark + `0`), "camera.height: the view's height must be a positive number, found 0"},
	{"focus_distance negative", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "focus_distance": ` + mark + `-1`), "camera.focus_distance: must be >= 0, found -1"},
	{"shift of three", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], "shift": ` + mark + `[0, 0, 0]`), "camera.shift: expected 2 numbers, found 3"},
	{"camera unknown field", camera(`"position": [0, 0, -1], "look_at": [0, 0, 0], ` + mark + `"lookat": [0, 0, 0]`), `camera: unknown field "lookat"; did you mean "look_at"?`},

	// film.
	{"unknown tonemap", sceneWith(`"film": {"tonemap": ` + mark + `"filmic"}`), `film.tonemap: unknown tonemap "filmic" (accepted: "clamp", "reinhard", "aces")`},
	{"unknown transfer", sceneWith(`"film": {"transfer": ` + mark + `"sRGB"}`), `film.transfer: unknown transfer "sRGB"; did you mean "srgb"? (accepted: "srgb", "linear")`},
	{"exposure too large", sceneWith(`"film": {"exposure": ` + mark + `100}`), "film.exposure: must be in [-64, 64], found 100"},
	{"unknown filter", sceneWith(`"film": {"filter": ` + mark + `"blackman_harris"}`), `film.filter: unknown filter "blackman_harris"; did you mean "blackman-harris"? (accepted: "box", "gaussian", "blackman-harris")`},
	{"filter too wide", sceneWith(`"film": {"filter": "gaussian", "filter_width": ` + mark + `12}`), "film.filter_width: must be in [0.01, 10], found 12"},
	{"filter too narrow", sceneWith(`"film": {"filter_width": ` + mark + `0}`), "film.filter_width: must be in [0.01, 10], found 0"},

	// background.
	{"image background missing", sceneWith(`"background": {"type": "image", "file": ` + mark + `"sky.hdr"}`), `background.file: "sky.hdr": no such file or directory`},
	{"image background no file", sceneWith(`"background": ` + mark + `{"type": "image"}`), `background: missing required field "file"`},
	{"image background intensity", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "intensity": ` + mark + `-1}`), "background.intensity: must be >= 0, found -1"},
	{"image background field", sceneWith(`"background": {"type": "image", "file": "sky.hdr", ` + mark + `"color": [1, 1, 1]}`), `background: unknown field "color" (expected one of "type", "file", "colorspace", "intensity", "rotation")`},
	{"image background rotation string", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "rotation": ` + mark + `"90"}`), "background.rotation: expected a number (degrees about +y) or an array of 3 numbers, found a string"},
	{"image background rotation too large", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "rotation": ` + mark + `1e39}`), "background.rotation: not a finite number: 1e39 is too large for float32"},
	{"image background rotation short", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "rotation": ` + mark + `[0, 90]}`), "background.rotation: expected 3 numbers, found 2"},
	{"image background rotation element", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "rotation": [0, ` + mark + `1e39, 0]}`), "background.rotation[1]: not a finite number: 1e39 is too large for float32"},
	{"image background rotation element type", sceneWith(`"background": {"type": "image", "file": "sky.hdr", "rotation": [0, 0, ` + mark + `null]}`), "background.rotation[2]: expected a number, found null"},
	{"unknown background", sceneWith(`"background": {"type": ` + mark + `"sky"}`), `background.type: unknown background type "sky" (accepted: "color", "gradient", "image")`},
	{"gradient without type", sceneWith(`"background": {` + mark + `"bottom": [1, 1, 1], "top": [0, 0, 1]}`), `background: unknown field "bottom"; a gradient background needs "type": "gradient"`},
	{"gradient missing top", sceneWith(`"background": ` + mark + `{"type": "gradient", "bottom": [1, 1, 1]}`), `background: missing required field "top"`},
	{"negative colour", sceneWith(`"background": {"color": [0, ` + mark + `-0.5, 0]}`), "background.color[1]: a colour component must be >= 0, found -0.5"},
	{"colour", sceneWith(`"background": {` + mark + `"colour": [0, 0, 0]}`), `background: unknown field "colour"; did you mean "color"?`},

	// materials.
	{"materials not an object", `{"version": 1, ` + cam + `, "materials": ` + mark + `[{"type": "diffuse"}]}`, "materials: expected an object, found an array"},
	{"material not an object", material(mark + `"red"`), "materials.m: expected an object, found a string"},
	{"material missing type", material(mark + `{"color": [1, 0, 0]}`), `materials.m: missing required field "type"`},
	{"unknown material type", material(`{"type": ` + mark + `"lambert"}`), `materials.m.type: unknown material type "lambert" (accepted: "diffuse", "metal", "dielectric", "emissive", "phong", "pbr"`}, // a prefix: a new type may follow
	{"material unknown field", material(`{"type": "diffuse", ` + mark + `"colour": [1, 0, 0]}`), `materials.m: unknown field "colour"; did you mean "color"?`},
	{"field of another type", material(`{"type": "metal", ` + mark + `"ior": 1.5}`), `materials.m: unknown field "ior" (expected one of "type", "color", "texture", "roughness", "normal_map", "normal_scale", "alpha", "alpha_mode", "alpha_cutoff", "alpha_texture", "double_sided")`},
	{"unknown alpha mode", material(`{"type": "diffuse", "alpha_mode": ` + mark + `"cutout"}`), `materials.m.alpha_mode: unknown alpha mode "cutout" (accepted: "opaque", "mask", "blend")`},
	{"alpha cutoff above 1", material(`{"type": "diffuse", "alpha_mode": "mask", "alpha_cutoff": ` + mark + `1.5}`), "materials.m.alpha_cutoff: must be in [0, 1], found 1.5"},
	{"alpha cutoff below 0", material(`{"type": "diffuse", "alpha_mode": "mask", "alpha_cutoff": ` + mark + `-0.1}`), "materials.m.alpha_cutoff: must be in [0, 1], found -0.1"},
	{"alpha without a mode", material(`{"type": "diffuse", "alpha": ` + mark + `0.3}`), `materials.m.alpha: "alpha" has no effect with alpha_mode "opaque": set alpha_mode to "mask" or "blend"`},
	{"double_sided not a boolean", material(`{"type": "diffuse", "double_sided": ` + mark + `0}`), "materials.m.double_sided: expected true or false, found a number"},
	{"roughness above 1", material(`{"type": "metal", "roughness": ` + mark + `1.5}`), "materials.m.roughness: must be in [0, 1], found 1.5"},
	{"clearcoat above 1", material(`{"type": "pbr", "clearcoat": ` + mark + `1.5}`), "materials.m.clearcoat: must be in [0, 1], found 1.5"},
	{"clearcoat_roughness below 0", material(`{"type": "pbr", "clearcoat": 1, "clearcoat_roughness": ` + mark + `-0.1}`), "materials.m.clearcoat_roughness: must be in [0, 1], found -0.1"},
	{"clearcoat not a number", material(`{"type": "pbr", "clearcoat": ` + mark + `"yes"}`), "materials.m.clearcoat: "},
	{"specular above 1", material(`{"type": "pbr", "specular": ` + mark + `1.5}`), "materials.m.specular: must be in [0, 1], found 1.5"},
	{"specular_color below 0", material(`{"type": "pbr", "specular_color": [1, ` + mark + `-0.5, 1]}`), "materials.m.specular_color[1]: a colour component must be >= 0, found -0.5"},
	{"specular_color not a colour", material(`{"type": "pbr", "specular_color": ` + mark + `1}`), "materials.m.specular_color: "},
	{"pbr ior below 1", material(`{"type": "pbr", "ior": ` + mark + `0.9}`), "materials.m.ior: must be in [1, 4], found 0.9"},
	{"pbr ior above 4", material(`{"type": "pbr", "specular": 0.5, "ior": ` + mark + `5}`), "materials.m.ior: must be in [1, 4], found 5"},
	{"specular_texture a checker", material(`{"type": "pbr", "specular_texture": ` + mark + `{"type": "checker"}}`), "materials.m.specular_texture: a specular_texture must be an image texture (its alpha channel, or its grey level)"},
	{"specular_color_texture not a texture", material(`{"type": "pbr", "specular_color_texture": ` + mark + `1}`), "materials.m.specular_color_texture: "},
	{"clearcoat_texture not a texture", material(`{"type": "pbr", "clearcoat_texture": ` + mark + `1}`), "materials.m.clearcoat_texture: expected an object, found a number"},
	{"clearcoat_roughness_texture of an unknown type", material(`{"type": "pbr", "clearcoat_roughness_texture": {"type": ` + mark + `"wood"}}`), `materials.m.clearcoat_roughness_texture.type: unknown texture type "wood"`},
	{"clearcoat_texture on a metal", material(`{"type": "metal", ` + mark + `"clearcoat_texture": {"type": "checker"}}`), `materials.m: unknown field "clearcoat_texture"`},
	{"sheen_color above 1", material(`{"type": "pbr", "sheen_color": [0.5, 0.5, ` + mark + `1.5]}`), "materials.m.sheen_color[2]: a sheen colour component must be in [0, 1], found 1.5"},
	{"sheen_color below 0", material(`{"type": "pbr", "sheen_color": [` + mark + `-0.1, 0.5, 0.5]}`), "materials.m.sheen_color[0]: a colour component must be >= 0, found -0.1"},
	{"sheen_roughness above 1", material(`{"type": "pbr", "sheen_color": [1, 1, 1], "sheen_roughness": ` + mark + `2}`), "materials.m.sheen_roughness: must be in [0, 1], found 2"},
	{"sheen on a metal", material(`{"type": "metal", ` + mark + `"sheen_color": [1, 1, 1]}`), `materials.m: unknown field "sheen_color"`},
	{"specular on a metal", material(`{"type": "metal", ` + mark + `"specular_color": [1, 1, 1]}`), `materials.m: unknown field "specular_color"`},
	{"clearcoat on a metal", material(`{"type": "metal", ` + mark + `"clearcoat": 1}`), `materials.m: unknown field "clearcoat" (expected one of "type", "color", "texture", "roughness", "normal_map", "normal_scale", "alpha", "alpha_mode", "alpha_cutoff", "alpha_texture", "double_sided")`},
	{"ior below 1", material(`{"type": "dielectric", "ior": ` + mark + `0.5}`), "materials.m.ior: must be in [1, 4], found 0.5"},
	{"ior above 4", material(`{"type": "dielectric", "ior": ` + mark + `5}`), "materials.m.ior: must be in [1, 4], found 5"},
	{"attenuation distance 0", material(`{"type": "dielectric", "attenuation_color": [1, 0.5, 0.5], "attenuation_distance": ` + mark + `0}`), "materials.m.attenuation_distance: must be > 0, found 0"},
	{"attenuation distance negative", material(`{"type": "dielectric", "attenuation_color": [1, 0.5, 0.5], "attenuation_distance": ` + mark + `-2}`), "materials.m.attenuation_distance: must be > 0, found -2"},
	{"attenuation colour above 1", material(`{"type": "dielectric", "attenuation_color": [1, ` + mark + `1.5, 0.5], "attenuation_distance": 1}`), "materials.m.attenuation_color[1]: an attenuation colour component must be in [0, 1] (the fraction of light kept over attenuation_distance), found 1.5"},
	{"attenuation colour negative", material(`{"type": "dielectric", "attenuation_color": [1, 0.5, ` + mark + `-0.5], "attenuation_distance": 1}`), "materials.m.attenuation_color[2]: a colour component must be >= 0, found -0.5"},
	{"attenuation colour alone", material(`{"type": "dielectric", "attenuation_color": ` + mark + `[1, 0.5, 0.5]}`), `materials.m.attenuation_color: "attenuation_color" has no effect without "attenuation_distance", the distance over which the glass keeps that fraction of the light`},
	{"attenuation distance alone", material(`{"type": "dielectric", "attenuation_distance": ` + mark + `2}`), `materials.m.attenuation_distance: "attenuation_distance" has no effect without "attenuation_color", the fraction of the light the glass keeps over that distance`},
	{"attenuation on a metal", material(`{"type": "metal", ` + mark + `"attenuation_distance": 2}`), `materials.m: unknown field "attenuation_distance" (expected one of "type", "color", "texture", "roughness", "normal_map", "normal_scale", "alpha", "alpha_mode", "alpha_cutoff", "alpha_texture", "double_sided")`},
	{"unlit with a normal map", material(`{"type": "unlit", ` + mark + `"normal_map": {"type": "checker"}}`), `materials.m: unknown field "normal_map" (expected one of "type", "color", "texture", "alpha", "alpha_mode", "alpha_cutoff", "alpha_texture", "double_sided")`},
	{"unlit with an intensity", material(`{"type": "unlit", ` + mark + `"intensity": 2}`), `materials.m: unknown field "intensity"`},
	{"unlit colour negative", material(`{"type": "unlit", "color": [1, ` + mark + `-0.5, 0]}`), "materials.m.color[1]: a colour component must be >= 0, found -0.5"},
	{"unlit colour and texture", material(`{"type": "unlit", "color": [1, 1, 1], "texture": ` + mark + `{"type": "checker"}}`), `materials.m: give either "color" or "texture", not both`},
	{"intensity negative", material(`{"type": "emissive", "intensity": ` + mark + `-1}`), "materials.m.intensity: must be >= 0, found -1"},
	{"emission overflows", material(`{"type": "emissive", "color": [1, 1e30, 0], "intensity": ` + mark + `1e10}`), "materials.m.intensity: the intensity 1e+10 times the colour's largest component 1e+30 is too large for float32"},
	{"emissive checker overflows", material(`{"type": "emissive", "texture": {"type": "checker", "odd": [0, 0, 1e20]}, "intensity": ` + mark + `1e20}`), "materials.m.intensity: the intensity 1e+20 times the checker's largest colour component 1e+20 is too large for float32"},
	{"ambient negative", material(`{"type": "phong", "ambient": ` + mark + `-0.1}`), "materials.m.ambient: must be >= 0, found -0.1"},
	{"specular negative", material(`{"type": "phong", "specular": ` + mark + `-1}`), "materials.m.specular: must be >= 0, found -1"},
	{"shininess too large", material(`{"type": "phong", "shininess": ` + mark + `20000}`), "materials.m.shininess: must be in [0, 10000], found 20000"},
	{"reflection above 1", material(`{"type": "phong", "reflection": ` + mark + `1.5}`), "materials.m.reflection: must be in [0, 1], found 1.5"},
	{"negative albedo", material(`{"type": "diffuse", "color": [` + mark + `-1, 0, 0]}`), "materials.m.color[0]: a colour component must be >= 0, found -1"},
	{"colour as string", material(`{"type": "diffuse", "color": ` + mark + `"red"}`), "materials.m.color: expected an array of 3 numbers, found a string"},
	{"color and texture", material(`{"type": "diffuse", "color": [1, 1, 1], "texture": ` + mark + `{"type": "checker"}}`), `materials.m: give either "color" or "texture", not both`},
	{"image texture missing", material(`{"type": "diffuse", "texture": {"type": "image", "file": ` + mark + `"wood.png"}}`), `materials.m.texture.file: "wood.png": no such file or directory`},
	{"texture scale zero", material(`{"type": "diffuse", "texture": {"type": "image", "file": "x.png", "scale": ` + mark + `[1, 0]}}`), "materials.m.texture.scale: a texture's scale must be > 0, found 0"},
	{"checker scale pair", material(`{"type": "diffuse", "texture": {"type": "checker", "scale": ` + mark + `[1, 2]}}`), "materials.m.texture.scale: expected a number, found an array"},
	{"texture offset short", material(`{"type": "diffuse", "texture": {"type": "checker", "offset": ` + mark + `[1]}}`), "materials.m.texture.offset: expected 2 numbers, found 1"},
	{"image texture no file", material(`{"type": "diffuse", "texture": ` + mark + `{"type": "image"}}`), `materials.m.texture: missing required field "file"`},
	{"image texture file number", material(`{"type": "diffuse", "texture": {"type": "image", "file": ` + mark + `1}}`), "materials.m.texture.file: expected a string, found a number"},
	{"image texture empty file", material(`{"type": "diffuse", "texture": {"type": "image", "file": ` + mark + `""}}`), "materials.m.texture.file: empty file name"},
	{"image texture colorspace", material(`{"type": "diffuse", "texture": {"type": "image", "file": "wood.png", "colorspace": ` + mark + `"sRGB"}}`), `materials.m.texture.colorspace: unknown colorspace "sRGB"; did you mean "srgb"? (accepted: "srgb", "linear")`},
	{"unknown texture", material(`{"type": "diffuse", "texture": {"type": ` + mark + `"chekcer"}}`), `materials.m.texture.type: unknown texture type "chekcer"; did you mean "checker"? (accepted: "checker", "image")`},
	{"texture scale zero", material(`{"type": "diffuse", "texture": {"type": "checker", "scale": ` + mark + `0}}`), "materials.m.texture.scale: must be > 0, found 0"},
	{"texture colour negative", material(`{"type": "diffuse", "texture": {"type": "checker", "odd": [0, 0, ` + mark + `-1]}}`), "materials.m.texture.odd[2]: a colour component must be >= 0, found -1"},
	{"texture not an object", material(`{"type": "diffuse", "texture": ` + mark + `"checker"}`), "materials.m.texture: expected an object, found a string"},
	{"empty material name", `{"version": 1, ` + cam + `, "materials": {` + mark + `"": {"type": "diffuse"}}}`, "materials: a material name must not be empty"},
	{"odd material name", `{"version": 1, ` + cam + `, "materials": {"my glass": {"type": "dielectric", "ior": ` + mark + `0}}}`, `materials["my glass"].ior: must be in [1, 4], found 0`},

	// lights.
	{"lights not an array", sceneWith(`"lights": ` + mark + `{}`), "lights: expected an array, found an object"},
	{"light missing position", sceneWith(`"lights": [` + mark + `{"type": "point"}]`), `lights[0]: missing required field "position"`},
	{"light missing type", sceneWith(`"lights": [` + mark + `{"position": [0, 0, 0]}]`), `lights[0]: missing required field "type"`},
	{"unknown light type", sceneWith(`"lights": [{"type": ` + mark + `"spott", "position": [0, 0, 0]}]`), `lights[0].type: unknown light type "spott"; did you mean "spot"? (accepted: "point", "spot", "directional")`},
	{"spot missing direction", sceneWith(`"lights": [` + mark + `{"type": "spot", "position": [0, 0, 0]}]`), `lights[0]: missing required field "direction" (or "look_at")`},
	{"spot missing position", sceneWith(`"lights": [` + mark + `{"type": "spot", "direction": [0, -1, 0]}]`), `lights[0]: missing required field "position"`},
	{"spot zero direction", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": ` + mark + `[0, 0, 0]}]`), `lights[0].direction: must not be zero`},
	{"spot direction and look_at", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "look_at": ` + mark + `[0, 0, 0]}]`), `lights[0].look_at: give direction or look_at, not both`},
	{"spot look_at its position", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "look_at": ` + mark + `[0, 2, 0]}]`), `lights[0].look_at: is the light's position [0 2 0]: the spot light would point nowhere`},
	{"spot inner negative", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "inner_angle": ` + mark + `-1}]`), `lights[0].inner_angle: must be in [0, 90], found -1`},
	{"spot outer zero", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "inner_angle": 0, "outer_angle": ` + mark + `0}]`), `lights[0].outer_angle: must be in (0, 90], found 0`},
	{"spot outer too wide", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "outer_angle": ` + mark + `91}]`), `lights[0].outer_angle: must be in (0, 90], found 91`},
	{"spot inner past outer", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "inner_angle": ` + mark + `50}]`), `lights[0].inner_angle: 50 is more than outer_angle 45: the cone's full light must lie within its edge (0 ≤ inner_angle ≤ outer_angle ≤ 90)`},
	{"spot unknown field", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], ` + mark + `"outer_angel": 30}]`), `lights[0]: unknown field "outer_angel"; did you mean "outer_angle"?`},
	{"spot angle", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], ` + mark + `"angle": 30}]`), `lights[0]: unknown field "angle"`},
	{"spot unknown falloff", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "falloff": ` + mark + `"linear"}]`), `lights[0].falloff: unknown falloff "linear" (accepted: "inverse_square", "none")`},
	{"spot overflows", sceneWith(`"lights": [{"type": "spot", "position": [0, 2, 0], "direction": [0, -1, 0], "color": [1e20, 0, 0], "intensity": ` + mark + `1e20}]`), "lights[0].intensity: the intensity 1e+20 times the colour's largest component 1e+20 is too large for float32"},
	{"directional missing direction", sceneWith(`"lights": [` + mark + `{"type": "directional", "intensity": 2}]`), `lights[0]: missing required field "direction"`},
	{"directional zero direction", sceneWith(`"lights": [{"type": "directional", "direction": ` + mark + `[0, 0, 0]}]`), `lights[0].direction: must not be zero`},
	{"directional tiny direction", sceneWith(`"lights": [{"type": "directional", "direction": ` + mark + `[1e-30, 0, 0]}]`), `lights[0].direction: is too short or too long to normalise in float32`},
	{"directional position", sceneWith(`"lights": [{"type": "directional", "direction": [0, -1, 0], ` + mark + `"position": [1, 1, 1]}]`), `lights[0]: unknown field "position"`},
	{"directional angle negative", sceneWith(`"lights": [{"type": "directional", "direction": [0, -1, 0], "angle": ` + mark + `-0.5}]`), `lights[0].angle: must be in [0, 180], found -0.5`},
	{"directional angle too wide", sceneWith(`"lights": [{"type": "directional", "direction": [0, -1, 0], "angle": ` + mark + `181}]`), `lights[0].angle: must be in [0, 180], found 181`},
	{"point light angle", sceneWith(`"lights": [{"type": "point", "position": [0, 1, 0], ` + mark + `"angle": 0.5}]`), `lights[0]: unknown field "angle"`},
	{"directional intensity negative", sceneWith(`"lights": [{"type": "directional", "direction": [0, -1, 0], "intensity": ` + mark + `-1}]`), "lights[0].intensity: must be >= 0, found -1"},
	{"light overflows", sceneWith(`"lights": [{"type": "point", "position": [0, 0, 0], "color": [1e20, 0, 0], "intensity": ` + mark + `1e20}]`), "lights[0].intensity: the intensity 1e+20 times the colour's largest component 1e+20 is too large for float32"},
	{"light intensity negative", sceneWith(`"lights": [{"type": "point", "position": [0, 0, 0]}, {"type": "point", "position": [0, 0, 0], "intensity": ` + mark + `-2}]`), "lights[1].intensity: must be >= 0, found -2"},
	{"unknown falloff", sceneWith(`"lights": [{"type": "point", "position": [0, 0, 0], "falloff": ` + mark + `"linear"}]`), `lights[0].falloff: unknown falloff "linear" (accepted: "inverse_square", "none")`},
	{"light unknown field", sceneWith(`"lights": [{"type": "point", "position": [0, 0, 0], ` + mark + `"positon": [1, 1, 1]}]`), `lights[0]: unknown field "positon"; did you mean "position"?`},

	// objects.
	{"objects not an array", sceneWith(`"objects": ` + mark + `{}`), "objects: expected an array, found an object"},
	{"object not an object", object(`{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "white"}, ` + mark + `7`), "objects[1]: expected an object, found a number"},
	{"mesh file missing", object(`{"type": "mesh", "file": ` + mark + `"bunny.obj", "material": "white"}`), `objects[0].file: "bunny.obj": no such file or directory`},
	{"unknown object type", object(`{"type": ` + mark + `"sphre"}`), `objects[0].type: unknown object type "sphre"; did you mean "sphere"? (accepted: "sphere", "plane", "quad", "triangle", "mesh")`},
	{"object missing type", object(mark + `{"center": [0, 0, 0]}`), `objects[0]: missing required field "type"`},
	{"missing material", object(mark + `{"type": "sphere", "center": [0, 0, 0], "radius": 1}`), `objects[0]: missing required field "material"`},
	{"undefined material", object(`{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": ` + mark + `"glas"}`), `objects[0].material: undefined material "glas"; did you mean "glass"?`},
	{"undefined material far", object(`{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": ` + mark + `"steel"}`), `objects[0].material: undefined material "steel"`},
	{"no materials", `{"version": 1, ` + cam + `, "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": ` + mark + `"white"}]}`, `objects[0].material: undefined material "white": the scene defines no materials`},
	{"material not a string", object(`{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": ` + mark + `0}`), `objects[0].material: expected a string, found a number`},
	{"name not a string", object(`{"type": "sphere", "name": ` + mark + `1, "center": [0, 0, 0], "radius": 1, "material": "white"}`), `objects[0].name: expected a string, found a number`},
	{"sphere unknown field", object(`{"type": "sphere", "center": [0, 0, 0], ` + mark + `"raduis": 1, "material": "white"}`), `objects[0]: unknown field "raduis"; did you mean "radius"?`},
	{"sphere missing radius", object(mark + `{"type": "sphere", "center": [0, 0, 0], "material": "white"}`), `objects[0]: missing required field "radius"`},
	{"sphere radius zero", object(`{"type": "sphere", "center": [0, 0, 0], "radius": ` + mark + `0, "material": "white"}`), "objects[0].radius: must be > 0, found 0"},
	{"sphere radius negative", object(`{"type": "sphere", "center": [0, 0, 0], "radius": ` + mark + `-1, "material": "white"}`), "objects[0].radius: must be > 0, found -1"},
	{"sphere radius wrong type", object(`{"type": "sphere", "center": [0, 0, 0], "radius": ` + mark + `[1], "material": "white"}`), "objects[0].radius: expected a number, found an array"},
	{"plane normal zero", object(`{"type": "plane", "point": [0, 0, 0], "normal": ` + mark + `[0, 0, 0], "material": "white"}`), "objects[0].normal: must not be zero"},
	{"plane normal tiny", object(`{"type": "plane", "point": [0, 0, 0], "normal": ` + mark + `[0, 1e-30, 0], "material": "white"}`), "objects[0].normal: is too short or too long to normalise in float32"},
	{"quad degenerate", object(`{"type": "quad", "corner": [0, 0, 0], "edge1": [1, 0, 0], "edge2": ` + mark + `[-2, 0, 0], "material": "white"}`), "objects[0]: the quad is degenerate: edge1 and edge2 are zero or parallel"},
	{"quad zero edge", object(`{"type": "quad", "corner": [0, 0, 0], "edge1": [0, 0, 0], "edge2": ` + mark + `[0, 0, 1], "material": "white"}`), "objects[0]: the quad is degenerate: edge1 and edge2 are zero or parallel"},
	{"quad missing edge", object(mark + `{"type": "quad", "corner": [0, 0, 0], "edge1": [1, 0, 0], "material": "white"}`), `objects[0]: missing required field "edge2"`},
	{"triangle collinear", object(`{"type": "triangle", "vertices": ` + mark + `[[0, 0, 0], [1, 1, 1], [2, 2, 2]], "material": "white"}`), "objects[0].vertices: the triangle is degenerate: its vertices coincide or lie on a line"},
	{"triangle nearly collinear", object(`{"type": "triangle", "vertices": ` + mark + `[[0, 0, 0], [1000, 0, 0], [2000, 1e-7, 0]], "material": "white"}`), "objects[0].vertices: the triangle is degenerate"},
	{"triangle two vertices", object(`{"type": "triangle", "vertices": ` + mark + `[[0, 0, 0], [1, 0, 0]], "material": "white"}`), "objects[0].vertices: expected 3 points, found 2"},
	{"triangle vertex short", object(`{"type": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], ` + mark + `[0, 1]], "material": "white"}`), "objects[0].vertices[2]: expected 3 numbers, found 2"},
	{"triangle uv triple", object(`{"type": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "uv": [[0, 0], ` + mark + `[1, 0, 0], [0, 1]], "material": "white"}`), "objects[0].uv[1]: expected 2 numbers, found 3"},
	{"triangle uv count", object(`{"type": "triangle", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "uv": ` + mark + `[[0, 0]], "material": "white"}`), "objects[0].uv: expected 3 [u, v] pairs, found 1"},
	{"triangle too small", object(`{"type": "triangle", "vertices": ` + mark + `[[0, 0, 0], [1e-30, 0, 0], [0, 1e-30, 0]], "material": "white"}`), "objects[0].vertices: the triangle is too small or too large for float32 arithmetic"},
	{"later object", object(`{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "white"},` + "\n" + `{"type": "sphere", "center": [0, 0, ` + mark + `true], "radius": 1, "material": "white"}`), "objects[1].center[2]: expected a number, found a boolean"},
}

// manyMaterials returns n empty materials named m0, m1, ... as object
// members.
func manyMaterials(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"m%d": {}`, i)
	}
	return b.String()
}

// TestTextureUVTransformDecode: scale, rotation (degrees, counter-
// clockwise) and offset make the texture's UV matrix; a texture without
// them has none.
func TestTextureUVTransformDecode(t *testing.T) {
	s, err := Parse("test.json", []byte(material(`{"type": "diffuse", "texture": {"type": "checker", "scale": 4, "rotation": 90, "offset": [0.5, -1]}}`)))
	if err != nil {
		t.Fatal(err)
	}
	uv := s.Textures[0].UV
	want := [6]float32{0, -1, 1, 0, 0.5, -1} // a checker's scale stays its own
	for i := range uv {
		if d := uv[i] - want[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("UV = %v, want %v", uv, want)
		}
	}
	if s.Textures[0].Scale != 4 {
		t.Errorf("checker scale %g, want 4", s.Textures[0].Scale)
	}
	s, err = Parse("test.json", []byte(material(`{"type": "diffuse", "texture": {"type": "checker"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Textures[0].UV != ([6]float32{}) {
		t.Errorf("no transform given, UV = %v", s.Textures[0].UV)
	}
}

// TestClearcoatDecode: a pbr material's clearcoat and
// clearcoat_roughness (0 and 0 by default) become the tracer's.
func TestClearcoatDecode(t *testing.T) {
	for _, c := range []struct {
		fields          string
		clear, clearRgh float32
	}{
		{``, 0, 0},
		{`, "clearcoat": 1`, 1, 0},
		{`, "clearcoat": 0.25, "clearcoat_roughness": 0.6`, 0.25, 0.6},
	} {
		s, err := Parse("test.json", []byte(material(`{"type": "pbr"`+c.fields+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		if m := s.Materials[0]; m.Clearcoat != c.clear || m.ClearcoatRoughness != c.clearRgh {
			t.Errorf("%s: clearcoat %g, roughness %g; want %g, %g", c.fields, m.Clearcoat, m.ClearcoatRoughness, c.clear, c.clearRgh)
		}
	}
}

// TestPBRSpecularDecode: a pbr material's specular, specular_color and
// ior (1, [1, 1, 1] and 1.5 by default: glTF's, the material as it was)
// become the tracer's dielectric F0 and F90 (tracer.PBRSpecular).
func TestPBRSpecularDecode(t *testing.T) {
	for _, c := range []struct {
		fields string
		f0     mgl32.Vec3
		f90    float32
		set    uint32
	}{
		{``, mgl32.Vec3{}, 0, 0},
		{`, "specular": 1, "specular_color": [1, 1, 1], "ior": 1.5`, mgl32.Vec3{}, 0, 0},
		{`, "specular": 0`, mgl32.Vec3{}, 0, 1},
		{`, "specular": 0.5, "specular_color": [1, 0.5, 0]`, mgl32.Vec3{0.02, 0.01, 0}, 0.5, 1},
		// (2 − 1)/(2 + 1) squared: 1/9, and a colour of 20 clamps F0 to 1.
		{`, "ior": 2, "specular_color": [1, 20, 0]`, mgl32.Vec3{1.0 / 9, 1, 0}, 1, 1},
	} {
		s, err := Parse("test.json", []byte(material(`{"type": "pbr"`+c.fields+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		m := s.Materials[0]
		near := true
		for k := range 3 {
			near = near && math.Abs(float64(m.SpecularF0[k]-c.f0[k])) < 1e-7
		}
		if !near || m.SpecularF90 != c.f90 || m.DielectricSpecular != c.set {
			t.Errorf("%s: F0 %v, F90 %g, set %d; want %v, %g, %d", c.fields, m.SpecularF0, m.SpecularF90, m.DielectricSpecular, c.f0, c.f90, c.set)
		}
	}
}

// TestPBRSheenDecode: a pbr material's sheen_color and sheen_roughness
// become its SheenColor and SheenRoughness; without them, no sheen.
func TestPBRSheenDecode(t *testing.T) {
	for _, c := range []struct {
		fields string
		color  mgl32.Vec3
		rough  float32
	}{
		{``, mgl32.Vec3{}, 0},
		{`, "sheen_color": [0.9, 0.2, 0.4]`, mgl32.Vec3{0.9, 0.2, 0.4}, 0},
		{`, "sheen_color": [1, 1, 1], "sheen_roughness": 0.3`, mgl32.Vec3{1, 1, 1}, 0.3},
	} {
		s, err := Parse("test.json", []byte(material(`{"type": "pbr"`+c.fields+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		if m := s.Materials[0]; m.SheenColor != c.color || m.SheenRoughness != c.rough {
			t.Errorf("%s: sheen %v of roughness %g, want %v and %g", c.fields, m.SheenColor, m.SheenRoughness, c.color, c.rough)
		}
	}
}

// TestPBRSpecularMapsDecode: a pbr material's specular_color_texture
// (a checker here) becomes its SpecularColorMap, and its F0 is then not
// clamped to F90 (the map's colour comes before the clamp): ior 2 and a
// colour of 20 give 20/9 × 0.5; specular_texture, an image, becomes its
// SpecularMap, its alpha the image's grey level where it has no alpha
// channel (as alpha_texture's); either alone sets the dielectric
// specular, with the default factors.
func TestPBRSpecularMapsDecode(t *testing.T) {
	var png bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 2, 1))
	img.Pix[0], img.Pix[1] = 0, 255
	if err := stdpng.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fields       string
		f0           mgl32.Vec3
		f90          float32
		spec, colour uint32
		alpha        []float32 // SpecularMap's image's alpha
	}{
		{`, "specular": 0.5, "specular_color": [1, 20, 0], "ior": 2, "specular_color_texture": {"type": "checker"}`,
			mgl32.Vec3{0.5 / 9, 10.0 / 9, 0}, 0.5, 0, 1, nil},
		{`, "specular_texture": {"type": "image", "file": "s.png", "filter": "nearest"}`,
			mgl32.Vec3{0.04, 0.04, 0.04}, 1, 1, 0, []float32{0, 1}},
		{`, "specular_texture": {"type": "image", "file": "s.png"}, "specular_color_texture": {"type": "image", "file": "s.png"}`,
			mgl32.Vec3{0.04, 0.04, 0.04}, 1, 1, 2, []float32{0, 1}},
	} {
		dir := writeFiles(t, map[string]string{"s.png": png.String(),
			"scene.json": material(`{"type": "pbr"` + c.fields + `}`)})
		s, err := Load(filepath.Join(dir, "scene.json"))
		if err != nil {
			t.Fatal(err)
		}
		m := s.Materials[0]
		near := true
		for k := range 3 {
			near = near && math.Abs(float64(m.SpecularF0[k]-c.f0[k])) < 1e-6
		}
		if !near || m.SpecularF90 != c.f90 || m.DielectricSpecular != 1 || m.SpecularMap != c.spec || m.SpecularColorMap != c.colour {
			t.Errorf("%s: F0 %v, F90 %g, set %d, maps %d and %d; want %v, %g, 1, %d and %d", c.fields, m.SpecularF0, m.SpecularF90,
				m.DielectricSpecular, m.SpecularMap, m.SpecularColorMap, c.f0, c.f90, c.spec, c.colour)
			continue
		}
		if c.alpha != nil {
			if a := s.Images[s.Textures[m.SpecularMap-1].Image].Alpha; !slices.Equal(a, c.alpha) {
				t.Errorf("%s: the specular map's alpha %v, want %v", c.fields, a, c.alpha)
			}
		}
	}
}

// TestPBRClearcoatMapsDecode: a pbr material's clearcoat_texture and
// clearcoat_roughness_texture become its ClearcoatMap and
// ClearcoatRoughnessMap, the factors kept; an image is read linearly by
// default (a grey of 128 is 128/255, not sRGB's 0.216), "srgb" decodes it.
func TestPBRClearcoatMapsDecode(t *testing.T) {
	var png bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 2, 1))
	img.Pix[0], img.Pix[1] = 128, 255
	if err := stdpng.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	linear := []float32{128.0 / 255, 128.0 / 255, 128.0 / 255, 1, 1, 1}
	for _, c := range []struct {
		fields      string
		clear, rg   float32
		coat, rough uint32
		pix         []float32 // the ClearcoatRoughnessMap's image, when one
	}{
		{`, "clearcoat": 0.5, "clearcoat_texture": {"type": "checker"}`, 0.5, 0, 1, 0, nil},
		{`, "clearcoat": 1, "clearcoat_roughness": 0.25, "clearcoat_roughness_texture": {"type": "image", "file": "c.png"}`, 1, 0.25, 0, 1, linear},
		{`, "clearcoat": 1, "clearcoat_texture": {"type": "checker"}, "clearcoat_roughness_texture": {"type": "image", "file": "c.png", "colorspace": "srgb"}`,
			1, 0, 1, 2, []float32{0.21586053, 0.21586053, 0.21586053, 1, 1, 1}},
	} {
		dir := writeFiles(t, map[string]string{"c.png": png.String(),
			"scene.json": material(`{"type": "pbr"` + c.fields + `}`)})
		s, err := Load(filepath.Join(dir, "scene.json"))
		if err != nil {
			t.Fatal(err)
		}
		m := s.Materials[0]
		if m.Clearcoat != c.clear || m.ClearcoatRoughness != c.rg || m.ClearcoatMap != c.coat || m.ClearcoatRoughnessMap != c.rough {
			t.Errorf("%s: clear coat %g of roughness %g, maps %d and %d; want %g, %g, %d and %d", c.fields, m.Clearcoat, m.ClearcoatRoughness,
				m.ClearcoatMap, m.ClearcoatRoughnessMap, c.clear, c.rg, c.coat, c.rough)
			continue
		}
		if c.pix != nil {
			p := s.Images[s.Textures[m.ClearcoatRoughnessMap-1].Image].Pix
			near := len(p) == len(c.pix)
			for i := 0; near && i < len(p); i++ {
				near = math.Abs(float64(p[i]-c.pix[i])) < 1e-6
			}
			if !near {
				t.Errorf("%s: the roughness map's texels %v, want %v", c.fields, p, c.pix)
			}
		}
	}
}

// TestPBRMapsDecode: a pbr material's metallic_roughness and
// emissive_texture become textures that RoughMap and EmissionMap name.
func TestPBRMapsDecode(t *testing.T) {
	s, err := Parse("test.json", []byte(material(`{"type": "pbr", "texture": {"type": "checker"}, "metallic_roughness": {"type": "checker", "even": [0, 1, 1]}, "emissive": [1, 1, 1], "emissive_texture": {"type": "checker", "odd": [1, 0, 0]}}`)))
	if err != nil {
		t.Fatal(err)
	}
	m := s.Materials[0]
	if len(s.Textures) != 3 || m.Texture != 0 || m.RoughMap != 2 || m.EmissionMap != 3 {
		t.Fatalf("textures %d, Texture %d, RoughMap %d, EmissionMap %d; want 3, 0, 2, 3", len(s.Textures), m.Texture, m.RoughMap, m.EmissionMap)
	}
	if s.Textures[1].Even != (mgl32.Vec3{0, 1, 1}) || s.Textures[2].Odd != (mgl32.Vec3{1, 0, 0}) {
		t.Errorf("map textures %+v, %+v", s.Textures[1], s.Textures[2])
	}
}
