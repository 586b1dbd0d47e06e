package solver

import (
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// FW is batch Frank-Wolfe on the structural SVM dual (Lacoste-Julien et
// al. 2013, Alg. 2; with box constraints Osokin et al. 2016, Alg. 8): every
// iteration calls every example's max oracle at one w (on the workers) and
// moves towards the joint corner. It computes the duality gap of every
// iterate for free.
type FW struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// StepSize is run.LineSearch (zero) or run.Predefined (gamma =
	// 2/(k+2)).
	StepSize run.StepSize `json:"step_size"`
	// Average is the average of the iterates the trace also reports
	// (zero: none; FW-wavg is run.WeightedAverage).
	Average run.AverageKind `json:"average"`
	// Box bounds w coordinate-wise (nil: none).
	Box *Box `json:"box,omitempty"`
	// GapEvery is the number of passes (iterations) between two recorded
	// iterates; zero means 10 and a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
}

// Name returns "fw".
func (FW) Name() string { return "fw" }

// New returns the solver of m on p at w = 0.
func (m FW) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) { return build(m, p, opts) }

// WithLambda returns m at lambda.
func (m FW) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m FW) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.FW, StepSize: m.StepSize, Box: m.Box, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery}
	return cfg, setAverage(&cfg, m.Average)
}

// CuttingPlane is the 1-slack cutting-plane method (Joachims et al. 2009)
// as fully corrective Frank-Wolfe (Lacoste-Julien et al. 2013, Sec. 4): a
// batch method like FW whose step re-optimizes the dual over every vertex
// (aggregated plane) seen so far, with SVM^struct's constraint cache.
type CuttingPlane struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Tol is the tolerance of the QP over the planes, relative to the
	// duality gap of the iteration: the re-optimization stops once the
	// QP's own Frank-Wolfe gap is at most Tol times the gap at w(k). Zero
	// means DefaultCPTol (1e-3).
	Tol float64 `json:"tol,omitempty"`
	// Cache is the size of the constraint cache (SVM^struct's): every
	// example keeps the Cache labelings of its oracle calls most recently
	// used, and after an oracle pass the iteration adds the planes of their
	// most violated ones, without calling the oracle, while such a plane is
	// violated enough. Zero means DefaultCPCache (5), negative no cache.
	Cache int `json:"cache,omitempty"`
	// GapEvery is the number of oracle passes between two recorded
	// iterates; zero means 10 and a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
}

// Name returns "cp".
func (CuttingPlane) Name() string { return "cp" }

// New returns the solver of m on p at w = 0.
func (m CuttingPlane) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m, p, opts)
}

// WithLambda returns m at lambda.
func (m CuttingPlane) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m CuttingPlane) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	if m.Tol < 0 || math.IsNaN(m.Tol) || math.IsInf(m.Tol, 0) {
		return config{}, fmt.Errorf("the QP tolerance Tol must be positive and finite (0: %g), got %v", DefaultCPTol, m.Tol)
	}
	return config{Lambda: m.Lambda, Algorithm: run.CuttingPlane, CPTol: m.Tol, CPCache: m.Cache,
		GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery}, nil
}

// SSG is the stochastic subgradient method with the Pegasos step size
// 1/(lambda (k+1)) (Lacoste-Julien et al. 2013, Sec. 6), the papers'
// baseline: one uniformly drawn example a step, w projected onto the box.
// It has no dual, so its trace records the primal only.
type SSG struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Average is the average of the iterates the trace also reports
	// (zero: none; SSG-wavg run.WeightedAverage, SSG-tavg
	// run.SuffixAverage, SSG-avg run.UniformAverage).
	Average run.AverageKind `json:"average"`
	// Box bounds w coordinate-wise (nil: none); every step projects onto
	// it.
	Box *Box `json:"box,omitempty"`
	// GapEvery is the number of passes between two recorded primals (their
	// oracle calls are not counted); zero means 10 and a negative value
	// never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the draws of the examples.
	Seed uint64 `json:"seed"`
}

// Name returns "ssg".
func (SSG) Name() string { return "ssg" }

// New returns the solver of m on p at w = 0.
func (m SSG) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) { return build(m, p, opts) }

// WithLambda returns m at lambda.
func (m SSG) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m SSG) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.SSG, Box: m.Box, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed}
	return cfg, setAverage(&cfg, m.Average)
}

// OnlineEG is online exponentiated gradient (Collins et al. 2008) on the
// chain model: each example's dual is a Gibbs distribution over its
// labelings, updated multiplicatively from marginals computed by
// forward-backward, with the per-example adaptive step size of
// Lacoste-Julien et al. (2013, App. F). It needs an *oracles.Chain.
type OnlineEG struct {
	// Lambda is the regularization parameter (> 0); it cannot change
	// mid-run.
	Lambda float64 `json:"lambda"`
	// Average is the average of the iterates the trace also reports
	// (zero: none).
	Average run.AverageKind `json:"average"`
	// GapEvery is the number of passes between two exact duality-gap
	// passes; zero means 10 and a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the uniform draws of the examples.
	Seed uint64 `json:"seed"`
}

// Name returns "online-eg".
func (OnlineEG) Name() string { return "online-eg" }

// New returns the solver of m on p, a chain problem, at the uniform
// distribution over every example's labelings.
func (m OnlineEG) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m, p, opts)
}

// WithLambda returns m at lambda.
func (m OnlineEG) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m OnlineEG) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.OnlineEG, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed}
	return cfg, setAverage(&cfg, m.Average)
}
