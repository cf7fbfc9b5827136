//go:build !amd64

package tracer

// trav4Asm is false off amd64: the wide traversal runs its Go loops.
const trav4Asm = false

func (s *Scene) intersectAsm(*Ray, *Hit) bool { return false }

// Results of occludedAsm, which this build has not.
const (
	trav4Miss = iota
	trav4Hit
	trav4Fallback
)

func (s *Scene) occludedAsm(*Ray) uint32 { return trav4Fallback }

func (s *Scene) packetsAsm([]Ray, []Hit, *[4]Ray, bool, int) int { return 0 }
