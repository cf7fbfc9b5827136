#!/usr/bin/env bash
# Test vectors of EXT_meshopt_compression and KHR_meshopt_compression from
# code nobody here wrote: meshoptimizer's own encoders and decoders
# (Debian's libmeshoptimizer-dev 0.18 for EXT's codecs; meshoptimizer's
# source, 0.23 or later, for KHR's version 1 vertex codec and COLOR
# filter) and gltfpack (npm). The Go decoder (scenes/meshopt.go) must
# reproduce the library's decoding of each vector byte for byte (the
# octahedral, quaternion and color filters within one unit, as the
# extensions specify them), and load gltfpack's compressed models as their
# uncompressed twins (scenes/meshopt_test.go, scenes/gltfmeshopt_test.go).
#
#   scripts/meshopt-vectors.sh                      # rewrite vectors.jsonl.gz, run the tests
#   scripts/meshopt-vectors.sh --meshopt-src DIR    # also vectors-v1.jsonl.gz from DIR/src
#   scripts/meshopt-vectors.sh --gltfpack DIR       # also the .glb files, with DIR/gltfpack
#   scripts/meshopt-vectors.sh --seed 7 [--meshopt-src DIR]
#                                                   # other data in a temporary folder, run the tests on it
#
# Writes scenes/testdata/meshopt/vectors.jsonl.gz (scripts/meshopt/vectors.c
# against the Debian library: vertex data of strides 4 to 256, the three
# filters, triangle lists and index sequences), with --meshopt-src
# vectors-v1.jsonl.gz (the same program built from DIR/src/*.cpp: version
# 1 at encoder levels 0 to 3, which use every control and channel mode, and
# the COLOR filter), gzip -n, so the same library gives the same bytes;
# with --gltfpack, spheres.glb (gltfpack -kv, quantized, not compressed:
# the twin), spheres-c.glb (-kv -c), spheres-vpf-cc.glb (-kv -vpf -cc) and
# spheres-vpf-cc-khr.glb (-kv -vpf -cc -ce khr) from
# scenes/examples/assets/spheres.gltf. go test reads them; neither library
# nor gltfpack is needed to run the tests.
#
# Install (none is a dependency of make test):
#   apt-get update && apt-get install -y libmeshoptimizer-dev gcc g++
#   git clone https://github.com/zeux/meshoptimizer /tmp/meshoptimizer   # the committed v1 vectors: 1.2
#   mkdir -p /tmp/gltfpack && (cd /tmp/gltfpack && npm install gltfpack@1.3.0)
#   scripts/meshopt-vectors.sh --meshopt-src /tmp/meshoptimizer --gltfpack /tmp/gltfpack/node_modules/.bin
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seed=
gltfpack=
src=
while [ $# -gt 0 ]; do
	case $1 in
	--seed) seed=$2; shift 2 ;;
	--meshopt-src) src=$(cd "$2" && pwd); shift 2 ;;
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
vectors=$out # where the vectors go
if [ -n "$seed" ]; then
	vectors=$tmp/seeded
	mkdir -p "$vectors"
	export TRACE_MESHOPT_VECTORS=$vectors
	[ -n "$src" ] || cp "$out/vectors-v1.jsonl.gz" "$vectors/" # the committed ones
fi
"$tmp/vectors" $seed | gzip -9 -n > "$vectors/vectors.jsonl.gz"
if [ -n "$src" ]; then
	mkdir -p "$tmp/obj"
	(cd "$tmp/obj" && g++ -O2 -c "$src"/src/*.cpp)
	gcc -O2 -Wall -I "$src/src" -o "$tmp/vectors-v1" "$root/scripts/meshopt/vectors.c" "$tmp"/obj/*.o -lstdc++ -lm
	echo "meshoptimizer source $(grep -m1 'define MESHOPTIMIZER_VERSION' "$src/src/meshoptimizer.h" | sed 's/.*VERSION //')"
	"$tmp/vectors-v1" v1 $seed | gzip -9 -n > "$vectors/vectors-v1.jsonl.gz"
fi
if [ -n "$gltfpack" ]; then
	echo "$("$gltfpack" -v 2>&1 | head -1)"
	model=$root/scenes/examples/assets/spheres.gltf
	"$gltfpack" -i "$model" -o "$out/spheres.glb" -kv
	"$gltfpack" -i "$model" -o "$out/spheres-c.glb" -kv -c
	"$gltfpack" -i "$model" -o "$out/spheres-vpf-cc.glb" -kv -vpf -cc
	"$gltfpack" -i "$model" -o "$out/spheres-vpf-cc-khr.glb" -kv -vpf -cc -ce khr
fi
cd "$root"
go test ./scenes -count=1 -run 'TestMeshopt' -v | grep -E '^(--- |ok|FAIL)' || true
go test ./scenes -count=1 -run 'TestMeshopt'
