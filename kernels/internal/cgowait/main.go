// Command cgowait measures what a goroutine locked to its thread, as a
// GPU's device goroutine is, pays for a blocking cgo call of 100 µs while
// other goroutines keep every core busy, as a render's CPU threads do: the
// mean, median, 90th percentile and longest call of 2,000, for GOMAXPROCS
// equal to the busy goroutines, one more, and with a core to spare
// (cmd/trace's procsForGPUs).
//
//	go run ./kernels/internal/cgowait
package main

/*
#include <unistd.h>
static void wait100(void) { usleep(100); }
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

func main() {
	cores := runtime.NumCPU()
	for _, c := range []struct {
		what        string
		procs, busy int
	}{
		{"every processor tracing", cores, cores},
		{"a processor more", cores + 1, cores},
		{"a core to spare", cores, cores - 1},
	} {
		d := measure(c.procs, c.busy)
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		fmt.Printf("%-24s GOMAXPROCS %2d, %2d busy: mean %v, median %v, p90 %v, longest %v\n", c.what, c.procs, c.busy,
			(sum / time.Duration(len(d))).Round(time.Microsecond), d[len(d)/2].Round(time.Microsecond),
			d[len(d)*9/10].Round(time.Microsecond), d[len(d)-1].Round(time.Microsecond))
	}
}

// measure times 2,000 calls with GOMAXPROCS procs and busy goroutines
// spinning, sorted.
func measure(procs, busy int) []time.Duration {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var stop atomic.Bool
	for range busy {
		go func() {
			x := 0.0
			for !stop.Load() {
				for j := range 1000 {
					x += float64(j) * 1e-9
				}
			}
			_ = x
		}()
	}
	defer stop.Store(true)
	done := make(chan []time.Duration)
	go func() {
		runtime.LockOSThread()
		d := make([]time.Duration, 0, 2000)
		for range 2000 {
			t := time.Now()
			C.wait100()
			d = append(d, time.Since(t))
		}
		done <- d
	}()
	d := <-done
	slices.Sort(d)
	return d
}
