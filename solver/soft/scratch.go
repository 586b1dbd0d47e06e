package soft

import "github.com/fwstruct/fwstruct/oracles"

// scratch holds the reusable buffers of the steps and evaluations, so that
// a step does not allocate.
type scratch struct {
	theta []float64           // reparameterized scores of the block
	dir   []float64           // d = s - mu of the block
	marg  []float64           // A_ci d for every scope position of a factor
	acc   oracles.Accumulator // builds P = NodePsi(d)
	psi   oracles.SparseVec   // P
	slots []float64           // P as slot coefficients (nodes.Model.PsiSlotsNorm)
	mv    move                // the step under way (direction)

	exBound []float64 // per example: sum_alpha max theta (the bracket of eq. 2)
	exLoss  []float64 // per example: Delta . mu
	blkGap  []float64 // per block: its exact gap
	workers []workerScratch
}

type workerScratch struct {
	theta []float64
	marg  []float64
}

func (ws *scratch) init(s *Solver) {
	maxStates, maxMarg, maxSlots := 1, 1, 1
	for i := 0; i < s.nEx; i++ {
		g, lay := s.m.Graph(i), s.k.Layout(i)
		for a := 0; a < g.NumNodes(); a++ {
			maxStates = max(maxStates, g.States(a))
			maxSlots = max(maxSlots, lay.NodeSlots(a))
			k := 0
			for _, v := range g.Scope(a) {
				k += g.Card(int(v))
			}
			maxMarg = max(maxMarg, k)
		}
	}
	ws.theta = make([]float64, maxStates)
	ws.dir = make([]float64, maxStates)
	ws.marg = make([]float64, maxMarg)
	ws.slots = make([]float64, maxSlots)
	ws.acc.Ensure(s.d)
	ws.exBound = make([]float64, s.nEx)
	ws.exLoss = make([]float64, s.nEx)
	ws.blkGap = make([]float64, s.blocks)
	ws.grow(s.workers)
}

// grow makes the per-worker scratch of k workers.
func (ws *scratch) grow(k int) {
	ws.workers = make([]workerScratch, k)
	for j := range ws.workers {
		ws.workers[j] = workerScratch{theta: make([]float64, len(ws.theta)), marg: make([]float64, len(ws.marg))}
	}
}
