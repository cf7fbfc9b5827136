#!/usr/bin/env bash
# fetch-ptxas DIR: NVIDIA's PTX assembler, ptxas (CUDA 11.8, which targets
# sm_80 to sm_90), from Debian bookworm's non-free nvidia-cuda-toolkit
# package, unpacked into DIR with dpkg -x (DIR/usr/bin/ptxas), not
# installed: the 84 MB .deb holds ptxas, cuobjdump and nvdisasm, which run
# alone; its dependencies (2.8 GB) are not needed to assemble PTX.
#
# apt-get reads a source list of its own, bookworm's contrib and non-free
# components (signed by the Debian archive keyring), and keeps its lists
# under DIR/apt: it needs no root and leaves the system's apt setup as it
# was. DEBIAN_MIRROR overrides http://deb.debian.org/debian. Used by the
# Makefile (make ptxas, which CI runs through make check-ptxas); a DIR that
# already holds ptxas is left alone.
set -euo pipefail
dir=${1:?usage: fetch-ptxas.sh DIR}
if [ -x "$dir/usr/bin/ptxas" ]; then
	exit 0
fi
for t in apt-get dpkg; do
	command -v "$t" >/dev/null || { echo "fetch-ptxas: no $t: this needs Debian's apt-get and dpkg" >&2; exit 2; }
done
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
dir=$(cd "$dir" && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm contrib non-free" >"$dir/apt/sources.list"
opts=(-q -o Dir::Etc::SourceList="$dir/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
	-o Dir::State::Lists="$dir/apt/lists" -o Dir::Cache="$dir/apt/cache" -o APT::Architecture=amd64
	-o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt-get "${opts[@]}" update
(cd "$dir" && apt-get "${opts[@]}" download nvidia-cuda-toolkit)
deb=$(ls "$dir"/nvidia-cuda-toolkit_*.deb)
dpkg -x "$deb" "$dir"
rm -f "$deb"
"$dir/usr/bin/ptxas" --version | tail -n 1
