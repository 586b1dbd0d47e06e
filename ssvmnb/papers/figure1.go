package papers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/ssvmnb"
	"github.com/fwstruct/fwstruct/viz"
)

// Figure1Config configures Figure1, the reproduction of Fig. 1 of
// Lacoste-Julien et al. (2013) (and of Fig. 3 of its appendix for the test
// error): BCFW, BCFW-wavg, SSG, SSG-wavg, batch FW and the cutting-plane
// method, primal suboptimality and test error against effective passes.
// The zero value reproduces the paper's three regularization parameters
// on whatever problem it is given (the paper uses OCR-large).
type Figure1Config struct {
	// Lambdas are the regularization parameters of the panels; nil means
	// 0.01, 0.001 and 1/n.
	Lambdas []float64
	// Seeds are the seeds of the stochastic methods (BCFW, SSG), whose
	// figures show the median and the min/max band over them; nil means 1
	// to 3 (the paper: 10 runs; BenchmarkFigure1OCRLarge says what a seed
	// costs).
	Seeds []uint64
	// Passes is the effective passes of every run; zero means 30.
	Passes float64
	// Methods selects methods by name (see Figure1Methods and
	// Figure1AppendixMethods); nil means Figure1Methods.
	Methods []string
}

// Figure1Methods are the method names of Figure1, in the paper's order.
var Figure1Methods = []string{"BCFW", "BCFW-wavg", "SSG", "SSG-wavg", "FW", "cutting plane"}

// Figure1AppendixMethods are the further stochastic methods of Fig. 3 and 4
// of the paper's appendix (App. F), which Figure1 runs when
// Figure1Config.Methods names them: the 0.5-suffix averages by the doubling
// trick of BCFW and SSG, SSG's uniform average, and online exponentiated
// gradient (chain problems only). Each is a run of its own (its plain
// iterate is the BCFW or SSG of the same seed).
var Figure1AppendixMethods = []string{"BCFW-tavg", "SSG-tavg", "SSG-avg", "online-EG"}

// figure1Runs are the runs of Figure1: the method at a lambda and a seed,
// and the names of its plain and averaged curves ("" for none). The
// stochastic methods make no gap passes of their own (GapEvery never) and
// are evaluated every pass (TraceEvery 1); the batch ones at every
// iteration.
var figure1Runs = []struct {
	plain, avg string
	batch      bool // deterministic: one run, drawn as its lower envelope
	method     func(lambda float64, seed uint64) run.Method
}{
	{"BCFW", "BCFW-wavg", false, func(l float64, seed uint64) run.Method {
		return solver.BCFW{Lambda: l, Average: run.WeightedAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"", "BCFW-tavg", false, func(l float64, seed uint64) run.Method {
		return solver.BCFW{Lambda: l, Average: run.SuffixAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"SSG", "SSG-wavg", false, func(l float64, seed uint64) run.Method {
		return solver.SSG{Lambda: l, Average: run.WeightedAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"", "SSG-tavg", false, func(l float64, seed uint64) run.Method {
		return solver.SSG{Lambda: l, Average: run.SuffixAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"", "SSG-avg", false, func(l float64, seed uint64) run.Method {
		return solver.SSG{Lambda: l, Average: run.UniformAverage, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"online-EG", "", false, func(l float64, seed uint64) run.Method {
		return solver.OnlineEG{Lambda: l, GapEvery: -1, TraceEvery: 1, Seed: seed}
	}},
	{"FW", "", true, func(l float64, _ uint64) run.Method { return solver.FW{Lambda: l, GapEvery: 1} }},
	{"cutting plane", "", true, func(l float64, _ uint64) run.Method { return solver.CuttingPlane{Lambda: l, GapEvery: 1} }},
}

// Figure1Method is one curve of a panel: a method and its runs (one per
// seed; one for the deterministic batch methods). Every trace point
// describes the iterate the curve plots: for the -wavg methods, Primal,
// Dual, Gap and TestLoss are those of the weighted average.
type Figure1Method struct {
	Name string
	// Batch marks FW and the cutting-plane method, whose primal the paper
	// draws as its lower envelope (the best iterate so far, App. F).
	Batch  bool
	Traces [][]run.Point
}

// Figure1Panel holds the runs of one regularization parameter.
type Figure1Panel struct {
	Lambda  float64
	Methods []Figure1Method
	// BestDual is the highest dual objective of any method at any point:
	// the reference of the primal suboptimality, as in the paper (App. F).
	BestDual float64
}

// Figure1 runs the methods of Fig. 1 of Lacoste-Julien et al. (2013) on
// train (and on request those of Fig. 3 and 4 of its appendix,
// Figure1AppendixMethods), recording the test error on test (nil: none),
// for every lambda of cfg, and returns the traces. BCFW and SSG are run
// with weighted averaging, which gives the plain and the -wavg curves from
// the same runs (the -tavg and -avg curves from runs of their own, online
// EG like them);
// they make no gap passes of their own (observe-only evaluations every
// pass, as the paper's offline curves), FW and the cutting-plane method are
// evaluated at every iteration (a pass each). The test error of the
// averaged iterates is computed at every trace point (outside the solver
// time).
func Figure1(ctx context.Context, train, test oracles.Problem, cfg Figure1Config) ([]Figure1Panel, error) {
	if train == nil {
		return nil, errors.New("papers: Figure1 needs a training problem")
	}
	lambdas := cfg.Lambdas
	if lambdas == nil {
		lambdas = []float64{0.01, 0.001, 1 / float64(train.Len())}
	}
	seeds := cfg.Seeds
	if seeds == nil {
		seeds = []uint64{1, 2, 3}
	}
	passes := cfg.Passes
	if passes == 0 {
		passes = 30
	}
	if !(passes > 0) || math.IsInf(passes, 0) {
		return nil, fmt.Errorf("papers: Figure1 needs positive passes, got %v", passes)
	}
	want := map[string]bool{}
	for _, m := range cfg.Methods {
		if !contains(Figure1Methods, m) && !contains(Figure1AppendixMethods, m) {
			return nil, fmt.Errorf("papers: unknown Figure1 method %q (want one of %v or %v)", m, Figure1Methods, Figure1AppendixMethods)
		}
		want[m] = true
	}
	on := func(name string) bool {
		return name != "" && (want[name] || len(want) == 0 && contains(Figure1Methods, name))
	}
	var panels []Figure1Panel
	for _, lambda := range lambdas {
		panel := Figure1Panel{Lambda: lambda, BestDual: math.Inf(-1)}
		for _, alg := range figure1Runs {
			if !on(alg.plain) && !on(alg.avg) {
				continue
			}
			plain := Figure1Method{Name: alg.plain, Batch: alg.batch}
			avg := Figure1Method{Name: alg.avg}
			runSeeds := seeds
			if alg.batch {
				runSeeds = []uint64{1}
			}
			for _, seed := range runSeeds {
				tr, trAvg, err := figure1Run(ctx, train, test, alg.method(lambda, seed), alg.avg != "", passes)
				if err != nil {
					return panels, fmt.Errorf("papers: Figure1: %s at lambda %g: %w", cmp.Or(alg.plain, alg.avg), lambda, err)
				}
				plain.Traces = append(plain.Traces, tr)
				avg.Traces = append(avg.Traces, trAvg)
			}
			for _, m := range []Figure1Method{plain, avg} {
				if on(m.Name) {
					panel.Methods = append(panel.Methods, m)
				}
			}
		}
		for _, m := range panel.Methods {
			for _, tr := range m.Traces {
				for _, p := range tr {
					if !math.IsNaN(p.Dual) {
						panel.BestDual = math.Max(panel.BestDual, p.Dual)
					}
				}
			}
		}
		panels = append(panels, panel)
	}
	return panels, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// figure1Run runs one method of package solver and returns its trace and,
// for a method that keeps an average (averaged), the trace of the averaged
// iterate (nil otherwise).
func figure1Run(ctx context.Context, train, test oracles.Problem, m run.Method, averaged bool, passes float64) (plain, avg []run.Point, err error) {
	var avgLoss []float64
	var opts []run.Option
	if test != nil {
		opts = append(opts, run.WithTest(test))
	}
	rs, err := m.New(train, opts...)
	if err != nil {
		return nil, nil, err
	}
	s := rs.(*solver.Solver) // the averaged weights are package solver's
	if averaged && test != nil {
		s.SetProgress(func(run.Point) { avgLoss = append(avgLoss, oracles.MeanLoss(test, s.AverageWeights())) })
	}
	if _, err := s.Run(ctx, run.Stop{Passes: passes}); err != nil {
		return nil, nil, err
	}
	plain = s.Trace()
	if !averaged {
		return plain, nil, nil
	}
	avg = make([]run.Point, len(plain))
	for k, p := range plain {
		p.Primal, p.Dual, p.Gap = p.PrimalAvg, p.DualAvg, p.GapAvg
		p.TestLoss = math.NaN()
		if k < len(avgLoss) {
			p.TestLoss = avgLoss[k]
		}
		avg[k] = p
	}
	return plain, avg, nil
}

// Suboptimality returns the primal suboptimality of a method's runs,
// primal minus the panel's best dual, one curve per run; for the batch
// methods, the lower envelope of the primal (the best iterate so far).
func (p *Figure1Panel) Suboptimality(m Figure1Method) [][]run.Point {
	out := make([][]run.Point, len(m.Traces))
	for r, tr := range m.Traces {
		best := math.Inf(1)
		out[r] = make([]run.Point, len(tr))
		for k, pt := range tr {
			v := pt.Primal
			if m.Batch {
				best = math.Min(best, v)
				v = best
			}
			pt.Primal = v - p.BestDual
			out[r][k] = pt
		}
	}
	return out
}

// Objective is the panel's top figure: the primal suboptimality against
// effective passes, log-log, the median and min/max band over seeds.
func (p *Figure1Panel) Objective() *viz.Figure {
	f := &viz.Figure{Title: fmt.Sprintf("primal suboptimality, lambda = %.3g", p.Lambda), XLabel: viz.Passes.String(),
		YLabel: "primal suboptimality", LogX: true, LogY: true}
	for _, m := range p.Methods {
		s := viz.Aggregate(m.Name, p.Suboptimality(m), viz.Passes, func(pt run.Point) float64 { return pt.Primal }, nil)
		st := ssvmnb.StyleOf(m.Name)
		s.Color, s.Dash = st.Color, st.Dash
		f.Series = append(f.Series, s)
	}
	return f
}

// TestError is the panel's bottom figure: the test error against
// effective passes, the median and min/max band over seeds.
func (p *Figure1Panel) TestError() *viz.Figure {
	f := &viz.Figure{Title: fmt.Sprintf("test error, lambda = %.3g", p.Lambda), XLabel: viz.Passes.String(),
		YLabel: "test error", LogX: true}
	for _, m := range p.Methods {
		s := viz.Aggregate(m.Name, m.Traces, viz.Passes, func(pt run.Point) float64 { return pt.TestLoss }, nil)
		st := ssvmnb.StyleOf(m.Name)
		s.Color, s.Dash = st.Color, st.Dash
		f.Series = append(f.Series, s)
	}
	return f
}
