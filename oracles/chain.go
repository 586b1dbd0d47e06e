package oracles

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/inference/chain"
)

// Sequence is one example of a chain model: a feature vector for every
// position and the ground-truth label of every position.
type Sequence struct {
	Features []SparseVec // one per position, indices in [0, numFeatures)
	Labels   []int32     // one per position, values in [0, numLabels) or NoClass
}

// Chain is the linear-chain model of the OCR and CoNLL experiments
// (Osokin et al. 2016, App. I.1 and I.2; Lacoste-Julien et al. 2013, Sec. 6).
//
// The joint feature map phi(x, y) of a sequence with T positions holds
//
//   - emission features: F x K, entry (f, k) = sum_t x_t[f] [y_t = k];
//   - transition features: K x K, entry (k, l) = #{t : y_t = k, y_{t+1} = l};
//   - bias features: 3 x K, the model bias #{t : y_t = k}, and the indicators
//     [y_1 = k] (first position) and [y_T = k] (last position).
//
// so d = F*K + K*K + 3*K (4,082 for OCR: F = 128 pixels, K = 26 letters;
// 1,656,908 for CoNLL-2000 as datasets.LoadConll builds it: F = 75,289
// attributes, K = 22 tags).
// Coordinates are laid out as emission f*K+k, then transition F*K + k*K + l,
// then bias F*K + K*K + {k, K+k, 2K+k}; see EmissionIndex and friends.
//
// The loss is the Hamming distance normalized by the length,
// L_i(y) = (1/T) sum_t [y_t != y_{i,t}]; the max oracle is the Viterbi
// algorithm (chain.Viterbi, package inference/chain) on the loss-augmented
// scores and Predict is plain Viterbi. Both
// are allocation-free in steady state.
//
// A position may have the ground truth NoClass: a test token whose tag the
// training data does not have (datasets.NewChunking). Every label is wrong
// there (it counts in the loss whatever is predicted), and phi(x_i, y_i)
// leaves out that position's emission and bias features and the
// transitions into and out of it, as if its true label scored 0 (the rule
// of Multiclass for an example of NoClass). Such a problem is for
// evaluation (Predict, Loss, oracles.MeanLoss), like a Multiclass one with
// examples of NoClass.
type Chain struct {
	numLabels   int
	numFeatures int

	seqPtr  []int32 // positions of example i: seqPtr[i] .. seqPtr[i+1]
	labels  []int32 // ground truth, flat over positions
	featPtr []int32 // features of position p: featPtr[p] .. featPtr[p+1]
	featIdx []int32
	featVal []float64 // nil when every value is 1 (binary features)
	ones    []float64 // read-only 1s standing for featVal when it is nil
	maxLen  int

	directPsi bool // Psi's scratch is a direct table of d slots (d <= directScratchMax)

	work sync.Pool // *chainWork
}

type chainWork struct {
	theta []float64    // T*K unary scores <w, features> (no loss)
	delta []float64    // T*K max-sum messages of Viterbi
	acc   *Accumulator // built on first use by Psi
}

// NewChain builds a chain problem with numLabels labels and numFeatures
// features per position. It returns an error for empty sequences,
// mismatched lengths, labels (but NoClass) or feature indices out of range,
// repeated feature indices and non-finite values.
//
// The chain keeps its own copy of the features, without their zero values;
// when every stored value is 1 (binary features, as in OCR and CoNLL) it
// keeps only their indices, 4 bytes per non-zero.
func NewChain(numLabels, numFeatures int, seqs []Sequence) (*Chain, error) {
	if numLabels < 1 {
		return nil, fmt.Errorf("chain: need at least one label, got %d", numLabels)
	}
	if numFeatures < 0 {
		return nil, fmt.Errorf("chain: negative feature count %d", numFeatures)
	}
	// Size the storage first: whether every value is 0 or 1 (then no value
	// is stored), the number of positions and of entries.
	binary, positions, entries := true, 0, 0
	for _, s := range seqs {
		positions += len(s.Labels)
		for _, x := range s.Features {
			entries += len(x.Idx)
			for _, v := range x.Val {
				binary = binary && (v == 0 || v == 1)
			}
		}
	}
	c := &Chain{numLabels: numLabels, numFeatures: numFeatures}
	c.seqPtr = make([]int32, 1, len(seqs)+1)
	c.featPtr = make([]int32, 1, positions+1)
	c.labels = make([]int32, 0, positions)
	c.featIdx = make([]int32, 0, entries)
	if !binary {
		c.featVal = make([]float64, 0, entries)
	}
	seen := make([]bool, numFeatures)
	maxNNZ := 0
	for i, s := range seqs {
		T := len(s.Labels)
		if T == 0 {
			return nil, fmt.Errorf("chain: sequence %d is empty", i)
		}
		if len(s.Features) != T {
			return nil, fmt.Errorf("chain: sequence %d has %d labels but %d feature vectors", i, T, len(s.Features))
		}
		for t, lab := range s.Labels {
			if (lab < 0 || int(lab) >= numLabels) && lab != NoClass {
				return nil, fmt.Errorf("chain: sequence %d position %d: label %d outside [0, %d)", i, t, lab, numLabels)
			}
			x := s.Features[t]
			if len(x.Idx) != len(x.Val) {
				return nil, fmt.Errorf("chain: sequence %d position %d: %d indices but %d values", i, t, len(x.Idx), len(x.Val))
			}
			for k, f := range x.Idx {
				if f < 0 || int(f) >= numFeatures {
					return nil, fmt.Errorf("chain: sequence %d position %d: feature index %d outside [0, %d)", i, t, f, numFeatures)
				}
				if seen[f] {
					return nil, fmt.Errorf("chain: sequence %d position %d: feature index %d repeated", i, t, f)
				}
				v := x.Val[k]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("chain: sequence %d position %d: feature %d is %v", i, t, f, v)
				}
				seen[f] = true
				if v != 0 {
					c.featIdx = append(c.featIdx, f)
					if !binary {
						c.featVal = append(c.featVal, v)
					}
				}
			}
			for _, f := range x.Idx {
				seen[f] = false
			}
			maxNNZ = max(maxNNZ, len(c.featIdx)-int(c.featPtr[len(c.featPtr)-1]))
			c.featPtr = append(c.featPtr, int32(len(c.featIdx)))
			c.labels = append(c.labels, lab)
		}
		c.seqPtr = append(c.seqPtr, int32(len(c.labels)))
		if T > c.maxLen {
			c.maxLen = T
		}
	}
	if binary {
		c.ones = make([]float64, maxNNZ)
		for k := range c.ones {
			c.ones[k] = 1
		}
	}
	c.directPsi = c.Dim() <= directScratchMax
	c.work.New = func() any { return new(chainWork) }
	return c, nil
}

// vals returns the values of the stored features lo..hi.
func (c *Chain) vals(lo, hi int32) []float64 {
	if c.featVal == nil {
		return c.ones[: hi-lo : hi-lo]
	}
	return c.featVal[lo:hi:hi]
}

// Len returns the number of sequences.
func (c *Chain) Len() int { return len(c.seqPtr) - 1 }

// Dim returns F*K + K*K + 3*K.
func (c *Chain) Dim() int {
	K := c.numLabels
	return c.numFeatures*K + K*K + 3*K
}

// NumLabels returns K.
func (c *Chain) NumLabels() int { return c.numLabels }

// NumFeatures returns F, the number of features per position.
func (c *Chain) NumFeatures() int { return c.numFeatures }

// SeqLen returns the number of positions of example i.
func (c *Chain) SeqLen(i int) int { return int(c.seqPtr[i+1] - c.seqPtr[i]) }

// MaxLen returns the length of the longest sequence.
func (c *Chain) MaxLen() int { return c.maxLen }

// Truth returns the ground-truth labels of example i (do not modify).
func (c *Chain) Truth(i int) []int32 { return c.labels[c.seqPtr[i]:c.seqPtr[i+1]:c.seqPtr[i+1]] }

// Features returns the feature vector of position t of example i, sharing
// the model's storage (do not modify).
func (c *Chain) Features(i, t int) SparseVec {
	p := int(c.seqPtr[i]) + t
	lo, hi := c.featPtr[p], c.featPtr[p+1]
	return SparseVec{Idx: c.featIdx[lo:hi:hi], Val: c.vals(lo, hi)}
}

// EmissionIndex returns the coordinate of emission feature (f, k).
func (c *Chain) EmissionIndex(f, k int) int { return f*c.numLabels + k }

// TransitionIndex returns the coordinate of transition feature (k -> l).
func (c *Chain) TransitionIndex(k, l int) int {
	return c.numFeatures*c.numLabels + k*c.numLabels + l
}

// BiasIndex returns the coordinate of a bias feature: kind 0 is the model
// bias, 1 the first-position bias and 2 the last-position bias of label k.
func (c *Chain) BiasIndex(kind, k int) int {
	K := c.numLabels
	return c.numFeatures*K + K*K + kind*K + k
}

// Loss returns the normalized Hamming distance between y and the truth.
func (c *Chain) Loss(i int, y []int32) float64 {
	truth := c.Truth(i)
	if len(y) != len(truth) {
		return math.Inf(1)
	}
	mis := 0
	for t, v := range truth {
		if y[t] != v {
			mis++
		}
	}
	return float64(mis) / float64(len(truth))
}

// Psi sets dst to phi(x_i, y_i) - phi(x_i, y). Its cost is linear in the
// number of non-zero features of the positions where y differs from the
// truth, with no O(d) scratch when d is large (see Accumulator).
func (c *Chain) Psi(i int, y []int32, dst *SparseVec) {
	ws := c.work.Get().(*chainWork)
	defer c.work.Put(ws)
	c.psi(ws, i, y, dst)
}

// psi is Psi with the scratch ws.
func (c *Chain) psi(ws *chainWork, i int, y []int32, dst *SparseVec) {
	// The feature space as rows of K labels: F emission rows, K transition
	// rows (one per previous label), then the model, first and last bias rows.
	K, F := int32(c.numLabels), int32(c.numFeatures)
	if ws.acc == nil {
		ws.acc = newPsiAccumulator(int(F+K+3), int(K), c.directPsi)
	}
	acc := ws.acc
	bias := F + K // then the first and last bias rows
	truth := c.Truth(i)
	T := len(truth)
	base := int(c.seqPtr[i])
	if !acc.direct {
		entries := 2*T + 2
		for t, a := range truth {
			if a != y[t] {
				entries += 2 * int(c.featPtr[base+t+1]-c.featPtr[base+t]+1)
			}
		}
		acc.reserve(entries)
	}
	for t := 0; t < T; t++ {
		a, b := truth[t], y[t]
		if a == b {
			continue
		}
		p := base + t
		lo, hi := c.featPtr[p], c.featPtr[p+1]
		if a == NoClass { // no true label: only y's features
			acc.column(c.featIdx[lo:hi], c.vals(lo, hi), b)
			acc.add(bias*K+b, -1)
			continue
		}
		acc.pairs(c.featIdx[lo:hi], c.vals(lo, hi), a, b)
		acc.add(bias*K+a, 1)
		acc.add(bias*K+b, -1)
	}
	for t := 0; t+1 < T; t++ {
		if truth[t] != y[t] || truth[t+1] != y[t+1] {
			if truth[t] != NoClass && truth[t+1] != NoClass {
				acc.add((F+truth[t])*K+truth[t+1], 1)
			}
			acc.add((F+y[t])*K+y[t+1], -1)
		}
	}
	if truth[0] != y[0] {
		if truth[0] != NoClass {
			acc.add((bias+1)*K+truth[0], 1)
		}
		acc.add((bias+1)*K+y[0], -1)
	}
	if truth[T-1] != y[T-1] {
		if truth[T-1] != NoClass {
			acc.add((bias+2)*K+truth[T-1], 1)
		}
		acc.add((bias+2)*K+y[T-1], -1)
	}
	acc.flush(dst)
}

// MaxOracle runs loss-augmented Viterbi: argmax_y L_i(y) + <w, phi(x_i, y)>.
func (c *Chain) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	ws := c.work.Get().(*chainWork)
	defer c.work.Put(ws)
	T := c.SeqLen(i)
	c.unaries(ws, i, w)
	truth := c.Truth(i)
	K := c.numLabels
	inv := 1 / float64(T)
	truthScore := c.score(ws.theta, truth, w)
	theta := ws.theta[:T*K]
	for t := 0; t < T; t++ {
		row := theta[t*K : t*K+K]
		for k := range row {
			row[k] += inv
		}
		if truth[t] != NoClass { // else every label is wrong there
			row[truth[t]] -= inv
		}
	}
	y, best := c.viterbi(ws, T, w, dst)
	return y, best - truthScore
}

// Predict runs Viterbi: argmax_y <w, phi(x_i, y)>.
func (c *Chain) Predict(i int, w []float64, dst []int32) []int32 {
	ws := c.work.Get().(*chainWork)
	defer c.work.Put(ws)
	c.unaries(ws, i, w)
	y, _ := c.viterbi(ws, c.SeqLen(i), w, dst)
	return y
}

// Score returns <w, phi(x_i, y)>; positions of y that are NoClass (the
// ground truth of a test token of no class, see Chain) and the transitions
// into and out of them score 0.
func (c *Chain) Score(i int, y []int32, w []float64) float64 {
	ws := c.work.Get().(*chainWork)
	defer c.work.Put(ws)
	c.unaries(ws, i, w)
	return c.score(ws.theta, y, w)
}

// Scores writes into unary (reused when it has room) the score
// <w, phi> of every position t and label k of example i without the
// transitions, unary[t*K+k] (emission, model, first- and last-position
// biases: Viterbi's unary table without the loss), and returns it with the
// transition table of w (K*K, a view of w, entry k*K+l for k -> l). Online
// exponentiated gradient builds its part-wise gradients from them.
func (c *Chain) Scores(i int, w, unary []float64) (u, trans []float64) {
	ws := c.work.Get().(*chainWork)
	defer c.work.Put(ws)
	c.unaries(ws, i, w)
	K := c.numLabels
	u = append(unary[:0], ws.theta[:c.SeqLen(i)*K]...)
	return u, w[c.numFeatures*K : c.numFeatures*K+K*K]
}

// unaries fills ws.theta[t*K+k] with the emission score <w_k, x_t> plus the
// model, first and last biases.
func (c *Chain) unaries(ws *chainWork, i int, w []float64) {
	T := c.SeqLen(i)
	K := c.numLabels
	if cap(ws.theta) < T*K {
		ws.theta = make([]float64, c.maxLen*K)
		ws.delta = make([]float64, c.maxLen*K)
	}
	theta := ws.theta[:T*K]
	biasOff := c.numFeatures*K + K*K
	model := w[biasOff : biasOff+K]
	base := int(c.seqPtr[i])
	ptr := c.featPtr[base : base+T+1]
	for t := 0; t < T; t++ {
		row := theta[t*K : t*K+K]
		copy(row, model)
		idx := c.featIdx[ptr[t]:ptr[t+1]]
		val := c.vals(ptr[t], ptr[t+1])
		val = val[:len(idx)]
		for k, f := range idx {
			off := int(f) * K
			axpy(row, val[k], w[off:off+K])
		}
	}
	first := w[biasOff+K : biasOff+2*K]
	last := w[biasOff+2*K : biasOff+3*K]
	row0 := theta[:len(first)]
	for k, b := range first {
		row0[k] += b
	}
	rowT := theta[(T-1)*K:]
	rowT = rowT[:len(last)]
	for k, b := range last {
		rowT[k] += b
	}
}

// axpy performs dst += a*x for len(dst) == len(x) with gonum's assembly
// kernels.
func axpy(dst []float64, a float64, x []float64) {
	if a == 1 {
		floats.Add(dst, x)
		return
	}
	floats.AddScaled(dst, a, x)
}

// viterbi maximizes the chain score of the first T positions of the unary
// table ws.theta under the transition weights of w (chain.Viterbi).
func (c *Chain) viterbi(ws *chainWork, T int, w []float64, dst []int32) ([]int32, float64) {
	K := c.numLabels
	trans := w[c.numFeatures*K : c.numFeatures*K+K*K]
	return chain.Viterbi(ws.theta[:T*K], trans, K, ws.delta, dst)
}

// score returns the chain score of y given the unary table theta, leaving
// out the positions of NoClass and the transitions that touch them.
func (c *Chain) score(theta []float64, y []int32, w []float64) float64 {
	K := c.numLabels
	trans := w[c.numFeatures*K : c.numFeatures*K+K*K]
	var s float64
	for t, k := range y {
		if k == NoClass {
			continue
		}
		s += theta[t*K+int(k)]
		if t > 0 && y[t-1] != NoClass {
			s += trans[int(y[t-1])*K+int(k)]
		}
	}
	return s
}

// ForEachLabeling enumerates the K^T labelings of example i.
func (c *Chain) ForEachLabeling(i int, fn func(y []int32)) {
	enumerate(c.SeqLen(i), c.numLabels, fn)
}

// enumerate calls fn with every vector of length T over [0, K).
func enumerate(T, K int, fn func(y []int32)) {
	y := make([]int32, T)
	for {
		fn(y)
		t := 0
		for t < T {
			y[t]++
			if int(y[t]) < K {
				break
			}
			y[t] = 0
			t++
		}
		if t == T {
			return
		}
	}
}
