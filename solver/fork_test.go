package solver

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// TestForkUnchangedContinuesIdentically: a fork with the configuration of
// the original continues exactly as the original does, for every variant
// and both block storages.
func TestForkUnchangedContinuesIdentically(t *testing.T) {
	p := smallChain(21)
	for _, v := range variants {
		for _, st := range []Storage{DenseBlocks, SparseBlocks} {
			t.Run(v.name+" "+st.String(), func(t *testing.T) {
				cfg := v.cfg
				cfg.Lambda, cfg.Seed, cfg.GapEvery = 0.05, 3, 2
				a := mustNew(t, p, withStorage(cfg, st), run.WithTrainLoss(true))
				mustRun(t, a, run.Stop{Passes: 5})
				f, err := a.fork(a.cfg)
				if err != nil {
					t.Fatal(err)
				}
				if len(f.Trace()) != len(a.Trace()) {
					t.Fatal("an unchanged fork recorded a trace point")
				}
				mustRun(t, a, run.Stop{Passes: 12})
				mustRun(t, f, run.Stop{Passes: 12})
				requireSameRun(t, a, f)
			})
		}
	}
}

// TestForkChanges switches one setting at a time: the fork starts at the
// state of the original (same objective values, recorded with an event),
// leaves the original untouched, and keeps a consistent dual state as it
// runs on.
func TestForkChanges(t *testing.T) {
	p := smallChain(22)
	base := config{Lambda: 0.05, Seed: 4, GapEvery: 2}
	perm := base
	perm.Sampling = run.Permutation
	mp := perm
	mp.MultiPlane.Enabled = true
	for _, tc := range []struct {
		name  string
		from  config
		to    func(config) config
		event string
	}{
		{"uniform to gap sampling", base, func(c config) config { c.Sampling = run.GapSampling; return c }, "sampling uniform -> gap"},
		{"gap sampling, unvisited in order", func() config { c := base; c.Sampling = run.GapSampling; return c }(), func(c config) config { c.UnvisitedInOrder = true; return c }, "unvisited in order false -> true"},
		{"gap sampling to permutation", func() config { c := base; c.Sampling = run.GapSampling; return c }(), func(c config) config { c.Sampling = run.Permutation; return c }, "sampling gap -> perm"},
		{"cache on", base, func(c config) config { c.Cache.Enabled = true; return c }, "cache off -> F=0.25 nu=0.01 size 10"},
		{"cache off", func() config { c := base; c.Cache.Enabled = true; return c }(), func(c config) config { c.Cache.Enabled = false; return c }, "cache F=0.25 nu=0.01 size 10 -> off"},
		{"cache nu", func() config { c := base; c.Cache.Enabled = true; return c }(), func(c config) config { c.Cache.Nu = 12; return c }, "nu=12"},
		{"pairwise to away", func() config { c := base; c.Step = Pairwise; return c }(), func(c config) config { c.Step = Away; return c }, "step pairwise -> away"},
		{"pairwise to FW", func() config { c := base; c.Step = Pairwise; return c }(), func(c config) config { c.Step = FWStep; return c }, "step pairwise -> fw"},
		{"pairwise with cache to FW with cache", func() config { c := base; c.Step = Pairwise; c.Cache.Enabled = true; return c }(), func(c config) config { c.Step = FWStep; return c }, "step pairwise -> fw"},
		{"averaging on", base, func(c config) config { c.Averaging = true; return c }, "averaging false -> true"},
		{"gap every", base, func(c config) config { c.GapEvery = 5; return c }, "gap every 2 -> 5"},
		{"seed", base, func(c config) config { c.Seed = 9; return c }, "seed 4 -> 9"},
		{"lambda", base, func(c config) config { c.Lambda = 0.02; return c }, "fork: lambda 0.05 -> 0.02"},
		{"multi-plane on", perm, func(c config) config { c.MultiPlane.Enabled = true; return c }, "fork: multi-plane off -> N=1000 T=10 M=1000 rule time"},
		{"multi-plane and permutation on", base, func(c config) config { c.MultiPlane.Enabled, c.Sampling = true, run.Permutation; return c }, "sampling uniform -> perm, multi-plane off -> N=1000"},
		{"multi-plane on, pairwise", func() config { c := perm; c.Step = Pairwise; return c }(), func(c config) config { c.MultiPlane.Enabled = true; return c }, "multi-plane off -> N=1000"},
		{"cache to multi-plane", func() config { c := perm; c.Cache.Enabled = true; return c }(), func(c config) config { c.Cache.Enabled, c.MultiPlane.Enabled = false, true; return c }, "cache F=0.25 nu=0.01 size 10 -> off, multi-plane off -> N=1000"},
		{"multi-plane off", mp, func(c config) config { c.MultiPlane.Enabled = false; return c }, "multi-plane N=1000 T=10 M=1000 rule time -> off"},
		{"multi-plane T", mp, func(c config) config { c.MultiPlane.T = 2; return c }, "-> N=1000 T=2 M=1000 rule time"},
		{"multi-plane cost rule", mp, func(c config) config { c.MultiPlane.Rule, c.MultiPlane.CostRatio = ruleCost, 20; return c }, "-> N=1000 T=10 M=1000 rule cost 20"},
		{"multi-plane no approximate passes", mp, func(c config) config { c.MultiPlane.M = -1; return c }, "M=1000 rule time -> N=1000 T=10 M=0"},
		{"multi-plane averaging on", mp, func(c config) config { c.Averaging = true; return c }, "averaging false -> true"},
		{"lambda and sampling", base, func(c config) config { c.Lambda = 0.02; c.Sampling = run.GapSampling; return c }, "fork: lambda 0.05 -> 0.02, sampling uniform -> gap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := mustNew(t, p, tc.from)
			mustRun(t, a, run.Stop{Passes: 6})
			before := mustEval(t, a)
			wa := a.Weights()
			n := len(a.Trace())
			f, err := a.fork(tc.to(a.cfg))
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Trace()) != n || a.cfg != tc.from.withDefaults() {
				t.Fatal("Fork changed the original")
			}
			tr := f.Trace()
			if len(tr) != n+1 {
				t.Fatalf("fork trace has %d points, want the original's %d and one at the fork", len(tr), n)
			}
			at := tr[n]
			if !strings.Contains(at.Event, tc.event) || at.Refresh || at.Pass != a.Passes() || at.Steps != a.Steps() {
				t.Fatalf("fork point %+v, want an observe-only point at pass %v with event %q", at, a.Passes(), tc.event)
			}
			wf := f.Weights()
			for j := range wa {
				if wa[j] != wf[j] {
					t.Fatalf("fork moved w[%d] from %v to %v", j, wa[j], wf[j])
				}
			}
			if f.Lambda() == a.Lambda() {
				for _, c := range []struct {
					name string
					a, b float64
				}{{"primal", before.Primal, at.Primal}, {"dual", before.Dual, at.Dual}, {"gap", before.Gap, at.Gap}} {
					if math.Abs(c.a-c.b) > 1e-9*(1+math.Abs(c.a)) {
						t.Fatalf("%s at the fork %v, original %v", c.name, c.b, c.a)
					}
				}
			} else if !(at.Gap >= before.Gap*f.Lambda()/a.Lambda()-1e-12) || at.Lambda != f.Lambda() {
				t.Fatalf("after lambda %v -> %v: point %+v", a.Lambda(), f.Lambda(), at)
			}
			checkConsistency(t, f)
			mustRun(t, f, run.Stop{Passes: f.Passes() + 8})
			checkConsistency(t, f)
			end := mustEval(t, f)
			if math.Abs(end.Primal-end.Dual-end.Gap) > 1e-9 || end.Gap < -1e-12 {
				t.Fatalf("after the fork ran on: primal %v dual %v gap %v", end.Primal, end.Dual, end.Gap)
			}
		})
	}
}

// TestForkLambdaMatchesSetLambda: a fork that changes lambda (either way) continues
// as the original after SetLambda does.
func TestForkLambdaMatchesSetLambda(t *testing.T) {
	p := smallChain(23)
	for _, cfg := range []config{{Lambda: 0.1, Seed: 2, GapEvery: 3}, {Lambda: 0.1, Seed: 2, GapEvery: 3, Step: Pairwise, Cache: cacheRule{Enabled: true}}} {
		for _, lambda := range []float64{0.03, 0.3} { // down (Prop. 1) and up (the duals kept)
			a := mustNew(t, p, cfg)
			mustRun(t, a, run.Stop{Passes: 5})
			c := a.cfg
			c.Lambda = lambda
			f, err := a.fork(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.SetLambda(lambda); err != nil {
				t.Fatal(err)
			}
			mustRun(t, a, run.Stop{Passes: 14})
			mustRun(t, f, run.Stop{Passes: 14})
			wa, wf := a.Weights(), f.Weights()
			for j := range wa {
				if wa[j] != wf[j] {
					t.Fatalf("%+v to lambda %v: weights differ at %d: %v vs %v", cfg, lambda, j, wa[j], wf[j])
				}
			}
		}
	}
}

// TestForkStorageConversion: a fork to the other block storage follows the
// original's trajectory up to rounding.
func TestForkStorageConversion(t *testing.T) {
	p := smallChain(24)
	cfg := config{Lambda: 0.05, Seed: 5, GapEvery: 2}
	a := mustNew(t, p, withStorage(cfg, DenseBlocks))
	mustRun(t, a, run.Stop{Passes: 4})
	f, err := a.fork(withStorage(a.cfg, SparseBlocks))
	if err != nil {
		t.Fatal(err)
	}
	if f.Storage() != SparseBlocks {
		t.Fatalf("fork storage %v", f.Storage())
	}
	checkConsistency(t, f)
	mustRun(t, a, run.Stop{Passes: 10})
	mustRun(t, f, run.Stop{Passes: 10})
	ga, gf := mustEval(t, a).Gap, mustEval(t, f).Gap
	if math.Abs(ga-gf) > 1e-9*(1+ga) {
		t.Fatalf("gap %v with dense blocks, %v after converting to sparse", ga, gf)
	}
}

func TestForkRefusals(t *testing.T) {
	p := smallChain(25)
	a := mustNew(t, p, config{Lambda: 0.05})
	mustRun(t, a, run.Stop{Passes: 2})
	for name, cfg := range map[string]config{
		"FW to pairwise":   {Step: Pairwise},
		"FW to away":       {Step: Away},
		"another solver":   {Algorithm: run.SSG},
		"a box":            {Box: &Box{Upper: fill(p.Dim(), 1)}},
		"invalid GapEvery": {GapEvery: -1},
	} {
		if _, err := a.fork(cfg); err == nil {
			t.Errorf("%s: fork accepted", name)
		}
	}
}
