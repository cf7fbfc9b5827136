#!/usr/bin/env bash
# Tests scripts/ptx-report.sh against a fake ptxas that prints what NVIDIA's
# ptxas -v prints (CUDA 11.8's format, and 12 and 13's) for given registers
# and spills: the table's figures, the occupancy arithmetic against the CUDA
# occupancy calculator's answers for blocks of 128 threads on sm_90, and
# --check failing on spills and on a rejected PTX. Seconds; part of make test.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/ptxas" <<'FAKE'
#!/bin/sh
# fake ptxas: FAKE_REGS registers, FAKE_SPILL bytes of spill stores, exit
# FAKE_RC; a callee with spills when FAKE_CALLEE_SPILL is set; the "Used"
# line and the compile time as CUDA 12 and 13's ptxas print them when
# FAKE_NEW is set (the GPU machine's toolkit is 13.0).
case "$*" in *--version*) echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0 ;; esac
arch=unknown
while [ $# -gt 0 ]; do [ "$1" = --gpu-name ] && arch=$2; shift; done
if [ "${FAKE_RC:-0}" != 0 ]; then echo "ptxas fatal   : Unresolved extern function 'f'" >&2; exit "$FAKE_RC"; fi
used="Used ${FAKE_REGS:-241} registers, 400 bytes cmem[0]"
[ -n "${FAKE_NEW:-}" ] && used="Used ${FAKE_REGS:-241} registers, used 0 barriers, 3920 bytes cumulative stack size, 400 bytes cmem[0]
ptxas info    : Compile time = 93.809 ms"
cat >&2 <<OUT
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'trace_pixels' for '$arch'
ptxas info    : Function properties for trace_pixels
    3920 bytes stack frame, ${FAKE_SPILL:-0} bytes spill stores, ${FAKE_SPILL:-0} bytes spill loads
ptxas info    : $used
ptxas info    : Function properties for _ZL10trace_pathPK10TraceScene3RayP7SamplerPy
    0 bytes stack frame, ${FAKE_CALLEE_SPILL:-0} bytes spill stores, 0 bytes spill loads
OUT
FAKE
chmod +x "$tmp/ptxas"
fail=0
expect() { # expect WHAT WANT GOT
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: want $2, got $3"
		fail=1
	else
		echo "ok   $1: $3"
	fi
}
row() { # row REGS: the sm_90 table row's warps/SM for that many registers
	FAKE_REGS=$1 scripts/ptx-report.sh --ptxas "$tmp/ptxas" --block 128 kernels/trace.ptx sm_90 2>/dev/null |
		awk -F'|' '$3 ~ /sm_90/ {gsub(/^ +| +$/, "", $8); print $8}'
}
# The occupancy calculator, 128 threads a block, sm_90 (64 warps, 32 blocks,
# 65536 registers allocated 256 a warp).
expect "241 registers" "8 of 64 (12.50 %)" "$(row 241)"
expect "165 registers" "12 of 64 (18.75 %)" "$(row 165)"
expect "128 registers" "16 of 64 (25.00 %)" "$(row 128)"
expect "64 registers" "32 of 64 (50.00 %)" "$(row 64)"
expect "52 registers" "36 of 64 (56.25 %)" "$(row 52)"
expect "47 registers" "40 of 64 (62.50 %)" "$(row 47)"
expect "32 registers" "64 of 64 (100.00 %)" "$(row 32)"
expect "16 registers (the 64-warp limit)" "64 of 64 (100.00 %)" "$(row 16)"
line=$(FAKE_REGS=241 scripts/ptx-report.sh --ptxas "$tmp/ptxas" kernels/trace.ptx sm_80 sm_90 2>/dev/null | grep '^| trace_pixels | sm_80')
expect "the sm_80 row, blocks from kernels/cuda.go" "| trace_pixels | sm_80 | 241 | 3920 B | 0 B | 0 B | 8 of 64 (12.50 %) |" "$line"
line=$(FAKE_NEW=1 FAKE_REGS=163 scripts/ptx-report.sh --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 2>/dev/null | grep '^| trace_pixels | sm_90')
expect "CUDA 12 and 13's output" "| trace_pixels | sm_90 | 163 | 3920 B | 0 B | 0 B | 12 of 64 (18.75 %) |" "$line"
rc=0
FAKE_NEW=1 FAKE_SPILL=12 scripts/ptx-report.sh --check --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "--check with spills, CUDA 12 and 13's output" 1 "$rc"
rc=0
FAKE_SPILL=12 scripts/ptx-report.sh --check --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "--check with spills in the entry" 1 "$rc"
rc=0
FAKE_CALLEE_SPILL=8 scripts/ptx-report.sh --check --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "--check with spills in a callee" 1 "$rc"
rc=0
FAKE_SPILL=12 scripts/ptx-report.sh --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "spills without --check" 0 "$rc"
rc=0
scripts/ptx-report.sh --check --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "--check without spills" 0 "$rc"
rc=0
FAKE_RC=255 scripts/ptx-report.sh --ptxas "$tmp/ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "a rejected PTX" 1 "$rc"
rc=0
scripts/ptx-report.sh --ptxas "$tmp/no-such-ptxas" kernels/trace.ptx sm_90 >/dev/null 2>&1 || rc=$?
expect "no ptxas" 2 "$rc"
[ $fail = 0 ] && echo "ptx-report: all checks passed"
exit $fail
