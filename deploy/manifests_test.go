package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifests decodes every document of deploy/kubernetes strictly and
// checks that the workers, their Service, budgets and the render Job fit
// together.
func TestManifests(t *testing.T) {
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in kubernetes/: %v", err)
	}
	var docs []document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeAll(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) == 0 {
			t.Errorf("%s: no Kubernetes object in it", f)
		}
		docs = append(docs, d...)
	}
	o := sortObjects(t, docs)
	if len(o.deployments) != 2 || len(o.pdbs) != 2 || len(o.jobs) != 1 || len(o.secrets) != 1 || len(o.claims) != 1 {
		t.Errorf("want 2 Deployments (CPU, GPU), 2 PodDisruptionBudgets, a Job, a Secret and a claim; got %d, %d, %d, %d, %d",
			len(o.deployments), len(o.pdbs), len(o.jobs), len(o.secrets), len(o.claims))
	}
	for _, obj := range docs {
		if ns := obj.object.(interface{ GetNamespace() string }).GetNamespace(); ns != "" {
			t.Errorf("%s: namespace %q: the manifests go to whatever namespace kubectl is given", obj.source, ns)
		}
	}
	checkWorkers(t, o, expect{namespace: "render", port: 7000, budgets: true})
	for _, j := range o.jobs {
		claim := j.Spec.Template.Spec.Volumes
		for _, v := range claim {
			if v.PersistentVolumeClaim != nil && (len(o.claims) == 0 || o.claims[0].Name != v.PersistentVolumeClaim.ClaimName) {
				t.Errorf("Job %s: claim %q is not among the manifests", j.Name, v.PersistentVolumeClaim.ClaimName)
			}
		}
	}
}

// TestStrictDecodingRejects shows what the strict decoding catches.
func TestStrictDecodingRejects(t *testing.T) {
	worker, err := os.ReadFile("kubernetes/workers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml, want string
	}{
		{"misspelled field", strings.Replace(string(worker), "readinessProbe:", "readinesProbe:", 1), `unknown field "spec.template.spec.containers[0].readinesProbe"`},
		{"field in the wrong case", strings.Replace(string(worker), "replicas: 3", "Replicas: 3", 1), `unknown field "spec.Replicas"`},
		{"field in the wrong place", strings.Replace(string(worker), "  replicas: 3", "  replicas: 3\n  terminationGracePeriodSeconds: 60", 1), `unknown field "spec.terminationGracePeriodSeconds"`},
		{"duplicate field", strings.Replace(string(worker), "replicas: 3", "replicas: 3\n  replicas: 4", 1), `key "replicas" already set`},
		{"wrong type", strings.Replace(string(worker), "replicas: 3", "replicas: three", 1), "replicas"},
		{"bad quantity", strings.Replace(string(worker), `cpu: "4"`, `cpu: "4 cores"`, 1), "quantities must match"},
		{"unknown kind", "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n", `no kind "Deploymnet" is registered`},
		{"removed apiVersion", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: x}\n", `policy/v1beta1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAll("workers.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("decoded without error; want one mentioning %s", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %s", err, tt.want)
			}
		})
	}
}
