package oracles

import (
	"fmt"
	"math"
)

// Multiclass is the Crammer-Singer multiclass SVM as a structural SVM: the
// labeling is a single class y in [0, K), phi(x, y) places x in the block of
// class y, and the loss is 0-1.
//
// # Weight layout
//
// The weight vector has d = F*K coordinates, feature-major: the weight of
// feature f for class k is w[f*K + k] (WeightIndex), so the K weights of one
// feature are contiguous and the weight vector w_k of class k is the stride-K
// slice w[k], w[K+k], w[2K+k], .... The score of class k is
// <w_k, x> = sum_f x_f w[WeightIndex(f, k)].
//
// Add a constant feature to the inputs for a per-class bias (the loaders of
// package datasets do so by default); its weights are regularized like the
// others, as liblinear's -B 1 does.
//
// # lambda and liblinear's / sklearn's C
//
// fwstruct minimizes lambda/2 |w|^2 + 1/n sum_i max_y (L_i(y) - <w, psi_i(y)>)
// with L_i(y) = [y != y_i]. Divided by lambda this is liblinear's
// Crammer-Singer objective (-s 4, also sklearn's
// LinearSVC(multi_class="crammer_singer")),
//
//	1/2 sum_k |w_k|^2 + C sum_i max_k ([k != y_i] + <w_k, x_i> - <w_{y_i}, x_i>),
//
// with
//
//	C = 1/(lambda n),  lambda = 1/(C n)
//
// for n training examples: both have the same minimizer w, and fwstruct's
// primal value and duality gap are lambda times liblinear's. For example
// lambda = 0.01 on the 7,291 USPS training digits is C = 0.0137. sklearn's
// default fit_intercept=True (intercept_scaling=1) corresponds to the bias
// feature; liblinear's default (no -B) to none.
type Multiclass struct {
	numClasses  int
	numFeatures int
	x           []SparseVec
	y           []int32
}

// NoClass is the label of an example whose label is none of the problem's
// classes: a test example whose label the training set does not have
// (datasets.NewMulticlassData), or a position of a Chain whose tag the
// training set does not have (datasets.NewChunking). Every prediction is
// wrong on it (a Multiclass example's loss is 1 for every class; a chain
// position counts as a mistake in the Hamming loss whatever its label) and
// its psi has only the predicted label's part, as if its true label scored
// 0. A problem with such examples is for evaluation (Predict, Loss,
// oracles.MeanLoss) only: the ground truth is no labeling the max oracle
// can return, and its max oracle can score below the ground truth's 0. The
// readers of package datasets give NoClass to test items only.
const NoClass int32 = -1

// NewMulticlass builds a multiclass problem. It returns an error for labels
// out of range (but NoClass), feature indices out of range or repeated, and
// non-finite values.
func NewMulticlass(numClasses, numFeatures int, x []SparseVec, y []int32) (*Multiclass, error) {
	if numClasses < 1 {
		return nil, fmt.Errorf("multiclass: need at least one class, got %d", numClasses)
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("multiclass: %d inputs but %d labels", len(x), len(y))
	}
	seen := make([]bool, numFeatures)
	m := &Multiclass{numClasses: numClasses, numFeatures: numFeatures, y: make([]int32, len(y)), x: make([]SparseVec, len(x))}
	for i := range x {
		if (y[i] < 0 || int(y[i]) >= numClasses) && y[i] != NoClass {
			return nil, fmt.Errorf("multiclass: example %d: label %d outside [0, %d)", i, y[i], numClasses)
		}
		if len(x[i].Idx) != len(x[i].Val) {
			return nil, fmt.Errorf("multiclass: example %d: %d indices but %d values", i, len(x[i].Idx), len(x[i].Val))
		}
		for k, f := range x[i].Idx {
			if f < 0 || int(f) >= numFeatures {
				return nil, fmt.Errorf("multiclass: example %d: feature index %d outside [0, %d)", i, f, numFeatures)
			}
			if seen[f] {
				return nil, fmt.Errorf("multiclass: example %d: feature index %d repeated", i, f)
			}
			if v := x[i].Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("multiclass: example %d: feature %d is %v", i, f, v)
			}
			seen[f] = true
		}
		for _, f := range x[i].Idx {
			seen[f] = false
		}
		m.x[i] = x[i].Clone()
		m.y[i] = y[i]
	}
	return m, nil
}

// Len returns the number of examples.
func (m *Multiclass) Len() int { return len(m.y) }

// Dim returns F*K.
func (m *Multiclass) Dim() int { return m.numFeatures * m.numClasses }

// NumClasses returns K.
func (m *Multiclass) NumClasses() int { return m.numClasses }

// NumFeatures returns F.
func (m *Multiclass) NumFeatures() int { return m.numFeatures }

// WeightIndex returns the coordinate of the weight of feature f for class k,
// f*K + k (see the weight layout of Multiclass).
func (m *Multiclass) WeightIndex(f, k int) int { return f*m.numClasses + k }

// Input returns the feature vector of example i (do not modify).
func (m *Multiclass) Input(i int) SparseVec { return m.x[i] }

// Truth returns the one-element labeling {y_i}.
func (m *Multiclass) Truth(i int) []int32 { return m.y[i : i+1 : i+1] }

// Loss returns the 0-1 loss.
func (m *Multiclass) Loss(i int, y []int32) float64 {
	if len(y) != 1 || y[0] != m.y[i] {
		return 1
	}
	return 0
}

// Psi places x_i in the block of the true class and -x_i in the block of y
// (only the latter for an example of NoClass).
func (m *Multiclass) Psi(i int, y []int32, dst *SparseVec) {
	dst.Reset()
	a, b := m.y[i], y[0]
	if a == b {
		return
	}
	K := int32(m.numClasses)
	x := &m.x[i]
	for k, f := range x.Idx { // f*K + class is WeightIndex
		if a != NoClass {
			dst.Append(f*K+a, x.Val[k])
		}
		dst.Append(f*K+b, -x.Val[k])
	}
}

// MaxOracle returns argmax_y [y != y_i] + <w_y, x_i>.
func (m *Multiclass) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	return m.decode(i, w, dst, 1)
}

// Predict returns argmax_y <w_y, x_i>.
func (m *Multiclass) Predict(i int, w []float64, dst []int32) []int32 {
	y, _ := m.decode(i, w, dst, 0)
	return y
}

// decode maximizes aug*[y != y_i] + <w_y, x_i> over y; it returns the
// maximizer and the maximum minus the score of the true class.
func (m *Multiclass) decode(i int, w []float64, dst []int32, aug float64) ([]int32, float64) {
	K := m.numClasses
	x := &m.x[i]
	truth := int(m.y[i])
	best, arg := math.Inf(-1), 0
	var truthScore float64
	for k := 0; k < K; k++ {
		var s float64
		for j, f := range x.Idx {
			s += x.Val[j] * w[int(f)*K+k]
		}
		if k == truth {
			truthScore = s
		} else {
			s += aug
		}
		if s > best {
			best, arg = s, k
		}
	}
	if cap(dst) < 1 {
		dst = make([]int32, 1)
	}
	dst = dst[:1]
	dst[0] = int32(arg)
	return dst, best - truthScore
}

// ForEachLabeling enumerates the K classes.
func (m *Multiclass) ForEachLabeling(i int, fn func(y []int32)) {
	enumerate(1, m.numClasses, fn)
}
