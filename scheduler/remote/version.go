package remote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tracerender/trace/tracer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A coordinator and a worker render together only when they have the same
// tracer.PixelVersion: Open carries the coordinator's, which a worker of
// another refuses (FailedPrecondition, pixelVersionRefusal), and Ready the
// worker's, which the coordinator checks, for workers from before the
// check. Either way the coordinator does not use the worker, with one log
// line (Cluster.runWorker), and the other workers render the frame.

// pixelVersionPrefix starts a worker's refusal of a job of another
// PixelVersion.
const pixelVersionPrefix = "pixel version mismatch: "

// pixelVersionRefusal is a worker's refusal of a job whose coordinator
// renders pixel version theirs.
func pixelVersionRefusal(theirs uint32) string {
	return fmt.Sprintf("%sthis worker renders pixel version %d, the coordinator %s: run the same version of trace on both sides",
		pixelVersionPrefix, tracer.PixelVersion, versionName(theirs))
}

// pixelVersionError is a Ready from a worker of another PixelVersion.
type pixelVersionError struct{ worker uint32 }

func (e *pixelVersionError) Error() string {
	return fmt.Sprintf("it renders %s and this trace pixel version %d, so its pixels could differ: run the same version of trace on both sides",
		versionName(e.worker), tracer.PixelVersion)
}

// versionName names pixel version v; 0 is that of a trace from before
// pixel versions, which sends none.
func versionName(v uint32) string {
	if v == 0 {
		return "no pixel version (a trace from before pixel versions)"
	}
	return fmt.Sprintf("pixel version %d", v)
}

// pixelVersionMismatch says whether err is a worker's refusal of this
// coordinator's pixel version or a Ready with another one, and says which
// in one line.
func pixelVersionMismatch(err error) (string, bool) {
	if e, ok := errors.AsType[*pixelVersionError](err); ok {
		return e.Error(), true
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.FailedPrecondition {
		if msg, ok := strings.CutPrefix(st.Message(), pixelVersionPrefix); ok {
			return "it refused this render's pixel version: " + msg, true
		}
	}
	return "", false
}
