//go:build unix

package checkpoint

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an advisory lock on f, shared or exclusive, without waiting:
// errInUse when another open of the file holds one that excludes it. A
// file system that has no locks (some network ones) locks nothing.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errInUse
		}
		return nil // no locks here: nothing to hold
	}
}

// processRunning reports whether a process with the ID pid runs on this
// machine (or may: one that this user cannot signal runs).
func processRunning(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// openNoFollow makes an open fail on a symbolic link.
const openNoFollow = syscall.O_NOFOLLOW
