#!/usr/bin/env bash
# Test vectors of KHR_draco_mesh_compression from Draco's own encoder and
# decoder (Debian's draco 1.5.5: draco_encoder, draco_decoder). The Go
# decoder (scenes/draco.go) must give the reference decoder's points,
# faces and attribute values bit for bit (scenes/draco_test.go), and the
# glTF loader must load a Draco primitive as its uncompressed twin
# (scenes/gltfdraco_test.go).
#
#   scripts/draco-vectors.sh          # rewrite scenes/testdata/draco, run the tests
#
# From the gallery's sphere (the first primitive of
# scenes/examples/assets/spheres.gltf, as an OBJ: scripts/draco/gltf2obj.py)
# it writes, with draco_encoder:
#   sphere-cl0-blender.drc  -cl 0 -qp 14 -qt 12 -qn 10 -qg 12: the
#       sequential encoding at Blender's quantization (Blender's exporter
#       encodes sequentially where a mesh has shape keys)
#   sphere-cl0.drc          -cl 0 and draco_encoder's quantization (11, 10, 8)
#   sphere-cl0-q20.drc      -cl 0 -qp 20 -qt 20 -qn 20: values of many bits,
#       which the encoder writes as tagged symbols (the others: raw)
#   sphere-cl6-blender.drc  -cl 6 at Blender's quantization (Blender's
#       default: edgebreaker, valence; the same bytes as the library calls
#       of Blender's exporter for a mesh without shape keys, which the
#       script checks: scripts/draco/sequential.cc blender-edgebreaker)
#   sphere-cl7.drc          draco_encoder's defaults (edgebreaker, valence)
#   sphere-cl3.drc          -cl 3 (edgebreaker, standard)
#   sphere-cl9.drc          -cl 9 (valence; constrained multi-parallelogram
#       positions)
#   sphere-cl10.drc         -cl 10 (and the prediction-degree traversal)
#   topology-cl3.drc, topology-cl6-blender.drc, topology-cl7.drc,
#   topology-cl10.drc  the
#       edgebreaker's rarer paths (scripts/draco/topology.py: a torus, a
#       grid with a hole, an octahedron, a lone triangle: split symbols, a
#       topology split event, interior and boundary start faces) at -cl 3,
#       -cl 6 at Blender's quantization, -cl 7 and -cl 10
#   sphere-color-cl0.drc    -cl 0 -qp 14 of the sphere's positions with an
#       RGBA colour of 8-bit integers per vertex (scripts/draco/colorply.py),
#       Draco's integer attribute
# with scripts/draco/sequential.cc (built against libdraco-dev 1.5.5):
#   sphere-cl0-compressed.drc  the sequential encoding at Blender's
#       quantization with the library's compress_connectivity option
#       (the indices as rANS-coded deltas), which draco_encoder never sets
#   sphere-blender-shapekeys.drc  what Blender's exporter writes for a mesh
#       with shape keys at its defaults (level 6: speed 4, the sequential
#       encoding, 14/10/12/12 bits), through the library calls of its
#       encoder (github.com/ux3d/blender_extern_draco src/encoder.cpp)
# and spheres-cl0-blender.gltf, spheres-cl6-blender.gltf, spheres-cl7.gltf,
# spheres-cl10.gltf: the gallery's spheres (all 25 primitives) reading
# sphere-cl0-blender.drc, sphere-cl6-blender.drc, sphere-cl7.drc or
# sphere-cl10.drc through KHR_draco_mesh_compression
# (scripts/draco/gltfdraco.py, the accessors counting the reference
# decode's points and faces), the uncompressed spheres.gltf being their twin;
# and beside each stream the reference decode, draco_decoder -o x.ply, gzip -n
# (binary PLY: per point x y z nx ny nz as float32, per face three point
# ids and three texcoord pairs). go test reads them; draco is not needed
# to run the tests.
#
# Install (not a dependency of make test):
#   apt-get update && apt-get install -y draco libdraco-dev g++
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/scenes/testdata/draco
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

python3 "$root/scripts/draco/gltf2obj.py" "$root/scenes/examples/assets/spheres.gltf" >"$tmp/sphere.obj"

reference() { # name: the reference decode of name.drc
	draco_decoder -i "$out/$1.drc" -o "$tmp/$1.ply" >/dev/null
	gzip -n -9 -c "$tmp/$1.ply" >"$out/$1.ply.gz"
}
encode() { # name, input, draco_encoder options
	local name=$1 in=$2
	shift 2
	draco_encoder -i "$in" -o "$out/$name.drc" "$@" >/dev/null
	reference "$name"
}
blender=(-qp 14 -qt 12 -qn 10 -qg 12)
obj=$tmp/sphere.obj
encode sphere-cl0-blender "$obj" -cl 0 "${blender[@]}"
encode sphere-cl0 "$obj" -cl 0
encode sphere-cl0-q20 "$obj" -cl 0 -qp 20 -qt 20 -qn 20
encode sphere-cl6-blender "$obj" -cl 6 "${blender[@]}"
encode sphere-cl7 "$obj" -cl 7
encode sphere-cl3 "$obj" -cl 3
encode sphere-cl9 "$obj" -cl 9
encode sphere-cl10 "$obj" -cl 10
python3 "$root/scripts/draco/topology.py" >"$tmp/topology.obj"
encode topology-cl3 "$tmp/topology.obj" -cl 3
encode topology-cl6-blender "$tmp/topology.obj" -cl 6 "${blender[@]}"
encode topology-cl7 "$tmp/topology.obj" -cl 7
encode topology-cl10 "$tmp/topology.obj" -cl 10
python3 "$root/scripts/draco/colorply.py" "$obj" >"$tmp/sphere-color.ply"
encode sphere-color-cl0 "$tmp/sphere-color.ply" -cl 0 -qp 14
g++ -O1 -std=c++17 -o "$tmp/sequential" "$root/scripts/draco/sequential.cc" -ldraco
"$tmp/sequential" compressed "$obj" "$out/sphere-cl0-compressed.drc"
reference sphere-cl0-compressed
"$tmp/sequential" blender "$obj" "$out/sphere-blender-shapekeys.drc"
reference sphere-blender-shapekeys
# Blender's exporter without shape keys (the library's edgebreaker at speed
# 4) writes the same bytes as draco_encoder -cl 6 at its quantization.
"$tmp/sequential" blender-edgebreaker "$obj" "$tmp/blender-edgebreaker.drc"
cmp "$tmp/blender-edgebreaker.drc" "$out/sphere-cl6-blender.drc"

for name in cl0-blender cl6-blender cl7 cl10; do
	counts=$(python3 -c 'import gzip, re, sys; print(*(int(n) for n in re.findall(rb"element (?:vertex|face) (\d+)", gzip.open(sys.argv[1]).read(400))))' "$out/sphere-$name.ply.gz")
	# shellcheck disable=SC2086 # the points and faces, two words
	python3 "$root/scripts/draco/gltfdraco.py" "$root/scenes/examples/assets/spheres.gltf" "$out/sphere-$name.drc" $counts >"$out/spheres-$name.gltf"
done

ls -l "$out"
cd "$root" && go test ./scenes -run 'Draco'
