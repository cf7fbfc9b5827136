#!/usr/bin/env bash
# cuda-headers-check [DIR]: the cuda-tagged build against NVIDIA's own
# cuda.h, not the project's compile-only one (kernels/cudastub/fake), so
# that a declaration the fake header gets wrong, or a CUDA version that
# gorgonia.org/cu does not compile against, shows here and not on the first
# GPU machine.
#
#   real       Debian trixie non-free's nvidia-cuda-dev (CUDA 12.4): only its
#              cuda.h and stub libcuda.so are unpacked into DIR (default
#              bin/nvidia-cuda-dev; a DIR that holds both is used as it is).
#              go vet -tags cuda ./kernels/... and the cuda build of
#              cmd/trace, with the compat shim first on the include path
#              (as make cuda and scripts/gpu-check.sh build), linked
#              against that stub: every driver symbol the binary needs is
#              one the stub exports. Then the project's stub driver
#              (kernels/cudastub/fake/libcuda.c) compiled against the same
#              headers, so that its definitions must agree with NVIDIA's
#              declarations, and the cuda-tagged GPU tests (-short), built
#              against NVIDIA's header, on its one emulated device: the
#              gallery bit for bit against the Go tracer, the lanes'
#              failures on demand.
#   13.0       the same header with CUDA 13.0's changes to the five entry
#              points kernels/cudastub/compat/cuda.h maps back (cuCtxCreate
#              to cuCtxCreate_v4 with a CUctxCreateParams*, cuMemAdvise and
#              cuMemPrefetchAsync to their CUmemLocation forms, the graph
#              edge calls to their _v2 forms, as 13.0's cuda.h declares
#              them; CUDA_VERSION 13000): the build with the shim links
#              against the same stub, and gorgonia.org/cu without it fails
#              on cuCtxCreate as v0.9.6 does against CUDA 13.0, so the shim
#              is what makes it build. (The shim changes only calls the
#              project does not make: at run time nothing differs from the
#              real header's build, which the GPU tests ran.)
#
# CUDA 13.0's cuda.h itself is not in Debian, and its other changes are not
# modelled: public reports of builds against it show the deprecated calls
# gorgonia.org/cu also makes (texture references, shared-memory
# configuration) still declared, and cuCtxCreate as the one error. About a minute and a half on 2 cores with a
# cold build cache, most of it cgo builds; CI runs it (make check-cuda-headers).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
dir=${1:-bin/nvidia-cuda-dev}
hdr=./usr/include/cuda.h
stub=./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
if [ ! -s "$dir/$hdr" ] || [ ! -s "$dir/$stub" ]; then
	scripts/fetch-debian-nonfree.sh trixie nvidia-cuda-dev "$dir" "$hdr" "$stub" >/dev/null
fi
dir=$(cd "$dir" && pwd)
version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$dir/$hdr")
echo "NVIDIA's cuda.h: CUDA_VERSION $version ($dir/usr/include)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "FAIL $*"
	fail=1
}
compat=$ROOT/kernels/cudastub/compat

# build NAME PACKAGE INCLUDES...: the cuda build of PACKAGE (cmd/trace into
# $tmp/NAME), its output in $tmp/NAME.log.
build() {
	local name=$1 pkg=$2 flags="-O2 -g" d out=()
	shift 2
	for d in "$@"; do flags="$flags -I$d"; done
	[ "$pkg" = ./cmd/trace ] && out=(-o "$tmp/$name")
	CGO_ENABLED=1 CGO_CFLAGS="$flags" CGO_LDFLAGS="-L$(dirname "$dir/$stub")" \
		go build -tags cuda "${out[@]}" "$pkg" >"$tmp/$name.log" 2>&1
}
# emulate NAME LABEL INCLUDES...: the project's stub driver
# (kernels/cudastub/fake/libcuda.c) compiled against these headers, so that
# its definitions must match NVIDIA's declarations, then the cuda-tagged GPU
# tests built against them, run on the stub's one emulated device: the
# gallery bit for bit against the Go tracer, the lanes' failures on demand.
emulate() {
	local name=$1 label=$2 flags="-O2 -g" d
	shift 2
	for d in "$@"; do flags="$flags -I$d"; done
	mkdir -p "$tmp/$name-driver"
	# shellcheck disable=SC2086 # $flags is a list of -I options
	if ! "${CC:-cc}" -shared -fPIC -std=c11 -O2 -pthread -Wall -Wno-unused-parameter $flags \
		-Wl,-soname,libcuda.so.1 -o "$tmp/$name-driver/libcuda.so.1" kernels/cudastub/fake/libcuda.c -lm \
		>"$tmp/$name-driver.log" 2>&1; then
		bad "$label: the stub driver against these headers:" && sed 's/^/     | /' "$tmp/$name-driver.log" | head -n 30
		return
	fi
	echo "ok   $label: the stub driver (kernels/cudastub/fake/libcuda.c) compiles against them"
	if CGO_ENABLED=1 CGO_CFLAGS="$flags" CGO_LDFLAGS="-L$(dirname "$dir/$stub")" \
		LD_LIBRARY_PATH="$tmp/$name-driver" TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 \
		go test -tags cuda -count=1 -short -v -run '^TestGPU' ./kernels/ >"$tmp/$name-test.log" 2>&1; then
		echo "ok   $label: the GPU tests on the emulated device ($(grep -c '^--- PASS' "$tmp/$name-test.log") passed; $(grep -m 1 -o 'CUDA driver [0-9.]*' "$tmp/$name-test.log"))"
	else
		bad "$label: the GPU tests on the emulated device:" && grep -E -- '^(--- FAIL|FAIL|panic)|_test.go' "$tmp/$name-test.log" | head -n 30 | sed 's/^/     | /'
	fi
}
# symbols NAME LABEL: every cu* symbol the binary needs is one the stub exports.
symbols() {
	local missing n
	nm -D --defined-only "$dir/$stub" | awk '{print $3}' | sort -u >"$tmp/stub.syms"
	nm -D --undefined-only "$tmp/$1" | awk '$2 ~ /^cu/ {sub(/@.*/, "", $2); print $2}' | sort -u >"$tmp/$1.syms"
	n=$(wc -l <"$tmp/$1.syms")
	missing=$(comm -23 "$tmp/$1.syms" "$tmp/stub.syms" | tr '\n' ' ')
	if [ "$n" -lt 50 ]; then
		bad "$2: the binary needs only $n driver symbols: not the cuda build?"
	elif [ -n "$missing" ]; then
		bad "$2: the stub libcuda.so does not export $missing"
	else
		echo "ok   $2: all $n driver symbols the binary needs are in the stub libcuda.so"
	fi
}

# ---- real: the header as NVIDIA ships it --------------------------------
if CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -I$compat -I$dir/usr/include" CGO_LDFLAGS="-L$(dirname "$dir/$stub")" \
	go vet -tags cuda ./kernels/... >"$tmp/vet.log" 2>&1; then
	echo "ok   real: go vet -tags cuda ./kernels/..."
else
	bad "real: go vet -tags cuda ./kernels/...:" && sed 's/^/     | /' "$tmp/vet.log" | head -n 30
fi
if build real ./cmd/trace "$compat" "$dir/usr/include"; then
	echo "ok   real: the cuda build of cmd/trace"
	symbols real real
	emulate real real "$compat" "$dir/usr/include"
else
	bad "real: the cuda build:" && sed 's/^/     | /' "$tmp/real.log" | head -n 30
fi

# ---- 13.0: the five entry points as CUDA 13.0 declares them -------------
# Each edit must apply exactly once, or the header is not the one this
# script was written against.
mkdir -p "$tmp/cuda13"
awk -v out="$tmp/cuda13.counts" '
function count(k) { n[k]++ }
/^#define CUDA_VERSION [0-9]+/ { print "#define CUDA_VERSION 13000"; count("version"); next }
/^#define cuCtxCreate[ \t]+cuCtxCreate_v2[ \t]*$/ {
	print "#define cuCtxCreate                         cuCtxCreate_v4"
	print "#define cuMemAdvise                         cuMemAdvise_v2"
	print "#define cuMemPrefetchAsync                  __CUDA_API_PTSZ(cuMemPrefetchAsync_v2)"
	print "#define cuGraphAddDependencies              cuGraphAddDependencies_v2"
	print "#define cuGraphGetEdges                     cuGraphGetEdges_v2"
	count("macros"); next
}
/^CUresult CUDAAPI cuCtxCreate\(CUcontext \*pctx, unsigned int flags, CUdevice dev\);/ {
	if (!params) print "typedef struct CUctxCreateParams_st { void *execAffinityParams; int numExecAffinityParams; void *cigParams; } CUctxCreateParams;"
	print "CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);"
	count("cuCtxCreate"); next
}
/CUctxCreateParams_st/ { params = 1 }
/^CUresult CUDAAPI (cuMemPrefetchAsync|cuMemAdvise|cuGraphGetEdges|cuGraphAddDependencies)\(/ {
	match($0, /cu[A-Za-z]+\(/); count("old " substr($0, RSTART, RLENGTH - 1)); next
}
/^CUresult CUDAAPI (cuMemPrefetchAsync|cuMemAdvise|cuGraphGetEdges|cuGraphAddDependencies)_v2\(/ {
	match($0, /cu[A-Za-z]+_v2\(/); k = substr($0, RSTART, RLENGTH - 4); count("new " k)
	sub(/_v2\(/, "("); print; next
}
{ print }
END { for (k in n) print k, n[k] > out }
' "$dir/$hdr" >"$tmp/cuda13/cuda.h"
want="cuCtxCreate 1|macros 1|new cuGraphAddDependencies 1|new cuGraphGetEdges 1|new cuMemAdvise 1|new cuMemPrefetchAsync 1|old cuGraphAddDependencies 1|old cuGraphGetEdges 1|old cuMemAdvise 1|old cuMemPrefetchAsync 1|version 1"
got=$(sort "$tmp/cuda13.counts" | paste -sd '|')
if [ "$got" != "$want" ]; then
	bad "13.0: the edits to NVIDIA's header did not each apply once (got: $got): is it still CUDA 12.4's?"
else
	echo "ok   13.0: the header reshaped (CUDA_VERSION 13000, cuCtxCreate_v4, the CUmemLocation and edge-data forms)"
	if build shim ./cmd/trace "$compat" "$tmp/cuda13" "$dir/usr/include"; then
		echo "ok   13.0: the cuda build with the compat shim"
		symbols shim 13.0
	else
		bad "13.0: the cuda build with the compat shim:" && sed 's/^/     | /' "$tmp/shim.log" | head -n 30
	fi
	if build noshim gorgonia.org/cu "$tmp/cuda13" "$dir/usr/include"; then
		bad "13.0: the cuda build without the compat shim builds: the reshaped header does not model CUDA 13.0"
	elif grep -q 'cuCtxCreate' "$tmp/noshim.log"; then
		echo "ok   13.0: without the shim the build fails on cuCtxCreate ($(grep -c 'not enough arguments\|cannot use' "$tmp/noshim.log") errors in gorgonia.org/cu)"
	else
		bad "13.0: without the shim the build fails, but not on cuCtxCreate:" && sed 's/^/     | /' "$tmp/noshim.log" | head -n 20
	fi
fi
if [ $fail = 0 ]; then
	echo "cuda-headers-check: the cuda build compiles and links against NVIDIA's cuda.h $version and its CUDA 13.0 shape"
fi
exit $fail
