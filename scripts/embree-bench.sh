#!/bin/sh
# embree-bench.sh: trace against Intel Embree on the same meshes and rays,
# one thread, in one run (the ground truth for speed, see DESIGN.md).
#
#     scripts/embree-bench.sh [--quick] [ROUNDS]
#
# Installs Debian's libembree-dev (Embree 3) when it is missing, builds the
# C harness bench/embree/harness.c with gcc, writes the meshes and rays of
# `trace bench` (the 50k and 1.3M triangle icospheres, 1024² primary rays and
# 2^20 random rays) to a temporary folder with `go run ./bench/embree/export`,
# then times trace (Scene.Intersect, Scene.Occluded, the BVH build) and
# Embree (rtcIntersect1, rtcOccluded1, the default "medium" build) on them
# in ROUNDS alternating rounds (default 5): trace once, Embree once, trace
# again, ... so that a change in the machine's load in the middle of the run
# falls on both. It prints a table: rays/s of trace and of Embree, and their
# ratio, each the median over the rounds, timed in CPU time (the machines
# here are shared: the wall clock would count other processes). Primary rays
# are also traced in packets of four neighbours, trace's IntersectPacket (as
# trace's renderer traces camera rays) against Embree's rtcIntersect4; the
# last lines set trace's packets against Embree's rtcIntersect1. Not part of
# `make test`. GOEXPERIMENT is passed on, so GOEXPERIMENT=simd measures the
# vector build.
set -eu
cd "$(dirname "$0")/.."
quick=
if [ "${1:-}" = --quick ]; then
	quick=-quick
	shift
fi
rounds=${1:-5}
case $rounds in
'' | *[!0-9]* | 0)
	echo "usage: scripts/embree-bench.sh [--quick] [ROUNDS]" >&2
	exit 2
	;;
esac
if [ ! -f /usr/include/embree3/rtcore.h ]; then
	echo "installing libembree-dev" >&2
	if [ "$(id -u)" = 0 ]; then apt-get install -y libembree-dev >&2; else sudo apt-get install -y libembree-dev >&2; fi
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -o "$dir/harness" bench/embree/harness.c -lembree3
go build -o "$dir/export" ./bench/embree/export
# The ray files, and a first trace.tsv that names the workloads.
"$dir/export" $quick -runs 1 "$dir"
r=1
while [ "$r" -le "$rounds" ]; do
	"$dir/export" $quick -runs 1 -timing-only "$dir"
	cp "$dir/trace.tsv" "$dir/trace-$r.tsv"
	"$dir/harness" -runs 1 -tsv "$dir" >"$dir/embree-$r.tsv"
	r=$((r + 1))
done
# The medians over the rounds, per workload, in trace.tsv's order.
awk -F '\t' '
function median(s,   v, n, i, j, x) {
	n = split(s, v, " ")
	for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
FNR == 1 { kind = FILENAME ~ /embree-/ ? "e" : "t" }
{
	key = $1 SUBSEP $2
	if (!(key in name)) { order[++nk] = key; name[key] = $4 }
	rates[kind, key] = rates[kind, key] " " $3
}
END {
	printf "%-46s %12s %12s %7s\n", "workload (one thread, " ROUNDS " rounds)", "trace M/s", "Embree M/s", "ratio"
	for (i = 1; i <= nk; i++) {
		k = order[i]; t = median(rates["t", k]); e = median(rates["e", k])
		printf "%-46s %12.2f %12.2f %7.2f\n", name[k], t / 1e6, e / 1e6, t / e
	}
	for (i = 1; i <= nk; i++) {
		k = order[i]; split(k, mq, SUBSEP)
		if (mq[2] != "primary-packet" || !((mq[1], "primary") in name)) continue
		t = median(rates["t", k]); e = median(rates["e", mq[1] SUBSEP "primary"])
		m = name[k]; sub(/.*, /, "", m)
		printf "%-46s %12.2f %12.2f %7.2f\n", "primary packets vs rtcIntersect1, " m, t / 1e6, e / 1e6, t / e
	}
}' ROUNDS="$rounds" "$dir"/trace-*.tsv "$dir"/embree-*.tsv
