package datasets

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// Fuzz tests of the readers. `go test` runs their seed corpora (real-looking
// inputs and their usual corruptions); `make fuzz` runs each for FUZZTIME.
// Every reader must return an error, never panic, on any input; what it
// accepts must satisfy the invariants of its result, and its error must be
// one bounded line naming the format and file.

// checkReaderError checks the shape of a reader's error.
func checkReaderError(t *testing.T, err error, prefix string) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("error %q does not start with %q", msg, prefix)
	}
	if len(msg) > 600 {
		t.Fatalf("error of %d bytes: %.200q...", len(msg), msg)
	}
}

// letterSeeds returns real-looking letter.data inputs.
func letterSeeds(t testing.TB) [][]byte {
	good := letterFile(sampleLetters(), "\n")
	lines := strings.SplitAfter(good, "\n")
	return [][]byte{
		[]byte(good),
		[]byte(letterFile(sampleLetters(), "\t\r\n")),
		[]byte(strings.Join(lines[:2], "")),                // a word cut short
		[]byte(good[:len(good)/2]),                         // a file cut mid-line
		[]byte(strings.Replace(good, "\t1\t", "\t2\t", 1)), // a bad pixel
		[]byte(lines[1] + lines[0]),                        // letters out of order
		[]byte("1\th\t-1\t1\t1\t0" + strings.Repeat("\t0", 128)),
		{},
	}
}

func FuzzReadLetterData(f *testing.F) {
	for _, s := range letterSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLetters(t, bytes.NewReader(data))
	})
}

// FuzzReadLetterGzip feeds the reader through the gzip detection of
// ReadLetterFile.
func FuzzReadLetterGzip(f *testing.F) {
	for _, s := range letterSeeds(f) {
		gz := gzipBytes(f, s)
		f.Add(gz)
		f.Add(gz[:len(gz)*2/3]) // truncated download
		f.Add(gz[:10])          // the header only
	}
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := maybeGunzip(bytes.NewReader(data))
		if err != nil {
			return
		}
		// A bounded stream: a gzip bomb stays small.
		checkLetters(t, io.LimitReader(r, 4<<20))
	})
}

// checkLetters reads r and checks what ReadLetterData returns.
func checkLetters(t *testing.T, r io.Reader) {
	words, err := ReadLetterData(r, "fuzz.data")
	if err != nil {
		checkReaderError(t, err, "ocr: fuzz.data")
		return
	}
	for _, w := range words {
		if len(w.Letters) == 0 || len(w.Letters) != len(w.Pixels) {
			t.Fatalf("word %d: %d letters, %d images", w.ID, len(w.Letters), len(w.Pixels))
		}
	}
	if _, err := OCRChain(words); err != nil {
		t.Fatalf("accepted words do not make a chain: %v", err)
	}
}

func FuzzReadUSPS(f *testing.F) {
	good := uspsLine("6.0000", uspsValues(0)) + "\n" + uspsLine("0", uspsValues(1)) + "\n"
	for _, s := range []string{
		good,
		strings.ReplaceAll(good, " ", "\t"),
		good[:len(good)*3/4],
		strings.Replace(good, "0.5000", "1.5", 1),
		strings.Replace(good, "6.0000", "6.5", 1),
		strings.Replace(good, "0.5000", "0x1p-1", 1), // Go-only numbers: refused
		strings.Replace(good, "6.0000", "6_0", 1),
		uspsLine("1", uspsValues(2)[:255]),
		"\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, y, err := ReadUSPS(bytes.NewReader(data), "zip.fuzz")
		if err != nil {
			checkReaderError(t, err, "usps: zip.fuzz")
			return
		}
		if _, err := oracles.NewMulticlass(USPSClasses, USPSFeatures, x, y); err != nil {
			t.Fatalf("accepted digits do not make a problem: %v", err)
		}
		for _, v := range x {
			for k, val := range v.Val {
				if val == 0 || val < -1 || val > 1 || (k > 0 && v.Idx[k] <= v.Idx[k-1]) {
					t.Fatalf("digit entries %v %v", v.Idx, v.Val)
				}
			}
		}
	})
}

func FuzzReadSVMLight(f *testing.F) {
	for _, s := range []string{
		"1 1:-0.555556 2:0.25 3:-0.864407 4:-0.916667\n2 1:0.111111 2:-0.583333 3:0.322034 4:0.166667\n",
		"+1 3:1 11:1 14:1 19:1 # a comment\n-1 5:1 7:1 14:1\n",
		"# header\n0 0:1.5 2:-3e-2\r\n\r\n3 1:2\n",
		"1 qid:3 1:1\n",
		"1,2 1:1\n",
		"1 2:1 2:3\n",
		"1 0:1\n1 4294967296:1\n",
		"nan 1:1\n",
		"1 1:1e400\n",
		"1 1:0x1p-2\n1_0 2:1\n", // Go-only numbers: refused
		"Inf 1:1\n2 1:+Inf\n",
	} {
		for base := uint8(0); base < 3; base++ {
			f.Add([]byte(s), base)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, base uint8) {
		opt := SVMLightOptions{IndexBase: IndexBase(base % 3), MaxFeatures: 1 << 16}
		ex, err := ReadSVMLight(bytes.NewReader(data), "fuzz.svm", opt)
		if err != nil {
			checkReaderError(t, err, "svmlight: fuzz.svm")
			return
		}
		checkExamples(t, ex)
		for _, l := range ex.Labels {
			if c, ok := canonicalLabel(l); !ok || c != l {
				t.Fatalf("label %q is not a canonical number", l)
			}
		}
		// What was read reads back the same from its canonical text.
		again, err := ReadSVMLight(strings.NewReader(svmlightText(ex.X, ex.Labels, 0)), "again.svm", SVMLightOptions{IndexBase: IndexZero})
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		for i := range ex.X {
			if again.Labels[i] != ex.Labels[i] || !equalVecs(again.X[i], ex.X[i]) {
				t.Fatalf("example %d reads back as %v %v, was %v %v", i, again.Labels[i], again.X[i], ex.Labels[i], ex.X[i])
			}
		}
		buildProblems(t, ex, base)
	})
}

func FuzzReadCSV(f *testing.F) {
	iris := "sepal_length,sepal_width,petal_length,petal_width,species\n5.1,3.5,1.4,0.2,setosa\n7.0,3.2,4.7,1.4,versicolor\n6.3,3.3,6.0,2.5,virginica\n"
	for _, s := range []string{
		iris,
		strings.ReplaceAll(iris, ",", ";"),
		"0,1,label\n1,2,3\n4,5,6\n",
		"1,2,a\n3,,b\n",
		"1,2,a\n3,4\n",
		"\"a,b\",c\n\"1\",x\n",
		"1,2,a\n3,4\",b\n",
		"1,0x1p-2,a\n2,1_0,0x10\n", // Go-only numbers: refused as features, text as labels
		iris[:len(iris)/2],
	} {
		for _, label := range []string{"", "species", "0", "-2"} {
			f.Add([]byte(s), label, uint8(0), uint8(','))
		}
	}
	f.Add([]byte(iris), "", uint8(1), uint8(';'))
	f.Fuzz(func(t *testing.T, data []byte, label string, header, comma uint8) {
		opt := CSVOptions{Label: label, Header: CSVHeader(header % 3), Comma: rune(comma)}
		ex, err := ReadCSV(bytes.NewReader(data), "fuzz.csv", opt)
		if err != nil {
			checkReaderError(t, err, "csv: fuzz.csv")
			return
		}
		checkExamples(t, ex)
		if ex.FeatureNames != nil && len(ex.FeatureNames) != ex.NumFeatures {
			t.Fatalf("%d feature names for %d features", len(ex.FeatureNames), ex.NumFeatures)
		}
		for _, l := range ex.Labels {
			if l == "" || l != strings.TrimSpace(l) {
				t.Fatalf("label %q", l)
			}
		}
		buildProblems(t, ex, header)
	})
}

// checkExamples checks the invariants of Examples.
func checkExamples(t *testing.T, ex *Examples) {
	t.Helper()
	if ex.Len() == 0 || len(ex.X) != ex.Len() || len(ex.Lines) != ex.Len() {
		t.Fatalf("%d examples, %d vectors, %d lines", ex.Len(), len(ex.X), len(ex.Lines))
	}
	for i, v := range ex.X {
		if len(v.Idx) != len(v.Val) || (i > 0 && ex.Lines[i] <= ex.Lines[i-1]) {
			t.Fatalf("example %d: %d indices, %d values, line %d", i, len(v.Idx), len(v.Val), ex.Lines[i])
		}
		for k, f := range v.Idx {
			val := v.Val[k]
			if f < 0 || int(f) >= ex.NumFeatures || (k > 0 && f <= v.Idx[k-1]) || val == 0 || math.IsNaN(val) || math.IsInf(val, 0) {
				t.Fatalf("example %d: entries %v %v with %d features", i, v.Idx, v.Val, ex.NumFeatures)
			}
		}
	}
}

// buildProblems turns small accepted examples into problems with a scaling
// chosen by sel, which must not fail.
func buildProblems(t *testing.T, ex *Examples, sel uint8) {
	t.Helper()
	if ex.NumFeatures > 1000 || ex.Len() > 1000 {
		return
	}
	pre := Preprocess{Scaling: Scaling(sel % 3), Bias: sel%2 == 0}
	d, err := NewMulticlassData(ex, ex, pre)
	if err != nil {
		if strings.Contains(err.Error(), "overflows") || strings.Contains(err.Error(), "more than") {
			return // values near the float64 limits, or too many classes
		}
		if strings.Contains(err.Error(), "one class, nothing to learn") {
			if len(sortedClasses(ex.Labels)) != 1 {
				t.Fatalf("%v, but the labels are %v", err, sortedClasses(ex.Labels))
			}
			return
		}
		t.Fatalf("NewMulticlassData(%+v): %v", pre, err)
	}
	if d.Train.Len() != ex.Len() || len(d.Classes) < 2 {
		t.Fatalf("%d examples, %d classes", d.Train.Len(), len(d.Classes))
	}
}

// equalVecs reports whether two sparse vectors hold the same entries in the
// same order.
func equalVecs(a, b oracles.SparseVec) bool {
	if len(a.Idx) != len(b.Idx) {
		return false
	}
	for k := range a.Idx {
		if a.Idx[k] != b.Idx[k] || a.Val[k] != b.Val[k] {
			return false
		}
	}
	return true
}
