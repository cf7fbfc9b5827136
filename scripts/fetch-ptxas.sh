#!/usr/bin/env bash
# fetch-ptxas DIR: NVIDIA's PTX assembler, ptxas (CUDA 11.8, which targets
# sm_80 to sm_90), from Debian bookworm's non-free nvidia-cuda-toolkit
# package, unpacked into DIR with dpkg -x (DIR/usr/bin/ptxas), not
# installed: the 84 MB .deb holds ptxas, cuobjdump and nvdisasm, which run
# alone; its dependencies (2.8 GB) are not needed to assemble PTX.
#
# scripts/fetch-debian-nonfree.sh does the fetching: it needs no root and
# leaves the system's apt setup as it was. Used by the Makefile (make
# ptxas, which CI runs through make check-ptxas); a DIR that already holds
# ptxas is left alone.
set -euo pipefail
dir=${1:?usage: fetch-ptxas.sh DIR}
if [ -x "$dir/usr/bin/ptxas" ]; then
	exit 0
fi
"$(dirname "$0")/fetch-debian-nonfree.sh" bookworm nvidia-cuda-toolkit "$dir"
"$dir/usr/bin/ptxas" --version | tail -n 1
