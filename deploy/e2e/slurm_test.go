//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlurm submits deploy/slurm/trace.sbatch, as a user would, to a
// one-node Slurm cluster that the test brings up (munged, slurmctld,
// slurmd) and takes down: two worker tasks, with the token alone, then
// with mutual TLS, then with a scene that is not there, then with one
// worker killed mid-render. Each PNG must be the local render's, byte for
// byte.
func TestSlurm(t *testing.T) {
	needRoot(t)
	cmds := need(t, "munged", "mungekey", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue", "sinfo", "scancel", "srun")
	if runtime.NumCPU() < 2 {
		t.Skip("skipped: two worker tasks need two CPUs, and this machine has one")
	}
	bin := traceBinary(t)
	dir := workDir(t, "trace-e2e-slurm-")
	var c *slurmCluster
	// Registered before the daemons' stops, so it runs after them.
	t.Cleanup(func() {
		var pids []int
		if c != nil {
			pids = c.pids
		}
		checkLeftovers(t, dir, pids)
	})
	start := time.Now()
	c = startSlurm(t, dir, cmds)
	t.Logf("one-node cluster (munged, slurmctld, slurmd) up in %.1fs", time.Since(start).Seconds())

	scene := filepath.Join(root, "scenes/examples/mesh.json")
	script := filepath.Join(root, "deploy/slurm/trace.sbatch")
	small := []string{"--width", "160", "--height", "120", "--samples", "8"}
	wantSmall := renderLocal(t, bin, scene, filepath.Join(dir, "local-small.png"), small...)

	// jobEnv is what trace.sbatch reads: the trace binary and two free ports.
	jobEnv := func(t *testing.T, extra ...string) []string {
		return environ(append([]string{"SLURM_CONF=" + c.conf, "TRACE=" + bin,
			"TRACE_PORT_BASE=" + strconv.Itoa(freePorts(t, 2))}, extra...)...)
	}

	t.Run("token", func(t *testing.T) {
		out := filepath.Join(dir, "token.png")
		env := jobEnv(t)
		// The cluster's first job is job 1, whose ports by default are
		// 20040 and 20041: where they are free, the job uses its default.
		want := ""
		if portsFree(20040, 2) {
			env = environ("SLURM_CONF="+c.conf, "TRACE="+bin)
			want = "2 workers on 1 nodes: localhost:20040 localhost:20041"
		}
		start := time.Now()
		job := c.submit(t, "token", env, script, append([]string{scene, out}, small...))
		log := c.wait(t, job, 2*time.Minute)
		t.Logf("job %s: submitted to completed in %.1fs", job.id, time.Since(start).Seconds())
		samePNG(t, out, wantSmall)
		checkSummary(t, log, out, 2)
		if want != "" && (job.id != "1" || !strings.Contains(log, want)) {
			t.Errorf("job %s with the default ports: its log does not say %q:\n%s", job.id, want, log)
		}
	})

	t.Run("mutual TLS", func(t *testing.T) {
		pki := filepath.Join(dir, "pki")
		must(t, environ(), bin, "worker", "--gen-cert", pki, "localhost")
		out := filepath.Join(dir, "tls.png")
		start := time.Now()
		job := c.submit(t, "tls", jobEnv(t, "TRACE_TLS_DIR="+pki), script, append([]string{scene, out}, small...))
		log := c.wait(t, job, 2*time.Minute)
		t.Logf("job %s: submitted to completed in %.1fs", job.id, time.Since(start).Seconds())
		samePNG(t, out, wantSmall)
		checkSummary(t, log, out, 2)
		// The workers warn when the token travels in clear text: with TLS
		// they must not.
		if strings.Contains(log, "clear text") {
			t.Errorf("with TRACE_TLS_DIR the workers still serve in clear text:\n%s", log)
		}
	})

	t.Run("bad scene", func(t *testing.T) {
		// Refused before any worker starts, with trace's status for bad input.
		missing := filepath.Join(dir, "no-such-scene.json")
		job := c.submit(t, "bad", jobEnv(t), script, []string{missing, filepath.Join(dir, "bad.png")})
		state, exit, log := c.end(t, job, time.Minute)
		if state != "FAILED" || exit != "2:0" || !strings.Contains(log, "not a readable file") || strings.Contains(log, "listening on") {
			t.Errorf("job %s ended %s with exit code %s, want FAILED with 2:0, the reason and no worker. Its log:\n%s", job.id, state, exit, log)
		}
		t.Logf("job %s: %s, exit code %s: %s", job.id, state, exit, strings.TrimSpace(log))
	})

	t.Run("worker killed", func(t *testing.T) {
		// Large enough that the render outlasts the kill by seconds.
		large := []string{"--width", "320", "--height", "240", "--samples", "16"}
		want := renderLocal(t, bin, scene, filepath.Join(dir, "local-large.png"), large...)
		out := filepath.Join(dir, "killed.png")
		start := time.Now()
		job := c.submit(t, "killed", jobEnv(t), script, append([]string{scene, out}, large...))
		pid := c.workerOnceRendering(t, job, 1, bin)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("killing worker task 1 (PID %d): %v", pid, err)
		}
		t.Logf("job %s: killed worker task 1 (PID %d) %.1fs after submitting", job.id, pid, time.Since(start).Seconds())
		log := c.wait(t, job, 2*time.Minute)
		t.Logf("job %s: submitted to completed in %.1fs", job.id, time.Since(start).Seconds())
		samePNG(t, out, want)
		checkSummary(t, log, out, 2)
		for _, s := range []string{"task 1: Killed", "its tiles were rendered by the other workers"} {
			if !strings.Contains(log, s) {
				t.Errorf("the job's log does not say %q:\n%s", s, log)
			}
		}
		for line := range strings.Lines(log) {
			if strings.Contains(line, "warning: worker") || strings.Contains(line, "worker step ended") {
				t.Logf("log: %s", strings.TrimSpace(line))
			}
		}
	})
}

// checkSummary checks that the job's log holds the render's summary with
// each of the job's workers taking a share of the frame.
func checkSummary(t *testing.T, log, out string, workers int) {
	t.Helper()
	for line := range strings.Lines(log) {
		if strings.HasPrefix(line, out+": ") && strings.Contains(line, "frame by") {
			t.Logf("summary: %s", strings.TrimSpace(line))
			if n := strings.Count(line, "localhost:"); n != workers {
				t.Errorf("the summary names %d workers, want %d", n, workers)
			}
			return
		}
	}
	t.Errorf("no render summary for %s in the job's log:\n%s", out, log)
}

// slurmCluster is a one-node Slurm cluster of the test's own: its munged,
// slurmctld and slurmd keep their key, configuration, state, sockets and
// logs under one folder and listen on ports of their own, so that it
// touches neither the system's configuration nor another cluster.
type slurmCluster struct {
	dir, conf string
	cmds      map[string]string
	env       []string
	pids      []int
}

func startSlurm(t *testing.T, dir string, cmds map[string]string) *slurmCluster {
	t.Helper()
	c := &slurmCluster{dir: dir, cmds: cmds, conf: filepath.Join(dir, "slurm", "slurm.conf")}
	c.env = environ("SLURM_CONF=" + c.conf)
	socket := c.startMunge(t)

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	for _, d := range []string{"state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, "slurm", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ports := freePorts(t, 2)
	// The node is named localhost (slurmd -N) whatever this machine is
	// called, so the workers' addresses that trace.sbatch builds from the
	// node list stay on loopback. slurmctld must run on the host it names.
	conf := fmt.Sprintf(`ClusterName=trace-e2e
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=%[4]s
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=60
KillWait=5
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=e2e Nodes=localhost Default=YES MaxTime=10 State=UP
`, host, ports, ports+1, socket, filepath.Join(dir, "slurm"), runtime.NumCPU())
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	ctld := exec.Command(cmds["slurmctld"], "-D", "-f", c.conf)
	ctld.Env = c.env
	c.pids = append(c.pids, startDaemon(t, dir, "slurmctld", ctld).pid())
	slurmd := exec.Command(cmds["slurmd"], "-D", "-N", "localhost", "-f", c.conf)
	slurmd.Env = c.env
	d := startDaemon(t, dir, "slurmd", slurmd)
	c.pids = append(c.pids, d.pid())
	// Before slurmd stops (cleanups run last first): no job may be left to
	// a slurmstepd.
	t.Cleanup(func() { c.cancelAll(t) })

	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := run(context.Background(), c.env, cmds["sinfo"], "-h", "-N", "-o", "%T")
		if strings.TrimSpace(out) == "idle" {
			return c
		}
		if time.Now().After(deadline) || d.exited() {
			t.Fatalf("the node is not idle after 30 s (sinfo: %q)\nslurmctld:\n%s\nslurmd:\n%s", out,
				tail(filepath.Join(dir, "slurm/log/slurmctld.log"), 20), tail(filepath.Join(dir, "slurm/log/slurmd.log"), 20))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startMunge starts a munged of the test's own, as the munge user, with a
// fresh key, and returns its socket.
func (c *slurmCluster) startMunge(t *testing.T) string {
	t.Helper()
	u, err := user.Lookup("munge")
	if err != nil {
		t.Skipf("skipped: no munge user (%v): is the munge package installed?", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// munged refuses a key or log folder that others can read, and a socket
	// folder they cannot enter.
	m := filepath.Join(c.dir, "munge")
	for d, mode := range map[string]os.FileMode{"": 0o755, "etc": 0o700, "log": 0o700, "lib": 0o700, "run": 0o755} {
		p := filepath.Join(m, d)
		if err := os.MkdirAll(p, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(m, "etc", "munge.key")
	must(t, environ(), c.cmds["mungekey"], "--create", "--keyfile", key)
	if err := os.Chown(key, uid, gid); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(m, "run", "munge.socket")
	cmd := exec.Command(c.cmds["munged"], "--foreground", "--socket="+socket, "--key-file="+key,
		"--log-file="+filepath.Join(m, "log", "munged.log"), "--pid-file="+filepath.Join(m, "run", "munged.pid"),
		"--seed-file="+filepath.Join(m, "lib", "munged.seed"))
	cmd.Env = environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	d := startDaemon(t, c.dir, "munged", cmd)
	c.pids = append(c.pids, d.pid())
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(socket); err == nil {
			return socket
		}
		if time.Now().After(deadline) || d.exited() {
			t.Fatalf("munged did not make its socket in 10 s:\n%s", tail(d.log, 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type slurmJob struct{ id, log string }

// submit submits script with two tasks, its arguments after it.
func (c *slurmCluster) submit(t *testing.T, name string, env []string, script string, args []string) slurmJob {
	t.Helper()
	log := filepath.Join(c.dir, name+"-%j.log")
	out := must(t, env, c.cmds["sbatch"], append([]string{"--parsable", "--job-name", name, "--ntasks", "2",
		"--time", "5", "--output", log, "--chdir", c.dir, script}, args...)...)
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.Atoi(id); err != nil {
		t.Fatalf("sbatch printed %q, not a job id", out)
	}
	return slurmJob{id: id, log: strings.ReplaceAll(log, "%j", id)}
}

// wait waits for the job to end and returns its log; a job that did not
// complete with exit code 0 fails the test.
func (c *slurmCluster) wait(t *testing.T, job slurmJob, timeout time.Duration) string {
	t.Helper()
	state, exit, log := c.end(t, job, timeout)
	if state != "COMPLETED" || exit != "0:0" {
		t.Fatalf("job %s ended %s with exit code %s. Its log:\n%s", job.id, state, exit, log)
	}
	return log
}

// end waits for the job to end and returns its state, exit code and log.
func (c *slurmCluster) end(t *testing.T, job slurmJob, timeout time.Duration) (state, exit, log string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out := must(t, c.env, c.cmds["scontrol"], "show", "job", "-o", job.id)
		state, exit = field(out, "JobState"), field(out, "ExitCode")
		switch state {
		case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "":
			if time.Now().After(deadline) {
				run(context.Background(), c.env, c.cmds["scancel"], job.id)
				t.Fatalf("job %s still %s after %v; cancelled. Its log:\n%s", job.id, state, timeout, tail(job.log, 40))
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		data, _ := os.ReadFile(job.log)
		return state, exit, string(data)
	}
}

// field returns the value of KEY=value in scontrol's one-line output.
func field(out, key string) string {
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// workerOnceRendering waits until worker task `task` of the job has opened
// the render's job (its log line) and returns its PID, from Slurm's own
// list of the step's processes.
func (c *slurmCluster) workerOnceRendering(t *testing.T, job slurmJob, task int, bin string) int {
	t.Helper()
	prefix := strconv.Itoa(task) + ": "
	deadline := time.Now().Add(time.Minute)
	for {
		data, _ := os.ReadFile(job.log)
		opened := false
		for line := range strings.Lines(string(data)) {
			if strings.HasPrefix(line, prefix) && strings.Contains(line, `msg="job opened"`) {
				opened = true
			}
		}
		if opened {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker task %d did not start rendering in a minute. The job's log:\n%s", task, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// PID JOBID STEPID LOCALID GLOBALID; the workers' step is the one that
	// is neither the batch script nor the extern step.
	out := must(t, c.env, c.cmds["scontrol"], "listpids", job.id)
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) != 5 || f[2] == "batch" || f[2] == "extern" || f[4] != strconv.Itoa(task) {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe != bin {
			t.Fatalf("task %d's process %d runs %q, not %s", task, pid, exe, bin)
		}
		return pid
	}
	t.Fatalf("no process of worker task %d in scontrol listpids:\n%s", task, out)
	return 0
}

// cancelAll cancels the jobs still in the cluster and waits for them to
// leave, so that no slurmstepd outlives slurmd.
func (c *slurmCluster) cancelAll(t *testing.T) {
	ctx := context.Background()
	for deadline := time.Now().Add(20 * time.Second); ; {
		out, err := run(ctx, c.env, c.cmds["squeue"], "-h", "-o", "%i")
		if err != nil || strings.TrimSpace(out) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("jobs still in the queue after 20 s: %s", out)
			return
		}
		for _, id := range strings.Fields(out) {
			run(ctx, c.env, c.cmds["scancel"], id)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
