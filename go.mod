module github.com/tracerender/trace

go 1.26.8

require (
	github.com/go-gl/mathgl v1.2.0 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
)
