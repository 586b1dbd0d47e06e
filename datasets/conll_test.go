package datasets

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conllFiles writes a generated train and test corpus under dir at the
// given relative paths (gzip-compressed when the name ends in .gz) and
// returns the sentences.
func conllFiles(t testing.TB, dir, trainRel, testRel string) (train, test []Sentence) {
	t.Helper()
	rng := rand.New(rand.NewPCG(51, 52))
	train, test = chunkCorpus(rng, 40, 7), chunkCorpus(rng, 15, 7)
	for _, f := range []struct {
		rel   string
		sents []Sentence
	}{{trainRel, train}, {testRel, test}} {
		b := []byte(writeColumns(f.sents))
		if strings.HasSuffix(f.rel, ".gz") {
			b = gzipBytes(t, b)
		}
		writeFile(t, dir, f.rel, b)
	}
	return train, test
}

func TestLoadConll(t *testing.T) {
	root := t.TempDir()
	train, test := conllFiles(t, root, "conll2000/train.txt.gz", "conll2000/test.txt.gz")
	folder := t.TempDir()
	conllFiles(t, folder, "train.txt", "test.txt")
	other := t.TempDir()
	conllFiles(t, other, "eng.train", "eng.testb")
	cases := []struct {
		name string
		path string
		opt  ConllOptions
	}{
		{"data root", root, ConllOptions{}},
		{"dataset folder, plain files", folder, ConllOptions{}},
		{"training file, test beside it", filepath.Join(root, "conll2000", "train.txt.gz"), ConllOptions{}},
		{"training file and explicit test file", filepath.Join(other, "eng.train"), ConllOptions{TestPath: filepath.Join(other, "eng.testb")}},
		{"folder and explicit test file", folder, ConllOptions{TestPath: filepath.Join(other, "eng.testb")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, te, err := LoadConll(tc.path, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Len() != len(train) || te.Len() != len(test) || te.Dim() != tr.Dim() {
				t.Fatalf("%d train and %d test sentences of dimensions %d, %d; want %d and %d", tr.Len(), te.Len(), tr.Dim(), te.Dim(), len(train), len(test))
			}
			d, err := BuildDictionary(train, AttributeConfig{MinCount: DefaultMinCount})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Dict.Len() != d.Len() {
				t.Errorf("%d features, want the %d attributes seen %d times", tr.Dict.Len(), d.Len(), DefaultMinCount)
			}
		})
	}
	all, _, err := LoadConll(root, ConllOptions{MinCount: 1, NoBoundary: true, Templates: []Template{{{0, 0}}}})
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, s := range train {
		for _, w := range s.Fields[0] {
			words[w] = true
		}
	}
	if all.Dict.Len() != len(words) {
		t.Errorf("template w[0] without cutoff: %d features, want the %d distinct words", all.Dict.Len(), len(words))
	}
}

func TestLoadConllErrors(t *testing.T) {
	dir := t.TempDir()
	conllFiles(t, dir, "corpus.txt", "other.txt")
	writeFile(t, dir, "bad/train.txt", []byte("a B-NP\nb\n"))
	writeFile(t, dir, "bad/test.txt", []byte("a B-NP\n"))
	writeFile(t, dir, "lonely.train", []byte("a X B-NP\n"))
	writeFile(t, dir, "onecol/train.txt", []byte("a B-NP\n"))
	writeFile(t, dir, "onecol/test.txt", []byte("a B-NP\n"))
	cases := []struct {
		name, path string
		opt        ConllOptions
		want       string
	}{
		{"no train in the name", filepath.Join(dir, "corpus.txt"), ConllOptions{}, "no test file for " + filepath.Join(dir, "corpus.txt") + ": tried"},
		{"explicit test file missing", filepath.Join(dir, "onecol", "train.txt"), ConllOptions{TestPath: filepath.Join(dir, "none.txt")}, "none.txt"},
		{"no test file beside", filepath.Join(dir, "lonely.train"), ConllOptions{}, "tried " + filepath.Join(dir, "lonely.test")},
		{"folder without the files", dir, ConllOptions{}, "lacks conll2000/train.txt.gz"},
		{"missing path", filepath.Join(dir, "nowhere"), ConllOptions{}, "nowhere"},
		{"bad line", filepath.Join(dir, "bad"), ConllOptions{}, filepath.Join(dir, "bad", "train.txt") + ":2: 1 fields, want 2"},
		{"no POS column", filepath.Join(dir, "onecol"), ConllOptions{}, "input columns, but the attribute templates use 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := LoadConll(tc.path, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFindTestFileOfColumns finds the test file of column-format training
// files as LoadConll does.
func TestFindTestFileOfColumns(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"train.txt.gz", "test.txt", "eng.train", "eng.test.gz", "train-2.txt", "a.train"} {
		writeFile(t, dir, name, []byte("x"))
	}
	cases := []struct{ train, want string }{
		{"train.txt.gz", "test.txt"}, // the plain file when no .gz exists
		{"eng.train", "eng.test.gz"}, // the .gz file when no plain one exists
		{"train-2.txt", ""},          // test-2.txt is missing
		{"a.train", ""},              // a.test is missing
		{"corpus.txt", ""},           // no "train" in the name
		{"train.train.txt", ""},      // the last "train" is replaced: train.test.txt
	}
	for _, tc := range cases {
		got, err := findTestFile(filepath.Join(dir, tc.train))
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: test file %s, want an error", tc.train, got)
		case tc.want != "" && (err != nil || got != filepath.Join(dir, tc.want)):
			t.Errorf("%s: test file %q (%v), want %s", tc.train, got, err, tc.want)
		}
	}
}

// TestLoadConllByName goes through Load and Recognize: by name with the
// data root in $FWSTRUCT_DATA or an explicit path, and by the path of a
// folder or of a column file.
func TestLoadConllByName(t *testing.T) {
	root := t.TempDir()
	train, _ := conllFiles(t, root, "conll2000/train.txt.gz", "conll2000/test.txt")
	other := t.TempDir()
	conllFiles(t, other, "ner.train", "ner.test")
	t.Setenv(EnvVar, root)
	for _, tc := range []struct{ name, path string }{
		{"conll", ""},
		{"conll", root},
		{filepath.Join(root, "conll2000"), ""},
		{filepath.Join(other, "ner.train"), ""},
	} {
		tr, te, err := Load(tc.name, Options{Path: tc.path, Conll: ConllOptions{MinCount: 1}})
		if err != nil {
			t.Fatalf("Load(%q, %q): %v", tc.name, tc.path, err)
		}
		c, ok := tr.(*Chunking)
		if !ok || te == nil || c.Len() != len(train) || c.Dict.Len() == 0 {
			t.Fatalf("Load(%q, %q): %T with %d sentences", tc.name, tc.path, tr, tr.Len())
		}
	}
	if kind, err := Recognize(filepath.Join(other, "ner.test")); kind != "conll" || err != nil {
		t.Errorf("Recognize(column file) = %q, %v", kind, err)
	}
	for name, text := range map[string]string{"notes.txt": "\n\nhello\n", "digits.txt": "6.0 -1 0.5 1\n"} {
		if kind, err := Recognize(writeFile(t, other, name, []byte(text))); err == nil {
			t.Errorf("Recognize(%q) = %q, want an error", text, kind)
		}
	}
	ds, err := ByName("conll")
	if err != nil || ds.Name != "conll" || len(ds.Files) != 2 {
		t.Errorf("ByName(conll) = %v, %v", ds, err)
	}
	t.Setenv(EnvVar, t.TempDir())
	if _, _, err := Load("conll", Options{}); err == nil || !strings.Contains(err.Error(), "fwstruct download conll") {
		t.Errorf("Load(conll) without data: error %v", err)
	}
	if err := os.Remove(filepath.Join(root, "conll2000", "test.txt")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load("conll", Options{Path: root}); err == nil {
		t.Error("Load(conll) without the test file: no error")
	}
}
