package datasets

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// benchData returns 2,000 examples of 256 features (a third non-zero, as
// USPS-like digits) in svmlight and CSV text.
func benchData(b *testing.B) (svm, csv string, ex *Examples) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := randomExamples(rng, 2000, 256, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"})
	var sb strings.Builder
	for i := range x {
		sb.WriteString(y[i])
		for _, v := range x[i].Dense(256) {
			sb.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
		}
		sb.WriteByte('\n')
	}
	return svmlightText(x, y, 1), sb.String(), &Examples{Name: "bench", X: x, Labels: y, NumFeatures: 256}
}

func BenchmarkReadSVMLight(b *testing.B) {
	svm, _, _ := benchData(b)
	b.SetBytes(int64(len(svm)))
	for b.Loop() {
		if _, err := ReadSVMLight(strings.NewReader(svm), "bench.svm", SVMLightOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCSV(b *testing.B) {
	_, csv, _ := benchData(b)
	b.SetBytes(int64(len(csv)))
	for b.Loop() {
		if _, err := ReadCSV(strings.NewReader(csv), "bench.csv", CSVOptions{Label: "0"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNewMulticlassData(b *testing.B) {
	_, _, ex := benchData(b)
	for _, s := range []Scaling{ScaleNone, ScaleMinMax, ScaleStandardize} {
		b.Run(s.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewMulticlassData(ex, ex, Preprocess{Scaling: s, Bias: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
