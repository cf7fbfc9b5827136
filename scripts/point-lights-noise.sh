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
	python3 - "$1" "$2" "$3" "$depth" <<'PY'
import json, random, sys
n, mode, out, depth = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
rng = random.Random(12345)
def quad(c, e1, e2, m): return {"type": "quad", "corner": c, "edge1": e1, "edge2": e2, "material": m}
objs = [quad([-5, 0, -5], [10, 0, 0], [0, 0, 10], "floor"), quad([-5, 3, -5], [10, 0, 0], [0, 0, 10], "wall"),
        quad([-5, 0, 5], [10, 0, 0], [0, 3, 0], "wall"), quad([-5, 0, -5], [0, 0, 10], [0, 3, 0], "red"),
        quad([5, 0, -5], [0, 0, 10], [0, 3, 0], "wall"), quad([-5, 0, -5], [10, 0, 0], [0, 3, 0], "wall"),
        {"type": "sphere", "center": [1.5, 0.8, 1], "radius": 0.8, "material": "white"}]
for (x, z, h) in [(-2, 0, 1.2), (0.5, 3, 2)]:
    for c, e1, e2 in [([x, 0, z], [1, 0, 0], [0, h, 0]), ([x, 0, z + 1], [1, 0, 0], [0, h, 0]),
                      ([x, 0, z], [0, 0, 1], [0, h, 0]), ([x + 1, 0, z], [0, 0, 1], [0, h, 0]),
                      ([x, h, z], [1, 0, 0], [0, 0, 1])]:
        objs.append(quad(c, e1, e2, "white"))
lights = [{"type": "point", "position": [rng.uniform(-4.5, 4.5), rng.uniform(1.5, 2.8), rng.uniform(-4.5, 4.5)],
           "color": [1, rng.uniform(0.7, 1), rng.uniform(0.5, 1)], "intensity": 60.0 / n} for _ in range(n)]
d = {"version": 1, "render": {"width": 64, "height": 64, "samples": 16, "max_depth": depth, "integrator": "path", "seed": 1,
                              "light_tree_points": mode},
     "camera": {"position": [0, 1.6, -4.8], "look_at": [0, 1, 0], "fov": 75},
     "background": {"color": [0, 0, 0]},
     "materials": {"floor": {"type": "diffuse", "color": [0.6, 0.6, 0.6]}, "wall": {"type": "diffuse", "color": [0.7, 0.7, 0.7]},
                   "red": {"type": "diffuse", "color": [0.7, 0.2, 0.1]}, "white": {"type": "diffuse", "color": [0.75, 0.75, 0.75]}},
     "lights": lights, "objects": objs}
json.dump(d, open(out, "w"), indent=1)
PY
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
