//go:build cuda

package kernels

import "gorgonia.org/cu"

// cudaAttrMaxBlocksPerSM is CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR
// (CUDA 11.0 on), which gorgonia.org/cu v0.9.6 does not name.
const cudaAttrMaxBlocksPerSM cu.DeviceAttribute = 106

// cudaMostBlocksPerSM is the most resident blocks per multiprocessor of
// any GPU the PTX runs on (sm_80 and sm_90: 32), assumed when the driver
// does not say: too many blocks makes a hinted batch larger, never short
// of its waves.
const cudaMostBlocksPerSM = 32

var _ BatchHinter = (*cudaDevice)(nil)

// BatchPixels implements BatchHinter: MinBatchWaves full waves of the
// device's launches (WaveBatchPixels), measured when the device was
// opened; 0 when the driver reports neither occupancy nor registers.
func (d *cudaDevice) BatchPixels() int { return d.batchPixels }

// cudaBatchPixels is the batch that fills dev for MinBatchWaves waves with
// launches of any of fns in blocks of block threads: the largest of the
// functions' (Upload picks the function of the scene's integrator after
// a GPUWorker has sized its batches). It runs on the device goroutine.
func cudaBatchPixels(dev cu.Device, fns []cu.Function, block int) int {
	sms, err := dev.Attribute(cu.MultiprocessorCount)
	if err != nil {
		return 0
	}
	most := 0
	for _, fn := range fns {
		most = max(most, WaveBatchPixels(sms, cudaBlocksPerSM(dev, fn, block), block))
	}
	return most
}

// cudaWaveThreads is the threads of fn that dev holds at once in blocks
// of block: a full wave; 0 when the driver reports neither occupancy nor
// registers. It runs on the device goroutine.
func cudaWaveThreads(dev cu.Device, fn cu.Function, block int) int {
	sms, err := dev.Attribute(cu.MultiprocessorCount)
	if err != nil {
		return 0
	}
	return sms * cudaBlocksPerSM(dev, fn, block) * block
}

// cudaBlocksPerSM is the blocks of block threads of fn that one
// multiprocessor of dev holds at a time: the driver's occupancy
// calculator (cuOccupancyMaxActiveBlocksPerMultiprocessor), else the
// same arithmetic here (BlocksPerSM) from fn's registers and dev's limits.
func cudaBlocksPerSM(dev cu.Device, fn cu.Function, block int) int {
	if n, err := fn.MaxActiveBlocksPerMultiProcessor(block, 0); err == nil && n > 0 {
		return n
	}
	regs, err := fn.Attribute(cu.NumRegs)
	if err != nil {
		return 0
	}
	var limits SMLimits
	if limits.Registers, err = dev.Attribute(cu.MaxRegistersPerMultiprocessor); err != nil {
		return 0
	}
	if limits.Threads, err = dev.Attribute(cu.MaxThreadsPerMultiprocessor); err != nil {
		return 0
	}
	if limits.Blocks, err = dev.Attribute(cudaAttrMaxBlocksPerSM); err != nil || limits.Blocks <= 0 {
		limits.Blocks = cudaMostBlocksPerSM
	}
	return BlocksPerSM(regs, block, limits)
}
