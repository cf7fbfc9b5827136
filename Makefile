# trace: build, test and benchmark. `make test` is what CI runs.
GO     ?= go
BIN    ?= bin/trace
# Gofmt covers the tracked Go files (all files outside git).
GOFILES = $(shell git ls-files '*.go' 2>/dev/null | grep . || find . -name '*.go' -not -path './.gpu/*')

.PHONY: all build install test test-short race bench fuzz example gallery clean kernels check-ptx check-variants gen check-gen cuda vet-cuda proto check-proto \
	ptxas ptx-report check-ptxas check-cuda-headers test-gpu-check sanitize

all: build

# SIMD=simd builds with Go's experimental GOEXPERIMENT=simd. No code uses
# simd/archsimd any more (README, Speed: its AVX2 binning was slower than
# the SSE assembly), so it builds the same code as the default SIMD=.
SIMD ?=

build:
	GOEXPERIMENT=$(SIMD) $(GO) build -o $(BIN) ./cmd/trace

# Install trace where `go install` puts it ($(go env GOBIN), else bin in the
# first folder of $(go env GOPATH)), or into PREFIX/bin when PREFIX is given
# (make install PREFIX=/usr/local), and say so if that folder is not on
# the PATH.
PREFIX ?=
install:
	@set -e; if [ -n "$(PREFIX)" ]; then dir="$(PREFIX)/bin"; else \
		dir="$$($(GO) env GOBIN)"; [ -n "$$dir" ] || dir="$$($(GO) env GOPATH | cut -d: -f1)/bin"; fi; \
	mkdir -p "$$dir"; GOEXPERIMENT=$(SIMD) $(GO) build -o "$$dir/trace" ./cmd/trace; \
	echo "installed $$dir/trace"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "$$dir is not on your PATH: export PATH=\"$$dir:\$$PATH\"";; esac

# The whole suite: formatting, vet, every test, and the race detector on the
# scheduler and the CLI that drive goroutines (-short: without the tests
# that run the trace binary or a browser, whose races are not in this
# process); then the cuda build without CUDA (vet-cuda) and the kernel's C
# port under the address and undefined-behaviour sanitizers (sanitize).
test:
	@bad=$$(gofmt -l $(GOFILES)); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -race -short ./scheduler/... ./cmd/...
	$(GO) test -race -run 'BVH|Mesh' ./tracer/
	scripts/ptx-report-test.sh >/dev/null
	@$(MAKE) --no-print-directory vet-cuda
	@$(MAKE) --no-print-directory sanitize

test-short:
	$(GO) test -short ./...

# The trace bench workloads (one thread, then all), and the Go benchmarks.
bench: build
	./$(BIN) bench --threads 1
	./$(BIN) bench
	$(GO) test -run '^$$' -bench . -benchtime 3x ./tracer/ ./scheduler/ ./bench/

# Fuzz the scene, OBJ, glTF, MTL, PLY, STL and image parsers, the checkpoint reader and
# the worker's message handlers (bundle uploads included)
# for FUZZTIME each (default 1m).
FUZZTIME ?= 1m
fuzz:
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzOBJ$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzDecodeImage$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzGLTF$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzMeshoptDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzDracoDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzMTL$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzPLY$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzSTL$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scheduler/checkpoint -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scheduler/remote -run '^$$' -fuzz '^FuzzRenderStream$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scheduler/remote -run '^$$' -fuzz '^FuzzPutBundle$$' -fuzztime $(FUZZTIME)

# Render the Cornell box to cornell-box.png.
example: build
	./$(BIN) render scenes/examples/cornell-box.json -o cornell-box.png

# Re-render the README's gallery pictures into docs/.
gallery: build
	for s in scenes/examples/*.json; do ./$(BIN) render $$s -o docs/$$(basename $$s .json).png; done

clean:
	rm -rf bin

# ---- gRPC (scheduler/remote) ----------------------------------------------
# Regenerate the worker protocol's Go code from its .proto with Debian's
# protoc (apt-get install protobuf-compiler) and pinned Go plugins; commit
# the result. CI fails when it is stale (check-proto).
PROTO_DIR  = scheduler/remote/pb
PROTOC_GEN = $(CURDIR)/bin/protoc-plugins
PROTO_OUT ?= $(PROTO_DIR)
proto:
	@command -v protoc >/dev/null || { echo "make proto: no protoc: apt-get install protobuf-compiler"; exit 2; }
	GOBIN=$(PROTOC_GEN) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	GOBIN=$(PROTOC_GEN) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
	PATH="$(PROTOC_GEN):$$PATH" protoc --proto_path=$(PROTO_DIR) \
		--go_out=$(PROTO_OUT) --go_opt=paths=source_relative \
		--go-grpc_out=$(PROTO_OUT) --go-grpc_opt=paths=source_relative worker.proto

check-proto:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(MAKE) --no-print-directory proto PROTO_OUT="$$tmp" >/dev/null && \
	for f in worker.pb.go worker_grpc.pb.go; do \
		if ! cmp -s "$$tmp/$$f" $(PROTO_DIR)/$$f; then \
			echo "$(PROTO_DIR)/$$f is stale: run 'make proto' and commit it."; diff -u $(PROTO_DIR)/$$f "$$tmp/$$f" | head -30; exit 1; \
		fi; \
	done; echo "the generated protocol code is up to date"

# ---- CUDA (kernels/README.md) ----------------------------------------------
# The PTX comes from Debian's clang-19 (no nvcc): sm_80 gives PTX 7.0, which
# CUDA 11.1 to 13.x drivers compile at load time; -ffp-contract=off keeps
# every multiply and add rounded on its own, as the Go tracer does. Without
# a CUDA installation clang does not know the PTX version it may use for
# its builtins: +ptx70 (what it emits for sm_80 anyway) allows the warp
# builtins of the wavefront's queues (wave_reserve, kernels/wavefront.h).
CLANG     ?= clang-19
PTX       ?= kernels/trace.ptx
PTXFLAGS   = -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O3 -ffp-contract=off \
	-Xclang -target-feature -Xclang +ptx70 -S
CUDA_HOME ?= /usr/local/cuda
CUDASTUB   = $(CURDIR)/kernels/cudastub
# The stub libcuda of the compile-only check (vet-cuda): built here, never
# committed, never used by a real build.
STUBLIB   ?= $(CURDIR)/bin/cudastub

# Regenerate kernels/trace.ptx from kernels/trace.cu (commit the result;
# CI fails when it is stale). PTX=FILE writes elsewhere, PTXEXTRA adds
# clang flags (scripts/ptx-variants.sh: variants to measure on a GPU).
PTXEXTRA  ?=
kernels:
	cd kernels && $(CLANG) $(strip $(PTXFLAGS) $(PTXEXTRA)) -o $(abspath $(PTX)) trace.cu

# The kernel's variants in the source (scripts/ptx-variants.sh times them
# on a GPU): each must build as PTX and give the emulator the Go tracer's
# bits (CI).
VARIANTS = TRACE_MEGA_LOCKSTEP TRACE_FMATH_CALLS TRACE_VEC_CALLS TRACE_SHADE_ALL_QUARTERS=3 TRACE_SHADE_ALL_QUARTERS=5
check-variants:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; for v in $(VARIANTS); do \
		$(MAKE) -s --no-print-directory kernels PTX=$$tmp/$$v.ptx PTXEXTRA=-D$$v; \
		grep -q '^.visible .entry trace_pixels_path(' $$tmp/$$v.ptx; \
		CGO_CFLAGS="-O2 -g -D$$v" $(GO) test -count=1 -short ./kernels/emulator/ >$$tmp/test.log 2>&1 || \
			{ cat $$tmp/test.log; echo "check-variants: $$v: the emulator's tests fail"; exit 1; }; \
		echo "check-variants: $$v builds as PTX and gives the emulator's tests their bits"; \
	done

# CI's freshness check: regenerate into a temporary file and compare.
check-ptx:
	@tmp=$$(mktemp) && trap 'rm -f "$$tmp"' EXIT && \
	$(MAKE) --no-print-directory kernels PTX="$$tmp" && \
	if ! cmp -s "$$tmp" kernels/trace.ptx; then \
		echo "kernels/trace.ptx is stale: it differs from what 'make kernels' ($(CLANG)) builds from kernels/trace.cu."; \
		echo "Run 'make kernels' and commit kernels/trace.ptx. First lines of the difference:"; \
		diff -u kernels/trace.ptx "$$tmp" | head -40; exit 1; \
	fi; echo "kernels/trace.ptx is up to date"

# Regenerate kernels/scene_gen.h, the kernel's declarations of the compiled
# scene (structs, kinds with their count sentinels, limits, a static
# assertion per field), from the Go types: what `go generate ./kernels/...`
# runs (kernels/internal/gendecl); and the albedo tables of the GGX lobes'
# and rough glass's energy compensation, tracer/ggx_albedo_gen.go and
# kernels/ggx_albedo_gen.h, integrated in float64 (kernels/internal/genalbedo,
# about 4 s on 2 cores). Commit the
# results, and run make kernels after them. GEN=FILE, ALBEDO_GO=FILE and
# ALBEDO_H=FILE write elsewhere.
GEN ?= kernels/scene_gen.h
ALBEDO_GO ?= tracer/ggx_albedo_gen.go
ALBEDO_H ?= kernels/ggx_albedo_gen.h
gen:
	cd kernels && $(GO) run ./internal/gendecl -o $(abspath $(GEN))
	cd kernels && $(GO) run ./internal/genalbedo -go $(abspath $(ALBEDO_GO)) -h $(abspath $(ALBEDO_H))

# CI's freshness check of the generated files (go test ./kernels/... runs
# the same comparisons: TestHeaderIsFresh, TestTablesAreFresh).
check-gen:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(MAKE) --no-print-directory gen GEN="$$tmp/scene_gen.h" ALBEDO_GO="$$tmp/ggx_albedo_gen.go" ALBEDO_H="$$tmp/ggx_albedo_gen.h" >/dev/null && \
	for f in kernels/scene_gen.h tracer/ggx_albedo_gen.go kernels/ggx_albedo_gen.h; do \
		if ! cmp -s "$$tmp/$$(basename $$f)" $$f; then \
			echo "$$f is stale: it differs from what 'make gen' writes."; \
			echo "Run 'make gen' (or go generate ./kernels/...) and 'make kernels', and commit them. First lines of the difference:"; \
			diff -u $$f "$$tmp/$$(basename $$f)" | head -40; exit 1; \
		fi; echo "$$f is up to date"; \
	done

# NVIDIA's ptxas (CUDA 11.8: sm_80 to sm_90) from Debian bookworm's non-free
# nvidia-cuda-toolkit .deb, unpacked into CUDATK (not installed: its
# dependencies are 2.8 GB), fetched once and kept under bin/
# (scripts/fetch-ptxas.sh). PTXAS=FILE uses another.
CUDATK ?= $(CURDIR)/bin/cudatk
PTXAS  ?= $(CUDATK)/usr/bin/ptxas
ptxas: $(PTXAS)
$(PTXAS):
	scripts/fetch-ptxas.sh $(CUDATK)

# The committed PTX as ptxas assembles it for the H200 (sm_90): registers,
# stack frame, spills and the warps per multiprocessor they allow at the
# block size kernels/cuda.go launches (README, Speed). REGS=entry=N,...
# reports it with those entries' registers capped, as TRACE_GPU_REGS has
# a GPU load it (kernels/README.md, Register caps).
REGS ?=
ptx-report: $(PTXAS)
	@if [ -z "$(REGS)" ]; then scripts/ptx-report.sh --ptxas $(PTXAS) $(PTX) sm_90 2>/dev/null; else \
		tmp=$$(mktemp) && trap 'rm -f "$$tmp"' EXIT && \
		$(GO) run ./kernels/internal/capregs -regs '$(REGS)' -o "$$tmp" $(PTX) && \
		echo "TRACE_GPU_REGS=$(REGS)" && scripts/ptx-report.sh --ptxas $(PTXAS) "$$tmp" sm_90 2>/dev/null; fi

# CI: ptxas must accept the committed PTX for sm_80 and sm_90 without spills.
check-ptxas: $(PTXAS)
	@scripts/ptx-report.sh --check --ptxas $(PTXAS) $(PTX) sm_80 sm_90 2>/dev/null && \
	echo "ptxas accepts $(PTX) for sm_80 and sm_90 without spills"

# CI: the cuda build against NVIDIA's own cuda.h, and against that header
# with CUDA 13.0's changed entry points, with the compat shim
# (scripts/cuda-headers-check.sh; Debian trixie non-free's nvidia-cuda-dev,
# of which only cuda.h and the stub libcuda.so are unpacked under bin/).
CUDADEV ?= bin/nvidia-cuda-dev
check-cuda-headers:
	@scripts/cuda-headers-check.sh $(CUDADEV)

# scripts/gpu-check.sh run here against the stub driver, under a deadline,
# on a bare machine, and with a .gpu packed in a worktree (CI).
test-gpu-check:
	scripts/ptx-report-test.sh
	scripts/gpu-check-test.sh

# bin/trace with CUDA GPU workers, against an installed CUDA toolkit (11.x to
# 13.x; CUDA_HOME). The compat folder comes first so that its cuda.h can
# #include_next the toolkit's and undo what CUDA 13 changed (kernels/README.md).
cuda:
	@test -f $(CUDA_HOME)/include/cuda.h || { echo "make cuda: no $(CUDA_HOME)/include/cuda.h: install the CUDA toolkit or set CUDA_HOME"; exit 2; }
	CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -I$(CUDASTUB)/compat -I$(CUDA_HOME)/include $(CGO_CFLAGS)" \
	CGO_LDFLAGS="-L$(CUDA_HOME)/lib64/stubs -L$(CUDA_HOME)/lib64 $(CGO_LDFLAGS)" \
	GOEXPERIMENT=$(SIMD) $(GO) build -tags cuda -o $(BIN) ./cmd/trace

# stub_driver FLAGS,OUT: the stub libcuda (kernels/cudastub/fake/libcuda.c,
# which runs trace.cu as C) built with FLAGS into OUT.
comma := ,
stub_driver = $(CC) -shared -fPIC -std=c11 -pthread -Wall -Wno-unused-parameter \
	-I$(CUDASTUB)/compat -I$(CUDASTUB)/fake $(1) -o $(2) $(CUDASTUB)/fake/libcuda.c -lm

# The kernel's C port under AddressSanitizer and UndefinedBehaviorSanitizer,
# float-to-int conversions out of range included: a read past a device
# array, which a GPU answers with a fault or garbage, and a conversion that
# C leaves undefined and a GPU saturates, fail here, where the pixels would
# still match. First the emulator's tests (its device memory is malloc's),
# then the cuda-tagged GPU tests on the stub driver built with the
# sanitizers (device memory from its cuMemAlloc), with the device choosing
# its kernel (the default), on the wavefront and on the megakernels. Part
# of make test.
SANITIZE   = -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
ASANLIB   ?= $(CURDIR)/bin/cudastub-asan
sanitize:
	CGO_CFLAGS="-O2 -g -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all" CGO_LDFLAGS="-fsanitize=undefined" \
		$(GO) test -asan -count=1 ./kernels/emulator/
	@mkdir -p $(ASANLIB)
	$(call stub_driver,-O1 -g -fno-omit-frame-pointer $(SANITIZE) -Wl$(comma)-soname$(comma)libcuda.so.1,$(ASANLIB)/libcuda.so)
	ln -sf libcuda.so $(ASANLIB)/libcuda.so.1
	CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -I$(CUDASTUB)/compat -I$(CUDASTUB)/fake" CGO_LDFLAGS="-L$(ASANLIB) -Wl,-rpath,$(ASANLIB)" \
		$(GO) test -asan -tags cuda -c -o $(ASANLIB)/kernels.test ./kernels/
	cd kernels && TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(ASANLIB)/kernels.test -test.count=1 -test.short -test.run '^TestGPU'
	cd kernels && TRACE_GPU_KERNEL=wavefront TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(ASANLIB)/kernels.test -test.count=1 -test.short -test.run '^TestGPU'
	cd kernels && TRACE_GPU_KERNEL=megakernel TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(ASANLIB)/kernels.test -test.count=1 -test.short -test.run '^TestGPU'

# The cuda-tagged code compiled, vetted and run without CUDA, against a
# compile-only cuda.h and a stub libcuda (kernels/cudastub/fake): with no
# devices, then with one emulated device that runs the kernel source as C,
# so that kernels/cuda.go and --gpus run for real, if not on a GPU.
CUDASTUB_ENV = CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -I$(CUDASTUB)/compat -I$(CUDASTUB)/fake" \
	CGO_LDFLAGS="-L$(STUBLIB) -Wl,-rpath,$(STUBLIB)"
vet-cuda:
	@mkdir -p $(STUBLIB)
	$(call stub_driver,-O2,$(STUBLIB)/libcuda.so)
	$(CUDASTUB_ENV) $(GO) vet -tags cuda ./...
	GOEXPERIMENT=$(SIMD) $(CUDASTUB_ENV) $(GO) build -tags cuda -o $(STUBLIB)/trace ./cmd/trace # make build's traversal
	$(CUDASTUB_ENV) $(GO) test -tags cuda -count=1 -run '^TestGPU' ./kernels/
	TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(CUDASTUB_ENV) $(GO) test -tags cuda -count=1 -short -run '^TestGPU' ./kernels/
	TRACE_GPU_KERNEL=wavefront TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(CUDASTUB_ENV) $(GO) test -tags cuda -count=1 -short -run '^TestGPU' ./kernels/ # scenes on the wavefront
	TRACE_GPU_KERNEL=megakernel TRACE_CUDASTUB_DEVICES=1 TRACE_GPU_REQUIRED=1 $(CUDASTUB_ENV) $(GO) test -tags cuda -count=1 -short -run '^TestGPU' ./kernels/ # and on the megakernels
	@out=$$($(STUBLIB)/trace render scenes/examples/cornell-box.json -o $(STUBLIB)/never.png --gpus 1 -q 2>&1); rc=$$?; \
	if [ $$rc -ne 2 ] || ! echo "$$out" | grep -q 'no CUDA device'; then \
		echo "vet-cuda: trace --gpus 1 without devices: want exit 2 and 'no CUDA device', got $$rc: $$out"; exit 1; fi
	@set -e; for s in scenes/examples/*.json; do \
		n=$$(basename $$s .json); \
		$(STUBLIB)/trace render $$s -o $(STUBLIB)/$$n.cpu.pfm --width 48 --height 40 --samples 4 --threads 2 -q; \
		TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$s -o $(STUBLIB)/$$n.gpu.pfm --width 48 --height 40 --samples 4 --gpus 1 --threads 0 -q; \
		TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$s -o $(STUBLIB)/$$n.mixed.pfm --width 48 --height 40 --samples 4 --gpus 1 --threads 2 --tile 8 -q; \
		cmp $(STUBLIB)/$$n.cpu.pfm $(STUBLIB)/$$n.gpu.pfm; cmp $(STUBLIB)/$$n.cpu.pfm $(STUBLIB)/$$n.mixed.pfm; \
	done; echo "vet-cuda: --gpus 1 on the stub driver: exit 2 without devices; with an emulated device, the gallery as the CPU renders it"
	@set -e; export TRACE_GPU_KERNEL=wavefront; args="scenes/examples/cornell-box.json --width 48 --height 40 --samples 4 --gpus 1 --threads 0"; \
	out=$$(TRACE_GPU_TIMES=1 TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/times.pfm 2>&1); \
	echo "$$out" | grep -Eq '^trace: gpu0 cudastub emulator, 2 lanes: kernel times of .* wf_shade .* wf_intersect .*; kernels [0-9.]+ s' || \
		{ echo "vet-cuda: TRACE_GPU_TIMES=1: no kernel times in: $$out"; exit 1; }; \
	cmp $(STUBLIB)/cornell-box.cpu.pfm $(STUBLIB)/times.pfm; \
	out=$$(TRACE_GPU_TIMES=1 TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/times.pfm --log-format json 2>&1); \
	echo "$$out" | grep -q '"msg":"kernel times","device":"gpu0 cudastub emulator","lanes":2,.*"entries":\[{"entry":"wf_init","launches":' || \
		{ echo "vet-cuda: TRACE_GPU_TIMES=1 --log-format json: no kernel times record in: $$out"; exit 1; }; \
	if TRACE_GPU_TIMES=yes TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/never.pfm -q 2>$(STUBLIB)/times.err; then \
		echo "vet-cuda: TRACE_GPU_TIMES=yes rendered"; exit 1; fi; \
	grep -q 'TRACE_GPU_TIMES="yes": want 1 or 0' $(STUBLIB)/times.err || { echo "vet-cuda: TRACE_GPU_TIMES=yes: $$(cat $(STUBLIB)/times.err)"; exit 1; }; \
	out=$$(TRACE_GPU_REGS=wf_shade=128 TRACE_GPU_TIMES=1 TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/times.pfm --log-format json 2>&1); \
	echo "$$out" | grep -q '"msg":"kernel times","device":"gpu0 cudastub emulator","lanes":2,"registers":"wf_shade=128",' || \
		{ echo "vet-cuda: TRACE_GPU_REGS=wf_shade=128: no caps in the kernel times record: $$out"; exit 1; }; \
	cmp $(STUBLIB)/cornell-box.cpu.pfm $(STUBLIB)/times.pfm; \
	if TRACE_GPU_REGS=wf_shade=512 TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/never.pfm -q 2>$(STUBLIB)/times.err; then \
		echo "vet-cuda: TRACE_GPU_REGS=wf_shade=512 rendered"; exit 1; fi; \
	grep -q 'TRACE_GPU_REGS="wf_shade=512": wf_shade.s registers must be' $(STUBLIB)/times.err || { echo "vet-cuda: TRACE_GPU_REGS=wf_shade=512: $$(cat $(STUBLIB)/times.err)"; exit 1; }; \
	if TRACE_GPU_PTX=$(STUBLIB)/absent.ptx TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/never.pfm -q 2>$(STUBLIB)/times.err; then \
		echo "vet-cuda: TRACE_GPU_PTX=absent.ptx rendered"; exit 1; fi; \
	grep -q 'TRACE_GPU_PTX: open .*absent.ptx: no such file' $(STUBLIB)/times.err || { echo "vet-cuda: TRACE_GPU_PTX=absent.ptx: $$(cat $(STUBLIB)/times.err)"; exit 1; }; \
	test ! -e $(STUBLIB)/never.pfm || { echo "vet-cuda: a failed render wrote never.pfm"; exit 1; }; \
	echo "vet-cuda: TRACE_GPU_TIMES=1 prints each device's kernel times (text and json), the same image, with TRACE_GPU_REGS's caps too; another value of either, or a TRACE_GPU_PTX that is not there, fails"
	@set -e; args="scenes/examples/pbr.json --width 48 --height 40 --samples 4 --gpus 1 --threads 0"; \
	out=$$(TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/auto.pfm 2>&1); \
	echo "$$out" | grep -Eq '^trace: gpu0 cudastub emulator: the (wavefront|megakernels), chosen on 256 pixels each: [0-9.]+ M rays/s, the (wavefront|megakernels) [0-9.]+ M$$' || \
		{ echo "vet-cuda: no line on the kernel the device chose in: $$out"; exit 1; }; \
	cmp $(STUBLIB)/pbr.cpu.pfm $(STUBLIB)/auto.pfm; \
	out=$$(TRACE_GPU_KERNEL=megakernel TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace render $$args -o $(STUBLIB)/auto.pfm --log-format json 2>&1); \
	echo "$$out" | grep -q '"msg":"gpu kernel","device":"gpu0 cudastub emulator","set":"megakernel","kernel":"megakernel","probed":false}' || \
		{ echo "vet-cuda: TRACE_GPU_KERNEL=megakernel --log-format json: no gpu kernel record in: $$out"; exit 1; }; \
	echo "vet-cuda: a device that chooses its kernel says which and why (text), one told says so (json), the same image"
	@set -e; log=$(STUBLIB)/worker.log; \
	TRACE_GPU_KERNEL=wavefront TRACE_GPU_TIMES=1 TRACE_CUDASTUB_DEVICES=1 $(STUBLIB)/trace worker --listen 127.0.0.1:0 --gpus 1 --threads 0 2>$$log & pid=$$!; \
	trap 'kill $$pid 2>/dev/null || true' EXIT; \
	for i in $$(seq 100); do addr=$$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' $$log); [ -n "$$addr" ] && break; sleep 0.1; done; \
	$(STUBLIB)/trace render scenes/examples/mesh.json -o $(STUBLIB)/mesh.worker-gpu.pfm --width 48 --height 40 --samples 4 --threads 0 --workers $$addr -q; \
	cmp $(STUBLIB)/mesh.cpu.pfm $(STUBLIB)/mesh.worker-gpu.pfm; \
	kill -TERM $$pid; wait $$pid || true; \
	grep -q 'kernel times.*gpu0 cudastub emulator, 2 lanes: kernel times of .* wf_shade ' $$log || \
		{ echo "vet-cuda: trace worker with TRACE_GPU_TIMES=1 logged no kernel times when it stopped:"; cat $$log; exit 1; }; \
	grep -q 'gpu kernel.*gpu0 cudastub emulator: the wavefront (TRACE_GPU_KERNEL=wavefront)' $$log || \
		{ echo "vet-cuda: trace worker logged no gpu kernel line at the job's end:"; cat $$log; exit 1; }; \
	echo "vet-cuda: trace worker --gpus 1 --threads 0 on an emulated device renders the mesh scene as the CPU does, logs the kernel it ran the job on, and its kernel times when it stops"

# ---- End-to-end: Slurm and containers (deploy/README.md, "Tested here") ----
# deploy/slurm/trace.sbatch on a one-node Slurm cluster, and the FROM-scratch
# image with the Kubernetes manifests under podman, each PNG compared with a
# local render. Needs root: it installs Debian's packages and starts daemons
# and containers (and skips, saying why, where it cannot). CI runs it after
# make test, which does not.
.PHONY: e2e
e2e:
	bash deploy/e2e/run.sh
