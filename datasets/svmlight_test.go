package datasets

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

// svmlightText writes examples in the svmlight format with indices counted
// from base, in the order of each vector.
func svmlightText(x []oracles.SparseVec, labels []string, base int) string {
	var sb strings.Builder
	for i, v := range x {
		sb.WriteString(labels[i])
		for k, f := range v.Idx {
			fmt.Fprintf(&sb, " %d:%s", int(f)+base, strconv.FormatFloat(v.Val[k], 'g', -1, 64))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// randomExamples returns n sorted sparse vectors over F features (values
// exactly representable in text) and labels drawn from classes.
func randomExamples(rng *rand.Rand, n, F int, classes []string) ([]oracles.SparseVec, []string) {
	x := make([]oracles.SparseVec, n)
	y := make([]string, n)
	for i := range x {
		for f := 0; f < F; f++ {
			if rng.IntN(3) == 0 {
				x[i].Append(int32(f), float64(rng.IntN(2001)-1000)/8)
			}
		}
		// Drop the zeros a reader would drop.
		n := 0
		for k := range x[i].Idx {
			if x[i].Val[k] != 0 {
				x[i].Idx[n], x[i].Val[n] = x[i].Idx[k], x[i].Val[k]
				n++
			}
		}
		x[i].Idx, x[i].Val = x[i].Idx[:n], x[i].Val[:n]
		y[i] = classes[rng.IntN(len(classes))]
	}
	return x, y
}

// denseRows returns the examples as dense rows of F features.
func denseRows(x []oracles.SparseVec, F int) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		out[i] = x[i].Dense(F)
	}
	return out
}

func TestReadSVMLightRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		F := 1 + rng.IntN(12)
		x, y := randomExamples(rng, 1+rng.IntN(20), F, []string{"-1", "1", "2", "10", "2.5"})
		for _, base := range []int{0, 1} {
			// Shuffle the pairs of every line: the reader sorts them.
			shuffled := make([]oracles.SparseVec, len(x))
			for i, v := range x {
				shuffled[i] = v.Clone()
				rng.Shuffle(len(v.Idx), func(a, b int) {
					shuffled[i].Idx[a], shuffled[i].Idx[b] = shuffled[i].Idx[b], shuffled[i].Idx[a]
					shuffled[i].Val[a], shuffled[i].Val[b] = shuffled[i].Val[b], shuffled[i].Val[a]
				})
			}
			text := svmlightText(shuffled, y, base)
			forced := IndexZero
			if base == 1 {
				forced = IndexOne
			}
			ex, err := ReadSVMLight(strings.NewReader(text), "r.svm", SVMLightOptions{IndexBase: forced})
			if err != nil {
				t.Fatalf("base %d: %v\n%s", base, err, text)
			}
			if !slices.Equal(ex.Labels, y) {
				t.Fatalf("labels %v, want %v", ex.Labels, y)
			}
			if want := numFeaturesOf(x); ex.NumFeatures != want {
				t.Fatalf("NumFeatures %d, want %d", ex.NumFeatures, want)
			}
			for i := range x {
				if !slices.Equal(ex.X[i].Idx, x[i].Idx) || !slices.Equal(ex.X[i].Val, x[i].Val) {
					t.Fatalf("example %d: %v, want %v", i, ex.X[i], x[i])
				}
				if ex.Lines[i] != i+1 {
					t.Fatalf("example %d on line %d", i, ex.Lines[i])
				}
			}
			// Detection: 1-based files and 0-based ones using index 0
			// read back exactly; a 0-based file without index 0 is read
			// as 1-based (shifted by one), the documented ambiguity.
			auto, err := ReadSVMLight(strings.NewReader(text), "r.svm", SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			usesZero := slices.ContainsFunc(x, func(v oracles.SparseVec) bool { return len(v.Idx) > 0 && v.Idx[0] == 0 })
			shift := int32(0)
			if base == 0 && !usesZero {
				shift = 1
			}
			for i := range x {
				for k, f := range auto.X[i].Idx {
					if f+shift != x[i].Idx[k] {
						t.Fatalf("base %d, auto: example %d index %d, want %d", base, i, f, x[i].Idx[k]-shift)
					}
				}
			}
		}
	}
}

func TestReadSVMLightSyntax(t *testing.T) {
	text := "# a header comment\n" +
		"+1 3:0.5\t1:2 # trailing comment\r\n" +
		"\n" +
		"   -1.0  2:0 4:-1e-3  \n" +
		"2\n" + // no features
		"1.5e1 1:1\n"
	ex, err := ReadSVMLight(strings.NewReader(text), "s.svm", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantX := [][]float64{{2, 0, 0.5, 0}, {0, 0, 0, -1e-3}, {0, 0, 0, 0}, {1, 0, 0, 0}}
	if got := denseRows(ex.X, 4); !slices.EqualFunc(got, wantX, slices.Equal) {
		t.Errorf("features %v, want %v", got, wantX)
	}
	if !slices.Equal(ex.Labels, []string{"1", "-1", "2", "15"}) || !slices.Equal(ex.Lines, []int{2, 4, 5, 6}) || ex.NumFeatures != 4 {
		t.Errorf("labels %v lines %v F %d", ex.Labels, ex.Lines, ex.NumFeatures)
	}
	if len(ex.X[1].Idx) != 1 {
		t.Errorf("zero value stored: %v", ex.X[1])
	}
}

// A UTF-8 byte order mark before the first label is skipped (issue 22,
// item 6): the first line reads like the others.
func TestReadSVMLightByteOrderMark(t *testing.T) {
	ex, err := ReadSVMLight(strings.NewReader("\ufeff2 1:1\n3 2:1\n"), "b.svm", SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ex.Labels, []string{"2", "3"}) || ex.NumFeatures != 2 {
		t.Errorf("labels %v, %d features", ex.Labels, ex.NumFeatures)
	}
}

func TestReadSVMLightErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		opt  SVMLightOptions
		want string
	}{
		{"empty", "", SVMLightOptions{}, "svmlight: e.svm: no examples"},
		{"comments only", "# x\n\n", SVMLightOptions{}, "svmlight: e.svm: no examples"},
		{"qid", "1 qid:3 1:1\n", SVMLightOptions{}, "svmlight: e.svm:1: \"qid:3\": qid (ranking data) is not supported"},
		{"multi-label", "1 1:1\n1,3 2:1\n", SVMLightOptions{}, "e.svm:2: label \"1,3\": multi-label"},
		{"no label", "1:1 2:1\n", SVMLightOptions{}, "e.svm:1: the line starts with \"1:1\""},
		{"text label", "cat 1:1\n", SVMLightOptions{}, "e.svm:1: label \"cat\" is not a finite decimal number"},
		{"NaN label", "NaN 1:1\n", SVMLightOptions{}, "label \"NaN\""},
		{"not a pair", "1 1:1 7\n", SVMLightOptions{}, "e.svm:1: \"7\" is not an index:value pair"},
		{"bad index", "1 a:1\n", SVMLightOptions{}, "feature index \"a\" is not a non-negative integer"},
		{"negative index", "1 -2:1\n", SVMLightOptions{}, "feature index \"-2\""},
		{"index 0 when 1-based", "1 0:1\n", SVMLightOptions{IndexBase: IndexOne}, "e.svm:1: feature index 0 in a file read with 1-based indices"},
		{"duplicate", "1 2:1 5:1 2:3\n", SVMLightOptions{}, "e.svm:1: feature index 2 appears twice"},
		{"bad value", "1 1:x\n", SVMLightOptions{}, "feature 1: value \"x\" is not a finite decimal number"},
		{"Inf value", "1 1:1\n2 1:-Inf\n", SVMLightOptions{}, "e.svm:2: feature 1: value \"-Inf\""},
		{"huge index", "1 99999999999999999999:1\n", SVMLightOptions{}, "not a non-negative integer"},
		{"index over the limit", "1 100:1\n", SVMLightOptions{MaxFeatures: 100, IndexBase: IndexZero}, "feature index 100: more than 100 features"},
		{"long field quoted briefly", "1 " + strings.Repeat("x", 5000) + ":1\n", SVMLightOptions{}, `"` + strings.Repeat("x", maxQuoted) + `"...`},
		{"unknown base", "1 1:1\n", SVMLightOptions{IndexBase: 7}, "unknown index base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSVMLight(strings.NewReader(tc.text), "e.svm", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
			if err != nil && len(err.Error()) > 300 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
		})
	}
}

func TestReadSVMLightFile(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("1 1:0.5 2:1\n-1 3:2\n", 200)
	gz := gzipBytes(t, []byte(text))
	for _, tc := range []struct {
		name string
		body []byte
		want string // error substring, "" for success
	}{
		{"plain.svm", []byte(text), ""},
		{"packed.svm.gz", gz, ""},
		{"no-suffix", gz, ""},
		{"cut.svm.gz", gz[:len(gz)*3/4], "truncated gzip stream"},
	} {
		p := writeFile(t, dir, tc.name, tc.body)
		ex, err := ReadSVMLightFile(p, SVMLightOptions{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && (ex.Len() != 400 || ex.NumFeatures != 3):
			t.Errorf("%s: %d examples, F = %d", tc.name, ex.Len(), ex.NumFeatures)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "svmlight: "+p+":")):
			t.Errorf("%s: error %v, want %q naming the file and line", tc.name, err, tc.want)
		}
	}
	if _, err := ReadSVMLightFile(filepath.Join(dir, "missing.svm"), SVMLightOptions{}); err == nil || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadSVMLightFile(dir, SVMLightOptions{}); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
}
