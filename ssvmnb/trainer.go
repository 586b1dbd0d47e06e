// Package ssvmnb is the notebook layer of fwstruct: datasets by name
// (Load), resumable trainers whose state carries over between GoNB cells
// (Session, Resume), variants warm-started from a run (Fork, Change), live
// and static figures of their traces, comparisons of runs aggregated over
// seeds, parameter sweeps with tables and figures, and displays of
// predictions for every task (ShowPredictions).
//
// Everything it shows describes the run it claims to: runs end with an
// exact evaluation of their final iterate, tables say at which pass they
// stand, a knob changed mid-run is recorded in the trace and drawn as a
// mark, a figure with nothing to draw is replaced by a note saying why,
// and a cell that asks for a configuration other than the stored one gets
// an error, not the stored run.
//
// Inside a GoNB notebook the Show functions display their output in the
// cell (live charts and progress lines are updated in place through
// transient display ids); anywhere else (go test, a program) they do
// nothing and the same calls only compute and return values.
package ssvmnb

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Trainer is a named, resumable training run: Run some passes, inspect it,
// Run more. Its state (iterate, dual variables, caches, random state, trace)
// lives in the underlying solver and can be saved to a file and loaded back
// after a kernel restart; the continued run is identical.
//
// Passes have one meaning throughout: effective passes, oracle calls / n,
// the exact gap passes of BCFW included. Passes(), Current().Pass and the
// x axis of every figure count them; Run(k) raises the trainer's pass
// budget by k.
type Trainer struct {
	// Name labels the run in figures and tables; it also picks the run's
	// style (StyleOf).
	Name string
	// Live shows a chart of the gap updated in place while Run works (in a
	// notebook only); New sets it to true.
	Live bool
	// LiveEvery is the minimal time between two live updates; zero means
	// 500 ms.
	LiveEvery time.Duration

	s       *solver.Solver
	test    oracles.Problem
	store   string        // session file, saved after every change (see Session)
	data    *dataSpec     // how to load the problems again (Resume), nil when unknown
	initial solver.Config // the configuration the run started with
	origin  string        // "bcfw at pass 10" for a fork
	carry   float64       // budget left by the last Run, < 1 pass: a deferred gap pass
	onPoint func(run.Point)
}

// New returns a trainer for problem p (test may be nil) with the solver
// configuration cfg. It is not kept in the session: see Session for
// trainers that live across cells.
func New(name string, p, test oracles.Problem, cfg solver.Config) (*Trainer, error) {
	s, err := solver.New(p, cfg, solver.WithTest(test))
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	return &Trainer{Name: name, Live: true, s: s, test: test, initial: s.Config()}, nil
}

// Run runs passes further effective passes: it raises the trainer's pass
// budget by passes and runs until Passes() reaches it. When an exact gap
// pass of BCFW falls due with less than a pass of budget left, the run
// stops there (up to one pass short) and the next Run starts with it, so
// that Run(5) twice ends where Run(10) does. The run ends with an exact
// evaluation of its final iterate (Current). In a notebook a live chart
// shows the progress.
func (t *Trainer) Run(passes float64) (run.Status, error) {
	if !(passes > 0) || math.IsInf(passes, 0) {
		return 0, fmt.Errorf("ssvmnb: %s: passes must be positive and finite, got %v", t.Name, passes)
	}
	budget := t.s.Passes() + t.carry + passes
	st, err := t.RunUntil(context.Background(), run.Stop{Passes: budget})
	if err == nil && st == run.StatusPasses {
		if c := budget - t.s.Passes(); c > 1e-9 && c < 1 {
			t.carry = c
			return st, t.save()
		}
	}
	return st, err
}

// MustRun is Run that panics on error (for notebook cells).
func (t *Trainer) MustRun(passes float64) run.Status { return Must(t.Run(passes)) }

// RunUntil runs until stop (Stop.Passes is a total, as in solver.Run) or
// ctx is canceled, and ends with an exact evaluation of the final iterate
// (an observe-only trace point when the trace does not end there).
func (t *Trainer) RunUntil(ctx context.Context, stop run.Stop) (run.Status, error) {
	t.carry = 0
	live := t.startLive()
	defer live.finish()
	t.s.SetProgress(func(p run.Point) {
		live.update()
		if t.onPoint != nil {
			t.onPoint(p)
		}
	})
	defer t.s.SetProgress(nil)
	res, err := t.s.Run(ctx, stop)
	if err != nil {
		return res.Status, err
	}
	if !res.Current {
		if _, err := t.s.Current(); err != nil {
			return res.Status, err
		}
	}
	return res.Status, t.save()
}

// Solver returns the underlying solver, for everything the trainer does
// not wrap. Changes made through it directly (SetLambda) are saved with
// the session at the next Run only, and are not recorded at the pass they
// happen: prefer Change and SetLambda of the trainer.
func (t *Trainer) Solver() *solver.Solver { return t.s }

// Config returns the current configuration (lambda included).
func (t *Trainer) Config() solver.Config { return t.s.Config() }

// Test returns the test problem (nil if none).
func (t *Trainer) Test() oracles.Problem { return t.test }

// Trace returns a copy of the trace.
func (t *Trainer) Trace() []run.Point { return t.s.Trace() }

// Last returns the last trace point (zero value before the first). After
// Run it describes the current iterate; Current says so for sure.
func (t *Trainer) Last() run.Point {
	p, _ := t.s.Last()
	return p
}

// Current returns an exact evaluation of the current iterate: the last
// trace point when it describes it (always, after Run), else an
// observe-only evaluation appended to the trace (never counted as oracle
// calls). Its Pass is Passes(). When the evaluation fails (an oracle
// error), the objective values are NaN and the error is in Event.
func (t *Trainer) Current() run.Point {
	p, err := t.s.Current()
	if err != nil {
		pt := run.Blank()
		pt.Pass, pt.OracleCalls, pt.Steps, pt.Seconds = t.s.Passes(), t.s.OracleCalls(), t.s.Steps(), t.s.Elapsed().Seconds()
		pt.Lambda, pt.Event = t.s.Lambda(), "evaluation failed: "+err.Error()
		return pt
	}
	return p
}

// Weights returns a copy of the current weights.
func (t *Trainer) Weights() []float64 { return t.s.Weights() }

// Passes returns the effective passes made so far: oracle calls / n, the
// exact gap passes of BCFW included (the x axis of the figures).
func (t *Trainer) Passes() float64 { return t.s.Passes() }

// TestLoss returns the task loss of the current weights on the test set
// (NaN without one).
func (t *Trainer) TestLoss() float64 {
	if t.test == nil {
		return math.NaN()
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
	Data      *dataSpec
	Initial   solver.Config
	Origin    string
	Carry     float64
}

// Save writes the trainer to w (see solver.Solver.Save).
func (t *Trainer) Save(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.s.Save(&buf); err != nil {
		return err
	}
	return gob.NewEncoder(w).Encode(trainerFile{Name: t.Name, Live: t.Live, LiveEvery: t.LiveEvery, Solver: buf.Bytes(),
		Data: t.data, Initial: t.initial, Origin: t.origin, Carry: t.carry})
}

// SaveFile writes the trainer to a file, atomically (internal/atomicfile).
func (t *Trainer) SaveFile(path string) error {
	return atomicfile.WriteFile(path, 0o644, t.Save)
}

// readTrainerFile decodes what Save writes.
func readTrainerFile(r io.Reader) (trainerFile, error) {
	var tf trainerFile
	if err := gob.NewDecoder(r).Decode(&tf); err != nil {
		return tf, fmt.Errorf("ssvmnb: not a saved trainer: %w", err)
	}
	return tf, nil
}

// fromFile restores a trainer from its file contents on p and test.
func fromFile(tf trainerFile, p, test oracles.Problem) (*Trainer, error) {
	s, err := solver.Load(bytes.NewReader(tf.Solver), p, solver.WithTest(test))
	if err != nil {
		return nil, err
	}
	return &Trainer{Name: tf.Name, Live: tf.Live, LiveEvery: tf.LiveEvery, s: s, test: test,
		data: tf.Data, initial: tf.Initial, origin: tf.Origin, carry: tf.Carry}, nil
}

// LoadTrainer reads a trainer written by Save; p and test must be the
// problems it was trained on (checked by solver.Load).
func LoadTrainer(r io.Reader, p, test oracles.Problem) (*Trainer, error) {
	tf, err := readTrainerFile(r)
	if err != nil {
		return nil, err
	}
	return fromFile(tf, p, test)
}

// LoadTrainerFile reads a trainer from a file written by SaveFile.
func LoadTrainerFile(path string, p, test oracles.Problem) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadTrainer(f, p, test)
}

// errNoTrace reports an empty trace where a figure needs points.
var errNoTrace = errors.New("ssvmnb: the run has no trace point yet: call Run first")
