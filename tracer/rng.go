package tracer

// Sampler is the counter-based random number generator of the determinism
// contract: the numbers one pixel sample draws depend only on (seed, x, y,
// sample index) and on how many it drew before, never on which thread, tile
// or device rendered it. The kernel's C has the same function.
type Sampler struct {
	key     uint64
	counter uint64
}

// splitmix64 is the finaliser of SplitMix64 (Steele, Lea and Flood 2014).
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewSampler returns the random stream of sample s of pixel (x, y).
func NewSampler(seed uint64, x, y, s uint32) Sampler {
	k := splitmix64(seed)
	k = splitmix64(k ^ (uint64(x) | uint64(y)<<32))
	k = splitmix64(k ^ uint64(s))
	return Sampler{key: k}
}

// Float returns the next number, uniform in [0, 1) with 24 random bits.
func (s *Sampler) Float() float32 {
	s.counter++
	v := splitmix64(s.key + s.counter*0xd1342543de82ef95)
	return float32(float32(uint32(v>>40)) * (1.0 / (1 << 24)))
}
