package oracles

// Problem is a structural SVM training (or test) set.
//
// Implementations must be safe for concurrent use by several goroutines as
// long as each call gets its own dst buffers: solvers evaluate the duality gap
// in parallel.
//
// Scratch space: an oracle that needs working memory (a score table,
// Viterbi messages, a max-flow graph) must not keep it in the Problem's
// fields, which concurrent calls share, and should not allocate it on every
// call, which solvers make millions of times. Keep it in a sync.Pool field:
// Get a buffer at the start of MaxOracle (or Predict, Psi), grow it when
// needed, and Put it back before returning. Each goroutine then works in a
// buffer of its own, reused across its calls, and steady state allocates
// nothing; Chain does this with its Viterbi tables. See the example of a
// user-written Problem (Example_userProblem), which also runs
// oraclestest.CheckProblem, the checker of the contract below (brute force
// on small instances, concurrent calls) that a new model should pass; its
// Conformance also checks that MaxOracle and Predict do not allocate.
type Problem interface {
	// Len is the number of examples n.
	Len() int
	// Dim is the dimension d of the joint feature map (and of w).
	Dim() int
	// Truth returns the ground-truth labeling y_i. The caller must not modify
	// it.
	Truth(i int) []int32
	// Loss returns L_i(y) = L(y_i, y) >= 0, with L_i(y_i) = 0.
	Loss(i int, y []int32) float64
	// Psi sets dst to psi_i(y) = phi(x_i, y_i) - phi(x_i, y) with distinct
	// indices, reusing the storage of dst.
	Psi(i int, y []int32, dst *SparseVec)
	// MaxOracle solves the loss-augmented decoding problem
	// argmax_y H_i(y; w) (Lacoste-Julien et al. 2013, eq. 2). It writes the
	// maximizer into dst (grown as needed), returns it, and returns
	// H_i(y*; w) >= 0.
	MaxOracle(i int, w []float64, dst []int32) (y []int32, h float64)
	// Predict returns argmax_y <w, phi(x_i, y)>, written into dst.
	Predict(i int, w []float64, dst []int32) []int32
}

// Labelings is implemented by problems whose label space of example i is
// small enough to enumerate; it feeds the Exhaustive oracle used in tests.
type Labelings interface {
	// ForEachLabeling calls fn with every labeling of example i. The slice
	// passed to fn is reused between calls.
	ForEachLabeling(i int, fn func(y []int32))
}

// H returns H_i(y; w) = L_i(y) - <w, psi_i(y)> using Psi and Loss; psi is
// scratch storage.
func H(p Problem, i int, y []int32, w []float64, psi *SparseVec) float64 {
	p.Psi(i, y, psi)
	return p.Loss(i, y) - psi.Dot(w)
}

// MeanLoss returns (1/n) sum_i L_i(Predict(i, w)), the task loss of the
// predictor w on p.
func MeanLoss(p Problem, w []float64) float64 {
	n := p.Len()
	if n == 0 {
		return 0
	}
	var y []int32
	var sum float64
	for i := 0; i < n; i++ {
		y = p.Predict(i, w, y)
		sum += p.Loss(i, y)
	}
	return sum / float64(n)
}

// HashLabeling returns a 64-bit FNV-1a hash of a labeling.
func HashLabeling(y []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range y {
		u := uint32(v)
		for k := 0; k < 4; k++ {
			h ^= uint64(u & 0xff)
			h *= 1099511628211
			u >>= 8
		}
	}
	h ^= uint64(len(y))
	h *= 1099511628211
	return h
}

// SameLabeling reports whether two labelings are equal.
func SameLabeling(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

var (
	_ Problem   = (*Chain)(nil)
	_ Problem   = (*Multiclass)(nil)
	_ Problem   = (*Tabular)(nil)
	_ Labelings = (*Chain)(nil)
	_ Labelings = (*Multiclass)(nil)
	_ Labelings = (*Tabular)(nil)
)
