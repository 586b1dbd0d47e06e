package solver

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/run"
)

// optimum solves the SSVM at lambda to a gap of 1e-8 and returns the
// optimal primal value within that accuracy.
func optimum(t *testing.T, p oracles.Problem, lambda float64) float64 {
	t.Helper()
	s := mustNew(t, p, config{Lambda: lambda, Step: Pairwise, GapEvery: 2})
	if st := mustRun(t, s, run.Stop{Gap: 1e-8, Passes: 1e6}); st != run.StatusConverged {
		t.Fatalf("reference solve at lambda %v did not converge", lambda)
	}
	last, _ := s.Last()
	return last.Primal
}

// TestPathIsEpsilonApproximate checks the defining property of the path of
// Osokin et al. (2016, Sec. 4): for every lambda of every segment, the
// weights the path gives are epsilon-approximate (primal suboptimality at
// most epsilon, against an independent high-precision solve), the bound
// returned by At is at most epsilon, and it bounds the true suboptimality.
func TestPathIsEpsilonApproximate(t *testing.T) {
	p := smallChain(31)
	const eps = 0.05
	for _, cfg := range []PathConfig{
		{Epsilon: eps, Kappa: 0.5, LambdaMin: 0.03, Method: methodOf(config{Step: Pairwise})},
		{Epsilon: eps, Kappa: 0.9, LambdaMin: 0.03, Method: methodOf(config{Step: Pairwise, Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}})},
		{Epsilon: eps, Kappa: 0.7, LambdaMin: 0.03, Method: methodOf(config{Sampling: run.Permutation, MultiPlane: mpConfig{Enabled: true, Rule: ruleCost, CostRatio: 50}})},
	} {
		path, err := RegPath(context.Background(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		bps := path.Breakpoints
		if len(bps) < 3 {
			t.Fatalf("only %d breakpoints", len(bps))
		}
		t.Logf("%d breakpoints from %.4g to %.4g (lower end %.4g, complete %v), %.1f passes",
			len(bps), bps[0].Lambda, bps[len(bps)-1].Lambda, path.LowerEnd, path.Complete, bps[len(bps)-1].Passes)
		var lambdas []float64
		for _, f := range []float64{1, 3, 100} {
			lambdas = append(lambdas, f*bps[0].Lambda)
		}
		// Every segment is certified by construction; check a spread of them
		// (the first and the last included) against independent optima.
		stride := len(bps)/10 + 1
		for j := range bps {
			if j > 0 && bps[j].TrueGap > cfg.Kappa*eps {
				t.Fatalf("breakpoint %d: exact gap %v > kappa eps", j, bps[j].TrueGap)
			}
			if j%stride != 0 && j != len(bps)-1 {
				continue
			}
			hi := bps[j].Lambda
			lo := path.LowerEnd
			if j+1 < len(bps) {
				lo = bps[j+1].Lambda
			}
			if lo == 0 {
				lo = hi / 10
			}
			lambdas = append(lambdas, hi, math.Sqrt(hi*lo), lo*1.0000001)
		}
		for _, lambda := range lambdas {
			w, bound, err := path.At(lambda)
			if err != nil {
				t.Fatal(err)
			}
			subopt := oraclestest.Primal(p, lambda, w) - optimum(t, p, lambda)
			if subopt > eps+1e-9 || bound > eps+1e-9 || subopt > bound+1e-9 {
				t.Fatalf("lambda %v: suboptimality %v, bound %v, epsilon %v", lambda, subopt, bound, eps)
			}
		}
		if _, _, err := path.At(path.LowerEnd / 2); path.LowerEnd > 0 && err == nil {
			t.Fatal("At accepted a lambda below the end of the path")
		}
	}
}

// TestPathCompletes: with a large epsilon the induction ends with
// Delta <= tau, and the last weights are epsilon-approximate down to 0.
func TestPathCompletes(t *testing.T) {
	p := smallChain(32)
	const eps = 0.8
	path, err := RegPath(context.Background(), p, PathConfig{Epsilon: eps, LambdaMin: 1e-9, Method: methodOf(config{Step: Pairwise})})
	if err != nil {
		t.Fatal(err)
	}
	if !path.Complete || path.LowerEnd != 0 {
		t.Fatalf("path not complete: lower end %v", path.LowerEnd)
	}
	last := path.Breakpoints[len(path.Breakpoints)-1].Lambda
	for _, lambda := range []float64{last, last / 2} {
		w, bound, err := path.At(lambda)
		if err != nil {
			t.Fatal(err)
		}
		if subopt := oraclestest.Primal(p, lambda, w) - optimum(t, p, lambda); subopt > eps+1e-9 || bound > eps+1e-9 || subopt > bound+1e-9 {
			t.Fatalf("lambda %v: suboptimality %v, bound %v", lambda, subopt, bound)
		}
	}
}

func TestPathHeuristicReportsTrueGaps(t *testing.T) {
	p := smallChain(33)
	path, err := RegPath(context.Background(), p, PathConfig{Epsilon: 0.05, Kappa: 0.7, LambdaMin: 0.03, Heuristic: true, TrueGaps: true, Method: methodOf(config{Step: Pairwise})})
	if err != nil {
		t.Fatal(err)
	}
	for j, b := range path.Breakpoints[1:] {
		if math.IsNaN(b.TrueGap) || b.TrueGap < -1e-12 || b.Gap > 0.7*0.05+1e-12 {
			t.Fatalf("breakpoint %d: estimate %v, true gap %v", j+1, b.Gap, b.TrueGap)
		}
	}
}

func TestPathInvalidSettings(t *testing.T) {
	p := smallChain(34)
	for _, cfg := range []PathConfig{
		{Epsilon: 0},
		{Epsilon: -1},
		{Epsilon: math.NaN()},
		{Epsilon: 0.1, Kappa: 1},
		{Epsilon: 0.1, Kappa: 1.5},
		{Epsilon: 0.1, Kappa: -0.2},
		{Epsilon: 0.1, LambdaMin: -1},
		{Epsilon: 0.1, Method: methodOf(config{Algorithm: run.FW})},
		{Epsilon: 0.1, Method: methodOf(config{Box: &Box{Lower: fill(p.Dim(), -1)}})},
	} {
		if _, err := RegPath(context.Background(), p, cfg); err == nil {
			t.Errorf("RegPath accepted %+v", cfg)
		}
	}
	// Proposition 1 needs L_i(y_i) = 0.
	bad, err := oracles.NewTabular(2, []oracles.TabularExample{{
		Phi:   []oracles.SparseVec{{Idx: []int32{0}, Val: []float64{1}}, {Idx: []int32{1}, Val: []float64{1}}},
		Loss:  []float64{0.5, 1},
		Truth: 0,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RegPath(context.Background(), bad, PathConfig{Epsilon: 0.1}); err == nil {
		t.Error("RegPath accepted a problem with a loss on the ground truth")
	}
	if _, err := GridSearch(context.Background(), p, GridConfig{Tolerance: 0}); err == nil {
		t.Error("GridSearch accepted tolerance 0")
	}
	if _, err := GridSearch(context.Background(), p, GridConfig{Tolerance: 0.1, Lambdas: []float64{1, -1}}); err == nil {
		t.Error("GridSearch accepted a negative lambda")
	}
}

// TestGridSearch: every grid point reaches the tolerance in decreasing
// lambda order, and cold and warm starts agree on the objective. (Whether
// warm starts save passes depends on the data; TestPathOnOCR checks it on
// OCR as in the paper.)
func TestGridSearch(t *testing.T) {
	p := smallChain(35)
	grid := []float64{0.01, 1, 0.1, 10} // unsorted on purpose
	const tol = 1e-3
	var res [2][]GridPoint
	for k, warm := range []bool{false, true} {
		pts, err := GridSearch(context.Background(), p, GridConfig{Lambdas: grid, Tolerance: tol, Warm: warm, Method: methodOf(config{Step: Pairwise})})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 4 || pts[0].Lambda != 10 || pts[3].Lambda != 0.01 {
			t.Fatalf("grid order %v", pts)
		}
		for _, pt := range pts {
			if pt.Status != run.StatusConverged || pt.Gap > tol {
				t.Fatalf("warm=%v lambda %v: %v gap %v", warm, pt.Lambda, pt.Status, pt.Gap)
			}
		}
		res[k] = pts
	}
	for j := range grid {
		a, b := oraclestest.Primal(p, res[0][j].Lambda, res[0][j].W), oraclestest.Primal(p, res[1][j].Lambda, res[1][j].W)
		if math.Abs(a-b) > 2*tol {
			t.Fatalf("lambda %v: cold %v vs warm %v", res[0][j].Lambda, a, b)
		}
	}
	t.Logf("passes: cold %v, warm %v", res[0][3].Passes, res[1][3].Passes)
	if g := PaperGrid(); len(g) != 31 || g[0] != 32768 || g[30] != math.Ldexp(1, -15) {
		t.Fatalf("paper grid %v", g)
	}
}

// TestPathOnOCR runs the regularization path on OCR-small with epsilon = 0.1
// (Osokin et al. 2016, Sec. 5.2 and App. K) from lambda_inf down to 2^-7,
// against grid search over the same range of the paper's grid: the
// epsilon-approximate path certifies every breakpoint, warm-started grid
// search beats cold grid search, a smaller kappa takes larger steps (fewer
// breakpoints), and the heuristic path's true gaps are reported.
func TestPathOnOCR(t *testing.T) {
	p := ocrSmallTest(t)
	const eps = 0.1
	lmin := math.Ldexp(1, -7)
	solverCfg := config{Sampling: run.GapSampling}
	breakpoints := map[float64]int{}
	for _, kappa := range []float64{0.3, 0.5, 0.7, 0.9} {
		path, err := RegPath(context.Background(), p, PathConfig{Epsilon: eps, Kappa: kappa, LambdaMin: lmin, Method: methodOf(solverCfg)})
		if err != nil {
			t.Fatal(err)
		}
		bps := path.Breakpoints
		last := bps[len(bps)-1]
		t.Logf("kappa %.1f: %d breakpoints, lambda_inf %.4g, last %.4g, %.1f passes, %.2f s solver, %.2f s wall",
			kappa, len(bps), bps[0].Lambda, last.Lambda, last.Passes, last.Seconds, last.WallSeconds)
		if !(path.Complete || path.LowerEnd < lmin) {
			t.Fatalf("kappa %v: path stopped at %v", kappa, last.Lambda)
		}
		for j, b := range bps[1:] {
			if b.TrueGap > kappa*eps {
				t.Fatalf("kappa %v breakpoint %d: exact gap %v > kappa eps", kappa, j+1, b.TrueGap)
			}
		}
		if _, bound, err := path.At(math.Max(path.LowerEnd, 1e-12)); err != nil || bound > eps+1e-9 {
			t.Fatalf("kappa %v: bound %v at the end of the path (%v)", kappa, bound, err)
		}
		breakpoints[kappa] = len(bps)
	}
	if !(breakpoints[0.3] < breakpoints[0.9]) {
		t.Errorf("breakpoints by kappa: %v; a smaller kappa should take larger steps", breakpoints)
	}
	heur, err := RegPath(context.Background(), p, PathConfig{Epsilon: eps, Kappa: 0.7, LambdaMin: lmin, Heuristic: true, TrueGaps: true, Method: methodOf(solverCfg)})
	if err != nil {
		t.Fatal(err)
	}
	above := 0
	for _, b := range heur.Breakpoints[1:] {
		if b.TrueGap > eps {
			above++
		}
	}
	hl := heur.Breakpoints[len(heur.Breakpoints)-1]
	t.Logf("heuristic kappa 0.7: %d breakpoints, %.1f passes, %d true gaps above epsilon", len(heur.Breakpoints), hl.Passes, above)

	var grid []float64
	for _, l := range PaperGrid() {
		if l >= lmin {
			grid = append(grid, l)
		}
	}
	var passes [2]float64
	for k, warm := range []bool{false, true} {
		pts, err := GridSearch(context.Background(), p, GridConfig{Lambdas: grid, Tolerance: eps, Warm: warm, Method: methodOf(solverCfg)})
		if err != nil {
			t.Fatal(err)
		}
		last := pts[len(pts)-1]
		passes[k] = last.Passes
		t.Logf("grid search (warm %v): %d lambdas, %.1f passes, %.2f s solver, %.2f s wall", warm, len(pts), last.Passes, last.Seconds, last.WallSeconds)
	}
	if !(passes[1] < passes[0]) {
		t.Errorf("warm-started grid search used %v passes, cold %v", passes[1], passes[0])
	}
}

// TestPathStoppedEarlyIsHonest: a path that stops before its end (the
// MaxBreakpoints bound, an epsilon too small to get anywhere, a
// cancellation between breakpoints, a breakpoint not solved within
// MaxPasses) says how far it goes: LowerEnd is a computed
// lambda down to which At returns epsilon-approximate weights (checked
// against independent optima), never 0, and a Delta that was never
// computed is NaN.
func TestPathStoppedEarlyIsHonest(t *testing.T) {
	p := smallChain(34)
	cases := []struct {
		name      string
		cfg       func(cancel context.CancelFunc) PathConfig
		wantDelta bool // the last breakpoint's Delta was computed
	}{
		{"max-breakpoints", func(context.CancelFunc) PathConfig {
			return PathConfig{MaxBreakpoints: 40}
		}, true},
		{"epsilon-too-small", func(context.CancelFunc) PathConfig {
			return PathConfig{Epsilon: 1e-9}
		}, true},
		{"canceled-between-breakpoints", func(cancel context.CancelFunc) PathConfig {
			calls := 0
			return PathConfig{Progress: func(Breakpoint) {
				if calls++; calls == 3 {
					cancel()
				}
			}}
		}, false},
		{"breakpoint-not-solved", func(context.CancelFunc) PathConfig {
			return PathConfig{MaxPasses: 2}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg := tc.cfg(cancel)
			if cfg.Epsilon == 0 {
				cfg.Epsilon = 0.05
			}
			eps := cfg.Epsilon
			cfg.LambdaMin, cfg.Method = 1e-6, BCFW{Step: Pairwise}
			path, err := RegPath(ctx, p, cfg)
			if err == nil || path == nil {
				t.Fatalf("path ended without error (%v)", err)
			}
			bps := path.Breakpoints
			last := bps[len(bps)-1]
			t.Logf("%d breakpoints, lower end %.4g, last %.4g: %v", len(bps), path.LowerEnd, last.Lambda, err)
			if path.Complete {
				t.Fatalf("%d breakpoints, complete %v", len(bps), path.Complete)
			}
			if got := !math.IsNaN(last.Delta); got != tc.wantDelta {
				t.Fatalf("last Delta %v, want computed: %v", last.Delta, tc.wantDelta)
			}
			if !(path.LowerEnd > 0 && path.LowerEnd <= last.Lambda) || (tc.wantDelta != (path.LowerEnd < last.Lambda)) {
				t.Fatalf("lower end %v, last breakpoint %v, Delta %v", path.LowerEnd, last.Lambda, last.Delta)
			}
			for _, lambda := range []float64{last.Lambda, path.LowerEnd} {
				w, bound, err := path.At(lambda)
				if err != nil {
					t.Fatal(err)
				}
				if subopt := oraclestest.Primal(p, lambda, w) - optimum(t, p, lambda); subopt > eps+1e-9 || bound > eps+1e-9 {
					t.Fatalf("lambda %v: suboptimality %v, bound %v", lambda, subopt, bound)
				}
			}
			if _, _, err := path.At(path.LowerEnd * 0.999); err == nil {
				t.Fatal("At accepted a lambda below the end of the path")
			}
		})
	}
}
