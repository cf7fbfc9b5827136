#!/usr/bin/env bash
# Equal-CPU-time noise benchmark of trace against Blender's Cycles (the
# "Ground truth" of ../../shared/DESIGN.md): each gallery scene is converted
# to a Blender scene (scripts/cycles/render.py), rendered by Cycles (CPU,
# path tracing, same bounces, no clamping or denoising, Box filter 1 px) to
# a converged reference, then by trace and by Cycles at a few spp levels;
# it prints RMSE over the pixels whose materials both renderers define
# alike, CPU seconds (the least of --repeat runs, the renderers taking
# turns), RMSE^2 x CPU seconds and the bias of the means per material.
#
#   scripts/cycles-compare.sh [--size N] [--trace BIN] [--scenes "cornell-box materials mesh"]
#                             [--scene-dir DIR] [--out DIR] [--spp "16 64 256"] [--ref-spp 4096]
#                             [--trace-ref-spp N] [--pbr lambert|principled|both] [--threads 2]
#                             [--repeat 3] [--skip-check] [--reuse-cycles] [--reuse-references]
#                             [--install]
#
# --scenes takes names in --scene-dir (default scenes/examples, the
# gallery) or paths to scene files. The GGX materials (metal, glass and
# pbr at several roughnesses, issue 14) have their own scene, outside the
# gallery, scripts/cycles/scenes/spheres.json (about 12 minutes on 2 cores):
#
#   go build -o /tmp/cmp/trace ./cmd/trace
#   scripts/cycles-compare.sh --trace /tmp/cmp/trace --scene-dir scripts/cycles/scenes \
#       --scenes spheres --ref-spp 2048 --trace-ref-spp 2048 --repeat 2 --skip-check
#
# (--scenes absorption: glass that absorbs inside, against Cycles' Volume
# Absorption, about 1 minute; --scenes clearcoat --pbr lambert: pbr clear
# coats built from Cycles nodes, about 2 minutes; --scenes manylamps: 256
# small lamps and 6 bulbs, which trace samples from its light tree and
# Cycles 3.4 by power, about 2 minutes; --scenes bulbhall: 256 point lights
# and 2 lamps, which trace picks from its light tree and Cycles 3.4 by
# power, about 2 minutes.) A scene's film.filter renders with Cycles'
# filter of that name and width (a Box of 1 px by default).
#
# Materials are compared at three levels (scripts/cycles/tracescene.py
# classify): exact (diffuse, emissive, mirror metal and pbr, smooth glass,
# the background: the headline RMSE and efficiency), approx (rough metal,
# rough glass and rough pbr, whose closest Cycles 3.4 nodes differ in
# their Fresnel and Smith terms: reported per region and in a second
# summary line) and unmatched (phong: left out). scripts/cycles/ggx_check.py,
# run on its own in about 4 minutes, measures each of those gaps on one
# material at a time and checks trace against its formulas.
# --trace-ref-spp renders trace once more at that spp for the converged
# per-region means (else its highest level is used). --pbr: lambert builds
# pbr's diffuse base exactly from nodes; principled renders pbr as one
# Principled BSDF (Disney diffuse), as Blender's glTF importer does; both
# (the default) adds that as a second Cycles variant of scenes with pbr
# materials.
#
# Needs Blender 3.4 (Debian 12's `blender` package) and numpy:
#
#   apt-get install blender python3-numpy      # about 1 minute, ~350 MB
#
# (--install runs that apt-get itself.) trace comes from `make build`
# (bin/trace). Time on 2 cores at the defaults (--size 128, references at
# 4096 spp, levels 16/64/256 spp, each rendered twice for the noise): about
# 15 minutes (14 measured, while other work shared the machine), half of it
# the four Cycles references; --size 64 --ref-spp 1024 takes about 3. First, scripts/cycles/units_check.py checks the
# mapping against closed forms (point light units, emission, the gradient
# sky, bounce counts, a quad light): about 40 s; --skip-check skips it.
#
# Output in --out (default /tmp/trace-cycles-compare): table.txt,
# results.jsonl, units_check.jsonl, NAME-side.png (trace | Cycles reference
# | mask), and every PFM. --reuse-cycles keeps the Cycles images and timings
# already in --out (same size and spp) and renders only trace: a second
# trace binary is benchmarked in a few minutes. --reuse-references keeps
# only the Cycles references and masks and renders every level of both
# renderers afresh, taking turns: a new equal-time comparison without the
# references' ten minutes. Exit status: 0 done, 1 a render failed,
# 2 bad usage or Blender/numpy missing.
set -u
CALLER=$PWD
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

SIZE=128
TRACE=$ROOT/bin/trace
SCENES="cornell-box materials mesh"
SCENE_DIR=$ROOT/scenes/examples
TRACE_REF=0
PBR=both
OUT=${TMPDIR:-/tmp}/trace-cycles-compare
SPP="16 64 256"
REF_SPP=4096
THREADS=2
REPEAT=3
CHECK=1
INSTALL=0
REUSE=

usage() { sed -n '11,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--size) SIZE=$2; shift 2 ;;
	--trace) TRACE=$2; shift 2 ;;
	--scenes) SCENES=$2; shift 2 ;;
	--scene-dir) SCENE_DIR=$2; shift 2 ;;
	--trace-ref-spp) TRACE_REF=$2; shift 2 ;;
	--pbr) PBR=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--spp) SPP=$2; shift 2 ;;
	--ref-spp) REF_SPP=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--repeat) REPEAT=$2; shift 2 ;;
	--skip-check) CHECK=0; shift ;;
	--install) INSTALL=1; shift ;;
	--reuse-cycles) REUSE="$REUSE --reuse-cycles"; shift ;;
	--reuse-references) REUSE="$REUSE --reuse-references"; shift ;;
	-h | --help) usage ;;
	*) echo "cycles-compare: unknown argument $1" >&2; usage ;;
	esac
done

if ! command -v blender >/dev/null 2>&1; then
	if [ $INSTALL = 1 ]; then
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y blender python3-numpy || exit 2
	else
		echo "cycles-compare: blender is not installed. Install it with" >&2
		echo "    apt-get install blender python3-numpy" >&2
		echo "(Debian 12 gives Blender 3.4), or run this script with --install." >&2
		exit 2
	fi
fi
version=$(blender --version 2>/dev/null | head -1)
case $version in
"Blender 3.4"*) ;;
*) echo "cycles-compare: warning: $version; the conversion was made for Blender 3.4" >&2 ;;
esac

# A Python with numpy: Blender's own Python imports the system numpy, so
# python3-numpy serves both; a python3 earlier on PATH (pyenv) may lack it.
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	echo "cycles-compare: numpy is missing: apt-get install python3-numpy" >&2
	exit 2
fi

case $TRACE in /*) ;; *) TRACE=$CALLER/$TRACE ;; esac
if [ ! -x "$TRACE" ]; then
	echo "cycles-compare: no trace binary at $TRACE: run make build, or pass --trace BIN" >&2
	exit 2
fi
TRACE=$(cd "$(dirname "$TRACE")" && pwd)/$(basename "$TRACE")
# --scene-dir and scene paths in --scenes, like --trace, are relative to
# where the script was started from.
case $SCENE_DIR in /*) ;; *) SCENE_DIR=$CALLER/$SCENE_DIR ;; esac
abs_scenes=
for s in $SCENES; do
	case $s in
	/*) ;;
	*.json | */*) s=$CALLER/$s ;;
	esac
	abs_scenes="$abs_scenes $s"
done
SCENES=${abs_scenes# }
mkdir -p "$OUT" || exit 2
echo "cycles-compare: $("$TRACE" version 2>&1 | head -1), $version, size $SIZE, out $OUT"
SECONDS=0
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in scripts/cycles

if [ $CHECK = 1 ]; then
	echo "== closed-form checks of the mapping (scripts/cycles/units_check.py)"
	if ! "$PY" scripts/cycles/units_check.py --trace "$TRACE" --out "$OUT/units"; then
		echo "cycles-compare: warning: a mapping check failed (above); the benchmark goes on" >&2
	fi
	cp "$OUT/units/units_check.jsonl" "$OUT/" 2>/dev/null
fi

"$PY" scripts/cycles/compare.py --trace "$TRACE" --out "$OUT" --size "$SIZE" --scenes "$SCENES" \
	--scene-dir "$SCENE_DIR" --spp "$SPP" --ref-spp "$REF_SPP" --trace-ref-spp "$TRACE_REF" --pbr "$PBR" \
	--threads "$THREADS" --repeat "$REPEAT" $REUSE || exit 1
echo "cycles-compare: done in ${SECONDS} s; table in $OUT/table.txt"
