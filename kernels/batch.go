package kernels

// BatchHinter is implemented by a Device that can tell how many pixels one
// TracePixels call needs to keep it busy: the CUDA device, from its
// multiprocessor count and the occupancy its driver reports. A caller that
// is not told a batch size (scheduler.GPUWorker with BatchPixels 0) asks
// it; a Device without it (the emulator) gets the caller's default.
type BatchHinter interface {
	// BatchPixels returns the pixels (threads, one per pixel) per launch
	// that fill the device for at least MinBatchWaves full waves, or 0
	// when the device cannot tell.
	BatchPixels() int
}

const (
	// MinBatchWaves is the fewest full waves a hinted batch fills: a
	// launch's last, partial wave then leaves the device idle for at
	// most an eighth of the launch (at 1.29 waves, a 65,536-pixel batch
	// on an H200, it was a third).
	MinBatchWaves = 8
	// MaxBatchPixels bounds a hinted batch: its host and device buffers
	// take 36 bytes a pixel, and a batch larger than a frame only leases
	// the whole frame at once.
	MaxBatchPixels = 1 << 22
)

// WaveBatchPixels is the batch of at least MinBatchWaves full waves on a
// device of multiprocessors multiprocessors that hold blocksPerSM blocks of
// blockDim threads each at a time: MinBatchWaves × multiprocessors ×
// blocksPerSM × blockDim, at most MaxBatchPixels. It is 0 (no hint) when
// any argument is not positive.
func WaveBatchPixels(multiprocessors, blocksPerSM, blockDim int) int {
	if multiprocessors <= 0 || blocksPerSM <= 0 || blockDim <= 0 {
		return 0
	}
	wave := multiprocessors * blocksPerSM * blockDim
	if wave > MaxBatchPixels/MinBatchWaves {
		return MaxBatchPixels
	}
	return MinBatchWaves * wave
}

// SMLimits are what bounds the blocks one multiprocessor holds at a time,
// as the driver reports them for a device (cuDeviceGetAttribute).
type SMLimits struct {
	Registers int // 32-bit registers per multiprocessor (65536 on sm_80 and sm_90)
	Threads   int // resident threads per multiprocessor (2048 on sm_80 and sm_90)
	Blocks    int // resident blocks per multiprocessor (32 on sm_80 and sm_90)
}

// Register allocation on sm_80 and sm_90, the CUDA occupancy calculator's
// figures (and scripts/ptx-report.sh's): a warp's registers are allocated
// in units of 256, a warp is 32 threads.
const (
	warpThreads     = 32
	regAllocPerWarp = 256
)

// BlocksPerSM is the number of blocks of blockDim threads, each thread
// using regsPerThread registers, that one multiprocessor of limits holds at
// a time, by registers, threads and blocks (the kernel uses no shared
// memory): what cuOccupancyMaxActiveBlocksPerMultiprocessor answers, for
// when the driver does not. It is 0 when a block does not fit or an
// argument is not positive.
func BlocksPerSM(regsPerThread, blockDim int, limits SMLimits) int {
	if regsPerThread <= 0 || blockDim <= 0 || limits.Registers <= 0 || limits.Threads <= 0 || limits.Blocks <= 0 {
		return 0
	}
	warps := (blockDim + warpThreads - 1) / warpThreads
	perWarp := (regsPerThread*warpThreads + regAllocPerWarp - 1) / regAllocPerWarp * regAllocPerWarp
	byRegs := limits.Registers / (perWarp * warps)
	byThreads := limits.Threads / (warps * warpThreads)
	return min(byRegs, byThreads, limits.Blocks)
}

// batchFits reports whether a device's batch buffers, made for capPixels
// pixels with wavefront slots of capSlot bytes, hold a launch of n pixels
// whose slots take slot bytes each (0: the megakernel, no slots). A Whitted
// scene's slots are larger than a path scene's, so a batch made for one
// may not hold the same pixels of the other.
func batchFits(capPixels, capSlot, n, slot int) bool {
	return n <= capPixels && slot <= capSlot
}
