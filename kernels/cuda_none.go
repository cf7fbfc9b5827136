//go:build !cuda

package kernels

import "fmt"

// openDevices is OpenDevices in a build without CUDA support.
func openDevices(n int) ([]Device, error) {
	return nil, fmt.Errorf("%w: build it with `make cuda` on a machine with the CUDA toolkit (11.x to 13.x) installed, or render on the CPU only", ErrNoCUDA)
}
