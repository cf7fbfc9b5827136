package main

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Beyond loopback a worker must authenticate its callers: a token or
// mutual TLS. TLS alone is refused, as is nothing at all, unless
// --insecure; a token without TLS is a warning about clear text.
func TestWorkerExposure(t *testing.T) {
	tests := []struct {
		name                            string
		host                            string
		token, cert, clientCA, insecure bool
		refused, warns                  bool
	}{
		{name: "loopback, nothing", host: "127.0.0.1"},
		{name: "loopback ::1, token", host: "::1", token: true},
		{name: "all, nothing", host: "0.0.0.0", refused: true},
		{name: "all (empty host), nothing", host: "", refused: true},
		{name: "all, TLS only", host: "0.0.0.0", cert: true, refused: true},
		{name: "all, mutual TLS", host: "0.0.0.0", cert: true, clientCA: true},
		{name: "all, token and TLS", host: "0.0.0.0", token: true, cert: true},
		{name: "all, token in clear text", host: "0.0.0.0", token: true, warns: true},
		{name: "all, insecure", host: "0.0.0.0", insecure: true},
		{name: "all, TLS only, insecure", host: "0.0.0.0", cert: true, insecure: true},
	}
	for _, tc := range tests {
		var logs bytes.Buffer
		err := checkExposure(tc.host+":7000", tc.host, tc.token, tc.cert, tc.clientCA, tc.insecure, slog.New(slog.NewTextHandler(&logs, nil)))
		if (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused %v", tc.name, err, tc.refused)
		}
		if warned := strings.Count(logs.String(), "clear text"); warned != map[bool]int{true: 1}[tc.warns] {
			t.Errorf("%s: %d clear-text warnings, want %v:\n%s", tc.name, warned, tc.warns, logs.String())
		}
	}
}

// `trace worker` with server-only TLS on all interfaces refuses to start,
// saying what would do.
func TestWorkerRefusesTLSWithoutClientAuth(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCLI("worker", "--gen-cert", dir, "w"); code != 0 {
		t.Fatalf("--gen-cert: exit %d: %s", code, stderr)
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	t.Setenv("TRACE_TOKEN", "")
	for _, args := range [][]string{
		{"worker", "--listen", "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key},
		{"worker", "--listen", ":0"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitUsage || !strings.Contains(stderr, "--tls-client-ca") || !strings.Contains(stderr, "--token") {
			t.Errorf("%v: exit %d, %q; want %d naming --token and --tls-client-ca", args, code, stderr, exitUsage)
		}
	}
}

// --gen-cert writes a certificate for the names given, and a private key
// only its owner reads, and never overwrites them.
func TestWorkerGenCert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	code, _, stderr := runCLI("worker", "--gen-cert", dir, "w.example", "10.0.0.7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cert.pem"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("cert.pem holds no PEM block")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.DNSNames, []string{"w.example"}) || len(c.IPAddresses) != 1 || c.IPAddresses[0].String() != "10.0.0.7" {
		t.Errorf("names %v, addresses %v; want w.example and 10.0.0.7", c.DNSNames, c.IPAddresses)
	}
	if c.NotAfter.Before(time.Now().Add(300 * 24 * time.Hour)) {
		t.Errorf("valid until %v only", c.NotAfter)
	}
	if fi, err := os.Stat(filepath.Join(dir, "key.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key.pem: %v, mode %v", err, fi.Mode())
	}
	if code, _, stderr := runCLI("worker", "--gen-cert", dir, "w.example"); code == 0 || !strings.Contains(stderr, "exists") {
		t.Errorf("a second --gen-cert into %s: exit %d, %q; want a refusal to overwrite", dir, code, stderr)
	}
}

// --metrics :PORT means loopback, as --serve does; a host given is kept.
func TestWorkerMetricsAddress(t *testing.T) {
	for in, want := range map[string]string{":9100": "127.0.0.1:9100", "0.0.0.0:9100": "0.0.0.0:9100", "[::1]:9": "[::1]:9", "host:1": "host:1"} {
		if got, err := loopbackByDefault(in); err != nil || got != want {
			t.Errorf("loopbackByDefault(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if code, _, stderr := runCLI("worker", "--help"); code != 0 || !strings.Contains(stderr, ":PORT means loopback") {
		t.Errorf("worker --help: exit %d; want it to say :PORT means loopback:\n%s", code, stderr)
	}
}

// The budgets and timeouts of uploads and render streams are flags, with
// their defaults in --help; bad values are usage errors.
func TestWorkerBudgetFlags(t *testing.T) {
	code, _, stderr := runCLI("worker", "--help")
	for _, want := range []string{"--upload-bytes", "--upload-idle duration", "(default 30s)", "--upload-timeout duration", "(default 30m0s)", "--reply-timeout duration", "(default 2m0s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("worker --help (exit %d) does not mention %q", code, want)
		}
	}
	for _, args := range [][]string{
		{"--upload-bytes", "10", "--max-scene-bytes", "100"},
		{"--upload-idle", "0s"},
		{"--reply-timeout", "-1s"},
	} {
		if code, _, stderr := runCLI(append([]string{"worker", "--listen", "127.0.0.1:0"}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d, %q; want %d", args, code, stderr, exitUsage)
		}
	}
}
