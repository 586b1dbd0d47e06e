package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
)

// rows writes n examples of a three-class problem in the CSV format,
// labelled or not.
func rows(n int, labelled bool) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		c := i % 3
		fmt.Fprintf(&b, "%g,%g", float64(c)+0.1*float64(i%5), float64(2-c)*0.5+0.05*float64(i%7))
		if labelled {
			fmt.Fprintf(&b, ",%s", []string{"setosa", "versicolor", "virginica"}[c])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// trained trains m on the CSV files of dir and returns the data, the spec
// and the solver.
func trained(t *testing.T, dir string, m run.Method, opt datasets.Options) (*datasets.Data, datasets.Spec, run.Solver) {
	t.Helper()
	train := filepath.Join(dir, "iris_train.csv")
	if err := os.WriteFile(train, []byte(rows(60, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "iris_test.csv"), []byte(rows(21, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := datasets.Spec{Name: train, Options: opt}.Abs()
	if err != nil {
		t.Fatal(err)
	}
	d, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.New(d.Train, run.WithTest(d.Test))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Current(); err != nil {
		t.Fatal(err)
	}
	return d, spec, s
}

// TestSaveLoadPredict: a model saved and loaded again predicts, without
// its training file, what the run predicts on the test file, and its
// loss there is the run's test loss; the same examples without labels get
// the same predictions.
func TestSaveLoadPredict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		method  run.Method
		opt     datasets.Options
		average bool
	}{
		{"bcfw standardized", solver.BCFW{Lambda: 0.01, Average: run.WeightedAverage}, datasets.Options{Scaling: datasets.ScaleStandardize}, true},
		{"kernel", kernel.BCFW{Lambda: 0.01, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}}, datasets.Options{NoBias: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d, spec, s := trained(t, dir, tc.method, tc.opt)
			m, err := model.New(s, d, spec, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "model.json")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(d.TrainPath); err != nil {
				t.Fatal(err)
			}
			got, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if !run.Same(got.Method(), s.Method()) || got.Passes != s.Passes() || got.Gap == nil || got.Lambda() != s.Lambda() {
				t.Fatalf("loaded %v, %v passes, gap %v; the run's %v, %v passes", got.Method(), got.Passes, got.Gap, s.Method(), s.Passes())
			}
			set, err := got.TestSet()
			if err != nil {
				t.Fatal(err)
			}
			if err := got.CheckTest(set); err != nil {
				t.Fatalf("the test file read again: %v", err)
			}
			pred, err := got.Predict(set, false)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := s.Predict(d.Test)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(pred, want, slices.Equal) {
				t.Fatalf("predicted %v, the run %v", pred, want)
			}
			last, _ := s.Last()
			if loss := meanLoss(set.Problem, pred); math.Abs(loss-last.TestLoss) > 1e-12 {
				t.Errorf("test loss %v, the run's %v", loss, last.TestLoss)
			}
			if tc.average {
				if _, err := got.Predict(set, true); err != nil {
					t.Fatal(err)
				}
			} else if _, err := got.Predict(set, true); err == nil {
				t.Error("averaged predictions of a run without averaging")
			}
			unlabelled := filepath.Join(dir, "new.csv")
			os.WriteFile(unlabelled, []byte(rows(21, false)), 0o644)
			plain, err := got.Open(unlabelled)
			if err != nil {
				t.Fatal(err)
			}
			again, err := got.Predict(plain, false)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Gold || !slices.EqualFunc(again, pred, slices.Equal) {
				t.Fatalf("without labels: gold %v, predicted %v, want %v", plain.Gold, again, pred)
			}
			// Changed test data is told apart; the training data is gone.
			os.WriteFile(d.TestPath, []byte(rows(22, true)), 0o644)
			changed, err := got.TestSet()
			if err != nil {
				t.Fatal(err)
			}
			if err := got.CheckTest(changed); err == nil {
				t.Error("a changed test file passes CheckTest")
			}
			if _, err := got.TrainSet(); err == nil {
				t.Error("TrainSet without the training file")
			}
		})
	}
}

func meanLoss(p oracles.Problem, pred [][]int32) float64 {
	sum := 0.0
	for i, y := range pred {
		sum += p.Loss(i, y)
	}
	return sum / float64(len(pred))
}

// TestReadRefuses: files that are not models of this format, or whose
// parts do not fit together, are refused with an error saying what.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	d, spec, s := trained(t, dir, solver.BCFW{Lambda: 0.1}, datasets.Options{})
	m, err := model.New(s, d, spec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Read(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("the model written: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &fields); err != nil {
		t.Fatal(err)
	}
	edit := func(key, value string) []byte {
		f := map[string]json.RawMessage{}
		for k, v := range fields {
			f[k] = v
		}
		if value == "" {
			delete(f, key)
		} else {
			f[key] = json.RawMessage(value)
		}
		b, _ := json.Marshal(f)
		return b
	}
	weights := string(fields["weights"])
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"older", edit("format", `"fwstruct-model/3"`), "made by an older fwstruct: train again"},
		{"other format", edit("format", `"x"`), `format "x"`},
		{"unknown field", edit("extra", `1`), `unknown field "extra"`},
		{"null weight", edit("weights", strings.Replace(weights, ",", ",null,", 1)), "a null in an array"},
		{"short weights", edit("weights", "[1,2]"), "2 weights for dimension"},
		{"no schema", edit("schema", ""), "no schema"},
		{"schema of other classes", edit("schema", `{"format":"csv","labels":["a","b"],"features":2,"bias":true}`), "for 2 classes of 3 features"},
		{"fingerprint", edit("train_fingerprint", `"n=3"`), "train_fingerprint"},
		{"method", edit("method", `{"method":"nope"}`), "nope"},
		{"not JSON", []byte("{"), "not a model file"},
	} {
		_, err := model.Read(bytes.NewReader(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.name == "older" && !errors.Is(err, model.ErrOlder) {
			t.Errorf("older: %v is not ErrOlder", err)
		}
	}
}

// TestKernelModelDuplicateIndex: a support vector with a feature index
// twice (a hand-edited file) is refused.
func TestKernelModelDuplicateIndex(t *testing.T) {
	dir := t.TempDir()
	d, spec, s := trained(t, dir, kernel.BCFW{Lambda: 0.1, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 1}}, datasets.Options{})
	m, err := model.New(s, d, spec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sv := &m.Kernel.SV[0]
	sv.Idx, sv.Val = []int32{0, 0}, []float64{1, 2}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Read(&buf); err == nil || !strings.Contains(err.Error(), "support vector 0") {
		t.Errorf("duplicate index: %v", err)
	}
}
