package remote

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// PermanentError is a worker's error that no retry mends: it refused this
// coordinator's token or certificate, its certificate is not to be
// trusted, or it speaks another protocol. The render fails at once with
// it (scheduler.Queue.Abort), saying what to do.
type PermanentError struct {
	Worker string // the worker's address
	Msg    string // what is wrong and what to do, one line
	Err    error  // the gRPC error
}

func (e *PermanentError) Error() string { return "worker " + e.Worker + ": " + e.Msg }
func (e *PermanentError) Unwrap() error { return e.Err }

// explain turns an error of a call to a worker into one line for a
// person, and says whether it is permanent: retrying the same call with
// the same options gives the same answer. Transient errors (the worker
// is down, unreachable, restarting) keep their backoff.
func explain(err error, opt *ClientOptions, askedCert bool) (msg string, permanent bool) {
	st, ok := status.FromError(err)
	if !ok {
		if errors.Is(err, context.DeadlineExceeded) {
			return "no answer in time", false
		}
		if msg, permanent, found := explainTransport(err.Error(), opt, askedCert); found {
			return msg, permanent
		}
		return err.Error(), false
	}
	text := st.Message()
	switch st.Code() {
	case codes.Unauthenticated:
		if opt.Token == "" {
			return "it requires a token (" + text + "): set TRACE_TOKEN (or --token) to the secret the worker was started with", true
		}
		return "it refused the token (" + text + "): TRACE_TOKEN (or --token) must be the secret the worker was started with", true
	case codes.PermissionDenied:
		return "it denied this render (" + text + "): check the worker's --token and --tls-client-ca against this render's", true
	case codes.Unimplemented:
		return "it does not serve what this render asks (" + text + "): run the same version of trace on both sides", true
	case codes.Unavailable:
		if msg, permanent, found := explainTransport(text, opt, askedCert); found {
			return msg, permanent
		}
		return "connection failed: " + text, false
	}
	return st.Code().String() + ": " + text, false
}

// explainTransport explains a connection that failed, if it knows the
// failure: TLS mistakes are permanent, a worker that cannot be reached is
// not.
func explainTransport(text string, opt *ClientOptions, askedCert bool) (msg string, permanent, found bool) {
	detail := text
	if i := strings.LastIndex(text, "x509: "); i >= 0 {
		detail = strings.TrimSuffix(text[i:], `"`)
	} else if i := strings.LastIndex(text, "tls: "); i >= 0 {
		detail = strings.TrimSuffix(text[i:], `"`)
	}
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(text, x) {
				return true
			}
		}
		return false
	}
	noClientCert := opt.TLS != nil && len(opt.TLS.Certificates) == 0 && opt.TLS.GetClientCertificate == nil
	switch {
	case has("certificate signed by unknown authority"):
		return "its TLS certificate is not trusted (" + detail + "): give the authority that signed it with --tls-ca", true, true
	case has("certificate is valid for", "doesn't contain any IP SANs", "not valid for any names"):
		return "its TLS certificate is for another name (" + detail + "): dial the worker by a name its certificate holds, or make it one for this name (trace worker --gen-cert DIR NAME)", true, true
	case has("certificate has expired or is not yet valid"):
		return "its TLS certificate has expired or is not valid yet (" + detail + "): make a new one (trace worker --gen-cert)", true, true
	case has("certificate required"):
		return "it requires a client certificate (" + detail + "): give --tls-cert and --tls-key", true, true
	case has("bad certificate", "unknown certificate authority", "certificate unknown", "unsupported certificate"):
		return "it refused this render's client certificate (" + detail + "): give one signed by the authority of the worker's --tls-client-ca", true, true
	case has("first record does not look like a TLS handshake"):
		return "it does not speak TLS: leave out --tls-ca, --tls-cert and --tls-key, or start the worker with --tls-cert and --tls-key", true, true
	case has("connection refused"):
		return "cannot connect: connection refused (is trace worker running there, listening on that port?)", false, true
	case has("no such host"):
		return "cannot connect: no such host", false, true
	case has("i/o timeout", "deadline exceeded"):
		return "cannot connect: no answer in time (a firewall, or the wrong address?)", false, true
	case has("network is unreachable", "no route to host"):
		return "cannot connect: " + detailAfterColon(text), false, true
	case noClientCert && askedCert && has("broken pipe", "closed pipe", "connection reset", "client preface", "server preface", "EOF"):
		// The worker asked for a client certificate in the handshake
		// (Cluster.conn), got none, and closed the connection: its
		// alert saying why (the case above) lost the race with the
		// close, as it may in TLS 1.3, where the client's handshake
		// ends before the server reads its certificate.
		return "it requires a client certificate (it asked for one in the TLS handshake; the connection then closed: " + detailAfterColon(text) + "): give --tls-cert and --tls-key", true, true
	case noClientCert && has("broken pipe", "closed pipe", "connection reset", "client preface", "server preface", "EOF"):
		// A worker that wants a client certificate closes the
		// connection after TLS 1.3's handshake; its alert saying so
		// does not always arrive first. The next try most often gets
		// it (the case above).
		return "the connection closed right after the TLS handshake (" + detailAfterColon(text) + "): if the worker requires client certificates (--tls-client-ca), give --tls-cert and --tls-key", false, true
	case opt.TLS == nil && has("server preface", "client preface") && closedByPeer(text):
		// A worker that serves TLS does this to a caller that does not
		// speak it (Cluster.probeTLS tells), and so does one that
		// crashed.
		return "the connection closed before the worker answered (is trace worker running there, on that port?)", false, true
	}
	return "", false, false
}

// closedByPeer says whether text is the error of a connection that the
// other end closed or reset.
func closedByPeer(text string) bool {
	for _, s := range []string{"EOF", "connection reset", "broken pipe", "closed pipe", "connection closed"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// servesTLS explains a plain connection closed by a worker that speaks
// TLS (Cluster.probeTLS): asksCert says whether its handshake asked for
// a client certificate.
func servesTLS(asksCert bool) string {
	if asksCert {
		return "it serves TLS and requires a client certificate, and this render does not speak TLS: give the authority that signed its certificate with --tls-ca, and a client certificate with --tls-cert and --tls-key"
	}
	return "it serves TLS, and this render does not speak TLS: give the authority that signed its certificate with --tls-ca"
}

// detailAfterColon returns the last part of a chain of "a: b: c" causes.
func detailAfterColon(s string) string {
	s = strings.TrimSuffix(s, `"`)
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// describedError is an error with a message for a person (see explain).
type describedError struct {
	msg string
	err error
}

func (e describedError) Error() string { return e.msg }
func (e describedError) Unwrap() error { return e.err }
