package scheduler

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkGallery renders each gallery scene at 128×128 with 16 samples
// per pixel on one thread and on every core, reporting samples/s and rays/s
// (every ray-scene query: camera, bounce and shadow rays). The ratio of
// the two gives the parallel efficiency.
func BenchmarkGallery(b *testing.B) {
	for _, name := range []string{"cornell-box", "whitted", "materials"} {
		s := loadScene(b, name, 128, 128, 16)
		for _, threads := range []int{1, runtime.NumCPU()} {
			b.Run(fmt.Sprintf("%s/threads=%d", name, threads), func(b *testing.B) {
				var samples, rays uint64
				for i := 0; i < b.N; i++ {
					res, err := Render(context.Background(), s, Options{Workers: []Worker{&CPUWorker{N: threads}}})
					if err != nil {
						b.Fatal(err)
					}
					samples += res.Progress.Stats.Samples
					rays += res.Progress.Stats.Rays
				}
				secs := b.Elapsed().Seconds()
				b.ReportMetric(float64(samples)/secs, "samples/s")
				b.ReportMetric(float64(rays)/secs, "rays/s")
			})
		}
	}
}
