package tracer

import (
	"syscall"
	"unsafe"
)

// hugePageSize is the size of a transparent huge page on the architectures
// Go supports on Linux.
const hugePageSize = 2 << 20

// adviseHugePages asks Linux to back the whole 2 MiB pages inside s's
// capacity with transparent huge pages (madvise MADV_HUGEPAGE), so that
// the first write to each faults in 2 MiB at once instead of 512 pages of
// 4 KiB: in a virtual machine, first touching fresh memory 4 KiB at a
// time costs about 3 ms per MB, as much as building a BVH over it. Call it
// on a large slice right after make, before it is written. The advice
// changes no data, only how the kernel maps the pages. Where transparent
// huge pages are off ("never" in /sys/kernel/mm/transparent_hugepage/
// enabled) or the memory is already mapped, it does nothing, and its
// error is ignored for that reason. Slices under two huge pages are left
// alone.
func adviseHugePages[T any](s []T) {
	size := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if size < 2*hugePageSize {
		return
	}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (start+hugePageSize-1)&^(hugePageSize-1) - start // first boundary inside
	hi := (start+size)&^(hugePageSize-1) - start           // last boundary inside
	_ = syscall.Madvise(mem[lo:hi], syscall.MADV_HUGEPAGE)
}
