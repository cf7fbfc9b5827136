#!/usr/bin/env bash
# ptx-report: assembles the kernel's PTX with NVIDIA's ptxas and prints, per
# entry point and target, the registers per thread, the stack frame, the
# spills and the occupancy they allow: the warps one multiprocessor holds
# at the block size the host code launches (kernels/cuda.go, cudaBlockDim),
# from the registers alone (the kernel uses no shared memory).
#
#   scripts/ptx-report.sh [--check] [--ptxas PATH] [--block N] PTX ARCH...
#
# e.g. scripts/ptx-report.sh kernels/trace.ptx sm_90 (make ptx-report).
# With --check the exit status is 1 when ptxas rejects the PTX or reports
# spills in any function (make check-ptxas, in CI); without it, only when
# ptxas fails. ptxas -v's full output goes to standard error.
#
# Occupancy: a warp's registers are allocated in units of 256 (8 per
# thread), a multiprocessor has 65536, a block is ceil(block/32) warps and
# gets all its warps' registers or none; sm_80 and sm_90 hold at most 64
# warps and 32 blocks per multiprocessor, sm_86 and sm_87 48 and 16, sm_89
# 48 and 24 (the CUDA occupancy calculator's tables).
set -euo pipefail
check=0
ptxas=${PTXAS:-ptxas}
block=""
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1; shift ;;
	--ptxas) ptxas=$2; shift 2 ;;
	--block) block=$2; shift 2 ;;
	-*) echo "ptx-report: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "usage: ptx-report.sh [--check] [--ptxas PATH] [--block N] PTX ARCH..." >&2
	exit 2
fi
ptx=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$block" ]; then
	block=$(sed -n 's/^[[:space:]]*cudaBlockDim[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$here/kernels/cuda.go" | head -n 1)
	if [ -z "$block" ]; then
		echo "ptx-report: no cudaBlockDim = N in $here/kernels/cuda.go; give --block N" >&2
		exit 2
	fi
fi
if ! command -v "$ptxas" >/dev/null 2>&1; then
	echo "ptx-report: no ptxas ($ptxas): make ptxas fetches NVIDIA's from Debian, or set PTXAS" >&2
	exit 2
fi
version=$("$ptxas" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\), \(V[0-9.]*\).*/CUDA \1, \2/p')
echo "ptxas ${version:-(unknown version)}: $ptx, blocks of $block threads"
echo
echo "| entry | target | registers | stack frame | spill stores | spill loads | warps/SM |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
status=0
for arch in "$@"; do
	log=$(mktemp)
	if ! "$ptxas" --gpu-name "$arch" -O3 -v -o /dev/null "$ptx" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "ptx-report: ptxas --gpu-name $arch rejected $ptx" >&2
		exit 1
	fi
	cat "$log" >&2
	awk -v arch="$arch" -v block="$block" -v check="$check" '
	function occupancy(regs,    wpb, perwarp, byregs, bywarps, blocks, maxw, maxb) {
		maxw = 64; maxb = 32
		if (arch == "sm_86" || arch == "sm_87") { maxw = 48; maxb = 16 }
		else if (arch == "sm_89") { maxw = 48; maxb = 24 }
		else if (arch != "sm_80" && arch != "sm_90" && arch != "sm_90a") return "? (no table for " arch ")"
		wpb = int((block + 31) / 32)
		perwarp = int((regs * 32 + 255) / 256) * 256
		byregs = perwarp > 0 ? int(int(65536 / perwarp) / wpb) : maxb
		if (regs * wpb * 32 > 65536) byregs = 0
		bywarps = int(maxw / wpb)
		blocks = byregs
		if (bywarps < blocks) blocks = bywarps
		if (maxb < blocks) blocks = maxb
		return sprintf("%d of %d (%.2f %%)", blocks * wpb, maxw, 100 * blocks * wpb / maxw)
	}
	/Compiling entry function/ { split($0, q, "'\''"); entry = q[2]; props = ""; next }
	/Function properties for/ { props = $NF; next }
	/bytes stack frame/ {
		stack = $1; stores = $5; loads = $9
		if (stores + 0 > 0 || loads + 0 > 0) { spilled = spilled " " props }
		if (props == entry) { st[entry] = stack; ss[entry] = stores; sl[entry] = loads }
		next
	}
	/Used [0-9]+ registers/ {
		for (i = 1; i <= NF; i++) if ($i == "Used") r = $(i + 1)
		regs[entry] = r; order[++n] = entry
	}
	END {
		for (i = 1; i <= n; i++) {
			e = order[i]
			printf "| %s | %s | %d | %d B | %d B | %d B | %s |\n", e, arch, regs[e], st[e], ss[e], sl[e], occupancy(regs[e])
		}
		if (n == 0) { print "ptx-report: ptxas reported no entry function for " arch > "/dev/stderr"; exit 1 }
		if (spilled != "") {
			print "ptx-report: spills on " arch " in" spilled > "/dev/stderr"
			if (check) exit 1
		}
	}' "$log" || status=1
	rm -f "$log"
done
exit $status
