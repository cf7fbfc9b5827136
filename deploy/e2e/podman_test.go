//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

const image = "localhost/trace:e2e"

// TestPodman builds the FROM-scratch image with deploy/container/build.sh,
// checks that its worker refuses to serve beyond loopback without a token,
// then brings up two worker containers — one from `podman kube play` of
// deploy/kubernetes/workers.yaml with the test image's name, one with
// `podman run` — and renders against them from a coordinator container
// that runs the command line of deploy/kubernetes/render-job.yaml. The PNG
// must be the local render's, byte for byte.
//
// The workers and the coordinator run on the host's network (podman's
// bridge would put the traffic on private addresses): the workers listen
// on all interfaces, so the token is required, and are reached on
// loopback.
func TestPodman(t *testing.T) {
	needRoot(t)
	cmds := need(t, "podman", "runc", "catatonit")
	bin := traceBinary(t)
	dir := workDir(t, "trace-e2e-podman-")
	var pids []int
	// Registered first, so it runs after every container is gone.
	t.Cleanup(func() { checkLeftovers(t, dir, pids) })
	p := newPodman(t, dir, cmds)
	// The safety net if a step failed half-way: whatever is left in this
	// test's own storage goes.
	t.Cleanup(func() {
		if out, _ := p.run("ps", "-aq"); strings.TrimSpace(out) != "" {
			t.Errorf("containers left: %s", strings.Join(strings.Fields(out), " "))
			p.run("pod", "rm", "-af", "-t", "0")
			p.run("rm", "-af", "-t", "0")
		}
	})

	if !t.Run("build", func(t *testing.T) {
		start := time.Now()
		cmd := exec.Command("bash", filepath.Join(root, "deploy/container/build.sh"), "-t", image, "--bin", bin)
		cmd.Env = append(p.env, "ENGINE="+cmds["podman"])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build.sh: %v\n%s", err, out)
		}
		t.Logf("built %s FROM scratch in %.1fs", image, time.Since(start).Seconds())
		// Laid out as the published Dockerfile's image, so that the
		// manifests run either.
		got := strings.TrimSpace(p.must(t, "image", "inspect", "--format",
			"{{.Config.User}} {{json .Config.Entrypoint}} {{json .Config.Cmd}} {{len .RootFS.Layers}}", image))
		if want := `65532:65532 ["/trace"] ["worker","--listen",":7000"]`; !strings.HasPrefix(got, want+" ") {
			t.Errorf("image config %q, want user, entrypoint and command %q", got, want)
		}
	}) {
		return
	}

	t.Run("refuses without a token", func(t *testing.T) {
		// The image's own command, `worker --listen :7000`, with no token:
		// a worker beyond loopback must refuse to start. No network at all:
		// the refusal is about the address, and nothing should listen.
		out, err := p.run("run", "--rm", "--network", "none", image)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Fatalf("the worker container without a token: %v, want exit status 2\n%s", err, out)
		}
		if !strings.Contains(out, "serving beyond this machine needs callers to prove who they are") {
			t.Errorf("the refusal does not say why:\n%s", out)
		}
		t.Logf("refused with exit status 2: %s", strings.TrimSpace(out))
	})

	t.Run("render", func(t *testing.T) {
		token := fmt.Sprintf("e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
		port1, port2, metrics := freePorts(t, 1), freePorts(t, 1), freePorts(t, 1)

		// Worker 1: the Deployment of workers.yaml, played by podman.
		manifest, secret, key := workerManifest(t, image, port1, metrics)
		p.createSecret(t, secret, key, token)
		yamlPath := filepath.Join(dir, "workers.yaml")
		if err := os.WriteFile(yamlPath, manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		// --build=false: podman 4.3 would otherwise build the image from a
		// folder named like it ("trace") in the working folder.
		p.must(t, "kube", "play", "--build=false", "--network", "host", yamlPath)
		t.Cleanup(func() { p.must(t, "kube", "down", yamlPath) })
		// The pod runs under the manifest's securityContext.
		ids := strings.Fields(p.must(t, "ps", "-q", "--filter", "label=app.kubernetes.io/component=worker"))
		if len(ids) != 1 {
			t.Fatalf("podman kube play: %d worker containers, want 1", len(ids))
		}
		got := strings.TrimSpace(p.must(t, "inspect", "--format", "{{.Config.User}} read-only={{.HostConfig.ReadonlyRootfs}}", ids[0]))
		if got != "65532:65532 read-only=true" {
			t.Errorf("the kube-played worker runs as %q, want the manifest's 65532:65532 read-only=true", got)
		}
		// Worker 2: the same image under podman run, as the manifest's
		// securityContext runs it.
		cmd := p.command("run", "-d", "--name", "trace-e2e-worker-2", "--network", "host",
			"--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "-e", "TRACE_TOKEN",
			image, "worker", "--listen", ":"+strconv.Itoa(port2), "--threads", "1")
		cmd.Env = append(cmd.Env, "TRACE_TOKEN="+token)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("podman run worker 2: %v\n%s", err, out)
		}
		t.Cleanup(func() { p.must(t, "rm", "-f", "-t", "10", "trace-e2e-worker-2") })
		pids = append(pids, p.pids(t)...)
		for _, port := range []int{port1, port2} {
			p.waitListening(t, port)
		}
		t.Logf("two worker containers listening in %.1fs", time.Since(start).Seconds())

		// The coordinator: render-job.yaml's command line and mounts, with
		// the workers' addresses for the Service's DNS name, which only a
		// cluster has.
		scenes, out := filepath.Join(dir, "scenes"), filepath.Join(dir, "out")
		layScene(t, scenes)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chown(out, 65532, 65532) // the Job's runAsUser writes there
		workers := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", port1, port2)
		small := []string{"--width", "160", "--height", "120", "--samples", "8"}
		args, mounts, output := renderJob(t, workers, map[string]string{"scene": scenes, "out": out})
		coordinator := []string{"run", "--rm", "--name", "trace-e2e-render", "--network", "host",
			"--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "-e", "TRACE_TOKEN"}
		coordinator = append(coordinator, mounts...)
		coordinator = append(append(append(coordinator, image), args...), small...)
		cmd = p.command(coordinator...)
		cmd.Env = append(cmd.Env, "TRACE_TOKEN="+token)
		start = time.Now()
		logs, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the coordinator container: %v\n%s\nworker 2:\n%s", err, logs, p.logs("trace-e2e-worker-2"))
		}
		t.Logf("coordinator container rendered in %.1fs: podman %s", time.Since(start).Seconds(), strings.Join(coordinator[1:], " "))
		host := filepath.Join(out, strings.TrimPrefix(output.path, output.mount))
		want := renderLocal(t, bin, filepath.Join(scenes, "scene.json"), filepath.Join(dir, "local.png"), small...)
		samePNG(t, host, want)
		summary := ""
		for line := range strings.Lines(string(logs)) {
			if strings.HasPrefix(line, output.path+": ") {
				summary = strings.TrimSpace(line)
			}
		}
		t.Logf("summary: %s", summary)
		if strings.Count(summary, "127.0.0.1:") != 2 || !strings.Contains(summary, "0 threads") {
			t.Errorf("the summary does not show the two workers rendering every tile:\n%s", logs)
		}

		// The kube-played worker's metrics, where the pod annotations tell
		// Prometheus to look: its threads from the CPU request, and the scene.
		m := scrape(t, metrics)
		for _, want := range []string{"trace_worker_threads 4", "trace_worker_scene_cache_bundles 1"} {
			if strings.Contains(m, "\n"+want+"\n") {
				t.Logf("worker 1's /metrics: %s", want)
			} else {
				t.Errorf("worker 1's /metrics lacks %q", want)
			}
		}
	})
}

// podman runs podman against storage, configuration and state of the
// test's own under dir: the system's images and containers are neither
// seen nor touched, and removing dir removes everything.
type podman struct {
	bin, dir string
	env      []string
}

func newPodman(t *testing.T, dir string, cmds map[string]string) *podman {
	t.Helper()
	// As established on Debian 12's podman 4.3 as root: no default
	// ulimits (setting RLIMIT_NPROC is refused), cgroupfs, runc (crun
	// refuses the hybrid cgroups), vfs storage; no registry to search.
	files := map[string]string{
		"containers.conf": fmt.Sprintf(`[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
tmp_dir = "%[1]s/libpod"
[engine.runtimes]
runc = ["%[2]s"]
[network]
network_config_dir = "%[1]s/net"
`, dir, cmds["runc"]),
		"storage.conf": fmt.Sprintf(`[storage]
driver = "vfs"
graphroot = "%[1]s/storage"
runroot = "%[1]s/run"
`, dir),
		"registries.conf": "unqualified-search-registries = []\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Whatever the storage configuration says, podman keeps a cache of
	// image blobs' digests in /var/lib/containers/cache: what this test
	// adds there it removes (os.Remove leaves a folder that is not empty).
	for _, p := range []string{"/var/lib/containers", "/var/lib/containers/cache", "/var/lib/containers/cache/blob-info-cache-v1.boltdb"} {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			t.Cleanup(func() { os.Remove(p) })
		}
	}
	return &podman{bin: cmds["podman"], dir: dir, env: environ(
		"CONTAINERS_CONF="+filepath.Join(dir, "containers.conf"),
		"CONTAINERS_STORAGE_CONF="+filepath.Join(dir, "storage.conf"),
		"CONTAINERS_REGISTRIES_CONF="+filepath.Join(dir, "registries.conf"))}
}

func (p *podman) command(args ...string) *exec.Cmd {
	cmd := exec.Command(p.bin, args...)
	cmd.Env = append([]string(nil), p.env...)
	cmd.Dir = p.dir
	return cmd
}

func (p *podman) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.bin, args...)
	cmd.Env, cmd.Dir = p.env, p.dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (p *podman) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := p.run(args...)
	if err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (p *podman) logs(name string) string {
	out, _ := p.run("logs", name)
	return out
}

// createSecret makes the podman secret that secretKeyRef name/key reads.
// Podman 4.3's kube play reads a secret's data as a JSON object of base64
// values, and cannot read the Secret that its own kube play of
// secret.yaml makes, so the test makes it in that form.
func (p *podman) createSecret(t *testing.T, name, key, value string) {
	t.Helper()
	data, _ := json.Marshal(map[string]string{key: base64.StdEncoding.EncodeToString([]byte(value))})
	f, err := os.CreateTemp("", "trace-e2e-secret-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	f.Write(data)
	f.Close()
	p.must(t, "secret", "create", name, f.Name())
	t.Cleanup(func() { p.must(t, "secret", "rm", name) })
}

// pids returns the PIDs of every running container's process and its
// conmon, for the leftover check.
func (p *podman) pids(t *testing.T) []int {
	t.Helper()
	var pids []int
	out := p.must(t, "ps", "-aq")
	for _, id := range strings.Fields(out) {
		f := strings.Fields(p.must(t, "inspect", "--format", "{{.State.Pid}} {{.State.ConmonPid}}", id))
		for _, s := range f {
			if n, err := strconv.Atoi(s); err == nil && n > 0 {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

// waitListening waits for a worker to accept connections on port.
func (p *podman) waitListening(t *testing.T, port int) {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := p.run("ps", "-a")
			t.Fatalf("no worker listening on %s after 30 s: %v\n%s", addr, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// layScene lays the gallery's mesh scene out as the render Job sees its
// ConfigMap: scene.json, and the files it reads under assets/.
func layScene(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(root, "scenes/examples")
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(src, "mesh.json"), filepath.Join(dir, "scene.json"))
	entries, err := os.ReadDir(filepath.Join(src, "assets"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			copyFile(t, filepath.Join(src, "assets", e.Name()), filepath.Join(dir, "assets", e.Name()))
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// scrape returns a worker's Prometheus metrics.
func scrape(t *testing.T, port int) string {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatalf("worker 1's metrics: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("worker 1's metrics: %s", resp.Status)
	}
	return string(body)
}

// The manifests are read with the Kubernetes API types, strictly, as the
// offline checks of deploy/ read them.
var (
	scheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme} {
			if err := add(s); err != nil {
				panic(err)
			}
		}
		return s
	}()
	codec = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
)

// decodeManifest returns the objects of a file under deploy/kubernetes.
func decodeManifest(t *testing.T, name string) []runtime.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "deploy/kubernetes", name))
	if err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		obj, _, err := codec.Decode(raw, nil, nil)
		if err != nil {
			if runtime.IsMissingKind(err) {
				continue // a document of comments only
			}
			t.Fatalf("%s: %v", name, err)
		}
		objs = append(objs, obj)
	}
}

// workerManifest returns workers.yaml as podman plays it here, and the
// Secret name and key its token comes from. The Deployment changes only
// where a single host without a cluster demands it:
//   - the test's image;
//   - one replica, on the host's network (podman refuses port mappings
//     there, so the container's ports, which only the kubelet and
//     Prometheus read, go), on free ports instead of 7000 and 9090;
//   - the $(VAR) references of its arguments expanded as the kubelet
//     would: podman 4.3 passes "$(TRACE_THREADS)" on as it is.
func workerManifest(t *testing.T, image string, port, metrics int) (manifest []byte, secret, key string) {
	t.Helper()
	var out bytes.Buffer
	found := false
	for _, obj := range decodeManifest(t, "workers.yaml") {
		if d, ok := obj.(*appsv1.Deployment); ok {
			found = true
			one := int32(1)
			d.Spec.Replicas = &one
			c := container(t, d.Spec.Template.Spec.Containers, "worker")
			c.Image = image
			c.Ports = nil
			c.Args = expandArgs(t, c)
			setFlag(t, c.Args, "--listen", ":"+strconv.Itoa(port))
			host, _, _ := net.SplitHostPort(flag(t, c.Args, "--metrics"))
			setFlag(t, c.Args, "--metrics", net.JoinHostPort(host, strconv.Itoa(metrics)))
			for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
				if probe != nil && probe.GRPC != nil {
					probe.GRPC.Port = int32(port)
				}
			}
			for _, e := range c.Env {
				if e.Name == "TRACE_TOKEN" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					secret, key = e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key
				}
			}
		}
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			t.Fatal(err)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
		out.WriteString("---\n")
		if err := codec.Encode(obj, &out); err != nil {
			t.Fatal(err)
		}
	}
	if !found || secret == "" {
		t.Fatalf("workers.yaml: no Deployment whose worker takes TRACE_TOKEN from a Secret")
	}
	return out.Bytes(), secret, key
}

// expandArgs returns the container's arguments with $(NAME) replaced by
// the value of its environment variable NAME, where that is a plain value
// or a CPU resource, as the kubelet does.
func expandArgs(t *testing.T, c *corev1.Container) []string {
	t.Helper()
	vals := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			vals[e.Name] = e.Value
		case e.ValueFrom.ResourceFieldRef != nil:
			r := e.ValueFrom.ResourceFieldRef
			var q resource.Quantity
			switch r.Resource {
			case "requests.cpu":
				q = c.Resources.Requests[corev1.ResourceCPU]
			case "limits.cpu":
				q = c.Resources.Limits[corev1.ResourceCPU]
			default:
				continue
			}
			div := r.Divisor
			if div.IsZero() {
				div = resource.MustParse("1")
			}
			vals[e.Name] = strconv.FormatInt(int64(math.Ceil(float64(q.MilliValue())/float64(div.MilliValue()))), 10)
		}
	}
	args := append([]string(nil), c.Args...)
	for i, a := range args {
		for name, v := range vals {
			a = strings.ReplaceAll(a, "$("+name+")", v)
		}
		if strings.Contains(a, "$(") {
			t.Fatalf("argument %q: a reference the test cannot expand", a)
		}
		args[i] = a
	}
	return args
}

// mountPoint is a container path and the mount it lies under.
type mountPoint struct{ path, mount string }

// renderJob returns the render Job's arguments with --workers set to
// workers and --serve to a free loopback port, the podman -v flags that
// mount each of its volumes (by name) from the host folders given, and
// where its output lands.
func renderJob(t *testing.T, workers string, volumes map[string]string) (args, mounts []string, output mountPoint) {
	t.Helper()
	for _, obj := range decodeManifest(t, "render-job.yaml") {
		j, ok := obj.(*batchv1.Job)
		if !ok {
			continue
		}
		c := container(t, j.Spec.Template.Spec.Containers, "render")
		args = append([]string(nil), c.Args...)
		if !strings.HasPrefix(flag(t, args, "--workers"), "dns:///") {
			t.Fatalf("render-job.yaml: --workers %q is not a dns:/// name", flag(t, args, "--workers"))
		}
		setFlag(t, args, "--workers", workers)
		setFlag(t, args, "--serve", "127.0.0.1:0")
		output.path = flag(t, args, "-o")
		for _, m := range c.VolumeMounts {
			host, ok := volumes[m.Name]
			if !ok {
				t.Fatalf("render-job.yaml: volume %q has no folder in the test", m.Name)
			}
			v := host + ":" + m.MountPath
			if m.ReadOnly {
				v += ":ro"
			}
			mounts = append(mounts, "-v", v)
			if strings.HasPrefix(output.path, m.MountPath+"/") {
				output.mount = m.MountPath
			}
		}
		if output.mount == "" {
			t.Fatalf("render-job.yaml: the output %s is on no volume", output.path)
		}
		return args, mounts, output
	}
	t.Fatal("render-job.yaml: no Job")
	return
}

func container(t *testing.T, cs []corev1.Container, name string) *corev1.Container {
	t.Helper()
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

// flag returns the value after name in args.
func flag(t *testing.T, args []string, name string) string {
	t.Helper()
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	t.Fatalf("no %s in %q", name, args)
	return ""
}

// setFlag replaces the value after name in args.
func setFlag(t *testing.T, args []string, name, value string) {
	t.Helper()
	for i, a := range args {
		if a == name && i+1 < len(args) {
			args[i+1] = value
			return
		}
	}
	t.Fatalf("no %s in %q", name, args)
}
