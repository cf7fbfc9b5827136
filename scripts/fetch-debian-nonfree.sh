#!/usr/bin/env bash
# fetch-debian-nonfree RELEASE PACKAGE DIR [PATH...]: one package from
# Debian RELEASE's contrib and non-free components (NVIDIA's CUDA packages
# live there), unpacked into DIR with dpkg -x, or only the PATHs given
# (./usr/include/cuda.h ...), not installed: its dependencies are not
# fetched, and the .deb is removed afterwards.
#
# apt-get reads a source list of its own (signed by the Debian archive
# keyring) and keeps its lists under DIR/apt: it needs no root and leaves
# the system's apt setup as it was. DEBIAN_MIRROR overrides
# http://deb.debian.org/debian. Used by scripts/fetch-ptxas.sh and
# scripts/cuda-headers-check.sh.
set -euo pipefail
release=${1:?usage: fetch-debian-nonfree.sh RELEASE PACKAGE DIR [PATH...]}
package=${2:?usage: fetch-debian-nonfree.sh RELEASE PACKAGE DIR [PATH...]}
dir=${3:?usage: fetch-debian-nonfree.sh RELEASE PACKAGE DIR [PATH...]}
shift 3
for t in apt-get dpkg dpkg-deb tar; do
	command -v "$t" >/dev/null || { echo "fetch-debian-nonfree: no $t: this needs Debian's apt-get and dpkg" >&2; exit 2; }
done
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
dir=$(cd "$dir" && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $release contrib non-free" >"$dir/apt/sources.list"
opts=(-q -o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache="$dir/apt/cache" -o APT::Architecture=amd64
	-o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt-get "${opts[@]}" update
rm -f "$dir/${package}"_*.deb
(cd "$dir" && apt-get "${opts[@]}" download "$package")
deb=$(ls "$dir/${package}"_*.deb)
if [ $# -eq 0 ]; then
	dpkg -x "$deb" "$dir"
else
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" "$@"
fi
rm -f "$deb"
