package kernels

import "testing"

// sm90 are the multiprocessor limits of sm_80 and sm_90 (A100, H100, H200).
var sm90 = SMLimits{Registers: 65536, Threads: 2048, Blocks: 32}

func TestBlocksPerSM(t *testing.T) {
	for _, c := range []struct {
		name        string
		regs, block int
		limits      SMLimits
		want        int
	}{
		{"242 registers (trace_pixels today): 8 warps", 242, 128, sm90, 2},
		{"256 registers, the most a thread has", 255, 128, sm90, 2},
		{"168 registers: 5376 a warp, 12 warps", 168, 128, sm90, 3},
		{"170 registers: 5440 a warp, allocated 5632: 8 warps", 170, 128, sm90, 2},
		{"160 registers: 12 warps", 160, 128, sm90, 3},
		{"128 registers: 16 warps", 128, 128, sm90, 4},
		{"64 registers: 32 warps", 64, 128, sm90, 8},
		{"32 registers: threads bound, 64 warps", 32, 128, sm90, 16},
		{"16 registers, one warp a block: blocks bound", 16, 32, sm90, 32},
		{"a block of 100 threads takes 4 warps", 64, 100, sm90, 8},
		{"a block whose registers do not fit", 255, 1024, sm90, 0},
		{"sm_86: 1536 threads, 16 blocks", 32, 128, SMLimits{65536, 1536, 16}, 12},
		{"no registers reported", 0, 128, sm90, 0},
		{"no block", 64, 0, sm90, 0},
		{"no limits reported", 64, 128, SMLimits{}, 0},
	} {
		if got := BlocksPerSM(c.regs, c.block, c.limits); got != c.want {
			t.Errorf("%s: BlocksPerSM(%d, %d, %+v) = %d, want %d", c.name, c.regs, c.block, c.limits, got, c.want)
		}
	}
}

func TestWaveBatchPixels(t *testing.T) {
	for _, c := range []struct {
		name               string
		sms, blocks, block int
		want               int
	}{
		{"H200 today: 132 SMs, 2 blocks of 128", 132, 2, 128, 8 * 132 * 2 * 128}, // 270,336
		{"A100: 108 SMs", 108, 2, 128, 8 * 108 * 2 * 128},
		{"H200 at 32 warps an SM", 132, 8, 128, 8 * 132 * 8 * 128},
		{"one SM, one block, one thread", 1, 1, 1, 8},
		{"the largest wave not clamped", 1 << 9, 8, 128, MaxBatchPixels},
		{"clamped", 1 << 12, 32, 1024, MaxBatchPixels},
		{"no SMs reported", 0, 2, 128, 0},
		{"no occupancy reported", 132, 0, 128, 0},
		{"negative block", 132, 2, -128, 0},
	} {
		got := WaveBatchPixels(c.sms, c.blocks, c.block)
		if got != c.want {
			t.Errorf("%s: WaveBatchPixels(%d, %d, %d) = %d, want %d", c.name, c.sms, c.blocks, c.block, got, c.want)
		}
		// Unless clamped, a batch of got pixels is at least MinBatchWaves
		// full waves of ⌈got/block⌉ blocks.
		if got > 0 && got < MaxBatchPixels {
			if waves := (got + c.block - 1) / c.block / (c.sms * c.blocks); waves < MinBatchWaves {
				t.Errorf("%s: %d pixels are %d waves, want at least %d", c.name, got, waves, MinBatchWaves)
			}
		}
	}
}

// TestBatchFits: buffers are made again when a launch has more pixels, or
// larger slots (a Whitted scene after a path-traced one), than they hold.
func TestBatchFits(t *testing.T) {
	for _, c := range []struct {
		capPixels, capSlot, n, slot int
		want                        bool
	}{
		{4096, PathSlotSize, 4096, PathSlotSize, true},
		{4096, PathSlotSize, 4097, PathSlotSize, false},
		{4096, PathSlotSize, 100, WhittedSlotSize, false},
		{4096, WhittedSlotSize, 100, PathSlotSize, true},
		{4096, 0, 100, 0, true},
		{4096, 0, 100, PathSlotSize, false},
		{4096, PathSlotSize, 100, 0, true},
		{0, 0, 1, 0, false},
	} {
		if got := batchFits(c.capPixels, c.capSlot, c.n, c.slot); got != c.want {
			t.Errorf("batchFits(%d, %d, %d, %d) = %v, want %v", c.capPixels, c.capSlot, c.n, c.slot, got, c.want)
		}
	}
}
