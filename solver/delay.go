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
// The read part of a step (ahead.go: the scores of the block's cached
// corners, the cache rule, the oracle) is computed at the w of its draw; a
// block with an entry in flight is not drawn again until it is applied
// (drawIdle), as in the asynchronous execution. It refuses what a
// mini-batch refuses (validateBatch), for the same reasons.

// inFlight tops the queue up to Config.SimulateWorkers entries (one new one
// per step, once full) computed at the current w.
func (s *Solver) inFlight() error {
	p := &s.work.pre
	if p.next > 0 && p.next >= len(p.entries)/2 {
		p.compact()
	}
	for p.pending() < max(1, s.cfg.SimulateWorkers) {
		i, ok := s.drawIdle()
		if !ok {
			break
		}
		e := s.newAhead(i)
		if s.cfg.SimulateDelays != nil {
			e.due = s.steps + int64(s.drawDelay())
		}
		if err := s.prepare(e, s.x.w, s.globalGap, &s.work.workers[0]); err != nil {
			p.entries = p.entries[:len(p.entries)-1]
			return err
		}
		p.setBusy(i, s.n, true)
	}
	if s.cfg.SimulateDelays != nil {
		p.earliestFirst()
	}
	return nil
}

// drawDelay draws a delay d with weight Config.SimulateDelays.Weights[d]
// for the answer drawn at the current step. The draw is a hash of the seed
// and the step, not a draw of the sampling's generator, so that the blocks
// drawn do not depend on the delays (a distribution of one delay d is the
// first-in first-out simulator of d+1 workers, bit for bit).
func (s *Solver) drawDelay() int {
	weights := s.cfg.SimulateDelays.Weights
	var sum float64
	for _, v := range weights {
		sum += v
	}
	u := uniformHash(s.cfg.Seed, uint64(s.steps)) * sum
	for d, v := range weights {
		if u < v {
			return d
		}
		u -= v
	}
	return len(weights) - 1
}

// uniformHash returns a number in [0, 1) determined by (a, b): splitmix64
// of their mix.
func uniformHash(a, b uint64) float64 {
	z := a*0x9e3779b97f4a7c15 + b + 0x632be59bd9b4e019
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// earliestFirst moves the pending entry that is due first (the earlier
// draw on a tie) to the head of the queue, keeping the others' order.
func (p *prefetch) earliestFirst() {
	best := p.next
	for j := p.next + 1; j < len(p.entries); j++ {
		if p.entries[j].due < p.entries[best].due {
			best = j
		}
	}
	for j := best; j > p.next; j-- {
		p.entries[j], p.entries[j-1] = p.entries[j-1], p.entries[j]
	}
}

// drawIdle draws the next block with the configured sampling, drawing again
// (up to idleDraws times in all) while the block drawn has an entry pending
// or in flight; ok is false when every draw hit such a block.
func (s *Solver) drawIdle() (int, bool) {
	for k := 0; k < idleDraws; k++ {
		if i := s.samp.Next(s.rng); !s.work.pre.isBusy(i) {
			return i, true
		}
	}
	return 0, false
}

// idleDraws bounds the draws of drawIdle.
const idleDraws = 8
