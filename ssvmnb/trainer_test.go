package ssvmnb

import (
	"bytes"
	"encoding/gob"
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

// familyCase is one method of the trainer's contract test.
type familyCase struct {
	name   string
	data   func(t *testing.T) *Data
	method run.Method
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
	{"bcfw", chainData, solver.BCFW{Lambda: 0.01, Seed: 3, GapEvery: 2}, "both"},
	{"bcfw-gap-pairwise-cache", chainData, solver.BCFW{Lambda: 0.01, Seed: 3, GapEvery: 2, Sampling: run.GapSampling,
		Step: solver.Pairwise, Cache: &solver.Cache{}, Average: run.WeightedAverage}, "both"},
	{"mp-bcfw", chainData, solver.MultiPlane{Lambda: 0.01, Seed: 3, GapEvery: 2, Cost: &solver.CostRule{Ratio: 40}}, "both"},
	{"fw", chainData, solver.FW{Lambda: 0.01}, "both"},
	{"ssg", chainData, solver.SSG{Lambda: 0.01, Seed: 3, GapEvery: 2}, "both"},
	{"cp", chainData, solver.CuttingPlane{Lambda: 0.01}, "both"},
	{"soft", factorData, soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 2, Seed: 4}, "both"},
	{"kernel", multiclassData, kernel.BCFW{Lambda: 0.05, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.3}, GapEvery: 2, Seed: 2}, "both"},
}

// gapPasses returns the exact gap passes of a trace
// (solver times aside), which split runs share with whole runs (a split run has one more
// observe-only point, the end of each part).
func gapPasses(tr []run.Point) string {
	var r []string
	for _, p := range tr {
		if p.Refresh {
			p.Seconds, p.EvalSeconds, p.OracleTimeShare = 0, 0, 0 // measured times
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
	if last.Steps != tn.s.Steps() || last.Pass != tn.Passes() || math.IsNaN(last.Primal) {
		t.Fatalf("%s: trace ends at step %d pass %v primal %v; the run is at step %d pass %v", tn.Name, last.Steps, last.Pass, last.Primal, tn.s.Steps(), tn.Passes())
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
			whole, err := New("whole", data, fc.method)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := whole.Run(7); err != nil {
				t.Fatal(err)
			}
			endsAtCurrent(t, whole)

			// Split: Run(3) + save/load + Run(4).
			split, _ := New("split", data, fc.method)
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
				s, err := Session("run", data, fc.method)
				if err != nil {
					t.Fatalf("cell %d: %v", cell, err)
				}
				if _, err := s.Run(passes); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Session("run", data, fc.method)
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
			other := run.Method(kernel.BCFW{Lambda: 0.1})
			if fc.name == "kernel" {
				other = solver.BCFW{Lambda: 0.1}
			}
			if err := s.Change(other); err == nil || !strings.Contains(err.Error(), "cannot continue as "+other.Name()) {
				t.Fatalf("a change to a method of another package: %v", err)
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
		method run.Method
		want   string
	}{
		{soft.BCFW{Lambda: 0.1, Rho: 1}, "factor-graph problem"},
		{kernel.BCFW{Lambda: 0.1}, "multiclass data"},
		{solver.LPHard{BCFW: solver.BCFW{Lambda: 0.1}}, "factor-graph problem"},
		{nil, "needs a method"},
	} {
		_, err := New("x", chain, c.method)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%T: %v, want an error saying %q", c.method, err, c.want)
		}
	}
	isolated(t)
	if _, err := Session("x", chain, solver.BCFW{Lambda: 0.1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Session("x", multiclassData(t), kernel.BCFW{Lambda: 0.1}); err == nil || !strings.Contains(err.Error(), "holds a bcfw run, the cell asks for kernel") {
		t.Fatalf("a session of another method: %v", err)
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
	if _, err := New("raw", Must(Load(path)), soft.BCFW{Lambda: 0.01, Rho: 1}); err != nil {
		t.Fatal(err)
	}
	if s := notes.String(); !strings.Contains(s, "ill-conditioned") || !strings.Contains(s, "datasets.ScaleStandardize") {
		t.Fatalf("notes for unscaled data: %q", s)
	}
	// The Load call it suggests keeps the options given (issue 34 item 4:
	// it dropped them, bringing back what they fixed).
	notes.Reset()
	if _, err := New("raw", Must(Load(path, datasets.Options{NoBias: true})), solver.BCFW{Lambda: 0.01}); err != nil {
		t.Fatal(err)
	}
	if want := "datasets.Options{NoBias: true, Scaling: datasets.ScaleStandardize}"; !strings.Contains(notes.String(), want) {
		t.Fatalf("the suggested Load of data loaded with NoBias: %q, want %s", notes.String(), want)
	}
	notes.Reset()
	if _, err := New("scaled", Must(Load(path, datasets.Options{Scaling: datasets.ScaleStandardize})), solver.BCFW{Lambda: 0.01}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(notes.String(), "ill-conditioned") {
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
	tn, err := New("fails", NewData("failing", p, te), solver.BCFW{Lambda: 0.01, GapEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	Must(tn.Run(3))
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
		method     run.Method
	}{
		{"bcfw", arff, solver.BCFW{Lambda: 0.05, GapEvery: 2, Seed: 1}},
		{"lp-hard", arff, solver.LPHard{BCFW: solver.BCFW{Lambda: 0.05, GapEvery: 2, Seed: 1}}},
		{"soft", arff, soft.BCFW{Lambda: 0.05, Rho: 1, GapEvery: 2, Seed: 1}},
		{"kernel", svmTrain, kernel.BCFW{Lambda: 0.05, Kernel: kernel.Kernel{Kind: kernel.RBF, Gamma: 0.5}, GapEvery: 2, Seed: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := Must(Load(c.path, std))
			Must(Must(Session(c.name, data, c.method)).Run(3))
			r, err := Resume(c.name) // a restarted kernel: the data reloaded by name
			if err != nil {
				t.Fatal(err)
			}
			Must(r.Run(3))
			whole := Must(New("whole", Must(Load(c.path, std)), c.method))
			Must(whole.Run(6))
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

// TestOlderSessionIsRefused: a session file made before the method types
// (no version, a configuration of its family) is an error that says to
// train again, for Session, Resume and LoadTrainer, and Forget starts
// over.
func TestOlderSessionIsRefused(t *testing.T) {
	isolated(t)
	data := syntheticData(t)
	type oldConfig struct{ Lambda, GapEvery float64 }
	old := struct {
		Name    string
		Live    bool
		Family  string
		Solver  []byte
		Data    *dataSpec
		Initial oldConfig
		Workers int
	}{Name: "bcfw", Live: true, Family: "bcfw", Solver: []byte("a checkpoint"), Data: data.spec, Initial: oldConfig{0.01, 5}, Workers: 2}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(old); err != nil {
		t.Fatal(err)
	}
	path := Must(sessionFile("bcfw"))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m := solver.BCFW{Lambda: 0.01, GapEvery: 5}
	for name, open := range map[string]func() error{
		"Session":     func() error { _, err := Session("bcfw", data, m); return err },
		"Resume":      func() error { _, err := Resume("bcfw"); return err },
		"LoadTrainer": func() error { _, err := LoadTrainer(bytes.NewReader(buf.Bytes()), data); return err },
	} {
		if err := open(); err == nil || !strings.Contains(err.Error(), "made by an older fwstruct: train again") {
			t.Errorf("%s of an older session file: %v", name, err)
		}
	}
	Check(Forget("bcfw"))
	tn, err := Session("bcfw", data, m)
	if err != nil || tn.Passes() != 0 {
		t.Fatalf("a new session after Forget: %v", err)
	}
	// The session records the run's method as run.Encode writes it, the
	// record of the command line's model files.
	Must(tn.Run(1))
	tf := Must(readFile(path))
	if want := Must(run.Encode(tn.Method())); tf.Version != sessionVersion || string(tf.Method) != string(want) {
		t.Fatalf("session file: version %d, method %s; want %d, %s", tf.Version, tf.Method, sessionVersion, want)
	}
}
