// Package ssvmnb is the notebook layer of fwstruct: datasets by name
// (Load), resumable trainers of every method of the solver packages (a
// run.Method: BCFW and its variants, soft constraints, kernels) whose state
// carries over between GoNB cells (Session, Resume), variants
// warm-started from a run (Fork, Change), live
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
// and a cell that asks for a method other than the stored one gets an
// error, not the stored run.
//
// A session keeps a day's work: the stop button (SIGINT) stops a run at
// its next block step and stores it before GoNB kills the cell (see
// Trainer.RunUntil); a run is held by one program at a time (see
// Session); session files are checksummed and compact (see
// Trainer.StoredSize, SessionSize).
//
// Inside a GoNB notebook the Show functions display their output in the
// cell (live charts and progress lines are updated in place through
// transient display ids); anywhere else (go test, a program) they do
// nothing and the same calls only compute and return values.
package ssvmnb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/auto"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/viz"
)

// Trainer is a named, resumable training run of any method of the solver
// packages (run.Method): the example-level methods of package solver (BCFW
// and its variants, MP-BCFW, FW, SSG, the cutting plane, online EG, exact
// block steps, LP-hard), the soft-constraint solver (soft.BCFW) and the
// kernelized ones (kernel.BCFW, kernel.FW, kernel.Exact), all driven
// through run.Solver. Run some passes, inspect it, Run more. Its state
// (iterate, dual variables, caches, random state, trace) lives in the
// underlying solver and can be saved to a file and loaded back after a
// kernel restart; the continued run is identical.
//
// Every method means the same by every call: Run and RunUntil end with
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
	// notebook only); New, Session and Resume set it to true, Fork to its
	// parent's. It is the cell's setting: it is not saved with the run, so
	// that a cell that turns the chart off does not turn it off for the
	// cells that resume the run.
	Live bool
	// LiveEvery is the minimal time between two live updates; zero means
	// 500 ms. Like Live, it is not saved.
	LiveEvery time.Duration
	// Workers is the number of goroutines of the run's parallel parts: the
	// exact gap passes and evaluations of every method, and the read parts
	// of the block steps (oracle calls, scores of the cached corners) of a
	// mini-batch or of the asynchronous execution too (run.WithWorkers).
	// New sets it to the number of CPUs (GOMAXPROCS); zero means the same
	// when the run starts. Run and RunUntil apply it. It is saved with the
	// trainer (Save, the session), so that a resumed run (Resume,
	// LoadTrainer) runs with the stored count on any machine and says which
	// it is here. It never changes the trajectory of a sequential or
	// mini-batch run, only its speed; an asynchronous run's trajectory
	// depends on timing, and so on it.
	Workers int

	s     run.Solver
	on    *Data     // the problems the run trains on
	store string    // session file, saved after every change (see Session)
	data  *dataSpec // how to load the problems again (Resume), nil when unknown
	// asked is the method as the cells asked for it (New, Session, Fork,
	// Change), without the defaults filled in; its Lambda may be stale
	// (a SetLambda of the solver itself): see current.
	asked run.Method
	// started is the method the run started with, as asked (a fork's:
	// the method of the Fork call), Lambda included.
	started run.Method
	origin  string // "bcfw at pass 10" for a fork
	// changed holds the trace indices of the points that Change and
	// SetLambda recorded in this run or its history: the solver labels
	// them as forks ("fork: lambda 0.01 -> 0.005"), Trace as the changes
	// they are.
	changed []int
	carry   float64 // budget left by the last Run, < 1 pass: a deferred gap pass
	onPoint func(run.Point)
	applied int       // the workers the solver runs with (0: not set yet)
	clock   wallClock // the wall-clock time of the runs (clock.go)
}

// New returns a trainer called name on data with method m (solver.BCFW,
// solver.Recommended(lambda), soft.BCFW, kernel.BCFW, ...: its New says
// what data it trains on; the soft solver and LP-hard need factor-graph
// data such as yeast, the kernelized methods multiclass data), its block
// steps run by the execution x when one is given (at most one; none: the
// sequential execution; package solver/execution). When the features are
// too large for lambda (solver.MeasureConditioning) a note says so and what
// to do. It is not kept in the session: see Session for trainers that live
// across cells.
func New(name string, data *Data, m run.Method, x ...run.Execution) (*Trainer, error) {
	if data == nil {
		return nil, fmt.Errorf("ssvmnb: %s: a run needs data (see Load and NewData)", name)
	}
	if m == nil || typedNil(m) {
		return nil, fmt.Errorf("ssvmnb: %s: a run needs a method (auto.Method{Lambda: lambda}, the default, chosen from the data; solver.Recommended(lambda), solver.BCFW{...}, soft.BCFW{...}, ...)%s", name, nilText(m))
	}
	exec, err := oneExecution(x)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	opts := data.wiring()
	if exec != nil {
		opts = append(opts, run.WithExecution(exec))
	}
	built := m
	if am, ok := m.(auto.Method); ok {
		c, err := auto.Choose(data.Train, am, 0, exec)
		if err != nil {
			return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
		}
		built = c.Method
		switch {
		case exec == nil:
			note(name + ": auto: " + c.String())
			if c.Execution != nil {
				opts = append(opts, run.WithExecution(c.Execution))
			}
		default:
			note(name + ": auto: " + c.Reason + "; the execution given (" + exec.Describe() + ")")
		}
	}
	s, err := built.New(data.Train, opts...)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	if s.Weights() != nil { // a kernel run's features are not those of its kernel
		warnIll(data, s.Lambda(), name)
	}
	m = recordable(m)
	t := &Trainer{Name: name, Live: true, Workers: runtime.GOMAXPROCS(0), s: s, on: data, data: data.spec, asked: m, started: m}
	if err := t.applyWorkers(); err != nil {
		return nil, err
	}
	return t, nil
}

// oneExecution returns the execution of x (nil: none), refusing more than
// one.
func oneExecution(x []run.Execution) (run.Execution, error) {
	switch len(x) {
	case 0:
		return nil, nil
	case 1:
		return x[0], nil
	}
	return nil, fmt.Errorf("at most one execution, got %d", len(x))
}

// wiring returns what connects a run to d: its test set when it has one.
func (d *Data) wiring() []run.Option {
	if d.Test == nil {
		return nil
	}
	return []run.Option{run.WithTest(d.Test)}
}

// Run runs passes further effective passes: it raises the trainer's pass
// budget by passes and runs until Passes() reaches it. When an exact gap
// pass falls due with less than a pass of budget left, the run stops
// there (up to one pass short) and the next Run starts with it, so that
// Run(5) twice ends where Run(10) does. The run ends with an exact
// evaluation of its final iterate (Current). In a notebook a live chart
// shows the progress; the stop button stops and stores the run (see
// RunUntil).
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

// RunUntil runs until stop (Stop.Passes is a total, as in run.Solver.Run)
// or ctx is canceled, and ends with an exact evaluation of the final
// iterate (an observe-only trace point when the trace does not end there).
//
// It catches SIGINT while it works (the stop button of a notebook, a
// kernel interrupt: see interrupt.go): the run stops at its next block
// step and is stored in the session at once, a note says at which pass it
// stands (where the next cell resumes it), then it is evaluated and
// stored again (its figure ends there), and the error says it was
// interrupted. GoNB kills the program 5 s after SIGINT: if that comes
// during the evaluation, the stored run lacks only the evaluation. A panic of the
// problem (a user's oracle) is an error, and the run is then not saved.
func (t *Trainer) RunUntil(ctx context.Context, stop run.Stop) (st run.Status, err error) {
	ctx, done := interruptible(ctx)
	defer done()
	if err := t.applyWorkers(); err != nil {
		return 0, err
	}
	if interrupted.Load() {
		return run.StatusCanceled, fmt.Errorf("ssvmnb: %s: %w before this run started: run the cell again", t.Name, errInterrupted)
	}
	t.carry = 0
	live := t.startLive()
	defer live.finish()
	timer := t.clock.start()
	t.s.SetProgress(func(p run.Point) {
		timer.mark(p)
		defer timer.pause()()
		live.update()
		if t.onPoint != nil {
			t.onPoint(p)
		}
	})
	defer t.s.SetProgress(nil)
	defer timer.stop()
	defer func() {
		if r := recover(); r != nil {
			st, err = run.StatusCanceled, fmt.Errorf("ssvmnb: %s: the run panicked (in the problem's oracle, loss or psi?): %v; the run is not saved", t.Name, r)
		}
	}()
	res, err := t.s.Run(ctx, stop)
	if err != nil {
		return res.Status, fmt.Errorf("ssvmnb: %s: %w", t.Name, err)
	}
	stopped := res.Status == run.StatusCanceled && interrupted.Load()
	if stopped {
		// Stored first, said, then evaluated: GoNB kills the program 5 s
		// after SIGINT, and an evaluation can take seconds (an oracle
		// pass, the test loss).
		timer.stop()
		if err := t.save(); err != nil {
			return res.Status, err
		}
		where := "the run is not kept in a session (ssvmnb.New)"
		if t.store != "" {
			where = "the run is stored in the session: run the cell again to continue from there"
		}
		note(fmt.Sprintf("%s: interrupted at pass %.6g: %s", t.Name, t.Passes(), where))
	}
	if !res.Current {
		if _, err := t.s.Current(); err != nil {
			return res.Status, fmt.Errorf("ssvmnb: %s: evaluating the final iterate: %w", t.Name, err)
		}
	}
	timer.stop()
	if err := t.save(); err != nil {
		return res.Status, err
	}
	if stopped {
		return res.Status, fmt.Errorf("ssvmnb: %s: %w at pass %.6g", t.Name, errInterrupted, t.Passes())
	}
	return res.Status, nil
}

// Solver returns the underlying solver (a *solver.Solver, *soft.Solver or
// *kernel.Solver), for everything the trainer does not wrap. Changes made
// through it directly are saved with the session at the next Run only,
// and are not recorded at the pass they happen: prefer Change and
// SetLambda of the trainer.
func (t *Trainer) Solver() run.Solver { return t.s }

// Method returns the run's current method (run.Solver.Method: the
// settings the run reads, the defaults filled in, Lambda the current one).
func (t *Trainer) Method() run.Method { return t.s.Method() }

// current returns the method as the cells asked for it, at the run's
// current lambda.
func (t *Trainer) current() run.Method { return t.asked.WithLambda(t.s.Lambda()) }

// Lambda returns the current regularization parameter.
func (t *Trainer) Lambda() float64 { return t.s.Lambda() }

// Data returns the data the run trains on.
func (t *Trainer) Data() *Data { return t.on }

// Test returns the test problem the run measures its test loss on (nil
// if none): the data's test set, or the view the method predicts it with
// (for the soft solver and LP-hard, its factorgraph.Rounded view: the LP
// relaxation and a rounding, as Meshi et al. predict).
func (t *Trainer) Test() oracles.Problem {
	if v, ok := t.s.(interface{ Test() oracles.Problem }); ok {
		return v.Test()
	}
	return t.on.Test
}

// Trace returns a copy of the trace.
func (t *Trainer) Trace() []run.Point {
	tr := t.s.Trace()
	if len(t.changed) == 0 {
		return tr
	}
	tr = slices.Clone(tr)
	for _, k := range t.changed {
		if k < len(tr) {
			tr[k].Event = strings.TrimPrefix(tr[k].Event, forkEvent)
		}
	}
	return tr
}

// forkEvent starts the event the solver records at a fork (solver.Fork),
// which Change and SetLambda are made of.
const forkEvent = "fork: "

// Last returns the last trace point (run.Blank before the first, every
// value NaN). After Run it describes the current iterate; Current says so
// for sure.
func (t *Trainer) Last() run.Point {
	p, ok := t.s.Last()
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
	p, err := t.s.Current()
	if err != nil {
		pt := run.Blank()
		pt.Pass, pt.OracleCalls, pt.Steps, pt.Seconds = t.s.Passes(), t.s.OracleCalls(), t.s.Steps(), t.s.Elapsed().Seconds()
		pt.Lambda, pt.Event = t.s.Lambda(), "evaluation failed: "+err.Error()
		return pt
	}
	return p
}

// Weights returns a copy of the current weights; nil for a kernel run,
// whose iterate is a kernel expansion (see kernel.Solver.Model).
func (t *Trainer) Weights() []float64 { return t.s.Weights() }

// AverageWeights returns the weights of the averaged iterate of a run of
// package solver that keeps an average (the Average or Averaging of its
// method), nil for the other runs.
func (t *Trainer) AverageWeights() []float64 {
	if a, ok := t.s.(interface{ AverageWeights() []float64 }); ok {
		return a.AverageWeights()
	}
	return nil
}

// Passes returns the effective passes made so far: oracle calls / n, the
// exact gap passes included (the x axis of the figures).
func (t *Trainer) Passes() float64 { return t.s.Passes() }

// TestLoss returns the task loss of the current iterate on the test set
// (NaN without one), its examples predicted as the method predicts them
// (run.Solver.Predict).
func (t *Trainer) TestLoss() float64 {
	if t.on.Test == nil {
		return math.NaN()
	}
	pred, p, err := t.s.Predict(t.on.Test)
	if err != nil || len(pred) == 0 {
		return math.NaN()
	}
	var sum float64
	for i, y := range pred {
		sum += p.Loss(i, y)
	}
	return sum / float64(len(pred))
}

// sessionVersion is the version of the files Save writes (a session's
// files among them); a file of another version is refused: "made by an
// older fwstruct: train again". Version 3 is framed and compressed
// (sessionfile.go) and leaves the display settings (Live, LiveEvery) to
// the cell; version 2 recorded the run's method as run.Encode writes it;
// the files before it (no version) recorded a configuration of its
// family.
const sessionVersion = 3

// trainerFile is what Save writes: the trainer's own fields and the
// solver's checkpoint. The display settings are not saved: a cell that
// turns the live chart off turns it off for itself, not for the cells
// that resume the run.
type trainerFile struct {
	Version int
	Name    string
	// Method is the run's method with its current settings
	// (run.Solver.Method, the defaults filled in) as run.Encode writes
	// it: the record a model file of the command line holds too.
	Method []byte
	// Asked and Started are the method as the cells asked for it, now and
	// when the run started (run.Encode).
	Asked, Started []byte
	Solver         []byte
	Data           *dataSpec
	Origin         string
	Carry          float64
	// Workers is Trainer.Workers.
	Workers int
	// Clock is the wall-clock time of the runs (clock.go).
	Clock *wallClock
	// Changes is Trainer.changed.
	Changes []int
}

// errOlder is the error of a file made before the current format.
var errOlder = errors.New("made by an older fwstruct: train again")

// Save writes the trainer to w (see the Save of its solver), in the
// framed, checksummed and compressed form of the session files
// (sessionfile.go): LoadTrainer refuses a file altered in any bit.
func (t *Trainer) Save(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.s.Save(&buf); err != nil {
		return err
	}
	tf := trainerFile{Version: sessionVersion, Name: t.Name, Solver: buf.Bytes(),
		Data: t.data, Origin: t.origin, Carry: t.carry, Workers: t.Workers, Clock: &t.clock, Changes: t.changed}
	var err error
	if tf.Method, err = run.Encode(t.s.Method()); err != nil {
		return err
	}
	if tf.Asked, err = run.Encode(t.current()); err != nil {
		return err
	}
	if tf.Started, err = run.Encode(t.started); err != nil {
		return err
	}
	return writeFramed(w, trainerContent, tf)
}

// saveFile writes the trainer to a file, atomically (internal/atomicfile).
func (t *Trainer) saveFile(path string) error {
	return atomicfile.WriteFile(path, 0o644, t.Save)
}

// readTrainerFile decodes what Save writes.
func readTrainerFile(r io.Reader) (trainerFile, error) {
	var tf trainerFile
	if err := readFramed(r, trainerContent, &tf, func() int { return tf.Version }); err != nil {
		return tf, err
	}
	if tf.Version != sessionVersion {
		return tf, fmt.Errorf("ssvmnb: a saved trainer of version %d, not %d: %w", tf.Version, sessionVersion, errOlder)
	}
	return tf, nil
}

// method returns the run's method the file records.
func (tf trainerFile) method() (run.Method, error) {
	m, err := run.Decode(tf.Method)
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: saved trainer %q: %w", tf.Name, err)
	}
	return m, nil
}

// fromFile restores a trainer from its file contents on data.
func fromFile(tf trainerFile, data *Data) (*Trainer, error) {
	asked, err := run.Decode(tf.Asked)
	if err != nil {
		return nil, fmt.Errorf("saved trainer %q: %w", tf.Name, err)
	}
	started, err := run.Decode(tf.Started)
	if err != nil {
		return nil, fmt.Errorf("saved trainer %q: %w", tf.Name, err)
	}
	s, err := run.Load(bytes.NewReader(tf.Solver), data.Train, data.wiring()...)
	if err != nil {
		return nil, err
	}
	t := &Trainer{Name: tf.Name, Live: true, Workers: tf.Workers, s: s, on: data,
		data: tf.Data, asked: asked, started: started, origin: tf.Origin, carry: tf.Carry, changed: tf.Changes}
	if tf.Clock != nil {
		t.clock = *tf.Clock
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

// errNoTrace reports an empty trace where a figure needs points.
var errNoTrace = errors.New("ssvmnb: the run has no trace point yet: call Run first")

// VizRun returns the trainer's trace as a named run in its style, for the
// figures of package viz.
func (t *Trainer) VizRun() viz.Run {
	return viz.Run{Name: t.Name, Trace: t.Trace(), Style: StyleOf(t.Name)}
}
