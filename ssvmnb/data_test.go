package ssvmnb

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/imaging/features"
	"github.com/fwstruct/fwstruct/imaging/slic"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// conllDir writes a tiny column-format corpus.
func conllDir(t *testing.T) string {
	dir := t.TempDir()
	corpus := "He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ndeficit NN I-NP\n. . O\n\nThe DT B-NP\nrate NN I-NP\nrose VBD B-VP\n. . O\n\n"
	write(t, filepath.Join(dir, "train.txt"), strings.Repeat(corpus, 3))
	write(t, filepath.Join(dir, "test.txt"), corpus)
	return dir
}

// uspsDir writes a few 16x16 digits: digit k lights row k.
func uspsDir(t *testing.T) string {
	dir := t.TempDir()
	var b strings.Builder
	for r := 0; r < 20; r++ {
		k := r % 10
		fmt.Fprintf(&b, "%d", k)
		for p := 0; p < 256; p++ {
			v := -1.0
			if p/16 == k {
				v = 1
			}
			fmt.Fprintf(&b, " %g", v)
		}
		b.WriteString("\n")
	}
	write(t, filepath.Join(dir, "zip.train"), b.String())
	write(t, filepath.Join(dir, "zip.test"), b.String())
	return dir
}

// yeastDir writes a tiny MULAN dataset named yeast: 2 features, 3 labels.
func yeastDir(t *testing.T) string {
	dir := t.TempDir()
	head := "@relation yeast\n@attribute Att1 numeric\n@attribute Att2 numeric\n@attribute Class1 {0,1}\n@attribute Class2 {0,1}\n@attribute Class3 {0,1}\n@data\n"
	rows := "0.5,0.1,1,0,0\n-0.4,0.3,0,1,1\n0.2,-0.6,1,1,0\n-0.1,-0.2,0,0,1\n"
	write(t, filepath.Join(dir, "yeast-train.arff"), head+rows+rows)
	write(t, filepath.Join(dir, "yeast-test.arff"), head+rows)
	write(t, filepath.Join(dir, "yeast.xml"), `<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels"><label name="Class1"></label><label name="Class2"></label><label name="Class3"></label></labels>`)
	return dir
}

// horsesDir writes n grey images with a dark rectangle ("horse") and their
// masks.
func horsesDir(t *testing.T, n int) string {
	dir := t.TempDir()
	for _, sub := range []string{datasets.HorsesImageDir, datasets.HorsesMaskDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k := 1; k <= n; k++ {
		img, mask := image.NewGray(image.Rect(0, 0, 48, 36)), image.NewGray(image.Rect(0, 0, 48, 36))
		for y := 0; y < 36; y++ {
			for x := 0; x < 48; x++ {
				v := uint8(200 - (x*7+y*3+k)%40)
				if x > 10+k && x < 34+k && y > 8 && y < 28 {
					v, mask.Pix[y*mask.Stride+x] = uint8(50+(x+y)%10), 255
				}
				img.Pix[y*img.Stride+x] = v
			}
		}
		for sub, m := range map[string]image.Image{datasets.HorsesImageDir: img, datasets.HorsesMaskDir: mask} {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, sub, fmt.Sprintf("horse%03d.jpg", k)), buf.String())
		}
	}
	return dir
}

func horsesOptions(dir string) datasets.Options {
	return datasets.Options{Horses: datasets.HorsesOptions{Path: dir, Train: 3, NoCache: true,
		SLIC: slic.Params{Superpixels: 16}, Features: features.Config{Words: 4, GreyBins: 6}, CodebookSamples: 20}}
}

// TestLoadEveryDataset loads every dataset name on generated files, trains
// a little and shows predictions of a test example as fits its task.
func TestLoadEveryDataset(t *testing.T) {
	isolated(t)
	rec := record(t)
	for _, c := range []struct {
		name string
		opt  datasets.Options
		want []string // in the prediction's HTML
	}{
		{"synthetic", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 20, TestWords: 5, Seed: 1}}, []string{"data:image/png", "predicted: ", "truth: "}},
		{"conll", datasets.Options{Path: conllDir(t)}, []string{"predicted: ", "gold: [NP He] [VP reckons] [NP the deficit] .", "tags right"}},
		{"usps", datasets.Options{Path: uspsDir(t)}, []string{"data:image/png", "predicted: ", "truth: 0"}},
		{"yeast", datasets.Options{Path: yeastDir(t)}, []string{"predicted and true: ", "true, missed: ", "Class1"}},
		{"horses", horsesOptions(horsesDir(t, 5)), []string{"data:image/png", "horse004.jpg: predicted horse tinted"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Load(c.name, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name != c.name || d.Note != "" || d.Train == nil || d.Test == nil || d.Description == "" {
				t.Fatalf("data %+v", d)
			}
			tn := Must(Session(c.name, d, solver.BCFW{Lambda: 0.1, GapEvery: 2}))
			tn.Live = false
			Must(tn.Run(2))
			h, err := predictionHTML(d.Test, 0, tn.Weights())
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(h, w) {
					t.Errorf("prediction HTML lacks %q:\n%.600s", w, h)
				}
			}
			if !strings.Contains(h, "loss ") && c.name != "usps" {
				t.Errorf("no loss in %q", h)
			}
			n := len(rec.html)
			Check(ShowPredictions(d.Test, tn.Weights(), 0, 1))
			if len(rec.html) != n+1 {
				t.Fatal("ShowPredictions showed nothing")
			}
			// The session remembers its data: a later cell is one line.
			r := Must(Resume(c.name))
			sameWeights(t, r, tn)
		})
	}
}

// TestLoadFallsBackOnlyWhenNotFound: "ocr" without data falls back to the
// synthetic data, visibly; a path given, another dataset or another error
// is an error.
func TestLoadFallsBackOnlyWhenNotFound(t *testing.T) {
	notes := isolated(t)
	rec := record(t)
	empty := t.TempDir()
	t.Setenv(datasets.EnvVar, empty)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	d, err := Load("ocr", datasets.Options{Synthetic: datasets.SyntheticConfig{TrainWords: 10, TestWords: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "synthetic" || !strings.Contains(d.Note, "OCR not found") || !strings.Contains(d.Description, "fallback") {
		t.Fatalf("fallback data %+v", d)
	}
	// Shown in the cell, once: not on stderr too, which GoNB shows in the
	// cell as well.
	if notes.Len() != 0 || len(rec.html) == 0 || !strings.Contains(rec.html[len(rec.html)-1], "OCR not found") {
		t.Fatalf("the fallback was not shown once: notes %q", notes.String())
	}
	// A session on the fallback resumes on it, and says so again.
	Must(Must(Session("s", d, solver.BCFW{Lambda: 0.1})).Run(1))
	rec.html = nil
	if r := Must(Resume("s")); r.Passes() != 1 || len(rec.html) == 0 || !strings.Contains(rec.html[0], "OCR not found") {
		t.Fatalf("resumed the fallback session at %v passes, shown %q", r.Passes(), rec.html)
	}
	for _, c := range []struct {
		name string
		opt  datasets.Options
		not  bool // the error must wrap datasets.ErrNotFound
	}{
		{"ocr", datasets.Options{Path: filepath.Join(empty, "missing")}, false}, // a path named is the path used
		{"usps", datasets.Options{}, true},
		{"yeast", datasets.Options{}, true},
		{"no such dataset", datasets.Options{}, false},
	} {
		d, err := Load(c.name, c.opt)
		if err == nil {
			t.Errorf("%s %+v: loaded %q", c.name, c.opt, d.Name)
			continue
		}
		if c.not != errors.Is(err, datasets.ErrNotFound) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	bad := filepath.Join(empty, "ocr", "letter.data")
	write(t, bad, "not letters\n")
	if _, err := Load("ocr"); err == nil || errors.Is(err, datasets.ErrNotFound) {
		t.Errorf("a corrupt OCR file: %v (must be an error, not a fallback)", err)
	}
	if _, err := Load("ocr", datasets.Options{}, datasets.Options{}); err == nil {
		t.Error("two Options accepted")
	}
}

// TestLoadRealOCR loads the real OCR data when present.
func TestLoadRealOCR(t *testing.T) {
	realdata.File(t, "ocr/letter.data.gz")
	t.Setenv(datasets.EnvVar, realdata.Dir(t))
	d, err := Load("ocr")
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "ocr" || d.Note != "" || d.Train.Len() != 626 || !strings.HasPrefix(d.Description, "OCR-small") {
		t.Fatalf("OCR: %+v", d)
	}
}

// TestPredictionsOfEveryProblemType covers the dispatch on problems built
// by hand: registered multi-label views, generic labelings and errors.
func TestPredictionsOfEveryProblemType(t *testing.T) {
	trd := &datasets.MultiLabelData{Features: []string{"a"}, Labels: []string{"x", "y"},
		X: []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}}, Y: [][]int32{{1, 0}}}
	trm, _, err := datasets.MultiLabelModels(trd, trd, true)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := factorgraph.NewExact(trm, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, ex.Dim())
	if h, err := predictionHTML(ex, 0, w); err != nil || !strings.Contains(h, "predicted: ") {
		t.Fatalf("unregistered multi-label: %q %v", h, err)
	}
	register(ex, labelSetView{"x", "y"})
	if h, err := predictionHTML(ex, 0, w); err != nil || !strings.Contains(h, "true, missed: <span style=\"color:#9a6700\">x</span>") {
		t.Fatalf("multi-label: %q %v", h, err)
	}
	mc, _ := oracles.NewMulticlass(3, 2, []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}}, []int32{2})
	if h, err := predictionHTML(mc, 0, make([]float64, mc.Dim())); err != nil || !strings.Contains(h, "truth: [2]") {
		t.Fatalf("multiclass: %q %v", h, err)
	}
	for _, c := range []struct {
		p oracles.Problem
		i int
		w []float64
	}{{mc, 1, make([]float64, mc.Dim())}, {mc, 0, nil}, {nil, 0, nil}} {
		if _, err := predictionHTML(c.p, c.i, c.w); err == nil {
			t.Errorf("predictionHTML(%T, %d, %d weights) accepted", c.p, c.i, len(c.w))
		}
	}
}

// TestSegmentationNeedsItsImages: a segmentation problem loaded without
// ssvmnb.Load cannot be shown over its images, and says how to fix it.
func TestSegmentationNeedsItsImages(t *testing.T) {
	h, err := datasets.LoadHorses(horsesOptions(horsesDir(t, 4)).Horses)
	if err != nil {
		t.Fatal(err)
	}
	_, err = predictionHTML(h.Test, 0, make([]float64, h.Test.Dim()))
	if err == nil || !strings.Contains(err.Error(), `ssvmnb.Load("horses")`) {
		t.Fatalf("unregistered segmentation: %v", err)
	}
}

// TestMULANPredictionsNameTheLabels: a user's own MULAN data loaded by path
// shows its predictions with the label names of its XML file, not label
// indices or 0/1 labelings, and its description names the labels.
func TestMULANPredictionsNameTheLabels(t *testing.T) {
	dir := t.TempDir()
	arff := "@relation 'moods: -C 3'\n@attribute loud numeric\n@attribute tempo numeric\n" +
		"@attribute amazed-suprised {0,1}\n@attribute happy-pleased {0,1}\n@attribute quiet-still {0,1}\n@data\n"
	var train, test strings.Builder
	train.WriteString(arff)
	test.WriteString(arff)
	for i := 0; i < 12; i++ {
		loud, tempo := float64(i%4), float64(i%3)
		row := fmt.Sprintf("%g,%g,%d,%d,%d\n", loud, tempo, i%2, (i/2)%2, 1-i%2)
		train.WriteString(row)
		if i < 4 {
			test.WriteString(row)
		}
	}
	xml := `<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/labels">` +
		`<label name="amazed-suprised"/><label name="happy-pleased"/><label name="quiet-still"/></labels>`
	for name, text := range map[string]string{"moods-train.arff": train.String(), "moods-test.arff": test.String(), "moods.xml": xml} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Load(filepath.Join(dir, "moods-train.arff"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Description, "3 labels (amazed-suprised, happy-pleased, quiet-still)") {
		t.Errorf("description %q", d.Description)
	}
	w := make([]float64, d.Test.Dim())
	for i := 0; i < d.Test.Len(); i++ {
		h, err := predictionHTML(d.Test, i, w)
		if err != nil {
			t.Fatal(err)
		}
		// w = 0 predicts no label: every true label is missed, by name.
		if !strings.Contains(h, "true, missed: ") || !strings.Contains(h, "predicted and true: none") ||
			!(strings.Contains(h, "amazed-suprised") || strings.Contains(h, "happy-pleased") || strings.Contains(h, "quiet-still")) {
			t.Errorf("example %d: %s", i, h)
		}
	}
}

// TestCSVPredictionsNameTheClasses: multiclass data read from a CSV file
// shows its predictions with the class labels of the file.
func TestCSVPredictionsNameTheClasses(t *testing.T) {
	dir := t.TempDir()
	var rows strings.Builder
	rows.WriteString("size,kind\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&rows, "%d,%s\n", i%4, []string{"oak", "pine", "birch"}[i%3])
	}
	path := filepath.Join(dir, "trees.csv")
	if err := os.WriteFile(path, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load("csv", datasets.Options{Path: path, TestPath: path})
	if err != nil {
		t.Fatal(err)
	}
	h, err := predictionHTML(d.Test, 1, make([]float64, d.Test.Dim()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h, "truth: pine") || !regexp.MustCompile(`predicted: <span style="color:#[0-9a-f]+">(oak|pine|birch)</span>`).MatchString(h) {
		t.Errorf("prediction %s", h)
	}
}

// TestUserDataSummary: data of the user's files says, once, what the
// command line says of it: the examples, the classes with their training
// counts, the dimension, and the test labels the training file does not
// have, whose examples are errors (issue 34 item 4: a CSV read with the
// wrong label column trained one class per value and said nothing).
func TestUserDataSummary(t *testing.T) {
	notes := isolated(t)
	dir := t.TempDir()
	write := func(name string, kinds []string, n int) string {
		var rows strings.Builder
		rows.WriteString("size,kind\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&rows, "%d,%s\n", i%4, kinds[i%len(kinds)])
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(rows.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	train := write("trees.csv", []string{"oak", "pine", "pine"}, 12)
	test := write("trees.test.csv", []string{"oak", "birch"}, 6)
	Must(Load(train, datasets.Options{TestPath: test}))
	for _, want := range []string{"12 training and 6 test examples", "2 classes (training examples: oak: 4, pine: 8)",
		"the test file has 1 labels the training file does not have (birch): their 3 examples are errors"} {
		if !strings.Contains(notes.String(), want) {
			t.Errorf("the summary %q does not say %q", notes.String(), want)
		}
	}
	if n := strings.Count(notes.String(), "trees.csv"); n != 1 {
		t.Errorf("the summary is shown %d times", n)
	}
	// A numeric column taken for the label: a class per value, which the
	// summary questions.
	var rows strings.Builder
	rows.WriteString("quality,acidity\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&rows, "%d,%d.5\n", i%3, i)
	}
	wine := filepath.Join(dir, "wine.csv")
	if err := os.WriteFile(wine, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	notes.Reset()
	Must(Load(wine, datasets.Options{TestPath: wine}))
	if !strings.Contains(notes.String(), "30 classes") || !strings.Contains(notes.String(), "is the label column right?") {
		t.Errorf("the summary with a class per value: %q", notes.String())
	}
}

// TestGoLiteral: the options of a suggested call are written as the Go
// literal a user would write, their non-zero fields only.
func TestGoLiteral(t *testing.T) {
	for _, c := range []struct {
		opt  datasets.Options
		want string
	}{
		{datasets.Options{}, "datasets.Options{}"},
		{datasets.Options{Path: "wine.csv", Scaling: datasets.ScaleStandardize, CSV: datasets.CSVOptions{Label: "0", Comma: ';'}},
			`datasets.Options{Path: "wine.csv", Scaling: datasets.ScaleStandardize, CSV: datasets.CSVOptions{Comma: 59, Label: "0"}}`},
		{datasets.Options{Split: datasets.SplitLarge, NoBias: true}, "datasets.Options{Split: datasets.Split(" + fmt.Sprint(int(datasets.SplitLarge)) + "), NoBias: true}"},
	} {
		if got := goLiteral(reflect.ValueOf(c.opt)); got != c.want {
			t.Errorf("goLiteral(%+v) = %s, want %s", c.opt, got, c.want)
		}
	}
}
