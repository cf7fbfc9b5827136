#!/bin/sh
# pbr-noise.sh: noise at equal CPU time of two trace binaries on scenes of
# rough metal and pbr materials, for a change to how their lobes are
# sampled (pixel version 16: the lobes picked in proportion to their
# compensated albedos, tracer/ggxenergy.go), or of rough glass
# (scripts/cycles/scenes/frosted.json: pixel version 17's compensation).
#
#   scripts/pbr-noise.sh [-s SIDE] [-r REFSPP] [-n SPP] [-k K] BEFORE AFTER [SCENE...]
#
# For each scene (default: the gallery's pbr and materials) and each
# binary it renders a SIDE×SIDE reference of REFSPP samples (default 64,
# 4096) with seed 1000, each binary its own (their means may differ),
# then K renders (default 3) of SPP samples (default 64) with seeds 1 to
# K, on every core, into linear PFMs, and prints for each binary the CPU
# seconds (user + system, /usr/bin/time) and RMSE² against its reference
# (every pixel and channel), each the median of the K, RMSE² × CPU
# seconds (the lower the better) and AFTER's over BEFORE's. The
# reference's own noise adds to both RMSE². Work files go to
# ${TMPDIR:-/tmp}/pbr-noise.
set -eu
side=64 ref=4096 spp=64 k=3
while getopts s:r:n:k: o; do
	case $o in
	s) side=$OPTARG ;; r) ref=$OPTARG ;; n) spp=$OPTARG ;; k) k=$OPTARG ;;
	*) sed -n 2,19p "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n 2,19p "$0"; exit 2; }
before=$1 after=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$root/scenes/examples/pbr.json" "$root/scenes/examples/materials.json"
work=${TMPDIR:-/tmp}/pbr-noise
mkdir -p "$work"

# render BIN SCENE OUT SAMPLES SEED: renders, prints the CPU seconds.
render() {
	/usr/bin/time -f "%U %S" -o "$work/time" "$1" render "$2" -o "$3" -q \
		--width "$side" --height "$side" --samples "$4" --seed "$5" 2>"$work/log"
	awk '{printf "%.3f\n", $1 + $2}' "$work/time"
}

# median: the median of the numbers on standard input.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '%-14s %-7s %8s %12s %14s %12s\n' scene binary cpu-s RMSE² RMSE²×cpu-s after/before
for sc in "$@"; do
	name=$(basename "$sc" .json)
	base=
	for which in before after; do
		bin=$before
		[ "$which" = before ] || bin=$after
		refpfm=$work/$name-$which-ref.pfm
		render "$bin" "$sc" "$refpfm" "$ref" 1000 >/dev/null
		: >"$work/cpus"
		: >"$work/errs"
		i=1
		while [ "$i" -le "$k" ]; do
			out=$work/$name-$which-$i.pfm
			render "$bin" "$sc" "$out" "$spp" "$i" >>"$work/cpus"
			python3 "$root/scripts/pfm-rmse2.py" "$out" "$refpfm" >>"$work/errs"
			i=$((i + 1))
		done
		cpu=$(median <"$work/cpus")
		e=$(median <"$work/errs")
		p=$(awk -v e="$e" -v c="$cpu" 'BEGIN {printf "%.6g", e * c}')
		[ -n "$base" ] || base=$p
		printf '%-14s %-7s %8s %12s %14s %12s\n' "$name" "$which" "$cpu" "$e" "$p" \
			"$(awk -v p="$p" -v b="$base" 'BEGIN {printf "%.3f", p / b}')"
	done
done
