package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Exact is the sequential dual method of liblinear's Crammer-Singer
// solver (Keerthi et al. 2008, Sec. 3; liblinear -s 4) as block steps: each
// step solves its example's sub-problem over the K classes exactly, a
// projection onto the simplex, instead of a Frank-Wolfe line (see
// exactStep). It needs a multiclass problem (oracles.Multiclass); its
// steps are sequential (each block's solve reads the w the previous one
// left), so it takes no execution, and they score every class, so it needs
// no cache.
type Exact struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64 `json:"lambda"`
	// Sampling is the order of the steps: run.Uniform (zero),
	// run.Permutation (a fresh random order every pass, as liblinear) or
	// run.GapSampling.
	Sampling run.Sampling `json:"sampling"`
	// Shrinking skips, until the next exact gap pass, the blocks whose
	// block gap was settled (at most SettledFraction times the mean block
	// gap of the last gap pass) when last computed, and the classes that
	// cannot gain mass: liblinear's shrinking as gap-based skipping (see
	// shrinking). It sweeps the blocks not settled in a fresh random order
	// every pass, so Sampling must be run.Permutation with it (liblinear's
	// -s 4 is Exact{Sampling: run.Permutation, Shrinking: true}). The gap passes
	// visit every block, so a certified gap stays exact.
	Shrinking bool `json:"shrinking,omitempty"`
	// Average is the average of the iterates the trace also reports
	// (zero: none).
	Average run.AverageKind `json:"average"`
	// GapEvery is the number of passes between two exact duality-gap
	// passes; zero means 10 and a negative value never.
	GapEvery float64 `json:"gap_every,omitempty"`
	// TraceEvery adds observe-only evaluations every TraceEvery passes
	// (zero: none).
	TraceEvery float64 `json:"trace_every,omitempty"`
	// Seed seeds the random order.
	Seed uint64 `json:"seed"`
}

// Name returns "exact".
func (Exact) Name() string { return "exact" }

// New returns the solver of m on p, a multiclass problem, at w = 0.
func (m Exact) New(p oracles.Problem, opts ...run.Option) (run.Solver, error) {
	return build(m, p, opts)
}

// WithLambda returns m at lambda.
func (m Exact) WithLambda(lambda float64) run.Method { m.Lambda = lambda; return m }

func (m Exact) plan() (config, error) {
	if err := checkSchedule(m.GapEvery, m.TraceEvery); err != nil {
		return config{}, err
	}
	cfg := config{Lambda: m.Lambda, Algorithm: run.BCFW, Step: stepExact, Sampling: m.Sampling, Shrinking: m.Shrinking,
		GapEvery: never(m.GapEvery), TraceEvery: m.TraceEvery, Seed: m.Seed}
	switch m.Sampling {
	case run.Uniform, run.Permutation, run.GapSampling:
	default:
		return config{}, fmt.Errorf("sampling %v is not one of exact's (uniform, perm, gap)", m.Sampling)
	}
	if m.Shrinking && m.Sampling != run.Permutation {
		return config{}, fmt.Errorf("shrinking sweeps the unsettled blocks in a fresh random order every pass (liblinear's active set): it needs permutation sampling, not %v", m.Sampling)
	}
	return cfg, setAverage(&cfg, m.Average)
}

// validateExact checks the settings exact steps and shrinking combine with
// in a plan.
func (cfg *config) validateExact() error {
	if cfg.Step != stepExact {
		if cfg.Shrinking {
			return errors.New("solver: shrinking needs exact steps (the Exact method)")
		}
		return nil
	}
	switch {
	case cfg.Algorithm != run.BCFW:
		return errors.New("solver: exact steps need the bcfw solver")
	case cfg.StepSize != run.LineSearch:
		return errors.New("solver: exact steps minimize over the whole block; they take no step size rule")
	case cfg.Cache.Enabled || cfg.MultiPlane.Enabled:
		return errors.New("solver: exact steps score every corner of the block; they need no cache and no multi-plane working sets")
	case cfg.Box != nil:
		return errors.New("solver: exact steps solve the unconstrained block problem; they take no box constraints")
	case cfg.Shrinking && cfg.Sampling != run.Permutation:
		return fmt.Errorf("solver: shrinking sweeps the unsettled blocks in a random order every pass (liblinear's active set): it needs permutation sampling, not %v", cfg.Sampling)
	}
	return nil
}

// exactStep minimizes the dual exactly over block i, the sequential dual
// method of Keerthi et al. (2008, Sec. 3; liblinear -s 4) for the
// Crammer-Singer multiclass SVM. With H_k = L_i(k) - <w, psi_i(k)> the
// scores of the K corners at the current w, a move d of alpha_i (sum 0)
// changes the dual by (1/n) H^T d - lambda/2 sigma^2 |x_i|^2 |d|^2 (the
// Hessian is isotropic because psi_i(k) = x_i (x) (e_{y_i} - e_k) and
// alpha_i sums to 1), so the exact block solution is the Euclidean
// projection onto the simplex
//
//	alpha_i <- Proj(alpha_i + lambda n / |x_i|^2 H),
//
// computed by sorting (Duchi et al. 2008, Fig. 1; Keerthi et al. 2008,
// Alg. 3). The block gap max_k H_k - alpha_i^T H (over n) of the step,
// measured before it, is the block's stale gap estimate, as for the other
// steps; the step counts as an oracle call (it scores every label).
//
// With shrinking (the Exact method's Shrinking) the step sweeps the active set instead (see
// shrinkStep).
func (s *Solver) exactStep() error {
	if s.cfg.Shrinking {
		return s.shrinkStep()
	}
	i := s.samp.Next(s.rng)
	s.steps++
	s.exactBlock(i)
	s.reuse.stepped(i, nil)
	return nil
}

// exactBlock solves the sub-problem of block i exactly (see exactStep) and
// returns the block gap before the step.
func (s *Solver) exactBlock(i int) float64 {
	n := float64(s.n)
	b := s.store.(*classStore)
	K := b.k
	x := b.m.Input(i)
	yi := b.truth(i)
	act := b.activeClasses(i)
	h := b.h
	w := s.x.w
	// Class by class over the features in their order: each score is the
	// same sum, in the same order, as feature by feature, accumulated in a
	// register.
	idx, val := x.Idx, x.Val[:len(x.Idx)]
	for _, k := range act {
		var hk float64
		for j, f := range idx {
			hk += val[j] * w[int(f)*K+int(k)]
		}
		h[k] = hk
	}
	// H_k up to the constant -<w_{y_i}, x_i>, which changes neither the
	// gap nor the projection (alpha_i sums to 1 over the active classes).
	alpha := b.block(i)
	hmax, dot, hmin := math.Inf(-1), 0.0, math.Inf(1)
	for _, k := range act {
		v := h[k]
		if int(k) != yi {
			v++
		}
		h[k] = v
		hmax = max(hmax, v)
		if a := alpha[k]; a > 0 {
			dot += a * v
			hmin = min(hmin, v)
		}
	}
	s.calls++
	g := (hmax - dot) / n
	s.setGapEstimate(i, g)
	if !(g > 0) {
		return g
	}
	z, d := b.z[:len(act)], b.delta
	if b.xsq[i] == 0 { // psi = 0 for every corner: the dual is linear in alpha_i
		for m, k := range act {
			z[m] = 0
			if h[k] == hmax {
				z[m], hmax = 1, math.Inf(1) // the first maximizer only
			}
		}
	} else {
		t := s.lambda * n / b.xsq[i]
		for m, k := range act {
			z[m] = alpha[k] + t*h[k]
		}
		core.ProjectSimplex(z, b.sorted)
	}
	clear(d)
	for m, k := range act {
		d[k] = z[m] - alpha[k]
	}
	if s.cfg.Shrinking {
		b.shrinkClasses(i, hmin, d)
	}
	b.apply(i, d)
	return g
}
