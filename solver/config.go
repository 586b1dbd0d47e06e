package solver

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Step selects the kind of block step.
type Step int

const (
	// FWStep is the Frank-Wolfe step towards the max-oracle corner.
	FWStep Step = iota
	// Pairwise moves mass from the away corner to the FW corner (BCPFW,
	// Osokin et al. 2016, Alg. 3).
	Pairwise
	// Away chooses between a FW step and an away step (BCAFW, Osokin et al.
	// 2016, Alg. 4).
	Away
	// Exact minimizes the dual exactly over the block (Keerthi et al. 2008,
	// Sec. 3, the sequential dual method of liblinear's Crammer-Singer
	// solver): a block step jumps to the best point of the simplex of the
	// block's K corners instead of a line on it. It needs a multiclass
	// problem (oracles.Multiclass), whose block sub-problem is a projection
	// onto the simplex (see exactStep).
	Exact
)

// Cache configures the gap-based cache of oracle answers (Osokin et al. 2016,
// Alg. 5): every block keeps a working set of corners; a step uses the best
// cached corner when its gap estimate passes
//
//	g_hat >= max(F * g_i(k_i), Nu/n * g(k_0)),
//
// and calls the max oracle otherwise. MultiPlane is the other policy for
// reusing old planes (see there how they differ); the two cannot be
// combined.
type Cache struct {
	// Enabled turns the cache on.
	Enabled bool
	// F is the local (per-block) factor; zero means 0.25.
	F float64
	// Nu is the global factor; zero means 0.01. Nu = n forbids cache hits.
	Nu float64
	// MaxSize bounds the number of cached corners per block; zero means 10.
	// Corners in the active set of pairwise or away steps are never evicted,
	// so such a block may hold more while they are active.
	MaxSize int
	// InitialGap is the global gap g(k_0) of the Nu criterion before the
	// first gap pass (Alg. 5 takes it from the last gap pass, and there is
	// none yet); zero means +Inf: no Nu hit before the first gap pass.
	// The reference code of Osokin et al. starts from 1, the duality gap
	// at w = 0 when every loss is at most 1 (exactly 1 for a normalized
	// Hamming loss), so that the cache already hits during the first
	// GapEvery passes; the package doc (The reference code of Osokin et
	// al.) lists the settings that make a run theirs.
	InitialGap float64
}

// PassRule decides when an outer iteration of multi-plane BCFW stops making
// approximate passes (Shah et al. 2015, Sec. 3.4): after every approximate
// pass, the increase of the dual per unit of expense of that pass is
// compared with that of the whole iteration so far (its exact pass
// included); the iteration ends when the former is smaller. The rules
// differ in what they count as expense.
type PassRule int

const (
	// RuleTime measures the expense in solver time, as the paper does. It
	// adapts to the machine and the oracle, but runs are not reproducible.
	RuleTime PassRule = iota
	// RuleCost measures it with a deterministic cost model in units of one
	// plane evaluation <psi, w>: an exact step costs MultiPlane.CostRatio +
	// MultiPlane.UpdateCost (the oracle call and the update), an
	// approximate step on block i costs |W_i| + UpdateCost (scoring the
	// working set and the update). Runs with equal seeds are then
	// identical, for tests and notebooks.
	RuleCost
)

// MultiPlane configures multi-plane BCFW (MP-BCFW; Shah, Kolmogorov and
// Lampert 2015, Alg. 3). Every block keeps a working set W_i of planes
// (corners) returned by its oracle; an outer iteration is one exact pass
// (a BCFW step with the max oracle on every block, in a random order, whose
// plane joins W_i) followed by up to M approximate passes (BCFW steps with
// the best plane of W_i, H~_i(w) = max over W_i, and no oracle call), as
// many as Rule allows. A plane is used when an exact or an approximate
// oracle call returns it; when |W_i| > N the plane unused for longest is
// dropped, and after every outer iteration the planes unused during its
// last T outer iterations are. With Config.Averaging, two weighted averages
// are kept, of the iterates after the exact and after the approximate
// steps, and the trace reports their interpolation with the best dual
// (Sec. 3.5).
//
// Only exact steps count as oracle calls and passes, and the evaluation
// schedule (Config.GapEvery, TraceEvery) counts exact steps; an outer
// iteration's last exact step is counted when the iteration ends, so an
// evaluation due after k passes describes the iterate after the approximate
// passes of the k-th iteration, and a run's pass budget ends after them.
//
// The Osokin cache (Config.Cache) also reuses old planes, but step by step:
// every step decides from its gap estimate whether a cached corner is good
// enough or the oracle must be called, and it never makes a step without
// visiting the oracle's schedule. MP-BCFW separates the two kinds of steps
// into whole passes and lets the measured progress per unit of time decide
// how many approximate passes to make. The two are alternative policies for
// the same corner sets and cannot be combined. MP-BCFW needs permutation
// sampling (every pass visits every block once, as the T rule assumes) and
// line search; pairwise and away steps and box constraints combine with
// it (corners with dual mass are never dropped from W_i, so a block may
// then hold more than N).
type MultiPlane struct {
	// Enabled turns multi-plane BCFW on (BCFW only).
	Enabled bool
	// N bounds the number of planes of a working set; zero means 1000, a
	// negative N keeps none (no working sets, hence no approximate passes).
	N int
	// T is the number of outer iterations a plane stays in its working set
	// without being used; zero means 10, a negative T keeps planes until N
	// drops them.
	T int
	// M bounds the approximate passes of an outer iteration; zero means
	// 1000, a negative M makes none. N < 0 and M < 0 (the paper's N = M =
	// 0) is exactly BCFW with permutation sampling.
	M int
	// Rule is RuleTime (default) or RuleCost.
	Rule PassRule
	// CostRatio is the cost of an exact oracle call in plane evaluations for
	// RuleCost (> 0, required there; MeasureCostRatio estimates it once for
	// a problem). It is ignored by RuleTime.
	CostRatio float64
	// UpdateCost is the cost of a step's update (the line search, the
	// iterate's and the block's updates) in plane evaluations for RuleCost;
	// zero means 1. A dense block update costs O(d) where a plane
	// evaluation costs the nonzeros of psi, so it is often many planes
	// (MeasureUpdateCost estimates it); counted as 1 it makes approximate
	// passes look cheaper than they are, and the rule makes too many.
	UpdateCost float64
}

// Box holds per-coordinate bounds on w (Osokin et al. 2016, App. H). A nil
// slice means no bound on that side; entries may be -Inf or +Inf.
type Box struct {
	Lower []float64
	Upper []float64
}

// Config holds the hyperparameters of a solver: plain data, what a
// checkpoint keeps and a notebook session compares. The zero value of every
// field but Lambda is a sensible default: BCFW with uniform sampling,
// Frank-Wolfe steps, line search, no cache, an exact gap every 10 passes.
// What a run is connected to (test set, progress callback, workers, block
// storage) is set with Options instead.
type Config struct {
	// Lambda is the regularization parameter (> 0).
	Lambda float64
	// Algorithm is BCFW (default), FW, SSG, CuttingPlane or OnlineEG (chain
	// problems only).
	Algorithm run.Algorithm
	// Sampling is Uniform (default), Permutation or GapSampling (BCFW only).
	Sampling run.Sampling
	// UnvisitedInOrder makes gap sampling draw the blocks it has no gap
	// estimate for yet (g_i = +Inf: before their first step) in index
	// order instead of uniformly at random, so that the first pass visits
	// the blocks in the order of the data. The reference code of Osokin et
	// al. (2016), gapBCFW, does so (its weighted draw over infinite weights
	// picks the first infinite one); Alg. 2 draws with probability
	// proportional to g_i = +Inf, which leaves the order among those blocks
	// open, so it is off by default (see the package doc, The reference
	// code of Osokin et al.). GapSampling only.
	UnvisitedInOrder bool
	// Step is FWStep (default), Pairwise or Away (BCFW only).
	Step Step
	// StepSize is LineSearch (default) or Predefined (FW steps only).
	StepSize run.StepSize
	// Cache configures the oracle cache (BCFW only).
	Cache Cache
	// MultiPlane configures multi-plane BCFW (BCFW only, not with Cache).
	MultiPlane MultiPlane
	// Box bounds w coordinate-wise (BCFW and FW; SSG projects onto it).
	Box *Box
	// Averaging maintains an average of the iterates, by default the
	// weighted average with weights proportional to k (BCFW-wavg, FW-wavg,
	// SSG-wavg; Lacoste-Julien et al. 2013, App. C), and reports its primal,
	// dual and gap in the trace (primal_avg, dual_avg, gap_avg; SSG has no
	// dual, so only the primal).
	Averaging bool
	// AverageKind selects the average Averaging keeps: run.WeightedAverage
	// (the zero value), run.SuffixAverage (the 0.5-suffix average by the
	// doubling trick: BCFW-tavg, SSG-tavg) or run.UniformAverage (SSG-avg;
	// App. F). An average of dual-feasible points is dual feasible, so the
	// dual and gap of every kind are exact. Not with multi-plane BCFW,
	// whose two averages are weighted.
	AverageKind run.AverageKind
	// GapEvery is the number of passes over the data (block steps / n)
	// between two exact duality-gap passes of BCFW; zero means 10 and +Inf
	// means never. The gap pass is part of the algorithm, as in Osokin et al.
	// (2016, App. D): it refreshes the stale block gaps (gap sampling), the
	// global gap (cache), certifies the gap for stopping, and is recorded in
	// the trace; its n oracle calls are counted (its time is not, as for
	// every exact evaluation). FW computes the gap of every iterate for free
	// and records it every GapEvery iterations; SSG, which has no gap,
	// records its primal every GapEvery passes without counting the calls.
	GapEvery float64
	// TraceEvery adds observe-only evaluations every TraceEvery passes (zero:
	// none), the "offline" curves of the papers' figures. They never change
	// the iterate, the algorithm's state nor its counters, so a run with or
	// without them follows the same trajectory; being exact, they do
	// certify the gap, so Stop.Gap may end the run at one of them.
	TraceEvery float64
	// Seed seeds the random sampling; runs with equal seeds are identical.
	Seed uint64
	// Batch is tau, the number of distinct blocks of a mini-batch BCFW
	// step (Wang et al. 2016, Alg. 1 without delay; see the package doc
	// and minibatch.go): the tau oracle calls run in parallel on the
	// solver's workers (WithWorkers) against one w, then the blocks' steps
	// are applied one by one in the order they were drawn, each with its
	// own line search at the current iterate. Zero or one is BCFW. The
	// trajectory depends on Batch and Seed, never on the number of
	// workers, so that a run is reproducible on any machine and a
	// checkpoint resumes the same run wherever it is loaded. BCFW only;
	// not with multi-plane BCFW, exact steps or a relative approximate
	// oracle.
	Batch int
	// Lookahead is the number of mini-batches drawn ahead of the one being
	// applied (with Batch <= 1, batches of one block): their read parts (the scores of the cached
	// corners, the cache rule, the oracle calls: everything but the
	// update) are computed on the workers while the solver's goroutine
	// applies the steps of the current batch, each batch at the w of its
	// draw. Zero is the synchronous mini-batch of Wang et al. (2016,
	// Alg. 1); with L > 0 every answer is at most (L+1) Batch - 1 steps old
	// (the bounded-delay case of their Alg. 1), and the workers are kept
	// busy when the updates are a large share of a step (a cheap oracle,
	// the cache hitting). Like Batch, the trajectory depends on Batch,
	// Lookahead and Seed only, never on the workers; Batch is capped at
	// n/(L+1) (the batches under way hold distinct blocks).
	Lookahead int
	// SimulateWorkers is K > 1 for the delay simulator (delay.go): BCFW
	// run sequentially with the staleness K asynchronous workers would
	// have (every oracle answer applied K-1 steps after the iterate it
	// saw; Wang et al. 2016's delay model), to measure passes-to-gap at K
	// workers on any machine. Zero or one is BCFW. Not with Batch; it
	// refuses what Batch refuses.
	SimulateWorkers int
	// SimulateDelays, with SimulateWorkers = K, makes the simulator's
	// delays those of a real run instead of K-1 for every answer: each
	// answer is given a delay d drawn with weight Weights[d], and of the K
	// answers in flight the step applies the one whose draw step plus delay
	// comes first. Solver.Delays measures the distribution of an
	// asynchronous run (Async) to replay here. Nil: first in, first out.
	SimulateDelays *DelayDistribution
	// Shrinking skips, until the next exact gap pass, the blocks whose
	// block gap was settled (at most SettledFraction times the mean block
	// gap of the last gap pass) when last computed, and the classes that
	// cannot gain mass: liblinear's shrinking as gap-based skipping (exact
	// steps with permutation sampling only; see shrinking). The gap passes
	// visit every block, so a certified gap stays exact.
	Shrinking bool
	// Async runs BCFW asynchronously (async.go): the workers solve block
	// oracles on their own, possibly stale copy of w while one updater
	// applies the block steps as the answers arrive (Wang et al. 2016,
	// Alg. 1). Not reproducible bit for bit; not with Batch or
	// SimulateWorkers; it refuses what Batch refuses.
	Async bool
	// CPTol is the tolerance of the QP of CuttingPlane, relative to the
	// duality gap of the iteration: the re-optimization over the planes
	// stops once the QP's own Frank-Wolfe gap is at most CPTol times the
	// gap at w(k) (the QP's gap when the new plane is added). Zero means
	// DefaultCPTol (1e-3); unused by the other algorithms.
	CPTol float64
	// CPCache is the size of the constraint cache of CuttingPlane
	// (SVM^struct's, see Solver.cachedPlanes): every example keeps the
	// CPCache labelings of its oracle calls most recently used, and after
	// an oracle pass the iteration adds the planes of their most violated
	// ones, without calling the oracle, while such a plane is violated
	// enough. Zero means DefaultCPCache (5), negative no cache; the other
	// algorithms take none.
	CPCache int
}

func (s Step) String() string {
	switch s {
	case FWStep:
		return "fw"
	case Pairwise:
		return "pairwise"
	case Away:
		return "away"
	case Exact:
		return "exact"
	}
	return fmt.Sprintf("Step(%d)", int(s))
}

func (r PassRule) String() string {
	switch r {
	case RuleTime:
		return "time"
	case RuleCost:
		return "cost"
	}
	return fmt.Sprintf("PassRule(%d)", int(r))
}

// ParsePassRule parses "time" or "cost".
func ParsePassRule(s string) (PassRule, error) {
	for _, r := range []PassRule{RuleTime, RuleCost} {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown multi-plane pass rule %q (want time or cost)", s)
}

// ParseStep parses "fw", "pairwise", "away" or "exact".
func ParseStep(s string) (Step, error) {
	for _, v := range []Step{FWStep, Pairwise, Away, Exact} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown step %q (want fw, pairwise, away or exact)", s)
}

// WithDefaults returns cfg with its zero values replaced by the defaults
// New uses (GapEvery 10, cache F 0.25, nu 0.01, MaxSize 10, multi-plane
// N 1000, T 10, M 1000).
func (cfg Config) WithDefaults() Config {
	mp := &cfg.MultiPlane
	for _, f := range []struct {
		v   *int
		def int
	}{{&mp.N, 1000}, {&mp.T, 10}, {&mp.M, 1000}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if cfg.GapEvery == 0 {
		cfg.GapEvery = 10
	}
	if cfg.Cache.F == 0 {
		cfg.Cache.F = 0.25
	}
	if cfg.Cache.Nu == 0 {
		cfg.Cache.Nu = 0.01
	}
	if cfg.Cache.MaxSize == 0 {
		cfg.Cache.MaxSize = 10
	}
	if cfg.Algorithm == run.CuttingPlane && cfg.CPTol == 0 {
		cfg.CPTol = DefaultCPTol
	}
	if cfg.Algorithm == run.CuttingPlane && cfg.CPCache == 0 {
		cfg.CPCache = DefaultCPCache
	}
	return cfg
}

// validate checks cfg (after defaults) against a problem of dimension d.
func (cfg *Config) validate(d int) error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	if err := core.ValidateSchedule(cfg.Lambda, cfg.GapEvery, cfg.TraceEvery); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if cfg.Algorithm < run.BCFW || cfg.Algorithm > run.OnlineEG {
		return fmt.Errorf("solver: unknown algorithm %d", cfg.Algorithm)
	}
	if err := core.ValidateExampleSampling(cfg.Sampling); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if cfg.Step < FWStep || cfg.Step > Exact {
		return fmt.Errorf("solver: unknown step %d", cfg.Step)
	}
	if err := core.ValidateStepSize(cfg.StepSize); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	if err := cfg.validateBatch(); err != nil {
		return err
	}
	if cfg.Algorithm != run.BCFW {
		switch {
		case cfg.Sampling != run.Uniform:
			return fmt.Errorf("solver: sampling %v needs the bcfw solver, not %v", cfg.Sampling, cfg.Algorithm)
		case cfg.Step != FWStep:
			return fmt.Errorf("solver: %v steps need the bcfw solver, not %v", cfg.Step, cfg.Algorithm)
		case cfg.Cache.Enabled:
			return fmt.Errorf("solver: the cache needs the bcfw solver, not %v", cfg.Algorithm)
		}
	}
	if cfg.Algorithm != run.CuttingPlane && cfg.CPCache != 0 {
		return fmt.Errorf("solver: the constraint cache (CPCache %d) needs the cutting-plane solver, not %v", cfg.CPCache, cfg.Algorithm)
	}
	if cfg.Algorithm == run.CuttingPlane {
		switch {
		case cfg.Box != nil:
			return errors.New("solver: the cutting-plane solver takes no box constraints")
		case cfg.StepSize != run.LineSearch:
			return errors.New("solver: the cutting-plane solver re-optimizes over its planes; it has no step size rule")
		case !(cfg.CPTol > 0) || bad(cfg.CPTol):
			return fmt.Errorf("solver: CPTol must be positive and finite, got %v", cfg.CPTol)
		}
	}
	if cfg.UnvisitedInOrder && cfg.Sampling != run.GapSampling {
		return fmt.Errorf("solver: UnvisitedInOrder orders the first draws of gap sampling, not of %v sampling", cfg.Sampling)
	}
	if (cfg.Step == Pairwise || cfg.Step == Away) && cfg.StepSize == run.Predefined {
		return errors.New("solver: pairwise and away steps need line search")
	}
	if err := cfg.validateExact(); err != nil {
		return err
	}
	if cfg.Cache.Enabled {
		c := cfg.Cache
		if !(c.F > 0) || bad(c.F) || !(c.Nu > 0) || bad(c.Nu) {
			return fmt.Errorf("solver: cache parameters F and nu must be positive and finite, got F=%v nu=%v", c.F, c.Nu)
		}
		if c.MaxSize < 1 {
			return fmt.Errorf("solver: cache MaxSize must be >= 1, got %d", c.MaxSize)
		}
		if !(c.InitialGap >= 0) {
			return fmt.Errorf("solver: cache InitialGap must be >= 0 (0: none), got %v", c.InitialGap)
		}
	}
	if cfg.AverageKind < run.WeightedAverage || cfg.AverageKind > run.UniformAverage {
		return fmt.Errorf("solver: unknown average kind %d", cfg.AverageKind)
	}
	if cfg.AverageKind != run.WeightedAverage && !cfg.Averaging {
		return fmt.Errorf("solver: average kind %v needs Averaging", cfg.AverageKind)
	}
	if err := cfg.MultiPlane.validate(cfg); err != nil {
		return err
	}
	if err := cfg.Box.validate(d); err != nil {
		return err
	}
	return nil
}

// validate checks the multi-plane settings and the combinations with the
// rest of cfg that multi-plane BCFW allows.
func (mp *MultiPlane) validate(cfg *Config) error {
	if !mp.Enabled {
		return nil
	}
	if mp.Rule != RuleTime && mp.Rule != RuleCost {
		return fmt.Errorf("solver: unknown multi-plane pass rule %d", mp.Rule)
	}
	if mp.CostRatio < 0 || math.IsNaN(mp.CostRatio) || math.IsInf(mp.CostRatio, 0) {
		return fmt.Errorf("solver: multi-plane CostRatio must be finite and >= 0, got %v", mp.CostRatio)
	}
	if mp.UpdateCost < 0 || math.IsNaN(mp.UpdateCost) || math.IsInf(mp.UpdateCost, 0) {
		return fmt.Errorf("solver: multi-plane UpdateCost must be finite and >= 0, got %v", mp.UpdateCost)
	}
	if mp.T > maxPlaneAge {
		return fmt.Errorf("solver: multi-plane T must be at most %d outer iterations (negative: keep planes until N drops them), got %d", maxPlaneAge, mp.T)
	}
	switch {
	case cfg.Algorithm != run.BCFW:
		return fmt.Errorf("solver: multi-plane working sets need the bcfw solver, not %v", cfg.Algorithm)
	case mp.Rule == RuleCost && mp.CostRatio == 0:
		return errors.New("solver: the multi-plane cost rule needs CostRatio > 0, the cost of an oracle call in plane evaluations (MeasureCostRatio estimates it)")
	case cfg.Cache.Enabled:
		return errors.New("solver: the Osokin cache and multi-plane working sets are two policies for reusing planes; enable one of them")
	case cfg.Sampling != run.Permutation:
		return fmt.Errorf("solver: multi-plane BCFW visits every block once per pass (Shah et al. 2015, Alg. 3): it needs permutation sampling, not %v", cfg.Sampling)
	case cfg.StepSize != run.LineSearch:
		return errors.New("solver: multi-plane BCFW needs line search (its pass rule measures the dual increase of the steps)")
	case cfg.AverageKind != run.WeightedAverage:
		return fmt.Errorf("solver: multi-plane BCFW keeps weighted averages (Shah et al. 2015, Sec. 3.5), not %v", cfg.AverageKind)
	}
	return nil
}

// maxPlaneAge bounds MultiPlane.T: the first steps of the last T outer
// iterations are kept in a ring of T entries.
const maxPlaneAge = 1 << 20

// String describes the settings as the paper writes them (after
// defaults): N and M of 0 for none, T = inf for planes kept until N drops
// them, the rule with the cost ratio of RuleCost, e.g.
// "N=1000 T=10 M=1000 rule cost 57".
func (mp MultiPlane) String() string {
	show := func(v int, none string) string {
		if v < 0 {
			return none
		}
		return strconv.Itoa(v)
	}
	rule := "time"
	if mp.Rule == RuleCost {
		rule = fmt.Sprintf("cost %g", mp.CostRatio)
		if mp.UpdateCost > 0 {
			rule += fmt.Sprintf(" update %g", mp.UpdateCost)
		}
	}
	return fmt.Sprintf("N=%s T=%s M=%s rule %s", show(mp.N, "0"), show(mp.T, "inf"), show(mp.M, "0"), rule)
}

// planes reports whether blocks keep multi-plane working sets (N > 0).
func (mp *MultiPlane) planes() bool { return mp.Enabled && mp.N > 0 }

// approximate reports whether outer iterations make approximate passes.
func (mp *MultiPlane) approximate() bool { return mp.planes() && mp.M > 0 }

// explicitDuals reports whether the solver keeps the dual variables of every
// block explicitly (pairwise and away steps).
func (cfg *Config) explicitDuals() bool {
	return cfg.Algorithm == run.BCFW && cfg.Step != FWStep && cfg.Step != Exact
}

// keepsCorners reports whether blocks hold corner sets.
func (cfg *Config) keepsCorners() bool {
	return cfg.Algorithm == run.BCFW && (cfg.explicitDuals() || cfg.Cache.Enabled || cfg.MultiPlane.planes())
}
