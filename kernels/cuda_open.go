package kernels

import "errors"

// ErrNoCUDA is wrapped by OpenDevices' error in a build without CUDA
// support (the default build; `make cuda` makes one with it).
var ErrNoCUDA = errors.New("this build of trace has no CUDA support")

// ErrTooFewDevices is wrapped by OpenDevices' error when the machine has
// fewer usable CUDA devices than asked for; the error lists those found.
var ErrTooFewDevices = errors.New("too few usable CUDA devices")

// OpenDevices opens the first n usable CUDA devices of the machine, each
// with the kernel loaded, ready for Upload. n < 1 opens none. It fails
// with an error wrapping ErrNoCUDA in a build without CUDA support, one
// wrapping ErrTooFewDevices that lists the devices found when there are
// fewer than n usable ones (a device is usable from compute capability 8.0
// on: the PTX targets sm_80), and with the driver's error when a device
// cannot be set up. The caller closes the devices.
func OpenDevices(n int) ([]Device, error) {
	if n < 1 {
		return nil, nil
	}
	return openDevices(n)
}
