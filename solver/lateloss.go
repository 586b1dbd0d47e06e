package solver

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// The task losses of a trace point (WithTest, WithTrainLoss) observe the
// run: nothing the algorithm does reads them. With WithLateLosses, when the
// steps are sequential and there are two workers or more, record computes them
// at a copy of w on a goroutine of its own while the steps that follow go
// on, and appends the point once they are done: at the next evaluation or
// when Run returns, the solver's goroutine then taking its share of the
// predictions left. The point is the one computed in place, bit for bit
// (the losses are summed in example order, as meanLoss sums them); only
// its Progress callback comes later. On the horses (graph cut, a test loss
// at every gap pass) the test losses were a quarter of a run's time.

// lossChunk is the number of predictions a goroutine takes at a time.
const lossChunk = 4

// lateLosses is the trace point whose task losses are under way.
type lateLosses struct {
	pt      run.Point
	w       []float64 // the copy of w they are computed at
	test    oracles.Problem
	train   oracles.Problem // nil unless TrainLoss
	losses  []float64       // the test examples', then the training examples'
	next    atomic.Int64    // the next prediction to take
	helper  sync.WaitGroup
	mu      sync.Mutex
	err     error // the first panic of a prediction
	pending bool
	on      bool // WithLateLosses
	enabled bool // record defers the losses (set by Run: lateLossesApply)
}

// lateLossesApply reports whether the records of a run compute the task
// losses of their points while the steps go on: they are asked for, the
// steps are sequential and cheap (a mini-batch, the asynchronous execution
// and the simulator keep the workers busy, and so do the oracle passes of
// batch FW and the cutting plane) and there is a second worker.
func (s *Solver) lateLossesApply() bool {
	_, batch := s.alg.(core.Batch)
	return s.late.on && (s.test != nil || s.trainLoss) && !s.cfg.queued() && !batch && len(s.work.workers) >= 2
}

// startLosses copies w and starts the task losses of pt on a goroutine.
func (s *Solver) startLosses(pt run.Point) {
	l := &s.late
	l.pt, l.pending, l.err = pt, true, nil
	l.w = append(l.w[:0], s.x.w...)
	l.test, l.train = s.test, nil
	m := 0
	if s.test != nil {
		m += s.test.Len()
	}
	if s.trainLoss {
		l.train = s.p
		m += s.p.Len()
	}
	if cap(l.losses) < m {
		l.losses = make([]float64, m)
	}
	l.losses = l.losses[:m]
	l.next.Store(0)
	l.helper.Add(1)
	go func() {
		defer l.helper.Done()
		l.predict()
	}()
}

// predict takes chunks of predictions until none is left.
func (l *lateLosses) predict() {
	var y []int32
	m := int64(len(l.losses))
	for {
		lo := l.next.Add(lossChunk) - lossChunk
		if lo >= m {
			return
		}
		for i := lo; i < min(lo+lossChunk, m); i++ {
			var err error
			if y, err = l.loss(int(i), y); err != nil {
				l.mu.Lock()
				if l.err == nil {
					l.err = err
				}
				l.mu.Unlock()
				l.next.Store(m) // stop both goroutines
				return
			}
		}
	}
}

// loss computes the task loss of prediction k (the test examples first).
func (l *lateLosses) loss(k int, y []int32) (_ []int32, err error) {
	q, i, what := l.test, k, "test"
	if q == nil || k >= q.Len() {
		q, what = l.train, "training"
		if l.test != nil {
			i -= l.test.Len()
		}
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s loss: %w", what, err)
		}
	}()
	defer core.Recover(i, &err)
	y = q.Predict(i, l.w, y)
	l.losses[k] = q.Loss(i, y)
	return y, nil
}

// settleLosses finishes the task losses under way (taking a share of the
// predictions left) and appends their point; nothing when none is.
func (s *Solver) settleLosses() error {
	l := &s.late
	if !l.pending {
		return nil
	}
	l.predict()
	l.helper.Wait()
	l.pending = false
	if l.err != nil {
		return l.err
	}
	k := 0
	if l.test != nil {
		l.pt.TestLoss = meanOf(l.losses[:l.test.Len()])
		k = l.test.Len()
	}
	if l.train != nil {
		l.pt.TrainLoss = meanOf(l.losses[k:])
	}
	s.appendPoint(l.pt)
	return nil
}

// meanOf returns the mean of v, summed in order.
func meanOf(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}
