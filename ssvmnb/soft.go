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
	"path/filepath"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
	"github.com/fwstruct/fwstruct/viz"
)

// SoftTrainer is a named, resumable run of the soft-constraint solver
// (package soft; Meshi et al. 2015, Alg. 1) on a factor-graph model: the
// counterpart of Trainer, which wraps the example-level solver only. Run
// some passes, look at the soft and hard objectives, run more.
type SoftTrainer struct {
	// Name labels the run in figures and tables.
	Name string
	// Live shows the objectives chart updated in place while Run works (in
	// a notebook only); NewSoft sets it to true.
	Live bool
	// LiveEvery is the minimal time between two live updates; zero means
	// 500 ms.
	LiveEvery time.Duration
	// Reference is the optimum g* of the hard problem (e.g. the primal of a
	// converged LP-hard run), drawn as a horizontal line; NaN or 0: none.
	Reference float64

	s     *soft.Solver
	test  oracles.Problem
	store string // session file (see SoftSession)
}

// NewSoft returns a soft trainer for the model m (test may be nil, e.g. a
// factorgraph.Rounded view of the test model) with configuration cfg.
func NewSoft(name string, m *factorgraph.Model, test oracles.Problem, cfg soft.Config) (*SoftTrainer, error) {
	s, err := soft.New(m, cfg, soft.WithTest(test))
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	return &SoftTrainer{Name: name, Live: true, Reference: math.NaN(), s: s, test: test}, nil
}

// Run runs the given number of further passes (a pass is one step per
// block on average; see package soft).
func (t *SoftTrainer) Run(passes float64) (run.Status, error) {
	if !(passes > 0) {
		return 0, fmt.Errorf("ssvmnb: %s: passes must be positive, got %v", t.Name, passes)
	}
	return t.RunUntil(context.Background(), run.Stop{Passes: t.s.Passes() + passes})
}

// RunUntil runs until stop (Stop.Passes is a total) or ctx is canceled,
// updating the live chart in a notebook.
func (t *SoftTrainer) RunUntil(ctx context.Context, stop run.Stop) (run.Status, error) {
	chart := newLiveChart(t.Live, t.LiveEvery, func() string {
		last, _ := t.s.Last()
		return fmt.Sprintf("%s: pass %.1f, soft gap %s, hard objective %s", t.Name, last.Pass, Cell(last.Gap), Cell(last.HardPrimal))
	}, t.ObjectivesFigure)
	t.s.SetProgress(func(run.Point) { chart.update() })
	defer t.s.SetProgress(nil)
	res, err := t.s.Run(ctx, stop)
	chart.finish()
	if err != nil {
		return res.Status, err
	}
	return res.Status, t.saveSession()
}

// Solver returns the underlying soft solver.
func (t *SoftTrainer) Solver() *soft.Solver { return t.s }

// Trace returns a copy of the trace.
func (t *SoftTrainer) Trace() []run.Point { return t.s.Trace() }

// Current returns the exact evaluation of the current iterate (recorded in
// the trace when the last point does not describe it; see
// soft.Solver.Current), or the last point should the evaluation fail.
func (t *SoftTrainer) Current() run.Point {
	if pt, err := t.s.Current(); err == nil {
		return pt
	}
	last, _ := t.s.Last()
	return last
}

// Weights returns a copy of the current weights.
func (t *SoftTrainer) Weights() []float64 { return t.s.Weights() }

// Passes returns the passes made so far.
func (t *SoftTrainer) Passes() float64 { return t.s.Passes() }

// VizRun returns the trainer's trace as a named run for the figures of viz.
func (t *SoftTrainer) VizRun() viz.Run { return viz.Run{Name: t.Name, Trace: t.Trace()} }

// ObjectivesFigure plots the run as Meshi's Fig. 1 (left) does: the soft
// primal g_rho and dual f_rho (solid) and the hard primal g(w, delta)
// (dashed) against passes, with the reference g* when set.
func (t *SoftTrainer) ObjectivesFigure() *viz.Figure {
	r := t.VizRun()
	if len(r.Trace) == 0 || r.Trace[len(r.Trace)-1].Steps != t.s.Steps() {
		if pt, err := t.s.Evaluate(); err == nil {
			r.Trace = append(r.Trace, pt)
		}
	}
	return SoftObjectives(t.Reference, r)
}

// Show displays the objectives figure of the trainer in a notebook.
func (t *SoftTrainer) Show() error {
	if len(t.Trace()) == 0 {
		return errNoTrace
	}
	return Show(t.ObjectivesFigure())
}

// softFile is what SoftTrainer.Save writes.
type softFile struct {
	Name      string
	Live      bool
	LiveEvery time.Duration
	Reference float64
	Solver    []byte
}

// Save writes the trainer to w (see soft.Solver.Save).
func (t *SoftTrainer) Save(w io.Writer) error {
	var buf bytes.Buffer
	if err := t.s.Save(&buf); err != nil {
		return err
	}
	return gob.NewEncoder(w).Encode(softFile{Name: t.Name, Live: t.Live, LiveEvery: t.LiveEvery, Reference: t.Reference, Solver: buf.Bytes()})
}

// LoadSoft reads a trainer written by Save; m and test must be the model
// and test problem it was trained with (the model is checked by soft.Load).
func LoadSoft(r io.Reader, m *factorgraph.Model, test oracles.Problem) (*SoftTrainer, error) {
	var f softFile
	err := gob.NewDecoder(r).Decode(&f)
	t := &SoftTrainer{Name: f.Name, Live: f.Live, LiveEvery: f.LiveEvery, Reference: f.Reference, test: test}
	if err == nil {
		t.s, err = soft.Load(bytes.NewReader(f.Solver), m, soft.WithTest(test))
	}
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: load soft trainer: %w", err)
	}
	return t, nil
}

// SoftSession returns the soft trainer called name from the session store
// (see Session; its file is that of the session name + ".soft"), or a new
// one, and makes every Run save it back, so that a notebook continues the
// same run from cell to cell. A stored run of another configuration is an
// error: ForgetSoft it or pick another name.
func SoftSession(name string, m *factorgraph.Model, test oracles.Problem, cfg soft.Config) (*SoftTrainer, error) {
	path, err := sessionFile(name + softSuffix)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		t, err := NewSoft(name, m, test, cfg)
		if err != nil {
			return nil, err
		}
		t.store = path
		return t, t.saveSession()
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := LoadSoft(f, m, test)
	switch {
	case err != nil:
		return nil, fmt.Errorf("ssvmnb: soft session %q: %w (ForgetSoft it to start over)", name, err)
	case t.s.Config() != cfg.WithDefaults():
		return nil, fmt.Errorf("ssvmnb: soft session %q was started with %+v; ForgetSoft(%q) to start over with %+v, or use another name", name, t.s.Config(), name, cfg.WithDefaults())
	}
	t.store = path
	return t, nil
}

// softSuffix tells the session files of soft trainers from those of
// Trainers, so that the two kinds never read each other.
const softSuffix = ".soft"

// ForgetSoft deletes the stored soft trainer called name (no error if there
// is none).
func ForgetSoft(name string) error { return Forget(name + softSuffix) }

// saveSession writes a session trainer to its store (atomically).
func (t *SoftTrainer) saveSession() error {
	if t.store == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(t.store), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(t.store, 0o644, t.Save)
}

// SoftObjectives plots Meshi's Fig. 1 (left) for several soft runs: per run
// (one color each) the soft primal g_rho and dual f_rho (solid, "g_rho" and
// "f_rho") and the hard primal g(w, delta) (dashed, "g") against passes,
// and the reference g* as a horizontal line when finite and positive.
func SoftObjectives(reference float64, runs ...viz.Run) *viz.Figure {
	f := &viz.Figure{Title: "Soft and hard objectives", XLabel: viz.Passes.String(), YLabel: "objective"}
	for i, r := range runs {
		for _, c := range []struct {
			suffix string
			value  func(run.Point) float64
			dashed bool
		}{
			{" g_rho", func(p run.Point) float64 { return p.Primal }, false},
			{" f_rho", func(p run.Point) float64 { return p.Dual }, false},
			{" g", func(p run.Point) float64 { return p.HardPrimal }, true},
		} {
			s := viz.Series{Name: r.Name + c.suffix, Color: viz.Color(i), Dashed: c.dashed}
			for _, p := range r.Trace {
				s.X = append(s.X, p.Pass)
				s.Y = append(s.Y, c.value(p))
			}
			f.Series = append(f.Series, s)
		}
	}
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// RhoSweep is Meshi's Fig. 1 (right): one soft run per penalty rho, each
// read at fixed pass budgets.
type RhoSweep struct {
	// Rhos are the penalties.
	Rhos []float64
	// Budgets are the passes at which every run is read, increasing.
	Budgets []float64
	// Base is the configuration of every run but Rho.
	Base soft.Config
}

// RhoSweepResult holds the runs of a RhoSweep and, for every run and
// budget, the exact evaluation at that budget.
type RhoSweepResult struct {
	Rhos, Budgets []float64
	Trainers      []*SoftTrainer
	// At[r][b] is the evaluation of run r after Budgets[b] passes (the
	// run stops up to a pass early when a gap pass would not fit).
	At [][]run.Point
}

// SweepRho runs the sweep on the model m (test may be nil) in one call.
func SweepRho(ctx context.Context, m *factorgraph.Model, test oracles.Problem, sw RhoSweep) (*RhoSweepResult, error) {
	if len(sw.Rhos) == 0 || len(sw.Budgets) == 0 {
		return nil, errors.New("ssvmnb: a rho sweep needs Rhos and Budgets")
	}
	for k, b := range sw.Budgets {
		if !(b > 0) || k > 0 && !(b > sw.Budgets[k-1]) {
			return nil, fmt.Errorf("ssvmnb: rho sweep budgets must be positive and increasing, got %v", sw.Budgets)
		}
	}
	res := &RhoSweepResult{Rhos: sw.Rhos, Budgets: sw.Budgets}
	for _, rho := range sw.Rhos {
		cfg := sw.Base
		cfg.Rho = rho
		t, err := NewSoft(fmt.Sprintf("rho = %g", rho), m, test, cfg)
		if err != nil {
			return res, err
		}
		t.Live = false
		var at []run.Point
		for _, b := range sw.Budgets {
			if _, err := t.RunUntil(ctx, run.Stop{Passes: b}); err != nil {
				return res, err
			}
			at = append(at, t.Current())
		}
		res.Trainers = append(res.Trainers, t)
		res.At = append(res.At, at)
	}
	return res, nil
}

// Figure plots the objective against rho (log scale) at every budget: the
// soft primal g_rho (solid) and the hard primal g (dashed), one color per
// budget, with the reference g* as a horizontal line when finite and
// positive (Meshi Fig. 1, right).
func (r *RhoSweepResult) Figure(reference float64) *viz.Figure {
	f := &viz.Figure{Title: "Objective at fixed budgets against rho", XLabel: "rho", YLabel: "objective", LogX: true}
	for b, budget := range r.Budgets {
		soft := viz.Series{Name: fmt.Sprintf("g_rho, %g passes", budget), Color: viz.Color(b), Markers: true}
		hard := viz.Series{Name: fmt.Sprintf("g, %g passes", budget), Color: viz.Color(b), Markers: true, Dashed: true}
		for k, rho := range r.Rhos {
			p := r.At[k][b]
			soft.X, soft.Y = append(soft.X, rho), append(soft.Y, p.Primal)
			hard.X, hard.Y = append(hard.X, rho), append(hard.Y, p.HardPrimal)
		}
		f.Series = append(f.Series, soft, hard)
	}
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// Table tabulates the sweep: per rho and budget the passes made, the soft
// primal, dual and gap, the hard primal and the test loss.
func (r *RhoSweepResult) Table() *Table {
	t := &Table{Caption: "objectives against rho at fixed budgets",
		Columns: []string{"rho", "budget", "passes", "g_rho", "f_rho", "soft gap", "g (hard)", "solver s", "test loss"}}
	for k, rho := range r.Rhos {
		for b, budget := range r.Budgets {
			p := r.At[k][b]
			t.AddRow(rho, budget, p.Pass, p.Primal, p.Dual, p.Gap, p.HardPrimal, p.Seconds, p.TestLoss)
		}
	}
	return t
}

// HardRun is a run of the example-level solver (LP-hard BCFW on a
// factorgraph.Relaxed view, exact BCFW on an Exact view) whose trace has
// HardPrimal filled in at every point: the LP-relaxed primal of its
// weights (soft.RelaxedPrimal), computed in the progress callback, outside
// the solver time (and equal to Primal on the Relaxed view itself). So
// every run of Meshi's Fig. 2 is measured on the same hard objective g.
type HardRun struct {
	// Name labels the run in figures.
	Name  string
	s     *solver.Solver
	trace []run.Point
	err   error // the first error of RelaxedPrimal
}

// NewHardRun returns a hard run of the solver configuration cfg on p
// (test may be nil), measured on the relaxed view rel of the same model.
func NewHardRun(name string, p oracles.Problem, rel *factorgraph.Relaxed, test oracles.Problem, cfg solver.Config) (*HardRun, error) {
	h := &HardRun{Name: name}
	s, err := solver.New(p, cfg, solver.WithTest(test), solver.WithProgress(func(pt run.Point) {
		switch {
		case p == oracles.Problem(rel):
			pt.HardPrimal = pt.Primal // the primal of LP-hard BCFW is the relaxed one
		case h.err == nil:
			pt.HardPrimal, h.err = soft.RelaxedPrimal(rel, cfg.Lambda, h.s.Weights(), 2)
		}
		h.trace = append(h.trace, pt)
	}))
	if err != nil {
		return nil, fmt.Errorf("ssvmnb: %s: %w", name, err)
	}
	h.s = s
	return h, nil
}

// RunUntil runs until stop (Stop.Passes is a total) and evaluates the final
// iterate, so that the trace ends there.
func (h *HardRun) RunUntil(ctx context.Context, stop run.Stop) (run.Status, error) {
	res, err := h.s.Run(ctx, stop)
	if err == nil {
		_, err = h.s.Current()
	}
	if err == nil {
		err = h.err
	}
	return res.Status, err
}

// Solver returns the underlying solver.
func (h *HardRun) Solver() *solver.Solver { return h.s }

// VizRun returns the trace, with HardPrimal, as a named run.
func (h *HardRun) VizRun() viz.Run {
	return viz.Run{Name: h.Name, Trace: append([]run.Point(nil), h.trace...)}
}

// HardObjectives plots Meshi's Fig. 2 (top): the hard objective
// (soft.HardObjective) of several runs, soft and hard, against x (solver
// time in the paper), with the reference g* as a horizontal line when
// finite and positive.
func HardObjectives(x viz.XAxis, reference float64, runs ...viz.Run) *viz.Figure {
	f := &viz.Figure{Title: "Hard objective g", XLabel: x.String(), YLabel: "hard objective g", LogX: x == viz.Seconds}
	for i, r := range runs {
		s := viz.Series{Name: r.Name, Color: viz.Color(i)}
		for _, p := range r.Trace {
			s.X = append(s.X, x.Of(p))
			s.Y = append(s.Y, soft.HardObjective(p))
		}
		f.Series = append(f.Series, s)
	}
	if reference > 0 && !math.IsInf(reference, 0) {
		f.HLines = []viz.HLine{{Y: reference, Label: "g*"}}
	}
	return f
}

// Accuracies plots Meshi's Fig. 2 (bottom): 1 - test loss of several runs
// against x (with a normalized Hamming loss, the test Hamming accuracy).
func Accuracies(x viz.XAxis, runs ...viz.Run) *viz.Figure {
	f := &viz.Figure{Title: "Test accuracy", XLabel: x.String(), YLabel: "1 - test loss", LogX: x == viz.Seconds}
	for i, r := range runs {
		s := viz.Series{Name: r.Name, Color: viz.Color(i), Markers: true}
		for _, p := range r.Trace {
			s.X = append(s.X, x.Of(p))
			s.Y = append(s.Y, 1-p.TestLoss)
		}
		f.Series = append(f.Series, s)
	}
	return f
}

// Reaches returns the x coordinate (passes, solver time, oracle calls) of
// the first trace point of r whose hard objective (soft.HardObjective) is
// at most target, or NaN when the run never gets there: e.g. the time a run
// takes to come within 1% of the best hard objective (Meshi Fig. 2).
func Reaches(r viz.Run, x viz.XAxis, target float64) float64 {
	for _, p := range r.Trace {
		if soft.HardObjective(p) <= target {
			return x.Of(p)
		}
	}
	return math.NaN()
}
