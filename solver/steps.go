package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/execution"
)

// blockSteps is the BCFW engine's block step as the executions schedule it
// (execution.Steps): the sequential step (bcfwStep, or exactStep), the
// draws of the sampler, the read part of a step (Begin fixes what it reads
// of the solver's state, prepare computes it: ahead.go) and its write part
// (blockStep, given the entry). The engine knows its execution only as the
// scheduler built over it (Solver.sched), which makes every BCFW step.
type blockSteps struct{ s *Solver }

var _ execution.Steps[ahead, savedAhead] = blockSteps{}

func (b blockSteps) Blocks() int  { return b.s.n }
func (b blockSteps) Workers() int { return len(b.s.work.workers) }
func (b blockSteps) Made() int64  { return b.s.steps }

// Step makes a sequential step: a BCFW step, or an exact block step
// (exact.go).
func (b blockSteps) Step() error {
	if b.s.cfg.Step == stepExact {
		return b.s.exactStep()
	}
	return b.s.bcfwStep()
}

// Draw draws tau distinct blocks with the solver's sampler
// (core.Sampler.Distinct).
func (b blockSteps) Draw(tau int, exclude []int, dst []int) []int {
	return b.s.samp.Distinct(b.s.rng, tau, exclude, dst)
}

// Room returns the steps left in the current pass of multi-plane BCFW,
// whose slope rule decides the kind of the next pass when one ends;
// unbounded for the other policies.
func (b blockSteps) Room() int {
	if mp, ok := b.s.reuse.(*multiPlane); ok {
		return int(mp.n - mp.pos)
	}
	return math.MaxInt
}

func (b blockSteps) Iterate() []float64 { return b.s.x.w }

func (b blockSteps) Snapshot(dst []float64, ring int) []float64 { return b.s.x.snapshot(dst, ring) }

// Begin fixes what the read part of a step on block i reads of the
// solver's state: the block's stale gap, the global gap, whether the step
// scores its set and whether it is an approximate step of multi-plane
// BCFW.
func (b blockSteps) Begin(i int, e *ahead) {
	s := b.s
	e.oracle, e.scored, e.cornered = false, false, false
	e.gapEst, e.global = s.gapEst[i], s.globalGap
	e.score = s.sets != nil && (s.cfg.explicitDuals() || s.reuse.scoring())
	mp, ok := s.reuse.(*multiPlane)
	e.approx = ok && mp.approx
}

// Read computes the read part e at w with the scratch of worker k.
func (b blockSteps) Read(i int, e *ahead, w []float64, k int) error {
	return b.s.prepare(i, e, w, &b.s.work.workers[k])
}

// Write makes the step on block i with the read part e, computed age steps
// ago, and counts its delay (Solver.Delays).
func (b blockSteps) Write(i int, e *ahead, age int64) error {
	s := b.s
	s.work.given = given{e: e, age: age}
	err := s.blockStep(i)
	s.work.given = given{}
	if err == nil && age >= 0 {
		s.recordDelay(age)
	}
	return err
}

// recordDelay counts a step applied d steps after the iterate its read part
// saw (Delays).
func (s *Solver) recordDelay(d int64) {
	for int64(len(s.delays)) <= d {
		s.delays = append(s.delays, 0)
	}
	s.delays[d]++
}

// savedAhead is the read part of a step under way in a checkpoint.
type savedAhead struct {
	// Y is the oracle's answer and H its score (Y nil when Cached: no
	// oracle answer, the cache rule expected a hit or decides at the step).
	Y      []int32
	H      float64
	Cached bool
	// Scores holds the scores of the block's corners computed ahead (nil:
	// not computed), Base lambda <v_i, w> - ell_i at the same w.
	Scores []float64
	Base   float64
}

// Save returns the checkpoint form of e.
func (b blockSteps) Save(_ int, e *ahead) savedAhead {
	var sv savedAhead
	if e.oracle {
		sv.Y, sv.H = e.y, e.h
	} else {
		sv.Cached = true
	}
	if e.scored {
		sv.Scores, sv.Base = e.scores, e.base
	}
	return sv
}

// Restore sets e, the read part of a step on block i, from sv, checking it
// against the solver's state.
func (b blockSteps) Restore(i int, e *ahead, sv savedAhead) error {
	s := b.s
	e.oracle, e.scored, e.cornered = !sv.Cached, false, false
	switch {
	case math.IsNaN(sv.H) || math.IsInf(sv.H, 0):
		return fmt.Errorf("a step under way on block %d holds the score %v", i, sv.H)
	case e.oracle:
		e.y, e.h = sv.Y, sv.H
	case !s.cfg.Cache.Enabled:
		return errors.New("oracle answers left to the cache in a run without one")
	}
	if sv.Scores != nil {
		if s.sets == nil || len(sv.Scores) != len(s.sets[i].entries) || !allFinite(sv.Scores) || math.IsNaN(sv.Base) || math.IsInf(sv.Base, 0) {
			return fmt.Errorf("a step under way holds scores that do not fit the corners of block %d", i)
		}
		e.scores, e.base, e.scored = sv.Scores, sv.Base, true
	}
	return nil
}

// allFinite reports whether no value of x is NaN or infinite.
func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
