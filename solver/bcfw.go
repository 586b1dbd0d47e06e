package solver

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// corner is the FW or away corner of a step: psi_i(y), L_i(y), |psi|^2 and
// H_i(y; w); entry is its position in the block's corner set (-1 if the
// block keeps no set).
type corner struct {
	psi   oracles.SparseVec
	loss  float64
	norm  float64
	h     float64
	entry int
}

// bcfwAlg is block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013,
// Alg. 4) with the variants of Osokin et al. (2016) and Shah et al. (2015):
// the per-block dual state lives in the solver's blockStore, the plane
// reuse policy in its planeReuse.
type bcfwAlg struct{ engineBase }

// Step makes the next block step as the execution schedules it
// (blockSteps, steps.go).
func (a bcfwAlg) Step() error { return a.s.sched.Step() }

func (a bcfwAlg) Record(refresh bool) error { return a.s.record(refresh) }
func (a bcfwAlg) Settled() bool             { return a.s.reuse.settled() }
func (a bcfwAlg) blocks() bool              { return true }
func (a bcfwAlg) projects() bool            { return false }
func (a bcfwAlg) dual() bool                { return true }

// setup puts the dual mass of every block on its ground truth: ell_i = 0,
// the corner sets (when kept) hold the truth, and the block store.
func (a bcfwAlg) setup() error {
	s := a.s
	s.ellI = make([]float64, s.n)
	if s.cfg.keepsCorners() {
		s.sets = make([]cornerSet, s.n)
		for i := range s.sets {
			s.sets[i].keepGram = s.cfg.explicitDuals()
			k := s.sets[i].addTruth(s.p, i, 0, s.work.dense)
			if s.cfg.explicitDuals() {
				s.sets[i].entries[k].alpha = 1
			}
		}
	}
	var err error
	s.store, err = s.newStore()
	if s.cfg.Shrinking {
		s.shrink.Reset(s.gapEst)
	}
	return err
}

// schedule: the clock counts block steps, n to a pass; the gap passes
// refresh the stale block gaps and cost a pass of oracle calls.
func (a bcfwAlg) schedule() core.Loop {
	return core.NewLoop(int64(a.s.n), a.s.cfg.GapEvery, a.s.cfg.TraceEvery, core.GapPasses)
}

func (a bcfwAlg) stoppable() core.Stoppable {
	return core.Stoppable{GapEvery: a.s.cfg.GapEvery, TraceEvery: a.s.cfg.TraceEvery}
}

// EarlyCheckDue reports whether the stale gap estimate asks for an early
// exact gap pass (Stop.EarlyCheck), or, with shrinking, whether the last n
// draws all skipped their block (every block settled: the gap pass
// refreshes the block gaps and so unshrinks them, as liblinear does when
// its active set has converged).
func (a bcfwAlg) EarlyCheckDue(stop run.Stop) bool {
	s := a.s
	if s.evalAt == s.steps {
		return false
	}
	if s.cfg.Shrinking && s.shrink.Settled {
		return true // every block settled: unshrink them with a gap pass
	}
	return stop.EarlyCheck > 0 && stop.Gap > 0 && s.est.Sum() <= stop.EarlyCheck*stop.Gap
}

// Reached reports whether an exact gap of the current iterate reached
// Stop.Gap or the stale estimate reached Stop.GapEstimate.
func (a bcfwAlg) Reached(stop run.Stop) (run.Status, bool) {
	s := a.s
	if g, ok := s.currentExactGap(); ok && stop.Gap > 0 && g <= stop.Gap {
		return run.StatusConverged, true
	}
	if stop.GapEstimate > 0 && s.est.Sum() <= stop.GapEstimate {
		return run.StatusEstimateConverged, true
	}
	return 0, false
}

// certify reads the block gaps of the pass: their sum is the gap, their
// non-uniformity goes into pt; with mode.keep they become the exact block
// gaps of the current iterate, and with mode.refresh (a gap pass of the
// algorithm) the stale estimates, the sampler's and the cache's global gap,
// counted as a pass of oracle calls.
func (a bcfwAlg) certify(pt *run.Point, _ float64, mode evalMode) {
	s := a.s
	pt.Dual = s.dual(s.x.v, s.x.w, s.ell)
	pt.Gap = floats.Sum(s.work.gBlock)
	pt.ChiGap, pt.ChiCurvature, pt.PredictedSpeedup = s.nonUniformity(s.work.gBlock)
	if mode.keep {
		if s.exactGaps == nil {
			s.exactGaps = make([]float64, s.n)
		}
		copy(s.exactGaps, s.work.gBlock)
		s.exactAt = s.steps
	}
	if mode.refresh {
		copy(s.gapEst, s.work.gBlock)
		s.est.Reset(s.gapEst)
		s.samp.Refresh(s.gapEst)
		s.globalGap = pt.Gap
		s.calls += int64(s.n)
		if s.cfg.Shrinking {
			s.unshrink()
		}
		pt.Pass, pt.OracleCalls = s.Passes(), s.calls
	}
	pt.GapEstimate = s.est.Sum()
	if math.IsInf(pt.GapEstimate, 1) {
		pt.GapEstimate = math.NaN()
	} else {
		pt.ChiGapEstimate = run.Chi(s.gapEst)
	}
}

// rescale: every block gap grows by (1-rho) delta_i with delta_i = ell_i -
// lambda <w, w_i> (Osokin et al. 2016, eq. 11), which keeps the stale
// estimates, the global gap and the exact block gaps of the last pass
// what they were; ell_i := rho ell_i, and the explicit dual variables move
// towards the ground truth (Alg. 7, lines 17-21).
func (a bcfwAlg) rescale(rho float64) {
	s := a.s
	for i := 0; i < s.n; i++ {
		delta := -s.store.baseAt(i, s.x.w)
		inc := (1 - rho) * delta
		if !math.IsInf(s.gapEst[i], 1) {
			s.gapEst[i] += inc
		}
		if s.exactGaps != nil {
			s.exactGaps[i] += inc
		}
		if !math.IsInf(s.globalGap, 1) {
			s.globalGap += inc
		}
		s.ellI[i] *= rho
	}
	s.est.Reset(s.gapEst)
	s.samp.Refresh(s.gapEst)
	s.store.rescale(rho)
	s.sched.Moved() // w moved: the scores of the steps under way are stale
	if s.cfg.Shrinking {
		s.unshrink() // every gap grew
	}
}

// raise: every block vector scales by f (the explicit dual variables,
// whose block vectors are computed with the current lambda, need
// nothing), and the iterate is their sum again.
func (a bcfwAlg) raise(f float64) {
	a.s.store.scaleAll(f)
	a.s.reanchor()
}

// bcfwStep performs one block step of BCFW with the configured sampling,
// step type and plane reuse: Lacoste-Julien et al. (2013) Alg. 4 and Osokin
// et al. (2016) Alg. 2 (gap sampling), Alg. 3 (pairwise), Alg. 4 (away),
// Alg. 5 (cache) and Alg. 9 (box constraints), and the exact and
// approximate steps of Shah et al. (2015) Alg. 3 (multi-plane). The block's
// part of the dual lives in the solver's blockStore; the plane-reuse policy
// says where the Frank-Wolfe corner comes from.
func (s *Solver) bcfwStep() error { return s.blockStep(s.samp.Next(s.rng)) }

// blockStep performs the step of bcfwStep on block i: the one place where
// a block's corner is chosen and its update applied, for the sequential
// step and for the write part of a step whose read part an execution
// computed ahead (work.given, set by blockSteps.Write). A panic of the
// problem's code is its error, naming the block.
func (s *Solver) blockStep(i int) (err error) {
	defer core.Recover(i, &err)
	n := float64(s.n)
	var set *cornerSet
	var scores []float64
	s.work.h, s.work.scored = s.work.h[:0], false
	// moved: the step's read part was computed ahead at an earlier w
	// (ahead.go); its choices stand, the quantities of its update are
	// recomputed at the current iterate.
	moved := false
	if s.sets != nil {
		set = &s.sets[i]
		if s.cfg.explicitDuals() || s.reuse.scoring() {
			var ok bool
			if scores, moved, ok = s.work.given.scores(set); ok {
				s.work.h, s.work.scored = append(s.work.h, scores...), true
				scores = s.work.h
			} else {
				scores = s.cornerScores(set)
			}
		}
	}
	// g = base + H_s/n is the block gap in the direction of any corner s
	// (Osokin et al. 2016, eq. 7): lambda <v_i - v_s, w> - ell_i + ell_s.
	base := s.store.base(i, scores)
	fwc, a := &s.work.fwc, &s.work.away // scratch: pointers to them do not allocate
	fromSet, err := s.reuse.corner(i, set, base, fwc)
	if err != nil {
		return err
	}
	if !fromSet {
		g, ok := s.work.given.gap(s.n)
		if !ok {
			g = base + fwc.h/n
		}
		s.setGapEstimate(i, g)
	}
	if moved {
		if fromSet {
			s.rescore(fwc)
		}
		if s.cfg.explicitDuals() && s.cfg.Step != Pairwise {
			base = s.store.baseAt(i, s.x.w) // from the scores of the earlier w
		}
	}
	g := base + fwc.h/n

	switch s.cfg.Step {
	case FWStep:
		s.fwMove(i, fwc, g)
	case Pairwise:
		*a = s.awayCorner(set)
		if moved {
			s.rescore(a)
		}
		s.pairwiseMove(i, set, fwc, a)
	case Away:
		*a = s.awayCorner(set)
		if moved {
			s.rescore(a)
		}
		if gA := -base - a.h/n; g > gA {
			s.fwMove(i, fwc, g)
		} else {
			s.awayMove(i, set, a, gA)
		}
	}
	s.steps++
	s.reuse.stepped(i, set)
	return nil
}

// setGapEstimate records the new stale gap of block i.
func (s *Solver) setGapEstimate(i int, g float64) {
	s.est.Replace(s.gapEst[i], g)
	s.gapEst[i] = g
	s.samp.SetGap(i, g)
}

// cornerScores computes H_i(y; w) = L_i(y) - <w, psi_i(y)> for every corner
// of the set into work.h and returns it.
func (s *Solver) cornerScores(set *cornerSet) []float64 {
	s.work.h, s.work.scored = scoresInto(set, s.x.w, s.work.h[:0]), true
	return s.work.h
}

// scoresInto appends H_i(c; w) = L_i(c) - <w, psi_i(c)> for every corner c
// of the set to dst. It scores four corners at a time (dot4), each summed in
// the order of SparseVec.Dot, so every score is Dot's bit for bit.
func scoresInto(set *cornerSet, w []float64, dst []float64) []float64 {
	m := len(set.entries)
	k := 0
	for ; k+4 <= m; k += 4 {
		a, b, c, d := set.psi(k), set.psi(k+1), set.psi(k+2), set.psi(k+3)
		h0, h1, h2, h3 := dot4(&a, &b, &c, &d, w)
		e := set.entries[k : k+4 : k+4]
		dst = append(dst, e[0].loss-h0, e[1].loss-h1, e[2].loss-h2, e[3].loss-h3)
	}
	for ; k < m; k++ {
		psi := set.psi(k)
		dst = append(dst, set.entries[k].loss-psi.Dot(w))
	}
	return dst
}

// setCorner returns entry k of the set as a corner with its score.
func (s *Solver) setCorner(set *cornerSet, k int) corner {
	e := &set.entries[k]
	return corner{psi: set.psi(k), loss: e.loss, norm: e.normSq, h: s.work.h[k], entry: k}
}

// oracleCorner calls the max oracle and sets c to its corner, inserting it
// into the block's set when there is one (and its score into work.h when
// the step scored the set); base = lambda <v_i, w> - ell_i, and -n base is
// the block's dual-weighted score (see stepOracle).
func (s *Solver) oracleCorner(i int, set *cornerSet, c *corner, base float64) error {
	y, h, stale := s.work.given.answer()
	if y == nil {
		var err error
		y, h, err = s.stepOracle(i, s.x.w, -float64(s.n)*base, s.work.y)
		s.work.y = y
		if err != nil {
			return err
		}
	}
	s.calls++
	pre := s.work.given.corner(set) // the corner computed with the answer, ahead
	if set == nil {
		if pre != nil {
			*c = corner{psi: pre.psi, loss: pre.loss, norm: pre.norm, h: h, entry: -1}
		} else {
			s.p.Psi(i, y, &s.work.psi)
			*c = corner{psi: s.work.psi, loss: s.p.Loss(i, y), norm: s.work.psi.NormSq(), h: h, entry: -1}
		}
		s.observeRadius(i, c.norm)
		if stale {
			c.h = c.loss - c.psi.Dot(s.x.w)
		}
		return s.checkScore(i, c, stale)
	}
	k := -1
	switch {
	case pre != nil && pre.found >= 0:
		k = pre.found
	case pre != nil:
		k = set.find(y, pre.hash)
	default:
		k = set.find(y, oracles.HashLabeling(y))
	}
	if k < 0 { // a new corner
		if pre != nil {
			k = set.addWithRow(y, &pre.psi, pre.loss, pre.norm, pre.hash, s.steps, pre.row)
		} else {
			s.p.Psi(i, y, &s.work.psi)
			k = set.add(y, &s.work.psi, s.p.Loss(i, y), s.steps, s.work.dense)
		}
		if s.work.scored {
			s.work.h = append(s.work.h, h)
		}
		s.observeRadius(i, set.entries[k].normSq)
	}
	e := &set.entries[k]
	e.lastUse = s.steps
	if stale {
		psi := set.psi(k)
		h = e.loss - psi.Dot(s.x.w)
		if s.work.scored {
			s.work.h[k] = h
		}
	}
	*c = corner{psi: set.psi(k), loss: e.loss, norm: e.normSq, h: h, entry: k}
	return s.checkScore(i, c, stale)
}

// checkScore checks the score H the max oracle returned for corner c of
// block i against L_i(y) - <w, psi_i(y)> at the labeling it returned: an
// oracle inconsistent with Loss and Psi would otherwise certify a wrong
// gap. The dot product costs 2.7% of the instructions of a step on
// BenchmarkBCFWStepSynthetic, so one step in scoreCheckEvery is checked
// (0.7%): an oracle that is wrong systematically fails within a few steps,
// and a wrong gap it causes is caught by core.Certify. A stale
// answer's score was recomputed so (recomputed: nothing to check).
func (s *Solver) checkScore(i int, c *corner, recomputed bool) error {
	if recomputed || s.steps%scoreCheckEvery != 0 {
		return nil
	}
	return checkAnswer(i, c.h, c.loss, c.psi, s.x.w)
}

// checkAnswer checks the score h the max oracle of block i returned at w
// against L_i(y) - <w, psi_i(y)> at the labeling y it returned (loss and
// psi), within a relative 1e-6: every exact pass (the gap passes, batch
// Frank-Wolfe's and the cutting plane's oracle passes, SSG's evaluations)
// checks every answer, on the workers that compute them, and the steps
// check one in scoreCheckEvery.
func checkAnswer(i int, h, loss float64, psi oracles.SparseVec, w []float64) error {
	direct := loss - psi.Dot(w)
	if d := math.Abs(h - direct); !(d <= 1e-6*max(1, math.Abs(loss), math.Abs(h))) {
		return &oracles.OracleError{Example: i, Err: fmt.Errorf("returned H = %.10g, but L - <w, psi> = %.10g at the labeling it returned: the oracle is inconsistent with Loss and Psi (wrong when called concurrently?), or the data changed under the run", h, direct)}
	}
	return nil
}

func (s *Solver) observeRadius(i int, normSq float64) {
	if normSq > s.rSq[i] {
		s.rSq[i] = normSq
	}
}

// awayCorner returns the active corner with the smallest H_i(y; w)
// (Osokin et al. 2016, Alg. 3, line 8).
func (s *Solver) awayCorner(set *cornerSet) corner {
	best := -1
	for k := range set.entries {
		if set.entries[k].alpha > 0 && (best < 0 || s.work.h[k] < s.work.h[best]) {
			best = k
		}
	}
	return s.setCorner(set, best)
}

// scoreCheckEvery is the period, in steps, of checkScore.
const scoreCheckEvery = 4

// sigma is 1/(lambda n): v_c = sigma psi_c.
func (s *Solver) sigma() float64 { return 1 / (s.lambda * float64(s.n)) }

// fwMove performs the Frank-Wolfe step v_i <- (1-gamma) v_i + gamma v_s with
// the block gap g as numerator of the line search.
func (s *Solver) fwMove(i int, c *corner, g float64) {
	n := float64(s.n)
	var gamma float64
	if s.cfg.StepSize == run.Predefined {
		gamma = 2 * n / (float64(s.steps) + 2*n)
	} else {
		gamma = core.LineSearch(g, s.lambda*s.store.distSq(i, c), 1)
	}
	if gamma == 0 {
		return
	}
	s.store.move(i, 1-gamma, c, gamma*s.sigma(), nil, 0)
	s.setEll(i, (1-gamma)*s.ellI[i]+gamma*c.loss/n)
	s.store.scaleMass(i, gamma, c)
}

// setEll sets ell_i and keeps ell = sum_i ell_i.
func (s *Solver) setEll(i int, e float64) {
	s.ell += e - s.ellI[i]
	s.ellI[i] = e
}

// pairwiseMove moves mass from the away corner a to the FW corner c
// (Osokin et al. 2016, Alg. 3, lines 10-21).
func (s *Solver) pairwiseMove(i int, set *cornerSet, c, a *corner) {
	if c.entry == a.entry {
		return
	}
	n := float64(s.n)
	sigma := s.sigma()
	num := (c.h - a.h) / n // lambda <v_a - v_s, w> + ell_s - ell_a
	dist := set.g(c.entry, c.entry) + set.g(a.entry, a.entry) - 2*set.g(c.entry, a.entry)
	denom := s.lambda * sigma * sigma * math.Max(dist, 0)
	alphaA := set.entries[a.entry].alpha
	gamma := core.LineSearch(num, denom, alphaA)
	if gamma == 0 {
		return
	}
	s.store.move(i, 1, c, gamma*sigma, a, -gamma*sigma)
	s.setEll(i, s.ellI[i]+gamma*(c.loss-a.loss)/n)
	set.entries[c.entry].alpha += gamma
	if gamma == alphaA {
		set.entries[a.entry].alpha = 0 // drop step
		s.drops++
	} else {
		set.entries[a.entry].alpha = alphaA - gamma
	}
}

// awayMove performs the away step v_i <- (1+gamma) v_i - gamma v_a
// (Osokin et al. 2016, Alg. 4, lines 19-22) with gA as numerator.
func (s *Solver) awayMove(i int, set *cornerSet, a *corner, gA float64) {
	n := float64(s.n)
	alphaA := set.entries[a.entry].alpha
	if set.active() == 1 || alphaA >= 1 {
		return // the block sits on the away corner: the direction is zero
	}
	maxStep := alphaA / (1 - alphaA)
	gamma := core.LineSearch(gA, s.lambda*s.store.distSq(i, a), maxStep)
	if gamma == 0 {
		return
	}
	s.store.move(i, 1+gamma, a, -gamma*s.sigma(), nil, 0)
	s.setEll(i, (1+gamma)*s.ellI[i]-gamma*a.loss/n)
	for k := range set.entries {
		set.entries[k].alpha *= 1 + gamma
	}
	if gamma == maxStep {
		set.entries[a.entry].alpha = 0 // drop step
		s.drops++
	} else {
		set.entries[a.entry].alpha -= gamma
	}
}
