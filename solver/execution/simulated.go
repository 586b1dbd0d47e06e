package execution

// simulated schedules the steps of the delay simulator (Simulated). The
// asynchronous algorithm of Wang et al. (2016, Alg. 1: workers solve block
// oracles on a possibly stale w, a server applies their block updates as
// they arrive) with K workers of equal speed applies every answer K-1
// updates after the iterate its worker read: while one worker's answer is
// applied, the K-1 others are computing on older iterates. The paper
// bounds the effect of staleness through the expected delay (kappa = K-1
// here) rather than the worst one. The simulator runs that schedule
// sequentially and deterministically: a queue holds K answers in flight; a
// step draws the next block (with the method's sampling), computes its
// read part at the current w, appends it, and writes the step at the head
// of the queue, read K-1 steps ago. So passes-to-gap at K workers can be
// measured on any machine, and K = 1 is the sequential execution bit for
// bit.
//
// With Delays, every answer drawn gets a due step, the current one plus a
// delay drawn from the distribution, and a step writes the answer due
// first. A block with an entry in flight is not drawn again until it is
// written (drawIdle), as in the asynchronous execution.
type simulated[E, S any] struct {
	queue[E, S]
	workers int
	delays  *Delays
	seed    uint64
}

func newSimulated[E, S any](x Simulated, steps Steps[E, S], seed uint64) *simulated[E, S] {
	return &simulated[E, S]{queue: queue[E, S]{steps: steps}, workers: x.Workers, delays: x.Delays, seed: seed}
}

func (m *simulated[E, S]) Ahead() bool { return true }
func (m *simulated[E, S]) Settle()     {}
func (m *simulated[E, S]) Stop()       {}

// Step tops the queue up to Workers entries (one new one per step, once
// full) read at the current w, and writes the step of the one due first.
func (m *simulated[E, S]) Step() error {
	if m.next > 0 && m.next >= len(m.entries)/2 {
		m.compact()
	}
	for m.pending() < max(1, m.workers) {
		i, ok := m.drawIdle()
		if !ok {
			break
		}
		e := m.begin(i)
		if m.delays != nil {
			e.due = m.steps.Made() + int64(m.drawDelay())
		}
		if err := m.steps.Read(i, &e.read, m.steps.Iterate(), 0); err != nil {
			m.entries = m.entries[:len(m.entries)-1]
			return err
		}
		m.setBusy(i, true)
	}
	if m.delays != nil {
		m.earliestFirst()
	}
	return m.apply()
}

// drawDelay draws a delay d with weight Delays.Weights[d] for the answer
// drawn at the current step. The draw is a hash of the seed and the step,
// not a draw of the sampling's generator, so that the blocks drawn do not
// depend on the delays (a distribution of one delay d is the first-in
// first-out simulator of d+1 workers, bit for bit).
func (m *simulated[E, S]) drawDelay() int {
	weights := m.delays.Weights
	var sum float64
	for _, v := range weights {
		sum += v
	}
	u := uniformHash(m.seed, uint64(m.steps.Made())) * sum
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
func (m *simulated[E, S]) earliestFirst() {
	best := m.next
	for j := m.next + 1; j < len(m.entries); j++ {
		if m.entries[j].due < m.entries[best].due {
			best = j
		}
	}
	for j := best; j > m.next; j-- {
		m.entries[j], m.entries[j-1] = m.entries[j-1], m.entries[j]
	}
}

// Save returns the answers in flight.
func (m *simulated[E, S]) Save() *Saved[S] { return m.save(m.delays != nil) }

// Restore queues the answers in flight of sv: at most Workers.
func (m *simulated[E, S]) Restore(sv *Saved[S]) error {
	return m.restore(sv, m.workers, m.delays != nil, true)
}
