package tracer

// Stats counts one worker's work. Each worker keeps its own and the
// scheduler adds them up at the end: no shared counter on the per-ray path.
type Stats struct {
	Rays    uint64 // ray-scene queries: camera, bounce and shadow rays
	Samples uint64 // pixel samples
	// NonFinite counts samples whose radiance was NaN or infinite and was
	// replaced by black.
	NonFinite uint64
}

// Add adds o to s.
func (s *Stats) Add(o Stats) {
	s.Rays += o.Rays
	s.Samples += o.Samples
	s.NonFinite += o.NonFinite
}
