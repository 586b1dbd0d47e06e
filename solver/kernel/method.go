package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// The kernelized methods train the Crammer-Singer multiclass SVM of an
// oracles.Multiclass problem with the joint kernel
// k((x, y), (x', y')) = Kernel(x, x') [y = y'] (Lacoste-Julien et al. 2013,
// App. B.5): the iterate is a kernel expansion over support vectors, not a
// weight vector. Each holds only its own knobs; their zero values (with a
// Lambda) are the defaults, the linear kernel among them.

// BCFW is kernelized BCFW (Lacoste-Julien et al. 2013, Alg. B.1): every
// step computes its block's scores from the kernel expansion, its kernel
// row with those of the next steps' blocks on the workers (the package
// documentation, "Parallel steps").
type BCFW struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Kernel is the kernel on inputs (zero: linear).
	Kernel Kernel `json:"kernel"`
	// Sampling is run.Uniform (zero), run.Permutation or run.GapSampling.
	Sampling run.Sampling `json:"sampling"`
	// StepSize is run.LineSearch (zero) or run.Predefined.
	StepSize run.StepSize `json:"step_size"`
	// Averaging maintains the weighted average of the dual iterates (the
	// optional line of Alg. B.1) and reports it in the trace.
	Averaging bool `json:"averaging,omitempty"`
	// GapEvery is the number of passes between exact gap passes; zero
	// means 10, a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes.
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the sampling.
	Seed uint64 `json:"seed"`
	// CacheBytes keeps rows of the training kernel matrix within this many
	// bytes for the steps (0: none; rows of n float64 each, so USPS's
	// 7,291 rows take 425 MB in all). A step whose row the cache holds
	// reads it and computes only the values it lacks, so a cache pays when
	// the same rows come back often (many passes, shrinking's later sweeps
	// over few active blocks; docs/performance.md, "The kernel row"). It
	// never changes a result; CacheStats reports its hit rate.
	CacheBytes int64 `json:"cache_bytes,omitempty"`
	// CacheFloat32 keeps the cached rows as float32: twice the rows in
	// CacheBytes, at the price of kernel values rounded to float32 (relative
	// error 6e-8) wherever a step reads them from the cache, so that
	// results then depend on the cache (far below the accuracy the solver
	// is run to).
	CacheFloat32 bool `json:"cache_float32,omitempty"`
}

// FW is kernelized batch Frank-Wolfe (Lacoste-Julien et al. 2013, Alg. 2
// with the kernel expansion): every iteration scores every example's
// classes in kernel blocks on the workers.
type FW struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Kernel is the kernel on inputs (zero: linear).
	Kernel Kernel `json:"kernel"`
	// StepSize is run.LineSearch (zero) or run.Predefined.
	StepSize run.StepSize `json:"step_size"`
	// Averaging maintains the weighted average of the iterates.
	Averaging bool `json:"averaging,omitempty"`
	// GapEvery is the number of iterations between recorded iterates;
	// zero means 10, a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes.
	TraceEvery float64 `json:"trace_every,omitempty"`
}

// Exact is kernelized BCFW with the exact block step of Keerthi et al.
// (2008, Sec. 3, kernelized as in Crammer and Singer 2001, Sec. 6): each
// step solves its example's dual over the classes exactly (exactStep), and
// with Shrinking skips the settled examples until the next gap pass, as
// libsvm's and liblinear's active sets do.
type Exact struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Kernel is the kernel on inputs (zero: linear).
	Kernel Kernel `json:"kernel"`
	// Sampling is run.Uniform (zero), run.Permutation or run.GapSampling.
	Sampling run.Sampling `json:"sampling"`
	// Shrinking skips the blocks an exact step found settled until the
	// next gap pass; it sweeps the others in a fresh random order every
	// pass, so Sampling must be run.Permutation with it.
	Shrinking bool `json:"shrinking,omitempty"`
	// Averaging maintains the weighted average of the dual iterates.
	Averaging bool `json:"averaging,omitempty"`
	// GapEvery is the number of passes between exact gap passes; zero
	// means 10, a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes.
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the sampling.
	Seed uint64 `json:"seed"`
	// CacheBytes and CacheFloat32: the kernel row cache, as BCFW's.
	CacheBytes   int64 `json:"cache_bytes,omitempty"`
	CacheFloat32 bool  `json:"cache_float32,omitempty"`
}

func init() {
	for _, m := range []run.Method{BCFW{}, FW{}, Exact{}} {
		run.Register(m, loadRun)
	}
}

// Name returns "kernel".
func (BCFW) Name() string { return "kernel" }

// Name returns "kernel-fw".
func (FW) Name() string { return "kernel-fw" }

// Name returns "kernel-exact".
func (Exact) Name() string { return "kernel-exact" }

// New returns the solver of m on p, an *oracles.Multiclass, at
// alpha_i = e_{y_i} (w = 0).
func (m BCFW) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m.plan(), p, opts)
}

// New returns the solver of m on p, an *oracles.Multiclass.
func (m FW) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m.plan(), p, opts)
}

// New returns the solver of m on p, an *oracles.Multiclass.
func (m Exact) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m.plan(), p, opts)
}

// WithLambda returns m at lambda.
func (m BCFW) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// WithLambda returns m at lambda.
func (m FW) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// WithLambda returns m at lambda.
func (m Exact) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

// WithGamma returns m with the kernel's gamma (tune's second
// hyperparameter; the linear kernel has none and ignores it).
func (m BCFW) WithGamma(gamma float64) run.Method { m.Kernel = m.Kernel.withGamma(gamma); return m }

// WithGamma: see BCFW.WithGamma.
func (m FW) WithGamma(gamma float64) run.Method { m.Kernel = m.Kernel.withGamma(gamma); return m }

// WithGamma: see BCFW.WithGamma.
func (m Exact) WithGamma(gamma float64) run.Method { m.Kernel = m.Kernel.withGamma(gamma); return m }

// withGamma returns k with gamma (the linear kernel unchanged).
func (k Kernel) withGamma(gamma float64) Kernel {
	if k.Kind != Linear {
		k.Gamma = gamma
	}
	return k
}

// never turns the methods' "never" (negative) into the engine's +Inf.
func never(every float64) float64 {
	if every < 0 {
		return math.Inf(1)
	}
	return every
}

func (m BCFW) plan() config {
	return config{Lambda: m.Lambda, Kernel: m.Kernel, Algorithm: run.BCFW, Sampling: m.Sampling, StepSize: m.StepSize,
		Averaging: m.Averaging, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed,
		CacheBytes: m.CacheBytes, CacheFloat32: m.CacheFloat32}
}

func (m FW) plan() config {
	return config{Lambda: m.Lambda, Kernel: m.Kernel, Algorithm: run.FW, StepSize: m.StepSize,
		Averaging: m.Averaging, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery}
}

func (m Exact) plan() config {
	return config{Lambda: m.Lambda, Kernel: m.Kernel, Algorithm: run.BCFW, Sampling: m.Sampling, Exact: true, Shrinking: m.Shrinking,
		Averaging: m.Averaging, GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed,
		CacheBytes: m.CacheBytes, CacheFloat32: m.CacheFloat32}
}

// methodOf is the method a plan was compiled from.
func methodOf(cfg config) run.Method {
	ge := cfg.GapEvery
	if math.IsInf(ge, 1) {
		ge = -1
	}
	switch {
	case cfg.Algorithm == run.FW:
		return FW{Lambda: cfg.Lambda, Kernel: cfg.Kernel, StepSize: cfg.StepSize, Averaging: cfg.Averaging, GapEvery: ge, TraceEvery: cfg.TraceEvery}
	case cfg.Exact:
		return Exact{Lambda: cfg.Lambda, Kernel: cfg.Kernel, Sampling: cfg.Sampling, Shrinking: cfg.Shrinking, Averaging: cfg.Averaging,
			GapEvery: ge, TraceEvery: cfg.TraceEvery, Seed: cfg.Seed, CacheBytes: cfg.CacheBytes, CacheFloat32: cfg.CacheFloat32}
	}
	return BCFW{Lambda: cfg.Lambda, Kernel: cfg.Kernel, Sampling: cfg.Sampling, StepSize: cfg.StepSize, Averaging: cfg.Averaging,
		GapEvery: ge, TraceEvery: cfg.TraceEvery, Seed: cfg.Seed, CacheBytes: cfg.CacheBytes, CacheFloat32: cfg.CacheFloat32}
}

// build makes the solver of plan cfg on p.
func build(cfg config, p oracles.Problem, opts []run.Option) (run.Solver, error) {
	mc, ok := p.(*oracles.Multiclass)
	if !ok {
		return nil, fmt.Errorf("kernel: the kernelized methods train on multiclass data (usps, svmlight, csv), not on %s", oracles.KindOf(p))
	}
	if math.IsNaN(cfg.GapEvery) {
		return nil, errors.New("kernel: GapEvery is NaN (zero: every 10 passes, negative: never)")
	}
	s, err := newSolver(mc, cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// loadRun is the run.Loader of the kernelized methods.
func loadRun(r io.Reader, p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	mc, ok := p.(*oracles.Multiclass)
	if !ok {
		return nil, fmt.Errorf("kernel: load: the kernelized methods train on multiclass data, not on %s", oracles.KindOf(p))
	}
	s, err := Load(r, mc, opts...)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Method returns the method of the run with its settings (the defaults
// filled in, Lambda the current one).
func (s *Solver) Method() run.Method {
	cfg := s.cfg
	cfg.Lambda = s.lambda
	return methodOf(cfg)
}

// Execution returns nil: the steps are sequential (the workers compute
// the kernel rows of the steps ahead).
func (s *Solver) Execution() run.Execution { return nil }

// Lambda returns the current regularization parameter.
func (s *Solver) Lambda() float64 { return s.lambda }

// Weights returns nil: the model is a kernel expansion (Model), not a
// weight vector.
func (s *Solver) Weights() []float64 { return nil }

// CheckStop reports whether the run can meet stop's criteria.
func (s *Solver) CheckStop(stop run.Stop) error { return s.checkStoppable(context.Background(), stop) }

// Predict returns the classes the current kernel expansion predicts for
// every example of p, an *oracles.Multiclass with the training problem's
// features and classes, and p.
func (s *Solver) Predict(p oracles.Problem) ([][]int32, oracles.Problem, error) {
	mc, ok := p.(*oracles.Multiclass)
	if !ok {
		return nil, nil, fmt.Errorf("kernel: predict: multiclass data needed, not %s", oracles.KindOf(p))
	}
	if mc.NumFeatures() != s.p.NumFeatures() || mc.NumClasses() != s.p.NumClasses() {
		return nil, nil, fmt.Errorf("kernel: predict: %d features and %d classes, the model %d and %d", mc.NumFeatures(), mc.NumClasses(), s.p.NumFeatures(), s.p.NumClasses())
	}
	m := s.Model()
	pred := make([][]int32, mc.Len())
	err := core.Parallel(mc.Len(), s.workers, func(_, i int) error {
		pred[i] = []int32{m.Predict(mc.Input(i))}
		return nil
	})
	return pred, mc, err
}

// Fork returns a new solver that continues this run under m, a method of
// the same type that differs from the run's in Lambda at most
// (SetLambda: the dual variables stay feasible); package kernel has no warm
// start under another change. A zero Lambda means the current one.
func (s *Solver) Fork(m run.Method, opts ...run.Option) (run.Solver, error) {
	var want config
	switch m := m.(type) {
	case BCFW:
		want = m.plan()
	case FW:
		want = m.plan()
	case Exact:
		want = m.plan()
	default:
		return nil, fmt.Errorf("kernel: fork: a %s run cannot continue as %s: start a new run", s.Method().Name(), methodName(m))
	}
	if want.Lambda == 0 {
		want.Lambda = s.lambda
	}
	want = want.withDefaults()
	same, cur := want, s.cfg
	same.Lambda, cur.Lambda = 0, 0
	if same != cur {
		return nil, fmt.Errorf("kernel: fork: the kernelized solver cannot change its method mid-run but for Lambda (%s to %s): start a new run", s.Method().Name(), m.Name())
	}
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil {
		return nil, err
	}
	wiring := []run.Option{run.WithWorkers(s.workers), run.WithTrainLoss(s.trainLoss)}
	if s.testSet != nil {
		wiring = append(wiring, run.WithTest(s.testSet))
	}
	f, err := Load(&buf, s.p, append(wiring, opts...)...)
	if err != nil {
		return nil, err
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

var _ run.Solver = (*Solver)(nil)
