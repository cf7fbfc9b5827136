# trace: build, test and benchmark. `make test` is what CI runs.
GO     ?= go
BIN    ?= bin/trace
# Gofmt covers the tracked Go files (all files outside git).
GOFILES = $(shell git ls-files '*.go' 2>/dev/null | grep . || find . -name '*.go' -not -path './.gpu/*')

.PHONY: all build test test-short race bench fuzz example gallery clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/trace

# The whole suite: formatting, vet, every test, and the race detector on the
# scheduler and the CLI that drive goroutines.
test:
	@bad=$$(gofmt -l $(GOFILES)); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -race ./scheduler/... ./cmd/...
	$(GO) test -race -run 'BVH|Mesh' ./tracer/

test-short:
	$(GO) test -short ./...

# The trace bench workloads (one thread, then all), and the Go benchmarks.
bench: build
	./$(BIN) bench --threads 1
	./$(BIN) bench
	$(GO) test -run '^$$' -bench . -benchtime 3x ./tracer/ ./scheduler/ ./bench/

# Fuzz the scene, OBJ and image parsers for FUZZTIME each (default 1m).
FUZZTIME ?= 1m
fuzz:
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzOBJ$$' -fuzztime $(FUZZTIME)
	$(GO) test ./scenes -run '^$$' -fuzz '^FuzzDecodeImage$$' -fuzztime $(FUZZTIME)

# Render the Cornell box to cornell-box.png.
example: build
	./$(BIN) render scenes/examples/cornell-box.json -o cornell-box.png

# Re-render the README's gallery pictures into docs/.
gallery: build
	for s in scenes/examples/*.json; do ./$(BIN) render $$s -o docs/$$(basename $$s .json).png; done

clean:
	rm -rf bin
