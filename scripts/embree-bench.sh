#!/bin/sh
# embree-bench.sh: trace against Intel Embree on the same meshes and rays,
# one thread, in one run (the ground truth for speed, see DESIGN.md).
#
#     scripts/embree-bench.sh [--quick]
#
# Installs Debian's libembree-dev (Embree 3) when it is missing, builds the
# C harness bench/embree/harness.c with gcc, writes the meshes and rays of
# `trace bench` (the 50k and 1.3M triangle icospheres, 1024² primary rays and
# 2^20 random rays) to a temporary folder with `go run ./bench/embree/export`,
# which also times trace's Scene.Intersect and Scene.Occluded on them, and
# prints a table: rays/s of trace and of Embree's rtcIntersect1 and
# rtcOccluded1 (default build quality, "medium"), and their ratio, each the
# median of five runs, timed in CPU time (the machines here are shared:
# the wall clock would count other processes). Not part of `make test`.
# GOEXPERIMENT is passed on, so GOEXPERIMENT=simd measures the vector build.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f /usr/include/embree3/rtcore.h ]; then
	echo "installing libembree-dev" >&2
	if [ "$(id -u)" = 0 ]; then apt-get install -y libembree-dev >&2; else sudo apt-get install -y libembree-dev >&2; fi
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -o "$dir/harness" bench/embree/harness.c -lembree3
go run ./bench/embree/export "$@" "$dir"
"$dir/harness" "$dir"
