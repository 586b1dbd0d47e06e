package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
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

// ByName returns the dataset called name ("ocr", "usps", "conll" or "yeast").
func ByName(name string) (Dataset, error) {
	for _, ds := range []Dataset{OCR, USPS, Conll, Yeast} {
		if ds.Name == name {
			return ds, nil
		}
	}
	return Dataset{}, fmt.Errorf("unknown dataset %q (want ocr, usps, conll or yeast)", name)
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
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("dataset %s: %s is not a folder", ds.Name, dir)
	}
	paths := make([]string, len(ds.Files))
	var missing []string
	for k, f := range ds.Files {
		p := findFile(dir, f)
		if p == "" {
			missing = append(missing, f.Path)
		}
		paths[k] = p
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("dataset %s: folder %s lacks %s (looked for it there and under %s/, gzip-compressed or not)",
			ds.Name, dir, strings.Join(missing, " and "), ds.Name)
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

// ErrNotFound reports a dataset found in none of the places Locate searches.
var ErrNotFound = errors.New("not found")

// Locate returns a directory holding every file of ds (for Dataset.Paths,
// LoadOCR or LoadUSPS).
//
// An explicit path, when not empty, is the only place looked at: a data root
// (holding e.g. ocr/letter.data.gz), the dataset's folder (holding e.g.
// letter.data.gz), or one of the dataset's files (then its folder). When it
// does not hold the dataset, the error names it; Locate never falls back to
// another copy of the data.
//
// Without an explicit path, Locate searches, in order,
//
//  1. $FWSTRUCT_DATA, a data root (or the dataset's folder), when set;
//  2. CacheDir(), where Download puts the files by default.
//
// The first place holding all files wins. $FWSTRUCT_DATA naming something
// that is not a folder is an error (not a reason to look elsewhere); when no
// place holds the dataset, the error wraps ErrNotFound and lists every
// place tried and how to get the data.
func Locate(ds Dataset, explicit string) (root string, err error) {
	if len(ds.Files) == 0 {
		return "", fmt.Errorf("locate dataset %q: it has no files", ds.Name)
	}
	if explicit != "" {
		return locateExplicit(ds, explicit)
	}
	var tried []string
	if env := os.Getenv(EnvVar); env != "" {
		if fi, err := os.Stat(env); err != nil || !fi.IsDir() {
			why := "not a folder"
			if err != nil {
				why = "does not exist"
				if !errors.Is(err, fs.ErrNotExist) {
					why = err.Error()
				}
			}
			return "", fmt.Errorf("$%s is %s, which %s; set it to the folder holding the datasets or unset it", EnvVar, env, why)
		}
		if _, err := ds.Paths(env); err == nil {
			return env, nil
		}
		tried = append(tried, fmt.Sprintf("%s ($%s)", env, EnvVar))
	} else {
		tried = append(tried, "$"+EnvVar+" (not set)")
	}
	cache, cerr := CacheDir()
	if cerr == nil {
		if _, err := ds.Paths(cache); err == nil {
			return cache, nil
		}
		tried = append(tried, fmt.Sprintf("%s (user cache)", cache))
	} else {
		tried = append(tried, fmt.Sprintf("user cache (%v)", cerr))
	}
	return "", fmt.Errorf("dataset %s %w; tried %s. Run `fwstruct download %s` to fetch it into the user cache, or set %s to a folder holding %s",
		ds.Name, ErrNotFound, strings.Join(tried, ", "), ds.Name, EnvVar, ds.Files[0].Path)
}

// locateExplicit is Locate with an explicit path.
func locateExplicit(ds Dataset, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("dataset %s: %w", ds.Name, err)
	}
	if fi.IsDir() {
		if _, err := ds.Paths(path); err != nil {
			return "", err
		}
		return path, nil
	}
	dir := filepath.Dir(path)
	paths, err := ds.Paths(dir)
	if err != nil {
		return "", fmt.Errorf("dataset %s: %s is not one of its files (%w)", ds.Name, path, err)
	}
	for _, p := range paths {
		if pi, err := os.Stat(p); err == nil && os.SameFile(fi, pi) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("dataset %s: %s is not one of its files (%s); name its folder or rename it", ds.Name, path, strings.Join(baseNames(ds), ", "))
}

// baseNames returns the base names of the files of ds.
func baseNames(ds Dataset) []string {
	out := make([]string, len(ds.Files))
	for k, f := range ds.Files {
		out[k] = path.Base(f.Path)
	}
	return out
}

// ErrChecksum reports a downloaded file whose SHA-256 digest or size is not
// the expected one.
var ErrChecksum = errors.New("checksum mismatch")

// ErrUnreachable reports a download that could not reach its server or lost
// the connection to it: no network, a failed DNS lookup, a refused, dropped
// or timed-out connection.
var ErrUnreachable = errors.New("cannot reach the server")

// Download fetches every file of ds that is not already under root (in any
// layout accepted by Dataset.Paths) into root/<file Path>, creating folders as
// needed. An empty root means CacheDir() and a nil client
// NewHTTPClient(DefaultTimeout), which gives up on a server that stops
// answering for a minute.
//
// Each file is written to a temporary file in its destination folder, checked
// against its size and SHA-256 digest, and renamed into place only when
// both match, so an interrupted or corrupted download never leaves a partial
// file behind; a failed download also removes the folders it created. The
// error is one line that says how to install the missing files by hand. A
// server that cannot be reached (or drops the connection) gives an error
// wrapping ErrUnreachable that names the host and says the network may be
// offline; a mismatch, an error wrapping ErrChecksum that names the URL and
// the expected and actual digests. Cancelling ctx aborts the download.
func Download(ctx context.Context, ds Dataset, root string, client *http.Client) (err error) {
	if root == "" {
		if root, err = CacheDir(); err != nil {
			return fmt.Errorf("download %s: %w", ds.Name, err)
		}
	}
	if client == nil {
		client = NewHTTPClient(DefaultTimeout)
	}
	var created []string // folders this call created, deepest last
	defer func() {
		if err != nil {
			for k := len(created) - 1; k >= 0; k-- {
				os.Remove(created[k]) // only when empty
			}
		}
	}()
	for k, f := range ds.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("download %s: file path %q is not a relative path inside the data root", ds.Name, f.Path)
		}
		if findFile(root, f) != "" {
			continue
		}
		dest := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := fetch(ctx, client, f, dest, &created); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("download %s: %w", ds.Name, err)
			}
			return fmt.Errorf("download %s: %w; %s", ds.Name, err, byHand(ds.Files[k:], root))
		}
	}
	return nil
}

// byHand says where to put the files that are still missing under root.
func byHand(files []RemoteFile, root string) string {
	var steps []string
	for _, f := range files {
		if findFile(root, f) == "" {
			steps = append(steps, fmt.Sprintf("%s as %s", f.URL, filepath.Join(root, filepath.FromSlash(f.Path))))
		}
	}
	return "to install by hand, save " + strings.Join(steps, " and ")
}

// unreachableError is a failure to reach host, or a lost connection.
type unreachableError struct {
	host    string
	err     error
	timeout bool // the server stopped answering
}

func (e *unreachableError) Error() string {
	if e.timeout {
		return fmt.Sprintf("%s stopped answering (a stalled server or a very slow network): %v", e.host, e.err)
	}
	return fmt.Sprintf("cannot reach %s (the network may be offline): %v", e.host, e.err)
}

func (e *unreachableError) Unwrap() []error { return []error{ErrUnreachable, e.err} }

// unreachable wraps an error of the HTTP client talking to the host of
// rawURL, without the URL the client repeats.
func unreachable(rawURL string, err error) error {
	host := rawURL
	if u, perr := url.Parse(rawURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if err == io.EOF {
		err = errors.New("the server closed the connection")
	}
	var ne net.Error
	timeout := errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errStalled)
	return &unreachableError{host: host, err: err, timeout: timeout}
}

// fetch downloads f into dest through a verified temporary file, appending
// the folders it creates to created.
func fetch(ctx context.Context, client *http.Client, f RemoteFile, dest string, created *[]string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("GET %s: %w", f.URL, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", f.URL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("GET %s: %w", f.URL, ctxErr(ctx, err))
		}
		return unreachable(f.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", f.URL, resp.Status)
	}
	if err := mkdirAll(filepath.Dir(dest), created); err != nil {
		return err
	}
	var body io.Reader = resp.Body
	if f.Size > 0 {
		// Never read much more than expected from a misbehaving server.
		body = io.LimitReader(resp.Body, f.Size+1)
	}
	// Through a temporary file renamed into place only when verified.
	return atomicfile.WriteFile(dest, 0o644, func(w io.Writer) error {
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), body)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("GET %s: reading the body: %w", f.URL, ctxErr(ctx, err))
			}
			var pe *fs.PathError
			if errors.As(err, &pe) { // writing the temporary file
				return err
			}
			return unreachable(f.URL, fmt.Errorf("connection lost after %d bytes: %w", n, err))
		}
		got := hex.EncodeToString(h.Sum(nil))
		if (f.Size > 0 && n != f.Size) || (f.SHA256 != "" && !strings.EqualFold(got, f.SHA256)) {
			want := f.SHA256
			if want == "" {
				want = "(any)"
			}
			return fmt.Errorf("GET %s: %w: expected sha256 %s (%d bytes), got %s (%d bytes)", f.URL, ErrChecksum, want, f.Size, got, n)
		}
		return nil
	})
}

// mkdirAll creates dir and its missing parents, appending those it created
// to created (parents first).
func mkdirAll(dir string, created *[]string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	err := os.MkdirAll(dir, 0o755)
	for k := len(missing) - 1; k >= 0; k-- {
		if fi, serr := os.Stat(missing[k]); serr == nil && fi.IsDir() {
			*created = append(*created, missing[k])
		}
	}
	return err
}

// ctxErr returns the context's error when it is done (so that callers can
// test it with errors.Is), else err.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}
