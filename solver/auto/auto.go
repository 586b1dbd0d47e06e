// Package auto chooses the method and the execution of a run from the
// problem: what the problem is (multiclass, with or without a kernel; a
// chain or another decomposable model; a factor graph; the cost of its max
// oracle, measured on a few calls), its size and the cores at hand. The
// choice is a run.Method of the solver packages with its reason in one
// line, e.g. "exact block steps with shrinking (multiclass, 10 classes;
// liblinear -s 4's method)"; an explicit method is never second-guessed,
// but its execution may be chosen the same way (Execution).
//
// Method is the choice as a method type ("auto"), the default of the
// command line, the notebook layer and tune. A run made by it reports and
// saves the method it chose (run.Solver.Method), never "auto", so that a
// model file and a checkpoint say what ran. The rules are a table in
// docs/methods.md ("The default method"), each row with the measurement
// behind it.
package auto

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/kernel"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft"
)

// Method is the default method: New chooses a method and an execution for
// the problem (Choose) and builds it.
type Method struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Kernel, when set, trains a kernelized method (multiclass data only);
	// nil trains the linear model.
	Kernel *kernel.Kernel `json:"kernel,omitempty"`
	// Rho, when positive, is the penalty of soft constraints: factor-graph
	// data is then trained by soft-constraint BCFW (soft.BCFW) with it.
	// Zero trains the hard problem.
	Rho float64 `json:"rho,omitempty"`
	// GapEvery, TraceEvery and Seed, when not zero, are given to the
	// method chosen (every method auto chooses has them): the passes
	// between its exact gap passes (negative: never), between observe-only
	// evaluations, and the seed of its sampling. Zero keeps the chosen
	// method's own.
	GapEvery   float64 `json:"gap_every,omitempty"`
	TraceEvery float64 `json:"trace_every,omitempty"`
	Seed       uint64  `json:"seed,omitempty"`
}

func init() { run.Register(Method{}, loadAuto) }

// loadAuto refuses: a run chosen by auto is saved as the method it chose.
func loadAuto(io.Reader, oracles.Problem, ...run.Option) (run.Solver, error) {
	return nil, errors.New("auto: a checkpoint names the method auto chose, never auto itself: this one is corrupt")
}

// Name returns "auto".
func (Method) Name() string { return "auto" }

// WithLambda returns m at lambda.
func (m Method) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// New chooses a method and an execution for p (Choose, on the workers the
// options give) and returns its solver. An execution given in opts is
// kept (it is the user's).
func (m Method) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	o, err := run.Wiring(opts)
	if err != nil {
		return nil, fmt.Errorf("auto: %w", err)
	}
	c, err := Choose(p, m, o.Workers, o.Execution)
	if err != nil {
		return nil, err
	}
	if o.Execution == nil && c.Execution != nil {
		opts = append(opts, run.WithExecution(c.Execution))
	}
	return c.Method.New(p, opts...)
}

// Choice is what Choose picked, and why.
type Choice struct {
	// Method is the method chosen, with its knobs set.
	Method run.Method
	// Execution is the execution of its steps (nil: sequential).
	Execution run.Execution
	// Reason says what method was chosen and why, in one line.
	Reason string
	// ExecutionReason says why its steps run as Execution says ("" when
	// the method has no choice of execution).
	ExecutionReason string
}

// String is the whole choice in one line: the method's reason and the
// execution's.
func (c Choice) String() string {
	if c.ExecutionReason == "" {
		return c.Reason
	}
	return c.Reason + "; " + c.ExecutionReason
}

// Choose returns the method and the execution for problem p under m's
// lambda (and kernel, rho, schedule and seed), with workers goroutines (0:
// GOMAXPROCS). x is the execution the user gave (nil: none; Choose then
// chooses it): a method is chosen that it can run.
func Choose(p oracles.Problem, m Method, workers int, x run.Execution) (Choice, error) {
	c, err := choose(p, m, workers, x)
	if err != nil {
		return c, err
	}
	c.Method = m.schedule(c.Method)
	return c, nil
}

// schedule gives the chosen method m's GapEvery, TraceEvery and Seed
// where they are set.
func (a Method) schedule(m run.Method) run.Method {
	set := func(ge, te *float64, seed *uint64) {
		if a.GapEvery != 0 {
			*ge = a.GapEvery
		}
		if a.TraceEvery != 0 {
			*te = a.TraceEvery
		}
		if a.Seed != 0 {
			*seed = a.Seed
		}
	}
	switch c := m.(type) {
	case solver.BCFW:
		set(&c.GapEvery, &c.TraceEvery, &c.Seed)
		return c
	case solver.Exact:
		set(&c.GapEvery, &c.TraceEvery, &c.Seed)
		return c
	case solver.MultiPlane:
		set(&c.GapEvery, &c.TraceEvery, &c.Seed)
		return c
	case kernel.Exact:
		set(&c.GapEvery, &c.TraceEvery, &c.Seed)
		return c
	case soft.BCFW:
		set(&c.GapEvery, &c.TraceEvery, &c.Seed)
		return c
	}
	return m
}

// choose is Choose before the schedule.
func choose(p oracles.Problem, m Method, workers int, given run.Execution) (c Choice, err error) {
	if p == nil {
		return Choice{}, errors.New("auto: no problem")
	}
	defer func() {
		if r := recover(); r != nil { // a user's problem
			c, err = Choice{}, fmt.Errorf("auto: the problem panicked: %v", r)
		}
	}()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	mc, multiclass := p.(*oracles.Multiclass)
	if m.Kernel != nil {
		if !multiclass {
			return Choice{}, fmt.Errorf("auto: a kernel needs multiclass data (usps, svmlight, csv), not %s", oracles.KindOf(p))
		}
		return Choice{
			Method: kernel.Exact{Lambda: m.Lambda, Kernel: *m.Kernel, Sampling: run.Permutation, Shrinking: true},
			Reason: fmt.Sprintf("kernelized exact block steps with shrinking (multiclass, %d classes, %s kernel; the decomposition of libsvm, with an active set)", mc.NumClasses(), m.Kernel.Kind),
		}, nil
	}
	if multiclass {
		return Choice{
			Method: solver.Exact{Lambda: m.Lambda, Sampling: run.Permutation, Shrinking: true, GapEvery: 20},
			Reason: fmt.Sprintf("exact block steps with shrinking (multiclass, %d classes; liblinear -s 4's method)", mc.NumClasses()),
		}, nil
	}
	if _, err := factorgraph.ModelOf(p); err == nil && m.Rho > 0 {
		return Choice{
			Method: soft.BCFW{Lambda: m.Lambda, Rho: m.Rho, Sampling: run.ExamplePermutation},
			Reason: fmt.Sprintf("soft-constraint BCFW (factor graph, rho %g; Meshi et al. 2015)", m.Rho),
		}, nil
	}
	if m.Rho > 0 {
		return Choice{}, fmt.Errorf("auto: soft constraints (rho %g) need factor-graph data (yeast, a MULAN dataset), not %s", m.Rho, oracles.KindOf(p))
	}
	kind := describe(p)
	var cost solver.OracleCost // measured where it is needed
	var ratio float64
	var how string
	if c, ok := p.(chainShape); ok {
		ratio = viterbiPlanes(c)
		how = fmt.Sprintf("%s: a Viterbi call counts %.1f plane evaluations", kind, ratio)
	} else {
		if cost, err = oracleCost(p); err != nil {
			return Choice{}, err
		}
		ratio = inRun * cost.Ratio
		how = fmt.Sprintf("%s: an oracle call of %v costs %.0f plane evaluations at w = 0, taken as %.0f in the run", kind, cost.Call.Round(100*time.Nanosecond), cost.Ratio, ratio)
	}
	_, batch := given.(execution.MiniBatch)
	_, sequential := given.(execution.Sequential)
	if given == nil || batch || sequential {
		rounded := math.Exp2(math.Round(math.Log2(ratio)))
		return Choice{
			Method: solver.MultiPlane{Lambda: m.Lambda, Step: solver.Pairwise, Cost: &solver.CostRule{Ratio: rounded}},
			Reason: fmt.Sprintf("multi-plane BCFW with pairwise steps (%s; working sets of planes answer most steps without an oracle call; Shah et al. 2015), its pass rule by a cost ratio of %g (to a power of 2; runs with the ratio and the seed are identical)",
				how, rounded),
			ExecutionReason: "sequential steps: the approximate passes over the working sets run between the exact ones",
		}, nil
	}
	if cost.Call == 0 {
		if cost, err = oracleCost(p); err != nil {
			return Choice{}, err
		}
	}
	x, why := executionAt(p, cost.Call, workers)
	return Choice{
		Method:          solver.Recommended(m.Lambda),
		Execution:       x,
		Reason:          fmt.Sprintf("BCFW with gap sampling, pairwise steps and the gap-based cache (%s; the %s execution given runs BCFW's block steps, multi-plane BCFW's passes take a mini-batch only; Osokin et al. 2016)", how, given.Name()),
		ExecutionReason: why,
	}, nil
}

// inRun is the factor from the cost of an oracle call measured at w = 0,
// in plane evaluations, to the cost ratio of the pass rule. At w = 0 the
// oracle is at its cheapest (a graph cut with no unaries to speak of) and
// the plane is timed alone, hot in the caches; in the run the calls cost
// more and the working sets' planes are scored among others. An
// overestimate costs little and an underestimate much (the horses' sweep
// of ratios in docs/performance.md, "The default method").
const inRun = 2.0

// chainShape is a linear chain (oracles.Chain and the problems embedding
// it): what viterbiPlanes counts.
type chainShape interface {
	Len() int
	NumLabels() int
	SeqLen(i int) int
	Features(i, t int) oracles.SparseVec
}

// viterbiPlanes counts the cost of a Viterbi call of chain c in plane
// evaluations, over every example: at a position of f features, the call
// scores K labels (K f multiply-adds) and relaxes K^2 transitions, where
// a plane (the difference of two labelings, which differ at the position)
// has 2 f emission and at most 4 transition and bias nonzeros. A count, not
// a timing, so that the default method of a chain is the same on every
// machine and every run. It is below the timed ratio (most on CoNLL, whose
// w does not fit the caches), where multi-plane BCFW's time to a gap on
// chains varies little with the ratio (docs/performance.md, "The default
// method").
func viterbiPlanes(c chainShape) float64 {
	k := float64(c.NumLabels())
	var oracle, plane float64
	for i := 0; i < c.Len(); i++ {
		for t := 0; t < c.SeqLen(i); t++ {
			x := c.Features(i, t)
			f := float64(x.Len())
			oracle += k*f + k*k
			plane += 2*f + 4
		}
	}
	if plane == 0 {
		return 1
	}
	return oracle / plane
}

// costlyOracle is the time of a max-oracle call from which the read parts
// of the steps pay on several workers (a mini-batch): below it, a step's
// hand-off to another goroutine and the memory traffic of the cache's
// scoring take what the parallel calls save.
const costlyOracle = 200 * time.Microsecond

// Execution returns the execution for the steps of method m on problem p
// with workers goroutines (0: GOMAXPROCS), and why: a mini-batch of one
// block per worker with a lookahead of 2 batches when m is a
// block-coordinate method with a parallel execution, its oracle calls
// (timed on a few calls, on the problem m trains on: LP-hard's relaxation)
// are costly and there are two workers or more; else the sequential steps
// (the gap passes and evaluations use the workers either way). It is the
// execution auto chooses, for a method the user named without one.
func Execution(p oracles.Problem, m run.Method, workers int) (x run.Execution, why string, err error) {
	if p == nil {
		return nil, "", errors.New("auto: no problem")
	}
	defer func() {
		if r := recover(); r != nil { // a user's problem
			x, why, err = nil, "", fmt.Errorf("auto: the problem panicked: %v", r)
		}
	}()
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return executionFor(p, m, workers)
}

// executionFor is Execution on workers >= 1.
func executionFor(p oracles.Problem, m run.Method, workers int) (run.Execution, string, error) {
	switch m.(type) {
	case solver.BCFW, solver.MultiPlane:
	case solver.LPHard:
		model, err := factorgraph.ModelOf(p)
		if err != nil {
			return nil, "", fmt.Errorf("auto: lp-hard: %w", err)
		}
		if p, err = factorgraph.NewRelaxed(model, 2); err != nil {
			return nil, "", fmt.Errorf("auto: lp-hard: %w", err)
		}
	default:
		return nil, "sequential steps (the method has no parallel execution)", nil
	}
	cost, err := oracleCost(p)
	if err != nil {
		return nil, "", err
	}
	x, why := executionAt(p, cost.Call, workers)
	return x, why, nil
}

// executionAt is the execution of a BCFW-family method's steps on p, whose
// oracle call takes call, with workers >= 1, and why.
func executionAt(p oracles.Problem, call time.Duration, workers int) (run.Execution, string) {
	if _, relative := p.(oracles.RelativeOracle); relative {
		return nil, "sequential steps (a relative approximate oracle: its accuracy is relative to the dual state at the current w)"
	}
	if workers < 2 {
		return nil, "sequential steps (one worker)"
	}
	if call < costlyOracle {
		return nil, fmt.Sprintf("sequential steps: oracle calls of %v, under %v, do not pay for a mini-batch's hand-offs (the %d workers compute the gap passes and evaluations)", call.Round(100*time.Nanosecond), costlyOracle, workers)
	}
	x := execution.MiniBatch{Batch: workers, Lookahead: 2}
	return x, fmt.Sprintf("a mini-batch of %d, lookahead 2: oracle calls of %v run on the %d workers", workers, call.Round(time.Microsecond), workers)
}

// oracleCost measures a max-oracle call of p at w = 0 and the evaluation
// of a plane it returns (solver.MeasureOracleCost, timed after a first
// call on each of 16 examples spread over the problem).
func oracleCost(p oracles.Problem) (solver.OracleCost, error) {
	c, err := solver.MeasureOracleCost(p, nil, 16)
	if err != nil {
		return c, fmt.Errorf("auto: timing the max oracle: %w", err)
	}
	return c, nil
}

// describe names the kind of problem for the reason line.
func describe(p oracles.Problem) string {
	if c, ok := p.(interface{ NumLabels() int }); ok {
		return fmt.Sprintf("a chain, %d labels", c.NumLabels())
	}
	switch p.(type) {
	case *oracles.Segmentation:
		return "graph-cut segmentation"
	case *oracles.Matching:
		return "bipartite matching"
	}
	if _, err := factorgraph.ModelOf(p); err == nil {
		return "a factor graph"
	}
	return fmt.Sprintf("a %T problem", p)
}
