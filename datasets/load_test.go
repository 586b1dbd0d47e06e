package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fwstruct/fwstruct/internal/realdata"
)

func TestLoadSyntheticAndErrors(t *testing.T) {
	tr, te, err := Load("synthetic", Options{Synthetic: SyntheticConfig{TrainWords: 20, TestWords: 10, Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 20 || te.Len() != 10 || tr.Dim() != 4082 {
		t.Fatalf("synthetic: %d/%d examples, d=%d", tr.Len(), te.Len(), tr.Dim())
	}
	for _, name := range []string{"no-such-dataset", filepath.Join(t.TempDir(), "missing.txt")} {
		if _, _, err := Load(name, Options{}); err == nil {
			t.Errorf("Load(%q) succeeded", name)
		}
	}
	odd := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(odd, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(odd, Options{}); err == nil {
		t.Error("Load accepted a file of unknown kind")
	}
}

func TestLoadRealByNameAndPath(t *testing.T) {
	root := realdata.Dir(t)
	t.Setenv(EnvVar, root)
	cases := []struct {
		name     string
		opt      Options
		nTr, nTe int
		dim      int
	}{
		{"ocr", Options{}, 626, 6251, 4082},
		{"ocr", Options{Split: SplitLarge}, 6251, 626, 4082},
		{filepath.Join(root, "ocr", "letter.data.gz"), Options{}, 626, 6251, 4082},
		{"usps", Options{}, 7291, 2007, 2570},
		{filepath.Join(root, "usps"), Options{NoBias: true}, 7291, 2007, 2560},
		{"yeast", Options{}, 1500, 917, 1547},
		{filepath.Join(root, "yeast", "yeast-train.arff"), Options{NoBias: true}, 1500, 917, 1533},
	}
	for _, tc := range cases {
		tr, te, err := Load(tc.name, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tr.Len() != tc.nTr || te.Len() != tc.nTe || tr.Dim() != tc.dim {
			t.Fatalf("%s: %d/%d examples, d=%d; want %d/%d, d=%d", tc.name, tr.Len(), te.Len(), tr.Dim(), tc.nTr, tc.nTe, tc.dim)
		}
	}
}
