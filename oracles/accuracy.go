package oracles

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// Approx runs the max oracle of a problem approximately, with a known
// multiplicative accuracy nu in (0, 1]: it simulates the approximate
// oracles of Lacoste-Julien et al. (2013, Sec. 3 and App. C, eq. 12), whose
// convergence theory it lets one check. Build it with WithAccuracy.
//
// # What it guarantees
//
// Write H(y) = H_i(y; w) = L_i(y) - <w, psi_i(y)> and H* = max_y H(y), the
// score of the wrapped problem's own oracle. Condition (12) of App. C asks
// the corner s of a block step for
//
//	<alpha_i - s, grad_i f(alpha)> >= nu max_s' <alpha_i - s', grad_i f(alpha)>,
//
// and for the structural SVM dual the left side is the block gap in the
// direction of labeling y, g_i(y) = (H(y) - ref_i)/n with ref_i =
// sum_c alpha_i(c) H(c), the dual-weighted score of the block's current
// corners (Lacoste-Julien et al. 2013, App. B.4; Osokin et al. 2016,
// eq. 7). So (12) reads
//
//	H(y) - ref_i >= nu (H* - ref_i).                                  (*)
//
// The reference ref_i depends on the block's dual state, which a Problem
// does not see. Approx therefore offers two oracles:
//
//   - MaxOracleRelative(i, w, ref, dst), the oracles.RelativeOracle that
//     the solvers call in their steps with ref = ref_i: it returns a
//     labeling satisfying (*) for the given ref, i.e. exactly condition (12);
//     the solver package passes ref_i = -n (lambda <v_i, w> - ell_i) in
//     BCFW steps, and ref_i = H_i* - G (G the duality gap at w) to every
//     block of a batch FW or cutting-plane iteration, so that every block
//     loses at most (1 - nu) G and their average gives (12) for the whole
//     product domain (n = 1 in App. C's notation);
//   - MaxOracle(i, w, dst), for callers without a dual state: (*) with
//     ref = H(y_i) = 0, the ground truth's score, i.e. H(y) >= nu H*. This
//     implies (12) when ref_i <= 0 (at the start, where every block sits on
//     its ground truth, ref_i = 0), and in general only
//     g_i(y) >= nu g_i* - (1 - nu) max(ref_i, 0)/n: no oracle that ignores
//     the dual state can guarantee (12) for every state with nu < 1, since
//     at ref_i = H* (*) forces H(y) = H*.
//
// Among the labelings it finds that satisfy (*), it returns one of smallest
// score, so that it is as inaccurate as allowed (the worst case the theory
// covers) rather than accidentally exact.
//
// # How it finds them
//
// The candidates are the ground truth and the answers of the wrapped
// oracle at weights w(s), s >= 0, along three families (see familyUp,
// familyDown, familyAway): (1+s) w and w/(1+s) (less or more weight on the
// loss) and w + s psi_i(y*) (away from the exact answer y*). Along each,
// H_i(y(s); w) is non-increasing in s (compare the optimality of y(s) and
// y(s') at both parameters), so a doubling search on a grid of s and a
// bisection on log s find the admissible member of least score; at most
// 3 (13 + 6) + 1 = 58 calls of the wrapped oracle per call (a simulation of
// an approximate oracle, not a cheap one). The achieved accuracy is at
// least nu and, the label space being discrete, on average above it
// (Stats). The wrapped problem's weight bounds (oracles.Bounded) may be
// violated by w(s): candidates whose call fails are skipped.
//
// Approx is Approximate (Exact returns the wrapped problem, or its own
// exact view when it is approximate itself), so solvers certify their gaps
// with the exact oracle; Predict is the wrapped problem's. It is safe for
// concurrent use, and its answers depend only on (i, w, ref).
type Approx struct {
	p      Problem
	nu     float64
	oracle func(i int, w []float64, dst []int32) ([]int32, float64, error)
	pool   sync.Pool

	mu    sync.Mutex
	calls int64
	sumNu float64 // sum of achieved accuracies over calls with H* > ref
	nuN   int64
}

// Search grid of Approx: s0 2^k for k in [accuracyMinExp, accuracyMaxExp],
// then bisection steps on log s.
const (
	accuracyMinExp     = -4
	accuracyMaxExp     = 8
	accuracyBisections = 6
)

// WithAccuracy returns p with a max oracle of multiplicative accuracy nu
// in (0, 1] (see Approx); nu = 1 returns the exact answers (through the same
// code path).
func WithAccuracy(p Problem, nu float64) (*Approx, error) {
	if p == nil {
		return nil, errors.New("oracles: WithAccuracy of a nil problem")
	}
	if !(nu > 0 && nu <= 1) {
		return nil, fmt.Errorf("oracles: accuracy nu must be in (0, 1], got %v", nu)
	}
	a := &Approx{p: p, nu: nu, oracle: rawOracle(p)}
	a.pool.New = func() any { return &accuracyScratch{tw: make([]float64, p.Dim())} }
	return a, nil
}

// accuracyScratch is the state of one MaxOracleRelative call.
type accuracyScratch struct {
	i        int
	w, tw    []float64 // the call's weights and t w
	tau      float64   // the admissibility threshold ref + nu (H* - ref)
	ys, best []int32   // the last candidate, the best admissible one
	bestH    float64
	psi      SparseVec // scratch
	away     SparseVec // psi_i(y*) of the exact answer
}

// rawOracle returns p's oracle with its own errors (MaxOracleErr of a
// FallibleOracle; ErrNaNScore for a non-finite score), unwrapped: the
// solvers wrap the errors of Approx's oracle in an OracleError.
func rawOracle(p Problem) func(i int, w []float64, dst []int32) ([]int32, float64, error) {
	if f, ok := p.(FallibleOracle); ok {
		return f.MaxOracleErr
	}
	return func(i int, w []float64, dst []int32) ([]int32, float64, error) {
		y, h := p.MaxOracle(i, w, dst)
		if math.IsNaN(h) || math.IsInf(h, 0) {
			return y, h, ErrNaNScore
		}
		return y, h, nil
	}
}

// Nu returns the accuracy nu.
func (a *Approx) Nu() float64 { return a.nu }

// Len returns the number of examples of the wrapped problem.
func (a *Approx) Len() int { return a.p.Len() }

// Dim returns the dimension of the wrapped problem.
func (a *Approx) Dim() int { return a.p.Dim() }

// Truth returns the wrapped problem's ground truth.
func (a *Approx) Truth(i int) []int32 { return a.p.Truth(i) }

// Loss returns the wrapped problem's loss.
func (a *Approx) Loss(i int, y []int32) float64 { return a.p.Loss(i, y) }

// Psi returns the wrapped problem's psi.
func (a *Approx) Psi(i int, y []int32, dst *SparseVec) { a.p.Psi(i, y, dst) }

// Predict returns the wrapped problem's prediction (not approximated).
func (a *Approx) Predict(i int, w []float64, dst []int32) []int32 { return a.p.Predict(i, w, dst) }

// Exact returns the problem whose oracle certifies gaps: the wrapped one,
// or its own exact view when it is Approximate itself.
func (a *Approx) Exact() Problem { return ExactProblem(a.p) }

// MaxOracle returns a labeling y with H(y) >= nu H* (condition (*) of
// Approx with the ground truth's score 0 as reference) and its score H(y).
// On a failure of the wrapped oracle at w it returns that oracle's answer
// (NaN score for a FallibleOracle).
func (a *Approx) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h, _ := a.MaxOracleRelative(i, w, 0, dst)
	return y, h
}

// MaxOracleErr is MaxOracle with the wrapped oracle's error at w.
func (a *Approx) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	return a.MaxOracleRelative(i, w, 0, dst)
}

// MaxOracleRelative returns a labeling y with H(y) - ref >= nu (H* - ref)
// (condition (*) of Approx, which is App. C's condition (12) when ref is
// the block's dual-weighted score) and its score H(y). A reference above H*
// (which no dual state gives, up to rounding) is treated as H*.
func (a *Approx) MaxOracleRelative(i int, w []float64, ref float64, dst []int32) ([]int32, float64, error) {
	y, hStar, err := a.oracle(i, w, dst)
	if err != nil || a.nu == 1 {
		a.record(hStar, hStar, ref, err)
		return y, hStar, err
	}
	sc := a.pool.Get().(*accuracyScratch)
	defer a.pool.Put(sc)
	ref = math.Min(ref, hStar)
	sc.i, sc.w, sc.tau = i, w, ref+a.nu*(hStar-ref)
	sc.best, sc.bestH = append(sc.best[:0], y...), hStar
	sc.consider(a.p, a.p.Truth(i))
	if hStar > sc.tau {
		a.p.Psi(i, y, &sc.away)
		a.search(sc, familyUp, 1)
		a.search(sc, familyDown, 1)
		if nrm := sc.away.NormSq(); nrm > 0 {
			a.search(sc, familyAway, (hStar-sc.tau)/nrm)
		}
	}
	y = append(y[:0], sc.best...) // y is the caller's buffer (dst, grown)
	a.record(sc.bestH, hStar, ref, nil)
	return y, sc.bestH, nil
}

// The families of weights w(s), s >= 0, along which Approx searches; each
// has w(0) = w, and H_i(y(s); w) non-increasing in s for the maximizer
// y(s) of L_i(y) - <w(s), psi_i(y)>: for w(s) = w + s d this follows from
// comparing the optimality of y(s) and y(s') at both parameters, which
// gives <d, psi(y(s))> >= <d, psi(y(s'))> and then H(y(s)) - H(y(s')) >=
// s (<d, psi(y(s))> - <d, psi(y(s'))>) >= 0 for s < s'.
const (
	familyUp   = iota // w(s) = (1+s) w: less weight on the loss
	familyDown        // w(s) = w/(1+s): more weight on the loss (d = -w, rescaled)
	familyAway        // w(s) = w + s psi_i(y*): away from the exact answer y*
)

// search finds, on the grid s0 2^k (k = accuracyMinExp..accuracyMaxExp)
// and then by bisection on log s, the largest s whose labeling is
// admissible, keeping the admissible labeling of least score met.
func (a *Approx) search(sc *accuracyScratch, family int, s0 float64) {
	lo, hi := float64(accuracyMinExp-1), math.NaN() // log2(s/s0): lo admissible (s = 0 at the start), hi not
	for k := accuracyMinExp; k <= accuracyMaxExp; k++ {
		if !a.candidate(sc, family, s0*math.Exp2(float64(k))) {
			hi = float64(k)
			break
		}
		lo = float64(k)
	}
	if math.IsNaN(hi) {
		return // admissible up to the grid's end
	}
	for k := 0; k < accuracyBisections; k++ {
		if mid := (lo + hi) / 2; a.candidate(sc, family, s0*math.Exp2(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// consider scores labeling y at the weights of the call and keeps it when
// it is admissible (H(y) >= tau) and scores lower than the best so far.
func (sc *accuracyScratch) consider(p Problem, y []int32) (admissible bool) {
	p.Psi(sc.i, y, &sc.psi)
	h := p.Loss(sc.i, y) - sc.psi.Dot(sc.w)
	if !(h >= sc.tau) {
		return false
	}
	if h < sc.bestH {
		sc.bestH = h
		sc.best = append(sc.best[:0], y...)
	}
	return true
}

// candidate calls the wrapped oracle at the weights w(s) of the family and
// reports whether its labeling is admissible; a failed call counts as not
// admissible.
func (a *Approx) candidate(sc *accuracyScratch, family int, s float64) bool {
	switch family {
	case familyUp:
		for j, v := range sc.w {
			sc.tw[j] = (1 + s) * v
		}
	case familyDown:
		for j, v := range sc.w {
			sc.tw[j] = v / (1 + s)
		}
	case familyAway:
		copy(sc.tw, sc.w)
		sc.away.AddTo(sc.tw, s)
	}
	y, _, err := a.oracle(sc.i, sc.tw, sc.ys)
	sc.ys = y
	if err != nil {
		return false
	}
	return sc.consider(a.p, y)
}

func (a *Approx) record(h, hStar, ref float64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if err == nil && hStar > ref {
		a.sumNu += (h - ref) / (hStar - ref)
		a.nuN++
	}
}

// Stats returns the number of oracle calls so far and the mean accuracy
// (H(y) - ref)/(H* - ref) they achieved, over the calls with H* > ref (NaN
// before any): at least nu, and close to it when the search finds
// labelings of intermediate scores.
func (a *Approx) Stats() (calls int64, meanAccuracy float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nuN == 0 {
		return a.calls, math.NaN()
	}
	return a.calls, a.sumNu / float64(a.nuN)
}

var (
	_ Problem        = (*Approx)(nil)
	_ Approximate    = (*Approx)(nil)
	_ FallibleOracle = (*Approx)(nil)
	_ RelativeOracle = (*Approx)(nil)
)
