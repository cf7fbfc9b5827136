package deploy

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

// A self-signed certificate's place: the chart only base64-encodes it.
const fakePEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// render does offline what `helm template` does with the chart: values
// merged over values.yaml and checked against values.schema.json, then
// every template rendered, strictly (a missing value is an error, as with
// `helm lint --strict`). lookup finds nothing, as with `helm template`.
func render(t *testing.T, values map[string]any) (map[string]string, error) {
	t.Helper()
	chrt, err := loader.Load("helm/trace")
	if err != nil {
		t.Fatal(err)
	}
	if err := chrt.Validate(); err != nil {
		t.Fatalf("Chart.yaml: %v", err)
	}
	opts := chartutil.ReleaseOptions{Name: "trace", Namespace: "render", Revision: 1, IsInstall: true, IsUpgrade: false}
	vals, err := chartutil.ToRenderValues(chrt, values, opts, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Engine{Strict: true}.Render(chrt, vals)
}

// manifests decodes the rendered templates strictly, in file order;
// NOTES.txt must render but is not a manifest.
func manifests(t *testing.T, chrt map[string]string) []document {
	t.Helper()
	var docs []document
	for _, name := range slices.Sorted(maps.Keys(chrt)) {
		if strings.HasSuffix(name, "NOTES.txt") || strings.HasPrefix(pathBase(name), "_") {
			continue
		}
		d, err := decodeAll(name, []byte(chrt[name]))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d...)
	}
	return docs
}

func pathBase(name string) string { return name[strings.LastIndex(name, "/")+1:] }

// TestHelmChart renders the chart with its defaults and with every part
// switched on, and checks the output as TestManifests checks the plain
// manifests.
func TestHelmChart(t *testing.T) {
	tests := []struct {
		name                                  string
		values                                map[string]any
		deployments, pdbs, jobs, claims, secs int
		tls                                   bool
	}{
		{name: "defaults", deployments: 1, pdbs: 1, secs: 1},
		{
			name: "gpu, render job, tls",
			values: map[string]any{
				"gpuWorkers": map[string]any{"enabled": true, "gpusPerPod": 2},
				"render":     map[string]any{"enabled": true},
				"tls":        map[string]any{"enabled": true, "mutual": true, "cert": fakePEM, "key": fakePEM, "ca": fakePEM},
			},
			deployments: 2, pdbs: 2, jobs: 1, claims: 1, secs: 1, tls: true,
		},
		{
			name: "existing secret and volumes, fixed threads, no budget",
			values: map[string]any{
				"existingSecret": "my-trace",
				"port":           7443,
				"workers":        map[string]any{"threads": 8, "podDisruptionBudget": map[string]any{"enabled": false}},
				"render": map[string]any{"enabled": true, "servePort": 0,
					"scene":  map[string]any{"persistentVolumeClaim": "scenes", "file": "city/city.json"},
					"output": map[string]any{"persistentVolumeClaim": "frames"}},
			},
			deployments: 1, jobs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := render(t, tt.values)
			if err != nil {
				t.Fatal(err)
			}
			if notes := out["trace/templates/NOTES.txt"]; !strings.Contains(notes, "dns:///trace-workers.render.svc.cluster.local:") {
				t.Errorf("NOTES.txt does not name the workers' address:\n%s", notes)
			}
			o := sortObjects(t, manifests(t, out))
			if len(o.deployments) != tt.deployments || len(o.pdbs) != tt.pdbs || len(o.jobs) != tt.jobs || len(o.claims) != tt.claims || len(o.secrets) != tt.secs {
				t.Errorf("got %d Deployments, %d PodDisruptionBudgets, %d Jobs, %d claims, %d Secrets; want %d, %d, %d, %d, %d",
					len(o.deployments), len(o.pdbs), len(o.jobs), len(o.claims), len(o.secrets),
					tt.deployments, tt.pdbs, tt.jobs, tt.claims, tt.secs)
			}
			port := int32(7000)
			if p, ok := tt.values["port"].(int); ok {
				port = int32(p)
			}
			checkWorkers(t, o, expect{namespace: "render", port: port, tls: tt.tls, budgets: tt.pdbs > 0})
		})
	}
}

// TestHelmValuesRejected shows that values.schema.json and the templates
// refuse values that would deploy something broken.
func TestHelmValuesRejected(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"misspelled value", map[string]any{"workers": map[string]any{"replica": 20}}, "replica"},
		{"misspelled top-level value", map[string]any{"tsl": map[string]any{"enabled": true}}, "tsl"},
		{"wrong type", map[string]any{"workers": map[string]any{"replicas": "many"}}, "replicas"},
		{"tls without certificates", map[string]any{"tls": map[string]any{"enabled": true}}, "tls.cert"},
		{"render without a scene", map[string]any{"render": map[string]any{"enabled": true, "scene": map[string]any{"configMap": ""}}}, "render.scene"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(t, tt.values)
			if err == nil {
				t.Fatalf("rendered; want an error mentioning %s", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %s", err, tt.want)
			}
		})
	}
}
