package remote

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/test/bufconn"
)

// pki writes a certificate authority and two certificates it signed, for
// the worker (server, named "w") and for a coordinator (client), as PEM
// files in dir.
func pki(t *testing.T, dir string) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, typ string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	caKey := key()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	write("ca.pem", "CERTIFICATE", caDER)
	for i, name := range []string{"server", "client"} {
		k := key()
		c := &x509.Certificate{SerialNumber: big.NewInt(int64(2 + i)), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			DNSNames: []string{"w"}, KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
		der, err := x509.CreateCertificate(rand.Reader, c, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".pem", "CERTIFICATE", der)
		kder, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		write(name+"-key.pem", "EC PRIVATE KEY", kder)
	}
}

// A worker with mutual TLS serves a coordinator that shows a certificate
// from its authority, and no one else.
func TestMutualTLS(t *testing.T) {
	dir := t.TempDir()
	pki(t, dir)
	f := func(name string) string { return filepath.Join(dir, name) }
	scfg, err := ServerTLS(f("server.pem"), f("server-key.pem"), f("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	dial := tlsWorker(t, scfg, 2)

	bundle, scene := testScene(t, 32, 2)
	ccfg, err := ClientTLS(f("ca.pem"), f("client.pem"), f("client-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	opt := ClientOptions{Dialer: dial, TLS: ccfg, Backoff: 10 * time.Millisecond}
	res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, opt), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))

	// Found through DNS at an address its certificate does not name (a
	// Kubernetes pod's), the worker is checked against the DNS name.
	dns := opt
	dns.Resolver = &fakeResolver{hosts: []string{"10.1.2.3"}}
	dns.MaxFailures = 2
	res, err = render(t, scene, NewCluster([]string{"dns:///w:7000"}, bundle, dns), false)
	if err != nil {
		t.Fatalf("a worker found through DNS: %v", err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))

	// Without a client certificate, or trusting another authority: refused.
	noCert, _ := ClientTLS(f("ca.pem"), "", "")
	plain := ClientOptions{Dialer: dial, Backoff: 10 * time.Millisecond, MaxFailures: 2}
	for name, o := range map[string]ClientOptions{"no client certificate": {Dialer: dial, TLS: noCert, Backoff: 10 * time.Millisecond, MaxFailures: 2}, "no TLS": plain} {
		if _, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, o), false); err == nil {
			t.Errorf("%s: the render succeeded", name)
		}
	}
	if _, err := ClientTLS(f("nope.pem"), "", ""); err == nil || !strings.Contains(err.Error(), "nope.pem") {
		t.Errorf("a missing authority file: %v", err)
	}
	if _, err := ServerTLS(f("server.pem"), "", ""); err == nil {
		t.Error("a certificate without its key was accepted")
	}
}

// A pair from GenerateCert serves a worker, is the authority the
// coordinator trusts, and is the client certificate of mutual TLS.
func TestGenerateCert(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := GenerateCert(dir, []string{"w", "127.0.0.1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v; want 0600", err, fi.Mode())
	}
	if _, _, err := GenerateCert(dir, []string{"w"}, time.Now()); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second GenerateCert in the same folder: %v, want a refusal to overwrite", err)
	}
	scfg, err := ServerTLS(cert, key, cert)
	if err != nil {
		t.Fatal(err)
	}
	dial := tlsWorker(t, scfg, 2)
	ccfg, err := ClientTLS(cert, cert, key)
	if err != nil {
		t.Fatal(err)
	}
	bundle, scene := testScene(t, 16, 1)
	res, err := render(t, scene, NewCluster([]string{"w:7000"}, bundle, ClientOptions{Dialer: dial, TLS: ccfg, Backoff: 10 * time.Millisecond}), false)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, res.Framebuffer.Pix, localRender(t, scene, 8))
}

// tlsWorker serves a worker of threads threads with the TLS configuration
// scfg on an in-memory listener, stopped when the test ends, and returns
// a dialer to it.
func tlsWorker(t *testing.T, scfg *tls.Config, threads int) func(context.Context, string) (net.Conn, error) {
	t.Helper()
	l := bufconn.Listen(1 << 20)
	srv := NewServer(ServerOptions{Threads: threads})
	g := grpc.NewServer(append(srv.GRPCOptions(), grpc.Creds(credentials.NewTLS(scfg)))...)
	srv.Register(g)
	go g.Serve(l)
	t.Cleanup(g.Stop)
	return func(ctx context.Context, _ string) (net.Conn, error) { return l.DialContext(ctx) }
}
