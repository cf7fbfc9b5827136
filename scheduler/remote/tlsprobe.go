package remote

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"
)

// tlsProbeTimeout bounds probeTLS: a worker that speaks TLS answers a
// handshake in a round trip or two.
const tlsProbeTimeout = 2 * time.Second

// probeTLS says whether the worker at addr speaks TLS, and whether its
// handshake asks for a client certificate, by starting a TLS handshake
// with it: a worker that serves TLS closes a plain connection before it
// says anything, as a worker that crashed does (closedByPeer). The
// handshake trusts any certificate, since it only asks whether the worker
// speaks TLS, and nothing is sent over it; a TLS alert (a client
// certificate required, say) is an answer in TLS too. authority, if set,
// is the name the worker was found under, sent as the server name.
func (c *Cluster) probeTLS(ctx context.Context, addr, authority string) (speaksTLS, asksCert bool) {
	ctx, cancel := context.WithTimeout(ctx, tlsProbeTimeout)
	defer cancel()
	var raw net.Conn
	var err error
	if c.opt.Dialer != nil {
		raw, err = c.opt.Dialer(ctx, addr)
	} else {
		raw, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return false, false
	}
	defer raw.Close()
	name := addr
	if authority != "" {
		name = authority
	}
	if host, _, err := net.SplitHostPort(name); err == nil {
		name = host
	}
	conn := tls.Client(raw, &tls.Config{
		ServerName:         name,
		NextProtos:         []string{"h2"},
		InsecureSkipVerify: true, // it asks only whether the worker speaks TLS
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			asksCert = true
			return &tls.Certificate{}, nil // none sent
		},
	})
	err = conn.HandshakeContext(ctx)
	var op *net.OpError
	if err == nil || errors.As(err, &op) && op.Op == "remote error" {
		return true, asksCert
	}
	return false, false
}
