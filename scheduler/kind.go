package scheduler

// WorkerKind says what renders a worker's tiles. Its value is the word
// the progress reports, the summary line, the watch page's JSON and the
// metrics' kind label show.
type WorkerKind string

// The kinds of workers.
const (
	KindCPU    WorkerKind = "cpu"    // goroutines of this process (CPUWorker)
	KindGPU    WorkerKind = "gpu"    // a kernels.Device (GPUWorker)
	KindRemote WorkerKind = "remote" // one trace worker machine
	// KindCluster is a worker made of machines (remote.Cluster) that
	// join the render one by one with Queue.Join, as KindRemote workers
	// of their own.
	KindCluster WorkerKind = "cluster"
)

// Renders says whether a worker of kind k renders tiles under its own
// name. A cluster does not: its machines join the render and report their
// own tiles, so its row in Progress.Workers counts nothing, and its
// errors name the machine already.
func (k WorkerKind) Renders() bool { return k != KindCluster }
