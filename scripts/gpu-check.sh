#!/usr/bin/env bash
# shellcheck disable=SC2016 # single-quoted bash -c commands expand in the inner shell
# GPU check, for a machine with an NVIDIA GPU and the CUDA toolkit but no Go
# and no network (the lent H200 machine of ../shared/GPU.md). Prepare here:
#
#   ../shared/device/pack-go.sh      # Go toolchain + modules into .gpu/
#
# then run on the GPU machine, from the repository root, with .gpu carried:
#
#   bash scripts/gpu-check.sh        # logs, images and summary.txt in $OUT
#
# Steps: nvidia-smi; ptxas on the committed PTX for sm_90; the cuda build;
# the cuda-tagged GPU tests (device against the Go tracer, bit for bit);
# every gallery scene rendered on the GPU alone, on the CPU alone and on both,
# compared byte for byte and by PSNR; trace bench on the CPU; the GPU
# benchmarks. Every step runs under a time limit, a failure does not stop
# the next step, and the summary at the end lists PASS/FAIL per step. The
# exit status is 0 only if every step passed. Total: about 3 to 5 minutes.
set -u

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT/log" "$OUT/img"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA_HOME/bin:$PATH"
export HOME=${HOME:-/tmp}
SECONDS=0

RESULTS=()
FAILED=0
record() { # record PASS|FAIL NAME DETAIL
	RESULTS+=("$(printf '%-4s  %-32s %s' "$1" "$2" "$3")")
	[ "$1" = PASS ] || FAILED=$((FAILED + 1))
	echo "== $1 $2 $3"
}

# step NAME LIMIT_S CMD...: runs CMD with a time limit, output to log/NAME.log.
step() {
	local name=$1 limit=$2 rc start
	shift 2
	start=$SECONDS
	echo "== $name: $*" | tee "$OUT/log/$name.log"
	timeout --kill-after=10 "$limit" "$@" >>"$OUT/log/$name.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		record PASS "$name" "$((SECONDS - start))s"
	else
		[ $rc -eq 124 ] && echo "(timed out after ${limit}s)" >>"$OUT/log/$name.log"
		record FAIL "$name" "exit $rc after $((SECONDS - start))s, log/$name.log"
		tail -n 15 "$OUT/log/$name.log"
	fi
	return $rc
}

summary() {
	{
		echo "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ), ${SECONDS}s, $FAILED failed"
		printf '%s\n' "${RESULTS[@]}"
	} | tee "$OUT/summary.txt"
}

# ---- the Go toolchain and modules packed by ../shared/device/pack-go.sh ----
GOTC=${GOTC:-$HOME/gotc}
mkdir -p "$GOTC" 2>/dev/null || GOTC=${TMPDIR:-/tmp}/gotc
if [ -s .gpu/go.tar.xz ] && [ ! -x "$GOTC/go/bin/go" ]; then
	mkdir -p "$GOTC"
	if command -v xz >/dev/null 2>&1; then
		tar -C "$GOTC" -xJf .gpu/go.tar.xz
	else
		python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' .gpu/go.tar.xz "$GOTC"
	fi
fi
if [ -d .gpu/vendor ] && [ ! -d vendor ]; then
	mv .gpu/vendor vendor
fi
if [ -x "$GOTC/go/bin/go" ]; then
	export GOROOT=$GOTC/go PATH=$GOTC/go/bin:$PATH
fi
if [ -d vendor ]; then
	export GOFLAGS=-mod=vendor
fi
export GOTOOLCHAIN=local GOPROXY=off CGO_ENABLED=1
export GOCACHE=${GOCACHE:-${TMPDIR:-/tmp}/trace-gocache}
if ! command -v go >/dev/null 2>&1; then
	record FAIL go "no Go toolchain: run ../shared/device/pack-go.sh here and carry .gpu"
	summary
	exit 1
fi

# ---- the machine -----------------------------------------------------------
NPROC=$(nproc)
step versions 30 bash -c 'go version; go env GOROOT GOFLAGS GOCACHE; gcc --version | head -1; nvcc --version | tail -2; uname -a; echo "cores: $(nproc)"'
step nvidia-smi 30 bash -c 'nvidia-smi && nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv'

# ---- the committed PTX, assembled for the H200 (sm_90) ---------------------
step ptxas 120 ptxas --gpu-name sm_90 -O3 -v -o "$OUT/trace.sm_90.cubin" kernels/trace.ptx

# ---- the cuda build: the compat shim first, then the real toolkit -----------
export CGO_CFLAGS="-O2 -g -I$ROOT/kernels/cudastub/compat -I$CUDA_HOME/include"
export CGO_LDFLAGS="-L$CUDA_HOME/lib64/stubs -L$CUDA_HOME/lib64"
mkdir -p bin
step build 300 go build -tags cuda -o bin/trace-cuda ./cmd/trace
step build-tests 300 go test -tags cuda -c -o bin/kernels-cuda.test ./kernels/
TRACE=$ROOT/bin/trace-cuda
HAVE_TRACE=0
[ -x "$TRACE" ] && HAVE_TRACE=1

# ---- GPU tests: each gallery scene on the device against the Go tracer -----
# TRACE_GPU_REQUIRED turns "no device" skips into failures.
if [ -x bin/kernels-cuda.test ]; then
	step gpu-tests 180 bash -c 'cd kernels && TRACE_GPU_REQUIRED=1 exec ../bin/kernels-cuda.test \
		-test.run "^TestGPU" -test.v -test.count=1 -test.timeout 170s'
else
	record FAIL gpu-tests "no test binary"
fi

# ---- the comparison tool: bytes, then PSNR over linear values in [0, 1] -----
PSNR_DIR=$(mktemp -d)
cat >"$PSNR_DIR/main.go" <<'EOF'
// Command psnr compares two linear PFM images written by trace render:
// identical bytes, or the PSNR of values clamped to [0, 1], the largest
// difference, how many floats differ and where the first one is.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

func readPFM(path string) (w, h int, pix []float32, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, nil, err
	}
	r := bufio.NewReader(bytes.NewReader(data))
	var magic string
	var scale float64
	if _, err = fmt.Fscan(r, &magic, &w, &h, &scale); err != nil || magic != "PF" {
		return 0, 0, nil, fmt.Errorf("%s: not a colour PFM", path)
	}
	r.ReadByte() // the single whitespace after the scale; rows run bottom to top
	var order binary.ByteOrder = binary.LittleEndian
	if scale > 0 {
		order = binary.BigEndian
	}
	pix = make([]float32, 3*w*h)
	if err = binary.Read(r, order, pix); err != nil {
		return 0, 0, nil, fmt.Errorf("%s: %v", path, err)
	}
	return w, h, pix, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: psnr A.pfm B.pfm")
		os.Exit(2)
	}
	wa, ha, a, err := readPFM(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	wb, hb, b, err := readPFM(os.Args[2])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	if wa != wb || ha != hb {
		fmt.Printf("sizes differ: %dx%d and %dx%d\n", wa, ha, wb, hb)
		os.Exit(2)
	}
	clamp := func(x float32) float64 { return math.Min(math.Max(float64(x), 0), 1) }
	var se, maxd float64
	differ, first := 0, -1
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			differ++
			if first < 0 {
				first = i
			}
		}
		d := clamp(a[i]) - clamp(b[i])
		se += d * d
		maxd = math.Max(maxd, math.Abs(float64(a[i])-float64(b[i])))
	}
	if differ == 0 {
		fmt.Println("identical")
		return
	}
	psnr := math.Inf(1)
	if se > 0 {
		psnr = 10 * math.Log10(float64(len(a))/se)
	}
	px := first / 3
	fmt.Printf("PSNR %.2f dB, %d of %d floats differ, max |diff| %.3g, first at pixel (%d, %d) channel %d: %g vs %g\n",
		psnr, differ, len(a), maxd, px%wa, ha-1-px/wa, first%3, a[first], b[first])
	if psnr < 50 {
		os.Exit(1)
	}
}
EOF
PSNR=$PSNR_DIR/psnr
(cd "$PSNR_DIR" && GOFLAGS='' go build -o psnr main.go) >"$OUT/log/psnr-build.log" 2>&1 ||
	record FAIL psnr-build "log/psnr-build.log"

# compare NAME A B: PASS if identical bytes (B is then deleted, to keep $OUT
# small), PASS noted "NOT identical" if PSNR >= 50 dB, else FAIL. Pixel
# coordinates in the report count from the top left, as in the PNG.
compare() {
	local name=$1 a=$2 b=$3 verdict
	if [ ! -s "$a" ] || [ ! -s "$b" ]; then
		record FAIL "$name" "missing image"
		return
	fi
	if cmp -s "$a" "$b"; then
		record PASS "$name" "bit-identical"
		rm -f "$b"
		return
	fi
	if [ ! -x "$PSNR" ]; then
		record FAIL "$name" "differ (no psnr tool)"
		return
	fi
	if verdict=$("$PSNR" "$a" "$b"); then
		if [ "$verdict" = identical ]; then
			record PASS "$name" "bit-identical"
			rm -f "$b"
			return
		fi
		record PASS "$name" "NOT identical: $verdict"
	else
		record FAIL "$name" "$verdict"
	fi
}

# ---- the gallery: GPU alone, CPU alone, both together ----------------------
if [ $HAVE_TRACE = 1 ]; then
	for scene in scenes/examples/*.json; do
		n=$(basename "$scene" .json)
		step "cpu-$n" 120 "$TRACE" render "$scene" -o "$OUT/img/$n.cpu.pfm" --threads "$NPROC"
		step "gpu-$n" 120 "$TRACE" render "$scene" -o "$OUT/img/$n.gpu.pfm" --gpus 1 --threads 0
		step "gpu-png-$n" 60 "$TRACE" render "$scene" -o "$OUT/img/$n.gpu.png" --gpus 1 --threads 0 -q
		step "mixed-$n" 120 "$TRACE" render "$scene" -o "$OUT/img/$n.mixed.pfm" --gpus 1 --threads "$NPROC" --tile 16
		compare "same-gpu-cpu-$n" "$OUT/img/$n.cpu.pfm" "$OUT/img/$n.gpu.pfm"
		compare "same-mixed-cpu-$n" "$OUT/img/$n.cpu.pfm" "$OUT/img/$n.mixed.pfm"
		# The CPU's frame is kept only as the reference of a difference.
		[ -e "$OUT/img/$n.gpu.pfm" ] || [ -e "$OUT/img/$n.mixed.pfm" ] || rm -f "$OUT/img/$n.cpu.pfm"
	done
	# A larger path-traced frame: the GPU against every CPU core.
	big=(scenes/examples/cornell-box.json --width 512 --height 512 --samples 64)
	step big-cpu 180 "$TRACE" render "${big[@]}" -o "$OUT/img/big.cpu.pfm" --threads "$NPROC"
	step big-gpu 180 "$TRACE" render "${big[@]}" -o "$OUT/img/big.gpu.pfm" --gpus 1 --threads 0
	compare same-big "$OUT/img/big.cpu.pfm" "$OUT/img/big.gpu.pfm"
	[ -e "$OUT/img/big.gpu.pfm" ] || rm -f "$OUT/img/big.cpu.pfm"
fi

# ---- benchmarks: trace bench on the CPU; GPU and same-machine CPU figures ------------------------------------------------------------
if [ $HAVE_TRACE = 1 ]; then
	step bench-cpu 240 "$TRACE" bench --threads "$NPROC"
fi
if [ -x bin/kernels-cuda.test ]; then
	step bench-gpu 240 bash -c 'cd kernels && TRACE_GPU_REQUIRED=1 exec ../bin/kernels-cuda.test \
		-test.run "^$" -test.bench "^Benchmark(GPU|CPU)" -test.benchtime 3x -test.timeout 230s'
fi

# The render summaries (rays/s) side by side, for the note.
grep -h 'rays/s' "$OUT"/log/cpu-*.log "$OUT"/log/gpu-*.log "$OUT"/log/mixed-*.log "$OUT"/log/big-*.log >"$OUT/rays.txt" 2>/dev/null
rm -rf "$PSNR_DIR"
summary
[ "$FAILED" -eq 0 ]
