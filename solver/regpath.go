package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// PathConfig configures RegPath.
type PathConfig struct {
	// Epsilon is the accuracy of the path: every returned w is
	// Epsilon-approximate on its segment of lambdas (> 0).
	Epsilon float64
	// Kappa in (0, 1) trades breakpoints for work: each breakpoint is solved
	// to a gap of Kappa*Epsilon; zero means 0.9 (Osokin et al. 2016, App. K;
	// they use 0.7 for the heuristic path).
	Kappa float64
	// LambdaMin ends the path once the next breakpoint would fall below it;
	// zero means 2^-15, the low end of the paper's grid.
	LambdaMin float64
	// Heuristic stops the solver of each breakpoint on its stale gap
	// estimate instead of an exact gap pass (App. K): faster, uncertified.
	Heuristic bool
	// TrueGaps computes, for the heuristic path, the exact gap at every
	// breakpoint with an observe-only evaluation (not counted).
	TrueGaps bool
	// Method is the SSVM solver run at every breakpoint: a BCFW (nil: the
	// zero BCFW), MultiPlane or Exact of this package, whose dual
	// variables and gap estimates the path rescales; its Lambda is
	// ignored.
	Method run.Method
	// MaxPasses bounds the effective passes spent on one breakpoint; zero
	// means 10000. Reaching it ends the path with an error.
	MaxPasses float64
	// MaxBreakpoints bounds the number of breakpoints; zero means 10000.
	// Reaching it ends the path with an error. The number of breakpoints
	// grows as 1/Epsilon (OCR-small: 157 for Epsilon = 0.1, 2138 for 0.01),
	// so that without a bound a tiny Epsilon would never end. The path also
	// ends with an error, at once, when the step from one breakpoint to the
	// next is so small that reaching LambdaMin at that rate would take over
	// 100 MaxBreakpoints (an Epsilon of 1e-12 moves lambda by a factor
	// 1 - 1e-13).
	MaxBreakpoints int
	// EarlyCheck certifies a breakpoint as soon as the stale gap estimate
	// falls below EarlyCheck*Kappa*Epsilon (see Stop.EarlyCheck); zero means
	// 0.8, negative disables it.
	EarlyCheck float64
	// Progress, when set, is called with every new breakpoint.
	Progress func(Breakpoint)
}

// Breakpoint is one piece of an approximate regularization path: its
// weights W are Epsilon-approximate for every lambda between the next
// breakpoint's Lambda and this one's (for the first breakpoint, W scaled by
// Lambda/lambda is for every lambda above).
type Breakpoint struct {
	Lambda float64   `json:"lambda"`
	W      []float64 `json:"weights,omitempty"`
	// Gap is the duality gap at Lambda the path relies on: exact (sum of the
	// exact block gaps) on the epsilon-approximate path, a bound at the
	// first breakpoint, the stale estimate on the heuristic path.
	Gap float64 `json:"gap"`
	// TrueGap is the exact gap at Lambda (NaN when not computed).
	TrueGap float64 `json:"true_gap"`
	// Delta is sum_i delta_i = (1/n) sum_i sum_y alpha_i(y) H_i(y; w): the
	// gap at lambda <= Lambda is Gap + (1 - lambda/Lambda) Delta
	// (Proposition 1). It is NaN when the path stopped before computing it
	// (then LowerEnd is this breakpoint's Lambda).
	Delta float64 `json:"delta"`
	// Passes, Seconds, WallSeconds and OracleCalls are cumulative from the
	// start of the path (initialization included) to this breakpoint;
	// Seconds is solver time (exact-gap evaluations excluded), WallSeconds
	// includes them.
	Passes      float64 `json:"passes"`
	OracleCalls int64   `json:"oracle_calls"`
	Seconds     float64 `json:"seconds"`
	WallSeconds float64 `json:"wall_seconds"`
}

// Path is an approximate regularization path (Osokin et al. 2016, Sec. 4).
type Path struct {
	Epsilon, Kappa float64
	Heuristic      bool
	// Breakpoints in decreasing order of Lambda; the first is lambda_inf.
	Breakpoints []Breakpoint
	// LowerEnd is the smallest lambda the path covers, always computed: 0
	// when the path is complete (Delta <= tau: the last w is
	// epsilon-approximate for every smaller lambda); else the lambda down to
	// which the last breakpoint's weights are epsilon-approximate by
	// Proposition 1 (the next breakpoint, where the path stopped: below
	// LambdaMin, MaxBreakpoints reached, an error or a cancellation while
	// solving it); or the last breakpoint's own Lambda when the path stopped
	// before computing its Delta.
	LowerEnd float64
	// Complete reports Delta <= tau at the last breakpoint.
	Complete bool
}

// At returns weights for lambda and the gap bound of Proposition 1 at
// lambda: on the epsilon-approximate path it certifies the primal
// suboptimality (at most Epsilon); on the heuristic path it is an estimate.
// Lambdas below LowerEnd are outside the path.
func (p *Path) At(lambda float64) (w []float64, gapBound float64, err error) {
	if len(p.Breakpoints) == 0 {
		return nil, 0, errors.New("solver: empty path")
	}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		if lambda == 0 && p.Complete {
			last := p.Breakpoints[len(p.Breakpoints)-1]
			return append([]float64(nil), last.W...), last.Gap + last.Delta, nil
		}
		return nil, 0, fmt.Errorf("solver: lambda must be positive and finite, got %v", lambda)
	}
	first := p.Breakpoints[0]
	if lambda >= first.Lambda {
		r := first.Lambda / lambda
		w = make([]float64, len(first.W))
		floats.AddScaled(w, r, first.W)
		return w, first.Gap * r, nil
	}
	if lambda < p.LowerEnd {
		return nil, 0, fmt.Errorf("solver: lambda %v below the end of the path (%v)", lambda, p.LowerEnd)
	}
	j := len(p.Breakpoints) - 1
	for k := 1; k < len(p.Breakpoints); k++ {
		if lambda >= p.Breakpoints[k].Lambda {
			j = k - 1
			break
		}
	}
	b := p.Breakpoints[j]
	return append([]float64(nil), b.W...), b.Gap + (1-lambda/b.Lambda)*b.Delta, nil
}

func (cfg PathConfig) withDefaults() PathConfig {
	if cfg.Kappa == 0 {
		cfg.Kappa = 0.9
	}
	if cfg.LambdaMin == 0 {
		cfg.LambdaMin = math.Ldexp(1, -15)
	}
	if cfg.MaxPasses == 0 {
		cfg.MaxPasses = 10000
	}
	if cfg.EarlyCheck == 0 {
		cfg.EarlyCheck = 0.8
	}
	if cfg.MaxBreakpoints == 0 {
		cfg.MaxBreakpoints = 10000
	}
	return cfg
}

func (cfg *PathConfig) validate() error {
	switch {
	case !(cfg.Epsilon > 0) || math.IsInf(cfg.Epsilon, 1):
		return fmt.Errorf("solver: path epsilon must be positive and finite, got %v", cfg.Epsilon)
	case !(cfg.Kappa > 0 && cfg.Kappa < 1):
		return fmt.Errorf("solver: path kappa must lie in (0, 1), got %v", cfg.Kappa)
	case !(cfg.LambdaMin > 0) || math.IsInf(cfg.LambdaMin, 1):
		return fmt.Errorf("solver: path lambda-min must be positive and finite, got %v", cfg.LambdaMin)
	case !(cfg.MaxPasses > 0) || math.IsInf(cfg.MaxPasses, 1):
		return fmt.Errorf("solver: path max passes must be positive and finite, got %v", cfg.MaxPasses)
	case cfg.MaxBreakpoints < 1:
		return fmt.Errorf("solver: path max breakpoints must be positive, got %d", cfg.MaxBreakpoints)
	}
	plan, err := planOf(cfg.Method)
	if err != nil {
		return fmt.Errorf("solver: path: %w", err)
	}
	if plan.Algorithm != run.BCFW || plan.LPHard {
		return fmt.Errorf("solver: the path needs a block-coordinate method of this package (bcfw, mp-bcfw, exact: gap estimates and dual variables), not %s", cfg.Method.Name())
	}
	return nil
}

// planOf returns the plan of a method of this package (nil: the zero
// BCFW), with no execution.
func planOf(m run.Method) (config, error) {
	if m == nil {
		m = BCFW{}
	}
	pm, ok := m.(planner)
	if !ok {
		return config{}, fmt.Errorf("%s is not a method of package solver", m.Name())
	}
	return pm.plan()
}

// RegPath computes an epsilon-approximate regularization path of the SSVM
// (Osokin et al. 2016, Alg. 6 and 7): from lambda_inf, where the scaled
// solution of Alg. 6 is kappa*epsilon-approximate, it alternates the
// induction step of Proposition 1 (the largest lambda_{J+1} = rho lambda_J
// keeping the gap below epsilon, with the dual variables rescaled) and the
// SSVM solver run to a gap of kappa*epsilon, until Delta <= tau (the last w
// is epsilon-approximate for every smaller lambda) or lambda < LambdaMin.
//
// Alg. 7 as printed reads "if Delta <= tau then rho := 1 - tau/Delta else
// return"; the text (Sec. 4, eq. 12) and the proof need the opposite
// comparison, which is what is implemented.
//
// The losses must vanish on the ground truth (Proposition 1). With box
// constraints, every finite bound must be zero (e.g. positivity), so that
// truncation commutes with the scaling of the first piece.
//
// On error (cancellation, a breakpoint not converging within MaxPasses,
// MaxBreakpoints reached) the path computed so far is returned with the
// error, its LowerEnd saying how far it goes.
func RegPath(ctx context.Context, p oracles.Problem, cfg PathConfig, opts ...run.Option) (*Path, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if p == nil || p.Len() == 0 {
		return nil, errors.New("solver: path needs a non-empty problem")
	}
	if err := CheckZeroTruthLoss(p); err != nil {
		return nil, err
	}
	plan, err := planOf(cfg.Method)
	if err != nil {
		return nil, fmt.Errorf("solver: path: %w", err)
	}
	box, err := effectiveBox(plan.Box, p)
	if err != nil {
		return nil, err
	}
	if err := box.checkCone(); err != nil {
		return nil, err
	}
	start := time.Now()
	s, err := initPath(p, cfg, opts)
	if err != nil {
		return nil, err
	}
	initCalls := int64(2 * p.Len()) // Alg. 6: n max-oracle calls and n decodings
	path := &Path{Epsilon: cfg.Epsilon, Kappa: cfg.Kappa, Heuristic: cfg.Heuristic}
	tol := cfg.Kappa * cfg.Epsilon
	add := func(gaps []float64, trueGap float64) {
		var g float64
		for _, v := range gaps {
			g += v
		}
		calls := initCalls + s.OracleCalls()
		b := Breakpoint{
			Lambda: s.Lambda(), W: s.Weights(), Gap: g, TrueGap: trueGap, Delta: math.NaN(),
			Passes: float64(calls) / float64(s.n), OracleCalls: calls,
			Seconds: s.Elapsed().Seconds() + s.pathInit.Seconds(), WallSeconds: time.Since(start).Seconds(),
		}
		path.Breakpoints = append(path.Breakpoints, b)
		path.LowerEnd = b.Lambda
		if cfg.Progress != nil {
			cfg.Progress(b)
		}
	}
	add(s.gapEst, math.NaN())
	for {
		if err := ctx.Err(); err != nil {
			return path, err
		}
		gaps := s.pathGaps()
		var gapSum, delta float64
		for i := 0; i < s.n; i++ {
			gapSum += gaps[i]
			delta -= s.store.baseAt(i, s.x.w) // delta_i = ell_i - lambda <w, w_i>
		}
		last := &path.Breakpoints[len(path.Breakpoints)-1]
		last.Delta = delta
		tau := cfg.Epsilon - gapSum
		if delta <= tau {
			path.Complete, path.LowerEnd = true, 0
			return path, nil
		}
		next := (1 - tau/delta) * s.Lambda()
		path.LowerEnd = next
		if next < cfg.LambdaMin {
			return path, nil
		}
		// At this step, lambda falls by a factor 1 - tau/delta a breakpoint.
		if need := math.Log(s.Lambda()/cfg.LambdaMin) / -math.Log1p(-tau/delta); need > 100*float64(cfg.MaxBreakpoints) {
			return path, fmt.Errorf("solver: path stopped at lambda %.6g: at its current step (lambda falls by a factor 1 - %.3g a breakpoint) it would need about %.3g breakpoints to reach lambda %v, over 100 times MaxBreakpoints (%d); a larger epsilon (now %v) takes larger steps",
				s.Lambda(), tau/delta, need, cfg.LambdaMin, cfg.MaxBreakpoints, cfg.Epsilon)
		}
		if len(path.Breakpoints) >= cfg.MaxBreakpoints {
			return path, fmt.Errorf("solver: path stopped at lambda %.6g after %d breakpoints (MaxBreakpoints); their number grows as 1/epsilon (epsilon = %v)", next, len(path.Breakpoints), cfg.Epsilon)
		}
		if err := s.SetLambda(next); err != nil {
			return path, err
		}
		stop := run.Stop{Passes: s.Passes() + cfg.MaxPasses}
		if cfg.Heuristic {
			stop.GapEstimate = tol
		} else {
			stop.Gap = tol
			if cfg.EarlyCheck > 0 {
				stop.EarlyCheck = cfg.EarlyCheck
			}
		}
		res, err := s.Run(ctx, stop)
		if err != nil {
			return path, err
		}
		switch res.Status {
		case run.StatusCanceled:
			return path, ctx.Err()
		case run.StatusPasses:
			return path, fmt.Errorf("solver: path breakpoint at lambda %v did not reach gap %v within %v passes", next, tol, cfg.MaxPasses)
		}
		trueGap := math.NaN()
		if !cfg.Heuristic {
			trueGap = s.trace[len(s.trace)-1].Gap
		} else if cfg.TrueGaps {
			pt, err := s.Evaluate()
			if err != nil {
				return path, err
			}
			trueGap = pt.Gap
		}
		add(s.pathGaps(), trueGap)
	}
}

// pathGaps returns the block gaps the induction step relies on: the exact
// ones when the last exact pass describes the current iterate, else the
// stale estimates.
func (s *Solver) pathGaps() []float64 {
	if s.exactGaps != nil && s.exactAt == s.steps {
		return s.exactGaps
	}
	return s.gapEst
}

// initPath builds the solver of a path at lambda_inf with the dual point of
// Osokin et al. (2016), Alg. 6: alpha_i(ytilde_i) = 1 with ytilde_i the max
// oracle at w = 0, and block gap bounds g_i = theta_i/(n lambda_inf) +
// lambda_inf <w_i, w>.
func initPath(p oracles.Problem, cfg PathConfig, opts []run.Option) (*Solver, error) {
	t0 := time.Now()
	n, d := p.Len(), p.Dim()
	nf := float64(n)
	zero := make([]float64, d)
	ys := make([][]int32, n)
	psiTilde := make([]float64, d)
	var psi oracles.SparseVec
	oracle := oracles.OracleFunc(p)
	for i := 0; i < n; i++ {
		y, _, err := oracle(i, zero, nil)
		if err != nil {
			return nil, fmt.Errorf("solver: path initialization: %w", err)
		}
		ys[i] = y
		p.Psi(i, y, &psi)
		psi.AddTo(psiTilde, 1/nf)
	}
	// With a cone box the first piece is w = [psiTilde]/lambda.
	psiHat := append([]float64(nil), psiTilde...)
	scfg, err := planOf(cfg.Method)
	if err != nil {
		return nil, fmt.Errorf("solver: path: %w", err)
	}
	box, err := effectiveBox(scfg.Box, p)
	if err != nil {
		return nil, err
	}
	if box != nil {
		box.clipAll(psiHat, psiHat)
	}
	theta := make([]float64, n)
	var thetaSum float64
	var yhat []int32
	for i := 0; i < n; i++ {
		yhat = p.Predict(i, psiHat, yhat)
		p.Psi(i, yhat, &psi)
		theta[i] = -psi.Dot(psiHat)
		thetaSum += theta[i]
	}
	num := floats.Dot(psiHat, psiTilde) + thetaSum/nf
	if !(num > 0) {
		return nil, errors.New("solver: w = 0 is optimal for every lambda (the loss-augmented oracle finds no violation at w = 0); there is no path to compute")
	}
	lambdaInf := num / (cfg.Kappa * cfg.Epsilon)
	scfg.Lambda = lambdaInf
	s, err := newSolver(p, scfg, opts...)
	if err != nil {
		return nil, err
	}
	gaps := make([]float64, n)
	for i := 0; i < n; i++ {
		p.Psi(i, ys[i], &psi)
		gaps[i] = (theta[i] + psi.Dot(psiHat)) / (nf * lambdaInf)
	}
	s.setCornerPoint(ys, gaps)
	s.pathInit = time.Since(t0)
	return s, nil
}

// setCornerPoint puts all the dual mass of block i on labeling ys[i] at the
// current lambda and sets the stale block gaps to gaps (Alg. 6, lines 12-17).
// The solver must not have stepped yet.
func (s *Solver) setCornerPoint(ys [][]int32, gaps []float64) {
	n := float64(s.n)
	var psi oracles.SparseVec
	for i := 0; i < s.n; i++ {
		s.p.Psi(i, ys[i], &psi)
		loss := s.p.Loss(i, ys[i])
		s.ellI[i] = loss / n
		c := corner{psi: psi, loss: loss, norm: psi.NormSq(), entry: -1}
		if s.sets != nil {
			set := &s.sets[i]
			k := set.find(ys[i], oracles.HashLabeling(ys[i]))
			if k < 0 {
				k = set.add(ys[i], &psi, loss, 0, s.work.dense)
			}
			c.entry = k
		}
		s.observeRadius(i, c.norm)
		s.store.setCorner(i, &c)
	}
	s.reanchor()
	copy(s.gapEst, gaps)
	s.est.Reset(s.gapEst)
	s.samp.Refresh(s.gapEst)
	s.globalGap = floats.Sum(gaps)
	s.exactGaps = nil
}

// checkCone returns an error unless every finite bound of the box is zero.
func (b *Box) checkCone() error {
	if b == nil {
		return nil
	}
	for _, bounds := range [][]float64{b.Lower, b.Upper} {
		for j, v := range bounds {
			if v != 0 && !math.IsInf(v, 0) {
				return fmt.Errorf("solver: the regularization path supports box bounds of 0 or +-Inf only (coordinate %d has %v)", j, v)
			}
		}
	}
	return nil
}

// GridConfig configures GridSearch.
type GridConfig struct {
	// Lambdas is the grid, solved in decreasing order; nil means the paper's
	// 2^15, 2^14, ..., 2^-15.
	Lambdas []float64
	// Tolerance is the duality gap to reach at every lambda (> 0).
	Tolerance float64
	// Warm starts every lambda from the solution of the previous one,
	// keeping the primal variables and rescaling the dual ones
	// (Proposition 1, SetLambda); otherwise every lambda starts at w = 0.
	Warm bool
	// Method is the SSVM solver, a method of this package (nil: the zero
	// BCFW); its Lambda is ignored. Warm needs one that can change lambda
	// (not OnlineEG).
	Method run.Method
	// MaxPasses bounds the passes per lambda; zero means 10000.
	MaxPasses float64
	// EarlyCheck as in PathConfig (zero: 0.8, negative: off).
	EarlyCheck float64
	// Progress, when set, is called after every grid point.
	Progress func(GridPoint)
}

// GridPoint is the result at one lambda of a grid search.
type GridPoint struct {
	Lambda float64    `json:"lambda"`
	W      []float64  `json:"weights,omitempty"`
	Gap    float64    `json:"gap"`
	Status run.Status `json:"status"`
	// Passes, OracleCalls, Seconds and WallSeconds are cumulative over the
	// grid up to this lambda.
	Passes      float64 `json:"passes"`
	OracleCalls int64   `json:"oracle_calls"`
	Seconds     float64 `json:"seconds"`
	WallSeconds float64 `json:"wall_seconds"`
}

// PaperGrid returns 2^15, 2^14, ..., 2^-15 (Osokin et al. 2016, Sec. 5.2).
func PaperGrid() []float64 {
	g := make([]float64, 31)
	for k := range g {
		g[k] = math.Ldexp(1, 15-k)
	}
	return g
}

// GridSearch solves the SSVM to Tolerance for every lambda of a grid, in
// decreasing order, cold or warm-started: the baseline of the
// regularization path (Osokin et al. 2016, Fig. 4 and 8).
func GridSearch(ctx context.Context, p oracles.Problem, cfg GridConfig, opts ...run.Option) ([]GridPoint, error) {
	if cfg.Lambdas == nil {
		cfg.Lambdas = PaperGrid()
	}
	if !(cfg.Tolerance > 0) {
		return nil, fmt.Errorf("solver: grid tolerance must be positive, got %v", cfg.Tolerance)
	}
	if cfg.MaxPasses == 0 {
		cfg.MaxPasses = 10000
	}
	if cfg.EarlyCheck == 0 {
		cfg.EarlyCheck = 0.8
	}
	grid := append([]float64(nil), cfg.Lambdas...)
	for _, l := range grid {
		if !(l > 0) || math.IsInf(l, 1) {
			return nil, fmt.Errorf("solver: grid lambdas must be positive and finite, got %v", l)
		}
	}
	sortDescending(grid)
	start := time.Now()
	var out []GridPoint
	var s *Solver
	var calls int64
	var seconds float64
	for _, lambda := range grid {
		if s != nil && cfg.Warm {
			if err := s.SetLambda(lambda); err != nil {
				return out, err
			}
		} else {
			if s != nil {
				calls += s.OracleCalls()
				seconds += s.Elapsed().Seconds()
			}
			scfg, err := planOf(cfg.Method)
			if err != nil {
				return out, fmt.Errorf("solver: grid: %w", err)
			}
			scfg.Lambda = lambda
			if s, err = newSolver(p, scfg, opts...); err != nil {
				return out, err
			}
		}
		stop := run.Stop{Gap: cfg.Tolerance, Passes: s.Passes() + cfg.MaxPasses}
		if cfg.EarlyCheck > 0 {
			stop.EarlyCheck = cfg.EarlyCheck
		}
		res, err := s.Run(ctx, stop)
		if err != nil {
			return out, err
		}
		st := res.Status
		if st == run.StatusCanceled {
			return out, ctx.Err()
		}
		// The gap of the weights returned: the last trace point describes
		// them unless the pass budget ended between two gap passes.
		last, err := s.Current()
		if err != nil {
			return out, err
		}
		total := calls + s.OracleCalls()
		pt := GridPoint{
			Lambda: lambda, W: s.Weights(), Gap: last.Gap, Status: st,
			Passes: float64(total) / float64(s.n), OracleCalls: total,
			Seconds: seconds + s.Elapsed().Seconds(), WallSeconds: time.Since(start).Seconds(),
		}
		out = append(out, pt)
		if cfg.Progress != nil {
			cfg.Progress(pt)
		}
	}
	return out, nil
}

func sortDescending(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] > x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
