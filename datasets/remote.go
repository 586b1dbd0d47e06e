package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// EnvVar is the environment variable naming the data root, the folder that
// holds the datasets in the layout of their Files (e.g. ocr/letter.data.gz).
const EnvVar = "FWSTRUCT_DATA"

// RemoteFile is one file of a dataset and where to fetch it.
type RemoteFile struct {
	// Path is the slash-separated location of the file under a data root,
	// e.g. "ocr/letter.data.gz".
	Path string
	// URL is the public address of the file.
	URL string
	// SHA256 is the hex SHA-256 digest of the file; empty skips the check.
	SHA256 string
	// Size is the size of the file in bytes; 0 skips the check.
	Size int64
}

// Dataset is a named set of files that Locate finds and Download fetches.
type Dataset struct {
	Name  string
	Files []RemoteFile
}

// The public datasets. The digests and sizes are those of the copies the
// project's tests run on.
var (
	// OCR is the handwritten-letters dataset of Taskar et al. (2003), read
	// by LoadOCR.
	OCR = Dataset{Name: "ocr", Files: []RemoteFile{{
		Path:   "ocr/letter.data.gz",
		URL:    "http://ai.stanford.edu/~btaskar/ocr/letter.data.gz",
		SHA256: "fdd4e94f800196247b30408fab3a53fce21937ebe2bacf12e43ce19726b79143",
		Size:   1152785,
	}}}
	// USPS is the USPS digits dataset as distributed with "The Elements of
	// Statistical Learning" (Hastie et al.), read by LoadUSPS.
	USPS = Dataset{Name: "usps", Files: []RemoteFile{{
		Path:   "usps/zip.train.gz",
		URL:    "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz",
		SHA256: "66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16",
		Size:   1829071,
	}, {
		Path:   "usps/zip.test.gz",
		URL:    "https://hastie.su.domains/ElemStatLearn/datasets/zip.test.gz",
		SHA256: "8dacc3c6e136af6c3488de9e5113a7daf140c8c2f1f0b61c54ee02f03f1a962f",
		Size:   439208,
	}}}
)

// ByName returns the dataset called name ("ocr", "usps" or "conll").
func ByName(name string) (Dataset, error) {
	for _, ds := range []Dataset{OCR, USPS, Conll} {
		if ds.Name == name {
			return ds, nil
		}
	}
	return Dataset{}, fmt.Errorf("unknown dataset %q (want ocr, usps or conll)", name)
}

// WithBaseURL returns a copy of ds whose files are fetched from
// base + "/" + the file's base name, e.g. a mirror or an httptest.Server.
func (ds Dataset) WithBaseURL(base string) Dataset {
	out := Dataset{Name: ds.Name, Files: make([]RemoteFile, len(ds.Files))}
	base = strings.TrimRight(base, "/")
	for k, f := range ds.Files {
		f.URL = base + "/" + path.Base(f.Path)
		out.Files[k] = f
	}
	return out
}

// Paths returns the local path of each file of ds under dir, in the order of
// ds.Files, or an error naming the missing files.
//
// dir may be a data root (files at dir/Path, e.g. dir/ocr/letter.data.gz) or
// the dataset's own folder (files at dir/<base name>, e.g.
// dir/letter.data.gz, whatever the folder is called). A file compressed with
// gzip may also be present uncompressed, without its ".gz" suffix (the
// readers detect compression from the content).
func (ds Dataset) Paths(dir string) ([]string, error) {
	paths := make([]string, len(ds.Files))
	var missing []string
	for k, f := range ds.Files {
		p := findFile(dir, f)
		if p == "" {
			missing = append(missing, filepath.Join(dir, filepath.FromSlash(f.Path)))
		}
		paths[k] = p
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("dataset %s: missing %s", ds.Name, strings.Join(missing, ", "))
	}
	return paths, nil
}

// findFile returns the first existing regular file among the accepted
// locations of f under dir, or "".
func findFile(dir string, f RemoteFile) string {
	rel := filepath.FromSlash(f.Path)
	cands := []string{rel, filepath.Base(rel)}
	if plain, ok := strings.CutSuffix(rel, ".gz"); ok {
		cands = append(cands, plain, filepath.Base(plain))
	}
	for _, c := range cands {
		p := filepath.Join(dir, c)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// CacheDir returns the user cache directory of fwstruct,
// os.UserCacheDir()/fwstruct (e.g. ~/.cache/fwstruct on Linux). It does not
// create it.
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("fwstruct cache directory: %w", err)
	}
	return filepath.Join(dir, "fwstruct"), nil
}

// Locate returns a directory holding every file of ds, looking in order at
//
//  1. explicit, when not empty: a data root (holding e.g. ocr/letter.data.gz),
//     the dataset's folder (holding e.g. letter.data.gz), or one of the
//     dataset's files (then its folder is used);
//  2. $FWSTRUCT_DATA, a data root (or the dataset's folder);
//  3. CacheDir(), where Download puts the files by default.
//
// The first place holding all files wins; a place that does not hold them is
// skipped. The result is meant for Dataset.Paths (or LoadOCR and LoadUSPS,
// which accept it directly). When no place holds the dataset, the error lists
// every place tried and how to get the data.
func Locate(ds Dataset, explicit string) (root string, err error) {
	if len(ds.Files) == 0 {
		return "", fmt.Errorf("locate dataset %q: it has no files", ds.Name)
	}
	var tried []string
	try := func(dir, what string) bool {
		if _, err := ds.Paths(dir); err != nil {
			tried = append(tried, fmt.Sprintf("%s (%s)", dir, what))
			return false
		}
		return true
	}
	if explicit != "" {
		dir := explicit
		if fi, err := os.Stat(explicit); err == nil && !fi.IsDir() {
			dir = filepath.Dir(explicit)
		}
		if try(dir, "explicit path") {
			return dir, nil
		}
	}
	if env := os.Getenv(EnvVar); env != "" {
		if try(env, "$"+EnvVar) {
			return env, nil
		}
	} else {
		tried = append(tried, "$"+EnvVar+" (not set)")
	}
	cache, cerr := CacheDir()
	if cerr == nil {
		if try(cache, "user cache") {
			return cache, nil
		}
	} else {
		tried = append(tried, fmt.Sprintf("user cache (%v)", cerr))
	}
	return "", fmt.Errorf("dataset %s not found; tried %s. Run `fwstruct download %s` to fetch it into the user cache, or set %s to a folder holding %s",
		ds.Name, strings.Join(tried, ", "), ds.Name, EnvVar, ds.Files[0].Path)
}

// ErrChecksum reports a downloaded file whose SHA-256 digest or size is not
// the expected one.
var ErrChecksum = errors.New("checksum mismatch")

// Download fetches every file of ds that is not already under root (in any
// layout accepted by Dataset.Paths) into root/<file Path>, creating folders as
// needed. An empty root means CacheDir() and a nil client
// http.DefaultClient.
//
// Each file is written to a temporary file in its destination folder, checked
// against its size and SHA-256 digest, and renamed into place only when
// both match, so an interrupted or corrupted download never leaves a partial
// file behind. A mismatch returns an error wrapping ErrChecksum that names the
// URL and the expected and actual digests. Cancelling ctx aborts the
// download.
func Download(ctx context.Context, ds Dataset, root string, client *http.Client) error {
	if root == "" {
		var err error
		if root, err = CacheDir(); err != nil {
			return fmt.Errorf("download %s: %w", ds.Name, err)
		}
	}
	if client == nil {
		client = http.DefaultClient
	}
	for _, f := range ds.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("download %s: file path %q is not a relative path inside the data root", ds.Name, f.Path)
		}
		if findFile(root, f) != "" {
			continue
		}
		dest := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := fetch(ctx, client, f, dest); err != nil {
			return fmt.Errorf("download %s: %w", ds.Name, err)
		}
	}
	return nil
}

// fetch downloads f into dest through a verified temporary file.
func fetch(ctx context.Context, client *http.Client, f RemoteFile, dest string) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("GET %s: %w", f.URL, err)
	}
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", f.URL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", f.URL, ctxErr(ctx, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", f.URL, resp.Status)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".*.part")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var body io.Reader = resp.Body
	if f.Size > 0 {
		// Never read much more than expected from a misbehaving server.
		body = io.LimitReader(resp.Body, f.Size+1)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), body)
	if err != nil {
		return fmt.Errorf("GET %s: reading the body: %w", f.URL, ctxErr(ctx, err))
	}
	got := hex.EncodeToString(h.Sum(nil))
	if (f.Size > 0 && n != f.Size) || (f.SHA256 != "" && !strings.EqualFold(got, f.SHA256)) {
		want := f.SHA256
		if want == "" {
			want = "(any)"
		}
		return fmt.Errorf("GET %s: %w: expected sha256 %s (%d bytes), got %s (%d bytes)", f.URL, ErrChecksum, want, f.Size, got, n)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), dest); err != nil {
		return err
	}
	return nil
}

// ctxErr returns the context's error when it is done (so that callers can
// test it with errors.Is), else err.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}
