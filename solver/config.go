package solver

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Step selects the kind of block step of BCFW and multi-plane BCFW; the
// zero value is the Frank-Wolfe step with line search.
type Step int

const (
	// FWStep is the Frank-Wolfe step towards the max-oracle corner, with
	// the exact line search of the quadratic dual.
	FWStep Step = iota
	// Pairwise moves mass from the away corner to the FW corner (BCPFW,
	// Osokin et al. 2016, Alg. 3).
	Pairwise
	// Away chooses between a FW step and an away step (BCAFW, Osokin et al.
	// 2016, Alg. 4).
	Away
	// FWPredefined is the Frank-Wolfe step with the predefined step size
	// gamma = 2n/(k+2n) instead of line search (Lacoste-Julien et al.
	// 2013, Alg. 3).
	FWPredefined
	// stepExact is the step of Exact (the engine's own value; Exact is a
	// method of its own, not a step of BCFW).
	stepExact
)

// Cache configures the gap-based cache of oracle answers (Osokin et al.
// 2016, Alg. 5): every block keeps a working set of corners; a step uses
// the best cached corner when its gap estimate passes
//
//	g_hat >= max(F * g_i(k_i), Nu/n * g(k_0)),
//
// and calls the max oracle otherwise. A BCFW without a Cache (nil) calls
// the oracle at every step. The zero value of every field is its default.
type Cache struct {
	// F is the local (per-block) factor; zero means 0.25.
	F float64 `json:"f,omitempty"`
	// Nu is the global factor; zero means 0.01. Nu = n forbids cache hits.
	Nu float64 `json:"nu,omitempty"`
	// MaxSize bounds the number of cached corners per block; zero means 10.
	// Corners in the active set of pairwise or away steps are never evicted,
	// so such a block may hold more while they are active.
	MaxSize int `json:"max_size,omitempty"`
	// InitialGap is the global gap g(k_0) of the Nu criterion before the
	// first gap pass (Alg. 5 takes it from the last gap pass, and there is
	// none yet); zero means +Inf: no Nu hit before the first gap pass.
	// The reference code of Osokin et al. starts from 1, the duality gap
	// at w = 0 when every loss is at most 1 (exactly 1 for a normalized
	// Hamming loss), so that the cache already hits during the first
	// GapEvery passes; the package doc (The reference code of Osokin et
	// al.) lists the settings that make a run theirs.
	InitialGap float64 `json:"initial_gap,omitempty"`
}

// cacheRule is the engine's cache setting: the Cache and whether it is on.
type cacheRule struct {
	Enabled bool
	Cache
}

// passRule decides when an outer iteration of multi-plane BCFW stops making
// approximate passes (Shah et al. 2015, Sec. 3.4; see MultiPlane.Cost).
type passRule int

const (
	// ruleTime measures the expense in solver time, as the paper does.
	ruleTime passRule = iota
	// ruleCost measures it with the deterministic cost model of CostRule.
	ruleCost
)

// mpConfig is the engine's multi-plane setting (see MultiPlane).
type mpConfig struct {
	Enabled    bool
	N, T, M    int
	Rule       passRule
	CostRatio  float64
	UpdateCost float64
}

// Box holds per-coordinate bounds on w (Osokin et al. 2016, App. H). A nil
// slice means no bound on that side; entries may be -Inf or +Inf.
type Box struct {
	Lower []float64 `json:"lower,omitempty"`
	Upper []float64 `json:"upper,omitempty"`
}

// config is the engine's plan of a run, what every method type (BCFW,
// MultiPlane, FW, SSG, CuttingPlane, OnlineEG, Exact, LPHard) and the
// execution of its steps compile to (plan): one engine drives them all,
// and the methods' types keep apart the knobs each one reads. It is
// checked by validate after withDefaults; the pairs of fields it refuses
// are pairs no method type can write.
type config struct {
	Lambda    float64
	Algorithm run.Algorithm
	Sampling  run.Sampling
	// UnvisitedInOrder: gap sampling draws the blocks without a gap
	// estimate in index order (run.GapSamplingInOrder).
	UnvisitedInOrder bool
	Step             Step
	StepSize         run.StepSize
	Cache            cacheRule
	MultiPlane       mpConfig
	Box              *Box
	Averaging        bool
	AverageKind      run.AverageKind
	GapEvery         float64
	TraceEvery       float64
	Seed             uint64
	// Execution schedules the block steps (package execution; nil:
	// sequential): the one field of the plan that is not the method's.
	Execution run.Execution
	Shrinking bool
	CPTol     float64
	CPCache   int
	// Storage is the representation of BCFW's block vectors.
	Storage Storage
	// LPHard marks BCFW on the LP relaxation of a factor graph (LPHard):
	// the problem is the model's factorgraph.Relaxed view.
	LPHard bool
}

func (s Step) String() string {
	switch s {
	case FWStep:
		return "fw"
	case Pairwise:
		return "pairwise"
	case Away:
		return "away"
	case FWPredefined:
		return "fw-predefined"
	case stepExact:
		return "exact"
	}
	return fmt.Sprintf("Step(%d)", int(s))
}

// ParseStep parses "fw", "pairwise", "away" or "fw-predefined".
func ParseStep(s string) (Step, error) {
	for _, v := range []Step{FWStep, Pairwise, Away, FWPredefined} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown step %q (want fw, pairwise, away or fw-predefined)", s)
}

// MarshalText writes the step's name.
func (s Step) MarshalText() ([]byte, error) {
	if s < FWStep || s > FWPredefined {
		return nil, fmt.Errorf("unknown step %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads what MarshalText writes.
func (s *Step) UnmarshalText(b []byte) error {
	v, err := ParseStep(string(b))
	*s = v
	return err
}

func (r passRule) String() string {
	if r == ruleCost {
		return "cost"
	}
	return "time"
}

// withDefaults returns cfg with its zero values replaced by the defaults
// the engine uses (GapEvery 10, cache F 0.25, nu 0.01, MaxSize 10,
// multi-plane N 1000, T 10, M 1000, the cutting plane's tolerance and
// constraint cache).
func (cfg config) withDefaults() config {
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
	if cfg.Averaging && cfg.AverageKind == run.NoAverage {
		cfg.AverageKind = run.WeightedAverage
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
func (cfg *config) validate(d int) error {
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
	if cfg.Step < FWStep || cfg.Step > stepExact || cfg.Step == FWPredefined {
		return fmt.Errorf("solver: unknown step %d", cfg.Step)
	}
	if err := core.ValidateStepSize(cfg.StepSize); err != nil {
		return fmt.Errorf("solver: %w", err)
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
			return fmt.Errorf("solver: the cutting plane's QP tolerance must be positive and finite, got %v", cfg.CPTol)
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
	if cfg.AverageKind < run.NoAverage || cfg.AverageKind > run.UniformAverage {
		return fmt.Errorf("solver: unknown average kind %d", cfg.AverageKind)
	}
	if cfg.AverageKind != run.NoAverage && !cfg.Averaging {
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
func (mp *mpConfig) validate(cfg *config) error {
	if !mp.Enabled {
		return nil
	}
	if mp.Rule != ruleTime && mp.Rule != ruleCost {
		return fmt.Errorf("solver: unknown multi-plane pass rule %d", mp.Rule)
	}
	if mp.CostRatio < 0 || math.IsNaN(mp.CostRatio) || math.IsInf(mp.CostRatio, 0) {
		return fmt.Errorf("solver: the cost ratio of the multi-plane cost rule must be finite and >= 0, got %v", mp.CostRatio)
	}
	if mp.UpdateCost < 0 || math.IsNaN(mp.UpdateCost) || math.IsInf(mp.UpdateCost, 0) {
		return fmt.Errorf("solver: the update cost of the multi-plane cost rule must be finite and >= 0, got %v", mp.UpdateCost)
	}
	if mp.T > maxPlaneAge {
		return fmt.Errorf("solver: multi-plane T must be at most %d outer iterations (negative: keep planes until N drops them), got %d", maxPlaneAge, mp.T)
	}
	switch {
	case cfg.Algorithm != run.BCFW:
		return fmt.Errorf("solver: multi-plane working sets need the bcfw solver, not %v", cfg.Algorithm)
	case mp.Rule == ruleCost && mp.CostRatio == 0:
		return errors.New("solver: the multi-plane cost rule needs a cost ratio > 0, the cost of an oracle call in plane evaluations (MeasureCostRatio estimates it)")
	case cfg.Cache.Enabled:
		return errors.New("solver: the Osokin cache and multi-plane working sets are two policies for reusing planes; enable one of them")
	case cfg.Sampling != run.Permutation:
		return fmt.Errorf("solver: multi-plane BCFW visits every block once per pass (Shah et al. 2015, Alg. 3): it needs permutation sampling, not %v", cfg.Sampling)
	case cfg.StepSize != run.LineSearch:
		return errors.New("solver: multi-plane BCFW needs line search (its pass rule measures the dual increase of the steps)")
	case cfg.Averaging && cfg.AverageKind != run.WeightedAverage:
		return fmt.Errorf("solver: multi-plane BCFW keeps weighted averages (Shah et al. 2015, Sec. 3.5), not %v", cfg.AverageKind)
	}
	return nil
}

// maxPlaneAge bounds MultiPlane.T: the first steps of the last T outer
// iterations are kept in a ring of T entries.
const maxPlaneAge = 1 << 20

// String describes the settings as the paper writes them (after
// defaults): N and M of 0 for none, T = inf for planes kept until N drops
// them, the rule with the cost ratio of ruleCost, e.g.
// "N=1000 T=10 M=1000 rule cost 57".
func (mp mpConfig) String() string {
	show := func(v int, none string) string {
		if v < 0 {
			return none
		}
		return strconv.Itoa(v)
	}
	rule := "time"
	if mp.Rule == ruleCost {
		rule = fmt.Sprintf("cost %g", mp.CostRatio)
		if mp.UpdateCost > 0 {
			rule += fmt.Sprintf(" update %g", mp.UpdateCost)
		}
	}
	return fmt.Sprintf("N=%s T=%s M=%s rule %s", show(mp.N, "0"), show(mp.T, "inf"), show(mp.M, "0"), rule)
}

// planes reports whether blocks keep multi-plane working sets (N > 0).
func (mp *mpConfig) planes() bool { return mp.Enabled && mp.N > 0 }

// approximate reports whether outer iterations make approximate passes.
func (mp *mpConfig) approximate() bool { return mp.planes() && mp.M > 0 }

// explicitDuals reports whether the solver keeps the dual variables of every
// block explicitly (pairwise and away steps).
func (cfg *config) explicitDuals() bool {
	return cfg.Algorithm == run.BCFW && cfg.Step != FWStep && cfg.Step != stepExact
}

// keepsCorners reports whether blocks hold corner sets.
func (cfg *config) keepsCorners() bool {
	return cfg.Algorithm == run.BCFW && (cfg.explicitDuals() || cfg.Cache.Enabled || cfg.MultiPlane.planes())
}
