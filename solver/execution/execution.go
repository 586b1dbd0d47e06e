// Package execution holds the executions of block steps: how the steps of
// a block-coordinate method (BCFW, multi-plane BCFW, LP-hard) are
// scheduled on the workers, beside the methods rather than inside their
// settings:
//
//   - nil or Sequential: every step reads and writes the current iterate,
//     one after another (the gap passes and evaluations still use the
//     workers); a MiniBatch of one block without lookahead is the same;
//   - MiniBatch: tau distinct blocks read one w on the workers, then their
//     writes are applied in order (Wang et al. 2016, Alg. 1, synchronous,
//     or with a lookahead of L batches the bounded-delay case);
//   - Async: the workers read possibly stale copies of w while one updater
//     applies the answers as they arrive (Wang et al. 2016, Alg. 1);
//   - Simulated: the staleness K asynchronous workers would have, run
//     sequentially and deterministically, to measure passes-to-gap at K
//     workers on any machine.
//
// An execution is given to a method's New with run.WithExecution; a method
// that cannot be run by an execution says so there (exact block steps are
// sequential: each block's solve reads the w the previous one left). The
// trajectory of a mini-batch and of the simulator depends on the
// execution's values and the method's seed, never on the number of
// workers; the execution is saved in the run's checkpoint.
//
// # The seam
//
// A method exposes its block step as a Steps: a step on block i has a read
// part (Begin fixes, when the block is drawn, what it reads of the
// method's state; Read computes it at a w it is given: the scores of the
// block's cached corners, the cache rule, the max oracle's answer; pure
// work that writes nothing shared) and a write part (Write: the line
// search and the update at the current iterate, told the age of the
// read), and the method also draws blocks with its own sampling, copies
// its iterate, makes a whole sequential step and says how many steps it
// allows before it must decide again. Schedule builds the Scheduler of an
// execution over it, which the method calls for every step; the scheduler
// decides where and when each part runs and never looks inside a read
// part, so a method knows of its execution only that interface. The
// contract both sides keep:
//
//   - a block is never under way twice, so a read part reads block i's own
//     state while no write touches it;
//   - every write is applied on the updater's goroutine, one at a time,
//     each with its own line search at the current iterate, so the dual
//     never decreases whatever the delay;
//   - Settle (before an evaluation, a checkpoint, the end of a run) leaves
//     no read part under way, so the method's state is at rest and its
//     certificates exact; the steps drawn but not written stay queued,
//     and Save/Restore carry them (with each read part's checkpoint form,
//     the method's) through a checkpoint, so a run split or resumed
//     continues bit for bit;
//   - a change of w without a step (a new lambda) is Moved: the read parts
//     under way are then of unknown age (a negative one), and a write keeps
//     of them only what holds at any w (BCFW: the oracle's answer, scored
//     again; the cache rule is applied again).
package execution

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/solver/run"
)

// Sequential is the sequential execution, every step reading and writing
// the current iterate; a nil execution is the same. It is given where nil
// would mean "keep the execution" (a fork).
type Sequential struct{}

// MiniBatch is mini-batch BCFW (Wang, Sadhanala, Dai, Neiswanger, Sra and
// Xing 2016, Alg. 1 without delay): every step draws Batch distinct
// blocks, computes their read parts in parallel on the workers against one
// w, then applies their writes one by one in the order drawn, each with
// its own line search at the current iterate.
type MiniBatch struct {
	// Batch is tau, the distinct blocks of a batch (>= 1; at most
	// n/(Lookahead+1) are used, the batches under way holding distinct
	// blocks).
	Batch int `json:"batch"`
	// Lookahead is the number of batches drawn ahead of the one being
	// applied, their read parts computed on the workers meanwhile, each at
	// the w of its draw (answers at most (L+1) Batch - 1 steps old; 0 is
	// the synchronous mini-batch).
	Lookahead int `json:"lookahead"`
}

// Async is asynchronous BCFW (Wang et al. 2016, Alg. 1): the workers solve
// block oracles on their own, possibly stale copy of w while one updater
// applies the block steps as the answers arrive. Which answer arrives
// first depends on timing, so a run is not reproducible bit for bit
// (Simulated is its deterministic model).
type Async struct{}

// Simulated is the delay simulator: the method run sequentially with the
// staleness Workers asynchronous workers would have, every oracle answer
// applied Workers-1 steps after the iterate it saw (Wang et al. 2016's
// delay model), or with the delays of Delays. Workers = 1 is the
// sequential execution bit for bit.
type Simulated struct {
	// Workers is K >= 1.
	Workers int `json:"workers"`
	// Delays, when set, replaces the K-1 delay of every answer by a delay
	// d drawn with weight Delays.Weights[d]; of the K answers in flight
	// the step applies the one due first. Solver.Delays of a real
	// asynchronous run measures its distribution. Nil: first in, first
	// out.
	Delays *Delays `json:"delays,omitempty"`
}

// Delays is a distribution of the delays of answers in flight: Weights[d]
// is the weight (a count, say) of delay d, in steps between the iterate an
// answer saw and the step that applied it.
type Delays struct {
	Weights []float64 `json:"weights"`
}

// Mean returns the mean delay (NaN without weight).
func (dd *Delays) Mean() float64 {
	var sum, wd float64
	for d, v := range dd.Weights {
		sum += v
		wd += float64(d) * v
	}
	if sum == 0 {
		return math.NaN()
	}
	return wd / sum
}

// Name returns "sequential".
func (Sequential) Name() string { return "sequential" }

// Describe returns "sequential".
func (Sequential) Describe() string { return "sequential" }

// Name returns "mini-batch".
func (MiniBatch) Name() string { return "mini-batch" }

// Name returns "async".
func (Async) Name() string { return "async" }

// Name returns "simulated".
func (Simulated) Name() string { return "simulated" }

// Describe says what the execution does, e.g. "mini-batch of 4, lookahead 2".
func (x MiniBatch) Describe() string {
	return fmt.Sprintf("mini-batch of %d, lookahead %d", x.Batch, x.Lookahead)
}

// Describe returns "asynchronous".
func (Async) Describe() string { return "asynchronous" }

// Describe says what the simulator simulates.
func (x Simulated) Describe() string {
	if x.Delays != nil {
		return fmt.Sprintf("%d simulated workers, delays of mean %.3g", x.Workers, x.Delays.Mean())
	}
	return fmt.Sprintf("%d simulated workers", x.Workers)
}

// Validate checks the execution's values.
func (x MiniBatch) Validate() error {
	switch {
	case x.Batch < 1:
		return fmt.Errorf("mini-batch: batch must be >= 1, got %d", x.Batch)
	case x.Lookahead < 0:
		return fmt.Errorf("mini-batch: lookahead must be >= 0 (0: the synchronous mini-batch), got %d", x.Lookahead)
	}
	return nil
}

// Validate checks the execution's values (there are none).
func (Async) Validate() error { return nil }

// Validate checks the execution's values.
func (x Simulated) Validate() error {
	if x.Workers < 1 {
		return fmt.Errorf("simulated: workers must be >= 1, got %d", x.Workers)
	}
	if x.Delays != nil && !validWeights(x.Delays.Weights) {
		return errors.New("simulated: delays must be finite weights >= 0 with a positive sum")
	}
	return nil
}

// validWeights reports whether w are finite, non-negative weights with a
// positive sum.
func validWeights(w []float64) bool {
	var sum float64
	for _, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return false
		}
		sum += v
	}
	return sum > 0 && !math.IsInf(sum, 1)
}

// Validate checks x, one of this package's executions (nil: sequential).
func Validate(x run.Execution) error {
	switch x := x.(type) {
	case nil, Sequential:
		return nil
	case MiniBatch:
		return x.Validate()
	case Async:
		return x.Validate()
	case Simulated:
		return x.Validate()
	}
	return fmt.Errorf("execution %q of type %T is not one of package execution's", x.Name(), x)
}

// Encode writes x as JSON with its name under "execution" (nil and
// Sequential: null).
func Encode(x run.Execution) ([]byte, error) {
	if _, seq := x.(Sequential); x == nil || seq {
		return []byte("null"), nil
	}
	if err := Validate(x); err != nil {
		return nil, err
	}
	body, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, err
	}
	name, _ := json.Marshal(x.Name())
	fields["execution"] = name
	return json.Marshal(fields)
}

// Decode reads an execution written by Encode.
func Decode(b []byte) (run.Execution, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("execution: %w", err)
	}
	if fields == nil {
		return nil, nil
	}
	var name string
	if err := json.Unmarshal(fields["execution"], &name); err != nil {
		return nil, fmt.Errorf("execution: name: %w", err)
	}
	delete(fields, "execution")
	body, _ := json.Marshal(fields)
	var x run.Execution
	var err error
	switch name {
	case MiniBatch{}.Name():
		var v MiniBatch
		err = strictJSON(body, &v)
		x = v
	case Async{}.Name():
		var v Async
		err = strictJSON(body, &v)
		x = v
	case Simulated{}.Name():
		var v Simulated
		err = strictJSON(body, &v)
		x = v
	default:
		return nil, fmt.Errorf("unknown execution %q (want mini-batch, async or simulated)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("execution %s: %w", name, err)
	}
	return x, Validate(x)
}

// strictJSON decodes b into v, refusing fields v does not have.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
