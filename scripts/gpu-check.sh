#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted bash -c commands expand in the inner shell
# GPU check: everything about trace that needs an NVIDIA GPU, in one call on
# a lent GPU machine (../shared/GPU.md): one command of at most 10 minutes,
# 15 minutes of device time in all, at most 8 files back from $OUT, at most
# 64 MiB carried, no Go, no git and no network there. Prepare here:
#
#   scripts/gpu-pack.sh              # Go toolchain + compressed modules into .gpu/
#
# then run on the GPU machine, from the repository root, with .gpu carried
# (device tool: carry [".gpu"], timeout_s = the deadline + 60):
#
#   bash scripts/gpu-check.sh        # $OUT/summary.txt and $OUT/gpu-check.tar.gz
#
# What comes back whatever happens: $OUT/summary.txt (the verdict, the
# figures, PASS/FAIL/SKIP per step, the step running now) and
# $OUT/gpu-check.tar.gz (every step's log, the figures, the environment,
# images that differ), both rewritten after every step, so a call killed at
# its limit still returns everything done so far. Nothing else is written
# to $OUT (a call killed mid-rewrite can leave a .tmp file beside them;
# a check that ends removes any).
#
# Steps, the cheap and most valuable first; the Go build runs in the
# background while the first ones run:
#
#   find-cuda, find-driver, find-go   what the machine has (seconds)
#   nvidia-smi
#   ptxas-sm_90       the committed PTX assembled by the toolkit's ptxas:
#                     registers, stack, spills, warps/SM (scripts/ptx-report.sh)
#   driver-jit        the driver loads the PTX (scripts/gpu-check/driver-jit.c:
#                     needs only cc and libcuda.so.1) and reports the JIT's
#                     registers, stack and occupancy, and the JIT's time over
#                     the whole PTX (trace loads one kernel's entries only,
#                     kernels.SelectEntries: its first process JITs those)
#   go-toolchain, build-cu, build, build-tests, build-psnr   (background)
#                     gorgonia.org/cu alone first, so that a cuda.h problem
#                     shows in seconds, not after minutes of compiling
#   gpu-tests         the cuda-tagged tests, TRACE_GPU_REQUIRED=1, -short:
#                     every gallery scene on the device against the Go tracer
#                     (the device choosing its kernel, trace's default;
#                     TestGPUKernelAuto splits a batch between the two)
#   gpu-tests-wavefront    the same on the wavefront (TRACE_GPU_KERNEL)
#   same-SCENE        every gallery scene rendered by trace on the CPU, on
#                     the GPU alone and on both: the same PFM bytes
#   same-adaptive-megakernel, same-adaptive-wavefront   the same for the
#                     Cornell box and the Whitted scene under adaptive
#                     sampling (--noise-threshold 0.01, 64 samples at most),
#                     on each kernel
#   bench-gpu, bench-cpu   rays/s on the gallery and the 1.3M-triangle mesh,
#                     GPU and the same machine's cores
#   bench-gpu-wavefront    the GPU's on the wavefront (bench-gpu: megakernels)
#   bench-gpu-unsplit, bench-gpu-wavefront-unsplit   both again with
#                     TRACE_GPU_PARTS=1: a 256² frame's pixels each one
#                     thread's or slot's, as before batches too small to
#                     fill the device had their samples split into parts
#   frame-gpu, frame-mixed 1920x1080, 64 samples: GPU alone, GPU + every core,
#                     on the megakernels
#   frame-gpu-auto, frame-mixed-auto   the same as trace runs by default: the
#                     device times both kernels on its first large batch
#                     and keeps the faster; which, and the rates it saw
#   frame-mixed-spare      GPU + every core but one
#   frame-mixed-wavefront  GPU + every core on the wavefront, and again with
#   frame-mixed-wavefront-procs  GOMAXPROCS the cores (no processor for the
#                     GPU's goroutine): what that processor gains
#   frame-gpu-wavefront    the GPU-alone frame on the wavefront: same bytes,
#                     its time, and each entry's GPU time (TRACE_GPU_TIMES)
#   frame-gpu-one-lane     the same with TRACE_GPU_LANES=1
#   frame-scenes      materials, mesh, pbr and whitted at 1920x1080, 16
#                     samples, GPU alone, on the megakernels, on the
#                     wavefront and on the kernel the device chooses
#   ncu               a launch each of wf_shade, wf_intersect and wf_occluded
#                     under Nsight Compute, if it is there
#   ncu-megakernel    a launch of trace_pixels_path, the same way
#   ncu-stalls        the same launch's lanes active per instruction, the
#                     cycles between a warp's instructions and what they
#                     wait for (its stall reasons), and its local memory
#                     (stack) traffic
#   ncu-source        with variants of the PTX carried (scripts/ptx-variants.sh,
#                     .gpu/ptx): a launch each of trace_pixels_path and
#                     wf_shade on the lineinfo variant under ncu's source
#                     counters, exported as CSV (each instruction, its
#                     source line, its counts and stalls) into the archive,
#                     summed up by scripts/gpu-check/ncu_source.py: lanes
#                     active, the fetch's share of the stalls, the code that
#                     ran, the hottest files and source lines
#   ptx-variants      the mega-regs frame of cornell-box, whitted and pbr on
#                     the megakernels of the embedded kernel and of each
#                     variant (TRACE_GPU_PTX), and cornell-box's on the
#                     wavefront of the embedded kernel and of each variant
#                     named wf-*: the same bytes, and its time
#   memcheck          the GPU tests' Cornell box under compute-sanitizer's
#                     memcheck, if it is there: no access outside device memory
#   shade-regs        wf_shade's registers capped (TRACE_GPU_REGS) at each of
#                     GPU_CHECK_SHADE_REGS (default none: measured, no gain):
#                     the same bytes, and its time
#                     against the uncapped kernel's (occupancy against spills)
#   mega-regs         trace_pixels_path's, at each of GPU_CHECK_MEGA_REGS
#                     (default none, likewise)
#   gpu-tests-full    the tests at the scenes' own sizes
#
# The failure modes this is built against: an overall deadline (every step's
# limit is cut to what is left of it, a step that cannot start is SKIPped,
# the summary says so); CUDA found from nvcc or ptxas on the PATH, CUDA_HOME,
# CUDA_PATH, /usr/local/cuda*, /opt/cuda; linking against the toolkit's stub
# libcuda.so or, without one, the driver's libcuda.so.1 (through a
# libcuda.so link in the run's folder); binaries built into a fresh folder
# per call, so a failed build never leaves an old binary to be tested;
# -buildvcs=false (no git there); CUDA_CACHE_PATH kept between calls on a
# warm machine, so each GPU process after the first skips the JIT; the
# vendored modules unpacked from .gpu/vendor.tar.gz into a fresh vendor/.
# The project's fake cuda.h (kernels/cudastub/fake) is never used for a real
# build: it lacks the real header's _v2 remapping.
#
# Settings (environment):
#   OUT                    where the two files go (default ./gpu-check-out)
#   GPU_CHECK_DEADLINE     seconds for the whole check (default 300)
#   GPU_CHECK_STATE        kept between calls on a warm machine: the unpacked
#                          Go toolchain, GOCACHE, the JIT cache
#                          (default ${TMPDIR:-/tmp}/trace-gpu-check)
#   GPU_CHECK_CUDA_DIRS    toolkit folders to try after the PATH, CUDA_HOME and
#                          CUDA_PATH (default /usr/local/cuda /usr/local/cuda-* /opt/cuda)
#   GPU_CHECK_CUDA_INCLUDE the folder holding cuda.h (default: the toolkit's)
#   GPU_CHECK_DRIVER_DIRS  the only folders searched for libcuda.so.1 (default:
#                          LD_LIBRARY_PATH, ldconfig's cache, /usr/local/nvidia/lib64
#                          and the usual library folders)
#   GPU_CHECK_STUB=1       the "GPU" is the project's stub driver
#                          (kernels/cudastub/fake: its cuda.h, and libcuda.c built
#                          here, with one emulated device that runs trace.cu as C),
#                          at small sizes: how scripts/gpu-check-test.sh runs the
#                          whole check without a GPU
#   GPU_CHECK_PTX_DIR      the PTX variants (default .gpu/ptx)
#   GPU_CHECK_SKIP=REGEX   the steps whose whole name it matches are not run
#                          (SKIP, not a failure): a second call that measures
#                          only what changed, e.g. 'ptxas-sm_90|driver-jit|
#                          bench-cpu|gpu-tests-full' (a build step skipped
#                          skips every step that needs its binary)
#   GPU_CHECK_FAKE_SLOW=N  a step that sleeps N seconds after driver-jit (tests)
#   GPU_CHECK_GALLERY_ARGS, GPU_CHECK_FRAME_ARGS, GPU_CHECK_SCENE_FRAME_ARGS,
#   GPU_CHECK_BENCH_GPU,
#   GPU_CHECK_BENCH_CPU, GPU_CHECK_BENCHTIME, GPU_CHECK_REGS_ARGS,
#   GPU_CHECK_SHADE_REGS, GPU_CHECK_MEGA_REGS   sizes, benchmark selections,
#                          wf_shade's and trace_pixels_path's caps
#
# Exit status 0 when every step passed or was skipped for a reason that is
# not a failure (no ncu, no compute-sanitizer); 1 otherwise, also when the
# deadline left steps unrun.
set -u

cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-check-out}
DEADLINE=${GPU_CHECK_DEADLINE:-300}
STATE=${GPU_CHECK_STATE:-${TMPDIR:-/tmp}/trace-gpu-check}
STUB=${GPU_CHECK_STUB:-0}
export HOME=${HOME:-/tmp}
printf -v START '%(%s)T' -1
RESERVE=4  # seconds kept back at the deadline for the last summary and archive
MIN_STEP=3 # a step that would get less is not started

elapsed() {
	local now
	printf -v now '%(%s)T' -1
	echo $((now - START))
}

case $DEADLINE in
'' | *[!0-9]*)
	echo "gpu-check: GPU_CHECK_DEADLINE=$DEADLINE is not a whole number of seconds" >&2
	exit 2
	;;
esac
mkdir -p "$OUT" "$STATE" || exit 2
WORK=$(mktemp -d "$STATE/run.XXXXXX") || exit 2
REPORT=$WORK/report
BIN=$WORK/bin
mkdir -p "$REPORT/log" "$REPORT/img" "$BIN" "$WORK/running" || exit 2
: >"$WORK/results" && : >"$REPORT/figures.txt" && : >"$REPORT/env.txt" || exit 2
# A warm machine keeps this folder: drop earlier runs' binaries and logs.
for old in "$STATE"/run.*; do
	[ "$old" = "$WORK" ] || rm -rf "$old"
done
rm -f "$OUT/summary.txt" "$OUT/gpu-check.tar.gz" "$OUT"/.*.tmp

# ---- results, the summary and the archive ----------------------------------
# Every step's outcome is a line of $WORK/results, written by whichever
# process ran it (the background build too); a step in progress is a file
# in $WORK/running. summary and archive rebuild the two files of $OUT from
# them, each through a temporary name and a rename, so that $OUT never holds
# half a file.

result() { # result PASS|FAIL|SKIP NAME DETAIL
	printf '%-4s  %-22s %s\n' "$1" "$2" "$3" >>"$WORK/results"
	echo "== $1 $2 $3" >&2
}

figure() { # figure LINE: a headline figure for the summary
	printf '%s\n' "$*" >>"$REPORT/figures.txt"
}

env_note() {
	printf '%s\n' "$*" >>"$REPORT/env.txt"
}

summary() {
	local verdict=${1:-RUNNING} tmp="$OUT/.summary.$BASHPID.tmp" f name since limit
	{
		printf 'gpu-check: %s after %ss of a %ss deadline, %s%s\n' "$verdict" "$(elapsed)" "$DEADLINE" \
			"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$([ "$STUB" = 1 ] && echo ', stub driver (no GPU)')"
		echo "the logs: gpu-check.tar.gz (report/log/STEP.log)"
		echo
		cat "$REPORT/env.txt"
		echo
		echo "figures:"
		sed 's/^/  /' "$REPORT/figures.txt"
		echo
		echo "steps:"
		cat "$WORK/results"
		for f in "$WORK"/running/*; do
			[ -e "$f" ] || continue
			read -r since limit <"$f"
			name=${f##*/}
			printf '%-4s  %-22s started at %ss, limit %ss\n' RUN "$name" "$since" "$limit"
		done
	} >"$tmp" 2>/dev/null
	cp "$tmp" "$REPORT/.summary.$BASHPID" 2>/dev/null && mv -f "$REPORT/.summary.$BASHPID" "$REPORT/summary.txt"
	mv -f "$tmp" "$OUT/summary.txt"
}

ARCHIVE_MAX=$((15 << 20)) # the device tool returns files of up to 16 MiB
archive() {
	local tmp="$OUT/.gpu-check.$BASHPID.tmp"
	tar -czf "$tmp" -C "$WORK" report 2>/dev/null
	if [ "$(stat -c %s "$tmp" 2>/dev/null || echo 0)" -gt "$ARCHIVE_MAX" ]; then
		tar -czf "$tmp" -C "$WORK" --exclude=report/img report 2>/dev/null
	fi
	mv -f "$tmp" "$OUT/gpu-check.tar.gz"
}

publish() {
	summary
	archive
}

# log_tail LOG: the line of a failed step's log that says why, for the
# summary: its first error, or else its last line.
log_tail() {
	local l
	l=$(grep -v '^== ' "$1" 2>/dev/null | grep -m 1 -E 'error|Error|ERROR|FAIL|fatal|cannot|undefined|refused|panic' ||
		grep -v '^[[:space:]]*$' "$1" 2>/dev/null | grep -v '^== ' | tail -n 1)
	printf '%s' "$l" | tr -s ' \t' ' ' | cut -c1-200
}

# step NAME LIMIT CMD...: runs CMD with its output in log/NAME.log, under
# LIMIT seconds or what is left before the deadline, whichever is less.
# Returns CMD's status, or 125 when the step was not started.
step() {
	local name=$1 limit=$2 left start rc took cut=0 log
	shift 2
	log=$REPORT/log/$name.log
	if [ -n "${GPU_CHECK_SKIP:-}" ] && [[ $name =~ ^($GPU_CHECK_SKIP)$ ]]; then
		echo "== $name not run: GPU_CHECK_SKIP" >"$log"
		result SKIP "$name" "not run: GPU_CHECK_SKIP"
		publish
		return 125
	fi
	left=$((DEADLINE - $(elapsed) - RESERVE))
	if [ "$left" -lt "$MIN_STEP" ]; then
		result SKIP "$name" "not started: ${left}s left before the ${DEADLINE}s deadline (deadline)"
		publish
		return 125
	fi
	if [ "$left" -lt "$limit" ]; then
		limit=$left
		cut=1
	fi
	start=$(elapsed)
	echo "$start $limit" >"$WORK/running/$name"
	publish
	printf '== %s at %ss, limit %ss: %s\n' "$name" "$start" "$limit" "$*" >"$log"
	timeout --kill-after=3 "$limit" "$@" >>"$log" 2>&1 </dev/null
	rc=$?
	rm -f "$WORK/running/$name"
	took=$(($(elapsed) - start))
	if [ $rc -eq 0 ]; then
		result PASS "$name" "${took}s"
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		if [ $cut = 1 ]; then
			echo "== stopped at the ${DEADLINE}s deadline" >>"$log"
			result FAIL "$name" "stopped at the ${DEADLINE}s deadline after ${took}s (deadline)"
		else
			echo "== timed out after ${limit}s" >>"$log"
			result FAIL "$name" "timed out after ${limit}s"
		fi
	else
		result FAIL "$name" "exit $rc after ${took}s: $(log_tail "$log")"
	fi
	publish
	return $rc
}

skip() { # skip NAME REASON
	result SKIP "$1" "$2"
	publish
}

note_fail() { # note_fail NAME DETAIL: a failure found without running a command
	result FAIL "$1" "$2"
	publish
}

# ---- sizes: the real GPU, or the stub driver's emulated one -----------------
if [ "$STUB" = 1 ]; then
	: "${GPU_CHECK_GALLERY_ARGS:=--width 48 --height 40 --samples 4}"
	: "${GPU_CHECK_FRAME_ARGS:=--width 64 --height 36 --samples 2}"
	: "${GPU_CHECK_SCENE_FRAME_ARGS:=--width 48 --height 27 --samples 2}"
	: "${GPU_CHECK_BENCH_GPU:=^BenchmarkGPUGallery\$/^cornell-box\$}"
	: "${GPU_CHECK_BENCH_CPU:=}" # the same code as bench-gpu, on the CPU: not needed here
	: "${GPU_CHECK_BENCHTIME:=1x}"
	: "${GPU_CHECK_REGS_ARGS:=--width 32 --height 24 --samples 2}"
	export TRACE_CUDASTUB_DEVICES=1
else
	: "${GPU_CHECK_GALLERY_ARGS:=}"
	: "${GPU_CHECK_FRAME_ARGS:=--width 1920 --height 1080 --samples 64}"
	: "${GPU_CHECK_SCENE_FRAME_ARGS:=--width 1920 --height 1080 --samples 16}"
	: "${GPU_CHECK_BENCH_GPU:=^BenchmarkGPU}"
	: "${GPU_CHECK_BENCH_CPU:=^BenchmarkCPU}"
	: "${GPU_CHECK_BENCHTIME:=3x}"
	: "${GPU_CHECK_REGS_ARGS:=--width 960 --height 540 --samples 16}"
fi
# make ptx-report REGS=wf_shade=N: 128 registers give 16 warps/SM, 80 give
# 24, 64 give 32, for 72 to 84 bytes of spills (167 and 12 uncapped).
# The caps were measured on an H200 (2026-12-04): wf_shade slower at 128
# and 64 registers, trace_pixels_path within 1 % at 128 and 96 once its
# queries ran in phases. So none by default; set them to measure again.
: "${GPU_CHECK_SHADE_REGS:=}"
: "${GPU_CHECK_MEGA_REGS:=}"
NPROC=$(nproc 2>/dev/null || echo 1)
BLOCK=$(sed -n 's/^[[:space:]]*cudaBlockDim[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' kernels/cuda.go | head -n 1)
ENTRIES=$(sed -n 's/^\.visible \.entry \([A-Za-z_0-9]*\).*/\1/p' kernels/trace.ptx | tr '\n' ' ')
env_note "machine: $(uname -srm 2>/dev/null), $NPROC cores; block size $BLOCK; PTX entries: $ENTRIES"
publish

# ---- find-cuda: the toolkit's headers, ptxas, the stub libcuda --------------
CUDA_ROOT="" CUDA_INCLUDE="" CUDA_STUBS="" PTXAS="" NVCC="" CC_BIN=""
find_cuda() {
	local cands=() d root inc f
	NVCC=$(command -v nvcc 2>/dev/null)
	PTXAS=$(command -v ptxas 2>/dev/null)
	[ -n "$NVCC" ] && cands+=("$(dirname "$(dirname "$(readlink -f "$NVCC")")")")
	[ -n "$PTXAS" ] && cands+=("$(dirname "$(dirname "$(readlink -f "$PTXAS")")")")
	[ -n "${CUDA_HOME:-}" ] && cands+=("$CUDA_HOME")
	[ -n "${CUDA_PATH:-}" ] && cands+=("$CUDA_PATH")
	# /usr/local/cuda first, then the versioned folders newest first.
	for d in ${GPU_CHECK_CUDA_DIRS-/usr/local/cuda $(printf '%s\n' /usr/local/cuda-* | sort -rV) /opt/cuda}; do
		[ -d "$d" ] && cands+=("$d")
	done
	for root in "${cands[@]}"; do
		for inc in "$root/include" "$root"/targets/*/include; do
			if [ -z "$CUDA_INCLUDE" ] && [ -f "$inc/cuda.h" ]; then
				CUDA_INCLUDE=$inc
				CUDA_ROOT=$root
			fi
		done
		[ -z "$PTXAS" ] && [ -x "$root/bin/ptxas" ] && PTXAS=$root/bin/ptxas
		[ -z "$NVCC" ] && [ -x "$root/bin/nvcc" ] && NVCC=$root/bin/nvcc
	done
	if [ -n "$CUDA_ROOT" ]; then
		for f in "$CUDA_ROOT/lib64/stubs/libcuda.so" "$CUDA_ROOT"/targets/*/lib/stubs/libcuda.so "$CUDA_ROOT/lib/stubs/libcuda.so"; do
			if [ -z "$CUDA_STUBS" ] && [ -f "$f" ]; then
				CUDA_STUBS=$(dirname "$f")
			fi
		done
	fi
	echo "candidates: ${cands[*]:-none}"
	echo "nvcc: ${NVCC:-none}"
	[ -n "$NVCC" ] && "$NVCC" --version 2>&1 | tail -n 2
	echo "ptxas: ${PTXAS:-none}"
	echo "toolkit: ${CUDA_ROOT:-none}, cuda.h in ${CUDA_INCLUDE:-none}, stub libcuda.so in ${CUDA_STUBS:-none}"
}
CC_BIN=$(command -v cc 2>/dev/null || command -v gcc 2>/dev/null || command -v clang 2>/dev/null)
find_cuda >"$REPORT/log/find-cuda.log" 2>&1
if [ "$STUB" = 1 ]; then
	CUDA_INCLUDE=${GPU_CHECK_CUDA_INCLUDE:-$ROOT/kernels/cudastub/fake}
	CUDA_STUBS=""
	echo "stub mode: cuda.h from $CUDA_INCLUDE" >>"$REPORT/log/find-cuda.log"
elif [ -n "${GPU_CHECK_CUDA_INCLUDE:-}" ]; then
	CUDA_INCLUDE=$GPU_CHECK_CUDA_INCLUDE
fi
HAVE_HEADER=0
if [ -n "$CUDA_INCLUDE" ] && [ -f "$CUDA_INCLUDE/cuda.h" ]; then
	HAVE_HEADER=1
	cuda_version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$CUDA_INCLUDE/cuda.h" | head -n 1)
	result PASS find-cuda "cuda.h $CUDA_INCLUDE (CUDA_VERSION ${cuda_version:-?}); ptxas ${PTXAS:-none}; stub libcuda.so ${CUDA_STUBS:-none}"
else
	dirs=${GPU_CHECK_CUDA_DIRS-/usr/local/cuda*, /opt/cuda}
	result FAIL find-cuda "no CUDA toolkit: no cuda.h from nvcc or ptxas on the PATH, CUDA_HOME, CUDA_PATH, ${dirs:-(GPU_CHECK_CUDA_DIRS empty)}; the cuda build cannot be made (ptxas: ${PTXAS:-none})"
fi
env_note "toolkit: ${CUDA_ROOT:-none}; cuda.h: ${CUDA_INCLUDE:-none}; ptxas: ${PTXAS:-none}; nvcc: ${NVCC:-none}; cc: ${CC_BIN:-none}"

# ---- find-driver: libcuda.so.1, and a libcuda.so to link against ------------
LIBCUDA=""
# build_stub: the stub driver, built as the real one is installed
# (libcuda.so.1 alone, no unversioned libcuda.so beside it), into a fixed
# folder kept while its sources are unchanged, so that a second call finds
# its builds in GOCACHE.
build_stub() {
	local stamp
	stamp=$(cat kernels/cudastub/fake/* kernels/cudastub/compat/* kernels/*.h kernels/trace.cu | cksum)
	if [ -s "$STATE/stub/libcuda.so.1" ] && [ "$(cat "$STATE/stub/stamp" 2>/dev/null)" = "$stamp" ]; then
		echo "the stub driver of an earlier call, from the same sources"
		return 0
	fi
	rm -rf "$STATE/stub" && mkdir -p "$STATE/stub" &&
		"$CC_BIN" -shared -fPIC -std=c11 -O2 -pthread -Wno-unused-parameter \
			-I"$ROOT/kernels/cudastub/compat" -I"$ROOT/kernels/cudastub/fake" -Wl,-soname,libcuda.so.1 \
			-o "$STATE/stub/libcuda.so.1" "$ROOT/kernels/cudastub/fake/libcuda.c" -lm &&
		echo "$stamp" >"$STATE/stub/stamp"
}
if [ "$STUB" = 1 ]; then
	export -f build_stub
	export STATE CC_BIN ROOT
	if [ -n "$CC_BIN" ] && step stub-driver 180 bash -c build_stub; then
		GPU_CHECK_DRIVER_DIRS=$STATE/stub
	else
		GPU_CHECK_DRIVER_DIRS=/nonexistent
	fi
fi
find_driver() {
	local dirs=() d
	if [ -n "${GPU_CHECK_DRIVER_DIRS+set}" ]; then
		read -r -a dirs <<<"$GPU_CHECK_DRIVER_DIRS"
	else
		IFS=: read -r -a dirs <<<"${LD_LIBRARY_PATH:-}"
		local ldc
		ldc=$(command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)
		if [ -x "$ldc" ]; then
			while read -r d; do dirs+=("$(dirname "$d")"); done < <("$ldc" -p 2>/dev/null | sed -n 's/.*libcuda\.so\.1 .*=> \(.*\)/\1/p')
		fi
		dirs+=(/usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib/x86_64-linux-gnu /lib64 /usr/lib/wsl/lib)
	fi
	for d in "${dirs[@]}"; do
		case $d in '' | */stubs | */stubs/) continue ;; esac
		if [ -e "$d/libcuda.so.1" ]; then
			LIBCUDA=$d/libcuda.so.1
			return
		fi
	done
}
find_driver
HAVE_DRIVER=0 LINKDIR=""
if [ -n "$LIBCUDA" ]; then
	HAVE_DRIVER=1
	LD_LIBRARY_PATH="$(dirname "$LIBCUDA")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export LD_LIBRARY_PATH
	if [ -n "$CUDA_STUBS" ]; then
		LINKDIR=$CUDA_STUBS
		how="the toolkit's stub $CUDA_STUBS/libcuda.so"
	else
		# A fixed folder, made afresh, so that a second call's cgo flags
		# are the first's and GOCACHE still holds the build.
		rm -rf "$STATE/link" && mkdir -p "$STATE/link" && ln -s "$(readlink -f "$LIBCUDA")" "$STATE/link/libcuda.so"
		LINKDIR=$STATE/link
		how="the driver's $LIBCUDA (the toolkit has no stub libcuda.so)"
	fi
	result PASS find-driver "$LIBCUDA; linking against $how"
	env_note "driver: $LIBCUDA; link: $how"
elif [ -n "$CUDA_STUBS" ]; then
	result FAIL find-driver "no NVIDIA driver: no libcuda.so.1 (the toolkit's stub is for linking only, never for running)"
else
	result FAIL find-driver "no NVIDIA driver: no libcuda.so.1 in ${GPU_CHECK_DRIVER_DIRS-LD_LIBRARY_PATH, ldconfig -p, /usr/local/nvidia/lib64, /usr/lib*}"
fi

# ---- find-go: the carried toolchain, or one on the PATH ---------------------
GO_TARBALL="" HAVE_GO=0
if [ -s .gpu/go.tar.xz ]; then
	GO_TARBALL=.gpu/go.tar.xz
	HAVE_GO=1
	result PASS find-go ".gpu/go.tar.xz ($(cat .gpu/go.version 2>/dev/null || echo 'version unknown'))"
elif command -v go >/dev/null 2>&1; then
	HAVE_GO=1
	result PASS find-go "$(command -v go) ($(go env GOVERSION 2>/dev/null))"
else
	result FAIL find-go "no Go toolchain: no .gpu/go.tar.xz and no go on the PATH; run scripts/gpu-pack.sh here and carry .gpu"
fi
if [ -s .gpu/vendor.tar.gz ]; then
	env_note "modules: .gpu/vendor.tar.gz"
elif [ $HAVE_GO = 1 ]; then
	env_note "modules: the module cache (no .gpu/vendor.tar.gz), GOPROXY=off"
fi
publish

# A machine with neither driver nor toolkit has nothing to check: say so at
# once (the summary lists what is missing) instead of building for minutes.
if [ $HAVE_DRIVER = 0 ] && [ $HAVE_HEADER = 0 ] && [ -z "$PTXAS" ]; then
	result FAIL gpu-check "nothing to check on this machine: no NVIDIA driver and no CUDA toolkit"
	summary FAIL
	archive
	exit 1
fi

# ---- the Go side: environment, then the build in the background -------------
export GOTOOLCHAIN=local GOPROXY=off GOWORK=off GOFLAGS="-buildvcs=false" CGO_ENABLED=1
export GOCACHE=${GOCACHE:-$STATE/gocache}
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-$STATE/cuda-cache} CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}
export CGO_CFLAGS="-O2 -g -I$ROOT/kernels/cudastub/compat -I${CUDA_INCLUDE:-/nonexistent}"
export CGO_LDFLAGS="-L${LINKDIR:-/nonexistent}"
mkdir -p "$CUDA_CACHE_PATH"
env_note "CUDA_CACHE_PATH=$CUDA_CACHE_PATH GOCACHE=$GOCACHE"

go_toolchain() {
	local gotc=$STATE/go stamp
	stamp=$( (cat .gpu/go.version 2>/dev/null; stat -c %s "$GO_TARBALL") | tr '\n' ' ')
	if [ ! -x "$gotc/go/bin/go" ] || [ "$(cat "$gotc/stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$gotc" && mkdir -p "$gotc" || return 1
		if command -v xz >/dev/null 2>&1; then
			tar -C "$gotc" -xJf "$GO_TARBALL" || return 1
		else
			python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$GO_TARBALL" "$gotc" || return 1
		fi
		echo "$stamp" >"$gotc/stamp"
	fi
	"$gotc/go/bin/go" version
}

modules() {
	rm -rf vendor
	if [ -s .gpu/vendor.tar.gz ]; then
		tar -xzf .gpu/vendor.tar.gz || return 1
		[ -f vendor/modules.txt ] || { echo "no vendor/modules.txt in .gpu/vendor.tar.gz"; return 1; }
	fi
	go env GOVERSION GOROOT GOFLAGS GOCACHE CGO_CFLAGS CGO_LDFLAGS
	go list -deps -tags cuda ./cmd/trace ./kernels >/dev/null && echo "the modules match go.mod"
}

# build_go: the background chain. Each build writes into the fresh $BIN and
# the next step runs only if the file is there.
build_go() {
	local failed=""
	if [ -n "$GO_TARBALL" ]; then
		step go-toolchain 90 bash -c go_toolchain || failed=go-toolchain
		export GOROOT=$STATE/go/go PATH=$STATE/go/go/bin:$PATH
	fi
	if [ -s .gpu/vendor.tar.gz ]; then
		export GOFLAGS="$GOFLAGS -mod=vendor"
	fi
	chain() { # chain NAME LIMIT CMD...: step, unless an earlier one failed
		if [ -n "$failed" ]; then
			skip "$1" "not run: $failed failed"
			return
		fi
		step "$@" || failed=$1
	}
	chain modules 60 bash -c modules
	chain build-cu 120 go build -tags cuda gorgonia.org/cu
	chain build 300 go build -tags cuda -o "$BIN/trace" ./cmd/trace
	local built=$failed # the two last need only the build
	chain build-tests 240 go test -tags cuda -c -o "$BIN/kernels.test" ./kernels/
	failed=$built
	chain build-psnr 60 go build -o "$BIN/psnr" ./scripts/gpu-check/psnr
}
export -f go_toolchain modules
CHAIN=""
if [ $HAVE_GO = 1 ] && [ $HAVE_HEADER = 1 ] && [ $HAVE_DRIVER = 1 ]; then
	export GO_TARBALL STATE
	build_go &
	CHAIN=$!
else
	skip build "needs Go, cuda.h and a driver to link against (see find-go, find-cuda, find-driver)"
fi

# ---- the machine and the PTX: no Go needed ----------------------------------
if command -v nvidia-smi >/dev/null 2>&1; then
	step nvidia-smi 30 bash -c 'nvidia-smi && nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv'
	gpu=$(sed -n '/^name, compute_cap/{n;p}' "$REPORT/log/nvidia-smi.log" | head -n 1)
	[ -n "$gpu" ] && env_note "GPU: $gpu"
elif [ "$STUB" = 1 ]; then
	skip nvidia-smi "stub driver: no nvidia-smi"
else
	note_fail nvidia-smi "no nvidia-smi on the PATH"
fi

if [ -n "$PTXAS" ]; then
	step ptxas-sm_90 120 scripts/ptx-report.sh --ptxas "$PTXAS" --block "$BLOCK" kernels/trace.ptx sm_90
	v=$(sed -n 's/^ptxas \(CUDA [^:]*\):.*/\1/p' "$REPORT/log/ptxas-sm_90.log")
	grep '^| [a-z_]* | sm_90' "$REPORT/log/ptxas-sm_90.log" | sed 's/ *| */|/g' | while IFS='|' read -r _ e a r s st sl w _; do
		figure "ptxas ($v) $a: $e $r registers, stack $s, spills $st stored/$sl loaded, warps/SM $w"
	done
else
	note_fail ptxas-sm_90 "no ptxas (not on the PATH, not in the toolkit)"
fi

if [ $HAVE_DRIVER = 1 ] && [ -n "$CC_BIN" ]; then
	if step driver-jit-build 60 "$CC_BIN" -std=c11 -O2 -Wall -o "$BIN/driver-jit" scripts/gpu-check/driver-jit.c -ldl; then
		# shellcheck disable=SC2086 # ENTRIES is a list
		step driver-jit 180 "$BIN/driver-jit" "$LIBCUDA" kernels/trace.ptx "$BLOCK" $ENTRIES
		sed -n 's/^\(entry .*\)/driver JIT: \1/p; s/^\(loaded .* in [0-9.]* s\).*/driver JIT: \1/p' "$REPORT/log/driver-jit.log" |
			while read -r l; do figure "$l"; done
	fi
elif [ $HAVE_DRIVER = 1 ]; then
	note_fail driver-jit "no C compiler (cc, gcc or clang) for scripts/gpu-check/driver-jit.c"
else
	skip driver-jit "no driver"
fi

if [ -n "${GPU_CHECK_FAKE_SLOW:-}" ]; then
	step fake-slow "$GPU_CHECK_FAKE_SLOW" bash -c 'sleep "$1" & wait' _ "$GPU_CHECK_FAKE_SLOW"
fi

if [ -n "$CHAIN" ]; then
	wait "$CHAIN"
fi
TRACE=$BIN/trace TESTBIN=$BIN/kernels.test PSNR=$BIN/psnr
HAVE_TRACE=0 HAVE_TESTBIN=0
[ -x "$TRACE" ] && HAVE_TRACE=1
[ -x "$TESTBIN" ] && HAVE_TESTBIN=1

# ---- the GPU tests: the device against the Go tracer, bit for bit -----------
gpu_tests() { # gpu_tests [-test.short]
	cd kernels && TRACE_GPU_REQUIRED=1 exec "$TESTBIN" -test.run '^TestGPU' -test.v -test.count=1 "$@"
}
export -f gpu_tests
export TESTBIN TRACE PSNR
if [ $HAVE_TESTBIN = 1 ]; then
	step gpu-tests 120 bash -c 'gpu_tests -test.short'
	if [ $? != 125 ]; then # 125: not started (the deadline, GPU_CHECK_SKIP)
		n=$(grep -c -- '^    --- PASS: TestGPUGallery/' "$REPORT/log/gpu-tests.log")
		figure "GPU tests (-short): $(grep -c '^--- PASS' "$REPORT/log/gpu-tests.log") passed, $(grep -c -- '--- FAIL' "$REPORT/log/gpu-tests.log") failed; gallery scenes bit-identical to the Go tracer: $n"
	fi
	# The same with scenes on the wavefront instead of the megakernels,
	# the default (kernels.KernelEnv, kernels.DefaultKernel).
	step gpu-tests-wavefront 120 bash -c 'TRACE_GPU_KERNEL=wavefront gpu_tests -test.short'
else
	skip gpu-tests "no test binary (see build-tests)"
fi

# ---- the gallery: trace on the CPU, the GPU and both, PFM bytes compared ----
# same_scene SCENE: renders SCENE three ways, compares the GPU's and the
# mixed frames with the CPU's; identical bytes pass, anything else fails
# with the PSNR and the first differing pixel (and the PFMs are kept).
same_scene() {
	local scene=$1 n img=$REPORT/img rc=0 v size
	n=$(basename "$scene" .json)
	read -r -a size <<<"$GPU_CHECK_GALLERY_ARGS"
	"$TRACE" render "$scene" "${size[@]}" -o "$WORK/$n.cpu.pfm" --threads "$NPROC" || return 1
	"$TRACE" render "$scene" "${size[@]}" -o "$WORK/$n.gpu.pfm" --gpus 1 --threads 0 || return 1
	"$TRACE" render "$scene" "${size[@]}" -o "$WORK/$n.mixed.pfm" --gpus 1 --threads "$NPROC" --tile 16 || return 1
	for v in gpu mixed; do
		if cmp -s "$WORK/$n.cpu.pfm" "$WORK/$n.$v.pfm"; then
			echo "$v: the same bytes as the CPU's"
		else
			echo "$v: DIFFERS from the CPU's: $("$PSNR" "$WORK/$n.cpu.pfm" "$WORK/$n.$v.pfm")"
			cp "$WORK/$n.cpu.pfm" "$WORK/$n.$v.pfm" "$img/" 2>/dev/null
			rc=1
		fi
	done
	rm -f "$WORK/$n".*.pfm
	return $rc
}
export -f same_scene
export WORK REPORT NPROC GPU_CHECK_GALLERY_ARGS
if [ $HAVE_TRACE = 1 ] && [ -x "$PSNR" ]; then
	for scene in scenes/examples/*.json; do
		n=$(basename "$scene" .json)
		step "same-$n" 90 bash -c 'same_scene "$1"' _ "$scene"
		r=$(grep -h 'rays/s' "$REPORT/log/same-$n.log" | sed 's/^[^:]*: //' | tr '\n' ';' | sed 's/;$//; s/;/; /g')
		[ -n "$r" ] && figure "$n (cpu; gpu; gpu+cpu): $r"
	done
	# Adaptive sampling (render.noise_threshold): the Cornell box and the
	# Whitted scene at Cycles' default threshold, on each kernel, the
	# same bytes as the CPU's (each pixel takes the samples it takes on
	# the CPU).
	for k in megakernel wavefront; do
		step "same-adaptive-$k" 120 bash -c 'for scene in scenes/examples/cornell-box.json scenes/examples/whitted.json; do
			GPU_CHECK_GALLERY_ARGS="$GPU_CHECK_GALLERY_ARGS --samples 64 --noise-threshold 0.01" TRACE_GPU_KERNEL=$1 \
				same_scene "$scene" || exit 1
		done' _ "$k"
	done
else
	skip same-gallery "no trace binary or psnr tool (see build, build-psnr)"
fi

# ---- speed: rays/s, GPU and CPU, then a 1080p frame ------------------------
bench() { # bench REGEX (on the megakernels unless TRACE_GPU_KERNEL says)
	cd kernels && TRACE_GPU_KERNEL=${TRACE_GPU_KERNEL:-megakernel} TRACE_GPU_REQUIRED=1 exec "$TESTBIN" -test.run '^$' -test.bench "$1" \
		-test.benchtime "$GPU_CHECK_BENCHTIME" -test.timeout 0
}
export -f bench
export GPU_CHECK_BENCHTIME
if [ $HAVE_TESTBIN = 1 ]; then
	for which in gpu cpu; do
		re=$GPU_CHECK_BENCH_GPU
		[ $which = cpu ] && re=$GPU_CHECK_BENCH_CPU
		if [ -z "$re" ]; then
			skip "bench-$which" "no benchmarks selected"
			continue
		fi
		step "bench-$which" 150 bash -c 'bench "$1"' _ "$re"
		grep 'rays/s' "$REPORT/log/bench-$which.log" | awk '{for (i = 1; i < NF; i++) if ($(i+1) == "rays/s") r = $i; printf "%s %.4g rays/s\n", $1, r}' |
			while read -r l; do figure "$l"; done
	done
	if [ -n "$GPU_CHECK_BENCH_GPU" ]; then
		# The GPU's figures again on the wavefront, against the megakernels'.
		step bench-gpu-wavefront 150 bash -c 'TRACE_GPU_KERNEL=wavefront bench "$1"' _ "$GPU_CHECK_BENCH_GPU"
		grep 'rays/s' "$REPORT/log/bench-gpu-wavefront.log" | awk '{for (i = 1; i < NF; i++) if ($(i+1) == "rays/s") r = $i; printf "wavefront %s %.4g rays/s\n", $1, r}' |
			while read -r l; do figure "$l"; done
		# Both again with every batch unsplit (TRACE_GPU_PARTS=1): what
		# splitting a small frame's samples into parts gains.
		for kernel in megakernel wavefront; do
			st=bench-gpu-unsplit
			[ $kernel = wavefront ] && st=bench-gpu-wavefront-unsplit
			step $st 150 bash -c 'TRACE_GPU_PARTS=1 TRACE_GPU_KERNEL=$1 bench "$2"' _ $kernel "$GPU_CHECK_BENCH_GPU"
			grep 'rays/s' "$REPORT/log/$st.log" | awk -v k=$kernel '{for (i = 1; i < NF; i++) if ($(i+1) == "rays/s") r = $i; printf "unsplit %s %s %.4g rays/s\n", k, $1, r}' |
				while read -r l; do figure "$l"; done
		done
	fi
else
	skip bench "no test binary (see build-tests)"
fi

frame() { # frame OUT.pfm TRACE-FLAGS...
	local out=$1 size
	shift
	read -r -a size <<<"$GPU_CHECK_FRAME_ARGS"
	"$TRACE" render scenes/examples/cornell-box.json "${size[@]}" -o "$out" "$@"
}
export -f frame
export GPU_CHECK_FRAME_ARGS
if [ $HAVE_TRACE = 1 ]; then
	step frame-gpu 120 bash -c 'TRACE_GPU_KERNEL=megakernel frame "$WORK/frame.gpu.pfm" --gpus 1 --threads 0'
	# trace's default: the device times both kernels on its first large
	# batch and keeps the faster (kernels.KernelAuto); its line says which.
	step frame-gpu-auto 120 bash -c 'frame "$WORK/frame.auto.pfm" --gpus 1 --threads 0 &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.auto.pfm"; then echo "the same bytes as the megakernel frame";
		else echo "DIFFERS from the megakernel frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.auto.pfm")"; exit 1; fi'
	step frame-mixed-auto 120 bash -c 'frame "$WORK/frame.mixauto.pfm" --gpus 1 --threads "$NPROC" &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.mixauto.pfm"; then echo "the same bytes as the GPU-alone frame";
		else echo "DIFFERS from the GPU-alone frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.mixauto.pfm")"; exit 1; fi'
	step frame-mixed 120 bash -c 'TRACE_GPU_KERNEL=megakernel frame "$WORK/frame.mixed.pfm" --gpus 1 --threads "$NPROC" &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.mixed.pfm"; then echo "the same bytes as the GPU-alone frame";
		else echo "DIFFERS from the GPU-alone frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.mixed.pfm")"; exit 1; fi'
	# The same with a core left to the GPU's goroutine: with every Go
	# processor tracing, each return from a driver call waits for one.
	step frame-mixed-spare 120 bash -c 'TRACE_GPU_KERNEL=megakernel frame "$WORK/frame.spare.pfm" --gpus 1 --threads "$((NPROC > 1 ? NPROC - 1 : 1))" &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.spare.pfm"; then echo "the same bytes as the GPU-alone frame";
		else echo "DIFFERS from the GPU-alone frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.spare.pfm")"; exit 1; fi'
	# The wavefront beside every core, which makes thousands of driver
	# calls a frame: trace gives the GPU's goroutine a Go processor of its
	# own (GOMAXPROCS: the threads plus one a GPU); then as before that,
	# GOMAXPROCS the cores, so that the two say what the processor gains.
	step frame-mixed-wavefront 120 bash -c 'TRACE_GPU_KERNEL=wavefront frame "$WORK/frame.mixwave.pfm" --gpus 1 --threads "$NPROC" &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.mixwave.pfm"; then echo "the same bytes as the GPU-alone frame";
		else echo "DIFFERS from the GPU-alone frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.mixwave.pfm")"; exit 1; fi'
	step frame-mixed-wavefront-procs 120 bash -c 'GOMAXPROCS=$NPROC TRACE_GPU_KERNEL=wavefront frame "$WORK/frame.mixprocs.pfm" --gpus 1 --threads "$NPROC" &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.mixprocs.pfm"; then echo "the same bytes as the GPU-alone frame";
		else echo "DIFFERS from the GPU-alone frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.mixprocs.pfm")"; exit 1; fi'
	# The GPU alone on the wavefront, and again with each batch on one
	# lane (one stream), for what the second lane gains: the same bytes,
	# the times beside. These runs also time their launches
	# (TRACE_GPU_TIMES: two CUDA events a launch): the GPU time of each
	# entry, and the kernels' share of the batches' time, whose rest is
	# copies, round trips and launch gaps.
	step frame-gpu-wavefront 120 bash -c 'TRACE_GPU_KERNEL=wavefront TRACE_GPU_TIMES=1 frame "$WORK/frame.wave.pfm" --gpus 1 --threads 0 &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.wave.pfm"; then echo "the same bytes as the megakernel frame";
		else echo "DIFFERS from the megakernel frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.wave.pfm")"; exit 1; fi'
	step frame-gpu-one-lane 120 bash -c 'TRACE_GPU_KERNEL=wavefront TRACE_GPU_LANES=1 TRACE_GPU_TIMES=1 frame "$WORK/frame.lane1.pfm" --gpus 1 --threads 0 &&
		if cmp -s "$WORK/frame.gpu.pfm" "$WORK/frame.lane1.pfm"; then echo "the same bytes as the megakernel frame";
		else echo "DIFFERS from the megakernel frame: $("$PSNR" "$WORK/frame.gpu.pfm" "$WORK/frame.lane1.pfm")"; exit 1; fi'
	for v in gpu gpu-auto mixed-auto mixed mixed-spare mixed-wavefront mixed-wavefront-procs gpu-wavefront gpu-one-lane; do
		r=$(grep -h 'rays/s' "$REPORT/log/frame-$v.log" | sed 's/^[^:]*: //')
		[ -n "$r" ] && figure "cornell-box $GPU_CHECK_FRAME_ARGS, $v: $r"
	done
	for v in gpu-auto mixed-auto; do
		grep -h 'chosen on\|no batch of the scene' "$REPORT/log/frame-$v.log" | sed 's/^trace: //' |
			while read -r l; do figure "cornell-box $GPU_CHECK_FRAME_ARGS, $v: $l"; done
	done
	for v in gpu-wavefront gpu-one-lane; do
		grep -h 'kernel times of' "$REPORT/log/frame-$v.log" | sed 's/^trace: //' |
			while read -r l; do figure "cornell-box $GPU_CHECK_FRAME_ARGS, $v: $l"; done
	done
	rm -f "$WORK"/frame.*.pfm
else
	skip frame "no trace binary (see build)"
fi

# ---- the other scenes' frames on both kernels ---------------------------------
# Which kernel to default to: on the 256² benchmarks the megakernels won
# pbr, mesh and whitted and the wavefront cornell-box and materials, and
# on the Cornell box's 1920×1080 frame the wavefront took half the time.
# frame_scenes: each other gallery scene at GPU_CHECK_SCENE_FRAME_ARGS on
# the GPU alone, on the megakernels, on the wavefront and as trace chooses
# by default (auto: it should take the faster's time, and says which): the
# times, and the same bytes.
frame_scenes() {
	local scene k out log line same bad=0 size
	read -r -a size <<<"$GPU_CHECK_SCENE_FRAME_ARGS"
	for scene in materials mesh pbr whitted; do
		for k in megakernel wavefront auto; do
			out=$WORK/scene.$scene.$k.pfm
			if ! log=$(TRACE_GPU_KERNEL=$k "$TRACE" render "scenes/examples/$scene.json" "${size[@]}" -o "$out" \
				--gpus 1 --threads 0 2>&1); then
				printf '%s\n' "$log"
				echo "frame-scenes: $scene, $k: trace failed"
				return 1
			fi
			printf '%s\n' "$log"
			line=$(printf '%s\n' "$log" | grep -m 1 'rays/s' | sed 's/^[^:]*: //')
			same=""
			if [ $k = auto ]; then
				same="; $(printf '%s\n' "$log" | grep -m 1 'chosen on\|no batch of the scene' | sed 's/^trace: [^:]*: //')"
			fi
			if [ $k != megakernel ]; then
				if cmp -s "$WORK/scene.$scene.megakernel.pfm" "$out"; then
					same="$same; the same bytes as the megakernels"
				else
					same="; DIFFERS from the megakernels' frame: $("$PSNR" "$WORK/scene.$scene.megakernel.pfm" "$out")"
					bad=1
				fi
			fi
			echo "frame-scenes: $scene, $k: $line$same"
		done
	done
	return $bad
}
export -f frame_scenes
export GPU_CHECK_SCENE_FRAME_ARGS
if [ $HAVE_TRACE = 1 ]; then
	step frame-scenes 120 bash -c 'frame_scenes'
	grep -h '^frame-scenes: ' "$REPORT/log/frame-scenes.log" | sed 's/^frame-scenes: //' |
		while read -r l; do figure "${l%%,*} $GPU_CHECK_SCENE_FRAME_ARGS,${l#*,}"; done
	rm -f "$WORK"/scene.*.pfm
else
	skip frame-scenes "no trace binary (see build)"
fi

# cuda_tool NAME: NAME on the PATH, or else in the toolkit's bin (a toolkit
# found from CUDA_HOME or /usr/local/cuda need not be on the PATH).
cuda_tool() {
	command -v "$1" 2>/dev/null && return
	if [ -n "$CUDA_ROOT" ] && [ -x "$CUDA_ROOT/bin/$1" ]; then echo "$CUDA_ROOT/bin/$1"; fi
}

# ncu_figures: a line per kernel of ncu's report on stdin: its duration,
# the SM's and memory's throughput (% of peak), the occupancy achieved
# and theoretical, and the registers per thread.
ncu_figures() {
	awk '
	function flush() {
		if (name != "")
			printf "ncu %s: %s, SM %s%%, memory %s%%, occupancy %s%% of %s%%, %s registers\n",
				name, dur, sm, mem, ach, theo, regs
		name = ""; dur = sm = mem = ach = theo = regs = "?"
	}
	BEGIN { flush() }
	/, Context [0-9]+, Stream [0-9]+, Device [0-9]+/ {
		flush(); name = $1; sub(/\(.*/, "", name); next
	}
	name == "" { next }
	$1 == "Duration" { dur = $NF " " $(NF-1) }
	/^ *Compute \(SM\) Throughput / { sm = $NF }
	/^ *Memory Throughput +% / && mem == "?" { mem = $NF }
	/^ *Achieved Occupancy / { ach = $NF }
	/^ *Theoretical Occupancy / { theo = $NF }
	/^ *Registers Per Thread / { regs = $NF }
	END { flush() }'
}

# The metrics of ncu-stalls: the threads active per warp instruction (of
# 32: what divergence and finished lanes leave), the cycles between two
# instructions of a warp, the part of them a warp waits for each reason
# (per instruction issued: long_scoreboard is global or local memory,
# wait a fixed latency, math_pipe_throttle a busy unit, ...), and the
# sectors of local memory (the stack) loaded and stored.
NCU_STALL_METRICS=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__average_warp_latency_per_inst_issued.ratio
for r in long_scoreboard short_scoreboard wait math_pipe_throttle lg_throttle mio_throttle not_selected \
	branch_resolving no_instruction barrier membar; do
	NCU_STALL_METRICS=$NCU_STALL_METRICS,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
NCU_STALL_METRICS=$NCU_STALL_METRICS,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum

# ncu_stalls: a line per kernel of ncu's report of NCU_STALL_METRICS on
# stdin: lanes active, cycles between issues, the four largest stall
# reasons (cycles per instruction issued) and the local memory sectors.
ncu_stalls() {
	awk '
	function flush(   i, j, k, t, line) {
		if (name != "") {
			line = sprintf("ncu-stalls %s: %s of 32 lanes active per instruction, %s cycles between a warp\047s instructions; waiting on", name, lanes, cpi)
			for (i = 0; i < 4; i++) {
				k = ""
				for (j in stall)
					if (k == "" || stall[j] + 0 > stall[k] + 0)
						k = j
				if (k == "")
					break
				line = line sprintf("%s %s %s", i ? "," : "", k, stall[k])
				delete stall[k]
			}
			printf "%s; local memory %s loaded, %s stored\n", line, ld, st
		}
		name = ""; lanes = cpi = ld = st = "?"
		for (t in stall)
			delete stall[t]
	}
	BEGIN { flush() }
	/, Context [0-9]+, Stream [0-9]+, Device [0-9]+/ {
		flush(); name = $1; sub(/\(.*/, "", name); next
	}
	name == "" { next }
	{ v = $NF; gsub(/,/, "", v) }
	$1 == "smsp__thread_inst_executed_per_inst_executed.ratio" { lanes = v }
	$1 == "smsp__average_warp_latency_per_inst_issued.ratio" { cpi = v }
	$1 ~ /^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$/ {
		r = $1; sub(/^smsp__average_warps_issue_stalled_/, "", r); sub(/_per_issue_active\.ratio$/, "", r); stall[r] = v
	}
	$1 == "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum" { ld = v " " (NF > 2 ? $(NF-1) : "sector") }
	$1 == "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum" { st = v " " (NF > 2 ? $(NF-1) : "sector") }
	END { flush() }'
}

# ---- one launch under Nsight Compute, if it is there ------------------------
NCU=$(cuda_tool ncu)
if [ $HAVE_TRACE = 1 ] && [ -n "$NCU" ]; then
	# The launches profiled are the wavefront's second round on one lane
	# (the first only makes the camera rays and traces them): wf_shade
	# shading the camera rays' hits, wf_intersect tracing the bounces and
	# wf_occluded the shadow rays, one launch each, so that the figures
	# say which of the three holds the GPU back, and why.
	if step ncu 120 env TRACE_GPU_KERNEL=wavefront TRACE_GPU_LANES=1 "$NCU" --clock-control none --kernel-name regex:'^wf_(shade|intersect|occluded)$' \
		--launch-skip 2 --launch-count 3 --section SpeedOfLight --section Occupancy \
		--section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
		"$TRACE" render scenes/examples/cornell-box.json --width 256 --height 256 --samples 16 \
		-o "$WORK/ncu.png" --gpus 1 --threads 0 -q; then
		ncu_figures <"$REPORT/log/ncu.log" | while read -r l; do figure "$l"; done
	fi
	# The default kernel: one launch of the path megakernel, a batch of
	# the same frame's pixels, every sample of each.
	if step ncu-megakernel 120 env TRACE_GPU_KERNEL=megakernel TRACE_GPU_LANES=1 "$NCU" --clock-control none \
		--kernel-name regex:'^trace_pixels_path$' --launch-count 1 --section SpeedOfLight --section Occupancy \
		--section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
		"$TRACE" render scenes/examples/cornell-box.json --width 256 --height 256 --samples 16 \
		-o "$WORK/ncu.png" --gpus 1 --threads 0 -q; then
		ncu_figures <"$REPORT/log/ncu-megakernel.log" | while read -r l; do figure "$l"; done
	fi
	# Why the megakernel waits: raw metrics, in a step of their own so
	# that a name this ncu does not know costs only this step.
	if step ncu-stalls 120 env TRACE_GPU_KERNEL=megakernel TRACE_GPU_LANES=1 "$NCU" --clock-control none \
		--kernel-name regex:'^trace_pixels_path$' --launch-count 1 --metrics "$NCU_STALL_METRICS" \
		"$TRACE" render scenes/examples/cornell-box.json --width 256 --height 256 --samples 16 \
		-o "$WORK/ncu.png" --gpus 1 --threads 0 -q; then
		ncu_stalls <"$REPORT/log/ncu-stalls.log" | while read -r l; do figure "$l"; done
	fi
else
	skip ncu "no ncu on the PATH or in the toolkit (or no trace binary)"
fi

# ---- variants of the PTX (scripts/ptx-variants.sh), if .gpu carries any ----
# The same trace loads each variant (TRACE_GPU_PTX): lineinfo, the kernel
# with line directives, for ncu's source view (where a kernel's time goes,
# source line by line: instructions, lanes active, stalls), and any
# variant a developer made to time against the embedded kernel.
PTX_DIR=${GPU_CHECK_PTX_DIR:-$ROOT/.gpu/ptx}
export PTX_DIR NCU GPU_CHECK_REGS_ARGS
# frame_vs REF OUT SCENE ENTRY ENV...: the frame of scenes/examples/SCENE
# at GPU_CHECK_REGS_ARGS on one lane with kernel times, the environment
# ENV added, into OUT, its log printed; then fv_rays (rays/s), fv_time
# (the time of the entry ENTRY, a regular expression, matches), fv_total
# (the kernels' time), and fv_same: "" when OUT has REF's bytes, what
# differs when not, "the frame the others must match" when REF is "".
# Status 1 when trace fails, 2 when the bytes differ.
frame_vs() {
	local ref=$1 out=$2 scene=$3 entry=$4 log size
	shift 4
	read -r -a size <<<"$GPU_CHECK_REGS_ARGS"
	if ! log=$(env "$@" TRACE_GPU_LANES=1 TRACE_GPU_TIMES=1 "$TRACE" render "scenes/examples/$scene.json" \
		"${size[@]}" -o "$out" --gpus 1 --threads 0 2>&1); then
		printf '%s\n' "$log"
		return 1
	fi
	printf '%s\n' "$log"
	fv_rays=$(printf '%s\n' "$log" | grep -m 1 -o '[0-9.]*[kMG]* rays/s')
	fv_time=$(printf '%s\n' "$log" | grep -m 1 -o "$entry [0-9.]* s ([^)]*)")
	fv_total=$(printf '%s\n' "$log" | grep -m 1 -o 'kernels [0-9.]* s, [0-9]*% of the batches. time')
	fv_same="the frame the others must match"
	[ -n "$ref" ] || return 0
	fv_same=""
	cmp -s "$ref" "$out" && return 0
	fv_same="DIFFERS: $("$PSNR" "$ref" "$out")"
	return 2
}
export -f frame_vs
# ncu_source: one launch each of trace_pixels_path and wf_shade on the
# lineinfo variant under ncu's SourceCounters and WarpStateStats sections;
# its source page (each SASS instruction, with its source line) and its
# details page as CSV in the report.
ncu_source() {
	local k entry kernel skip rep csv
	for k in "trace_pixels_path megakernel 0" "wf_shade wavefront 2"; do
		read -r entry kernel skip <<<"$k"
		rep=$WORK/ncu-source-$entry
		csv=$REPORT/ncu-source-$entry.csv
		TRACE_GPU_PTX=$PTX_DIR/lineinfo.ptx TRACE_GPU_KERNEL=$kernel TRACE_GPU_LANES=1 "$NCU" --clock-control none \
			--kernel-name "regex:^$entry\$" --launch-skip "$skip" --launch-count 1 --section SourceCounters \
			--section WarpStateStats --export "$rep" --force-overwrite \
			"$TRACE" render scenes/examples/cornell-box.json --width 256 --height 256 --samples 16 \
			-o "$WORK/ncu.png" --gpus 1 --threads 0 -q || return 1
		"$NCU" --import "$rep.ncu-rep" --page details --csv >"$REPORT/ncu-source-$entry-details.csv" || return 1
		if ! "$NCU" --import "$rep.ncu-rep" --page source --csv --print-source cuda,sass >"$csv"; then
			"$NCU" --import "$rep.ncu-rep" --page source --csv --print-source sass >"$csv" || return 1
		fi
		gzip -f "$csv"
		echo "ncu-source: $entry: $(gzip -dc "$csv.gz" | wc -l) lines of source counters in report/ncu-source-$entry.csv.gz"
		if command -v python3 >/dev/null; then
			python3 scripts/gpu-check/ncu_source.py "$entry" "$csv.gz" 8 || return 1
		fi
	done
}
# ptx_variants: the frame of mega-regs, of the Cornell box (path), the
# Whitted scene and the PBR scene, on the megakernels, on the embedded
# kernel and on each variant: rays/s, the entry's time, and whether the
# bytes are the embedded kernel's.
ptx_variants() {
	local v name scene kernel entry label out ref rc bad=0
	for scene in cornell-box:megakernel whitted:megakernel pbr:megakernel cornell-box:wavefront; do
		kernel=${scene#*:}
		scene=${scene%:*}
		entry='trace_pixels_[a-z]*' label=""
		[ "$kernel" = wavefront ] && entry=wf_shade label="wavefront, "
		for v in embedded "$PTX_DIR"/*.ptx; do
			name=${v##*/}
			name=${name%.ptx}
			# Variants named wf-* change the wavefront (timed on it
			# only), the others the megakernels (scripts/ptx-variants.sh).
			if [ "$name" != embedded ]; then
				case $name in
				wf-*) [ "$kernel" = wavefront ] || continue ;;
				*) [ "$kernel" = megakernel ] || continue ;;
				esac
			fi
			out=$WORK/variant.$scene.$kernel.$name.pfm
			[ "$v" = embedded ] && v=""
			ref=$WORK/variant.$scene.$kernel.embedded.pfm
			[ "$name" = embedded ] && ref=""
			frame_vs "$ref" "$out" "$scene" "$entry" TRACE_GPU_PTX="$v" TRACE_GPU_KERNEL="$kernel"
			rc=$?
			if [ $rc = 1 ]; then
				echo "ptx-variants: $scene, ${label}PTX $name: trace failed"
				return 1
			fi
			[ $rc = 2 ] && bad=1
			echo "ptx-variants: $scene, ${label}PTX $name: $fv_rays, $fv_time; ${fv_same:-the same bytes as the embedded kernel}"
		done
	done
	return $bad
}
export -f ncu_source ptx_variants
if [ $HAVE_TRACE = 1 ] && compgen -G "$PTX_DIR/*.ptx" >/dev/null; then
	if [ -n "$NCU" ] && [ -s "$PTX_DIR/lineinfo.ptx" ]; then
		step ncu-source 150 bash -c 'ncu_source'
		grep -h '^ncu-source[ :]' "$REPORT/log/ncu-source.log" | while read -r l; do figure "$l"; done
	else
		skip ncu-source "no ncu, or no $PTX_DIR/lineinfo.ptx (scripts/ptx-variants.sh)"
	fi
	step ptx-variants 150 bash -c 'ptx_variants'
	grep -h '^ptx-variants: ' "$REPORT/log/ptx-variants.log" | sed 's/^ptx-variants: //' |
		while read -r l; do figure "${l%%,*} $GPU_CHECK_REGS_ARGS, one lane,${l#*,}"; done
	rm -f "$WORK"/variant.*.pfm
else
	skip ncu-source "no PTX variants in $PTX_DIR (scripts/ptx-variants.sh), or no trace binary"
	skip ptx-variants "no PTX variants in $PTX_DIR (scripts/ptx-variants.sh), or no trace binary"
fi

# ---- the GPU tests under NVIDIA's memcheck, if it is there -------------------
# compute-sanitizer's memcheck over the GPU tests' Cornell box (-short): a
# read or write outside device memory the kernel was given, or a misaligned
# one, fails it. make sanitize checks the kernel's C source the same way on
# the CPU; this is the GPU's own memory.
SANITIZER=$(cuda_tool compute-sanitizer)
if [ $HAVE_TESTBIN = 1 ] && [ -n "$SANITIZER" ]; then
	export SANITIZER
	if step memcheck 90 bash -c 'cd kernels && TRACE_GPU_REQUIRED=1 exec "$SANITIZER" --tool memcheck --error-exitcode 1 \
		"$TESTBIN" -test.run "^TestGPUGallery\$/^cornell-box\$" -test.short -test.count=1 -test.v'; then
		if grep -q -- '--- PASS: TestGPUGallery/cornell-box' "$REPORT/log/memcheck.log"; then
			figure "memcheck (the GPU tests' Cornell box, -short): $(grep -m 1 'ERROR SUMMARY' "$REPORT/log/memcheck.log" | sed 's/^=* *//')"
		else
			note_fail memcheck-ran "memcheck passed, but TestGPUGallery/cornell-box did not run under it"
		fi
	fi
else
	skip memcheck "no compute-sanitizer on the PATH or in the toolkit (or no test binary)"
fi

# ---- registers: occupancy against spills -------------------------------------
# Uncapped, ptxas gives wf_shade 167 registers and trace_pixels_path 161,
# no spills: 12 warps a multiprocessor. Capped, they hold more warps and
# spill a few bytes to local memory (make ptx-report REGS=...;
# trace_pixels_path at 128 or 96: 16 bytes stored, 16 loaded). Which is
# faster only a GPU can say: the same frame, on one lane, uncapped and at
# each cap, each loading its own JIT of the PTX. The bits must not change
# (ptxas allocates registers, it does not change a float operation).
# regs_caps NAME KERNEL ENTRY CAPS: the frame on KERNEL (wavefront or
# megakernel) with ENTRY uncapped, then capped at each of CAPS.
regs_caps() {
	local name=$1 kernel=$2 entry=$3 caps=$4 cap regs ref rc bad=0
	for cap in none $caps; do
		regs=""
		[ "$cap" = none ] || regs="$entry=$cap"
		ref=$WORK/regs.$name.none.pfm
		[ "$cap" = none ] && ref=""
		frame_vs "$ref" "$WORK/regs.$name.$cap.pfm" cornell-box "$entry" TRACE_GPU_KERNEL="$kernel" TRACE_GPU_REGS="$regs"
		rc=$?
		if [ $rc = 1 ]; then
			echo "$entry registers $cap: trace failed"
			return 1
		fi
		[ $rc = 2 ] && bad=1
		echo "$name: $entry registers $cap: $fv_rays, $fv_time; $fv_total; ${fv_same:-the same bytes as uncapped}"
	done
	return $bad
}
export -f regs_caps
export GPU_CHECK_REGS_ARGS
# The default kernel's caps first, should the deadline cut the second.
for r in "mega-regs megakernel trace_pixels_path $GPU_CHECK_MEGA_REGS" "shade-regs wavefront wf_shade $GPU_CHECK_SHADE_REGS"; do
	read -r name kernel entry caps <<<"$r"
	if [ $HAVE_TRACE = 1 ] && [ -n "$caps" ]; then
		step "$name" 150 bash -c 'regs_caps "$@"' regs_caps "$name" "$kernel" "$entry" "$caps"
		grep -h "^$name: " "$REPORT/log/$name.log" | sed "s/^$name: //" |
			while read -r l; do figure "cornell-box $GPU_CHECK_REGS_ARGS, one lane, $l"; done
		rm -f "$WORK"/regs.*.pfm
	else
		skip "$name" "no trace binary (see build), or no caps to try (GPU_CHECK_MEGA_REGS, GPU_CHECK_SHADE_REGS)"
	fi
done

# ---- last, the long form of the tests ---------------------------------------
if [ $HAVE_TESTBIN = 1 ] && [ "$STUB" != 1 ]; then
	step gpu-tests-full 150 bash -c 'gpu_tests'
fi

# ---- the verdict --------------------------------------------------------------
rm -rf vendor
fails=$(grep -c '^FAIL' "$WORK/results")
unrun=$(grep -c '^SKIP.*(deadline)$' "$WORK/results")
if [ "$fails" -eq 0 ] && [ "$unrun" -eq 0 ]; then
	verdict=PASS
else
	verdict="FAIL ($fails failed, $unrun not run before the deadline)"
fi
# Every writer is done (the build chain was waited for): a rewrite that
# was cut short (a step's process killed at the deadline while it
# published) can have left its temporary file; the last two files are
# all $OUT is to hold.
rm -f "$OUT"/.summary.*.tmp "$OUT"/.gpu-check.*.tmp
summary "$verdict"
archive
cat "$OUT/summary.txt"
[ "$verdict" = PASS ]
