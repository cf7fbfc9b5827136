//go:build !amd64

package tracer

// trav4Asm is false off amd64: the wide traversal runs its Go loops.
const trav4Asm = false

func (s *Scene) intersectWideAsm(r Ray, h Hit) (Hit, bool) { return h, false }

func (s *Scene) occludedWideAsm(r Ray) (occluded, ok bool) { return false, false }
