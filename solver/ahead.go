package solver

import (
	"math"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
)

// A block step reads the shared state (the scores of the block's cached
// corners, the cache rule, the max oracle) and then writes it (the line
// search and the update of the block and of w). The executions (package
// execution) schedule the two parts through blockSteps (steps.go): the
// read part of a step is computed ahead, possibly on another goroutine, at
// the w of an earlier step (prepare), and the write part is applied later,
// in order, by the solver's goroutine (blockStep, given the entry). The
// read part is pure: it writes only its own entry (and the capacity of
// block i's corner set, never its contents: cornerSet.reserve), and reads
// only block i's own state (its corner set, its block vector) and what
// the entry fixed when the block was drawn (its stale gap, the global
// gap), which no other step writes while the entry waits, because an
// execution never has a block under way twice.
//
// What the entry decides, it decides at its own w: the corner the step
// moves to (the oracle's answer, or the best cached corner when the cache
// rule, evaluated there, expects a hit), the away corner, and the block's
// new stale gap (the exact block gap at that w). What the update needs,
// the scores of the two corners of the step and, for FW and away steps,
// lambda <v_i, w> - ell_i, is recomputed at the current iterate when w
// moved since (two dot products for a pairwise step), so that every step is
// an exact line search on the dual, whatever the delay (Wang et al. 2016:
// the corner of a block may be stale, its update is applied at the
// server's iterate).

// ahead is the read part of one block step, computed at the w of an
// earlier step (or of the current one). Its decision: with an oracle
// answer, the step moves towards it; without one but with scores, the
// cache rule expected a hit at that w and the step moves towards the best
// cached corner; with neither (an entry the cache rule was to decide at
// its own turn, or one whose scores went stale), the step decides as a
// sequential step does.
type ahead struct {
	// The max oracle's answer and its score H_i(y; w) (oracle: present).
	y      []int32
	h      float64
	oracle bool
	// scores holds H_i(c; w) for the corners of the block's set (scored:
	// computed), base lambda <v_i, w> - ell_i at that w.
	scores []float64
	scored bool
	base   float64
	// What the step needs, fixed when the block is drawn (Begin): the
	// block's stale gap and the global gap, which the cache rule reads;
	// whether the step scores its set (score); whether it is an
	// approximate step of multi-plane BCFW (approx: the best plane of
	// W_i, no oracle call).
	gapEst, global float64
	score, approx  bool
	// The corner of the oracle's answer, computed ahead with the answer
	// (cornered): its position in the block's set when the set holds it
	// already (found >= 0), else its psi, loss, |psi|^2, hash and, when
	// the set keeps a Gram matrix, its row against the set's corners.
	cornered   bool
	found      int
	psi        oracles.SparseVec
	loss, norm float64
	hash       uint64
	row        []float64
}

// prepare computes the read part e of block i's step at w: the scores of
// the block's cached corners (when the step needs them), the cache rule
// with the block's stale gap e.gapEst and the global gap e.global (fixed
// by Begin), and, unless it expects a hit, the max oracle's answer. It
// writes only e and may run on any goroutine while the solver's goroutine
// applies the steps of other blocks. A panic of the problem's code is its
// error, naming the block.
func (s *Solver) prepare(i int, e *ahead, w []float64, ws *workerScratch) (err error) {
	defer core.Recover(i, &err)
	e.oracle, e.scored, e.cornered = false, false, false
	if e.score {
		set := &s.sets[i]
		e.scores = scoresInto(set, w, e.scores[:0])
		e.scored = true
		if s.cfg.explicitDuals() {
			e.base = dualBase(set, e.scores, s.n)
		} else {
			e.base = s.store.baseAt(i, w)
		}
		if s.cfg.Cache.Enabled {
			n := float64(s.n)
			gHat := e.base + e.scores[bestCorner(e.scores)]/n
			if gHat >= math.Max(s.cfg.Cache.F*e.gapEst, s.cfg.Cache.Nu/n*e.global) {
				return nil // a hit: no oracle call
			}
		}
	}
	if e.approx {
		return nil
	}
	if e.y, e.h, err = s.oracle(i, w, e.y); err != nil {
		return err
	}
	e.oracle = true
	s.prepareCorner(i, e, ws)
	return nil
}

// prepareCorner computes the corner of the oracle answer of e, the read
// part of block i's step (ahead: cornered, found, psi, ...), reading only
// block i's set.
func (s *Solver) prepareCorner(i int, e *ahead, ws *workerScratch) {
	e.hash, e.found, e.row = oracles.HashLabeling(e.y), -1, e.row[:0]
	var set *cornerSet
	if s.sets != nil {
		set = &s.sets[i]
		if e.found = set.find(e.y, e.hash); e.found >= 0 {
			e.cornered = true
			return
		}
	}
	s.p.Psi(i, e.y, &e.psi)
	e.loss, e.norm = s.p.Loss(i, e.y), e.psi.NormSq()
	if set != nil {
		set.reserve(len(e.y), e.psi.Len()) // block i's own buffers: no other step touches them meanwhile
	}
	if set != nil && set.keepGram {
		if len(ws.dense) != s.d {
			ws.dense = make([]float64, s.d)
		}
		e.row = set.gramRow(&e.psi, ws.dense, e.row)
	}
	e.cornered = true
}

// given is the read part a step was given (Write: computed ahead, age
// steps ago, or at an iterate w moved from without a step when age < 0);
// e is nil for a step that reads the current iterate itself.
type given struct {
	e   *ahead
	age int64
}

// corner returns the entry when it carries the corner of its oracle answer
// computed ahead for the set as it is now (nil otherwise).
func (g given) corner(set *cornerSet) *ahead {
	e := g.e
	switch {
	case e == nil || !e.oracle || !e.cornered:
		return nil
	case set == nil:
		return e
	case e.found >= 0:
		if e.found < len(set.entries) && set.entries[e.found].hash == e.hash && oracles.SameLabeling(set.labeling(e.found), e.y) {
			return e
		}
		return nil
	case set.keepGram && len(e.row) != len(set.entries):
		return nil
	}
	return e
}

// dualBase is lambda <v_i, w> - ell_i from the corner scores and the
// explicit dual variables: -(1/n) sum_c alpha_c H_c.
func dualBase(set *cornerSet, scores []float64, n int) float64 {
	var sum float64
	for k := range set.entries {
		sum += set.entries[k].alpha * scores[k]
	}
	return -sum / float64(n)
}

// rescore recomputes the score of corner c at the current iterate (also
// in work.h when the step scored its set).
func (s *Solver) rescore(c *corner) {
	c.h = c.loss - c.psi.Dot(s.x.w)
	if s.work.scored && c.entry >= 0 && c.entry < len(s.work.h) {
		s.work.h[c.entry] = c.h
	}
}

// scores returns the scores of the set computed ahead, and whether w moved
// since they were computed; ok is false when there are none (the step
// scores its set itself).
func (g given) scores(set *cornerSet) (scores []float64, moved, ok bool) {
	e := g.e
	if e == nil || !e.scored || g.age < 0 || len(e.scores) != len(set.entries) {
		return nil, false, false
	}
	return e.scores, g.age != 0, true
}

// answer returns the oracle's answer computed ahead (nil when there is
// none) and whether w moved since.
func (g given) answer() (y []int32, h float64, moved bool) {
	e := g.e
	if e == nil || !e.oracle {
		return nil, 0, false
	}
	return e.y, e.h, g.age != 0
}

// decision returns the cache decision made ahead (hit: the best cached
// corner; else the oracle's answer), ok false when none was made or its
// scores went stale (the step applies the cache rule itself).
func (g given) decision() (hit, ok bool) {
	e := g.e
	switch {
	case e == nil:
		return false, false
	case e.oracle:
		return false, true
	}
	return true, e.scored && g.age >= 0
}

// gap returns the exact block gap at the w of the read part, in the
// direction of its oracle answer (the block's new stale gap), ok false
// when it has no such answer with a base.
func (g given) gap(n int) (float64, bool) {
	e := g.e
	if e == nil || !e.oracle || !e.scored || g.age < 0 {
		return 0, false
	}
	return e.base + e.h/float64(n), true
}
