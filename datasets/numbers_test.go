package datasets

import (
	"fmt"
	"strings"
	"testing"
)

func TestIsDecimal(t *testing.T) {
	for _, s := range []string{"3", "-1", "+1", "0", "-0", "007", ".5", "+.5", "2.", "1.25", "1e-3", "1E+5", "6.0000", "-2.5e10", "1e400"} {
		if !isDecimal(s) {
			t.Errorf("isDecimal(%q) = false", s)
		}
	}
	for _, s := range []string{"", "+", "-", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "0x1p-2", "0X10", "1_0", "1_000.5", "Inf", "+Inf", "-inf", "infinity", "NaN", "nan", "1,5", "٣", "1f", "--1"} {
		if isDecimal(s) {
			t.Errorf("isDecimal(%q) = true", s)
		}
	}
	if v, ok := parseDecimal("1e400"); ok {
		t.Errorf("parseDecimal(1e400) = %v, accepted", v)
	}
	if v, ok := parseDecimal("-2.5e-3"); !ok || v != -0.0025 {
		t.Errorf("parseDecimal(-2.5e-3) = %v, %v", v, ok)
	}
}

// TestGoOnlyNumberSyntax: the number forms strconv.ParseFloat accepts
// beyond the decimal ones (issue 35) are refused by every reader, naming
// the file and line.
func TestGoOnlyNumberSyntax(t *testing.T) {
	digit := func(label string, value string) string {
		vals := uspsLine(label, uspsValues(0))
		if value != "" {
			f := strings.Fields(vals)
			f[7] = value
			vals = strings.Join(f, " ")
		}
		return uspsLine("1", uspsValues(1)) + "\n" + vals + "\n"
	}
	arff := func(v string) string {
		return "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n" + v + ",y\n"
	}
	readers := []struct {
		name string
		text func(num string) string // a file whose line 2 holds num
		read func(text string) error
		want string // the error's start: format, file and line
	}{
		{"svmlight value", func(n string) string { return "1 1:1\n2 3:" + n + "\n" }, func(s string) error {
			_, err := ReadSVMLight(strings.NewReader(s), "n.svm", SVMLightOptions{})
			return err
		}, "svmlight: n.svm:2: feature 3: value "},
		{"svmlight label", func(n string) string { return "1 1:1\n" + n + " 3:1\n" }, func(s string) error {
			_, err := ReadSVMLight(strings.NewReader(s), "n.svm", SVMLightOptions{})
			return err
		}, "svmlight: n.svm:2: label "},
		{"csv feature", func(n string) string { return "1,2,a\n" + n + ",4,b\n" }, func(s string) error {
			_, err := ReadCSV(strings.NewReader(s), "n.csv", CSVOptions{})
			return err
		}, "csv: n.csv:2: column 1: "},
		{"usps value", func(n string) string { return digit("2", n) }, func(s string) error {
			_, _, err := ReadUSPS(strings.NewReader(s), "zip.n")
			return err
		}, "usps: zip.n:2: value 7 (field 8) "},
		{"usps label", func(n string) string { return digit(n, "") }, func(s string) error {
			_, _, err := ReadUSPS(strings.NewReader(s), "zip.n")
			return err
		}, "usps: zip.n:2: label (field 1) "},
		{"arff value", func(n string) string { return arff(n) }, func(s string) error {
			_, err := ReadARFF(strings.NewReader(s), "n.arff")
			return err
		}, "arff: n.arff:6: attribute \"a\": "},
		{"hansards confidence", func(n string) string { return "1 1 1 S\n1 2 2 " + n + "\n" }, func(s string) error {
			_, err := readWordLinks(strings.NewReader(s), "n.wa")
			return err
		}, "hansards: n.wa:2: link kind "},
	}
	for _, r := range readers {
		// The file reads with a decimal number in the same place (a digit
		// for a USPS label).
		good := "0.25"
		if r.name == "usps label" {
			good = "2.0"
		}
		if err := r.read(r.text(good)); err != nil {
			t.Errorf("%s: the decimal %s refused: %v", r.name, good, err)
		}
		for _, num := range []string{"0x1p-2", "0X1P-2", "1_0", "0x_1p0", "Inf", "+Inf", "-infinity", "NaN", "nan"} {
			err := r.read(r.text(num))
			if err == nil || !strings.HasPrefix(err.Error(), r.want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", num)) {
				t.Errorf("%s: %s read with error %v; want one starting %q and quoting it", r.name, num, err, r.want)
			}
		}
	}
	// Indices are decimal integers, already refused in the other forms.
	for _, line := range []string{"1 0x1:1\n", "1 1_0:1\n"} {
		if _, err := ReadSVMLight(strings.NewReader(line), "n.svm", SVMLightOptions{}); err == nil || !strings.HasPrefix(err.Error(), "svmlight: n.svm:1: feature index ") {
			t.Errorf("%q: %v", line, err)
		}
	}
	// A CSV label is any text: a Go-only number is a label of its own, not
	// the number it would parse as.
	ex, err := ReadCSV(strings.NewReader("1,0x1p-2\n2,0.25\n3,Inf\n"), "l.csv", CSVOptions{Header: HeaderNo})
	if err != nil {
		t.Fatal(err)
	}
	if got := sortedClasses(ex.Labels); len(got) != 3 || got[0] != "0.25" || got[1] != "0x1p-2" || got[2] != "Inf" {
		t.Errorf("CSV labels %v, want three text labels", got)
	}
}
