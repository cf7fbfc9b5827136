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
	index uint32 // the sample's index in its pixel, bit-reversed
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

// laineKarras is Laine and Karras' permutation of the bits of x with
// Vegdahl's constants: each bit is flipped depending only on the seed and
// the bits below it. On bit-reversed numbers it is a nested uniform (Owen)
// scramble of their binary digits, most significant first.
func laineKarras(x, seed uint32) uint32 {
	x ^= x * 0x3d20adea
	x += seed
	x *= (seed >> 16) | 1
	x ^= x * 0x05526c56
	x ^= x * 0x53a22864
	return x
}

// sobol1Reversed is Sobol's second dimension of index i as a 32-bit
// fraction, bit-reversed. Its generator matrix is Pascal's triangle mod 2,
// so by Lucas' theorem bit j of the result is the parity of the bits k of
// i with j ⊆ k (as bit sets): a superset sum, five shift-and-xor steps.
// (Sobol's direction numbers for it, reversed, are 1 and then v ^ v<<1 of
// the previous; the tests compare both forms.)
func sobol1Reversed(i uint32) uint32 {
	i ^= (i >> 1) & 0x55555555
	i ^= (i >> 2) & 0x33333333
	i ^= (i >> 4) & 0x0f0f0f0f
	i ^= (i >> 8) & 0x00ff00ff
	i ^= (i >> 16) & 0x0000ffff
	return i
}

// unitFloat maps a 32-bit fraction to [0, 1) with its top 24 bits.
func unitFloat(x uint32) float32 { return float32(x>>8) * (1.0 / (1 << 24)) }

// NewSampler returns the numbers of sample s of pixel (x, y).
func NewSampler(seed uint64, x, y, s uint32) Sampler {
	k := splitmix64(splitmix64(seed) ^ (uint64(x) | uint64(y)<<32))
	return Sampler{seed: uint32(k) ^ uint32(k>>32), index: bits.Reverse32(s)}
}

// SetDimension makes d the next dimension drawn.
func (s *Sampler) SetDimension(d uint32) { s.dim = d }

// shuffled returns the sample's index in the order of dimension d and the
// scrambling seed of d. The shuffle is an Owen scramble of the index's
// bits (Laine-Karras on the reversed index), which keeps every
// power-of-two run of samples stratified.
func (s *Sampler) shuffled(d uint32) (i, h uint32) {
	h = hash32(s.seed ^ (d * 0x9e3779b9))
	return bits.Reverse32(laineKarras(s.index, h)), h
}

// Float returns the next dimension's number, uniform in [0, 1).
func (s *Sampler) Float() float32 {
	i, h := s.shuffled(s.dim)
	s.dim++
	// Owen-scrambled van der Corput: reverse(LK(reverse(vdc))) and
	// reverse(vdc) is i.
	return unitFloat(bits.Reverse32(laineKarras(i, h*0x2c1b3c6d+0x297a2d39)))
}

// Float2 returns the next two dimensions' numbers, uniform in [0, 1)²:
// the Owen-scrambled point of a (0,2)-sequence.
func (s *Sampler) Float2() (float32, float32) {
	i, h := s.shuffled(s.dim)
	s.dim += 2
	x := bits.Reverse32(laineKarras(i, h*0x2c1b3c6d+0x297a2d39))
	y := bits.Reverse32(laineKarras(sobol1Reversed(i), h*0x5f356495+0x1b873593))
	return unitFloat(x), unitFloat(y)
}
