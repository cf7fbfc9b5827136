//go:build !unix

package checkpoint

import "os"

// lock locks nothing where advisory file locks are not at hand: two
// renders may then write one checkpoint at once.
func lock(f *os.File, exclusive bool) error { return nil }

// processRunning says that every process may be running where this
// package cannot tell: create's files are then never removed as stale.
func processRunning(pid int) bool { return true }

// openNoFollow is 0 where open has no such flag.
const openNoFollow = 0
