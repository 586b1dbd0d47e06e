package soft

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// BCFW is soft-constraint BCFW (Meshi, Srebro and Hazan 2015, Alg. 1):
// BCFW over the variable and factor blocks of a factor graph, the
// agreement constraints between them relaxed with penalty Rho. Its zero
// value (with Lambda and Rho) samples the blocks uniformly and makes an
// exact gap pass every 10 passes. It trains on factor-graph data (yeast, a
// MULAN dataset: a problem of package factorgraph) and predicts by LP +
// rounding (factorgraph.Rounded), as Meshi et al. do.
type BCFW struct {
	// Lambda is the regularization parameter (> 0) of Meshi's eq. 2.
	Lambda float64 `json:"lambda"`
	// Rho is the penalty on the violation of the agreement constraints
	// (> 0, finite; Meshi eq. 5): the smaller, the closer the soft optimum
	// g*_rho to the hard one g*, and the slower the convergence.
	Rho float64 `json:"rho"`
	// Sampling is run.Uniform (zero: over the blocks, Meshi Alg. 1, line
	// 3, as its analysis assumes), run.Permutation (a fresh random order
	// every pass), run.GapSampling (proportional to the last block gap,
	// Osokin et al. 2016, Alg. 2, unvisited blocks first) or
	// run.ExamplePermutation (a fresh random order every pass that keeps
	// each example's blocks together; see "Sampling" in the package
	// documentation).
	Sampling run.Sampling `json:"sampling"`
	// GapEvery is the number of passes (block steps / Blocks) between two
	// exact gap passes; zero means 10 and a negative value never. A gap
	// pass maximizes every block once: it refreshes the block gaps of gap
	// sampling, re-anchors w and delta on mu, certifies the gap for
	// stopping and is recorded in the trace; it counts as a pass of oracle
	// calls (its time is not counted, as for every exact evaluation).
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none); they never change the run.
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the random sampling; runs with equal seeds are identical.
	Seed uint64 `json:"seed"`
}

func init() { run.Register(BCFW{}, loadRun) }

// Name returns "soft".
func (BCFW) Name() string { return "soft" }

// New returns the soft solver of m on the factor-graph model of p at the
// starting point of Alg. 1 (line 1): every block's marginals on the true
// state, w = 0, delta = 0. A test problem (run.WithTest) of factor-graph
// data is predicted by LP + rounding.
func (m BCFW) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	fg, err := factorgraph.ModelOf(p)
	if err != nil {
		return nil, fmt.Errorf("soft: %w", err)
	}
	cfg, err := m.plan()
	if err != nil {
		return nil, fmt.Errorf("soft: %w", err)
	}
	return newSolver(fg, cfg, opts...)
}

// WithLambda returns m at lambda.
func (m BCFW) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// WithRho returns m at rho (tune's second hyperparameter).
func (m BCFW) WithRho(rho float64) run.Method { m.Rho = rho; return m }

func (m BCFW) plan() (config, error) {
	if math.IsNaN(m.GapEvery) {
		return config{}, fmt.Errorf("GapEvery is NaN (zero: every 10 passes, negative: never)")
	}
	ge := m.GapEvery
	if ge < 0 {
		ge = math.Inf(1)
	}
	return config{Lambda: m.Lambda, Rho: m.Rho, Sampling: m.Sampling, GapEvery: ge, TraceEvery: m.TraceEvery, Seed: m.Seed}, nil
}

// methodOf is the method a plan was compiled from.
func methodOf(cfg config) BCFW {
	ge := cfg.GapEvery
	if math.IsInf(ge, 1) {
		ge = -1
	}
	return BCFW{Lambda: cfg.Lambda, Rho: cfg.Rho, Sampling: cfg.Sampling, GapEvery: ge, TraceEvery: cfg.TraceEvery, Seed: cfg.Seed}
}

// loadRun is the run.Loader of BCFW.
func loadRun(r io.Reader, p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	s, err := Load(r, p, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Method returns the method of the run with its settings (the defaults
// filled in).
func (s *Solver) Method() run.Method { return methodOf(s.cfg) }

// Execution returns nil: the soft solver's steps are sequential (its
// gap passes and evaluations use the workers).
func (s *Solver) Execution() run.Execution { return nil }

// Lambda returns the current regularization parameter.
func (s *Solver) Lambda() float64 { return s.cfg.Lambda }

// CheckStop reports whether the run can meet stop's criteria.
func (s *Solver) CheckStop(stop run.Stop) error { return s.checkStoppable(context.Background(), stop) }

// Predict returns the labelings the current weights predict by LP +
// rounding for every example of p (factor-graph data) and the
// factorgraph.Rounded view that scores them.
func (s *Solver) Predict(p oracles.Problem) ([][]int32, oracles.Problem, error) {
	r, err := roundedView(p)
	if err != nil {
		return nil, nil, fmt.Errorf("soft: predict: %w", err)
	}
	if r.Dim() != s.d {
		return nil, nil, fmt.Errorf("soft: predict: the problem has dimension %d, the model %d", r.Dim(), s.d)
	}
	pred := make([][]int32, r.Len())
	err = core.Parallel(r.Len(), s.workers, func(_, i int) error {
		pred[i] = r.Predict(i, s.w, nil)
		return nil
	})
	return pred, r, err
}

// Fork returns a new solver that continues this run under m, a soft BCFW
// that differs from the run's method in Lambda and Rho at most (the
// marginals stay feasible for both: SetLambda, and for rho an exact gap
// pass at the new rho recorded with the event "rho a -> b", which
// recomputes delta = A mu / (rho M)); the soft solver has no warm start
// under another change (a changed schedule or sampling changes its
// state). A zero Lambda means the current one.
func (s *Solver) Fork(m run.Method, opts ...run.Option) (run.Solver, error) {
	c, ok := m.(BCFW)
	if !ok {
		return nil, fmt.Errorf("soft: fork: a soft run cannot continue as %s: start a new run", methodName(m))
	}
	if c.Lambda == 0 {
		c.Lambda = s.cfg.Lambda
	}
	want, err := c.plan()
	if err != nil {
		return nil, fmt.Errorf("soft: fork: %w", err)
	}
	want = want.withDefaults()
	same := want
	same.Lambda, same.Rho = s.cfg.Lambda, s.cfg.Rho
	if same != s.cfg {
		from, _ := run.Encode(s.Method())
		to, _ := run.Encode(methodOf(want))
		return nil, fmt.Errorf("soft: fork: the soft solver cannot change its method mid-run but for Lambda and Rho (%s to %s): start a new run", from, to)
	}
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		return nil, err
	}
	wiring := []run.Option{run.WithTest(s.test), run.WithWorkers(s.workers)}
	f, err := load(&buf, s.m, append(wiring, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := f.setRho(want.Rho); err != nil {
		return nil, fmt.Errorf("soft: fork: %w", err)
	}
	if err := f.SetLambda(want.Lambda); err != nil {
		return nil, err
	}
	return f, nil
}

// methodName names a method for messages (nil: none).
func methodName(m run.Method) string {
	if m == nil {
		return "no method"
	}
	return m.Name()
}

// roundedView returns the LP + rounding view of p's factor-graph model (p
// itself when it is one).
func roundedView(p oracles.Problem) (oracles.Problem, error) {
	if r, ok := p.(*factorgraph.Rounded); ok {
		return r, nil
	}
	m, err := factorgraph.ModelOf(p)
	if err != nil {
		return nil, err
	}
	return factorgraph.NewRounded(m)
}

var _ run.Solver = (*Solver)(nil)
