# syntax=docker/dockerfile:1
#
# trace for CPU workers and renders: a static binary (no cgo) on a distroless
# base, run as the non-root user 65532. Untested here: the development
# machines have no Docker engine.
#
#   docker build -t trace:latest .
#   docker run --rm -e TRACE_TOKEN=... -p 7000:7000 trace:latest
#
# The deployment under deploy/ runs this image (deploy/README.md).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# As make build (README, Speed).
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
        -ldflags "-s -w -X main.version=${VERSION}" -o /out/trace ./cmd/trace

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/trace /trace
USER 65532:65532
# 7000: trace worker's gRPC (and health) port; 9090: its --metrics.
EXPOSE 7000 9090
ENTRYPOINT ["/trace"]
CMD ["worker", "--listen", ":7000"]
