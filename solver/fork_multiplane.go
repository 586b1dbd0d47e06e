package solver

// fork carries the multi-plane state of the checkpoint c of s over to the
// fork m.s when Fork switches multi-plane BCFW on or changes its settings
// (Shah et al. 2015, Alg. 3); fresh is the fork's starting state (the
// other policies drop it, see noReuse.fork). The iterate, the dual variables and the corner sets carry over as
// for any fork:
//
//   - switched on: the steps made so far count as exact steps, the first
//     outer iteration starts at the fork (mid-pass when the permutation
//     sampler is mid-pass), and the average of the approximate steps, the
//     cost count and the exact-oracle time start at the fork (so the
//     oracle time share is that of the solver time since the fork);
//   - switched off: the multi-plane state is dropped, and with it the
//     average of the approximate steps (the averaged iterate is then the
//     average of the exact steps);
//   - T changed: the starts of the iterations the old T did not keep are
//     taken as the beginning of the run, which keeps planes longer, never
//     shorter, than T asks for.
//
// Whenever the pass rule's units may change (switched on, Rule or
// CostRatio changed), the current iteration's rule restarts at the fork.
func (mf *multiPlane) fork(c, fresh *checkpoint, s *Solver) {
	f := mf.s
	old, cfg := s.cfg.MultiPlane, f.cfg.MultiPlane
	sv := c.MultiPlane
	restart := !old.Enabled || old.Rule != cfg.Rule || old.CostRatio != cfg.CostRatio
	if !old.Enabled || sv == nil {
		sv = &savedMultiPlane{ExactSteps: c.Steps, LastPasses: -1, Starts: make([]int64, len(mf.starts))}
		for k := range sv.Starts {
			sv.Starts[k] = c.Steps // iteration 0 starts at the fork
		}
		if f.cfg.Sampling == s.cfg.Sampling {
			sv.Pos = int64(c.PermPos) % mf.n
		} else {
			sv.Pos = int64(fresh.PermPos) % mf.n
		}
	} else if len(sv.Starts) != len(mf.starts) {
		sv.Starts = remapStarts(sv.Starts, sv.Iter, len(mf.starts))
	}
	if !cfg.approximate() {
		if sv.Approx { // the current iteration ends with its exact pass
			sv.Approx, sv.LastPasses, sv.Passes = false, sv.Passes, 0
		}
		sv.AvgApprox = nil
	} else if sv.AvgApprox == nil && fresh.MultiPlane != nil {
		sv.AvgApprox = fresh.MultiPlane.AvgApprox // starts at the fork
	}
	if restart {
		d := s.dual(s.x.v, s.x.w, s.ell)
		e := s.loop.Now().Seconds()
		if cfg.Rule == ruleCost {
			e = sv.Cost
		}
		sv.Rule = slopeRule{D0: d, C0: e, D1: d, C1: e}
	}
	c.MultiPlane = sv
}

// remapStarts returns the first steps of the last T outer iterations, for
// a new T, from those kept for another T (starts[k % len] is the first step
// of iteration k, for the last len iterations up to iter); the iterations
// no longer known start at step 0.
func remapStarts(starts []int64, iter int64, T int) []int64 {
	out := make([]int64, T)
	for j := int64(0); j < int64(T) && j <= iter; j++ {
		if j < int64(len(starts)) {
			out[(iter-j)%int64(T)] = starts[(iter-j)%int64(len(starts))]
		}
	}
	return out
}

// multiPlaneName describes the multi-plane settings for fork events.
func multiPlaneName(mp mpConfig) string {
	if !mp.Enabled {
		return "off"
	}
	return mp.String()
}
