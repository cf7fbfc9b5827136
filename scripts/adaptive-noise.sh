#!/bin/sh
# adaptive-noise.sh: noise at equal CPU time with and without adaptive
# sampling (render.noise_threshold, tracer/adaptive.go), on gallery scenes.
#
#   scripts/adaptive-noise.sh [-c] [-s SIDE] [-r REFSPP] [-n SPP] [-t "T1 T2"] [SCENE...]
#
# For each scene (default: cornell-box materials pbr, from scenes/examples)
# it renders a SIDE×SIDE reference of REFSPP samples (default 96, 4096) with
# another seed, then SPP samples (default 256) with no threshold and with
# each threshold T (default 0.01, Cycles' default, and 0.05), all on every
# core, into linear PFMs, and prints for each: CPU seconds (user + system,
# /usr/bin/time), the samples a pixel took, RMSE² against the reference
# (over every pixel and channel) and RMSE² × CPU seconds, the lower the
# better, and that against the render without a threshold. The reference's
# own noise adds its variance (1/16 of the test's at the defaults) to every
# RMSE². Work files go to ${TMPDIR:-/tmp}/adaptive-noise.
#
# -c compares with Cycles' adaptive sampling instead (Blender 3.4 and
# numpy, as scripts/cycles-compare.sh): scripts/cycles/adaptive_compare.py
# renders each scene with both renderers at no threshold and each T, and
# prints the mean samples a pixel of each (Cycles' from its Debug Sample
# Count pass, per material region too), their ratio, CPU seconds, RMSE²
# against each renderer's own REFSPP reference (kept in
# ${TMPDIR:-/tmp}/adaptive-noise/cycles and reused: remove them after
# changing a renderer), the trace threshold that takes Cycles' samples
# a pixel, and trace's samples with Cycles' first test. README's Adaptive
# sampling table: scripts/adaptive-noise.sh -c -s 128 -t "0.003 0.01 0.05",
# 5 to 13 minutes on 2 cores (4.5 and 7.6 measured beside a full test run,
# 13.3 on a machine loaded by others), most of it Cycles' references.
set -eu
side=96 ref=4096 spp=256 thresholds="0.01 0.05" cycles=
while getopts cs:r:n:t: o; do
	case $o in
	c) cycles=1 ;;
	s) side=$OPTARG ;; r) ref=$OPTARG ;; n) spp=$OPTARG ;; t) thresholds=$OPTARG ;;
	*) sed -n 2,29p "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- cornell-box materials pbr
root=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/adaptive-noise
mkdir -p "$work"
trace=$work/trace
(cd "$root" && go build -o "$trace" ./cmd/trace)
if [ -n "$cycles" ]; then
	exec /usr/bin/python3 "$root/scripts/cycles/adaptive_compare.py" --trace "$trace" --out "$work/cycles" \
		--size "$side" --spp "$spp" --ref-spp "$ref" --thresholds "$thresholds" --scenes "$*"
fi

# render NAME OUT [FLAGS...]: renders, prints "cpu-seconds mean-samples".
render() {
	name=$1 out=$2
	shift 2
	/usr/bin/time -f "%U %S" -o "$work/time" "$trace" render "$root/scenes/examples/$name.json" -o "$out" \
		--width "$side" --height "$side" "$@" 2>"$work/log"
	mean=$(sed -n 's/.*, \([0-9.]*\) of [0-9]* samples a pixel.*/\1/p' "$work/log")
	awk -v m="${mean:-}" '{printf "%.3f %s\n", $1 + $2, m}' "$work/time"
}

# rmse2 A B: the mean squared difference of two PFMs.
rmse2() { python3 "$root/scripts/pfm-rmse2.py" "$1" "$2"; }

printf '%-12s %-10s %8s %10s %12s %14s %8s\n' scene threshold cpu-s spp/pixel RMSE² RMSE²×cpu-s ratio
for name in "$@"; do
	refpfm=$work/$name-ref-$side-$ref.pfm
	[ -f "$refpfm" ] || render "$name" "$refpfm" --samples "$ref" --seed 777 >/dev/null
	base=
	for t in 0 $thresholds; do
		out=$work/$name-$t.pfm
		set -- $(render "$name" "$out" --samples "$spp" --noise-threshold "$t")
		cpu=$1 mean=${2:-$spp}
		e=$(rmse2 "$out" "$refpfm")
		p=$(awk -v e="$e" -v c="$cpu" 'BEGIN {printf "%.6g", e * c}')
		[ -n "$base" ] || base=$p
		printf '%-12s %-10s %8s %10s %12s %14s %8s\n' "$name" "$t" "$cpu" "$mean" "$e" "$p" \
			"$(awk -v p="$p" -v b="$base" 'BEGIN {printf "%.3f", p / b}')"
	done
done
