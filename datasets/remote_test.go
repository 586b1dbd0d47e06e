package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDataset returns a two-file dataset and the contents of its files.
func fakeDataset() (Dataset, map[string][]byte) {
	content := map[string][]byte{
		"a.txt.gz": []byte("first file, pretending to be gzip"),
		"b.csv":    []byte(strings.Repeat("1,2,3\n", 1000)),
	}
	ds := Dataset{Name: "fake"}
	for _, name := range []string{"a.txt.gz", "b.csv"} {
		sum := sha256.Sum256(content[name])
		ds.Files = append(ds.Files, RemoteFile{
			Path:   "fake/" + name,
			URL:    "http://invalid.example/" + name,
			SHA256: hex.EncodeToString(sum[:]),
			Size:   int64(len(content[name])),
		})
	}
	return ds, content
}

// isolate points FWSTRUCT_DATA and the user cache at empty temporary
// folders and returns the cache directory.
func isolate(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv(EnvVar, "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "xdg"))
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	t.Setenv("LocalAppData", filepath.Join(tmp, "appdata"))
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cache, tmp) {
		t.Skipf("cannot redirect the user cache directory on this system (got %s)", cache)
	}
	return cache
}

// populate writes the files of ds under dir in the data-root layout.
func populate(t *testing.T, ds Dataset, content map[string][]byte, dir string) string {
	t.Helper()
	for _, f := range ds.Files {
		writeFile(t, dir, f.Path, content[filepath.Base(f.Path)])
	}
	return dir
}

func TestCacheDir(t *testing.T) {
	cache := isolate(t)
	if filepath.Base(cache) != "fwstruct" {
		t.Errorf("CacheDir = %s, want a folder named fwstruct", cache)
	}
}

func TestLocate(t *testing.T) {
	ds, content := fakeDataset()
	cache := isolate(t)
	tmp := t.TempDir()
	explicitRoot := populate(t, ds, content, filepath.Join(tmp, "explicit"))
	envRoot := populate(t, ds, content, filepath.Join(tmp, "env"))
	populate(t, ds, content, cache)
	// A dataset folder of any name holding the files by their base names,
	// one of them uncompressed.
	folder := filepath.Join(tmp, "my-fake-copy")
	writeFile(t, folder, "a.txt", content["a.txt.gz"])
	writeFile(t, folder, "b.csv", content["b.csv"])
	empty := filepath.Join(tmp, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		explicit string
		env      string
		noCache  bool
		want     string
	}{
		{"explicit wins", explicitRoot, envRoot, false, explicitRoot},
		{"env next", "", envRoot, false, envRoot},
		{"cache last", "", "", false, cache},
		{"env without data falls back to cache", "", empty, false, cache},
		{"explicit dataset folder", filepath.Join(explicitRoot, "fake"), envRoot, false, filepath.Join(explicitRoot, "fake")},
		{"explicit file", filepath.Join(explicitRoot, "fake", "b.csv"), envRoot, false, filepath.Join(explicitRoot, "fake")},
		{"folder of any name, plain copy", folder, "", true, folder},
		{"env as dataset folder", "", folder, true, folder},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvVar, tc.env)
			if tc.noCache {
				t.Setenv("XDG_CACHE_HOME", empty)
				t.Setenv("HOME", empty)
			}
			got, err := Locate(ds, tc.explicit)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Locate = %s, want %s", got, tc.want)
			}
			paths, err := ds.Paths(got)
			if err != nil {
				t.Fatalf("Paths(%s): %v", got, err)
			}
			for k, p := range paths {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("path %d: %v", k, err)
				}
			}
		})
	}

	t.Run("not found", func(t *testing.T) {
		t.Setenv(EnvVar, empty)
		t.Setenv("XDG_CACHE_HOME", empty)
		t.Setenv("HOME", empty)
		_, err := Locate(ds, "")
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("error %v, want ErrNotFound", err)
		}
		emptyCache, _ := CacheDir()
		for _, want := range []string{empty + " ($FWSTRUCT_DATA)", emptyCache, "fwstruct download fake", "FWSTRUCT_DATA"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q\ndoes not mention %q", err, want)
			}
		}
	})
	t.Run("explicit without data", func(t *testing.T) {
		// The data is in $FWSTRUCT_DATA and the cache, but the user named
		// another place: an error naming it, not a fallback.
		t.Setenv(EnvVar, envRoot)
		for _, explicit := range []string{empty, filepath.Join(tmp, "nowhere"), filepath.Join(folder, "b.csv.bak")} {
			got, err := Locate(ds, explicit)
			if err == nil || !strings.Contains(err.Error(), explicit) || errors.Is(err, ErrNotFound) {
				t.Errorf("Locate(%s) = %q, %v; want an error naming it", explicit, got, err)
			}
		}
	})
	t.Run("partial dataset", func(t *testing.T) {
		t.Setenv(EnvVar, "")
		t.Setenv("XDG_CACHE_HOME", empty)
		t.Setenv("HOME", empty)
		part := filepath.Join(tmp, "part")
		writeFile(t, part, "fake/a.txt.gz", content["a.txt.gz"])
		if got, err := Locate(ds, part); err == nil {
			t.Errorf("Locate found %s although b.csv is missing", got)
		}
		if _, err := ds.Paths(part); err == nil || !strings.Contains(err.Error(), "b.csv") {
			t.Errorf("Paths error %v, want one naming b.csv", err)
		}
	})
	t.Run("no files", func(t *testing.T) {
		if _, err := Locate(Dataset{Name: "void"}, ""); err == nil {
			t.Error("no error for a dataset without files")
		}
	})
}

// fakeServer serves content by base name and counts the requests.
func fakeServer(t *testing.T, content map[string][]byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, ok := content[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// listFiles returns the regular files under dir, relative and slash-separated.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func TestDownload(t *testing.T) {
	ds, content := fakeDataset()
	ctx := context.Background()

	t.Run("success", func(t *testing.T) {
		srv, hits := fakeServer(t, content)
		root := t.TempDir()
		if err := Download(ctx, ds.WithBaseURL(srv.URL+"/"), root, srv.Client()); err != nil {
			t.Fatal(err)
		}
		for _, f := range ds.Files {
			got, err := os.ReadFile(filepath.Join(root, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(content[filepath.Base(f.Path)]) {
				t.Errorf("%s: wrong content", f.Path)
			}
		}
		if files := listFiles(t, root); len(files) != 2 {
			t.Errorf("files after download: %v", files)
		}
		if hits.Load() != 2 {
			t.Errorf("%d requests, want 2", hits.Load())
		}
		// A second download finds everything in place.
		if err := Download(ctx, ds.WithBaseURL(srv.URL), root, srv.Client()); err != nil {
			t.Fatal(err)
		}
		if hits.Load() != 2 {
			t.Errorf("existing files were downloaded again (%d requests)", hits.Load())
		}
		if got, err := Locate(ds, root); err != nil || got != root {
			t.Errorf("Locate after download = %s, %v", got, err)
		}
	})

	t.Run("existing file kept", func(t *testing.T) {
		srv, hits := fakeServer(t, content)
		root := t.TempDir()
		writeFile(t, root, "fake/b.csv", []byte("local copy"))
		if err := Download(ctx, ds.WithBaseURL(srv.URL), root, srv.Client()); err != nil {
			t.Fatal(err)
		}
		if hits.Load() != 1 {
			t.Errorf("%d requests, want 1 (only a.txt.gz)", hits.Load())
		}
		if b, _ := os.ReadFile(filepath.Join(root, "fake", "b.csv")); string(b) != "local copy" {
			t.Errorf("existing file overwritten: %q", b)
		}
	})

	corrupt := map[string][]byte{"a.txt.gz": content["a.txt.gz"], "b.csv": []byte(strings.Repeat("1,2,4\n", 1000))}
	short := map[string][]byte{"a.txt.gz": content["a.txt.gz"], "b.csv": []byte("1,2,3\n")}
	long := map[string][]byte{"a.txt.gz": content["a.txt.gz"], "b.csv": append(append([]byte(nil), content["b.csv"]...), "extra"...)}
	for _, tc := range []struct {
		name string
		body map[string][]byte
	}{{"corrupted body", corrupt}, {"short body", short}, {"long body", long}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeServer(t, tc.body)
			root := t.TempDir()
			rds := ds.WithBaseURL(srv.URL)
			err := Download(ctx, rds, root, srv.Client())
			if !errors.Is(err, ErrChecksum) {
				t.Fatalf("error %v, want ErrChecksum", err)
			}
			sum := sha256.Sum256(tc.body["b.csv"])
			if tc.name == "long body" {
				sum = sha256.Sum256(tc.body["b.csv"][:len(content["b.csv"])+1])
			}
			for _, want := range []string{rds.Files[1].URL, ds.Files[1].SHA256, hex.EncodeToString(sum[:])} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\ndoes not mention %s", err, want)
				}
			}
			// The good file stays; nothing of the bad one is left.
			if files := listFiles(t, root); len(files) != 1 || files[0] != "fake/a.txt.gz" {
				t.Errorf("files left: %v", files)
			}
		})
	}

	t.Run("not found", func(t *testing.T) {
		srv, _ := fakeServer(t, map[string][]byte{})
		root := t.TempDir()
		err := Download(ctx, ds.WithBaseURL(srv.URL), root, srv.Client())
		if err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("error %v, want a 404", err)
		}
		if files := listFiles(t, root); len(files) != 0 {
			t.Errorf("files left: %v", files)
		}
	})

	t.Run("cancelled before", func(t *testing.T) {
		srv, hits := fakeServer(t, content)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		err := Download(cctx, ds.WithBaseURL(srv.URL), t.TempDir(), srv.Client())
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if hits.Load() != 0 {
			t.Errorf("%d requests after cancellation", hits.Load())
		}
	})

	t.Run("cancelled during body", func(t *testing.T) {
		started := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "6000")
			w.Write([]byte("1,2,3\n"))
			w.(http.Flusher).Flush()
			close(started)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer srv.Close()
		one := Dataset{Name: "fake", Files: ds.Files[1:]}.WithBaseURL(srv.URL)
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			<-started
			cancel()
		}()
		root := t.TempDir()
		start := time.Now()
		err := Download(cctx, one, root, srv.Client())
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("cancellation took %v", time.Since(start))
		}
		if files := listFiles(t, root); len(files) != 0 {
			t.Errorf("files left: %v", files)
		}
	})

	t.Run("default root is the cache", func(t *testing.T) {
		cache := isolate(t)
		srv, _ := fakeServer(t, content)
		if err := Download(ctx, ds.WithBaseURL(srv.URL), "", srv.Client()); err != nil {
			t.Fatal(err)
		}
		if got, err := Locate(ds, ""); err != nil || got != cache {
			t.Errorf("Locate = %s, %v; want %s", got, err, cache)
		}
	})

	t.Run("unsafe path", func(t *testing.T) {
		bad := Dataset{Name: "bad", Files: []RemoteFile{{Path: "../escape.txt", URL: "http://invalid.example/x"}}}
		if err := Download(ctx, bad, t.TempDir(), nil); err == nil {
			t.Error("no error for a path leaving the root")
		}
	})
}

func TestWithBaseURL(t *testing.T) {
	got := USPS.WithBaseURL("http://mirror.test/data/")
	if got.Files[0].URL != "http://mirror.test/data/zip.train.gz" || got.Files[1].URL != "http://mirror.test/data/zip.test.gz" {
		t.Errorf("URLs %s %s", got.Files[0].URL, got.Files[1].URL)
	}
	if USPS.Files[0].URL != "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz" {
		t.Errorf("WithBaseURL modified the original dataset: %s", USPS.Files[0].URL)
	}
}

func TestByName(t *testing.T) {
	for _, name := range []string{"ocr", "usps"} {
		ds, err := ByName(name)
		if err != nil || ds.Name != name {
			t.Errorf("ByName(%q) = %v, %v", name, ds.Name, err)
		}
	}
	if _, err := ByName("mnist"); err == nil {
		t.Error("ByName(mnist) returned no error")
	}
}
