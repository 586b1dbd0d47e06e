package solver

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/inference/chain"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// The step-size rule of online EG, the parameters of egstra-0.2 as
// Lacoste-Julien et al. (2013, App. F) report them.
const (
	egEta0          = 0.5  // every example's first step size
	egGrow          = 1.05 // the step size is multiplied by it after every line search
	egHalvingsFirst = 2    // most halvings in the first pass over the data
	egHalvings      = 5    // ... and afterwards
)

// egAlg is online exponentiated gradient (Collins, Globerson, Koo,
// Carreras and Bartlett 2008, "Exponentiated gradient algorithms for
// conditional random fields and max-margin Markov networks", JMLR 9, the
// online algorithm) for the structural SVM on the chain model
// (oracles.Chain).
//
// The dual variables of example i are a Gibbs distribution over its
// labelings, alpha_i(y) proportional to exp(sum_t theta_i[t, y_t] + sum_t
// theta_i[y_t, y_{t+1}]), parametrized by part-wise dual variables theta_i
// (the parts: the positions and the transitions), uniform at the start.
// With w = 1/(lambda n) sum_i (phi(x_i, y_i) - E_alpha_i phi(x_i, y)) and
// ell = 1/n sum_i E_alpha_i L_i(y), the dual is D = ell - lambda/2 |w|^2, as
// for BCFW. The gradient of n D in alpha_i(y) is H_i(y; w), whose parts are
// the loss-augmented scores of the chain (the max oracle's unary table and
// the transitions of w), so the EG update alpha_i(y) <- alpha_i(y)
// exp(eta H_i(y; w)) / Z is theta_i <- theta_i + eta (those scores): its
// transition part is the same at every position, so theta_i keeps one
// K x K table. The new w_i and ell_i come from the marginals of alpha_i
// (forward-backward, chain.Marginals: the expectation oracle).
//
// Step size (App. F, the parameters of Collins et al.'s code egstra-0.2):
// each example has its own eta, 0.5 at first; a step is a backtracking line
// search that halves eta until the dual increases, at most 2 times in the
// first pass over the data and 5 times afterwards (the last candidate is
// taken then); after it, eta is multiplied by 1.05. Every candidate costs an
// expectation-oracle call, and Passes counts them all (the x-axis of the
// paper's figures). The schedule of evaluations counts steps, n to a pass;
// the evaluations are observe-only (their max-oracle passes are not
// counted, as SSG's), and each certifies primal - dual = gap exactly.
//
// Each example keeps theta_i and the marginals of alpha_i (its node
// marginals and its edge marginals summed over positions, the sufficient
// statistics of E phi), T_i K + K^2 numbers each.
type egAlg struct {
	engineBase
	c       *oracles.Chain
	off     []int     // example i's parts are [off[i], off[i+1]): T_i K node entries, then K^2 transitions
	theta   []float64 // the part-wise dual variables
	marg    []float64 // the marginals of alpha_i: node marginals, then summed edge marginals
	eta     []float64 // the step size of every example
	ellI    []float64 // ell_i = 1/n E_alpha_i L_i(y)
	scratch egScratch
}

// egScratch is the buffers of a step.
type egScratch struct {
	grad, cand, newMarg []float64 // a gradient, a candidate theta_i and its marginals
	fwd, bwd, fb        []float64 // forward-backward scratch
	delta               []float64 // dense E'phi - E phi over d
	touched             []bool
	diff                oracles.SparseVec
}

func (a *egAlg) Step() error               { return a.step() }
func (a *egAlg) Record(refresh bool) error { return a.s.record(refresh) }
func (a *egAlg) EarlyCheckDue(run.Stop) bool {
	return false
}
func (a *egAlg) blocks() bool   { return false }
func (a *egAlg) projects() bool { return false }
func (a *egAlg) dual() bool     { return true }

// StepCost is the most a step can cost, a call per candidate step size:
// Loop starts no step that might not fit in Stop.Passes.
func (a *egAlg) StepCost() float64 {
	return float64(1+a.maxHalvings()) / float64(a.s.n)
}

// RecordCost: evaluations are observe-only.
func (a *egAlg) RecordCost(bool) float64 { return 0 }

func (a *egAlg) maxHalvings() int {
	if a.s.steps < int64(a.s.n) {
		return egHalvingsFirst
	}
	return egHalvings
}

// schedule: the clock counts steps, n to a pass; the evaluations are
// observe-only.
func (a *egAlg) schedule() core.Loop {
	return core.NewLoop(int64(a.s.n), a.s.cfg.GapEvery, a.s.cfg.TraceEvery, core.Observations)
}

// Reached reports an evaluation of the current iterate that certifies
// Stop.Gap.
func (a *egAlg) Reached(stop run.Stop) (run.Status, bool) {
	s := a.s
	if last, ok := s.Last(); ok && stop.Gap > 0 && s.evalAt == s.steps && !last.ApproximateGap && last.Gap <= stop.Gap {
		return run.StatusConverged, true
	}
	return 0, false
}

// certify: the dual of the current Gibbs distributions and the gap.
func (a *egAlg) certify(pt *run.Point, sumH float64, _ evalMode) {
	s := a.s
	pt.Dual = s.dual(s.x.v, s.x.w, s.ell)
	pt.Gap = s.lambda*floats.Dot(s.x.v, s.x.w) - s.ell + sumH/float64(s.n)
}

// rescale is never called: SetLambda refuses online EG (fixedLambda).
func (a *egAlg) rescale(float64) {}

// raise is never called either (fixedLambda).
func (a *egAlg) raise(float64) {}

// fixedLambda refuses SetLambda: Proposition 1 of Osokin et al. (2016)
// mixes the dual variables with the ground truth, which leaves the family
// of Gibbs distributions.
func (a *egAlg) fixedLambda() error {
	return errors.New("solver: online-eg cannot change lambda (its Gibbs dual variables have no warm start at another lambda); start a new run")
}

// setup checks that the problem is a chain and starts every example from
// the uniform distribution over its labelings (Collins et al. 2008;
// App. F: unlike the other methods, w(0) is then not 0).
func (a *egAlg) setup() error {
	s := a.s
	c, ok := s.p.(*oracles.Chain)
	if !ok {
		return fmt.Errorf("solver: online-eg needs a chain problem (*oracles.Chain: its expectation oracle is forward-backward on the chain), got %T", s.p)
	}
	if s.box != nil {
		return errors.New("solver: online-eg takes no box constraints")
	}
	if s.cfg.StepSize != run.LineSearch {
		return errors.New("solver: online-eg has its own step size rule (App. F); leave StepSize at its default")
	}
	a.c = c
	K := c.NumLabels()
	a.off = make([]int, s.n+1)
	for i := 0; i < s.n; i++ {
		a.off[i+1] = a.off[i] + c.SeqLen(i)*K + K*K
	}
	a.theta = make([]float64, a.off[s.n])
	a.marg = make([]float64, a.off[s.n])
	a.eta = make([]float64, s.n)
	a.ellI = make([]float64, s.n)
	sc := &a.scratch
	L := c.MaxLen() * K
	sc.grad, sc.cand, sc.newMarg = make([]float64, L+K*K), make([]float64, L+K*K), make([]float64, L+K*K)
	sc.fwd, sc.bwd, sc.fb = make([]float64, L), make([]float64, L), make([]float64, K*K+2*K)
	sc.delta, sc.touched = make([]float64, s.d), make([]bool, s.d)
	n := float64(s.n)
	s.ell = 0
	for i := 0; i < s.n; i++ {
		a.eta[i] = egEta0
		T := c.SeqLen(i)
		// The starting point of w: from alpha_i on the truth (w_i = 0, the
		// marginals of the truth) to the uniform distribution.
		m := a.marg[a.off[i]:a.off[i+1]]
		truth := c.Truth(i)
		for t, k := range truth {
			m[t*K+int(k)] = 1
			if t > 0 {
				m[T*K+int(truth[t-1])*K+int(k)]++
			}
		}
		uni := sc.newMarg[:T*K+K*K]
		for j := range uni[:T*K] {
			uni[j] = 1 / float64(K)
		}
		for j := range uni[T*K:] {
			uni[T*K+j] = float64(T-1) / float64(K*K)
		}
		diff := a.deltaPhi(i, m, uni)
		s.x.addSparse(diff, -1/(s.lambda*n))
		copy(m, uni)
		a.ellI[i] = (1 - 1/float64(K)) / n
		s.ell += a.ellI[i]
	}
	return nil
}

// deltaPhi returns E' phi(x_i, y) - E phi(x_i, y) for the marginals old
// and new of example i (node marginals, then summed edge marginals), a
// sparse vector in scratch.
func (a *egAlg) deltaPhi(i int, old, new []float64) *oracles.SparseVec {
	c, sc := a.c, &a.scratch
	K, T := c.NumLabels(), c.SeqLen(i)
	d := &sc.diff
	d.Idx, d.Val = d.Idx[:0], d.Val[:0]
	add := func(j int, v float64) {
		if !sc.touched[j] {
			sc.touched[j] = true
			d.Idx = append(d.Idx, int32(j))
		}
		sc.delta[j] += v
	}
	for t := 0; t < T; t++ {
		dm := func(k int) float64 { return new[t*K+k] - old[t*K+k] }
		x := c.Features(i, t)
		for q, f := range x.Idx {
			base := c.EmissionIndex(int(f), 0)
			for k := 0; k < K; k++ {
				add(base+k, x.Val[q]*dm(k))
			}
		}
		for k := 0; k < K; k++ {
			add(c.BiasIndex(0, k), dm(k))
			if t == 0 {
				add(c.BiasIndex(1, k), dm(k))
			}
			if t == T-1 {
				add(c.BiasIndex(2, k), dm(k))
			}
		}
	}
	for k := 0; k < K; k++ {
		for l := 0; l < K; l++ {
			add(c.TransitionIndex(k, l), new[T*K+k*K+l]-old[T*K+k*K+l])
		}
	}
	for _, j := range d.Idx {
		d.Val = append(d.Val, sc.delta[j])
		sc.delta[j], sc.touched[j] = 0, false
	}
	return d
}

// step makes an online EG step on a random example (see egAlg).
func (a *egAlg) step() error {
	s, c, sc := a.s, a.c, &a.scratch
	i := s.samp.Next(s.rng)
	K, T := c.NumLabels(), c.SeqLen(i)
	nT, nK := T*K, T*K+K*K
	n := float64(s.n)
	// The parts of H_i(y; w): the loss-augmented unary scores and the
	// transitions of w.
	u, trans := c.Scores(i, s.x.w, sc.grad[:0])
	g := sc.grad[:nK]
	truth := c.Truth(i)
	for t := 0; t < T; t++ {
		for k := 0; k < K; k++ {
			if int32(k) != truth[t] {
				u[t*K+k] += 1 / float64(T)
			}
		}
	}
	copy(g[nT:], trans)
	theta := a.theta[a.off[i]:a.off[i+1]]
	old := a.marg[a.off[i]:a.off[i+1]]
	cand, nm := sc.cand[:nK], sc.newMarg[:nK]
	eta := a.eta[i]
	var diff *oracles.SparseVec
	var dEll float64
	for h := 0; ; h++ {
		for j, th := range theta {
			cand[j] = th + eta*g[j]
		}
		chain.Marginals(cand[:nT], cand[nT:], K, sc.fwd, sc.bwd, sc.fb, nm[:nT], nm[nT:])
		s.calls++
		var keep float64
		for t, k := range truth {
			keep += old[t*K+int(k)] - nm[t*K+int(k)]
		}
		dEll = keep / (n * float64(T))
		diff = a.deltaPhi(i, old, nm)
		var wd float64
		for q, j := range diff.Idx {
			wd += s.x.w[j] * diff.Val[q]
		}
		dDual := dEll + wd/n - diff.NormSq()/(2*s.lambda*n*n)
		if dDual > 0 || h == a.maxHalvings() {
			break
		}
		eta /= 2
	}
	copy(theta, cand)
	copy(old, nm)
	s.x.addSparse(diff, -1/(s.lambda*n))
	a.ellI[i] += dEll
	s.ell += dEll
	a.eta[i] = eta * egGrow
	s.x.fold(s.ell)
	s.steps++
	return nil
}

func (a *egAlg) save(c *checkpoint) {
	c.EGTheta, c.EGMarg, c.EGEta, c.EGEllI = a.theta, a.marg, a.eta, a.ellI
}

func (a *egAlg) restore(c *checkpoint) error {
	if err := errors.Join(needLen("online-eg theta", len(c.EGTheta), len(a.theta)), needLen("online-eg marginals", len(c.EGMarg), len(a.marg)),
		needLen("online-eg step sizes", len(c.EGEta), len(a.eta)), needLen("online-eg ell_i", len(c.EGEllI), len(a.ellI))); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		x    []float64
	}{{"online-eg theta", c.EGTheta}, {"online-eg marginals", c.EGMarg}, {"online-eg step sizes", c.EGEta}, {"online-eg ell_i", c.EGEllI}} {
		if err := finiteAll(f.name, f.x); err != nil {
			return err
		}
	}
	for i, e := range c.EGEta {
		if !(e > 0) {
			return fmt.Errorf("solver: load: corrupt checkpoint: online-eg step size %d is %v", i, e)
		}
	}
	for _, m := range c.EGMarg {
		if m < 0 || math.IsInf(m, 0) {
			return errors.New("solver: load: corrupt checkpoint: negative online-eg marginal")
		}
	}
	copy(a.theta, c.EGTheta)
	copy(a.marg, c.EGMarg)
	copy(a.eta, c.EGEta)
	copy(a.ellI, c.EGEllI)
	return nil
}
