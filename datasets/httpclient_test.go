package datasets

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDownloadGivesUpOnStalledServers: with NewHTTPClient's timeouts, a
// server that accepts the connection and never answers, or stops sending
// the body half-way, fails the download within a few timeouts (with
// http.DefaultClient both hang for ever), naming the host, leaving
// nothing behind; a slow but steady server is not cut, however long the
// whole transfer takes.
func TestDownloadGivesUpOnStalledServers(t *testing.T) {
	ds, content := fakeDataset()
	release := make(chan struct{})
	defer close(release)
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	silent := httptest.NewServer(http.HandlerFunc(hang))
	defer silent.Close()
	stallBody := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := content[filepath.Base(r.URL.Path)]
		w.Header().Set("Content-Length", "1000000")
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		hang(w, r)
	}))
	defer stallBody.Close()
	const timeout = 200 * time.Millisecond
	for _, srv := range []*httptest.Server{silent, stallBody} {
		parent := t.TempDir()
		root := filepath.Join(parent, "data")
		start := time.Now()
		err := Download(context.Background(), ds.WithBaseURL(srv.URL), root, NewHTTPClient(timeout))
		took := time.Since(start)
		host := strings.TrimPrefix(srv.URL, "http://")
		if err == nil || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), host+" stopped answering") {
			t.Errorf("%s: error %v, want one saying the host stopped answering", host, err)
		}
		if took > 20*timeout {
			t.Errorf("%s: gave up after %v with a timeout of %v", host, took, timeout)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("left behind: %v", listAll(t, parent))
		}
	}

	// 15 pieces 80 ms apart take longer than the 1 s timeout, each wait far
	// below it (so that a loaded machine, the race detector or a low
	// priority cannot stretch a wait past it); the headers go first.
	steady := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := content[filepath.Base(r.URL.Path)]
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		const pieces = 15
		for k := 0; k < pieces; k++ {
			time.Sleep(80 * time.Millisecond)
			w.Write(b[k*len(b)/pieces : (k+1)*len(b)/pieces])
			w.(http.Flusher).Flush()
		}
	}))
	defer steady.Close()
	root := t.TempDir()
	if err := Download(context.Background(), ds.WithBaseURL(steady.URL), root, NewHTTPClient(time.Second)); err != nil {
		t.Fatalf("a slow but steady download was cut: %v", err)
	}
	for name, want := range content {
		if got, err := os.ReadFile(filepath.Join(root, "fake", name)); err != nil || string(got) != string(want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
