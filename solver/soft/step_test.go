package soft

import (
	"context"
	"math"
	"testing"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/solver/run"
)

// goldenMax returns the maximizer over [0, 1] of a concave function by
// golden-section search: a numeric line search independent of the closed
// form.
func goldenMax(f func(float64) float64) float64 {
	lo, hi := 0.0, 1.0
	r := (math.Sqrt(5) - 1) / 2
	a, b := hi-r*(hi-lo), lo+r*(hi-lo)
	fa, fb := f(a), f(b)
	for k := 0; k < 200 && hi-lo > 1e-12; k++ {
		if fa < fb {
			lo, a, fa = a, b, fb
			b = lo + r*(hi-lo)
			fb = f(b)
		} else {
			hi, b, fb = b, a, fa
			a = hi - r*(hi-lo)
			fa = f(a)
		}
	}
	best := (lo + hi) / 2
	for _, x := range []float64{0, 1} { // the maximum may sit on an end
		if f(x) > f(best) {
			best = x
		}
	}
	return best
}

// TestStepSizeIsLineSearch checks the closed-form step sizes of Alg. 1,
// lines 7 and 12, against a golden-section search on f_rho(mu + gamma d)
// computed from its definition (eq. 5), for every block of models of
// several shapes, at points reached by a few hundred steps, for penalties
// from weak to strong.
func TestStepSizeIsLineSearch(t *testing.T) {
	for _, sh := range shapes {
		for _, par := range []struct{ lambda, rho float64 }{{0.1, 1}, {1, 0.05}, {0.01, 20}} {
			m := tinyModel(t, 3, 3, sh.cards, sh.scopes, 2)
			s, err := newSolver(m, config{Lambda: par.lambda, Rho: par.rho, GapEvery: math.Inf(1), Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			ref := newReference(m, par.lambda, par.rho)
			if _, err := s.Run(context.Background(), run.Stop{Passes: 7}); err != nil {
				t.Fatal(err)
			}
			interior, ends := 0, 0
			for b := 0; b < s.Blocks(); b++ {
				mv := s.direction(b)
				if !(mv.num > 0) {
					continue
				}
				g := m.Graph(mv.i)
				off := s.muOff[mv.i] + g.TableOffset(mv.a)
				d := append([]float64(nil), s.work.dir[:g.States(mv.a)]...)
				mu := make([]float64, len(s.mu))
				f := func(gamma float64) float64 {
					copy(mu, s.mu)
					for y, v := range d {
						mu[off+y] += gamma * v
					}
					return ref.dual(s, mu)
				}
				num := goldenMax(f)
				if math.Abs(mv.gamma-num) > 1e-4 || f(mv.gamma) < f(num)-1e-12 {
					t.Fatalf("%s lambda=%g rho=%g block %d (node %d): closed form gamma = %.9g (f %.15g), line search %.9g (f %.15g)",
						sh.name, par.lambda, par.rho, b, mv.a, mv.gamma, f(mv.gamma), num, f(num))
				}
				if mv.gamma > 1e-3 && mv.gamma < 1-1e-3 {
					interior++
				} else {
					ends++
				}
			}
			if interior == 0 {
				t.Fatalf("%s lambda=%g rho=%g: no interior step size was checked (%d at the ends)", sh.name, par.lambda, par.rho, ends)
			}
		}
	}
}

// TestStepSizeLinear: a variable without feature terms and in no factor
// has a dual that is linear along every direction of its block (no
// curvature), so the step goes all the way to the vertex; the numeric line
// search agrees.
func TestStepSizeLinear(t *testing.T) {
	g, err := factorgraph.NewGraph([]int{2, 3}, [][]factorgraph.Term{{{T: factorgraph.OneHot(2, 1), Input: factorgraph.Const}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := factorgraph.NewModel(2, []factorgraph.Example{
		{Graph: g, Truth: []int32{0, 0}, Loss: [][]float64{{0, 1}, {0, 0.5, 0.25}}},
		{Graph: g, Truth: []int32{1, 2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSolver(m, config{Lambda: 1, Rho: 1, GapEvery: math.Inf(1)})
	if err != nil {
		t.Fatal(err)
	}
	mv := s.direction(1) // variable 1 of example 0
	if mv.num != 0.5 || mv.psiSq != 0 || mv.agree != 0 || mv.gamma != 1 {
		t.Fatalf("linear block: %+v, want theta^T d = 0.5, no curvature, gamma = 1", mv)
	}
	ref := newReference(m, 1, 1)
	d := append([]float64(nil), s.work.dir[:3]...)
	mu := make([]float64, len(s.mu))
	num := goldenMax(func(gamma float64) float64 {
		copy(mu, s.mu)
		for y, v := range d {
			mu[s.muOff[0]+g.TableOffset(1)+y] += gamma * v
		}
		return ref.dual(s, mu)
	})
	if num < 1-1e-9 {
		t.Fatalf("line search found %v, want 1", num)
	}
	if g := s.stepSize(0, 0, 0); g != 0 {
		t.Fatalf("zero curvature, zero slope: gamma = %v, want 0", g)
	}
}
