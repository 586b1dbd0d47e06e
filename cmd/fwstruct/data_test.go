package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// letterData returns a letter.data file of words one-letter long: word k
// (id k+1) is letter 'a'+k%26 in fold k%10, so fold 0 holds words 0, 10, ...
func letterData(words int) []byte {
	var b bytes.Buffer
	for k := 0; k < words; k++ {
		fmt.Fprintf(&b, "%d\t%c\t-1\t%d\t1\t%d", k+1, 'a'+k%26, k+1, k%10)
		for p := 0; p < 128; p++ {
			fmt.Fprintf(&b, "\t%d", (p+k)%3/2)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func gzipData(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTestFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// isolateData points $FWSTRUCT_DATA at a generated OCR data root of 20 words
// (2 in fold 0) and USPS (two digits in each file), and the user cache at an empty folder.
func isolateData(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("HOME", filepath.Join(tmp, "home"))
	root := filepath.Join(tmp, "data")
	writeTestFile(t, filepath.Join(root, "ocr", "letter.data.gz"), gzipData(t, letterData(20)))
	for _, f := range []string{"zip.train", "zip.test"} {
		writeTestFile(t, filepath.Join(root, "usps", f), []byte("1"+strings.Repeat(" 0.5", 256)+"\n0"+strings.Repeat(" -0.5", 256)+"\n"))
	}
	t.Setenv("FWSTRUCT_DATA", root)
	return root
}

// TestDataTheUserNames: an explicit --data PATH or --data-path is used or the
// command fails naming it; it never trains on $FWSTRUCT_DATA instead. A
// $FWSTRUCT_DATA naming a missing folder is an error, not synthetic data.
func TestDataTheUserNames(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	gz := gzipData(t, letterData(30))
	trunc := writeTestFile(t, filepath.Join(dir, "X", "letter.data.trunc.gz"), gz[:len(gz)/2])
	asDir := filepath.Join(dir, "Y", "letter.data.gz")
	os.MkdirAll(asDir, 0o755)
	uspsDir := filepath.Join(dir, "usps")
	writeTestFile(t, filepath.Join(uspsDir, "zip.train"), []byte("1"+strings.Repeat(" 0.5", 256)+"\n"))
	missing := filepath.Join(dir, "nonexistent")
	base := []string{"train", "--passes", "1", "--gap-every", "1", "--quiet"}
	fails := []struct {
		args []string
		want string
	}{
		{[]string{"--data", trunc}, trunc},
		{[]string{"--data", asDir}, asDir},
		{[]string{"--data", "ocr", "--data-path", asDir}, asDir},
		{[]string{"--data", "usps", "--data-path", uspsDir}, uspsDir},
		{[]string{"--data", "ocr", "--data-path", missing}, missing},
		{[]string{"--data", "auto", "--data-path", missing}, missing},
	}
	for _, tc := range fails {
		code, out, errOut := runCLI(t, append(base, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q (want exit 1 naming %s); stdout %q", tc.args, code, errOut, tc.want, out)
		}
	}
	// The named file is the one used: 30 words, 3 in fold 0.
	good := writeTestFile(t, filepath.Join(dir, "Z", "letters-copy.gz"), gz)
	code, out, errOut := runCLI(t, append(base, "--data", "ocr", "--data-path", good)...)
	if code != 0 || !strings.Contains(out, "3 training and 27 test examples") {
		t.Errorf("--data-path %s: exit %d, %s %s", good, code, out, errOut)
	}

	t.Setenv("FWSTRUCT_DATA", missing)
	for _, data := range []string{"auto", "ocr"} {
		code, out, errOut := runCLI(t, append(base, "--data", data)...)
		if code != 1 || !strings.Contains(errOut, "FWSTRUCT_DATA") || !strings.Contains(errOut, missing) {
			t.Errorf("--data %s with FWSTRUCT_DATA=%s: exit %d, stderr %q, stdout %q", data, missing, code, errOut, out)
		}
	}
}

// TestDataAutoWithoutData: with no data anywhere, --data auto trains on the
// synthetic data.
func TestDataAutoWithoutData(t *testing.T) {
	isolateData(t)
	t.Setenv("FWSTRUCT_DATA", "")
	code, out, errOut := runCLI(t, "train", "--data", "auto", "--synthetic-words", "20", "--passes", "1", "--gap-every", "1", "--quiet")
	if code != 0 || !strings.Contains(out, "data synthetic") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
}

// TestTrainOnGenericFormats trains on svmlight and CSV files with the data
// flags, and rejects bad values of them.
func TestTrainOnGenericFormats(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	var svm, csv strings.Builder
	csv.WriteString("a,b,class\n")
	for i := 0; i < 40; i++ {
		c := i % 3
		fmt.Fprintf(&svm, "%d %d:%d %d:0.5\n", c+1, c+1, 1+i%4, 4)
		fmt.Fprintf(&csv, "%d,%g,k%d\n", c, float64(i%5)/4, c)
	}
	train := writeTestFile(t, filepath.Join(dir, "toy.svm"), []byte(svm.String()))
	writeTestFile(t, filepath.Join(dir, "toy.svm.t"), []byte("1 1:1 4:0.5\n3 3:2\n"))
	csvTrain := writeTestFile(t, filepath.Join(dir, "toy_train.csv"), []byte(csv.String()))
	tsv := writeTestFile(t, filepath.Join(dir, "toy.tsv"), []byte(strings.ReplaceAll(csv.String(), ",", "\t")))
	base := []string{"train", "--passes", "3", "--gap-every", "1", "--quiet"}
	ok := []struct {
		args []string
		want string
	}{
		{[]string{"--data", train}, "40 training and 2 test examples, d = 15"},
		{[]string{"--data", "svmlight", "--data-path", train, "--scale", "minmax", "--no-bias"}, "d = 12"},
		{[]string{"--data", "svmlight", "--data-path", train, "--index-base", "0", "--no-bias"}, "d = 15"},
		{[]string{"--data", csvTrain, "--test-data", csvTrain, "--scale", "standardize"}, "40 training and 40 test examples, d = 9"},
		{[]string{"--data", "csv", "--data-path", tsv, "--test-data", tsv, "--csv-comma", `\t`, "--label-column", "class"}, "d = 9"},
		// Item 16: a training file alone trains without test losses, saying so in one line.
		{[]string{"--data", csvTrain}, "40 training and no test examples, d = 9\nno test file beside " + csvTrain +
			" (looked for toy_test.csv, toy_test.csv.gz, toy_train.csv.t, toy_train.csv.t.gz): training without test losses\n"},
	}
	for _, tc := range ok {
		code, out, errOut := runCLI(t, append(base, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, %q, stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	fails := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", train, "--scale", "log"}, 2, `--scale "log": want none, minmax or standardize`},
		{[]string{"--data", train, "--index-base", "2"}, 2, `--index-base "2": want auto, 0 or 1`},
		{[]string{"--data", csvTrain, "--csv-header", "maybe"}, 2, `--csv-header "maybe": want auto, yes or no`},
		{[]string{"--data", csvTrain, "--csv-comma", ";;"}, 1, "--csv-comma"},
		{[]string{"--data", "synthetic", "--scale", "minmax"}, 1, "--scale applies to usps, yeast, mulan, svmlight or csv data only, not synthetic"},
	}
	for _, tc := range fails {
		code, _, errOut := runCLI(t, append(base, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDownloadOffline: an unreachable server gives one line naming the host,
// the network and where to put the files, and leaves no folder behind.
func TestDownloadOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	parent := t.TempDir()
	dir := filepath.Join(parent, "data")
	code, out, errOut := runCLI(t, "download", "--dir", dir, "--base-url", "http://"+addr, "usps")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"cannot reach " + addr, "network may be offline", filepath.Join(dir, "usps", "zip.train.gz"), filepath.Join(dir, "usps", "zip.test.gz")} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not say %q", errOut, want)
		}
	}
	if n := strings.Count(errOut, "\n"); n != 1 {
		t.Errorf("%d lines on stderr: %q", n, errOut)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
