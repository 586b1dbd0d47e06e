package run

import (
	"encoding/json"
	"math"
)

// Point is one exact evaluation of a run, a point of its trace. Its JSON
// form is the trace format every tool reads and writes (snake_case names,
// see MarshalJSON). Values that do not apply are NaN in Go and null (core
// fields) or absent (the others) in JSON.
type Point struct {
	// Pass is OracleCalls / n, the effective passes over the data.
	Pass float64
	// OracleCalls counts the max-oracle calls the algorithm made, its exact
	// gap passes included (the calls of observe-only evaluations excluded).
	OracleCalls int64
	// Steps counts block steps (BCFW, SSG) or iterations (FW).
	Steps int64
	// Seconds is solver time, excluding exact-gap evaluations.
	Seconds float64
	// EvalSeconds is the wall time of the run's evaluations up to this
	// point (exact gap passes, objectives, averages and the task losses
	// computed on the run's goroutine), measured apart from Seconds (NaN
	// when not measured, e.g. in traces of older builds).
	EvalSeconds float64
	// Primal is lambda/2 |w|^2 + 1/n sum_i max_y H_i(y; w).
	Primal float64
	// Dual is the dual objective at the current dual point (NaN for SSG).
	Dual float64
	// Gap is the duality gap, the sum of the exact block gaps (NaN for SSG).
	Gap float64
	// GapEstimate is the sum of the stale block gaps the solver holds (NaN
	// while a block has not been visited, and for FW and SSG).
	GapEstimate float64
	// TrainLoss and TestLoss are task losses of the current w (NaN unless
	// asked for).
	TrainLoss float64
	TestLoss  float64
	// TestLossAvg is the test loss of the weighted-average iterate (NaN
	// without averaging or without a test loss).
	TestLossAvg float64
	// PrimalAvg, DualAvg, GapAvg describe the weighted-average iterate (NaN
	// without averaging).
	PrimalAvg float64
	DualAvg   float64
	GapAvg    float64
	// Refresh is true for the exact gap passes of BCFW, which feed the
	// algorithm (block gaps, global gap) and are counted as oracle calls;
	// false for observe-only evaluations.
	Refresh bool
	// Lambda is the regularization parameter of the point.
	Lambda float64

	// ChiGap is the non-uniformity chi(g) of the exact block gaps and
	// ChiCurvature that of the curvature bounds 4 R_i^2/(lambda n^2) with R_i
	// the largest observed |psi_i(y)|; PredictedSpeedup is
	// chi(g)^3 / chi(C) (Osokin et al. 2016, Def. 5, Thm. 2, Fig. 1c).
	ChiGap           float64
	ChiCurvature     float64
	PredictedSpeedup float64
	// ChiGapEstimate is chi of the stale block gaps the solver holds (what
	// gap sampling actually samples from; Fig. 1c of Osokin et al. uses
	// these), NaN while a block is unvisited.
	ChiGapEstimate float64

	// Cache and active-set statistics (cumulative counts, current sizes).
	// For the cutting plane with its constraint cache, the hits are the
	// planes taken from the cache and the misses those of oracle passes.
	CacheHits   int64
	CacheMisses int64
	DropSteps   int64
	ActiveMean  float64 // mean active-set size over blocks
	CacheMean   float64 // mean number of stored corners over blocks

	// Multi-plane BCFW (Shah et al. 2015; NaN for the other solvers).
	// ApproxPasses counts the approximate passes made so far (approximate
	// block steps / n; they call no oracle, so Pass does not count them);
	// ApproxPassesLast those of the last completed outer iteration (Fig. 6,
	// bottom); WorkingSetMean is the mean number of planes in the working
	// sets W_i (Fig. 6, top); OracleTimeShare is the share of the solver
	// time spent in the max-oracle calls of the exact steps (Sec. 4.1).
	ApproxPasses     float64
	ApproxPassesLast float64
	WorkingSetMean   float64
	OracleTimeShare  float64

	// ApproximateGap is true when the gap passes used an approximate oracle
	// (an oracles.Approximate problem without an exact one): Primal is then
	// a lower bound of the primal and Gap an estimate, not a certificate.
	ApproximateGap bool
	// Event records what changed in the run since the previous trace point
	// (a knob changed mid-run, a fork), empty when nothing did.
	Event string

	// Rho is the penalty of the soft-constraint solver (package soft;
	// Meshi et al. 2015, eq. 5), NaN for the others. On its points Primal,
	// Dual and Gap are the soft objectives g_rho (eq. 6) and f_rho (eq. 5)
	// and their gap, a certificate of the soft problem.
	Rho float64
	// HardPrimal is the hard (constrained) primal g(w, delta) of Meshi's
	// eq. 2 at the soft solver's (w, delta) = (Psi mu, A mu), the quantity
	// that compares with hard solvers (NaN for the others).
	HardPrimal float64
}

// Blank returns a point with every float field NaN (not computed) and
// every count zero: solvers start their points from it and set what they
// compute, so that a field added later is never a silent 0.
func Blank() Point {
	nan := math.NaN()
	return Point{
		EvalSeconds: nan, Primal: nan, Dual: nan, Gap: nan, GapEstimate: nan, TrainLoss: nan, TestLoss: nan, TestLossAvg: nan,
		PrimalAvg: nan, DualAvg: nan, GapAvg: nan, Lambda: nan,
		ChiGap: nan, ChiCurvature: nan, PredictedSpeedup: nan, ChiGapEstimate: nan,
		ActiveMean: nan, CacheMean: nan,
		ApproxPasses: nan, ApproxPassesLast: nan, WorkingSetMean: nan, OracleTimeShare: nan,
		Rho: nan, HardPrimal: nan,
	}
}

// ForgetMultiPlane and ForgetSoft set to NaN the fields of multi-plane
// BCFW and of the soft-constraint solver, for solvers that never compute
// them: a trace decoded from an older checkpoint (gob leaves fields it did
// not hold at 0) then says "not computed" instead of 0.
func (p *Point) ForgetMultiPlane() {
	nan := math.NaN()
	p.ApproxPasses, p.ApproxPassesLast, p.WorkingSetMean, p.OracleTimeShare = nan, nan, nan, nan
}

// ForgetSoft: see ForgetMultiPlane.
func (p *Point) ForgetSoft() { p.Rho, p.HardPrimal = math.NaN(), math.NaN() }

// StalenessRatio returns GapEstimate / Gap (Osokin et al. 2016, Fig. 1b).
func (p Point) StalenessRatio() float64 { return p.GapEstimate / p.Gap }

// HitRate returns CacheHits / (CacheHits + CacheMisses).
func (p Point) HitRate() float64 {
	return float64(p.CacheHits) / float64(p.CacheHits+p.CacheMisses)
}

type tracePointJSON struct {
	Pass             float64  `json:"pass"`
	OracleCalls      int64    `json:"oracle_calls"`
	Steps            int64    `json:"steps"`
	Seconds          float64  `json:"seconds"`
	EvalSeconds      *float64 `json:"eval_seconds,omitempty"`
	Primal           *float64 `json:"primal"`
	Dual             *float64 `json:"dual"`
	Gap              *float64 `json:"gap"`
	GapEstimate      *float64 `json:"gap_estimate"`
	TrainLoss        *float64 `json:"train_loss,omitempty"`
	TestLoss         *float64 `json:"test_loss,omitempty"`
	TestLossAvg      *float64 `json:"test_loss_avg,omitempty"`
	PrimalAvg        *float64 `json:"primal_avg,omitempty"`
	DualAvg          *float64 `json:"dual_avg,omitempty"`
	GapAvg           *float64 `json:"gap_avg,omitempty"`
	Refresh          bool     `json:"refresh"`
	Lambda           float64  `json:"lambda"`
	ChiGap           *float64 `json:"chi_gap,omitempty"`
	ChiCurvature     *float64 `json:"chi_curvature,omitempty"`
	PredictedSpeedup *float64 `json:"predicted_speedup,omitempty"`
	ChiGapEstimate   *float64 `json:"chi_gap_estimate,omitempty"`
	CacheHits        int64    `json:"cache_hits,omitempty"`
	CacheMisses      int64    `json:"cache_misses,omitempty"`
	DropSteps        int64    `json:"drop_steps,omitempty"`
	ActiveMean       *float64 `json:"active_set_mean,omitempty"`
	CacheMean        *float64 `json:"cache_size_mean,omitempty"`
	ApproxPasses     *float64 `json:"approx_passes,omitempty"`
	ApproxPassesLast *float64 `json:"approx_passes_last,omitempty"`
	WorkingSetMean   *float64 `json:"working_set_mean,omitempty"`
	OracleTimeShare  *float64 `json:"oracle_time_share,omitempty"`
	ApproximateGap   bool     `json:"approximate_gap,omitempty"`
	Event            string   `json:"event,omitempty"`
	Rho              *float64 `json:"rho,omitempty"`
	HardPrimal       *float64 `json:"hard_primal,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes the trace format: pass, oracle_calls, steps, seconds,
// primal, dual, gap, gap_estimate, refresh and lambda always (the core
// fields), the others (train_loss, test_loss, primal_avg, chi_gap, rho, ...)
// when they apply; NaN and infinite values become null (core fields) or are
// left out.
func (p Point) MarshalJSON() ([]byte, error) {
	return json.Marshal(tracePointJSON{
		Pass: p.Pass, OracleCalls: p.OracleCalls, Steps: p.Steps, Seconds: p.Seconds, EvalSeconds: finite(p.EvalSeconds),
		Primal: finite(p.Primal), Dual: finite(p.Dual), Gap: finite(p.Gap), GapEstimate: finite(p.GapEstimate),
		TrainLoss: finite(p.TrainLoss), TestLoss: finite(p.TestLoss), TestLossAvg: finite(p.TestLossAvg),
		PrimalAvg: finite(p.PrimalAvg), DualAvg: finite(p.DualAvg), GapAvg: finite(p.GapAvg),
		Refresh: p.Refresh, Lambda: p.Lambda,
		ChiGap: finite(p.ChiGap), ChiCurvature: finite(p.ChiCurvature), PredictedSpeedup: finite(p.PredictedSpeedup),
		ChiGapEstimate: finite(p.ChiGapEstimate),
		CacheHits:      p.CacheHits, CacheMisses: p.CacheMisses, DropSteps: p.DropSteps,
		ActiveMean: finite(p.ActiveMean), CacheMean: finite(p.CacheMean),
		ApproxPasses: finite(p.ApproxPasses), ApproxPassesLast: finite(p.ApproxPassesLast),
		WorkingSetMean: finite(p.WorkingSetMean), OracleTimeShare: finite(p.OracleTimeShare),
		ApproximateGap: p.ApproximateGap, Event: p.Event,
		Rho: finite(p.Rho), HardPrimal: finite(p.HardPrimal),
	})
}

// UnmarshalJSON reads what MarshalJSON writes; missing and null values
// become NaN.
func (p *Point) UnmarshalJSON(b []byte) error {
	var j tracePointJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Point{
		Pass: j.Pass, OracleCalls: j.OracleCalls, Steps: j.Steps, Seconds: j.Seconds, EvalSeconds: orNaN(j.EvalSeconds),
		Primal: orNaN(j.Primal), Dual: orNaN(j.Dual), Gap: orNaN(j.Gap), GapEstimate: orNaN(j.GapEstimate),
		TrainLoss: orNaN(j.TrainLoss), TestLoss: orNaN(j.TestLoss), TestLossAvg: orNaN(j.TestLossAvg),
		PrimalAvg: orNaN(j.PrimalAvg), DualAvg: orNaN(j.DualAvg), GapAvg: orNaN(j.GapAvg),
		Refresh: j.Refresh, Lambda: j.Lambda,
		ChiGap: orNaN(j.ChiGap), ChiCurvature: orNaN(j.ChiCurvature), PredictedSpeedup: orNaN(j.PredictedSpeedup),
		ChiGapEstimate: orNaN(j.ChiGapEstimate),
		CacheHits:      j.CacheHits, CacheMisses: j.CacheMisses, DropSteps: j.DropSteps,
		ActiveMean: orNaN(j.ActiveMean), CacheMean: orNaN(j.CacheMean),
		ApproxPasses: orNaN(j.ApproxPasses), ApproxPassesLast: orNaN(j.ApproxPassesLast),
		WorkingSetMean: orNaN(j.WorkingSetMean), OracleTimeShare: orNaN(j.OracleTimeShare),
		ApproximateGap: j.ApproximateGap, Event: j.Event,
		Rho: orNaN(j.Rho), HardPrimal: orNaN(j.HardPrimal),
	}
	return nil
}
