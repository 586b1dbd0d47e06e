package solver

import (
	"runtime"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
)

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// solverScratch holds reusable buffers so that steps do not allocate.
type solverScratch struct {
	y       []int32
	psi     oracles.SparseVec
	fwc     corner    // the FW corner of the current step
	away    corner    // the away corner of the current step
	dense   []float64 // zeroed between uses (sparse-sparse dot products)
	h       []float64 // H of each corner of the current block
	scored  bool      // h holds the scores of the current block's set
	vAvg    []float64 // the second average of multi-plane BCFW
	hBlock  []float64 // H_i(y_i*; w) of every block in a pass
	gBlock  []float64 // block gaps of a pass
	vTmp    []float64 // re-anchoring
	wTmp    []float64 // averaged weights
	wAvg    []float64 // the averaged weights of the last evaluation (their test loss)
	workers []workerScratch
	given   given // the read part of the step under way computed ahead (blockSteps.Write)
}

// workerScratch is what a worker of a parallel pass, or of an execution's
// read parts (worker k of blockSteps.Read), reuses: the labeling of its
// oracle calls.
type workerScratch struct {
	y     []int32
	psi   oracles.SparseVec // of the answer an exact pass checks
	dense []float64         // zeroed between uses (the Gram row of a corner computed ahead); allocated on first use
}

func (ws *solverScratch) init(s *Solver) {
	ws.dense = make([]float64, s.d)
	ws.hBlock = make([]float64, s.n)
	ws.gBlock = make([]float64, s.n)
	ws.workers = make([]workerScratch, s.workers)
}

// parallel calls fn(ws, i) for every block i with the scratch of the
// worker handling it (see core.Parallel).
func (s *Solver) parallel(fn func(ws *workerScratch, i int) error) error {
	return core.Parallel(s.n, len(s.work.workers), func(k, i int) error { return fn(&s.work.workers[k], i) })
}
