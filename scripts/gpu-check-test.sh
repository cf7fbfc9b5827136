#!/usr/bin/env bash
# Tests scripts/gpu-check.sh here, without a GPU, end to end:
#
#   stub      the whole check against the project's stub driver
#             (GPU_CHECK_STUB=1: kernels/cudastub's cuda.h and libcuda.c, one
#             emulated device running trace.cu as C) and fake ptxas,
#             compute-sanitizer and ncu: it
#             passes, $OUT holds exactly summary.txt and gpu-check.tar.gz,
#             the archive holds every step's log, and the figures and steps
#             are the ones a GPU run reports
#   skip      the next call on the same warm machine with GPU_CHECK_SKIP:
#             the steps it names are SKIPped, the others run, and it passes
#   header    the next call on the same warm machine with a broken cuda.h:
#             build-cu fails in seconds, nothing after it runs, and no
#             binary of the first call is tested
#   deadline  a fake slow step under a 15 s deadline: the check ends by the
#             deadline, says which step it stopped and which it never ran,
#             and still returns both files
#   bare      a machine with no toolkit, no driver and no Go: it fails in
#             seconds with its summary written
#   pack      scripts/gpu-pack.sh in a git worktree (a fake, small Go root),
#             and the check unpacking that .gpu: the toolchain and the
#             compressed modules, which must match go.mod
#
# About a minute on 2 cores with a warm GOCACHE; CI runs it (.ci/run).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
tmp=$(mktemp -d)
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	git -C "$ROOT" worktree remove --force "$tmp/worktree" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	fail=1
}
# want CASE PATTERN FILE: FILE has a line matching the extended regex.
want() {
	if grep -Eq -- "$2" "$3"; then ok "$1: /$2/"; else bad "$1: no line /$2/ in $3:" && sed 's/^/     | /' "$3"; fi
}
# wantnot CASE PATTERN FILE
wantnot() {
	if grep -Eq -- "$2" "$3"; then bad "$1: a line /$2/ in $3:" && grep -E -- "$2" "$3" | sed 's/^/     | /'; else ok "$1: no /$2/"; fi
}
# outfiles CASE DIR: $OUT holds summary.txt and gpu-check.tar.gz and nothing else.
outfiles() {
	local got
	got=$(cd "$2" && find . -mindepth 1 | sort | tr '\n' ' ')
	if [ "$got" = "./gpu-check.tar.gz ./summary.txt " ]; then ok "$1: \$OUT holds $got"; else bad "$1: \$OUT holds $got"; fi
}
# run CASE ENV...: runs the check with ENV, timing it; status in $rc, seconds in $took.
run() {
	local name=$1 start end
	shift
	mkdir -p "$tmp/$name"
	start=$(date +%s)
	env "$@" OUT="$tmp/$name/out" bash "$CHECK" >"$tmp/$name/stdout" 2>"$tmp/$name/stderr"
	rc=$?
	end=$(date +%s)
	took=$((end - start))
	echo "---- $name: exit $rc after ${took}s"
}
CHECK=$ROOT/scripts/gpu-check.sh

# A ptxas that answers as CUDA 11.8's does for the committed kernel.
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/ptxas" <<'FAKE'
#!/bin/sh
case "$*" in *--version*) echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0 ;; esac
cat >&2 <<'OUT'
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'trace_pixels' for 'sm_90'
ptxas info    : Function properties for trace_pixels
    3920 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 241 registers
OUT
FAKE
chmod +x "$tmp/fakebin/ptxas"
# A compute-sanitizer that runs the program as memcheck does when it finds
# nothing: its exit status, then the error summary.
cat >"$tmp/fakebin/compute-sanitizer" <<'FAKE'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in --tool | --error-exitcode) shift 2 ;; --*) shift ;; *) break ;; esac
done
"$@"
rc=$?
echo "========= ERROR SUMMARY: 0 errors"
exit $rc
FAKE
chmod +x "$tmp/fakebin/compute-sanitizer"
# An ncu that runs the program, then reports as Nsight Compute 2025 does
# (two sections of each launch asked for, abridged: the wavefront's three,
# or the path megakernel's one).
cat >"$tmp/fakebin/ncu" <<'FAKE'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in
	--kernel-name) names=$2; shift 2 ;;
	--metrics) metrics=$2; shift 2 ;;
	--export) export=$2; shift 2 ;;
	--import) import=$2; shift 2 ;;
	--page) page=$2; shift 2 ;;
	--clock-control | --launch-skip | --launch-count | --section | --print-source) shift 2 ;;
	--*) shift ;;
	*) break ;;
	esac
done
if [ -n "$import" ]; then
	# A report read back: the source page's instructions, or the details.
	[ -s "$import" ] || { echo "==ERROR== no report $import" >&2; exit 1; }
	if [ "$page" = source ]; then
		# As Nsight Compute 2025.3 writes it, abridged: a file, its source
		# line, the line's one instruction.
		cat <<'CSV'
"File Path","/work/main/kernels/alpha.h"
"Function Name","trace_pixels_path"
"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","# Samples","Instructions Executed","Thread Instructions Executed","stall_no_inst"
"21","DEVFN u32 alpha_stream(int depth, u32 role) { return (u32)depth * TR_ALPHA_ROLES + role; }","-","-","87","52","87","522770","3256561","29"
"","","0x7f96bfe67860","      SHF.L.U32 R3, R0, 0x2, RZ","87","52","87","522770","3256561","29"
CSV
	else
		printf '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
	fi
	exit
fi
"$@" || exit
if [ -n "$export" ]; then
	echo "fake report" >"$export.ncu-rep"
	exit
fi
if [ -n "$metrics" ]; then
	# Raw metrics: the values count up from 1.5 in the order asked,
	# the sectors with their unit scaled, as ncu prints them.
	echo "  trace_pixels_path (2048, 1, 1)x(128, 1, 1), Context 1, Stream 13, Device 0, CC 9.0"
	echo "    Section: Command line profiler metrics"
	echo "$metrics" | tr , '\n' | awk '{ v += 1.5; if ($1 ~ /sectors/) printf "    %s  Msector  %.2f\n", $1, v; else printf "    %s  %.2f\n", $1, v }'
	exit
fi
kernels='"wf_shade 163 3.21 18.75 17.92" "wf_intersect 59 1.05 50 44.10" "wf_occluded 50 0.62 56.25 48.30"'
case $names in *trace_pixels_path*) kernels='"trace_pixels_path 165 812.50 18.75 16.02"' ;; esac
eval "set -- $kernels"
for k in "$@"; do
	set -- $k
	cat <<OUT
  $1 (2048, 1, 1)x(128, 1, 1), Context 1, Stream 13, Device 0, CC 9.0
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ------------
    Metric Name             Metric Unit Metric Value
    ----------------------- ----------- ------------
    DRAM Frequency                  Ghz         3.20
    Memory Throughput                 %        41.07
    Duration                    usecond       $3
    Compute (SM) Throughput           %        63.19
    ----------------------- ----------- ------------

    Section: Occupancy
    ------------------------------- ----------- ------------
    Theoretical Occupancy                     %        $4
    Achieved Occupancy                        %        $5
    ------------------------------- ----------- ------------

    Section: Launch Statistics
    Registers Per Thread             register/thread             $2
    Section: Memory Workload Analysis
    Memory Throughput                          Gbyte/s       425.69
OUT
done
FAKE
chmod +x "$tmp/fakebin/ncu"
before=$(git status --porcelain)
gallery=(scenes/examples/*.json)
# Kept under bin/ between runs, as a warm machine keeps it: GOCACHE then
# holds the cgo builds of the last run, whose flags name these folders.
state=$ROOT/bin/gpu-check-test/state
rm -rf "$state/run."*
gocache=$(go env GOCACHE)

# ---- stub ----
# Variants of the PTX, as scripts/ptx-variants.sh makes them (the stub
# runs trace.cu as C, whatever the PTX: this tests the steps' plumbing).
mkdir -p "$tmp/ptx"
make -s kernels PTX="$tmp/ptx/lineinfo.ptx" PTXEXTRA=-gline-directives-only
cp kernels/trace.ptx "$tmp/ptx/copy.ptx"
cp kernels/trace.ptx "$tmp/ptx/wf-copy.ptx"
run stub GPU_CHECK_STUB=1 GPU_CHECK_STATE="$state" GOCACHE="$gocache" PATH="$tmp/fakebin:$PATH" GPU_CHECK_DEADLINE=240 \
	GPU_CHECK_PTX_DIR="$tmp/ptx" GPU_CHECK_SHADE_REGS="128 64" GPU_CHECK_MEGA_REGS="128 96"
s=$tmp/stub/out/summary.txt
if [ "$rc" = 0 ]; then ok "stub: exit 0"; else bad "stub: exit $rc"; fi
outfiles stub "$tmp/stub/out"
want stub '^gpu-check: PASS after [0-9]+s of a 240s deadline' "$s"
want stub '^PASS  find-driver .*stub/libcuda.so.1; linking against the driver' "$s"
for st in stub-driver build-cu build build-tests build-psnr driver-jit gpu-tests gpu-tests-wavefront same-adaptive-megakernel same-adaptive-wavefront bench-gpu bench-gpu-wavefront bench-gpu-unsplit bench-gpu-wavefront-unsplit frame-gpu frame-gpu-auto frame-mixed-auto frame-mixed frame-mixed-spare frame-mixed-wavefront frame-mixed-wavefront-procs frame-gpu-wavefront frame-gpu-one-lane frame-scenes ncu ncu-megakernel ncu-stalls ncu-source ptx-variants memcheck shade-regs mega-regs; do
	want stub "^PASS  $st " "$s"
done
for scene in "${gallery[@]}"; do
	want stub "^PASS  same-$(basename "$scene" .json) " "$s"
done
want stub 'ptxas \(CUDA 11.8, V11.8.89\) sm_90: trace_pixels 241 registers, stack 3920 B, spills 0 B stored/0 B loaded, warps/SM 8 of 64' "$s"
want stub 'GPU tests \(-short\): [1-9][0-9]* passed, 0 failed; gallery scenes bit-identical to the Go tracer: '"${#gallery[@]}"'$' "$s"
want stub '^  BenchmarkGPUGallery/cornell-box-[0-9]+ [0-9.e+]+ rays/s' "$s"
want stub '^  cornell-box .*, mixed: .*rays/s' "$s"
want stub '^  cornell-box .*, mixed-spare: .*rays/s' "$s"
want stub '^  cornell-box .*, gpu-auto: .*rays/s' "$s"
want stub '^  cornell-box .*, gpu-auto: gpu0 cudastub emulator: the (wavefront|megakernels), chosen on [0-9,]+ pixels each: [0-9.]+ M rays/s, the (wavefront|megakernels) [0-9.]+ M$' "$s"
want stub '^  cornell-box .*, mixed-auto: gpu0 cudastub emulator: the (wavefront|megakernels)' "$s"
want stub '^  cornell-box .*, gpu-wavefront: gpu0 cudastub emulator, 2 lanes: kernel times of [0-9]+ batch.* wf_shade .* wf_intersect .*; kernels [0-9.]+ s, [0-9]+% of the batches. time' "$s"
want stub '^  cornell-box .*, gpu-one-lane: gpu0 cudastub emulator, 1 lane: kernel times of [0-9]+ batch.* wf_shade .* wf_intersect .*; kernels [0-9.]+ s, [0-9]+% of the batches. time$' "$s"
want stub '^  wavefront BenchmarkGPUGallery/cornell-box-[0-9]+ [0-9.e+]+ rays/s' "$s"
want stub '^  unsplit megakernel BenchmarkGPUGallery/cornell-box-[0-9]+ [0-9.e+]+ rays/s' "$s"
want stub '^  unsplit wavefront BenchmarkGPUGallery/cornell-box-[0-9]+ [0-9.e+]+ rays/s' "$s"
want stub '^  memcheck \(the GPU tests. Cornell box, -short\): ERROR SUMMARY: 0 errors$' "$s"
want stub '^  cornell-box --width 32 --height 24 --samples 2, one lane, wf_shade registers none: [0-9.]+[kMG]? rays/s, wf_shade [0-9.]+ s \([0-9]+%; [0-9]+ launches of [0-9]+ µs\); kernels [0-9.]+ s, [0-9]+% of the batches. time; the frame the others must match$' "$s"
for cap in 128 64; do
	want stub '^  cornell-box --width 32 --height 24 --samples 2, one lane, wf_shade registers '$cap': [0-9.]+[kMG]? rays/s, wf_shade [0-9.]+ s \([0-9]+%; [0-9]+ launches of [0-9]+ µs\); kernels [0-9.]+ s, [0-9]+% of the batches. time; the same bytes as uncapped$' "$s"
done
want stub '^  ncu wf_shade: 3.21 usecond, SM 63.19%, memory 41.07%, occupancy 17.92% of 18.75%, 163 registers$' "$s"
want stub '^  ncu wf_occluded: 0.62 usecond, SM 63.19%, memory 41.07%, occupancy 48.30% of 56.25%, 50 registers$' "$s"
want stub '^  ncu trace_pixels_path: 812.50 usecond, SM 63.19%, memory 41.07%, occupancy 16.02% of 18.75%, 165 registers$' "$s"
want stub "^  ncu-stalls trace_pixels_path: 1.50 of 32 lanes active per instruction, 3.00 cycles between a warp's instructions; waiting on membar 19.50, barrier 18.00, no_instruction 16.50, branch_resolving 15.00; local memory 21.00 Msector loaded, 22.50 Msector stored\$" "$s"
for sc in materials mesh pbr whitted; do
	want stub "^  $sc --width 48 --height 27 --samples 2, megakernel: .*rays/s" "$s"
	want stub "^  $sc --width 48 --height 27 --samples 2, wavefront: .*rays/s.*; the same bytes as the megakernels\$" "$s"
	want stub "^  $sc --width 48 --height 27 --samples 2, auto: .*rays/s.*; the (wavefront|megakernels), chosen on 256 pixels each: .*; the same bytes as the megakernels\$" "$s"
done
want stub '^  ncu-source: trace_pixels_path: 5 lines of source counters in report/ncu-source-trace_pixels_path.csv.gz$' "$s"
want stub '^  ncu-source: wf_shade: 5 lines of source counters' "$s"
want stub '^  ncu-source trace_pixels_path: 6.23 of 32 lanes active per instruction; the instruction fetch \(no_inst\) 33% of the stall samples$' "$s"
want stub '^  ncu-source wf_shade: code 0 KB, of which 0 KB ran; 90 % of the instructions executed from the hottest 0 KB$' "$s"
want stub '^  ncu-source trace_pixels_path: alpha.h:21 100.0% of the samples, 100.0% of the instructions, 6.2 lanes: DEVFN u32 alpha_stream' "$s"
for v in embedded copy lineinfo; do
	same="the same bytes as the embedded kernel"
	[ $v = embedded ] && same="the frame the others must match"
	for sc in cornell-box:path whitted:whitted pbr:path; do
		want stub "^  ${sc%%:*} --width 32 --height 24 --samples 2, one lane, PTX $v: [0-9.]+[kMG]? rays/s, trace_pixels_${sc#*:} [0-9.]+ s \([0-9]+%; 1 launch of [0-9]+ µs\); $same\$" "$s"
	done
done
# A variant named wf-* is timed on the wavefront, the others on the megakernels.
for v in embedded wf-copy; do
	same="the same bytes as the embedded kernel"
	[ $v = embedded ] && same="the frame the others must match"
	want stub "^  cornell-box --width 32 --height 24 --samples 2, one lane, wavefront, PTX $v: [0-9.]+[kMG]? rays/s, wf_shade [0-9.]+ s \([0-9]+%; [0-9]+ launches of [0-9]+ µs\); $same\$" "$s"
done
wantnot stub "^  cornell-box .*, wavefront, PTX (copy|lineinfo):" "$s"
wantnot stub "^  [a-z-]+ .*, one lane, PTX wf-copy:" "$s"
wantnot stub '^(FAIL|RUN) ' "$s"
mkdir -p "$tmp/stub/x" && tar -xzf "$tmp/stub/out/gpu-check.tar.gz" -C "$tmp/stub/x"
for f in summary.txt figures.txt env.txt log/build.log log/gpu-tests.log log/same-cornell-box.log log/driver-jit.log \
	ncu-source-trace_pixels_path.csv.gz ncu-source-wf_shade-details.csv; do
	if [ -s "$tmp/stub/x/report/$f" ]; then ok "stub: the archive has report/$f"; else bad "stub: no report/$f in the archive"; fi
done
want stub '^    --- PASS: TestGPUGallery/cornell-box' "$tmp/stub/x/report/log/gpu-tests.log"
want stub '^    --- PASS: TestGPUGallery/cornell-box' "$tmp/stub/x/report/log/memcheck.log"
want stub 'gpu: the same bytes as the CPU' "$tmp/stub/x/report/log/same-mesh.log"
want stub 'gpu0 cudastub emulator \(TRACE_GPU_REGS=wf_shade=64\), 1 lane: kernel times' "$tmp/stub/x/report/log/shade-regs.log"
want stub 'TRACE_GPU_PTX=.*/lineinfo.ptx TRACE_GPU_KERNEL=megakernel|ncu-source: trace_pixels_path' "$tmp/stub/x/report/log/ncu-source.log"
want stub 'gpu0 cudastub emulator \(TRACE_GPU_REGS=trace_pixels_path=96\), 1 lane: kernel times' "$tmp/stub/x/report/log/mega-regs.log"
want stub '^  cornell-box .*, one lane, trace_pixels_path registers 96: .* rays/s, trace_pixels_path [0-9.]* s \([0-9]*%; 1 launch of [0-9]* µs\); kernels .*; the same bytes as uncapped$' "$s"
if [ "$(git status --porcelain)" = "$before" ]; then ok "stub: the working tree is as it was"; else bad "stub: the check changed the working tree: $(git status --porcelain)"; fi

# ---- skip: the same warm state, a second call that runs only some steps ----
run skip GPU_CHECK_STUB=1 GPU_CHECK_STATE="$state" GOCACHE="$gocache" PATH="$tmp/fakebin:$PATH" \
	GPU_CHECK_SKIP='ptxas-sm_90|gpu-tests.*|same-.*|bench-.*|frame-.*|ncu|ncu-megakernel|memcheck' GPU_CHECK_PTX_DIR="$tmp/ptx"
s=$tmp/skip/out/summary.txt
if [ "$rc" = 0 ]; then ok "skip: exit 0"; else bad "skip: exit $rc"; fi
want skip '^gpu-check: PASS after' "$s"
for st in ptxas-sm_90 gpu-tests gpu-tests-wavefront same-cornell-box bench-gpu frame-gpu frame-mixed-wavefront-procs ncu memcheck; do
	want skip "^SKIP  $st +not run: GPU_CHECK_SKIP\$" "$s"
done
# No caps by default: the registers steps have nothing to measure.
for st in mega-regs shade-regs; do
	want skip "^SKIP  $st +no trace binary \(see build\), or no caps to try" "$s"
done
want skip '^PASS  driver-jit ' "$s"
want skip '^PASS  ncu-stalls ' "$s"
want skip '^PASS  ptx-variants ' "$s"
wantnot skip '^  GPU tests' "$s"

# ---- header: the same warm state, a cuda.h that does not compile ----
mkdir -p "$tmp/badinclude" && echo '#error this cuda.h is broken' >"$tmp/badinclude/cuda.h"
run header GPU_CHECK_STUB=1 GPU_CHECK_STATE="$state" GOCACHE="$gocache" PATH="$tmp/fakebin:$PATH" GPU_CHECK_CUDA_INCLUDE="$tmp/badinclude"
s=$tmp/header/out/summary.txt
if [ "$rc" = 1 ]; then ok "header: exit 1"; else bad "header: exit $rc"; fi
outfiles header "$tmp/header/out"
want header '^FAIL  build-cu .*this cuda.h is broken' "$s"
want header '^SKIP  build +not run: build-cu failed' "$s"
want header '^SKIP  gpu-tests +no test binary' "$s"
wantnot header '^PASS  (build|build-tests|gpu-tests|same-|bench-|frame-)' "$s"
# build-cu gets there in seconds (the cgo of one package), not minutes.
cu=$(sed -n 's/^FAIL  build-cu *exit [0-9]* after \([0-9]*\)s.*/\1/p' "$s")
if [ -n "$cu" ] && [ "$cu" -le 30 ]; then ok "header: build-cu failed after ${cu}s"; else bad "header: build-cu took '${cu}' s"; fi

# ---- deadline: a step that would sleep 10 minutes, a 15 s deadline ----
run deadline GPU_CHECK_STUB=1 GPU_CHECK_STATE="$state" GOCACHE="$gocache" PATH="$tmp/fakebin:$PATH" \
	GPU_CHECK_DEADLINE=15 GPU_CHECK_FAKE_SLOW=600
s=$tmp/deadline/out/summary.txt
if [ "$rc" = 1 ]; then ok "deadline: exit 1"; else bad "deadline: exit $rc"; fi
if [ "$took" -le 20 ]; then ok "deadline: ended after ${took}s"; else bad "deadline: ended after ${took}s, deadline 15 s"; fi
outfiles deadline "$tmp/deadline/out"
want deadline '^gpu-check: FAIL \([1-9][0-9]* failed, [0-9]+ not run before the deadline\) after 1[0-9]s of a 15s deadline' "$s"
want deadline '^FAIL  fake-slow +stopped at the 15s deadline after [0-9]+s \(deadline\)' "$s"
want deadline '^SKIP  gpu-tests|^SKIP  same-cornell-box +not started' "$s"
wantnot deadline '^RUN ' "$s"

# ---- bare: no toolkit, no driver, no Go, no C compiler ----
mkdir -p "$tmp/barebin"
for t in bash sh env cat date mkdir rm mv cp ln ls tar gzip sed awk grep sort head tail tr cut wc basename dirname \
	readlink timeout sleep nproc uname find du stat mktemp tee xargs; do
	p=$(command -v "$t") && ln -s "$p" "$tmp/barebin/$t"
done
run bare -i PATH="$tmp/barebin" HOME="$tmp" GPU_CHECK_STATE="$tmp/state-bare" GPU_CHECK_CUDA_DIRS= GPU_CHECK_DRIVER_DIRS=/nonexistent
s=$tmp/bare/out/summary.txt
if [ "$rc" = 1 ]; then ok "bare: exit 1"; else bad "bare: exit $rc"; fi
if [ "$took" -le 10 ]; then ok "bare: ended after ${took}s"; else bad "bare: ended after ${took}s"; fi
outfiles bare "$tmp/bare/out"
want bare '^gpu-check: FAIL ' "$s"
want bare '^FAIL  find-cuda +no CUDA toolkit' "$s"
want bare '^FAIL  find-driver +no NVIDIA driver' "$s"
[ -s .gpu/go.tar.xz ] || want bare '^FAIL  find-go +no Go toolchain' "$s"
want bare '^FAIL  gpu-check +nothing to check on this machine' "$s"

# ---- pack: gpu-pack.sh in a worktree, and the check unpacking its .gpu ----
git worktree add -q --detach "$tmp/worktree" HEAD
# The working tree's uncommitted scripts, so that the test tests them.
cp scripts/gpu-pack.sh scripts/gpu-check.sh "$tmp/worktree/scripts/"
cp -r scripts/gpu-check "$tmp/worktree/scripts/"
mkdir -p "$tmp/fakego/bin"
realgo=$(command -v go)
printf '#!/bin/sh\n# a stand-in toolchain: the real one, wherever GOROOT points\nunset GOROOT\nexec %s "$@"\n' "$realgo" >"$tmp/fakego/bin/go"
chmod +x "$tmp/fakego/bin/go"
if (cd "$tmp/worktree" && GPU_PACK_GOROOT="$tmp/fakego" scripts/gpu-pack.sh) >"$tmp/pack.log" 2>&1; then
	ok "pack: gpu-pack.sh in a worktree"
else
	bad "pack: gpu-pack.sh in a worktree failed:" && sed 's/^/     | /' "$tmp/pack.log"
fi
for f in go.tar.xz go.version vendor.tar.gz; do
	if [ -s "$tmp/worktree/.gpu/$f" ]; then ok "pack: .gpu/$f"; else bad "pack: no .gpu/$f"; fi
done
if [ -z "$(git -C "$tmp/worktree" status --porcelain --ignored=no -- .gpu)" ]; then ok "pack: .gpu is ignored in the worktree"; else bad "pack: git status shows .gpu"; fi
want pack 'of the 64 MiB the device tool carries' "$tmp/pack.log"
# The check in that worktree, with the carried toolchain and modules and no
# go on the PATH, until just after the modules are checked.
nogo=$tmp/nogo
mkdir -p "$nogo"
for d in ${PATH//:/ }; do
	for f in "$d"/*; do
		n=${f##*/}
		[ "$n" = go ] || [ "$n" = gofmt ] || [ -e "$nogo/$n" ] || ln -s "$f" "$nogo/$n" 2>/dev/null
	done
done
# A state of its own (no toolchain of the other cases to replace), with the
# stub driver the other cases built from the same sources.
mkdir -p "$tmp/state-pack" && cp -r "$state/stub" "$tmp/state-pack/"
CHECK=$tmp/worktree/scripts/gpu-check.sh run pack GPU_CHECK_STUB=1 GPU_CHECK_STATE="$tmp/state-pack" GOCACHE="$gocache" \
	PATH="$tmp/fakebin:$nogo" GPU_CHECK_DEADLINE=30
s=$tmp/pack/out/summary.txt
want pack '^PASS  find-go +\.gpu/go\.tar\.xz' "$s"
want pack '^PASS  go-toolchain ' "$s"
want pack '^PASS  modules ' "$s"
want pack '^modules: \.gpu/vendor\.tar\.gz' "$s"
if [ ! -e "$tmp/worktree/vendor" ]; then ok "pack: the check removed the vendor folder it unpacked"; else bad "pack: vendor/ left behind"; fi

[ $fail = 0 ] && echo "gpu-check: all checks passed"
exit $fail
