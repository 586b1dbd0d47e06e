// Command peers prepares the side-by-side comparisons of fwstruct with
// liblinear and libsvm (docs/performance.md, "fwstruct vs the specialist tools")
// and scores the peers' models by fwstruct's objective.
//
//	peers data -out DIR
//
// writes, from the USPS digits of $FWSTRUCT_DATA/usps, the svmlight files
// DIR/usps.svm and DIR/usps.svm.t (7,291 / 2,007 digits, 256 grey values in
// [-1, 1]) and the digits-like files DIR/digits.svm and DIR/digits.svm.t: the
// first 1,200 training digits (and every test digit) pooled 2x2 to 8x8 and
// mapped to integers 0..16, like sklearn's digits (8x8, 0..16, 1,797
// digits), which is not available offline.
//
//	peers objective -data FILE -model MODEL -lambda L
//
// prints fwstruct's primal objective lambda/2 |w|^2 + 1/n sum_i max_k
// ([k != y_i] + <w_k - w_{y_i}, x_i>) of a liblinear Crammer-Singer model
// (liblinear-train -s 4 -c 1/(lambda n) -B 1) on the svmlight FILE, so
// that its accuracy can be compared with fwstruct's certified gap.
//
//	peers chunkf1 -gold test.crfsuite.txt -pred tags.txt
//
// prints the chunk F1 (conlleval's, as fwstruct eval reports it) of the
// tags CRFsuite's `crfsuite tag` wrote for its data file;
//
//	peers chunkf1 -conlleval predictions.txt
//
// that of a file in conlleval's own input format (what fwstruct predict
// writes for column-format data): the last two fields of every token line
// are the gold and the predicted tag, blank lines (and lines whose first
// field is -DOCSTART-) end the sentences.
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("want a command: data or objective")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	switch args[0] {
	case "data":
		out := fs.String("out", ".", "output folder")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return writeData(*out)
	case "objective":
		data := fs.String("data", "", "svmlight training file")
		model := fs.String("model", "", "liblinear model file (-s 4)")
		lambda := fs.Float64("lambda", 0, "fwstruct's lambda (> 0)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if !(*lambda > 0) {
			return fmt.Errorf("-lambda: want a positive number, got %v", *lambda)
		}
		p, err := objective(*data, *model, *lambda)
		if err != nil {
			return err
		}
		fmt.Printf("%.12g\n", p)
		return nil
	case "chunkf1":
		gold := fs.String("gold", "", "CRFsuite data file (tag, tab, attributes per token; blank lines between sentences)")
		pred := fs.String("pred", "", "the output of crfsuite tag (a tag per line, blank lines between sentences)")
		both := fs.String("conlleval", "", "a file in conlleval's input format (gold and predicted tags in the last two fields), instead of -gold and -pred")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var c datasets.ChunkCounts
		var err error
		if *both != "" {
			c, err = conllevalF1(*both)
		} else {
			c, err = chunkF1(*gold, *pred)
		}
		if err != nil {
			return err
		}
		fmt.Printf("chunk F1 %.2f (precision %.2f, recall %.2f), token accuracy %.2f\n", c.F1(), c.Precision(), c.Recall(), c.Accuracy())
		return nil
	}
	return fmt.Errorf("unknown command %q (want data, objective or chunkf1)", args[0])
}

// chunkF1 scores CRFsuite's tags pred against the gold tags of its data
// file gold by conlleval's chunk counts (datasets.ChunkEval).
func chunkF1(gold, pred string) (datasets.ChunkCounts, error) {
	g, err := sentenceTags(gold)
	if err != nil {
		return datasets.ChunkCounts{}, err
	}
	p, err := sentenceTags(pred)
	if err != nil {
		return datasets.ChunkCounts{}, err
	}
	if len(g) != len(p) {
		return datasets.ChunkCounts{}, fmt.Errorf("%s has %d sentences, %s %d", gold, len(g), pred, len(p))
	}
	var e datasets.ChunkEval
	for k := range g {
		if len(g[k]) != len(p[k]) {
			return datasets.ChunkCounts{}, fmt.Errorf("sentence %d: %d gold tags, %d predicted", k+1, len(g[k]), len(p[k]))
		}
		e.Add(g[k], p[k])
	}
	return e.Counts(), nil
}

// conllevalF1 scores a file in conlleval's input format: the last two
// fields of a token line are its gold and guessed tags; a blank line or a
// first field -DOCSTART- ends a sentence.
func conllevalF1(file string) (datasets.ChunkCounts, error) {
	f, err := os.Open(file)
	if err != nil {
		return datasets.ChunkCounts{}, err
	}
	defer f.Close()
	var e datasets.ChunkEval
	var gold, guess []string
	flush := func() {
		if len(gold) > 0 {
			e.Add(gold, guess)
			gold, guess = nil, nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || fields[0] == "-DOCSTART-":
			flush()
		case len(fields) < 2:
			return datasets.ChunkCounts{}, fmt.Errorf("%s:%d: one field, want the gold and the predicted tag last", file, line)
		default:
			gold = append(gold, fields[len(fields)-2])
			guess = append(guess, fields[len(fields)-1])
		}
	}
	flush()
	return e.Counts(), sc.Err()
}

// sentenceTags reads the first tab-separated field of every line of file,
// a sentence per block of non-blank lines.
func sentenceTags(file string) ([][]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	var cur []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out, cur = append(out, cur), nil
			}
			continue
		}
		tag, _, _ := strings.Cut(line, "\t")
		cur = append(cur, tag)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, sc.Err()
}

type example struct {
	label int
	x     []float64 // dense
}

func readUSPS(path string) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []example
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		tok := strings.Fields(sc.Text())
		if len(tok) == 0 {
			continue
		}
		if len(tok) != 257 {
			return nil, fmt.Errorf("%s:%d: want a label and 256 values, got %d fields", path, line, len(tok))
		}
		lab, err := strconv.ParseFloat(tok[0], 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: label: %w", path, line, err)
		}
		e := example{label: int(lab), x: make([]float64, 256)}
		for j := range e.x {
			if e.x[j], err = strconv.ParseFloat(tok[j+1], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: value %d: %w", path, line, j+1, err)
			}
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// pool maps a 16x16 USPS digit in [-1, 1] to an 8x8 one in 0..16.
func pool(x []float64) []float64 {
	out := make([]float64, 64)
	for r := 0; r < 8; r++ {
		for c := 0; c < 8; c++ {
			var s float64
			for dr := 0; dr < 2; dr++ {
				for dc := 0; dc < 2; dc++ {
					s += x[(2*r+dr)*16+2*c+dc]
				}
			}
			out[r*8+c] = math.Round((s/4 + 1) * 8)
		}
	}
	return out
}

func writeSVM(path string, ex []example) error {
	var b strings.Builder
	for _, e := range ex {
		b.WriteString(strconv.Itoa(e.label))
		for j, v := range e.x {
			if v != 0 {
				fmt.Fprintf(&b, " %d:%g", j+1, v)
			}
		}
		b.WriteByte('\n')
	}
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}

func writeData(out string) error {
	root := os.Getenv("FWSTRUCT_DATA")
	if root == "" {
		return errors.New("FWSTRUCT_DATA is not set (the folder holding usps/zip.train.gz)")
	}
	train, err := readUSPS(filepath.Join(root, "usps", "zip.train.gz"))
	if err != nil {
		return err
	}
	test, err := readUSPS(filepath.Join(root, "usps", "zip.test.gz"))
	if err != nil {
		return err
	}
	pooled := func(ex []example) []example {
		o := make([]example, len(ex))
		for i, e := range ex {
			o[i] = example{e.label, pool(e.x)}
		}
		return o
	}
	for _, f := range []struct {
		name string
		ex   []example
	}{{"usps.svm", train}, {"usps.svm.t", test}, {"digits.svm", pooled(train[:1200])}, {"digits.svm.t", pooled(test)}} {
		if err := writeSVM(filepath.Join(out, f.name), f.ex); err != nil {
			return err
		}
	}
	return nil
}

// objective reads a liblinear -s 4 model and evaluates fwstruct's primal.
func objective(dataPath, modelPath string, lambda float64) (float64, error) {
	labels, w, bias, err := readModel(modelPath)
	if err != nil {
		return 0, err
	}
	class := map[int]int{}
	for k, l := range labels {
		class[l] = k
	}
	K := len(labels)
	f, err := os.Open(dataPath)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var sum float64
	n := 0
	scores := make([]float64, K)
	for line := 1; sc.Scan(); line++ {
		tok := strings.Fields(sc.Text())
		if len(tok) == 0 {
			continue
		}
		lab, err := strconv.Atoi(tok[0])
		if err != nil {
			return 0, fmt.Errorf("%s:%d: label: %w", dataPath, line, err)
		}
		yi, ok := class[lab]
		if !ok {
			return 0, fmt.Errorf("%s:%d: label %d not in the model", dataPath, line, lab)
		}
		clear(scores)
		for _, t := range tok[1:] {
			is, vs, ok := strings.Cut(t, ":")
			j, err1 := strconv.Atoi(is)
			v, err2 := strconv.ParseFloat(vs, 64)
			if !ok || err1 != nil || err2 != nil || j < 1 || j > len(w)-boolInt(bias) {
				return 0, fmt.Errorf("%s:%d: bad feature %q", dataPath, line, t)
			}
			for k := range scores {
				scores[k] += v * w[j-1][k]
			}
		}
		if bias {
			for k := range scores {
				scores[k] += w[len(w)-1][k]
			}
		}
		best := math.Inf(-1)
		for k, s := range scores {
			if k != yi {
				s++
			}
			best = max(best, s-scores[yi])
		}
		sum += best
		n++
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	var nrm float64
	for _, row := range w {
		for _, v := range row {
			nrm += v * v
		}
	}
	return lambda/2*nrm + sum/float64(n), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readModel reads liblinear's model file: its labels, the weight rows (one
// per feature, then the bias's) and whether it has a bias.
func readModel(path string) (labels []int, w [][]float64, bias bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	nf := -1
	for k, line := range lines {
		tok := strings.Fields(line)
		if len(tok) == 0 {
			continue
		}
		switch tok[0] {
		case "solver_type":
			if len(tok) != 2 || tok[1] != "MCSVM_CS" {
				return nil, nil, false, fmt.Errorf("%s:%d: want solver_type MCSVM_CS (liblinear -s 4)", path, k+1)
			}
		case "label":
			for _, t := range tok[1:] {
				l, err := strconv.Atoi(t)
				if err != nil {
					return nil, nil, false, fmt.Errorf("%s:%d: label %q", path, k+1, t)
				}
				labels = append(labels, l)
			}
		case "nr_feature":
			if len(tok) != 2 {
				return nil, nil, false, fmt.Errorf("%s:%d: nr_feature", path, k+1)
			}
			if nf, err = strconv.Atoi(tok[1]); err != nil {
				return nil, nil, false, fmt.Errorf("%s:%d: nr_feature: %w", path, k+1, err)
			}
		case "bias":
			b, err := strconv.ParseFloat(tok[1], 64)
			if err != nil {
				return nil, nil, false, fmt.Errorf("%s:%d: bias: %w", path, k+1, err)
			}
			bias = b > 0
		case "w":
			rows := nf + boolInt(bias)
			if nf < 0 || len(lines) < k+1+rows {
				return nil, nil, false, fmt.Errorf("%s: want %d weight rows after w", path, rows)
			}
			for r := 0; r < rows; r++ {
				f := strings.Fields(lines[k+1+r])
				if len(f) != len(labels) {
					return nil, nil, false, fmt.Errorf("%s:%d: want %d weights, got %d", path, k+2+r, len(labels), len(f))
				}
				row := make([]float64, len(f))
				for c, t := range f {
					if row[c], err = strconv.ParseFloat(t, 64); err != nil {
						return nil, nil, false, fmt.Errorf("%s:%d: weight %q", path, k+2+r, t)
					}
				}
				w = append(w, row)
			}
			return labels, w, bias, nil
		}
	}
	return nil, nil, false, fmt.Errorf("%s: no weights (no line w)", path)
}
