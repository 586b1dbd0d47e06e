package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDownloadTimesOut: a server that accepts the connection and never
// answers fails the download after --timeout (it used to hang for ever),
// in one line naming the host, leaving nothing behind.
func TestDownloadTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	parent := t.TempDir()
	start := time.Now()
	code, out, errOut := runCLIWithin(t, time.Minute, "download", "--dir", filepath.Join(parent, "data"), "--base-url", srv.URL, "--timeout", "300ms", "usps")
	host := strings.TrimPrefix(srv.URL, "http://")
	if code != 1 || out != "" || !strings.Contains(errOut, host+" stopped answering") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("gave up after %v with --timeout 300ms", took)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
