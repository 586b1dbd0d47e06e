package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envRoot writes generated OCR (the three words of sampleLetters) and USPS
// (three training digits, one test digit) under a fresh data root, points
// $FWSTRUCT_DATA at it and the user cache at an empty folder, and returns
// the root. A load that silently falls back to this root is caught by the
// example counts.
func envRoot(t *testing.T) string {
	t.Helper()
	isolate(t)
	root := t.TempDir()
	writeFile(t, root, "ocr/letter.data.gz", gzipBytes(t, []byte(letterFile(sampleLetters(), "\n"))))
	train := uspsLine("1", uspsValues(0)) + "\n" + uspsLine("2", uspsValues(1)) + "\n" + uspsLine("9", uspsValues(2)) + "\n"
	writeFile(t, root, "usps/zip.train.gz", gzipBytes(t, []byte(train)))
	writeFile(t, root, "usps/zip.test.gz", gzipBytes(t, []byte(uspsLine("0", uspsValues(3))+"\n")))
	t.Setenv(EnvVar, root)
	return root
}

// TestExplicitPathNeverFallsBack: a path the user names is used or the load
// fails naming it; it never falls back to $FWSTRUCT_DATA or the cache.
func TestExplicitPathNeverFallsBack(t *testing.T) {
	envRoot(t)
	dir := t.TempDir()
	gz := gzipBytes(t, []byte(letterFile(sampleLetters(), "\n")))
	trunc := writeFile(t, dir, "X/letter.data.trunc.gz", gz[:len(gz)*2/3])
	asDir := filepath.Join(dir, "Y", "letter.data.gz")
	if err := os.MkdirAll(asDir, 0o755); err != nil {
		t.Fatal(err)
	}
	noTest := filepath.Join(dir, "usps-no-test")
	writeFile(t, noTest, "zip.train", []byte(uspsLine("3", uspsValues(0))+"\n"))
	missing := filepath.Join(dir, "nonexistent")
	// A letter file of another name beside a regular letter.data.gz: the
	// named one (folds 1, 2 and 0; the others' are 0, 1, 0) must be read.
	other := filepath.Join(dir, "Z")
	writeFile(t, other, "letter.data.gz", gz)
	namedWords := append(wordLetters("dog", 4, 2, 1), wordLetters("it", 10, 5, 2)...)
	named := writeFile(t, other, "letter.data.old", []byte(letterFile(append(namedWords, wordLetters("a", 7, 3, 0)...), "\n")))

	fails := []struct {
		name string
		opt  Options
		want string // the error must name this path
	}{
		{trunc, Options{}, trunc},
		{"ocr", Options{Path: trunc}, trunc},
		{asDir, Options{}, asDir},
		{"ocr", Options{Path: asDir}, asDir},
		{noTest, Options{}, noTest},
		{"usps", Options{Path: noTest}, noTest},
		{"ocr", Options{Path: missing}, missing},
		{"usps", Options{Path: missing}, missing},
		{"usps", Options{Path: filepath.Join(noTest, "zip.train")}, noTest},
	}
	for _, tc := range fails {
		t.Run("fails/"+filepath.Base(tc.name)+"/"+filepath.Base(tc.opt.Path), func(t *testing.T) {
			tr, te, err := Load(tc.name, tc.opt)
			if err == nil {
				t.Fatalf("loaded %d/%d examples from elsewhere", tr.Len(), te.Len())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", err, tc.want)
			}
		})
	}
	t.Run("truncated gzip is reported as truncated", func(t *testing.T) {
		_, _, err := Load(trunc, Options{})
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("error %v, want one saying the file is truncated", err)
		}
	})
	t.Run("the named file is the one read", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			opt  Options
		}{{named, Options{Split: SplitLarge}}, {"ocr", Options{Path: named, Split: SplitLarge}}} {
			tr, te, err := Load(tc.name, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Len() != 2 || te.Len() != 1 {
				t.Errorf("Load(%s, %s): %d/%d words, want 2/1 (the named file)", tc.name, tc.opt.Path, tr.Len(), te.Len())
			}
		}
	})
	t.Run("Locate", func(t *testing.T) {
		for _, p := range []string{missing, asDir, noTest, trunc} {
			for _, ds := range []Dataset{OCR, USPS} {
				if got, err := Locate(ds, p); err == nil {
					t.Errorf("Locate(%s, %s) = %s, want an error naming the path", ds.Name, p, got)
				} else if !strings.Contains(err.Error(), p) {
					t.Errorf("Locate(%s, %s): error %q does not name the path", ds.Name, p, err)
				}
			}
		}
	})
}

// TestEnvVarMissingFolder: $FWSTRUCT_DATA naming a folder that does not
// exist is an error naming the variable and the folder, even when the user
// cache holds the dataset.
func TestEnvVarMissingFolder(t *testing.T) {
	cache := isolate(t)
	writeFile(t, cache, "ocr/letter.data.gz", gzipBytes(t, []byte(letterFile(sampleLetters(), "\n"))))
	gone := filepath.Join(t.TempDir(), "moved-away")
	t.Setenv(EnvVar, gone)
	got, err := Locate(OCR, "")
	if err == nil {
		t.Fatalf("Locate = %s, want an error", got)
	}
	for _, want := range []string{EnvVar, gone} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, _, err := Load("ocr", Options{}); err == nil {
		t.Error("Load(ocr) succeeded with $FWSTRUCT_DATA naming a missing folder")
	}
	// A file is not a data root either.
	file := writeFile(t, t.TempDir(), "file", []byte("x"))
	t.Setenv(EnvVar, file)
	if _, err := Locate(OCR, ""); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("$%s naming a file: error %v", EnvVar, err)
	}
}
