package solver

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// The task losses of a trace point (run.WithTest, run.WithTrainLoss) observe the
// run: nothing the algorithm does reads them. With WithLateLosses, when the
// steps are sequential and there are two workers or more, record computes them
// at a copy of w on a goroutine of its own while the steps that follow go
// on, and appends the point once they are done: at the next evaluation or
// when Run returns, the solver's goroutine then taking its share of the
// predictions left. The point is the one computed in place, bit for bit
// (the same lossPass, its losses summed in example order); only
// its Progress callback comes later. What it saves is measured in
// docs/performance.md ("Every core").

// lossChunk is the number of predictions a goroutine takes at a time.
const lossChunk = 4

// lossPass computes the task losses of one trace point: the predictions of
// the test examples, then of the training examples, taken in chunks by the
// goroutines it starts and by the one that finishes it, each loss summed in
// example order so that the result does not depend on who computed what.
type lossPass struct {
	w       []float64
	wAvg    []float64       // the averaged iterate, whose test loss is asked for too (nil: none)
	test    oracles.Problem // nil unless a test loss is asked for
	train   oracles.Problem // nil unless TrainLoss
	losses  []float64       // the test examples', the training examples', then the test examples' at wAvg
	next    atomic.Int64    // the next prediction to take
	helpers sync.WaitGroup
	mu      sync.Mutex
	err     error // the first panic of a prediction
}

// start starts the losses at w, and the test loss at wAvg unless it is
// nil (neither may change until finish), on helpers goroutines.
func (l *lossPass) start(w, wAvg []float64, test, train oracles.Problem, helpers int) {
	if test == nil {
		wAvg = nil
	}
	l.w, l.wAvg, l.test, l.train, l.err = w, wAvg, test, train, nil
	m := 0
	for _, q := range []oracles.Problem{test, train} {
		if q != nil {
			m += q.Len()
		}
	}
	if wAvg != nil {
		m += test.Len()
	}
	if cap(l.losses) < m {
		l.losses = make([]float64, m)
	}
	l.losses = l.losses[:m]
	l.next.Store(0)
	for range helpers {
		l.helpers.Add(1)
		go func() {
			defer l.helpers.Done()
			l.predict()
		}()
	}
}

// finish takes a share of the predictions left, waits for the helpers and
// sets the test and training losses of pt.
func (l *lossPass) finish(pt *run.Point) error {
	l.predict()
	l.helpers.Wait()
	if l.err != nil {
		return l.err
	}
	k := 0
	if l.test != nil {
		k = l.test.Len()
		pt.TestLoss = meanOf(l.losses[:k])
	}
	if l.train != nil {
		pt.TrainLoss = meanOf(l.losses[k : k+l.train.Len()])
		k += l.train.Len()
	}
	if l.wAvg != nil {
		pt.TestLossAvg = meanOf(l.losses[k:])
	}
	return nil
}

// predict takes chunks of predictions until none is left.
func (l *lossPass) predict() {
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
				l.next.Store(m) // stop every goroutine
				return
			}
		}
	}
}

// loss computes the task loss of prediction k (the test examples first,
// then the training examples, then the test examples at the average).
func (l *lossPass) loss(k int, y []int32) (_ []int32, err error) {
	q, i, w, what := l.test, k, l.w, "test"
	if q != nil && i >= q.Len() {
		i -= q.Len()
		q = nil
	}
	if q == nil && l.train != nil {
		q, what = l.train, "training"
		if i >= q.Len() {
			i -= q.Len()
			q = nil
		}
	}
	if q == nil {
		q, w, what = l.test, l.wAvg, "averaged iterate's test"
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s loss: %w", what, err)
		}
	}()
	defer core.Recover(i, &err)
	y = q.Predict(i, w, y)
	l.losses[k] = q.Loss(i, y)
	return y, nil
}

// meanOf returns the mean of v, summed in order.
func meanOf(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// lossProblems returns the problems whose task losses a trace point
// records (nil for those not asked for).
func (s *Solver) lossProblems() (test, train oracles.Problem) {
	if s.trainLoss {
		train = s.p
	}
	return s.test, train
}

// taskLosses sets the task losses of pt at the current iterate, on all
// the workers.
func (s *Solver) taskLosses(pt *run.Point) error {
	test, train := s.lossProblems()
	if test == nil && train == nil {
		return nil
	}
	s.losses.start(s.x.w, s.averagedWeights(), test, train, len(s.work.workers)-1)
	return s.losses.finish(pt)
}

// averagedWeights returns the averaged iterate of the last evaluation,
// nil without averaging.
func (s *Solver) averagedWeights() []float64 {
	if s.avg == nil {
		return nil
	}
	return s.work.wAvg
}

// lateLosses is the trace point whose task losses are under way.
type lateLosses struct {
	pt      run.Point
	w       []float64 // the copy of w they are computed at
	wAvg    []float64 // the copy of the averaged iterate (nil without averaging)
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
	return s.late.on && (s.test != nil || s.trainLoss) && !s.sched.Ahead() && !batch && len(s.work.workers) >= 2
}

// startLosses copies w and starts the task losses of pt on a goroutine.
func (s *Solver) startLosses(pt run.Point) {
	l := &s.late
	l.pt, l.pending = pt, true
	l.w = append(l.w[:0], s.x.w...)
	var wAvg []float64
	if avg := s.averagedWeights(); avg != nil {
		l.wAvg = append(l.wAvg[:0], avg...)
		wAvg = l.wAvg
	}
	test, train := s.lossProblems()
	s.losses.start(l.w, wAvg, test, train, 1)
}

// settleLosses finishes the task losses under way (taking a share of the
// predictions left) and appends their point; nothing when none is.
func (s *Solver) settleLosses() error {
	l := &s.late
	if !l.pending {
		return nil
	}
	l.pending = false
	if err := s.losses.finish(&l.pt); err != nil {
		return err
	}
	s.appendPoint(l.pt)
	return nil
}
