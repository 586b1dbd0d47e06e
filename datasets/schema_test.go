package datasets

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

// dropColumns removes the comma- (or white-space-) separated fields at
// the indices drop from every line of text that has more than one field.
func dropColumns(text, sep string, drop ...int) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, sep)
		if sep == " " {
			f = strings.Fields(line)
		}
		if len(f) <= 1 {
			out = append(out, line)
			continue
		}
		var kept []string
		for k, v := range f {
			if !slices.Contains(drop, k) {
				kept = append(kept, v)
			}
		}
		out = append(out, strings.Join(kept, sep))
	}
	return strings.Join(out, "\n")
}

// tagFirst writes the lines of a `word POS tag` corpus as `tag\tword\tPOS`.
func tagFirst(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			line = f[2] + "\t" + f[0] + "\t" + f[1]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// unlabeledARFF is mulanARFF(n, false, seed) without its label attributes.
func unlabeledARFF(n, seed int) string {
	var sb strings.Builder
	for _, line := range strings.Split(mulanARFF(n, false, seed), "\n") {
		switch {
		case strings.HasPrefix(line, "@attribute L"), strings.HasPrefix(line, "@attribute group"):
		case line == "" || strings.HasPrefix(line, "@"):
			sb.WriteString(line + "\n")
		default:
			sb.WriteString(dropColumns(line, ",", 1, 3, 5, 6) + "\n")
		}
	}
	return sb.String()
}

// schemaCase is a dataset whose test file is read again with the schema
// of its training data, with its labels and without.
type schemaCase struct {
	name      string
	load      func(t *testing.T, dir string) (*Data, error)
	test      string // the file to read (the test file: by default d.TestPath)
	unlabeled string // the same examples without gold labels
}

// schemaCases writes the files of every format the schema reads into dir.
func schemaCases(t *testing.T, dir string) []schemaCase {
	digit := func(label string, seed int) string { return uspsLine(label, uspsValues(seed)) + "\n" }
	unlabeledDigit := func(seed int) string { return strings.TrimPrefix(uspsLine("x", uspsValues(seed)), "x ") + "\n" }
	conllTrain := "He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ncurrent JJ I-NP\naccount NN I-NP\n\nthe DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n"
	conllTest := "the DT B-NP\naccount NN I-NP\nran VBD B-VP\n\n( ( B-LST\ndog NN I-NP\n"
	ocrTrain := letterFile(append(wordLetters("cat", 1, 1, 0), wordLetters("dog", 4, 2, 1)...), "\n")
	ocrTest := letterFile(wordLetters("dog", 4, 2, 1), "\n")
	write := func(name, content string) string { return writeFile(t, dir, name, []byte(content)) }
	loadFile := func(train string, opt Options) func(t *testing.T, dir string) (*Data, error) {
		return func(t *testing.T, dir string) (*Data, error) { return LoadData(train, opt) }
	}
	return []schemaCase{
		{name: "svmlight 1-based",
			load:      loadFile(write("a_train.svm", "1 1:0.5 3:2\n2 2:1\n3 1:1 4:1\n"), Options{TestPath: write("a_test.svm", "1 1:1 5:1\n2 0:1 2:1\n9 3:1\n")}),
			unlabeled: write("a_new.svm", "1:1 5:1\n0:1 2:1\n3:1\n")},
		{name: "svmlight 0-based scaled",
			load:      loadFile(write("b_train.svm", "-1 0:0.5 3:2\n+1 2:1\n-1 1:4 4:1\n"), Options{TestPath: write("b_test.svm", "1 0:1 7:1\n-1 2:3\n"), Scaling: ScaleMinMax}),
			unlabeled: write("b_new.svm", "0:1 7:1\n2:3\n")},
		{name: "csv header by name",
			load: loadFile(write("c_train.csv", "f1;class;f2\n1;x;2\n3;y;4\n5;x;0\n"),
				Options{CSV: CSVOptions{Comma: ';', Label: "class"}, TestPath: write("c_test.csv", "f1;class;f2\n1;y;2\n7;z;1\n"), Scaling: ScaleStandardize}),
			unlabeled: write("c_new.csv", "f1;f2\n1;2\n7;1\n")},
		{name: "csv empty labels",
			load:      loadFile(write("d_train.csv", "1,2,a\n3,4,b\n"), Options{TestPath: write("d_test.csv", "1,0,b\n2,2,a\n")}),
			unlabeled: write("d_new.csv", "1,0,\n2,2,\n")},
		{name: "usps",
			load:      loadFile(write("e_train.txt", digit("1", 0)+digit("2", 1)+digit("1", 3)), Options{TestPath: write("e_test.txt", digit("2", 2)+digit("7", 0))}),
			unlabeled: write("e_new.txt", unlabeledDigit(2)+unlabeledDigit(0))},
		{name: "mulan",
			load: func(t *testing.T, dir string) (*Data, error) {
				sub := filepath.Join(dir, "mulan")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				return LoadData(writeMULAN(t, sub, "toy"), Options{Scaling: ScaleMinMax})
			},
			unlabeled: write("toy-new.arff", unlabeledARFF(7, 2))},
		{name: "conll",
			load:      loadFile(write("f_train.txt", conllTrain), Options{TestPath: write("f_test.txt", conllTest), Conll: ConllOptions{MinCount: 1}}),
			unlabeled: write("f_new.txt", dropColumns(conllTest, " ", 2))},
		{name: "conll tab-separated, tag first",
			load: loadFile(write("g_train.tsv", tagFirst(conllTrain)),
				Options{TestPath: write("g_test.tsv", tagFirst(conllTest)), Conll: ConllOptions{MinCount: 1, Format: ColumnFormat{Sep: '\t', Tag: 1}}}),
			unlabeled: write("g_new.tsv", strings.ReplaceAll(dropColumns(conllTest, " ", 2), " ", "\t"))},
		{name: "ocr",
			load: func(t *testing.T, dir string) (*Data, error) {
				return LoadData("ocr", Options{Path: write("letter.data", ocrTrain)})
			},
			test: write("dog.data", ocrTest)},
	}
}

// TestSchemaReadsTheTestFile: the schema of the training data, written as
// JSON and read back, reads the test file into the problem LoadData built
// (same fingerprint, same unseen counts) without the training file, and
// the same examples without gold labels into a set that predicts alike.
func TestSchemaReadsTheTestFile(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	for _, tc := range schemaCases(t, dir) {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.load(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(d.Schema())
			if err != nil {
				t.Fatal(err)
			}
			var s Schema
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if again, _ := json.Marshal(&s); !bytes.Equal(again, b) {
				t.Fatalf("the schema changed in a round trip:\n%s\n%s", b, again)
			}
			test := tc.test
			if test == "" {
				test = d.TestPath
			}
			if err := os.Rename(d.TrainPath, d.TrainPath+".gone"); err != nil && d.TrainPath != "" {
				t.Fatal(err)
			}
			if d.Name == "ocr" {
				os.Rename(filepath.Join(dir, "letter.data"), filepath.Join(dir, "letter.data.gone"))
			}
			set, err := s.Read(test, d.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !set.Gold || set.Problem.Dim() != d.Train.Dim() {
				t.Fatalf("gold %v, d = %d; want gold labels and d = %d", set.Gold, set.Problem.Dim(), d.Train.Dim())
			}
			if got, want := oracles.FingerprintOf(set.Problem, 1), oracles.FingerprintOf(d.Test, 1); got != want {
				t.Fatalf("read with the schema: %v; LoadData's test problem: %v", got, want)
			}
			if !reflect.DeepEqual(set.Unseen, d.Unseen) {
				t.Errorf("unseen %+v, LoadData's %+v", set.Unseen, d.Unseen)
			}
			if tc.unlabeled == "" {
				return
			}
			plain, err := s.Read(tc.unlabeled, d.opt)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Gold || plain.Problem.Len() != set.Problem.Len() || plain.Problem.Dim() != set.Problem.Dim() || plain.Unseen.Items != 0 {
				t.Fatalf("without labels: gold %v, %d examples, d = %d, unseen %+v", plain.Gold, plain.Problem.Len(), plain.Problem.Dim(), plain.Unseen)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			for trial := 0; trial < 5; trial++ {
				w := oraclestest.Weights(rng, set.Problem.Dim(), 1)
				for i := range set.Problem.Len() {
					if a, b := set.Problem.Predict(i, w, nil), plain.Problem.Predict(i, w, nil); !slices.Equal(a, b) {
						t.Fatalf("example %d: predicted %v with labels, %v without", i, a, b)
					}
				}
			}
		})
	}
}

// TestSchemaRefuses: files that do not fit the schema, and schemas that
// cannot build a problem, are errors naming what is wrong.
func TestSchemaRefuses(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	train := writeFile(t, dir, "x_train.csv", []byte("1,2,a\n3,4,b\n"))
	d, err := LoadData(train, Options{TestOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Test != nil || !strings.Contains(d.NoTest, "no test file beside "+train) {
		t.Fatalf("no test file: test %v, note %q", d.Test, d.NoTest)
	}
	s := d.Schema()
	for _, tc := range []struct{ content, want string }{
		{"1,2,3,a\n", "has 3 feature columns, but the training file had 2"},
		{"1,2,\n3,4,b\n", "label \"b\", but the first row has none"},
		{"1,2,b\n3,4,\n", "empty label"},
	} {
		bad := writeFile(t, dir, "bad.csv", []byte(tc.content))
		if _, err := s.Read(bad, d.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.content, err, tc.want)
		}
	}
	svm := writeFile(t, dir, "y.svm", []byte("1:1\n2 1:1\n"))
	sd, err := LoadData(writeFile(t, dir, "y_train.svm", []byte("1 1:1\n2 2:1\n")), Options{TestOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sd.Schema().Read(svm, sd.opt); err == nil || !strings.Contains(err.Error(), "y.svm:2: \"2\": a label, but the first line of the file has none") {
		t.Errorf("mixed labels: %v", err)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"format":"csv","labels":["a","a"],"features":2}`, `label "a" listed twice`},
		{`{"format":"csv","labels":["a"],"features":2}`, "1 classes"},
		{`{"format":"svmlight","labels":["a","b"],"features":2}`, "no index base"},
		{`{"format":"nope"}`, `unknown format "nope"`},
		{`{"format":"conll","labels":["O"],"columns":3}`, "no attribute dictionary"},
		{`{"format":"csv","labels":["a","b"],"features":2,"extra":1}`, "unknown field"},
		{`{"format":"csv","labels":["a","b"],"features":2,"scaler":{"scaling":"minmax","offset":[0],"factor":[1]}}`, "a scaler of 1 features for 2"},
		{`{"format":"conll","labels":["O"],"columns":3,"dictionary":{"templates":[[{"Column":0,"Offset":0}]],"boundary":false,"values":[["a"]],"attributes":[[0,1]],"counts":[1],"seen":1}}`, "value id 1 outside"},
		{`{"format":"conll","labels":["O"],"columns":3,"dictionary":{"templates":[[{"Column":0,"Offset":0}]],"boundary":false,"values":[["a"]],"attributes":[[0,0],[0,0]],"counts":[1,1],"seen":2}}`, "repeats an earlier one"},
	} {
		var s Schema
		if err := json.Unmarshal([]byte(tc.json), &s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
	// The horses and the Hansards need their training data.
	if _, err := (&Schema{Format: "hansards"}).Read(dir, Options{}); err == nil || !strings.Contains(err.Error(), "statistics of the training data") {
		t.Errorf("hansards with a schema alone: %v", err)
	}
}

// TestWritePredictions: each task's output, read back as its tools read
// it, holds the predictions.
func TestWritePredictions(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	cases := schemaCases(t, dir)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.load(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			sets := []*Set{d.TestSet()}
			if tc.unlabeled != "" {
				plain, err := d.Read(tc.unlabeled)
				if err != nil {
					t.Fatal(err)
				}
				sets = append(sets, plain)
			}
			w := oraclestest.Weights(rng, d.Train.Dim(), 1)
			for _, set := range sets {
				pred := make([][]int32, set.Problem.Len())
				for i := range pred {
					pred[i] = set.Problem.Predict(i, w, nil)
				}
				var buf bytes.Buffer
				if err := set.WritePredictions(&buf, pred); err != nil {
					t.Fatal(err)
				}
				checkPredictionText(t, set, pred, buf.String())
			}
		})
	}
}

// checkPredictionText reads the output of WritePredictions as the task's
// tools do and compares it with pred.
func checkPredictionText(t *testing.T, set *Set, pred [][]int32, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	switch c := set.Problem.(type) {
	case *Chunking:
		i, tok := 0, 0
		for _, line := range lines {
			if line == "" {
				i, tok = i+1, 0
				continue
			}
			f := strings.Fields(line)
			want := len(c.Sentences[i].Fields) + 2
			if !set.Gold {
				want--
			}
			if len(f) != want || f[len(f)-1] != c.Tags[pred[i][tok]] || set.Gold && f[len(f)-2] != c.Sentences[i].Tags[tok] ||
				f[0] != c.Sentences[i].Fields[0][tok] {
				t.Fatalf("sentence %d token %d: %q", i, tok, line)
			}
			tok++
		}
		if i != len(pred) {
			t.Fatalf("%d sentences written, want %d:\n%s", i+1, len(pred), out)
		}
	default:
		if len(lines) != len(pred) {
			t.Fatalf("%d lines for %d examples:\n%s", len(lines), len(pred), out)
		}
		for i, line := range lines {
			var want string
			switch set.Format {
			case "ocr":
				for _, v := range pred[i] {
					want += string(rune('a' + v))
				}
			case "mulan":
				var names []string
				for k, v := range pred[i] {
					if v == 1 {
						names = append(names, set.Labels[k])
					}
				}
				want = strings.Join(names, " ")
			default:
				want = set.Labels[pred[i][0]]
				if _, err := strconv.ParseFloat(want, 64); set.Format != "csv" && err != nil {
					t.Fatalf("class %q of %s data is not a number", want, set.Format)
				}
			}
			if line != want {
				t.Fatalf("example %d: %q, want %q", i, line, want)
			}
		}
	}
}

// TestHansardsReadPairs: a folder of sentence pairs, with or without gold
// links, is read with the statistics of the loaded data; the test pairs
// alone give the test problem; predictions are written as the scorer's
// links.
func TestHansardsReadPairs(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "hansards")
	if err := WriteSyntheticHansards(dir, SyntheticHansardsConfig{Gold: 30, Unaligned: 200, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	d, err := LoadData("hansards", Options{Path: dir, Hansards: HansardsOptions{TrainGold: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Schema().Readable() {
		t.Fatal("a Hansards schema claims to read files alone")
	}
	// The test pairs (snum > 10) in a folder of their own.
	sub := t.TempDir()
	keep := regexp.MustCompile(`^(<s snum=|)0*(\d+)[ >]`)
	for _, name := range []string{HansardsEnglish, HansardsFrench, HansardsLinks} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if m := keep.FindStringSubmatch(line); m != nil {
				if n, _ := strconv.Atoi(m[2]); n > 10 {
					out = append(out, line)
				}
			}
		}
		writeFile(t, sub, name, []byte(strings.Join(out, "\n")+"\n"))
	}
	set, err := d.Read(sub)
	if err != nil {
		t.Fatal(err)
	}
	if !set.Gold || oracles.FingerprintOf(set.Problem, 1) != oracles.FingerprintOf(d.Test, 1) {
		t.Fatalf("the test pairs read again: gold %v, another problem", set.Gold)
	}
	os.Remove(filepath.Join(sub, HansardsLinks))
	plain, err := d.Read(sub)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Gold || plain.Problem.Len() != d.Test.Len() {
		t.Fatalf("without links: gold %v, %d pairs", plain.Gold, plain.Problem.Len())
	}
	w := oraclestest.Weights(rand.New(rand.NewPCG(1, 1)), d.Train.Dim(), 1)
	pred := make([][]int32, plain.Problem.Len())
	links := 0
	for i := range pred {
		pred[i] = plain.Problem.Predict(i, w, nil)
		for _, v := range pred[i] {
			if v >= 0 {
				links++
			}
		}
	}
	var buf bytes.Buffer
	if err := plain.WritePredictions(&buf, pred); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if links == 0 || len(lines) != links || !regexp.MustCompile(`^00(1[1-9]|2\d|30) \d+ \d+$`).MatchString(lines[0]) {
		t.Fatalf("%d links, output:\n%s", links, buf.String())
	}
}
