#!/bin/sh
# downlights-noise.sh: noise at equal CPU time of the path integrator's
# light tree in a room of recessed spot lights, for builds of trace at
# several git revisions (what a change to the tree's bounds, its
# importance or its build gains).
#
#   scripts/downlights-noise.sh [-s SIDE] [-r REFSPP] [-n SPP] [-d DEPTH] [-N LIGHTS] [-c INNER/OUTER] [-k SEEDS] [-a] [-p] [REV...]
#
# It writes a room (floor, ceiling, four walls, two boxes and a sphere,
# diffuse, max_depth DEPTH: default 4, so the walls bounce light) lit by
# LIGHTS spots (default 36) on a grid under the ceiling, of cone INNER/OUTER
# degrees (default 20/35), pointing down, every sixth a wall-washer tilted
# 30° toward the nearest wall (its cone 5° narrower inside and 5° wider
# outside: 15/40 by default, at most 90). Before pixel version 14 "auto"
# (render.light_tree_points) put them in the light tree (more than 8);
# from 12 it counts each spot by its cone, (1 - cos outer)/3 of a point
# light (docs/scene-format.md): 36 spots of 20/35 are sampled all, 36 of
# 60/80 picked from the tree. REV is a git revision of this repository,
# or "." for the working tree (default: HEAD~1 and
# "."); each is built into the work directory. A SIDE×SIDE reference of
# REFSPP samples (default 48, 2048) is rendered with the last REV and
# another seed (every REV is unbiased, so any one's converged picture
# serves), then SEEDS renders (default 1) of SPP samples (default 64) with
# each REV, on every core, into linear PFMs, and it prints for each: CPU
# seconds (user + system, /usr/bin/time, summed over the seeds), RMSE²
# against the reference (every pixel and channel, the mean over the
# seeds), RMSE² × CPU seconds (the lower the better) and its ratio to the
# first REV's. -a renders each REV with the spots in the light tree
# ("always") and sampling every spot at every vertex ("never") in place of
# "auto", and says which of them "auto" chooses (trace validate). -p
# renders the same room with point lights in place of the spots (the
# tree holds them too) with each REV and says whether its
# pixels are the same bits as the first REV's. The reference's own noise
# adds to every RMSE². Work files go to ${TMPDIR:-/tmp}/downlights-noise.
set -eu
side=48 ref=2048 spp=64 depth=4 lights=36 cone=20/35 seeds=1 all= points=
while getopts s:r:n:d:N:c:k:ap o; do
	case $o in
	s) side=$OPTARG ;; r) ref=$OPTARG ;; n) spp=$OPTARG ;; d) depth=$OPTARG ;;
	N) lights=$OPTARG ;; c) cone=$OPTARG ;; k) seeds=$OPTARG ;; a) all=1 ;; p) points=1 ;;
	*) sed -n 2,34p "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- HEAD~1 .
root=$(cd "$(dirname "$0")/.." && pwd)
work=${TMPDIR:-/tmp}/downlights-noise
mkdir -p "$work"

# build REV: builds trace at REV into $work, prints the binary's path.
build() {
	if [ "$1" = . ]; then
		bin=$work/trace-worktree
		(cd "$root" && go build -o "$bin" ./cmd/trace)
	else
		h=$(git -C "$root" rev-parse --short "$1^{commit}")
		bin=$work/trace-$h
		if [ ! -x "$bin" ]; then
			rm -rf "$work/src-$h" && mkdir -p "$work/src-$h"
			git -C "$root" archive "$h" | tar -x -C "$work/src-$h"
			(cd "$work/src-$h" && go build -o "$bin" ./cmd/trace)
		fi
	fi
	echo "$bin"
}

# scene KIND MODE OUT: writes the room lit by LIGHTS spots (KIND spot) or
# point lights (KIND point) sampled as MODE.
scene() {
	python3 "$root/scripts/lightroom.py" "$3" "$2" "$depth" "$1" "$lights" "$cone"
}

# render TRACE SCENE OUT [FLAGS...]: renders, prints the CPU seconds.
render() {
	tr=$1 sc=$2 out=$3
	shift 3
	/usr/bin/time -f "%U %S" -o "$work/time" "$tr" render "$sc" -o "$out" \
		--width "$side" --height "$side" "$@" 2>"$work/log"
	awk '{printf "%.3f\n", $1 + $2}' "$work/time"
}

bins=
for rev in "$@"; do
	bins="$bins $(build "$rev")"
done
last=$(echo $bins | awk '{print $NF}')

tag=spots-$lights-$(echo "$cone" | tr / -)-d$depth
scene spot auto "$work/$tag.json"
scene spot never "$work/$tag-never.json"
scene spot always "$work/$tag-always.json"
refpfm=$work/$tag-ref-$side-$ref.pfm
[ -f "$refpfm" ] || render "$last" "$work/$tag.json" "$refpfm" --samples "$ref" --seed 777 >/dev/null

printf '%-12s %-6s %8s %12s %14s %8s\n' rev mode cpu-s RMSE² RMSE²×cpu-s ratio
base=
for bin in $bins; do
	name=$(basename "$bin" | sed 's/^trace-//')
	modes=auto
	if [ -n "$all" ]; then
		modes="always never"
		if "$bin" validate "$work/$tag.json" | grep -q "picked from the light tree"; then
			echo "$name: auto chooses always (the light tree)"
		else
			echo "$name: auto chooses never (sampled all)"
		fi
	fi
	for mode in $modes; do
		sc=$work/$tag.json
		[ "$mode" = auto ] || sc=$work/$tag-$mode.json
		cpu=0 e=0
		s=1
		while [ "$s" -le "$seeds" ]; do
			out=$work/$tag-$name-$mode-$s.pfm
			c=$(render "$bin" "$sc" "$out" --samples "$spp" --seed "$s")
			r=$(python3 "$root/scripts/pfm-rmse2.py" "$out" "$refpfm")
			cpu=$(awk -v a="$cpu" -v b="$c" 'BEGIN {printf "%.3f", a + b}')
			e=$(awk -v a="$e" -v b="$r" -v k="$seeds" 'BEGIN {printf "%.6g", a + b / k}')
			s=$((s + 1))
		done
		p=$(awk -v e="$e" -v c="$cpu" 'BEGIN {printf "%.6g", e * c}')
		[ -n "$base" ] || base=$p
		printf '%-12s %-6s %8s %12s %14s %8s\n' "$name" "$mode" "$cpu" "$e" "$p" \
			"$(awk -v p="$p" -v b="$base" 'BEGIN {printf "%.3f", p / b}')"
	done
done

if [ -n "$points" ]; then
	scene point auto "$work/points-$lights-d$depth.json"
	first=
	for bin in $bins; do
		name=$(basename "$bin" | sed 's/^trace-//')
		out=$work/points-$lights-d$depth-$name.pfm
		render "$bin" "$work/points-$lights-d$depth.json" "$out" --samples "$spp" --seed 1 >/dev/null
		if [ -z "$first" ]; then
			first=$out
			echo "point lights only, $name: $(sha256sum <"$out" | cut -c1-16)"
		elif cmp -s "$first" "$out"; then
			echo "point lights only, $name: the same bits ($(sha256sum <"$out" | cut -c1-16))"
		else
			echo "point lights only, $name: DIFFERENT pixels"
		fi
	done
fi
