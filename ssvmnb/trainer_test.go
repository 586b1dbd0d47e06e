package ssvmnb

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// family is one solver family (or variant) of the trainer's contract test.
type familyCase struct {
	name string
	data func(t *testing.T) *Data
	cfg  any
	// lambda says what SetLambda does: "both" (either direction), "down"
	// (decrease only) or "" (refused, saying why).
	lambda string
}

func chainData(t *testing.T) *Data {
	tr, te := synthetic(t)
	return NewData("synthetic", tr, te)
}

// factorData is a small multi-label model as Load gives factor-graph data:
// Exact views.
func factorData(t *testing.T) *Data {
	tr, te := multiLabel(t, 16, 4, 3, 1)
	a, err := factorgraph.NewExact(tr, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := factorgraph.NewExact(te, 0)
	if err != nil {
		t.Fatal(err)
	}
	return NewData("multilabel", a, b)
}

func multiclassData(*testing.T) *Data {
	return NewData("multiclass", oraclestest.Multiclass(40, 3, 4, 1), oraclestest.Multiclass(30, 3, 4, 2))
}

var families = []familyCase{
	{"bcfw", chainData, solver.Config{Lambda: 0.01, Seed: 3, GapEvery: 2}, "both"},
	{"bcfw-gap-pairwise-cache", chainData, solver.Config{Lambda: 0.01, Seed: 3, GapEvery: 2, Sampling: run.GapSampling,
		Step: solver.Pairwise, Cache: solver.Cache{Enabled: true}, Averaging: true}, "both"},
	{"mp-bcfw", chainData, solver.Config{Lambda: 0.01, Seed: 3, GapEvery: 2, Sampling: run.Permutation,
		MultiPlane: solver.MultiPlane{Enabled: true, Rule: solver.RuleCost, CostRatio: 40}}, "both"},
	{"fw", chainData, solver.Config{Lambda: 0.01, Algorithm: run.FW}, "both"},
	{"ssg", chainData, solver.Config{Lambda: 0.01, Seed: 3, Algorithm: run.SSG, GapEvery: 2}, "both"},
	{"cp", chainData, solver.Config{Lambda: 0.01, Algorithm: run.CuttingPlane}, "both"},
	{"soft", factorData, soft.Config{Lambda: 0.05, Rho: 1, GapEvery: 2, Seed: 4}, "both"},
	{"kernel", multiclassData, kernel.Config{Lambda: 0.05, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.3}, GapEvery: 2, Seed: 2}, "both"},
}

// gapPasses returns the exact gap passes of a trace
// (solver times aside), which split runs share with whole runs (a split run has one more
// observe-only point, the end of each part).
func gapPasses(tr []run.Point) string {
	var r []string
	for _, p := range tr {
		if p.Refresh {
			p.Seconds, p.OracleTimeShare = 0, 0 // measured times
			r = append(r, fmt.Sprint(p))
		}
	}
	return strings.Join(r, "\n")
}

// sameIterate fails unless two trainers hold the same iterate: bitwise
// equal weights, and for kernel runs the same evaluation.
func sameIterate(t *testing.T, a, b *Trainer) {
	t.Helper()
	sameWeights(t, a, b)
	pa, pb := a.Current(), b.Current()
	if pa.Pass != pb.Pass || fmt.Sprint(pa.Primal, pa.Gap, pa.TestLoss) != fmt.Sprint(pb.Primal, pb.Gap, pb.TestLoss) {
		t.Fatalf("%s and %s: pass %v vs %v, primal %v vs %v, gap %v vs %v", a.Name, b.Name, pa.Pass, pb.Pass, pa.Primal, pb.Primal, pa.Gap, pb.Gap)
	}
}

// endsAtCurrent fails unless the trace ends with an exact evaluation of
// the iterate the run stopped at.
func endsAtCurrent(t *testing.T, tn *Trainer) {
	t.Helper()
	tr := tn.Trace()
	last := tr[len(tr)-1]
	if last.Steps != tn.eng.Steps() || last.Pass != tn.Passes() || math.IsNaN(last.Primal) {
		t.Fatalf("%s: trace ends at step %d pass %v primal %v; the run is at step %d pass %v", tn.Name, last.Steps, last.Pass, last.Primal, tn.eng.Steps(), tn.Passes())
	}
	if cur := tn.Current(); fmt.Sprint(cur) != fmt.Sprint(last) || len(tn.Trace()) != len(tr) {
		t.Fatalf("%s: Current %+v is not the last point %+v", tn.Name, cur, last)
	}
}

// TestTrainerContract: every family keeps the trainer's contract. A run
// split into Run calls (with a save and load between them, and across
// notebook cells through session files) equals the whole run, every Run
// ends with an exact evaluation of its final iterate, a fork with the
// same configuration continues as its parent, and SetLambda works in the
// directions the family allows, with an error saying why otherwise.
func TestTrainerContract(t *testing.T) {
	for _, fc := range families {
		t.Run(fc.name, func(t *testing.T) {
			isolated(t)
			data := fc.data(t)
			whole, err := New("whole", data, fc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := whole.Run(7); err != nil {
				t.Fatal(err)
			}
			endsAtCurrent(t, whole)

			// Split: Run(3) + save/load + Run(4).
			split, _ := New("split", data, fc.cfg)
			if _, err := split.Run(3); err != nil {
				t.Fatal(err)
			}
			endsAtCurrent(t, split)
			var buf bytes.Buffer
			if err := split.Save(&buf); err != nil {
				t.Fatal(err)
			}
			loaded, err := LoadTrainer(&buf, data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loaded.Run(4); err != nil {
				t.Fatal(err)
			}
			endsAtCurrent(t, loaded)
			sameIterate(t, whole, loaded)
			if a, b := gapPasses(whole.Trace()), gapPasses(loaded.Trace()); a != b {
				t.Fatalf("gap passes differ:\n%s\n--\n%s", a, b)
			}

			// Cells: each a fresh program asking the session for the run.
			for cell, passes := range []float64{2, 1, 4} {
				s, err := Session("run", data, fc.cfg)
				if err != nil {
					t.Fatalf("cell %d: %v", cell, err)
				}
				if _, err := s.Run(passes); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Session("run", data, fc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sameIterate(t, whole, s)
			r, err := Resume("run")
			if err == nil || !strings.Contains(err.Error(), "not on data loaded by name") {
				t.Fatalf("Resume of a run on problems built by hand: %v, %v", r, err)
			}

			// Fork with the same configuration: the run continued under
			// another name.
			f, err := s.Fork("fork", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tn := range []*Trainer{s, f} {
				if _, err := tn.Run(2); err != nil {
					t.Fatal(err)
				}
			}
			sameIterate(t, s, f)

			// SetLambda both ways.
			lambda := s.Lambda()
			errDown := s.SetLambda(lambda / 2)
			switch fc.lambda {
			case "both", "down":
				if errDown != nil {
					t.Fatal(errDown)
				}
				if _, err := s.Run(1); err != nil {
					t.Fatal(err)
				}
				endsAtCurrent(t, s)
				if p := s.Current(); p.Lambda != lambda/2 {
					t.Fatalf("lambda %v after SetLambda(%v)", p.Lambda, lambda/2)
				}
				errUp := s.SetLambda(lambda * 2)
				if fc.lambda == "down" {
					if errUp == nil || !strings.Contains(errUp.Error(), "decrease") {
						t.Fatalf("SetLambda up: %v", errUp)
					}
					break
				}
				if errUp != nil {
					t.Fatal(errUp)
				}
				if _, err := s.Run(1); err != nil {
					t.Fatal(err)
				}
				endsAtCurrent(t, s)
				if p := s.Current(); p.Lambda != lambda*2 {
					t.Fatalf("lambda %v after SetLambda(%v)", p.Lambda, lambda*2)
				}
			default:
				if errDown == nil || !strings.Contains(errDown.Error(), "cannot change") {
					t.Fatalf("SetLambda on %s: %v", fc.name, errDown)
				}
			}
			if err := s.Change(func(*int) {}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%T", fc.cfg)) {
				t.Fatalf("a change of another type: %v", err)
			}
		})
	}
}

// TestTrainerRefusesDataItCannotTrain: the soft solver needs factor-graph
// data and the kernelized one multiclass data; other data is a one-line
// error naming what it is.
func TestTrainerRefusesDataItCannotTrain(t *testing.T) {
	chain := chainData(t)
	for _, c := range []struct {
		cfg  any
		want string
	}{
		{soft.Config{Lambda: 0.1, Rho: 1}, "factor-graph data"},
		{kernel.Config{Lambda: 0.1}, "multiclass data"},
		{nil, "needs a configuration"},
		{3, "not a int"},
	} {
		_, err := New("x", chain, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%T: %v, want an error saying %q", c.cfg, err, c.want)
		}
	}
	isolated(t)
	if _, err := Session("x", chain, solver.Config{Lambda: 0.1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Session("x", multiclassData(t), kernel.Config{Lambda: 0.1}); err == nil || !strings.Contains(err.Error(), "family") {
		t.Fatalf("a session of another family: %v", err)
	}
}

// TestNewWarnsWhenIllConditioned: unscaled emotions-like features are far
// too large for lambda; a new run says so and names the remedy (the
// loader's standardization), which silences the note.
func TestNewWarnsWhenIllConditioned(t *testing.T) {
	notes := isolated(t)
	path, err := gendata.Emotions(t.TempDir(), "emotions", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New("raw", MustLoad(path), soft.Config{Lambda: 0.01, Rho: 1}); err != nil {
		t.Fatal(err)
	}
	if s := notes.String(); !strings.Contains(s, "ill-conditioned") || !strings.Contains(s, "datasets.ScaleStandardize") {
		t.Fatalf("notes for unscaled data: %q", s)
	}
	notes.Reset()
	if _, err := New("scaled", MustLoad(path, datasets.Options{Scaling: datasets.ScaleStandardize}), solver.Config{Lambda: 0.01}); err != nil {
		t.Fatal(err)
	}
	if notes.Len() != 0 {
		t.Fatalf("notes for standardized data: %q", notes.String())
	}
}

// failing is a problem whose max oracle returns NaN once it has answered
// ok more calls (-1: never fails), which makes the solver's call fail
// (oracles.OracleFunc).
type failing struct {
	oracles.Problem
	ok atomic.Int64
}

func (f *failing) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h := f.Problem.MaxOracle(i, w, dst)
	if f.ok.Add(-1) < 0 {
		h = math.NaN()
	}
	return y, h
}

// TestFailedEvaluationIsAnErrorPoint: when the exact evaluation fails, Run
// returns the error and Current a point whose values are NaN (never the
// last good point) and whose event carries the error.
func TestFailedEvaluationIsAnErrorPoint(t *testing.T) {
	tr, te := synthetic(t)
	p := &failing{Problem: tr}
	p.ok.Store(math.MaxInt64)
	tn, err := New("fails", NewData("failing", p, te), solver.Config{Lambda: 0.01, GapEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	tn.MustRun(3)
	good := tn.Current()
	p.ok.Store(int64(tr.Len())) // the steps of the next pass succeed, the gap pass after them fails
	if _, err := tn.Run(2); err == nil || !strings.Contains(err.Error(), "fails") {
		t.Fatalf("Run with a failing oracle: %v", err)
	}
	cur := tn.Current()
	if !strings.HasPrefix(cur.Event, "evaluation failed: ") || !math.IsNaN(cur.Primal) || !math.IsNaN(cur.Gap) || cur.Pass != tn.Passes() || cur.Pass == good.Pass {
		t.Fatalf("current point after a failed evaluation: %+v (the good one at pass %v)", cur, good.Pass)
	}
}

// TestResumeAfterRestartEveryFamily: runs of every family on data loaded
// by path (a MULAN ARFF file for BCFW and the soft solver, an svmlight file
// for the kernelized one) continue by name alone after a restart (Resume
// reloads the data the session remembers), as the whole run.
func TestResumeAfterRestartEveryFamily(t *testing.T) {
	isolated(t)
	dir := t.TempDir()
	arff, err := gendata.Emotions(dir, "emotions", 2)
	if err != nil {
		t.Fatal(err)
	}
	var svm strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 60; i++ {
		label := i % 3
		fmt.Fprintf(&svm, "%d", label+1)
		for j := 1; j <= 4; j++ {
			fmt.Fprintf(&svm, " %d:%.4f", j, rng.NormFloat64()+float64(label*j%3))
		}
		svm.WriteString("\n")
	}
	svmTrain := filepath.Join(dir, "toy.svm")
	if err := os.WriteFile(svmTrain, []byte(svm.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(svmTrain+".t", []byte(svm.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	std := datasets.Options{Scaling: datasets.ScaleStandardize}
	for _, c := range []struct {
		name, path string
		cfg        any
	}{
		{"bcfw", arff, solver.Config{Lambda: 0.05, GapEvery: 2, Seed: 1}},
		{"soft", arff, soft.Config{Lambda: 0.05, Rho: 1, GapEvery: 2, Seed: 1}},
		{"kernel", svmTrain, kernel.Config{Lambda: 0.05, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}, GapEvery: 2, Seed: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := MustLoad(c.path, std)
			MustSession(c.name, data, c.cfg).MustRun(3)
			r, err := Resume(c.name) // a restarted kernel: the data reloaded by name
			if err != nil {
				t.Fatal(err)
			}
			r.MustRun(3)
			whole := Must(New("whole", MustLoad(c.path, std), c.cfg))
			whole.MustRun(6)
			sameIterate(t, whole, r)
		})
	}
}

// multiLabel returns random train and test multi-label models (Meshi
// Sec. 6) of L labels over F features (see gendata.MultiLabel).
func multiLabel(t testing.TB, n, L, F int, seed uint64) (train, test *factorgraph.Model) {
	t.Helper()
	train, err := gendata.MultiLabel(n, L, F, seed)
	if err == nil {
		test, err = gendata.MultiLabel(n, L, F, seed+1000)
	}
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}
