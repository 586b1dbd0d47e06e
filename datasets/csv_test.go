package datasets

import (
	"slices"
	"strings"
	"testing"
)

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		opt    CSVOptions
		x      [][]float64
		labels []string
		lines  []int
		names  []string
	}{
		{"no header, label last", "1,0,a\n0.5,-2,b\n", CSVOptions{},
			[][]float64{{1, 0}, {0.5, -2}}, []string{"a", "b"}, []int{1, 2}, nil},
		{"header with names", "x1,x2,species\n1,2,setosa\n3,0,virginica\n", CSVOptions{},
			[][]float64{{1, 2}, {3, 0}}, []string{"setosa", "virginica"}, []int{2, 3}, []string{"x1", "x2"}},
		{"numeric column names, label named", "0,1,label\n1,2,3\n4,5,6\n", CSVOptions{Label: "label"},
			[][]float64{{1, 2}, {4, 5}}, []string{"3", "6"}, []int{2, 3}, []string{"0", "1"}},
		{"numeric column names, header told by the label", "0,1,label\n1,2,3\n", CSVOptions{},
			[][]float64{{1, 2}}, []string{"3"}, []int{2}, []string{"0", "1"}},
		{"label first by index", "7,1,2\n+7.0,3,4\n", CSVOptions{Label: "0"},
			[][]float64{{1, 2}, {3, 4}}, []string{"7", "7"}, []int{1, 2}, nil},
		{"label by negative index", "1,9,2\n3,8,4\n", CSVOptions{Label: "-2"},
			[][]float64{{1, 2}, {3, 4}}, []string{"9", "8"}, []int{1, 2}, nil},
		{"header forced", "1,2\n3,4\n", CSVOptions{Header: HeaderYes},
			[][]float64{{3}}, []string{"4"}, []int{2}, []string{"1"}},
		{"header refused", "a,b\n3,4\n", CSVOptions{Header: HeaderNo, Label: "0"},
			nil, nil, nil, nil}, // "b" is not a number: an error, checked below
		{"semicolons, spaces, CRLF, quotes, blank lines", "f;\"g\";y\r\n 1 ; 2;\"x; y\"\r\n\r\n0;0;z\r\n", CSVOptions{Comma: ';'},
			[][]float64{{1, 2}, {0, 0}}, []string{"x; y", "z"}, []int{2, 4}, []string{"f", "g"}},
		{"a label only", "y\n1\n2\n", CSVOptions{},
			[][]float64{{}, {}}, []string{"1", "2"}, []int{2, 3}, []string{}},
		{"byte order mark before a header", "\ufeffx1,x2,y\n1,2,a\n", CSVOptions{},
			[][]float64{{1, 2}}, []string{"a"}, []int{2}, []string{"x1", "x2"}},
		{"byte order mark before a number", "\ufeff1,2,a\n3,4,b\n", CSVOptions{},
			[][]float64{{1, 2}, {3, 4}}, []string{"a", "b"}, []int{1, 2}, nil},
		{"byte order mark, label chosen by name", "\ufeffy,x\nb,1\n", CSVOptions{Label: "y"},
			[][]float64{{1}}, []string{"b"}, []int{2}, []string{"x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := ReadCSV(strings.NewReader(tc.text), "d.csv", tc.opt)
			if tc.x == nil {
				if err == nil {
					t.Fatalf("no error; got %v", ex.X)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			F := len(tc.x[0])
			if got := denseRows(ex.X, F); ex.NumFeatures != F || !slices.EqualFunc(got, tc.x, slices.Equal) {
				t.Errorf("features %v (F = %d), want %v", got, ex.NumFeatures, tc.x)
			}
			if !slices.Equal(ex.Labels, tc.labels) || !slices.Equal(ex.Lines, tc.lines) {
				t.Errorf("labels %v lines %v, want %v %v", ex.Labels, ex.Lines, tc.labels, tc.lines)
			}
			if (tc.names == nil) != (ex.FeatureNames == nil) || !slices.Equal(ex.FeatureNames, tc.names) {
				t.Errorf("feature names %q, want %q", ex.FeatureNames, tc.names)
			}
			for i, v := range ex.X {
				for _, val := range v.Val {
					if val == 0 {
						t.Errorf("example %d stores a zero", i)
					}
				}
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		opt  CSVOptions
		want string
	}{
		{"empty", "", CSVOptions{}, "csv: e.csv: no examples"},
		{"header only", "a,b,y\n", CSVOptions{}, "csv: e.csv: no examples (only a header)"},
		{"field count", "1,2,3\n4,5\n", CSVOptions{}, "csv: e.csv:2: 2 fields, want 3 as in the first row"},
		{"missing value", "1,2,a\n4,,b\n", CSVOptions{}, "csv: e.csv:2: column 2 is empty (missing values are not supported)"},
		{"NA", "f,g,y\n1,2,a\nNA,5,b\n", CSVOptions{}, `csv: e.csv:3: column 1 ("f"): "NA" is not a finite decimal number`},
		{"NaN", "1,2,a\n1,NaN,a\n", CSVOptions{}, "e.csv:2: column 2: \"NaN\" is not a finite decimal number"},
		{"empty label", "1,2,a\n3,4, \n", CSVOptions{}, "e.csv:2: empty label (column 3)"},
		{"label column out of range", "1,2\n", CSVOptions{Label: "5"}, "e.csv:1: label column 5 outside the 2 columns"},
		{"unknown label name", "a,b\n1,2\n", CSVOptions{Label: "y"}, "e.csv:1: no column named \"y\" in the header"},
		{"name without header", "a,b\n1,2\n", CSVOptions{Label: "b", Header: HeaderNo}, "label column \"b\" chosen by name, but the file has no header"},
		{"bare quote", "1,2,a\n3,4\",b\n", CSVOptions{}, "e.csv:2: bare \" in non-quoted-field"},
		{"bad comma", "1,2\n", CSVOptions{Comma: '\n'}, "csv: e.csv: "},
		{"bad header mode", "1,2\n", CSVOptions{Header: 5}, "unknown header mode"},
		// Issue 22, item 6: the wrong separator made one column, the header
		// an example and every row a class.
		{"semicolons read with commas", "a;b;y\n1;0;x\n0;1;y\n", CSVOptions{},
			`csv: e.csv:1: one column, but the row contains ";": is the field separator ";" rather than ","?`},
		{"tabs read with commas", "1\t0\tx\n", CSVOptions{}, `e.csv:1: one column, but the row contains "\t"`},
		{"commas read with semicolons", "a,b,y\n1,2,x\n", CSVOptions{Comma: ';'}, `e.csv:1: one column, but the row contains ","`},
		{"pipes in a later row", "y\nx\n1|2|z\n", CSVOptions{}, `e.csv:3: one column, but the row contains "|"`},
		{"semicolons after a byte order mark", "\ufeffa;b;y\n1;0;x\n", CSVOptions{}, `e.csv:1: one column`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.text), "e.csv", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReadCSVFile(t *testing.T) {
	dir := t.TempDir()
	text := "a,b,y\n" + strings.Repeat("1,2,x\n0,3,z\n", 300)
	gz := gzipBytes(t, []byte(text))
	p := writeFile(t, dir, "d.csv.gz", gz)
	ex, err := ReadCSVFile(p, CSVOptions{})
	if err != nil || ex.Len() != 600 {
		t.Fatalf("gzip: %v", err)
	}
	cut := writeFile(t, dir, "cut.csv.gz", gz[:len(gz)/2])
	if _, err := ReadCSVFile(cut, CSVOptions{}); err == nil || !strings.Contains(err.Error(), "truncated gzip stream") || !strings.Contains(err.Error(), "csv: "+cut) {
		t.Errorf("truncated: %v", err)
	}
}
