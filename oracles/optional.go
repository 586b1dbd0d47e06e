package oracles

import (
	"errors"
	"fmt"
	"math"
)

// Optional interfaces: what only some structured tasks have. A solver checks
// for them once, when it is built, and never in its hot loops.

// Bounded is implemented by models that need bounds on some coordinates of w
// to be well posed, e.g. a graph-cut model whose pairwise weights must keep
// the energy submodular (Osokin et al. 2016, App. I.3). The solver applies
// these bounds as a box constraint (Osokin et al. 2016, App. H)
// automatically, intersected with any box the user asks for.
type Bounded interface {
	// WeightBounds returns per-coordinate bounds on w, each slice of length
	// Dim() or nil for no bound on that side; entries may be -Inf or +Inf.
	// The caller must not modify them.
	WeightBounds() (lower, upper []float64)
}

// FallibleOracle is implemented by problems whose max oracle cannot answer
// for every w, e.g. a graph-cut oracle given weights that break
// submodularity. Solvers call MaxOracleErr instead of MaxOracle and stop
// with its error; such a problem's plain MaxOracle must document what it
// returns on failure (never a silently wrong labeling: h is NaN).
type FallibleOracle interface {
	MaxOracleErr(i int, w []float64, dst []int32) (y []int32, h float64, err error)
}

// Approximate is implemented by problems whose MaxOracle is approximate
// (an LP relaxation rounded, a heuristic, a multiplicative-accuracy
// wrapper). The duality gap computed with an approximate oracle is not a
// certificate; solvers run their exact gap passes through Exact instead.
type Approximate interface {
	// Exact returns the same problem with an exact max oracle, or nil when
	// none exists: then a solver's gaps are estimates, and its trace says
	// so.
	Exact() Problem
}

// RelativeOracle is implemented by approximate oracles whose accuracy is
// relative to a reference score that only the solver knows: the dual-weighted
// score ref = sum_c alpha_i(c) H_i(c; w) of the block's current corners,
// against which the block gap of a corner y is (H_i(y; w) - ref)/n
// (Lacoste-Julien et al. 2013, App. C, eq. 12). Solvers that keep the dual
// state call MaxOracleRelative in their steps instead of MaxOracle; see
// Approx for the guarantee of WithAccuracy.
type RelativeOracle interface {
	MaxOracleRelative(i int, w []float64, ref float64, dst []int32) (y []int32, h float64, err error)
}

// OracleError reports a max-oracle failure of one example.
type OracleError struct {
	Example int
	Err     error
}

func (e *OracleError) Error() string {
	return fmt.Sprintf("max oracle of example %d: %v", e.Example, e.Err)
}

func (e *OracleError) Unwrap() error { return e.Err }

// ErrNaNScore is the error of an oracle that returned a NaN or infinite
// score without saying why.
var ErrNaNScore = errors.New("the oracle returned a non-finite score H")

// OracleFunc returns the max oracle a solver should call for p: MaxOracleErr
// when p implements FallibleOracle, else MaxOracle with a check that the
// score is finite. The returned error is an *OracleError.
func OracleFunc(p Problem) func(i int, w []float64, dst []int32) ([]int32, float64, error) {
	if f, ok := p.(FallibleOracle); ok {
		return func(i int, w []float64, dst []int32) ([]int32, float64, error) {
			y, h, err := f.MaxOracleErr(i, w, dst)
			if err == nil && (math.IsNaN(h) || math.IsInf(h, 0)) {
				err = ErrNaNScore
			}
			if err != nil {
				return y, h, &OracleError{Example: i, Err: err}
			}
			return y, h, nil
		}
	}
	return func(i int, w []float64, dst []int32) ([]int32, float64, error) {
		y, h := p.MaxOracle(i, w, dst)
		if math.IsNaN(h) || math.IsInf(h, 0) {
			return y, h, &OracleError{Example: i, Err: ErrNaNScore}
		}
		return y, h, nil
	}
}

// ExactProblem returns the problem whose oracle certifies duality gaps: p
// itself unless p is Approximate, then p.Exact() (nil when there is none).
func ExactProblem(p Problem) Problem {
	if a, ok := p.(Approximate); ok {
		return a.Exact()
	}
	return p
}

// Metric is one named task metric, e.g. pixel accuracy or chunk F1.
type Metric struct {
	Name  string
	Value float64
}

// Evaluator is implemented by problems (typically test sets) with task
// metrics beyond the mean task loss: pixel accuracy and foreground IoU for
// segmentation, chunk-level F1 for chunking, Hamming loss and example F1 for
// multi-label classification. Tools print them next to the loss.
type Evaluator interface {
	// Metrics returns the task metrics of the predictions pred[i] of every
	// example i (len(pred) == Len()), in a fixed order.
	Metrics(pred [][]int32) []Metric
}
