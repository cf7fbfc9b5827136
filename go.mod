module github.com/tracerender/trace

go 1.26.8

require (
	github.com/go-gl/mathgl v1.2.0
	github.com/qmuntal/gltf v0.29.0
	github.com/spf13/pflag v1.1.0
	golang.org/x/image v0.48.0
	gorgonia.org/cu v0.9.6
)

require (
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
)
