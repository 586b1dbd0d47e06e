package datasets

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultTimeout is the timeout of the client Download uses when given
// none (see NewHTTPClient).
const DefaultTimeout = time.Minute

// NewHTTPClient returns an HTTP client for downloads that gives up on a
// server that stops answering: connecting, the TLS handshake, waiting for
// the response headers, and every wait for more of the body are each
// bounded by timeout (> 0). A slow but steady download is never cut: there
// is no bound on the whole transfer (cancel the context for that).
// http.DefaultClient has no timeout at all, so a server that accepts the
// connection and never answers hangs it for ever.
func NewHTTPClient(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: &stallTransport{base: tr, timeout: timeout}}
}

// stallTransport makes the body of every response fail once no data has
// arrived for timeout.
type stallTransport struct {
	base    http.RoundTripper
	timeout time.Duration
}

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || t.timeout <= 0 {
		return resp, err
	}
	b := &stallBody{rc: resp.Body, timeout: t.timeout}
	b.timer = time.AfterFunc(t.timeout, b.stalled)
	resp.Body = b
	return resp, nil
}

// errStalled is the error of a body that received nothing for too long.
var errStalled = errors.New("no data from the server")

// stallBody is a response body closed by a timer that every read that
// returns data restarts.
type stallBody struct {
	rc      io.ReadCloser
	timeout time.Duration
	timer   *time.Timer

	mu      sync.Mutex
	expired bool
}

func (b *stallBody) stalled() {
	b.mu.Lock()
	b.expired = true
	b.mu.Unlock()
	b.rc.Close() // unblocks a pending Read
}

func (b *stallBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	expired := b.expired
	b.mu.Unlock()
	if expired {
		return n, fmt.Errorf("%w for %v", errStalled, b.timeout)
	}
	if n > 0 {
		b.timer.Reset(b.timeout)
	}
	return n, err
}

func (b *stallBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}
