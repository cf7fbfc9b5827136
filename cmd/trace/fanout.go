package main

// fanOut is a list of sinks of what a render reports — its progress, its
// finished tiles — each called in turn, in the order they were added.
type fanOut[T any] []func(T)

// callback returns the sinks as one callback (scheduler.Options.Progress
// or .Tile): nil when there are none, so that the scheduler copies no
// tile's pixels for nobody.
func (s fanOut[T]) callback() func(T) {
	if len(s) == 0 {
		return nil
	}
	return func(v T) {
		for _, f := range s {
			f(v)
		}
	}
}
