#!/usr/bin/env bash
# Renders glTF sample models that nobody here made beside their published
# screenshots, for a person to compare (issue 14's "the glTF sample models
# render and look as their published screenshots do").
#
#   scripts/sample-models.sh [--trace BIN] [--out DIR] [--samples N] [--models "A B ..."]
#                            [--cycles] [--cycles-samples N]
#
# The models come from two public packages, fetched here (nothing is
# committed; their licences are in each model's README.md in the output):
#
#   - the Go module github.com/qmuntal/gltf v0.29.0, whose testdata holds
#     Khronos sample models with their screenshots (EnvironmentTest,
#     OrientationTest, BoxVertexColors, Cameras, Cube, "Box With Spaces",
#     AnimatedCube, posed by its animation at 0.25 s),
#     through the Go module proxy (`go mod download`);
#   - Debian's assimp-testmodels package (apt-get download; no install),
#     for BoxTextured.
#
# TextureTransformTest and SimpleMorph are in scenes/testdata/khronos and
# checked by `go test ./scenes -run Khronos`; this script renders them too. AlphaModes
# is made by scenes/examples/assets/gen -alpha-modes after AlphaBlendModeTest (glTF's alpha modes
# and cutoffs), which neither package holds: Cycles is its reference.
# Unlit is made by assets/gen -unlit: KHR_materials_unlit spheres above
# their lit twins (Cycles is its reference: the upper row is its base
# colour in both).
# SpecGloss is made by assets/gen -spec-gloss after SpecGlossVsMetalRough
# (which neither package holds): three spheres of
# KHR_materials_pbrSpecularGlossiness above their metallic-roughness
# twins, which should look alike; Blender's importer draws spec-gloss as
# a Glossy BSDF of the specular colour plus a Diffuse BSDF, its own
# approximation, not the extension's model.
# Glass is made by assets/gen -glass: four spheres of
# KHR_materials_transmission (clear, rough, tinted, water at ior 1.33) as
# Blender exports a Principled BSDF of transmission 1 (not a Glass BSDF,
# which it exports as glTF's default material), which trace draws as its dielectric and
# Blender's importer as a Principled BSDF of full transmission.
#
# Output in --out (default /tmp/trace-sample-models): NAME.png (trace),
# NAME-screenshot.png (the published one, where the package has it),
# NAME.json (the scene used) and the model folders; with --cycles also
# NAME-cycles-side.png (trace | Cycles, linear values in plain sRGB) and
# NAME-cycles.txt, the mean luminance of each sphere or cluster of the
# model in both and their ratio (scripts/cycles/gltf_compare.py). Cycles
# renders the same .gltf through Blender's own importer
# (scripts/cycles/gltf_render.py), the picture a Blender user gets: a
# reference nobody here wrote (Blender 3.4 and numpy from Debian:
# `apt-get install blender python3-numpy`). Each scene frames the
# model as its screenshot does, as near as can be told, under
# scenes/examples/assets/sky.hdr (the screenshots' environments are not
# published with them, so colours of reflections differ). About 2 minutes
# on 2 cores at the default 64 samples.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
trace=$root/bin/trace
out=/tmp/trace-sample-models
samples=64
cycles=0
cycles_samples=256
models="EnvironmentTest OrientationTest BoxVertexColors Cameras Cube BoxWithSpaces BoxTextured TextureTransformTest AlphaModes Glass SpecGloss Unlit AnimatedCube SimpleMorph"
while [ $# -gt 0 ]; do
	case $1 in
	--trace) trace=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--models) models=$2; shift 2 ;;
	--cycles) cycles=1; shift ;;
	--cycles-samples) cycles_samples=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
	*) echo "sample-models.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
if [ ! -x "$trace" ]; then
	echo "sample-models.sh: no trace binary at $trace (run make build, or pass --trace)" >&2
	exit 1
fi
mkdir -p "$out"
failed=
py=python3
if [ $cycles = 1 ]; then
	if ! command -v blender >/dev/null; then
		echo "sample-models.sh: --cycles needs Blender: apt-get install blender python3-numpy" >&2
		exit 1
	fi
	# Debian's python3-numpy; a python3 earlier on PATH (pyenv) may lack it.
	for p in python3 /usr/bin/python3; do
		if $p -c 'import numpy' 2>/dev/null; then py=$p; break; fi
	done
fi

# The Go module, into a module cache of our own (read-write, so it can be
# removed).
qm=$out/.modcache/github.com/qmuntal/gltf@v0.29.0/testdata
if [ ! -d "$qm" ]; then
	echo "fetching github.com/qmuntal/gltf@v0.29.0 (Go module proxy)"
	(cd "$out" && GOMODCACHE=$out/.modcache GOFLAGS=-modcacherw go mod download github.com/qmuntal/gltf@v0.29.0)
fi
# Debian's package, unpacked without installing.
atm=$out/.assimp/usr/share/assimp/models/glTF2
if [ ! -d "$atm" ]; then
	echo "fetching Debian's assimp-testmodels (apt-get download)"
	mkdir -p "$out/.assimp"
	(cd "$out/.assimp" && apt-get download assimp-testmodels >/dev/null 2>&1 ||
		{ echo "sample-models.sh: apt-get download assimp-testmodels failed (run apt-get update first)" >&2; exit 1; })
	dpkg -x "$out"/.assimp/assimp-testmodels_*.deb "$out/.assimp"
fi

# model NAME SOURCE-DIR GLTF SCREENSHOT CAMERA-JSON [EXTRA-OBJECTS] [BACKGROUND-JSON] [MESH-FIELDS]
model() {
	local name=$1 src=$2 gltf=$3 shot=$4 camera=$5 extra=${6:-}
	local background=${7:-"{\"type\": \"image\", \"file\": \"$name/sky.hdr\"}"}
	local fields=${8:-}
	local dir=$out/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$src"/. "$dir"/
	chmod -R u+w "$dir"
	cp "$root/scenes/examples/assets/sky.hdr" "$dir/"
	cat >"$out/$name.json" <<EOF
{
  "version": 1,
  "description": "The glTF sample model $name under a generated sky (scripts/sample-models.sh).",
  "render": {"width": 400, "height": 300, "samples": $samples, "max_depth": 8, "integrator": "path", "seed": 1},
  "camera": $camera,
  "film": {"tonemap": "aces", "transfer": "srgb"},
  "background": $background,
  "materials": {},
  "objects": [{"type": "mesh", "file": "$name/$gltf"$fields}$extra]
}
EOF
	if [ -n "$shot" ] && [ -f "$shot" ]; then
		cp "$shot" "$out/$name-screenshot.${shot##*.}"
	fi
	echo "rendering $name"
	"$trace" render "$out/$name.json" -o "$out/$name.png" -q
	if [ $cycles = 1 ]; then
		echo "rendering $name with Cycles ($cycles_samples spp) and trace at the same"
		"$trace" render "$out/$name.json" --samples "$cycles_samples" -o "$out/$name-trace.pfm" -q
		(cd "$out" && blender -b --factory-startup --python "$root/scripts/cycles/gltf_render.py" -- \
			--scene "$name.json" --spp "$cycles_samples" --out "$out/$name-cycles.pfm" \
			--regions "$out/$name-regions.json" >"$out/$name-cycles.log" 2>&1) ||
			{ echo "sample-models.sh: Cycles failed on $name; see $out/$name-cycles.log" >&2; failed="$failed $name"; return 0; }
		$py "$root/scripts/cycles/gltf_compare.py" "$out/$name-trace.pfm" "$out/$name-cycles.pfm" \
			"$out/$name-regions.json" "$out/$name-cycles-side.png" | tee "$out/$name-cycles.txt" | tail -1
	fi
}

for m in $models; do
	case $m in
	EnvironmentTest)
		# The file's own camera.
		model $m "$qm/EnvironmentTest/glTF" EnvironmentTest.gltf "$qm/EnvironmentTest/screenshot/screenshot.png" \
			'{"gltf": "EnvironmentTest/EnvironmentTest.gltf"}' ;;
	OrientationTest)
		model $m "$qm/OrientationTest/glTF" OrientationTest.gltf "$qm/OrientationTest/screenshot/screenshot.png" \
			'{"position": [17, 14, 17], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	BoxVertexColors)
		model $m "$qm/BoxVertexColors/glTF" BoxVertexColors.gltf "$qm/BoxVertexColors/screenshot/screenshot.png" \
			'{"position": [1.5, 1.3, 1.9], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	Cameras)
		# The file's first (perspective) camera; its second is orthographic,
		# which trace refuses.
		model $m "$qm/Cameras/glTF" Cameras.gltf "$qm/Cameras/screenshot/screenshot.png" \
			'{"gltf": "Cameras/Cameras.gltf", "camera": 0}' ;;
	Cube)
		model $m "$qm/Cube/glTF" Cube.gltf "$qm/Cube/screenshot/screenshot.jpg" \
			'{"position": [3.2, 2.6, 3.8], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	BoxWithSpaces)
		model $m "$qm/Box With Spaces/glTF" "Box With Spaces.gltf" "$qm/Box With Spaces/screenshot/screenshot.png" \
			'{"position": [4.5, 3.9, 5.7], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	BoxTextured)
		model $m "$atm/BoxTextured-glTF" BoxTextured.gltf "" \
			'{"position": [1.5, 1.3, 1.9], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	AlphaModes)
		# Made here (assets/gen -alpha-modes), after AlphaBlendModeTest, which is
		# in neither package: no screenshot, Cycles is the reference.
		rm -rf "$out/.gen" && (cd "$root" && go run ./scenes/examples/assets/gen -alpha-modes "$out/.gen")
		model $m "$out/.gen" AlphaModes.gltf "" \
			'{"position": [0, 0, 9], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	Glass)
		rm -rf "$out/.gen" && (cd "$root" && go run ./scenes/examples/assets/gen -glass "$out/.gen")
		model $m "$out/.gen" Glass.gltf "" \
			'{"position": [0, 0.6, 5], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	SpecGloss)
		# Made here (assets/gen -spec-gloss), after SpecGlossVsMetalRough, which
		# is in neither package: KHR_materials_pbrSpecularGlossiness spheres
		# above their metallic-roughness twins; the rows should look alike.
		# A uniform grey background: the scene is then its mirror image
		# about y = 0 but for the materials, so the rows are lit alike.
		rm -rf "$out/.gen" && (cd "$root" && go run ./scenes/examples/assets/gen -spec-gloss "$out/.gen")
		model $m "$out/.gen" SpecGloss.gltf "" \
			'{"position": [0, 0, 6], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' "" '{"color": [0.8, 0.8, 0.8]}' ;;
	Unlit)
		# Made here (assets/gen -unlit): KHR_materials_unlit spheres above
		# their lit twins. In Cycles (Blender's importer: an emission of the
		# base colour that camera rays see) and in trace the upper row's
		# discs are their base colour, whatever the sky.
		rm -rf "$out/.gen" && (cd "$root" && go run ./scenes/examples/assets/gen -unlit "$out/.gen")
		model $m "$out/.gen" Unlit.gltf "" \
			'{"position": [0, 0, 6], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' ;;
	AnimatedCube)
		# Its animation turns it about y, a full turn in 2 s: at 0.25 s the
		# cube stands turned 45° (the animation replaces the file's own
		# rotation, 180°), an edge toward the camera.
		model $m "$qm/AnimatedCube/glTF" AnimatedCube.gltf "$qm/AnimatedCube/screenshot/screenshot.gif" \
			'{"position": [0, 1.2, 4.5], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 40}' "" "" ', "animation": 0, "time": 0.25' ;;
	SimpleMorph)
		# Khronos's morph target sample (scenes/testdata/khronos), at its
		# mesh's weights (0.5, 0.5): the top vertex at (0.5, 1.5).
		model $m "$root/scenes/testdata/khronos/SimpleMorph" SimpleMorph.gltf "" \
			'{"position": [0.5, 0.75, 3.5], "look_at": [0.5, 0.75, 0], "up": [0, 1, 0], "fov": 40}' ;;
	TextureTransformTest)
		model $m "$root/scenes/testdata/khronos/TextureTransformTest" TextureTransformTest.gltf "" \
			'{"position": [0, 0, 3.2], "look_at": [0, 0, 0], "up": [0, 1, 0], "fov": 42}' ;;
	*) echo "sample-models.sh: unknown model $m" >&2; exit 2 ;;
	esac
done
if [ -n "${failed:-}" ]; then
	echo "sample-models.sh: Cycles failed on:$failed" >&2
	exit 1
fi
echo "done: $out"
