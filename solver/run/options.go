package run

import (
	"fmt"

	"github.com/fwstruct/fwstruct/oracles"
)

// Options is what a run is connected to, as opposed to its method: none of
// it changes the trajectory of the iterates but the Execution, and none of
// it but the Execution is saved in a checkpoint. Methods take them as
// Option values; Wiring collects them.
type Options struct {
	// Test is the problem whose task loss every trace point records (nil:
	// none). Its kind is the training problem's: a method that predicts
	// through a view of its own (LP + rounding for factor graphs) makes the
	// view.
	Test oracles.Problem
	// Progress is called after every trace point.
	Progress func(Point)
	// Workers is the number of goroutines of the parallel parts of a run
	// (gap passes, evaluations, batch iterations, the workers of an
	// execution); zero means GOMAXPROCS. The iterates do not depend on it.
	Workers int
	// TrainLoss records the task loss on the training set at every trace
	// point.
	TrainLoss bool
	// LateLosses lets a run whose steps are sequential compute the task
	// losses of a trace point on a goroutine of its own while the steps go
	// on (see the solver package documentation, "Every core"): the trace
	// is the same, bit for bit, but Progress is called when the losses are
	// done, the solver some steps further on.
	LateLosses bool
	// Execution schedules the block steps (package solver/execution); nil
	// is the sequential execution. A method that cannot be run by it says
	// so in New.
	Execution Execution
}

// An Option sets a part of Options.
type Option func(*Options)

// WithTest records the task loss on test at every trace point.
func WithTest(test oracles.Problem) Option { return func(o *Options) { o.Test = test } }

// WithProgress calls fn after every trace point.
func WithProgress(fn func(Point)) Option { return func(o *Options) { o.Progress = fn } }

// WithWorkers sets the goroutines of the parallel parts of a run (0:
// GOMAXPROCS).
func WithWorkers(k int) Option { return func(o *Options) { o.Workers = k } }

// WithTrainLoss records the task loss on the training set at every trace
// point.
func WithTrainLoss(on bool) Option { return func(o *Options) { o.TrainLoss = on } }

// WithLateLosses: see Options.LateLosses.
func WithLateLosses(on bool) Option { return func(o *Options) { o.LateLosses = on } }

// WithExecution schedules the block steps with x (nil: sequential).
func WithExecution(x Execution) Option { return func(o *Options) { o.Execution = x } }

// Wiring returns the options opts set, checking the values every method
// reads alike (workers >= 0).
func Wiring(opts []Option) (Options, error) {
	var o Options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.Workers < 0 {
		return o, fmt.Errorf("workers must be >= 0 (0: one per CPU), got %d", o.Workers)
	}
	return o, nil
}

// An Execution schedules the block steps of a method: sequentially (nil),
// as mini-batches, asynchronously or as the delay simulator; the values
// are the types of package solver/execution. Name is the form flags and
// files write.
type Execution interface {
	Name() string
	// Describe says what the execution does in a few words, for the line
	// a run prints about its method.
	Describe() string
}
