//go:build !linux

package tracer

// adviseHugePages does nothing outside Linux; see hugepage_linux.go.
func adviseHugePages[T any](s []T) {}
