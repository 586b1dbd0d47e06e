// Package ssvmnb is the notebook layer of fwstruct: datasets by name
// (Load), resumable trainers of every solver family (BCFW and its
// variants, soft constraints, kernels) whose state carries over between
// GoNB cells (Session, Resume), variants warm-started from a run (Fork, Change), live
// and static figures of their traces, comparisons of runs aggregated over
// seeds, parameter sweeps with tables and figures, runs at several worker
// counts and executions with the speedups they reach and the time Amdahl's
// law predicts (Trainer.Workers, SpeedupTable, WorkerShare,
// WorkersFigures), and displays of predictions for every task
// (ShowPredictions).
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
	"runtime"
	"time"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/viz"
)

// Trainer is a named, resumable training run of any solver family: the
// example-level solvers of package solver (BCFW, MP-BCFW, FW, SSG, the
// cutting plane; a solver.Config), the soft-constraint solver (a
// soft.Config) and the kernelized solver (a kernel.Config), all driven
// through run.Solver. Run some passes, inspect it, Run more. Its state
// (iterate, dual variables, caches, random state, trace) lives in the
// underlying solver and can be saved to a file and loaded back after a
// kernel restart; the continued run is identical.
//
// Every family means the same by every method: Run and RunUntil end with
// an exact evaluation of the iterate they stop at, which ends the stored
// trace too; Run(5) twice ends where Run(10) does; Current is an exact
// evaluation of the current iterate. Passes are effective passes, oracle
// calls / n (block steps / blocks for the soft solver), the exact gap
// passes included: Passes(), Current().Pass and the x axis of every
// figure count them.
type Trainer struct {
	// Name labels the run in figures and tables; it also picks the run's
	// style (StyleOf).
	Name string
	// Live shows a chart of the run updated in place while Run works (in a
	// notebook only); New sets it to true.
	Live bool
	// LiveEvery is the minimal time between two live updates; zero means
	// 500 ms.
	LiveEvery time.Duration
	// Workers is the number of goroutines of the run's parallel parts: the
	// exact gap passes and evaluations of every family, and for package
	// solver the read parts of the block steps (oracle calls, scores of
	// the cached corners) of a mini-batch (solver.Config.Batch) or of the
	// asynchronous execution (Config.Async) too (see the solvers'
	// WithWorkers). New sets it to the number of CPUs (GOMAXPROCS); zero
	// means the same when the run starts. Run and RunUntil apply it. It is
	// saved with the trainer (Save, the session), so that a resumed run
	// (Resume, LoadTrainer) runs with the stored count on any machine and
	// says which it is here. It never changes the trajectory of a
	// sequential or mini-batch run, only its speed; an asynchronous run's
	// trajectory depends on timing, and so on it.
	Workers int

	eng     engine
	on      *Data     // the problems the run trains on
	store   string    // session file, saved after every change (see Session)
	data    *dataSpec // how to load the problems again (Resume), nil when unknown
	initial any       // the configuration the run started with
	origin  string    // "bcfw at pass 10" for a fork
	carry   float64   // budget left by the last Run, < 1 pass: a deferred gap pass
	onPoint func(run.Point)
	applied int       // the workers the engine runs with (0: not set yet)
	clock   wallClock // the wall-clock time of the runs (clock.go)
}

// New returns a trainer on data with configuration cfg: a solver.Config,
// soft.Config or kernel.Config, which selects the solver family (the soft
// solver needs factor-graph data such as yeast, the kernelized one
// multiclass data). When the features are too large for lambda
// (solver.MeasureConditioning) a note says so and what to do. It is not
// kept in the session: see Session for trainers that live across cells.
func New(name string, data *Data, cfg any) (*Trainer, error) {
	if data == nil {
		return nil, fmt.Errorf("ssvmnb: %s: a run needs data (see Load and NewData)", name)
	}
	e, err := newEngine(data, cfg)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	if e.family() != familyKernel {
		warnIll(data, e.lambda(), name)
	}
	t := &Trainer{Name: name, Live: true, Workers: runtime.GOMAXPROCS(0), eng: e, on: data, data: data.spec, initial: e.config()}
	if err := t.applyWorkers(); err != nil {
		return nil, err
	}
	return t, nil
}

// Run runs passes further effective passes: it raises the trainer's pass
// budget by passes and runs until Passes() reaches it. When an exact gap
// pass falls due with less than a pass of budget left, the run stops
// there (up to one pass short) and the next Run starts with it, so that
// Run(5) twice ends where Run(10) does. The run ends with an exact
// evaluation of its final iterate (Current). In a notebook a live chart
// shows the progress.
func (t *Trainer) Run(passes float64) (run.Status, error) {
	if !(passes > 0) || math.IsInf(passes, 0) {
		return 0, fmt.Errorf("ssvmnb: %s: passes must be positive and finite, got %v", t.Name, passes)
	}
	budget := t.eng.Passes() + t.carry + passes
	st, err := t.RunUntil(context.Background(), run.Stop{Passes: budget})
	if err == nil && st == run.StatusPasses {
		if c := budget - t.eng.Passes(); c > 1e-9 && c < 1 {
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
	if err := t.applyWorkers(); err != nil {
		return 0, err
	}
	t.carry = 0
	live := t.startLive()
	defer live.finish()
	timer := t.clock.start()
	t.eng.SetProgress(func(p run.Point) {
		timer.mark(p)
		defer timer.pause()()
		live.update()
		if t.onPoint != nil {
			t.onPoint(p)
		}
	})
	defer t.eng.SetProgress(nil)
	defer timer.stop()
	res, err := t.eng.Run(ctx, stop)
	if err != nil {
		return res.Status, fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	if !res.Current {
		if _, err := t.eng.Current(); err != nil {
			return res.Status, fmt.Errorf("ssvmnb: %s: evaluating the final iterate: %w", t.Name, err)
		}
	}
	timer.stop()
	return res.Status, t.save()
}

// Solver returns the underlying solver (a *solver.Solver, *soft.Solver or
// *kernel.Solver), for everything the trainer does not wrap. Changes made
// through it directly are saved with the session at the next Run only,
// and are not recorded at the pass they happen: prefer Change and
// SetLambda of the trainer.
func (t *Trainer) Solver() run.Solver { return t.eng.unwrap() }

// Config returns the current configuration (lambda included, with the
// family's defaults): a solver.Config, soft.Config or kernel.Config.
func (t *Trainer) Config() any { return t.eng.config() }

// Lambda returns the current regularization parameter.
func (t *Trainer) Lambda() float64 { return t.eng.lambda() }

// Data returns the data the run trains on.
func (t *Trainer) Data() *Data { return t.on }

// Test returns the test problem the run measures its test loss on (nil
// if none): the data's test set, or for a soft run its factorgraph.Rounded
// view (the LP relaxation and a rounding, as Meshi et al. predict).
func (t *Trainer) Test() oracles.Problem {
	switch e := t.eng.(type) {
	case softEngine:
		return e.test
	case kernelEngine:
		if e.test == nil {
			return nil
		}
	}
	return t.on.Test
}

// Trace returns a copy of the trace.
func (t *Trainer) Trace() []run.Point { return t.eng.Trace() }

// Last returns the last trace point (run.Blank before the first, every
// value NaN). After Run it describes the current iterate; Current says so
// for sure.
func (t *Trainer) Last() run.Point {
	p, ok := t.eng.Last()
	if !ok {
		return run.Blank()
	}
	return p
}

// Current returns an exact evaluation of the current iterate: the last
// trace point when it describes it (always, after Run), else an
// observe-only evaluation appended to the trace (never counted as oracle
// calls). Its Pass is Passes(). When the evaluation fails (an oracle
// error), the objective values are NaN and the error is in Event.
func (t *Trainer) Current() run.Point {
	p, err := t.eng.Current()
	if err != nil {
		pt := run.Blank()
		pt.Pass, pt.OracleCalls, pt.Steps, pt.Seconds = t.eng.Passes(), t.eng.OracleCalls(), t.eng.Steps(), t.eng.Elapsed().Seconds()
		pt.Lambda, pt.Event = t.eng.lambda(), "evaluation failed: "+err.Error()
		return pt
	}
	return p
}

// Weights returns a copy of the current weights; nil for a kernel run,
// whose iterate is a kernel expansion (see kernel.Solver.Model).
func (t *Trainer) Weights() []float64 { return t.eng.weights() }

// AverageWeights returns the weights of the averaged iterate of a run of
// package solver with Config.Averaging, nil for the other runs.
func (t *Trainer) AverageWeights() []float64 {
	if e, ok := t.eng.(bcfwEngine); ok && e.Config().Averaging {
		return e.AverageWeights()
	}
	return nil
}

// Passes returns the effective passes made so far: oracle calls / n, the
// exact gap passes included (the x axis of the figures).
func (t *Trainer) Passes() float64 { return t.eng.Passes() }

// TestLoss returns the task loss of the current iterate on the test set
// (NaN without one).
func (t *Trainer) TestLoss() float64 {
	test := t.Test()
	if test == nil {
		return math.NaN()
	}
	if e, ok := t.eng.(kernelEngine); ok {
		l, err := e.Model().MeanLoss(e.test)
		if err != nil {
			return math.NaN()
		}
		return l
	}
	return oracles.MeanLoss(test, t.eng.weights())
}

// trainerFile is what Save writes: the trainer's own fields and the
// solver checkpoint of its family.
type trainerFile struct {
	Name      string
	Live      bool
	LiveEvery time.Duration
	Family    family
	Solver    []byte
	Data      *dataSpec
	// Initial is the configuration the run started with, in the field of
	// its family.
	Initial       solver.Config
	InitialSoft   soft.Config
	InitialKernel kernel.Config
	Origin        string
	Carry         float64
	// Workers is Trainer.Workers (0 in files written before it: the number
	// of CPUs of the machine that loads the file).
	Workers int
	// Clock is the wall-clock time of the runs (clock.go; nil in files
	// written before it: not measured).
	Clock *wallClock
}

// Save writes the trainer to w (see the Save of its solver).
func (t *Trainer) Save(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.eng.Save(&buf); err != nil {
		return err
	}
	tf := trainerFile{Name: t.Name, Live: t.Live, LiveEvery: t.LiveEvery, Family: t.eng.family(), Solver: buf.Bytes(),
		Data: t.data, Origin: t.origin, Carry: t.carry, Workers: t.Workers, Clock: &t.clock}
	switch c := t.initial.(type) {
	case solver.Config:
		tf.Initial = c
	case soft.Config:
		tf.InitialSoft = c
	case kernel.Config:
		tf.InitialKernel = c
	}
	return gob.NewEncoder(w).Encode(tf)
}

// SaveFile writes the trainer to a file, atomically (internal/atomicfile).
func (t *Trainer) SaveFile(path string) error {
	return atomicfile.WriteFile(path, 0o644, t.Save)
}

// family returns the solver family of the file's run (files written
// before the families hold runs of package solver).
func (tf trainerFile) family() family {
	if tf.Family == "" {
		return familyBCFW
	}
	return tf.Family
}

// readTrainerFile decodes what Save writes.
func readTrainerFile(r io.Reader) (trainerFile, error) {
	var tf trainerFile
	if err := gob.NewDecoder(r).Decode(&tf); err != nil {
		return tf, fmt.Errorf("ssvmnb: not a saved trainer: %w", err)
	}
	return tf, nil
}

// fromFile restores a trainer from its file contents on data.
func fromFile(tf trainerFile, data *Data) (*Trainer, error) {
	e, err := loadEngine(tf.family(), tf.Solver, data)
	if err != nil {
		return nil, err
	}
	t := &Trainer{Name: tf.Name, Live: tf.Live, LiveEvery: tf.LiveEvery, Workers: tf.Workers, eng: e, on: data,
		data: tf.Data, origin: tf.Origin, carry: tf.Carry}
	if tf.Clock != nil {
		t.clock = *tf.Clock
	}
	if t.Workers == 0 { // a file written before Workers: one per CPU, as the run had
		t.Workers = runtime.GOMAXPROCS(0)
	}
	switch e.family() {
	case familySoft:
		t.initial = tf.InitialSoft
	case familyKernel:
		t.initial = tf.InitialKernel
	default:
		t.initial = tf.Initial
	}
	if err := t.applyWorkers(); err != nil {
		return nil, err
	}
	return t, nil
}

// LoadTrainer reads a trainer written by Save; data must hold the problems
// it was trained on (checked by the solver's Load).
func LoadTrainer(r io.Reader, data *Data) (*Trainer, error) {
	if data == nil {
		return nil, errors.New("ssvmnb: LoadTrainer needs the data the run was trained on")
	}
	tf, err := readTrainerFile(r)
	if err != nil {
		return nil, err
	}
	return fromFile(tf, data)
}

// LoadTrainerFile reads a trainer from a file written by SaveFile.
func LoadTrainerFile(path string, data *Data) (*Trainer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := LoadTrainer(f, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// errNoTrace reports an empty trace where a figure needs points.
var errNoTrace = errors.New("ssvmnb: the run has no trace point yet: call Run first")

// VizRun returns the trainer's trace as a named run in its style, for the
// figures of package viz.
func (t *Trainer) VizRun() viz.Run {
	return viz.Run{Name: t.Name, Trace: t.Trace(), Style: StyleOf(t.Name)}
}
