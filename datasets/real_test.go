package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
)

// TestRemoteChecksums checks the digests and sizes hard-coded in OCR, USPS,
// Yeast and Conll against the local copies of the data.
func TestRemoteChecksums(t *testing.T) {
	for _, ds := range []Dataset{OCR, USPS, Yeast, Conll} {
		for _, f := range ds.Files {
			p := realdata.File(t, f.Path)
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			n, err := io.Copy(h, fh)
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 || n != f.Size {
				t.Errorf("%s: sha256 %s (%d bytes), hard-coded %s (%d bytes)", p, got, n, f.SHA256, f.Size)
			}
		}
	}
}

func TestRealOCR(t *testing.T) {
	p := realdata.File(t, "ocr/letter.data.gz")
	start := time.Now()
	words, err := ReadLetterFile(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read %s in %v", p, time.Since(start))
	letters := 0
	for _, w := range words {
		letters += len(w.Letters)
	}
	if len(words) != 6877 || letters != 52152 {
		t.Errorf("%d words, %d letters; want 6877, 52152", len(words), letters)
	}
	if got := words[0].String(); got != "ommanding" {
		t.Errorf("first word %q, want ommanding", got)
	}
	for _, tc := range []struct {
		split      Split
		ntr, ntest int
	}{{SplitSmall, 626, 6251}, {SplitLarge, 6251, 626}} {
		tr, te := SplitWords(words, tc.split)
		if len(tr) != tc.ntr || len(te) != tc.ntest {
			t.Errorf("%v: %d train, %d test words; want %d, %d", tc.split, len(tr), len(te), tc.ntr, tc.ntest)
		}
	}
	root := realdata.Dir(t)
	train, test, err := LoadOCR(root, SplitLarge)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 6251 || test.Len() != 626 || train.Dim() != 4082 || test.Dim() != 4082 {
		t.Errorf("large split: %d train, %d test, dim %d", train.Len(), test.Len(), train.Dim())
	}
	if train.MaxLen() > 20 {
		t.Errorf("longest word has %d letters", train.MaxLen())
	}
}

func TestRealUSPS(t *testing.T) {
	realdata.File(t, "usps/zip.train.gz")
	root := realdata.Dir(t)
	for _, bias := range []bool{false, true} {
		d, err := LoadUSPS(root, Options{NoBias: !bias})
		if err != nil {
			t.Fatal(err)
		}
		train, test := d.Train, d.Test
		wantF := 256
		if bias {
			wantF = 257
		}
		if train.Len() != 7291 || test.Len() != 2007 || train.NumFeatures() != wantF || test.NumFeatures() != wantF || train.NumClasses() != 10 {
			t.Errorf("bias %v: %d train, %d test, %d features, %d classes", bias, train.Len(), test.Len(), train.NumFeatures(), train.NumClasses())
		}
		counts := make([]int, 10)
		for i := 0; i < train.Len(); i++ {
			counts[train.Truth(i)[0]]++
		}
		// zip.info.txt: the training digits by class.
		want := []int{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644}
		for k := range want {
			if counts[k] != want[k] {
				t.Errorf("class %d: %d training digits, want %d", k, counts[k], want[k])
			}
		}
	}
}

func BenchmarkReadLetterFile(b *testing.B) {
	p := realdata.File(b, "ocr/letter.data.gz")
	for b.Loop() {
		if _, err := ReadLetterFile(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadUSPS(b *testing.B) {
	root := realdata.Dir(b)
	for b.Loop() {
		if _, err := LoadUSPS(root, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRealUSPSAsGenericFormats writes the real USPS digits as svmlight
// (1-based) and as CSV (label first) and checks that LoadSVMLight and
// LoadCSV build the same problems as LoadUSPS: classes, inputs and bias.
func TestRealUSPSAsGenericFormats(t *testing.T) {
	realdata.File(t, "usps/zip.train.gz")
	root := realdata.Dir(t)
	d, err := LoadUSPS(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	train, test := d.Train, d.Test
	paths, err := USPS.Paths(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names := map[string][2]string{"svmlight": {"usps.svm", "usps.svm.t"}, "csv": {"usps_train.csv", "usps_test.csv"}}
	for format, files := range names {
		for k, p := range paths {
			x, y, err := ReadUSPSFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for i := range x {
				if format == "svmlight" {
					sb.WriteString(svmlightText(x[i:i+1], []string{strconv.Itoa(int(y[i]))}, 1))
					continue
				}
				sb.WriteString(strconv.Itoa(int(y[i])))
				for _, v := range x[i].Dense(USPSFeatures) {
					sb.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
				}
				sb.WriteByte('\n')
			}
			writeFile(t, dir, files[k], gzipBytes(t, []byte(sb.String())))
		}
		load := LoadSVMLight
		if format == "csv" {
			load = LoadCSV
		}
		start := time.Now()
		d, err := load(filepath.Join(dir, files[0]), Options{CSV: CSVOptions{Label: "0"}, SVMLight: SVMLightOptions{IndexBase: IndexOne}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: loaded in %v", format, time.Since(start))
		if !slices.Equal(d.Classes, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}) {
			t.Fatalf("%s: classes %v", format, d.Classes)
		}
		for _, pair := range [][2]*oracles.Multiclass{{train, d.Train}, {test, d.Test}} {
			want, got := pair[0], pair[1]
			if got.Len() != want.Len() || got.Dim() != want.Dim() {
				t.Fatalf("%s: %d examples, d = %d; USPS %d, %d", format, got.Len(), got.Dim(), want.Len(), want.Dim())
			}
			for i := 0; i < want.Len(); i++ {
				if !equalVecs(got.Input(i), want.Input(i)) || got.Truth(i)[0] != want.Truth(i)[0] {
					t.Fatalf("%s: example %d differs from USPS", format, i)
				}
			}
		}
	}
}
