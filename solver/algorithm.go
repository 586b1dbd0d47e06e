package solver

import (
	"fmt"

	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// algorithm is the optimizer the plan's Algorithm selects: the engine core.Loop
// drives (its steps, evaluations and stopping criteria) and what else
// differs between the optimizers. newAlgorithm is the one place that
// branches on config.Algorithm; the rest of the package asks the algorithm.
type algorithm interface {
	core.Engine
	// setup builds the algorithm's own state in New, after the state every
	// algorithm has (the iterate, the sampler, the work buffers).
	setup() error
	// schedule returns the evaluation schedule of a fresh run.
	schedule() core.Loop
	// blocks reports whether the algorithm keeps per-block dual state: the
	// block vectors or dual variables, ell_i, stale block gaps and exact
	// gap passes that refresh them (BCFW).
	blocks() bool
	// projects reports whether the algorithm projects its iterate onto the
	// box itself (SSG) instead of keeping w = [v] clipped.
	projects() bool
	// certify fills in the dual objective and the duality gap of pt, an
	// evaluation of the current iterate whose certifying oracle pass left
	// H_i(y_i*; w) in work.hBlock (and, for blocks(), the block gaps in
	// work.gBlock); sumH is sum_i H_i; mode is the evaluation's (see
	// Solver.evaluate). Without a dual (SSG) it leaves them NaN.
	certify(pt *run.Point, sumH float64, mode evalMode)
	// dual reports whether the algorithm has a dual point (all but SSG).
	dual() bool
	// stoppable says what Stop criteria the algorithm can meet (core.CheckStop).
	stoppable() core.Stoppable
	// rescale applies the algorithm's part of SetLambda's Proposition 1
	// with rho = new/old lambda, before the solver's lambda changes.
	rescale(rho float64)
	// raise applies SetLambda's increase, after the solver's lambda has
	// changed: the dual variables stay, the vectors A alpha / lambda (the
	// block vectors and the iterate) scale by f = old/new lambda.
	raise(f float64)
	// save and restore write and read the algorithm's own state in a
	// checkpoint (restore runs last, after the solver's counters).
	save(c *checkpoint)
	restore(c *checkpoint) error
}

// newAlgorithm returns the algorithm of s.cfg.
func (s *Solver) newAlgorithm() algorithm {
	switch s.cfg.Algorithm {
	case run.FW:
		return &batchAlg{engineBase: engineBase{s}}
	case run.CuttingPlane:
		return &batchAlg{engineBase: engineBase{s}, cutting: true}
	case run.SSG:
		return ssgAlg{engineBase{s}}
	case run.OnlineEG:
		return &egAlg{engineBase: engineBase{s}}
	}
	return bcfwAlg{engineBase{s}}
}

// engineBase is what the algorithms' engines share.
type engineBase struct{ s *Solver }

func (e engineBase) Clock() int64    { return e.s.clock() }
func (e engineBase) Passes() float64 { return e.s.Passes() }

// save and restore: the state of BCFW and SSG is the solver's own.
func (e engineBase) save(*checkpoint)          {}
func (e engineBase) restore(*checkpoint) error { return nil }

// stoppable is what the algorithms without a gap of their own share: the
// Stop.GapEstimate they refuse.
func (e engineBase) stoppable() core.Stoppable {
	return core.Stoppable{GapEvery: e.s.cfg.GapEvery, TraceEvery: e.s.cfg.TraceEvery,
		NoEstimate: fmt.Sprintf("%v keeps no gap estimates; Stop.GapEstimate needs bcfw", e.s.cfg.Algorithm)}
}
