package datasets

import (
	"math"
	"strings"
	"testing"
)

const sampleDenseARFF = `% A comment line
@RELATION 'multi label data'

@attribute Att1 numeric
@attribute 'Att 2' REAL
@attribute "third" integer
@attribute Class1 {0,1}
@attribute 'Class 2' {1, 0}
@attribute colour {red, 'dark blue', green}

@data
% comment inside the data
0.5, -1e-3, 3, 1, 0, 'dark blue'
0,0,0,0,1,red

1.25,2,-4,1,1,green
`

const sampleSparseARFF = `@relation sparse
@attribute a numeric
@attribute b numeric
@attribute c {0,1}
@attribute d {x,y}
@data
{0 1.5, 2 1}
{}
{1 -2,3 y}
{ 3 'y' }
`

func TestReadARFFValid(t *testing.T) {
	a, err := ReadARFF(strings.NewReader(sampleDenseARFF), "dense.arff")
	if err != nil {
		t.Fatal(err)
	}
	if a.Relation != "multi label data" {
		t.Errorf("relation %q", a.Relation)
	}
	wantNames := []string{"Att1", "Att 2", "third", "Class1", "Class 2", "colour"}
	if len(a.Attributes) != len(wantNames) {
		t.Fatalf("%d attributes", len(a.Attributes))
	}
	for k, n := range wantNames {
		if a.Attributes[k].Name != n {
			t.Errorf("attribute %d is %q, want %q", k, a.Attributes[k].Name, n)
		}
	}
	if got := a.Attributes[5].Nominal; len(got) != 3 || got[1] != "dark blue" {
		t.Errorf("nominal values %q", got)
	}
	if a.Attributes[0].Nominal != nil {
		t.Errorf("numeric attribute has nominal values")
	}
	// Dense rows as full vectors: nominal values are their declaration
	// index ('Class 2' is declared {1, 0}: "0" is index 1).
	want := [][]float64{
		{0.5, -1e-3, 3, 1, 1, 1},
		{0, 0, 0, 0, 0, 0},
		{1.25, 2, -4, 1, 0, 2},
	}
	checkRows(t, a, want)

	s, err := ReadARFF(strings.NewReader(sampleSparseARFF), "sparse.arff")
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, s, [][]float64{{1.5, 0, 1, 0}, {0, 0, 0, 0}, {0, -2, 0, 1}, {0, 0, 0, 1}})
}

func checkRows(t *testing.T, a *ARFF, want [][]float64) {
	t.Helper()
	if len(a.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(a.Rows), len(want))
	}
	for m, row := range a.Rows {
		got := row.Dense(len(a.Attributes))
		for k := range got {
			if got[k] != want[m][k] {
				t.Fatalf("row %d: %v, want %v", m, got, want[m])
			}
		}
		for k := 1; k < len(row.Idx); k++ {
			if row.Idx[k] <= row.Idx[k-1] {
				t.Fatalf("row %d: indices not increasing: %v", m, row.Idx)
			}
		}
		for _, v := range row.Val {
			if v == 0 {
				t.Fatalf("row %d stores a zero", m)
			}
		}
	}
}

func TestReadARFFErrors(t *testing.T) {
	head := "@relation r\n@attribute a numeric\n@attribute b {0,1}\n@data\n"
	cases := []struct {
		name, text string
		line       int
		want       string
	}{
		{"no data", "@relation r\n@attribute a numeric\n", 0, "no @data"},
		{"junk header", "@relation r\nhello\n", 2, "expected @relation"},
		{"unknown keyword", "@relation r\n@attrib a numeric\n", 2, "unknown keyword"},
		{"string attribute", "@relation r\n@attribute s string\n@data\n", 2, "unsupported type"},
		{"date attribute", "@relation r\n@attribute s date 'yyyy'\n@data\n", 2, "unsupported type"},
		{"no type", "@relation r\n@attribute s\n", 2, "without a type"},
		{"unterminated quote", "@relation r\n@attribute 'a numeric\n", 2, "unterminated"},
		{"open nominal", "@relation r\n@attribute a {0,1\n", 2, "closing brace"},
		{"duplicate attribute", "@relation r\n@attribute a numeric\n@attribute a numeric\n", 3, "twice"},
		{"duplicate value", "@relation r\n@attribute a {0,0}\n", 2, "twice"},
		{"data first", "@relation r\n@data\n", 2, "before any @attribute"},
		{"relation twice", "@relation r\n@relation s\n", 2, "once"},
		{"too few values", head + "1\n", 5, "1 values for 2 attributes"},
		{"too many values", head + "1,0,3\n", 5, "3 values"},
		{"bad number", head + "x,0\n", 5, "not a finite decimal number"},
		{"NaN", head + "NaN,0\n", 5, "not a finite decimal number"},
		{"Inf", head + "\n% c\n+Inf,0\n", 7, "not a finite decimal number"},
		{"bad nominal", head + "1,2\n", 5, "not one of"},
		{"missing", head + "?,0\n", 5, "missing values"},
		{"sparse order", head + "{1 1, 0 2}\n", 5, "must increase"},
		{"sparse range", head + "{2 1}\n", 5, "outside [0, 2)"},
		{"sparse entry", head + "{0}\n", 5, "index value"},
		{"sparse brace", head + "{0 1\n", 5, "closing brace"},
		{"weights", head + "{0 1}, {2}\n", 5, "weights are not supported"},
	}
	for _, tc := range cases {
		_, err := ReadARFF(strings.NewReader(tc.text), "bad.arff")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		prefix := "arff: bad.arff"
		if tc.line > 0 {
			prefix += ":" + itoa(tc.line) + ":"
		}
		if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want prefix %q and %q", tc.name, msg, prefix, tc.want)
		}
	}
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// FuzzReadARFF checks that ReadARFF never panics and that what it accepts
// is well formed: every row index below the number of attributes,
// increasing, with finite non-zero values, nominal codes within their
// declarations.
func FuzzReadARFF(f *testing.F) {
	f.Add(sampleDenseARFF)
	f.Add(sampleSparseARFF)
	f.Add("@relation r\n@attribute a {0,1}\n@data\n{0 1}\n1\n")
	f.Add("@relation r\n@attribute 'a b' numeric\n@data\n'1'\n")
	f.Add("@relation r\n@attribute a numeric\n@data\n{0 1, 0 2}\n")
	f.Add("@relation r\n@attribute a numeric\n@data\n0x1p-2\n1_0\n") // Go-only numbers: refused
	f.Fuzz(func(t *testing.T, text string) {
		a, err := ReadARFF(strings.NewReader(text), "fuzz.arff")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "arff: fuzz.arff") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for m, row := range a.Rows {
			last := int32(-1)
			for k, j := range row.Idx {
				if j <= last || int(j) >= len(a.Attributes) {
					t.Fatalf("row %d: index %d after %d with %d attributes", m, j, last, len(a.Attributes))
				}
				last = j
				v := row.Val[k]
				if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("row %d: value %v", m, v)
				}
				if nom := a.Attributes[j].Nominal; nom != nil && (v != math.Trunc(v) || v < 0 || int(v) >= len(nom)) {
					t.Fatalf("row %d: nominal code %v of %d values", m, v, len(nom))
				}
			}
		}
	})
}
