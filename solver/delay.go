package solver

// The delay simulator. The asynchronous algorithm of Wang et al. (2016,
// Alg. 1: workers solve block oracles on a possibly stale w, a server
// applies their block updates as they arrive) with K workers of equal
// speed applies every answer K-1 updates after the iterate its worker read:
// while one worker's answer is applied, the K-1 others are computing on
// older iterates. The paper bounds the effect of staleness through the
// expected delay (kappa = K-1 here) rather than the worst one.
// Config.SimulateWorkers = K runs that schedule sequentially and
// deterministically: a queue holds K answers in flight; a step draws the
// next block (with the configured sampling), calls its oracle at the
// current w, appends the answer, and applies the answer at the head of the
// queue, computed K-1 steps ago, with the block's own line search at the
// current iterate (its score recomputed there, as for a mini-batch). So
// passes-to-gap at K workers can be measured on any machine, and K = 1 is
// BCFW bit for bit.
//
// An answer counts as an oracle call when it is applied (the calls of
// answers still in flight when a run ends are not counted, as the work of
// a real asynchronous run's busy workers is lost when it stops); the queue
// is part of a checkpoint, so split runs and saved runs continue exactly.
// With the cache, a block the cache rule expects to hit at the w of its
// draw gets no oracle call in flight (see cacheWouldHit). It refuses what a
// mini-batch refuses (validateBatch), for the same reasons.

// inFlight tops the queue up to Config.SimulateWorkers answers (one new one
// per step, once full) computed at the current w.
func (s *Solver) inFlight() error {
	p := &s.work.pre
	if p.next > 0 && p.next >= len(p.blocks)/2 {
		p.compact()
	}
	for p.pending() < max(1, s.cfg.SimulateWorkers) {
		i := s.samp.Next(s.rng)
		j := p.push(i, s.steps)
		if p.cached[j] = s.cacheWouldHit(i); p.cached[j] {
			continue
		}
		var err error
		p.ys[j], p.hs[j], err = s.oracle(i, s.x.w, p.ys[j])
		if err != nil {
			p.blocks, p.hs, p.ats, p.cached = p.blocks[:j], p.hs[:j], p.ats[:j], p.cached[:j]
			return err
		}
	}
	return nil
}
