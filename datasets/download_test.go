package datasets

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedAddress returns host:port of a local port nobody listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestDownloadUnreachable: when the server cannot be reached or drops the
// connection, Download says so in one line naming the host, that the
// network may be offline and where to put the files by hand, and leaves no
// folder or partial file behind.
func TestDownloadUnreachable(t *testing.T) {
	ds, content := fakeDataset()
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer hangUp.Close()
	cutBody := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := content[filepath.Base(r.URL.Path)]
		w.Header().Set("Content-Length", "1000000")
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer cutBody.Close()
	serverError := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer serverError.Close()

	tests := []struct {
		name        string
		base        string
		unreachable bool
	}{
		{"closed port", "http://" + closedAddress(t), true},
		{"connection closed", hangUp.URL, true},
		{"body cut", cutBody.URL, true},
		{"server error", serverError.URL, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			root := filepath.Join(parent, "new", "data")
			rds := ds.WithBaseURL(tc.base)
			err := Download(context.Background(), rds, root, nil)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			host := strings.TrimPrefix(tc.base, "http://")
			wants := []string{host, filepath.Join(root, "fake", "a.txt.gz"), rds.Files[0].URL}
			if tc.unreachable {
				wants = append(wants, "cannot reach "+host, "the network may be offline")
			}
			for _, want := range wants {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q\ndoes not say %q", msg, want)
				}
			}
			if errors.Is(err, ErrUnreachable) != tc.unreachable {
				t.Errorf("errors.Is(err, ErrUnreachable) = %v, want %v", !tc.unreachable, tc.unreachable)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error of several lines: %q", msg)
			}
			// Nothing left: not even the folders Download created.
			if entries, _ := os.ReadDir(parent); len(entries) != 0 {
				t.Errorf("left behind in %s: %v", parent, listAll(t, parent))
			}
		})
	}
	t.Run("existing root kept", func(t *testing.T) {
		root := t.TempDir()
		if err := Download(context.Background(), ds.WithBaseURL("http://"+closedAddress(t)), root, nil); err == nil {
			t.Fatal("no error")
		}
		if _, err := os.Stat(root); err != nil {
			t.Errorf("the existing root was removed: %v", err)
		}
		if all := listAll(t, root); len(all) != 0 {
			t.Errorf("left behind: %v", all)
		}
	})
}

// listAll returns every path under dir (folders included), relative.
func listAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}
