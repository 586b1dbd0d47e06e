package datasets

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
)

func TestReadUSPSValid(t *testing.T) {
	v0, v1 := uspsValues(0), uspsValues(1)
	data := uspsLine("6.0000", v0) + " \n\n" + uspsLine("0", v1) + "\r\n" + "  " + strings.ReplaceAll(uspsLine("9", v0), " ", "\t")
	x, y, err := ReadUSPS(strings.NewReader(data), "zip.train")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y, []int32{6, 0, 9}) {
		t.Fatalf("labels %v", y)
	}
	for i, want := range [][]float64{v0, v1, v0} {
		got := x[i].Dense(USPSFeatures)
		if !slices.Equal(got, want) {
			t.Errorf("digit %d: values differ", i)
		}
		for k, j := range x[i].Idx {
			if x[i].Val[k] == 0 {
				t.Errorf("digit %d stores a zero at %d", i, j)
			}
			if k > 0 && j <= x[i].Idx[k-1] {
				t.Errorf("digit %d: indices not increasing", i)
			}
		}
	}
}

func TestReadUSPSErrors(t *testing.T) {
	good := uspsLine("3", uspsValues(0))
	with := func(k int, s string) string { // replace value k (1-based field k+1)
		f := strings.Fields(good)
		f[k] = s
		return good + "\n" + strings.Join(f, " ") + "\n"
	}
	tests := []struct {
		name string
		data string
		want string
	}{
		{"empty", "", "usps: zip.test: no digits"},
		{"blank", "\n \n", "usps: zip.test: no digits"},
		{"truncated", good + "\n" + good[:200] + "\n", "zip.test:2: "},
		{"255 values", good + "\n" + uspsLine("1", uspsValues(0)[:255]), "zip.test:2: 256 fields, want 257"},
		{"257 values", uspsLine("1", append(uspsValues(0), 1)), "zip.test:1: 258 fields, want 257"},
		{"label only", "4\n", "zip.test:1: 1 fields"},
		{"non-numeric value", with(17, "abc"), `zip.test:2: value 17 (field 18) "abc" is not a decimal number`},
		{"non-numeric label", with(0, "six"), `zip.test:2: label (field 1) "six" is not a decimal number`},
		{"label 10", with(0, "10"), `label (field 1) "10" is not an integer in 0..9`},
		{"label 6.5", with(0, "6.5"), `zip.test:2: label (field 1) "6.5" is not an integer`},
		{"negative label", with(0, "-1"), ":2: label"},
		{"NaN label", with(0, "NaN"), ":2: label"},
		{"value above 1", with(5, "1.5"), "zip.test:2: value 5 (field 6) is \"1.5\", want a number in [-1, 1]"},
		{"value below -1", with(256, "-1.0001"), ":2: value 256 (field 257) is \"-1.0001\""},
		{"NaN value", with(3, "NaN"), ":2: value 3 (field 4) \"NaN\" is not a decimal number"},
		{"Inf value", with(3, "+Inf"), ":2: value 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadUSPS(strings.NewReader(tc.data), "zip.test")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadUSPS(t *testing.T) {
	train := uspsLine("1", uspsValues(0)) + "\n" + uspsLine("2", uspsValues(1)) + "\n" + uspsLine("9", uspsValues(2)) + "\n"
	test := uspsLine("0.0000", uspsValues(3)) + "\n"
	plainDir := t.TempDir()
	writeFile(t, plainDir, "zip.train", []byte(train))
	writeFile(t, plainDir, "zip.test", []byte(test))
	root := t.TempDir()
	writeFile(t, root, "usps/zip.train.gz", gzipBytes(t, []byte(train)))
	writeFile(t, root, "usps/zip.test.gz", gzipBytes(t, []byte(test)))
	for _, dir := range []string{plainDir, root, root + "/usps"} {
		for _, bias := range []bool{false, true} {
			d, err := LoadUSPS(dir, Options{NoBias: !bias})
			if err != nil {
				t.Fatalf("LoadUSPS(%s, %v): %v", dir, bias, err)
			}
			tr, te := d.Train, d.Test
			nf := 256
			if bias {
				nf = 257
			}
			// The classes are the training file's digits 1, 2 and 9 (issue
			// 35): the test file's 0 is no class, an error of every model.
			if tr.Len() != 3 || te.Len() != 1 || tr.NumFeatures() != nf || tr.NumClasses() != 3 || tr.Dim() != 3*nf {
				t.Errorf("LoadUSPS(%s, %v): train %d test %d F %d K %d", dir, bias, tr.Len(), te.Len(), tr.NumFeatures(), tr.NumClasses())
			}
			x := tr.Input(2)
			last := x.Idx[len(x.Idx)-1]
			if bias && (last != 256 || x.Val[len(x.Val)-1] != 1) {
				t.Errorf("bias feature missing: last entry %d", last)
			}
			if !bias && last >= 256 {
				t.Errorf("unexpected feature %d", last)
			}
			if tr.Truth(2)[0] != 2 || te.Truth(0)[0] != oracles.NoClass || !slices.Equal(d.Classes, []string{"1", "2", "9"}) {
				t.Errorf("labels %v %v, classes %v", tr.Truth(2), te.Truth(0), d.Classes)
			}
			if want := (Unseen{Labels: []string{"0"}, Items: 1, Item: "example"}); !reflect.DeepEqual(d.Unseen, want) {
				t.Errorf("unseen %+v, want %+v", d.Unseen, want)
			}
			if l := oracles.MeanLoss(te, make([]float64, te.Dim())); l != 1 {
				t.Errorf("test loss %v, want 1: the digit of no class is an error", l)
			}
		}
	}
	// One of the files names the pair; the other is found beside it.
	for _, file := range []string{plainDir + "/zip.train", plainDir + "/zip.test", root + "/usps/zip.test.gz"} {
		d, err := LoadUSPS(file, Options{NoBias: true})
		if err != nil || d.Train.Len() != 3 || d.Test.Len() != 1 {
			t.Errorf("LoadUSPS(%s): %v", file, err)
		}
	}
	// A user's file in the USPS format: its test file is found beside it,
	// or named.
	odd := writeFile(t, plainDir, "digits.txt", []byte(train))
	if _, err := LoadUSPS(odd, Options{}); err == nil || !strings.Contains(err.Error(), "usps: no test file for") || !strings.Contains(err.Error(), "digits.txt.t") {
		t.Errorf("LoadUSPS(%s): %v", odd, err)
	}
	if d, err := LoadUSPS(odd, Options{TestPath: plainDir + "/zip.test"}); err != nil || d.Train.Len() != 3 || d.Test.Len() != 1 || d.TestPath != plainDir+"/zip.test" {
		t.Errorf("LoadUSPS(%s, test zip.test): %v", odd, err)
	}
	own := writeFile(t, plainDir, "digits_train.txt", []byte(train))
	writeFile(t, plainDir, "digits_test.txt", []byte(test+test))
	for _, name := range []string{"usps", own} {
		d, err := LoadData(name, Options{Path: own})
		if err != nil || d.Name != "usps" || d.Train.Len() != 3 || d.Test.Len() != 2 || d.TestPath != plainDir+"/digits_test.txt" || len(d.Labels) != 3 || d.Unseen.Items != 2 {
			t.Errorf("LoadData(%s) of a file in the USPS format: %+v, %v", name, d, err)
		}
	}
	empty := t.TempDir()
	if _, err := LoadUSPS(empty, Options{}); err == nil || !strings.Contains(err.Error(), "zip.train") {
		t.Errorf("LoadUSPS(empty) error %v", err)
	}
	cut := t.TempDir()
	gz := gzipBytes(t, []byte(strings.Repeat(train, 50)))
	writeFile(t, cut, "zip.train.gz", gz[:len(gz)/2])
	writeFile(t, cut, "zip.test", []byte(test))
	if _, err := LoadUSPS(cut, Options{}); !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "zip.train.gz") || strings.Contains(err.Error(), "fields") {
		t.Errorf("LoadUSPS(truncated) error %v", err)
	}
	bad := t.TempDir()
	writeFile(t, bad, "zip.train", []byte(train+"x\n"))
	writeFile(t, bad, "zip.test", []byte(test))
	if _, err := LoadUSPS(bad, Options{}); err == nil || !strings.Contains(err.Error(), "zip.train:4:") {
		t.Errorf("LoadUSPS(bad) error %v", err)
	}
}
