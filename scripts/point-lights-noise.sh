#!/bin/sh
# point-lights-noise.sh: noise at equal CPU time of the two ways the path
# integrator samples point lights (render.light_tree_points): every light at
# every vertex ("never") or one picked from the light tree ("always").
#
#   scripts/point-lights-noise.sh [-s SIDE] [-r REFSPP] [-n SPP] [-d DEPTH] [N...]
#
# For each N (default: 1 2 4 8 16 64 256) it writes a room (floor, ceiling,
# four walls, two boxes and a sphere, diffuse, max_depth DEPTH: default 4;
# 1 is the direct light alone, where sampling all gains most) lit by N point
# lights scattered under the ceiling, of the same total intensity, renders a
# SIDE×SIDE reference of REFSPP samples (default 48, 2048) with another
# seed, sampling all lights below 16 and with the tree from 16 (whichever is
# quicker there; both are unbiased), then SPP samples (default 64) each way,
# on every core, into linear PFMs, and prints for each: CPU seconds (user +
# system, /usr/bin/time), RMSE² against the reference (every pixel and
# channel), RMSE² × CPU seconds (the lower the better) and the tree's over
# all's. The reference's own noise adds to both RMSE². Work files go to
# ${TMPDIR:-/tmp}/point-lights-noise.
set -eu
side=48 ref=2048 spp=64 depth=4
while getopts s:r:n:d: o; do
	case $o in
	s) side=$OPTARG ;; r) ref=$OPTARG ;; n) spp=$OPTARG ;; d) depth=$OPTARG ;;
	*) sed -n 2,20p "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 1 2 4 8 16 64 256
root=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/point-lights-noise
mkdir -p "$work"
trace=$work/trace
(cd "$root" && go build -o "$trace" ./cmd/trace)

# scene N MODE OUT: writes the room of N lights sampled as MODE.
scene() {
	python3 "$root/scripts/lightroom.py" "$3" "$2" "$depth" bulbs "$1"
}

# render SCENE OUT [FLAGS...]: renders, prints the CPU seconds.
render() {
	sc=$1 out=$2
	shift 2
	/usr/bin/time -f "%U %S" -o "$work/time" "$trace" render "$sc" -o "$out" \
		--width "$side" --height "$side" "$@" 2>"$work/log"
	awk '{printf "%.3f\n", $1 + $2}' "$work/time"
}

# rmse2 A B: the mean squared difference of two PFMs.
rmse2() { python3 "$root/scripts/pfm-rmse2.py" "$1" "$2"; }

printf '%-7s %-7s %8s %12s %14s %10s\n' lights mode cpu-s RMSE² RMSE²×cpu-s tree/all
for n in "$@"; do
	refmode=never
	[ "$n" -lt 16 ] || refmode=always
	scene "$n" "$refmode" "$work/room-$n-d$depth-ref.json"
	refpfm=$work/room-$n-d$depth-ref-$side-$ref.pfm
	[ -f "$refpfm" ] || render "$work/room-$n-d$depth-ref.json" "$refpfm" --samples "$ref" --seed 777 >/dev/null
	base=
	for mode in never always; do
		scene "$n" "$mode" "$work/room-$n-d$depth-$mode.json"
		out=$work/room-$n-d$depth-$mode.pfm
		cpu=$(render "$work/room-$n-d$depth-$mode.json" "$out" --samples "$spp")
		e=$(rmse2 "$out" "$refpfm")
		p=$(awk -v e="$e" -v c="$cpu" 'BEGIN {printf "%.6g", e * c}')
		[ -n "$base" ] || base=$p
		printf '%-7s %-7s %8s %12s %14s %10s\n' "$n" "$mode" "$cpu" "$e" "$p" \
			"$(awk -v p="$p" -v b="$base" 'BEGIN {printf "%.3f", p / b}')"
	done
done
