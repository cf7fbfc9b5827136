package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The sizes of a checkpoint file (see package scheduler/checkpoint): the
// magic, version and header record, then a record per tile of 8 bytes of
// frame, 21 of tile ID and rectangle, and 12 per pixel.
const (
	ckHeaderBytes = 121
	ckTile16Bytes = 8 + 21 + 12*16*16
	ckTile8Bytes  = 8 + 21 + 12*8*8
)

// killArgs renders the Cornell box in 36 tiles of 16×16 on two threads:
// a second or two, long enough to stop it at a chosen tile (runUntil),
// and the whole test under a minute on two busy cores.
func killArgs(out string, more ...string) []string {
	return append([]string{"render", cornell, "-o", out, "--width", "96", "--height", "96",
		"--samples", "128", "--tile", "16", "--threads", "2", "-q"}, more...)
}

// ckRecords returns how many complete 16×16 tile records the checkpoint
// at path holds, or −1 before its header is there.
func ckRecords(path string) int {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < ckHeaderBytes {
		return -1
	}
	return int((fi.Size() - ckHeaderBytes) / ckTile16Bytes)
}

// runUntil runs bin with args and sends it sig as soon as the checkpoint at
// ck holds n tile records, so that the signal lands mid-render at a known
// point whatever the machine's load. It returns what the process printed
// and how it ended.
func runUntil(t *testing.T, bin string, args []string, ck string, n int, sig os.Signal) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for ckRecords(ck) < n {
		select {
		case err := <-exited:
			t.Fatalf("%v ended (%v) before the checkpoint held %d tiles: %s", args, err, n, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("the checkpoint never reached %d tiles: %s", n, stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
	cmd.Process.Signal(sig)
	err := <-exited
	return stderr.String(), err
}

// TestCheckpointKillResume kills renders with SIGKILL at several points —
// and once the resumed render too — and resumes them: the image is byte
// for byte the uninterrupted render's, and each resume takes every tile
// that was recorded whole.
func TestCheckpointKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills and resumes renders of a few seconds each; skipped in -short mode")
	}
	bin := buildTrace(t)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.png")
	if out, err := exec.Command(bin, killArgs(ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference render: %v\n%s", err, out)
	}
	want, _ := os.ReadFile(ref)

	for _, c := range []struct {
		name  string
		stops []int // tile records at which to stop the render, then each resume
		sig   syscall.Signal
	}{
		{"after 1 tile", []int{1}, syscall.SIGKILL},
		{"after 12 tiles, resume killed after 22", []int{12, 22}, syscall.SIGKILL},
		{"after 30 tiles", []int{30}, syscall.SIGKILL},
		{"interrupted after 18 tiles", []int{18}, syscall.SIGINT},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.png")
			ck := filepath.Join(t.TempDir(), "render.ckpt")
			flag := "--checkpoint"
			for _, n := range c.stops {
				stderr, err := runUntil(t, bin, killArgs(out, flag, ck), ck, n, c.sig)
				flag = "--resume"
				if c.sig == syscall.SIGINT {
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
						t.Errorf("exit %v, want %d", err, exitInterrupted)
					}
					if hint := "continue with --resume " + ck; !strings.Contains(stderr, hint) {
						t.Errorf("stderr %q lacks %q", stderr, hint)
					}
				}
				if _, err := os.Stat(out); err == nil {
					t.Fatal("the stopped render wrote its image")
				}
				if got := ckRecords(ck); got >= 36 {
					t.Fatalf("the checkpoint holds all %d tiles: the render ended before it was stopped", got)
				}
			}
			recorded := ckRecords(ck)
			cmd := exec.Command(bin, slicesWithout(killArgs(out, "--resume", ck), "-q")...)
			stderr, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("resume: %v\n%s", err, stderr)
			}
			if resumed := fmt.Sprintf("; %d of 36 tiles resumed", recorded); !strings.Contains(string(stderr), resumed) {
				t.Errorf("summary %q lacks %q", stderr, resumed)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
				t.Error("the resumed image differs from the uninterrupted render's")
			}
			if fi, err := os.Stat(ck); err != nil || fi.Size() != ckHeaderBytes+36*ckTile16Bytes {
				t.Errorf("final checkpoint: %v, want exactly the header and 36 tiles", fi.Size())
			}
		})
	}
}

// slicesWithout returns args without the argument drop.
func slicesWithout(args []string, drop string) []string {
	var out []string
	for _, a := range args {
		if a != drop {
			out = append(out, a)
		}
	}
	return out
}

// smallArgs renders the Cornell box quickly in 16 tiles of 8×8.
func smallArgs(scene, out string, more ...string) []string {
	return append([]string{"render", scene, "-o", out, "--width", "32", "--height", "32",
		"--samples", "2", "--tile", "8", "--threads", "2"}, more...)
}

// smallCheckpoint renders the small Cornell box with a checkpoint and
// returns the image and the checkpoint's path.
func smallCheckpoint(t *testing.T) ([]byte, string) {
	t.Helper()
	dir := t.TempDir()
	out, ck := filepath.Join(dir, "ref.png"), filepath.Join(dir, "ref.ckpt")
	if code, _, stderr := runCLI(smallArgs(cornell, out, "--checkpoint", ck)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	png, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return png, ck
}

// A checkpoint that does not belong to the render, or that would be
// overwritten, is refused with one line and exit status 2, and left as it
// was.
func TestCheckpointRefused(t *testing.T) {
	_, ck := smallCheckpoint(t)
	before, _ := os.ReadFile(ck)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.png")
	whitted := "../../scenes/examples/whitted.json"
	for _, c := range []struct {
		args []string
		want string
	}{
		{smallArgs(whitted, out, "--resume", ck), "checkpoint " + ck + ": written for another scene (scene hash "},
		{smallArgs(cornell, out, "--resume", ck, "--samples", "3"), "written with other settings: samples 2 (this render: 3)"},
		{smallArgs(cornell, out, "--resume", ck, "--tile", "16"), "tile size 8 (this render: 16)"},
		{smallArgs(cornell, out, "--resume", ck, "--seed", "9"), "seed 1 (this render: 9)"},
		{smallArgs(cornell, out, "--checkpoint", ck), "--checkpoint " + ck + ": the file exists; continue that render with --resume " + ck},
		{smallArgs(cornell, out, "--checkpoint", ck, "--resume", ck+"2"), "name different files"},
		{smallArgs(cornell, out, "--resume", filepath.Join(dir, "none")), "no such checkpoint"},
		{smallArgs(cornell, out, "--resume", cornell), "not a trace checkpoint"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want %d and one line containing %q", c.args[1:], code, stderr, exitUsage, c.want)
		}
		if after, _ := os.ReadFile(ck); !bytes.Equal(after, before) {
			t.Fatalf("%v changed the checkpoint", c.args[1:])
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v wrote an image", c.args[1:])
		}
	}
}

// --checkpoint and --resume on the same file start it when it is missing
// and resume it when it is there; a finished checkpoint just writes the
// image again.
func TestCheckpointResumeOrStart(t *testing.T) {
	want, _ := smallCheckpoint(t)
	dir := t.TempDir()
	ck := filepath.Join(dir, "c.ckpt")
	for i, resumed := range []string{"", "; 16 of 16 tiles resumed"} {
		out := filepath.Join(dir, fmt.Sprint(i, ".png"))
		code, _, stderr := runCLI(smallArgs(cornell, out, "--checkpoint", ck, "--resume", ck)...)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
		if resumed != "" && !strings.Contains(stderr, resumed) || resumed == "" && strings.Contains(stderr, "resumed") {
			t.Errorf("run %d: summary %q, want %q", i, stderr, resumed)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("run %d: image differs from the render without a checkpoint", i)
		}
	}
}

// A checkpoint cut at a random byte — as a crash leaves it, or a full disk
// — is refused when its header is cut, and otherwise resumed with a
// warning that names the bytes discarded, to the same image.
func TestCheckpointTruncated(t *testing.T) {
	want, ck := smallCheckpoint(t)
	full, _ := os.ReadFile(ck)
	if len(full) != ckHeaderBytes+16*ckTile8Bytes {
		t.Fatalf("checkpoint of %d bytes, want %d", len(full), ckHeaderBytes+16*ckTile8Bytes)
	}
	rng := rand.New(rand.NewPCG(1, 2)) // fixed: the same cuts every run
	cuts := []int{0, 5, ckHeaderBytes - 1, ckHeaderBytes, ckHeaderBytes + 3*ckTile8Bytes}
	for range 6 {
		cuts = append(cuts, ckHeaderBytes+rng.IntN(len(full)-ckHeaderBytes))
	}
	for _, cut := range cuts {
		dir := t.TempDir()
		out, cutCk := filepath.Join(dir, "out.png"), filepath.Join(dir, "cut.ckpt")
		if err := os.WriteFile(cutCk, full[:cut], 0o666); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(smallArgs(cornell, out, "--resume", cutCk)...)
		if cut < ckHeaderBytes {
			if code != exitUsage || !strings.Contains(stderr, "header cut short") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("cut at %d: exit %d, %q; want %d and the header cut short", cut, code, stderr, exitUsage)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("cut at %d: exit %d: %s", cut, code, stderr)
		}
		tiles := (cut - ckHeaderBytes) / ckTile8Bytes
		if lost := (cut - ckHeaderBytes) % ckTile8Bytes; lost > 0 {
			if w := fmt.Sprintf("trace: warning: checkpoint %s: the record at byte %d is cut short, as a crash while writing it leaves it; discarded the last %d bytes and kept the %d tiles before them\n",
				cutCk, cut-lost, lost, tiles); !strings.HasPrefix(stderr, w) {
				t.Errorf("cut at %d: stderr %q, want it to start with %q", cut, stderr, w)
			}
		} else if strings.Contains(stderr, "warning") {
			t.Errorf("cut at %d, between records: %q", cut, stderr)
		}
		if resumed := fmt.Sprintf("; %d of 16 tiles resumed", tiles); tiles > 0 && !strings.Contains(stderr, resumed) {
			t.Errorf("cut at %d: summary %q lacks %q", cut, stderr, resumed)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("cut at %d: the resumed image differs", cut)
		}
		if fi, _ := os.Stat(cutCk); fi.Size() != int64(len(full)) {
			t.Errorf("cut at %d: the resumed checkpoint has %d bytes, want %d", cut, fi.Size(), len(full))
		}
	}
}

// TestCheckpointOutputFails: when the image cannot be written at the end
// (here its name became a folder during the render), the render fails
// (exit 1) and says that the checkpoint holds every tile and how to write
// the image from it; that resume renders nothing and gives the image.
func TestCheckpointOutputFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and renders for a second or two; skipped in -short mode")
	}
	bin := buildTrace(t)
	dir := t.TempDir()
	out, ck := filepath.Join(dir, "out.png"), filepath.Join(dir, "out.ckpt")
	cmd := exec.Command(bin, killArgs(out, "--checkpoint", ck)...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ckRecords(ck) < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no tile in the checkpoint after 60 s: %s", stderr.String())
		}
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stderr %q", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "the image was not written") ||
		lines[1] != fmt.Sprintf("trace: checkpoint %s holds every tile: once %s can be written, --resume %s writes the image without rendering", ck, out, ck) {
		t.Errorf("stderr %q, want the error, then how to write the image from the checkpoint", stderr.String())
	}
	os.Remove(out)
	res, err := exec.Command(bin, slicesWithout(killArgs(out, "--resume", ck), "-q")...).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "36 of 36 tiles resumed") {
		t.Errorf("resume: %v: %s", err, res)
	}
}
