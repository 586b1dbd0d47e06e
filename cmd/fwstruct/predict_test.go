package main

import (
	"bufio"
	"fmt"
	"image"
	_ "image/jpeg" // the horses' masks
	_ "image/png"  // predict's masks
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/ssvmnb"
)

// evalValue returns the value eval printed for a metric ("test loss" or a
// metric's name) in its first block of results.
func evalValue(t *testing.T, out, name string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` +([-\d.]+|NaN)$`)
	if name == "test loss" {
		re = regexp.MustCompile(`(?m)^test loss ([\d.]+) `)
	}
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("eval printed no %s:\n%s", name, out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// lines returns the lines of a file (without the last newline).
func lines(t *testing.T, path string) []string {
	t.Helper()
	return strings.Split(strings.TrimSuffix(string(mustRead(t, path)), "\n"), "\n")
}

// predictCase is a task whose predictions, scored by the task's own
// scorer, must give what eval reports.
type predictCase struct {
	name  string
	train []string // fwstruct train flags (--model added)
	data  string   // the file predict and eval read ("": the model's test set)
	// plain is the file without gold labels (none: the format always has
	// them), whose predictions must be the same.
	plain  string
	metric string // the value of eval's output the scorer gives
	// score scores the file (or folder) predict wrote.
	score func(t *testing.T, out string) float64
	// digits is how many decimals eval prints that the scorer must match.
	digits int
}

// TestPredictScoredByEachTaskScorer: fwstruct predict writes each task's
// own output, with or without gold labels in its input; scored by the
// task's scorer (accuracy, Hamming loss, conlleval's chunk F1 as
// tools/peers computes it, the Hansards AER as wa_eval_align.pl computes
// it, per-letter errors, pixel accuracy of the masks), it gives what eval
// reports (issue 34 items 2 and 3).
func TestPredictScoredByEachTaskScorer(t *testing.T) {
	realData := os.Getenv("FWSTRUCT_DATA") // where wa_eval_align.pl may be
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := isolateData(t) // moves $HOME: the build of tools/peers keeps the build cache
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	dir := t.TempDir()
	cases := []predictCase{
		multiclassCase(t, dir),
		mulanCase(t, dir),
		chunkingCase(t, dir),
		hansardsCase(t, root, realData),
		ocrCase(t, dir),
		horsesCase(t, dir),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(dir, tc.name+".json")
			if code, _, stderr := runBinary(t, append([]string{"train", "--quiet", "--model", model}, tc.train...)...); code != 0 {
				t.Fatal(stderr)
			}
			args := []string{"--model", model}
			if tc.data != "" {
				args = append(args, "--data", tc.data)
			}
			code, evalOut, stderr := runBinary(t, append([]string{"eval"}, args...)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			out := filepath.Join(dir, tc.name+".out")
			code, stdout, stderr := runBinary(t, append([]string{"predict", "--out", out}, args...)...)
			if code != 0 || !strings.Contains(stdout, "predicted ") {
				t.Fatalf("predict: exit %d, %s %s", code, stdout, stderr)
			}
			want, got := evalValue(t, evalOut, tc.metric), tc.score(t, out)
			t.Logf("%s: scorer %.6f, eval %.6f", tc.metric, got, want)
			if math.Abs(got-want) > 0.6*math.Pow(10, -float64(tc.digits)) {
				t.Fatalf("the %s of predict's output scored by the task's scorer is %.8f, eval prints %.*f:\n%s", tc.metric, got, tc.digits, want, evalOut)
			}
			if tc.plain == "" {
				return
			}
			plainOut := filepath.Join(dir, tc.name+"-plain.out")
			code, stdout, stderr = runBinary(t, "predict", "--model", model, "--data", tc.plain, "--out", plainOut)
			if code != 0 || !strings.Contains(stdout, "(no gold labels)") {
				t.Fatalf("predict without labels: exit %d, %s %s", code, stdout, stderr)
			}
			withGold, without := lines(t, out), lines(t, plainOut)
			if tc.name == "chunking" { // the gold column is left out: compare the last
				for k := range withGold {
					withGold[k] = lastField(withGold[k])
					without[k] = lastField(without[k])
				}
			}
			if !slices.Equal(withGold, without) {
				t.Fatalf("predictions without gold labels differ:\n%s\n---\n%s", strings.Join(withGold, "\n"), strings.Join(without, "\n"))
			}
			code, _, stderr = runBinary(t, "eval", "--model", model, "--data", tc.plain)
			if code != 1 || !strings.Contains(stderr, "holds no gold labels: nothing to score") {
				t.Errorf("eval of a file without labels: exit %d, %s", code, stderr)
			}
		})
	}
}

// predictions returns the lines of predict's output, which must be n.
func predictions(t *testing.T, out string, n int) []string {
	t.Helper()
	pred := lines(t, out)
	if len(pred) != n {
		t.Fatalf("%d predictions for %d examples", len(pred), n)
	}
	return pred
}

func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// multiclassCase: a CSV of named classes; predict writes a class name a
// line; accuracy against the test file's labels is 1 - eval's test loss.
func multiclassCase(t *testing.T, dir string) predictCase {
	rng := rand.New(rand.NewPCG(7, 7))
	names := []string{"setosa", "versicolor", "virginica"}
	write := func(name string, n int, labelled bool) (string, []string) {
		var b strings.Builder
		var gold []string
		b.WriteString("x,y")
		if labelled {
			b.WriteString(",species")
		}
		b.WriteString("\n")
		for i := 0; i < n; i++ {
			c := rng.IntN(3)
			fmt.Fprintf(&b, "%.3f,%.3f", float64(c)+0.8*rng.NormFloat64(), float64(2-c)+0.8*rng.NormFloat64())
			if labelled {
				b.WriteString("," + names[c])
			}
			b.WriteString("\n")
			gold = append(gold, names[c])
		}
		return writeTestFile(t, filepath.Join(dir, name), []byte(b.String())), gold
	}
	train, _ := write("iris_train.csv", 90, true)
	test, gold := write("iris_test.csv", 45, true)
	// The same rows without the label column.
	var plain strings.Builder
	for _, line := range lines(t, test) {
		plain.WriteString(line[:strings.LastIndexByte(line, ',')] + "\n")
	}
	return predictCase{name: "multiclass", train: []string{"--data", train, "--passes", "20", "--scale", "standardize"},
		plain: writeTestFile(t, filepath.Join(dir, "iris_new.csv"), []byte(plain.String())), metric: "test loss", digits: 6,
		score: func(t *testing.T, out string) float64 {
			pred := predictions(t, out, len(gold))
			right := 0
			for i := range pred {
				if !slices.Contains(names, pred[i]) {
					t.Fatalf("line %d: %q is no class name", i+1, pred[i])
				}
				if pred[i] == gold[i] {
					right++
				}
			}
			return 1 - float64(right)/float64(len(gold)) // the error rate, eval's test loss
		}}
}

// mulanCase: predict writes the predicted label names of an example a
// line; their Hamming loss against the test file's labels is eval's.
func mulanCase(t *testing.T, dir string) predictCase {
	sub := filepath.Join(dir, "mulan")
	os.MkdirAll(sub, 0o755)
	train := writeToyMULAN(t, sub)
	test := strings.Replace(train, "-train.arff", "-test.arff", 1)
	var gold [][]string // the relevant labels of each test example
	var plain strings.Builder
	for _, line := range lines(t, test) {
		switch {
		case strings.HasPrefix(line, "@attribute l"):
			continue
		case strings.HasPrefix(line, "@"), line == "":
			plain.WriteString(line + "\n")
			continue
		}
		f := strings.Split(line, ",")
		var rel []string
		for l, v := range f[3:] {
			if v == "1" {
				rel = append(rel, fmt.Sprintf("l%d", l))
			}
		}
		gold = append(gold, rel)
		plain.WriteString(strings.Join(f[:3], ",") + "\n")
	}
	return predictCase{name: "multi-label", train: []string{"--data", train, "--method", "soft", "--lambda", "0.05", "--passes", "10"},
		plain: writeTestFile(t, filepath.Join(sub, "new.arff"), []byte(plain.String())), metric: "hamming_loss", digits: 6,
		score: func(t *testing.T, out string) float64 {
			pred := predictions(t, out, len(gold))
			wrong := 0
			for i := range pred {
				got := strings.Fields(pred[i])
				for l := 0; l < 4; l++ {
					name := fmt.Sprintf("l%d", l)
					if slices.Contains(got, name) != slices.Contains(gold[i], name) {
						wrong++
					}
				}
			}
			return float64(wrong) / float64(4*len(gold))
		}}
}

// chunkingCase: predict writes conlleval's input; tools/peers' conlleval
// scorer gives eval's chunk F1.
func chunkingCase(t *testing.T, dir string) predictCase {
	sents := [][]string{
		{"He PRP B-NP", "reckons VBZ B-VP", "the DT B-NP", "current JJ I-NP", "account NN I-NP", "deficit NN I-NP"},
		{"The DT B-NP", "dog NN I-NP", "ran VBD B-VP", "to TO B-PP", "the DT B-NP", "park NN I-NP"},
		{"Prices NNS B-NP", "rose VBD B-VP", "in IN B-PP", "the DT B-NP", "market NN I-NP"},
	}
	var train, test, plain strings.Builder
	for k := 0; k < 30; k++ {
		s := sents[k%3]
		for _, tok := range s {
			train.WriteString(tok + "\n")
		}
		train.WriteString("\n")
	}
	for _, s := range [][]string{sents[0], {"The DT B-NP", "current JJ I-NP", "deficit NN I-NP", "rose VBD B-VP"}, sents[2]} {
		for _, tok := range s {
			test.WriteString(tok + "\n")
			plain.WriteString(tok[:strings.LastIndexByte(tok, ' ')] + "\n")
		}
		test.WriteString("\n")
		plain.WriteString("\n")
	}
	trainPath := writeTestFile(t, filepath.Join(dir, "chunks", "train.txt"), []byte(train.String()))
	writeTestFile(t, filepath.Join(dir, "chunks", "test.txt"), []byte(test.String()))
	peers := filepath.Join(t.TempDir(), "peers")
	return predictCase{name: "chunking", train: []string{"--data", "conll", "--data-path", trainPath, "--passes", "10", "--lambda", "0.1"},
		plain: writeTestFile(t, filepath.Join(dir, "chunks", "new.txt"), []byte(plain.String())), metric: "chunk F1 %",
		score: func(t *testing.T, out string) float64 {
			if b, err := exec.Command("go", "build", "-o", peers, "github.com/fwstruct/fwstruct/tools/peers").CombinedOutput(); err != nil {
				t.Fatalf("go build tools/peers: %v\n%s", err, b)
			}
			b, err := exec.Command(peers, "chunkf1", "-conlleval", out).CombinedOutput()
			if err != nil {
				t.Fatalf("peers chunkf1: %v\n%s", err, b)
			}
			m := regexp.MustCompile(`^chunk F1 ([\d.]+) `).FindSubmatch(b)
			if m == nil {
				t.Fatalf("peers chunkf1 printed %s", b)
			}
			v, _ := strconv.ParseFloat(string(m[1]), 64)
			return v
		}, digits: 2}
}

// hansardsCase: predict writes the links of the test pairs as "snum e f";
// their AER against the gold links, computed as wa_eval_align.pl does
// (and by the script itself when $FWSTRUCT_DATA has it and perl runs), is
// eval's.
func hansardsCase(t *testing.T, root, realData string) predictCase {
	dir := filepath.Join(root, "hansards")
	if err := datasets.WriteSyntheticHansards(dir, datasets.SyntheticHansardsConfig{Gold: 130, Unaligned: 800, MaxWords: 5, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	// The test pairs are the gold pairs after the first 100.
	type link struct{ snum, e, f int }
	sure, possible := map[link]bool{}, map[link]bool{}
	for _, line := range lines(t, filepath.Join(dir, datasets.HansardsLinks)) {
		f := strings.Fields(line)
		var l link
		l.snum, _ = strconv.Atoi(f[0])
		l.e, _ = strconv.Atoi(f[1])
		l.f, _ = strconv.Atoi(f[2])
		if l.snum <= 100 || l.e == 0 || l.f == 0 {
			continue
		}
		possible[l] = true
		if len(f) < 4 || f[3] == "S" {
			sure[l] = true
		}
	}
	return predictCase{name: "word alignment", train: []string{"--data", "hansards", "--passes", "10", "--lambda", "0.01"},
		metric: "AER", digits: 6,
		score: func(t *testing.T, out string) float64 {
			a := map[link]bool{}
			for _, line := range lines(t, out) {
				f := strings.Fields(line)
				if len(f) != 3 {
					t.Fatalf("link line %q: want snum e f", line)
				}
				var l link
				l.snum, _ = strconv.Atoi(f[0])
				l.e, _ = strconv.Atoi(f[1])
				l.f, _ = strconv.Atoi(f[2])
				if l.snum <= 100 {
					t.Fatalf("a link of training pair %d", l.snum)
				}
				a[l] = true
			}
			inS, inP := 0, 0
			for l := range a {
				if sure[l] {
					inS++
				}
				if possible[l] || sure[l] {
					inP++
				}
			}
			aer := 1 - float64(inS+inP)/float64(len(a)+len(sure))
			checkWithScorer(t, realData, out, dir, aer)
			return aer
		}}
}

// checkWithScorer runs wa_eval_align.pl, when $FWSTRUCT_DATA (the real
// data's folder) has it and perl is installed, on the links and the gold
// links of the test pairs, and compares its AER with aer.
func checkWithScorer(t *testing.T, realData, links, dir string, aer float64) {
	script := filepath.Join(realData, "hansards", "wa_eval_align.pl")
	if _, err := os.Stat(script); err != nil {
		t.Log("wa_eval_align.pl not found: the AER computed as it does only")
		return
	}
	if _, err := exec.LookPath("perl"); err != nil {
		t.Log("perl not found: the AER computed as wa_eval_align.pl does only")
		return
	}
	var gold strings.Builder
	for _, line := range lines(t, filepath.Join(dir, datasets.HansardsLinks)) {
		if n, _ := strconv.Atoi(strings.Fields(line)[0]); n > 100 {
			gold.WriteString(line + "\n")
		}
	}
	goldPath := writeTestFile(t, filepath.Join(t.TempDir(), "gold.wa"), []byte(gold.String()))
	b, err := exec.Command("perl", script, goldPath, links).CombinedOutput()
	if err != nil {
		t.Fatalf("wa_eval_align.pl: %v\n%s", err, b)
	}
	m := regexp.MustCompile(`AER\s+=\s+([\d.]+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("cannot read the scorer's output:\n%s", b)
	}
	if got := string(m[1]); got != fmt.Sprintf("%.4f", aer) {
		t.Fatalf("wa_eval_align.pl prints AER %s, ours %.6f", got, aer)
	}
}

// ocrCase: predict writes a word a line; the mean over words of the
// fraction of wrong letters is eval's test loss.
func ocrCase(t *testing.T, dir string) predictCase {
	train, test, err := datasets.Synthetic(datasets.SyntheticConfig{TrainWords: 60, TestWords: 30, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	id := 0
	write := func(words []datasets.Word, fold int) {
		for w, word := range words {
			for k, letter := range word.Letters {
				id++
				next := id + 1
				if k == len(word.Letters)-1 {
					next = -1
				}
				fmt.Fprintf(&b, "%d\t%c\t%d\t%d\t%d\t%d", id, 'a'+letter, next, 1000*fold+w+1, k+1, fold)
				for _, p := range word.Pixels[k] {
					fmt.Fprintf(&b, "\t%d", p)
				}
				b.WriteByte('\n')
			}
		}
	}
	write(train, 0)
	write(test, 1)
	letters := writeTestFile(t, filepath.Join(dir, "ocr", "letter.data"), []byte(b.String()))
	return predictCase{name: "ocr", train: []string{"--data", letters, "--passes", "10", "--lambda", "0.01"}, metric: "test loss", digits: 6,
		score: func(t *testing.T, out string) float64 {
			pred := predictions(t, out, len(test))
			sum := 0.0
			for i, word := range test {
				if len(pred[i]) != len(word.Letters) {
					t.Fatalf("word %d: %q for %d letters", i, pred[i], len(word.Letters))
				}
				wrong := 0
				for k, l := range word.Letters {
					if pred[i][k] != byte('a'+l) {
						wrong++
					}
				}
				sum += float64(wrong) / float64(len(word.Letters))
			}
			return sum / float64(len(test))
		}}
}

// horsesCase: predict writes a PNG mask an image; their pixel accuracy
// against the figure/ground masks is eval's.
func horsesCase(t *testing.T, dir string) predictCase {
	horses, err := gendata.Horses(filepath.Join(dir, "horses"), 150, 3)
	if err != nil {
		t.Fatal(err)
	}
	return predictCase{name: "segmentation", train: []string{"--data", "horses", "--data-path", horses, "--passes", "1", "--lambda", "10", "--method", "bcfw"},
		metric: "pixel_accuracy", digits: 6,
		score: func(t *testing.T, out string) float64 {
			right, total := 0, 0
			for k := 148; k <= 150; k++ { // the test images
				pred := decodeImage(t, filepath.Join(out, fmt.Sprintf("horse%03d.png", k)))
				gold := decodeImage(t, filepath.Join(horses, "figure_ground", fmt.Sprintf("horse%03d.jpg", k)))
				if pred.Bounds() != gold.Bounds() {
					t.Fatalf("mask %d of %v, image %v", k, pred.Bounds(), gold.Bounds())
				}
				for y := gold.Bounds().Min.Y; y < gold.Bounds().Max.Y; y++ {
					for x := gold.Bounds().Min.X; x < gold.Bounds().Max.X; x++ {
						p, _, _, _ := pred.At(x, y).RGBA()
						g, _, _, _ := gold.At(x, y).RGBA()
						if (p >= 0x8000) == (g >= 0x8000) {
							right++
						}
						total++
					}
				}
			}
			return float64(right) / float64(total)
		}}
}

func decodeImage(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(bufio.NewReader(f))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// TestNotebookAndCommandLineShareModels: a notebook run saved with
// ssvmnb's SaveModel is a model file fwstruct eval and predict read (its
// test loss is the run's), and a model written by fwstruct train loads in
// a notebook with its test set (issue 34 item 2).
func TestNotebookAndCommandLineShareModels(t *testing.T) {
	isolateData(t)
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 60; i++ {
		c := i % 3
		fmt.Fprintf(&b, "%g,%g,%s\n", float64(c)+0.3*float64(i%5), 0.2*float64(i%7), []string{"a", "b", "c"}[c])
	}
	train := writeTestFile(t, filepath.Join(dir, "n_train.csv"), []byte(b.String()))
	writeTestFile(t, filepath.Join(dir, "n_test.csv"), []byte(strings.Join(strings.SplitAfter(b.String(), "\n")[:30], "")))
	data, err := ssvmnb.Load(train, datasets.Options{Scaling: datasets.ScaleStandardize})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ssvmnb.New("nb", data, solver.BCFW{Lambda: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(5); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "nb.json")
	if err := tr.SaveModel(saved); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runBinary(t, "eval", "--model", saved)
	if code != 0 {
		t.Fatal(stderr)
	}
	if got, want := evalValue(t, out, "test loss"), tr.Last().TestLoss; math.Abs(got-want) > 1e-6 {
		t.Errorf("eval of the notebook's model: test loss %v, the run's %v", got, want)
	}
	if code, _, stderr := runBinary(t, "predict", "--model", saved, "--out", filepath.Join(dir, "nb.out")); code != 0 {
		t.Fatal(stderr)
	}
	if got := lines(t, filepath.Join(dir, "nb.out")); len(got) != 30 || !slices.Contains([]string{"a", "b", "c"}, got[0]) {
		t.Errorf("predictions of the notebook's model: %q", got)
	}
	// The other way: a model of the command line in a notebook.
	cli := filepath.Join(dir, "cli.json")
	if code, _, stderr := runBinary(t, "train", "--data", train, "--passes", "5", "--quiet", "--model", cli); code != 0 {
		t.Fatal(stderr)
	}
	_, out, _ = runBinary(t, "eval", "--model", cli)
	m, err := ssvmnb.LoadModel(cli)
	if err != nil {
		t.Fatal(err)
	}
	if m.Test == nil || m.Test.Len() != 30 {
		t.Fatalf("the CLI model's test set in the notebook: %v", m.Test)
	}
	if got, want := oracles.MeanLoss(m.Test, m.Weights), evalValue(t, out, "test loss"); math.Abs(got-want) > 1e-6 {
		t.Errorf("the CLI model in a notebook: test loss %v, eval's %v", got, want)
	}
	if err := ssvmnb.ShowPredictions(m.Test, m.Weights, 0, 1); err != nil {
		t.Error(err)
	}
}
