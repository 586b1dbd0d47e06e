// Package ssvmnb is the notebook layer of fwstruct: resumable trainers whose
// state carries over between GoNB cells, live and static figures of their
// traces, comparisons of runs aggregated over seeds, parameter sweeps with
// tables and figures, and displays of predictions.
//
// Inside a GoNB notebook the Show functions display their output in the
// cell (live charts are updated in place through transient display ids);
// anywhere else (go test, a program) they do nothing and the same calls
// only compute and return values.
package ssvmnb

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
)

// Trainer is a named, resumable training run: Run some passes, inspect it,
// Run more. Its state (iterate, dual variables, caches, random state, trace)
// lives in the underlying solver and can be saved to a file and loaded back
// after a kernel restart; the continued run is identical.
type Trainer struct {
	// Name labels the run in figures and tables.
	Name string
	// Live shows a chart of the gap updated in place while Run works (in a
	// notebook only); New sets it to true.
	Live bool
	// LiveEvery is the minimal time between two live updates; zero means
	// 500 ms.
	LiveEvery time.Duration

	s     *solver.Solver
	test  oracles.Problem
	store string // session file, saved after every run (see Session)
}

// New returns a trainer for problem p (test may be nil) with the solver
// configuration cfg.
func New(name string, p, test oracles.Problem, cfg solver.Config) (*Trainer, error) {
	s, err := solver.New(p, cfg, solver.WithTest(test))
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	return &Trainer{Name: name, Live: true, s: s, test: test}, nil
}

// Run runs the given number of further effective passes (or until the
// configured stop of the solver's gap tolerance: use RunUntil for more
// control), showing the live chart in a notebook.
func (t *Trainer) Run(passes float64) (solver.Status, error) {
	if !(passes > 0) {
		return 0, fmt.Errorf("ssvmnb: %s: passes must be positive, got %v", t.Name, passes)
	}
	return t.RunUntil(context.Background(), solver.Stop{Passes: t.s.Passes() + passes})
}

// RunUntil runs until stop (Stop.Passes is a total, as in solver.Run) or
// ctx is canceled.
func (t *Trainer) RunUntil(ctx context.Context, stop solver.Stop) (solver.Status, error) {
	live := t.startLive()
	defer live.finish()
	t.s.SetProgress(func(solver.TracePoint) { live.update() })
	defer t.s.SetProgress(nil)
	res, err := t.s.Run(ctx, stop)
	st := res.Status
	if err != nil {
		return st, err
	}
	return st, t.save()
}

// Solver returns the underlying solver (for everything the trainer does
// not wrap).
func (t *Trainer) Solver() *solver.Solver { return t.s }

// Test returns the test problem (nil if none).
func (t *Trainer) Test() oracles.Problem { return t.test }

// Trace returns a copy of the trace.
func (t *Trainer) Trace() []solver.TracePoint { return t.s.Trace() }

// Last returns the last trace point (zero value before the first run).
func (t *Trainer) Last() solver.TracePoint {
	p, _ := t.s.Last()
	return p
}

// Current returns the exact evaluation of the current iterate: the last
// trace point when it describes the current iterate, else an observe-only
// evaluation (one oracle pass, not counted and not recorded). Use it to
// report where a run stands after Run, whose last trace point may lie
// before its end when gap passes are rare.
func (t *Trainer) Current() solver.TracePoint {
	if last, ok := t.s.Last(); ok && last.Steps == t.s.Steps() {
		return last
	}
	pt, _ := t.s.Evaluate()
	return pt
}

// Weights returns a copy of the current weights.
func (t *Trainer) Weights() []float64 { return t.s.Weights() }

// Passes returns the effective passes made so far.
func (t *Trainer) Passes() float64 { return t.s.Passes() }

// TestLoss returns the task loss of the current weights on the test set
// (NaN without one).
func (t *Trainer) TestLoss() float64 {
	if t.test == nil {
		return nanValue
	}
	return oracles.MeanLoss(t.test, t.s.Weights())
}

// trainerFile is what Save writes: the trainer's own fields and the
// solver checkpoint.
type trainerFile struct {
	Name      string
	Live      bool
	LiveEvery time.Duration
	Solver    []byte
}

// Save writes the trainer to w (see solver.Solver.Save).
func (t *Trainer) Save(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.s.Save(&buf); err != nil {
		return err
	}
	return gob.NewEncoder(w).Encode(trainerFile{Name: t.Name, Live: t.Live, LiveEvery: t.LiveEvery, Solver: buf.Bytes()})
}

// SaveFile writes the trainer to a file.
func (t *Trainer) SaveFile(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return t.Save(f)
}

// Load reads a trainer written by Save; p and test must be the problems it
// was trained on (checked by solver.Load).
func Load(r io.Reader, p, test oracles.Problem) (*Trainer, error) {
	var tf trainerFile
	if err := gob.NewDecoder(r).Decode(&tf); err != nil {
		return nil, fmt.Errorf("ssvmnb: load: %w", err)
	}
	s, err := solver.Load(bytes.NewReader(tf.Solver), p, solver.WithTest(test))
	if err != nil {
		return nil, err
	}
	return &Trainer{Name: tf.Name, Live: tf.Live, LiveEvery: tf.LiveEvery, s: s, test: test}, nil
}

// LoadFile reads a trainer from a file written by SaveFile.
func LoadFile(path string, p, test oracles.Problem) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, p, test)
}

// errNoTrace reports an empty trace where a figure needs points.
var errNoTrace = errors.New("ssvmnb: the run has no trace point yet: call Run first")
