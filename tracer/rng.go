package tracer

import "math/bits"

// Sampler hands out the random numbers of one pixel sample under the
// determinism contract: each number is a pure function of (seed, x, y,
// sample index, dimension), never of which thread, tile or device rendered
// the sample, nor of what was drawn before. The kernel's C has the same
// functions (kernels/vec.h).
//
// The numbers are stratified across a pixel's samples: each pair of
// dimensions is an Owen-scrambled (0,2)-sequence — Sobol's first two
// dimensions — and each single dimension an Owen-scrambled van der Corput
// sequence, with the order of the sample indices shuffled per pixel and per
// dimension so that different dimensions do not correlate (Burley,
// "Practical Hash-based Owen Scrambling", JCGT 2020). Any prefix of a
// power-of-two number of samples is then stratified in every 1-D and 2-D
// projection the integrators use: pixel area, lens, light and BSDF samples.
type Sampler struct {
	seed  uint32 // hash of the scene seed and the pixel
	index uint32 // the sample's index in its pixel
	dim   uint32 // the next dimension
}

// splitmix64 is the finaliser of SplitMix64 (Steele, Lea and Flood 2014).
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// hash32 is Wellons' lowbias32 integer hash.
func hash32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// owenScramble is a nested uniform scramble of the binary digits of x
// (most significant first) keyed by seed: Laine and Karras' permutation
// with Vegdahl's constants, applied to the reversed bits.
func owenScramble(x, seed uint32) uint32 {
	x = bits.Reverse32(x)
	x ^= x * 0x3d20adea
	x += seed
	x *= (seed >> 16) | 1
	x ^= x * 0x05526c56
	x ^= x * 0x53a22864
	return bits.Reverse32(x)
}

// sobol1 is Sobol's second dimension as a 32-bit fraction: the first is
// bits.Reverse32.
func sobol1(i uint32) uint32 {
	v, x := uint32(1)<<31, uint32(0)
	for ; i != 0; i >>= 1 {
		if i&1 != 0 {
			x ^= v
		}
		v ^= v >> 1
	}
	return x
}

// unitFloat maps a 32-bit fraction to [0, 1) with its top 24 bits.
func unitFloat(x uint32) float32 { return float32(x>>8) * (1.0 / (1 << 24)) }

// NewSampler returns the numbers of sample s of pixel (x, y).
func NewSampler(seed uint64, x, y, s uint32) Sampler {
	k := splitmix64(splitmix64(seed) ^ (uint64(x) | uint64(y)<<32))
	return Sampler{seed: uint32(k) ^ uint32(k>>32), index: s}
}

// SetDimension makes d the next dimension drawn.
func (s *Sampler) SetDimension(d uint32) { s.dim = d }

// dimSeed returns the scrambling seed of dimension d.
func (s *Sampler) dimSeed(d uint32) uint32 { return hash32(s.seed ^ hash32(d+0x9e3779b9)) }

// Float returns the next dimension's number, uniform in [0, 1).
func (s *Sampler) Float() float32 {
	h := s.dimSeed(s.dim)
	s.dim++
	i := owenScramble(s.index, h)
	return unitFloat(owenScramble(bits.Reverse32(i), hash32(h)))
}

// Float2 returns the next two dimensions' numbers, uniform in [0, 1)².
func (s *Sampler) Float2() (float32, float32) {
	h := s.dimSeed(s.dim)
	s.dim += 2
	i := owenScramble(s.index, h)
	h1 := hash32(h)
	return unitFloat(owenScramble(bits.Reverse32(i), h1)), unitFloat(owenScramble(sobol1(i), hash32(h1)))
}
