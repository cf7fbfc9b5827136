#!/usr/bin/env bash
# Test vectors of EXT_meshopt_compression from code nobody here wrote:
# meshoptimizer's own encoders and decoders (Debian's libmeshoptimizer-dev,
# 0.18) and gltfpack (npm). The Go decoder (scenes/meshopt.go) must
# reproduce the library's decoding of each vector byte for byte (the
# octahedral and quaternion filters within one unit, as the extension
# specifies them), and load gltfpack's compressed models as their
# uncompressed twins (scenes/meshopt_test.go, scenes/gltfmeshopt_test.go).
#
#   scripts/meshopt-vectors.sh                 # rewrite the committed vectors, run the tests
#   scripts/meshopt-vectors.sh --seed 7        # other data in a temporary file, run the tests on it
#   scripts/meshopt-vectors.sh --gltfpack DIR  # also rewrite the .glb files with DIR/gltfpack
#
# Writes scenes/testdata/meshopt/vectors.jsonl.gz (scripts/meshopt/vectors.c:
# vertex data of strides 4 to 256, the three filters, triangle lists and
# index sequences; gzip -n, so the same library gives the same bytes) and,
# with --gltfpack, spheres.glb (gltfpack -kv, quantized, not compressed:
# the twin), spheres-c.glb (-kv -c) and spheres-vpf-cc.glb (-kv -vpf -cc)
# from scenes/examples/assets/spheres.gltf. go test reads them; neither
# the library nor gltfpack is needed to run the tests.
#
# Install (neither is a dependency of make test):
#   apt-get update && apt-get install -y libmeshoptimizer-dev gcc
#   mkdir -p /tmp/gltfpack && (cd /tmp/gltfpack && npm install gltfpack@1.3.0)
#   scripts/meshopt-vectors.sh --gltfpack /tmp/gltfpack/node_modules/.bin
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seed=
gltfpack=
while [ $# -gt 0 ]; do
	case $1 in
	--seed) seed=$2; shift 2 ;;
	--gltfpack) gltfpack=$2/gltfpack; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "meshopt-vectors.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done

if [ ! -f /usr/include/meshoptimizer.h ]; then
	echo "meshopt-vectors.sh: meshoptimizer.h not found: apt-get install -y libmeshoptimizer-dev (see --help)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -Wall -o "$tmp/vectors" "$root/scripts/meshopt/vectors.c" -lmeshoptimizer -lm
echo "libmeshoptimizer $(dpkg-query -W -f '${Version}' libmeshoptimizer-dev 2>/dev/null || echo '?')"
out=$root/scenes/testdata/meshopt
if [ -n "$seed" ]; then
	"$tmp/vectors" "$seed" | gzip -9 -n > "$tmp/vectors.jsonl.gz"
	export TRACE_MESHOPT_VECTORS=$tmp/vectors.jsonl.gz
else
	"$tmp/vectors" | gzip -9 -n > "$out/vectors.jsonl.gz"
fi
if [ -n "$gltfpack" ]; then
	echo "$("$gltfpack" -v 2>&1 | head -1)"
	src=$root/scenes/examples/assets/spheres.gltf
	"$gltfpack" -i "$src" -o "$out/spheres.glb" -kv
	"$gltfpack" -i "$src" -o "$out/spheres-c.glb" -kv -c
	"$gltfpack" -i "$src" -o "$out/spheres-vpf-cc.glb" -kv -vpf -cc
fi
cd "$root"
go test ./scenes -count=1 -run 'TestMeshopt' -v | grep -E '^(--- |ok|FAIL|PASS)' | grep -v '^    ' || true
go test ./scenes -count=1 -run 'TestMeshopt'
