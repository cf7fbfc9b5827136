package scheduler

import (
	"encoding/json"
	"testing"
)

// The kinds keep the words the progress reports, the watch page's JSON
// and the metrics showed when they were strings, and only a cluster
// renders nothing under its own name.
func TestWorkerKinds(t *testing.T) {
	for _, tc := range []struct {
		kind    WorkerKind
		word    string
		renders bool
	}{
		{KindCPU, "cpu", true},
		{KindGPU, "gpu", true},
		{KindRemote, "remote", true},
		{KindCluster, "cluster", false},
	} {
		b, err := json.Marshal(WorkerProgress{Kind: tc.kind})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ Kind string }
		if err := json.Unmarshal(b, &back); err != nil || back.Kind != tc.word || string(tc.kind) != tc.word {
			t.Errorf("%q: JSON %s, want the kind %q", tc.kind, b, tc.word)
		}
		if tc.kind.Renders() != tc.renders {
			t.Errorf("%q.Renders() = %v, want %v", tc.kind, !tc.renders, tc.renders)
		}
	}
	if k := (&CPUWorker{}).Kind(); k != KindCPU {
		t.Errorf("CPUWorker: kind %q", k)
	}
	if k := (&GPUWorker{}).Kind(); k != KindGPU {
		t.Errorf("GPUWorker: kind %q", k)
	}
}
