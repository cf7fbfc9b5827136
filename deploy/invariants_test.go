package deploy

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// expect is what a set of manifests must agree on.
type expect struct {
	namespace string // where they are applied; $(POD_NAMESPACE) stands for it
	port      int32  // the workers' gRPC port
	tls       bool   // workers serve TLS, so their probes are TCP checks
	budgets   bool   // every worker pool has a PodDisruptionBudget
}

// objects is a set of decoded manifests by kind.
type objects struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	jobs        []*batchv1.Job
	secrets     []*corev1.Secret
	claims      []*corev1.PersistentVolumeClaim
	pods        []*corev1.Pod
}

func sortObjects(t *testing.T, docs []document) objects {
	t.Helper()
	var o objects
	for _, d := range docs {
		switch obj := d.object.(type) {
		case *appsv1.Deployment:
			o.deployments = append(o.deployments, obj)
		case *corev1.Service:
			o.services = append(o.services, obj)
		case *policyv1.PodDisruptionBudget:
			o.pdbs = append(o.pdbs, obj)
		case *batchv1.Job:
			o.jobs = append(o.jobs, obj)
		case *corev1.Secret:
			o.secrets = append(o.secrets, obj)
		case *corev1.PersistentVolumeClaim:
			o.claims = append(o.claims, obj)
		case *corev1.Pod:
			o.pods = append(o.pods, obj)
		default:
			t.Errorf("%s: unexpected kind %T", d.source, obj)
		}
	}
	return o
}

// checkWorkers checks the worker Deployments, the headless Service in
// front of them, their disruption budgets and the render Jobs that use them.
func checkWorkers(t *testing.T, o objects, want expect) {
	t.Helper()
	if len(o.services) != 1 {
		t.Fatalf("want one Service, got %d", len(o.services))
	}
	svc := o.services[0]
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("Service %s: clusterIP %q, want None (headless: its name resolves to every worker)", svc.Name, svc.Spec.ClusterIP)
	}
	grpcPort := servicePort(svc, "grpc")
	if grpcPort == nil || grpcPort.Port != want.port {
		t.Errorf("Service %s: want a port named grpc, %d", svc.Name, want.port)
	}
	if len(o.deployments) == 0 {
		t.Fatal("no worker Deployment")
	}
	for _, d := range o.deployments {
		checkWorkerDeployment(t, d, o, want)
		pod := labels.Set(d.Spec.Template.Labels)
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(pod) {
			t.Errorf("Service %s does not select the pods of Deployment %s", svc.Name, d.Name)
		}
		n := 0
		for _, pdb := range o.pdbs {
			if selects(t, pdb.Spec.Selector, pod) {
				n++
			}
		}
		if want.budgets && n != 1 || !want.budgets && n != 0 {
			t.Errorf("Deployment %s: %d PodDisruptionBudgets select its pods, want 1", d.Name, n)
		}
	}
	for _, pdb := range o.pdbs {
		for _, j := range o.jobs {
			if selects(t, pdb.Spec.Selector, labels.Set(j.Spec.Template.Labels)) {
				t.Errorf("PodDisruptionBudget %s selects the pods of Job %s", pdb.Name, j.Name)
			}
		}
	}
	target := fmt.Sprintf("dns:///%s.%s.svc.cluster.local:%d", svc.Name, want.namespace, want.port)
	for _, j := range o.jobs {
		checkRenderJob(t, j, o, target, want)
	}
}

func checkWorkerDeployment(t *testing.T, d *appsv1.Deployment, o objects, want expect) {
	t.Helper()
	if !selects(t, d.Spec.Selector, labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("Deployment %s: selector %v does not match its pod labels %v", d.Name, d.Spec.Selector, d.Spec.Template.Labels)
	}
	spec := d.Spec.Template.Spec
	if g := spec.TerminationGracePeriodSeconds; g == nil || *g < 60 {
		t.Errorf("Deployment %s: terminationGracePeriodSeconds %v: leave a draining worker at least 60 s", d.Name, g)
	}
	checkNonRoot(t, "Deployment "+d.Name, spec)
	if len(spec.Containers) != 1 {
		t.Fatalf("Deployment %s: want one container, got %d", d.Name, len(spec.Containers))
	}
	c := spec.Containers[0]
	where := fmt.Sprintf("Deployment %s container %s", d.Name, c.Name)
	args := expandAll(c, want.namespace)
	if len(args) == 0 || args[0] != "worker" {
		t.Errorf("%s: args %q, want trace worker", where, args)
	}
	if got := flagValue(args, "--listen"); got != fmt.Sprintf(":%d", want.port) {
		t.Errorf("%s: --listen %q, want :%d", where, got, want.port)
	}
	if p := containerPort(c, "grpc"); p == nil || p.ContainerPort != want.port {
		t.Errorf("%s: want a port named grpc, %d", where, want.port)
	}
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		switch {
		case p == nil:
			t.Errorf("%s: no %s probe", where, name)
		case want.tls && (p.TCPSocket == nil || p.TCPSocket.Port.IntValue() != int(want.port)):
			t.Errorf("%s: %s probe %+v, want a TCP check of port %d (the gRPC probe has no TLS)", where, name, p.ProbeHandler, want.port)
		case !want.tls && (p.GRPC == nil || p.GRPC.Port != want.port):
			t.Errorf("%s: %s probe %+v, want gRPC health on port %d", where, name, p.ProbeHandler, want.port)
		}
	}
	if threads, err := strconv.Atoi(flagValue(args, "--threads")); err != nil || threads < 0 {
		t.Errorf("%s: --threads %q, want a count", where, flagValue(args, "--threads"))
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		t.Errorf("%s: no CPU request", where)
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		t.Errorf("%s: no memory request", where)
	}
	gpus := c.Resources.Limits["nvidia.com/gpu"]
	if got := flagValue(args, "--gpus"); got != "" || !gpus.IsZero() {
		if got != strconv.FormatInt(gpus.Value(), 10) {
			t.Errorf("%s: --gpus %q but an nvidia.com/gpu limit of %s", where, got, gpus.String())
		}
	}
	if m := flagValue(args, "--metrics"); m != "" {
		p := containerPort(c, "metrics")
		if p == nil || m != fmt.Sprintf("0.0.0.0:%d", p.ContainerPort) { // all interfaces: a bare :PORT is loopback
			t.Errorf("%s: --metrics %q but metrics port %v", where, m, p)
		} else if a := d.Spec.Template.Annotations["prometheus.io/port"]; a != strconv.Itoa(int(p.ContainerPort)) {
			t.Errorf("%s: prometheus.io/port %q, want %d", where, a, p.ContainerPort)
		}
	}
	if want.tls {
		for _, f := range []string{"--tls-cert", "--tls-key"} {
			if p := flagValue(args, f); !mounted(spec, c, p) {
				t.Errorf("%s: %s %q is not on a mounted volume", where, f, p)
			}
		}
	}
	checkToken(t, where, c, o)
}

func checkRenderJob(t *testing.T, j *batchv1.Job, o objects, target string, want expect) {
	t.Helper()
	spec := j.Spec.Template.Spec
	checkNonRoot(t, "Job "+j.Name, spec)
	if spec.RestartPolicy != corev1.RestartPolicyNever && spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("Job %s: restartPolicy %q", j.Name, spec.RestartPolicy)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("Job %s: want one container, got %d", j.Name, len(spec.Containers))
	}
	c := spec.Containers[0]
	where := fmt.Sprintf("Job %s container %s", j.Name, c.Name)
	args := expandAll(c, want.namespace)
	if len(args) < 2 || args[0] != "render" {
		t.Fatalf("%s: args %q, want trace render SCENE", where, args)
	}
	if got := flagValue(args, "--workers"); got != target {
		t.Errorf("%s: --workers %q, want the Service's %q", where, got, target)
	}
	if !mounted(spec, c, args[1]) {
		t.Errorf("%s: the scene %q is not on a mounted volume", where, args[1])
	}
	out := flagValue(args, "-o")
	v := volumeOf(spec, c, out)
	if v == nil || v.PersistentVolumeClaim == nil {
		t.Errorf("%s: -o %q is not on a persistent volume", where, out)
	} else if m := mountOf(c, out); m.ReadOnly {
		t.Errorf("%s: -o %q is on a read-only mount", where, out)
	}
	if want.tls {
		if p := flagValue(args, "--tls-ca"); !mounted(spec, c, p) {
			t.Errorf("%s: --tls-ca %q is not on a mounted volume", where, p)
		}
	}
	checkToken(t, where, c, o)
}

// checkToken checks that TRACE_TOKEN comes from the key token of a Secret:
// one among the manifests, when they have any.
func checkToken(t *testing.T, where string, c corev1.Container, o objects) {
	t.Helper()
	for _, e := range c.Env {
		if e.Name != "TRACE_TOKEN" {
			continue
		}
		ref := e.ValueFrom
		if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Key != "token" {
			t.Errorf("%s: TRACE_TOKEN does not come from a Secret's key token", where)
			return
		}
		if len(o.secrets) > 0 && !slices.ContainsFunc(o.secrets, func(s *corev1.Secret) bool { return s.Name == ref.SecretKeyRef.Name }) {
			t.Errorf("%s: TRACE_TOKEN from Secret %q, which is not among the manifests", where, ref.SecretKeyRef.Name)
		}
		return
	}
	t.Errorf("%s: no TRACE_TOKEN", where)
}

func checkNonRoot(t *testing.T, where string, spec corev1.PodSpec) {
	t.Helper()
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: pod not marked runAsNonRoot", where)
	}
}

func selects(t *testing.T, sel *metav1.LabelSelector, set labels.Set) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Errorf("selector %v: %v", sel, err)
		return false
	}
	return !s.Empty() && s.Matches(set)
}

// expandAll returns a container's args with $(VAR) references to its
// environment expanded as the kubelet does: literal values, the pod's
// namespace (fieldRef metadata.namespace) and a CPU request in cores.
func expandAll(c corev1.Container, namespace string) []string {
	vars := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			vars[e.Name] = namespace
		case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "requests.cpu":
			q := c.Resources.Requests[corev1.ResourceCPU]
			vars[e.Name] = strconv.FormatInt(q.Value(), 10) // rounded up, as with divisor 1
		}
	}
	args := slices.Concat(c.Command, c.Args)
	for i, a := range args {
		for name, v := range vars {
			a = strings.ReplaceAll(a, "$("+name+")", v)
		}
		args[i] = a
	}
	return args
}

// flagValue returns the value of a flag given as "--f v" or "--f=v".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

func servicePort(s *corev1.Service, name string) *corev1.ServicePort {
	for i := range s.Spec.Ports {
		if s.Spec.Ports[i].Name == name {
			return &s.Spec.Ports[i]
		}
	}
	return nil
}

func containerPort(c corev1.Container, name string) *corev1.ContainerPort {
	for i := range c.Ports {
		if c.Ports[i].Name == name {
			return &c.Ports[i]
		}
	}
	return nil
}

// mountOf returns the container's mount holding file (an absolute path).
func mountOf(c corev1.Container, file string) *corev1.VolumeMount {
	for i, m := range c.VolumeMounts {
		if rel, ok := strings.CutPrefix(path.Clean(file), path.Clean(m.MountPath)+"/"); ok && rel != "" {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

// volumeOf returns the pod's volume holding file in the container.
func volumeOf(spec corev1.PodSpec, c corev1.Container, file string) *corev1.Volume {
	m := mountOf(c, file)
	if m == nil {
		return nil
	}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == m.Name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

func mounted(spec corev1.PodSpec, c corev1.Container, file string) bool {
	return volumeOf(spec, c, file) != nil
}
