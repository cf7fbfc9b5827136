#!/usr/bin/env bash
# Renders what Blender's own exporters write with trace, against Cycles
# rendering the .blend they were written from: the picture the user
# authored (the "Ground truth" of ../../shared/DESIGN.md). Not part of
# `make test`.
#
#   scripts/blender-roundtrip.sh [--trace BIN] [--out DIR]
#                                [--scenes "stilllife spotarea hierarchy maps attributes instances"]
#                                [--spp 256] [--trace-spp 256] [--width 200] [--height 150]
#                                [--variants "gltf glb zup obj objcpp objpbr"]
#
# For each scene, scripts/cycles/blender_roundtrip.py (run by Blender in
# background mode) builds a small scene with bpy, saves NAME.blend,
# exports it with Blender's glTF exporter (.gltf, .glb, and .gltf with
# export_yup off; cameras and lights on, modifiers applied) and its OBJ
# exporters (the legacy export_scene.obj, materials on: obj; 3.4's C++
# wm.obj_export without and with its PBR extensions: objcpp, objpbr),
# writes a trace scene around
# each export (the glTF ones take the camera and lights from the file;
# the OBJ one gets the camera, the Point and the Sun converted by the
# script, since OBJ holds neither), and renders the .blend with Cycles
# (path tracing, no denoising, Standard view, Box filter) to a PFM.
# trace then renders each scene, and scripts/cycles/gltf_compare.py
# compares linear values: each probe (a sphere, an object, a patch of
# floor in one quadrant of its texture, a face of a cube) is a disc
# whose inner half is averaged in both images. The scenes are described
# at the top of blender_roundtrip.py: stilllife (textured floor, rough
# metal, smooth plastic, Glass BSDF, emissive cube, Sun and Point),
# spotarea (the same with a Spot and an Area light, glass as Principled
# transmission), hierarchy (parented, turned, unevenly scaled objects,
# flat and smooth shading, a Subdivision modifier), maps (roughness,
# metallic, normal and emission textures, a Mapping node), attributes
# (alpha textures in Blend and Clip mode, vertex colours, a second UV
# map) and instances (linked duplicates, collection instances, a camera
# with lens shift and a vertical sensor fit); not run by default,
# specular (Principled Specular 0, 0.5 and 1 and Specular Tint 1: glTF's
# KHR_materials_specular and _ior; and a Specular from an image, which
# the exporter writes as a specularColorTexture; 20 s to 1 minute with
# --variants gltf), clearcoat (Principled Clearcoat 0 and 1, Clearcoat
# from an image and Clearcoat Roughness from an image: glTF's
# KHR_materials_clearcoat with its clearcoatTexture and
# clearcoatRoughnessTexture, probes on each half of each sphere),
# shapekeys (shape keys at 0.7 and 0.5: glTF morph targets at their
# weights; an object keyframed across the floor, exported at frame 0,
# rendered by Cycles at frame 24 and posed in the glTF scenes by
# "animation": 0, "time": 1; probes where only the morphed or moved
# shapes are; 20 s with --variants gltf).
#
# Needs Blender 3.4 (Debian 12's `blender`) and numpy:
#
#   apt-get install blender python3-numpy      # about 1 minute, ~350 MB
#
# and a trace binary (`go build -o /tmp/rt/trace ./cmd/trace`, default
# bin/trace). About 4 minutes on 2 cores at the defaults (Cycles takes
# most of it).
#
# Prints, per scene and export, the table of gltf_compare.py: each
# probe's mean luminance (Rec. 709) in trace and Cycles and their ratio,
# then the median, least and greatest ratio and the whole image's (for a
# scene with Area lights the glTF exports also against Cycles without
# them, NAME-cycles-punctual.pfm; the OBJ scene has the Point and Sun
# only, no Spot: it shows materials, not lights). A
# ratio far from 1 is a discrepancy. Known ones, at the defaults: the
# Glass BSDF sphere (Blender 3.4 exports it as glTF's default material,
# a rough white metal, and to OBJ as plastic; the floor under it
# differs with it), the Area light (not in glTF), floors and matte
# objects 5 to 25 % darker in trace (Principled's Disney diffuse, brighter
# at roughness 1, against pbr's Lambert base; up to 30 % on the tilted
# quadrants of the normal map and the flat faces of instances, the same
# in every export); what the exporters lose: the Mapping node's turn in
# MTL (uvx), the second UV map in OBJ (uv2), the emission strength of a
# textured emission in the C++ exporter's MTL (no Ke: em, a third), the
# link of vertex colours (Kd 0.8, the unlinked default: vcol 0.8), and
# Clip mode (Cycles blends: aclip_tr, aclip_bl in glTF); see docs/scene-format.md
# ("Meshes", glTF lights and MTL) for what trace reads of Blender's files. Output in
# --out (default /tmp/trace-blender-roundtrip): the .blend files, the
# exports, NAME-VARIANT.json (trace scenes), NAME-cycles.pfm,
# NAME-VARIANT.pfm, NAME-VARIANT-side.png (trace | Cycles) and
# NAME-VARIANT.txt (the tables). Exit status 1 when a render fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
trace=$root/bin/trace
out=/tmp/trace-blender-roundtrip
scenes="stilllife spotarea hierarchy maps attributes instances"
variants="gltf glb zup obj objcpp objpbr"
spp=256
trace_spp=256
width=200
height=150
while [ $# -gt 0 ]; do
	case $1 in
	--trace) trace=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--scenes) scenes=$2; shift 2 ;;
	--variants) variants=$2; shift 2 ;;
	--spp) spp=$2; shift 2 ;;
	--trace-spp) trace_spp=$2; shift 2 ;;
	--width) width=$2; shift 2 ;;
	--height) height=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
	*) echo "blender-roundtrip.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
if [ ! -x "$trace" ]; then
	echo "blender-roundtrip.sh: no trace binary at $trace (run make build, or pass --trace)" >&2
	exit 1
fi
if ! command -v blender >/dev/null; then
	echo "blender-roundtrip.sh: needs Blender: apt-get install blender python3-numpy" >&2
	exit 1
fi
py=python3
for p in python3 /usr/bin/python3; do
	if $p -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
mkdir -p "$out"
failed=0
for s in $scenes; do
	if ! blender -b --factory-startup --python "$root/scripts/cycles/blender_roundtrip.py" -- \
		--scene "$s" --out "$out" --spp "$spp" --trace-spp "$trace_spp" \
		--width "$width" --height "$height" >"$out/$s-blender.log" 2>&1; then
		echo "$s: Blender failed; see $out/$s-blender.log" >&2
		failed=1
		continue
	fi
	for v in $variants; do
		echo "== $s, Blender's $v export: trace / Cycles"
		if ! "$trace" render "$out/$s-$v.json" -o "$out/$s-$v.pfm" >"$out/$s-$v.log" 2>&1; then
			echo "$s-$v: trace failed; see $out/$s-$v.log" >&2
			failed=1
			continue
		fi
		grep -i "warn" "$out/$s-$v.log" | sed 's/^/trace: /' || true
		"$py" "$root/scripts/cycles/gltf_compare.py" "$out/$s-$v.pfm" "$out/$s-cycles.pfm" \
			"$out/$s-regions.json" "$out/$s-$v-side.png" | tee "$out/$s-$v.txt"
		if [ "${v#obj}" = "$v" ] && [ -f "$out/$s-cycles-punctual.pfm" ]; then
			echo "== $s, Blender's $v export: trace / Cycles without the Area lights (glTF holds none)"
			"$py" "$root/scripts/cycles/gltf_compare.py" "$out/$s-$v.pfm" "$out/$s-cycles-punctual.pfm" \
				"$out/$s-regions.json" "$out/$s-$v-punctual-side.png" | tee "$out/$s-$v-punctual.txt"
		fi
	done
done
exit $failed
