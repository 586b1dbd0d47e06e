package oracles

import (
	"math"
	"slices"
	"sort"
)

// SparseVec is a sparse vector of a d-dimensional space: the entries Val[k]
// at the coordinates Idx[k].
//
// A SparseVec produced by this package holds distinct indices (no coordinate
// appears twice) but not necessarily in increasing order; call Sort when the
// order matters. Operations against a dense vector (Dot, AddTo) do not care
// about the order.
type SparseVec struct {
	Idx []int32
	Val []float64
}

// Len returns the number of stored entries.
func (s *SparseVec) Len() int { return len(s.Idx) }

// Reset empties s, keeping its storage for reuse.
func (s *SparseVec) Reset() {
	s.Idx = s.Idx[:0]
	s.Val = s.Val[:0]
}

// Append adds the entry (i, v). The caller keeps the indices distinct.
func (s *SparseVec) Append(i int32, v float64) {
	s.Idx = append(s.Idx, i)
	s.Val = append(s.Val, v)
}

// Clone returns a copy of s with its own storage, trimmed to its length.
func (s *SparseVec) Clone() SparseVec {
	return SparseVec{Idx: slices.Clone(s.Idx), Val: slices.Clone(s.Val)}
}

// Dot returns <s, w> for a dense vector w.
func (s *SparseVec) Dot(w []float64) float64 {
	var sum float64
	val := s.Val[:len(s.Idx)]
	for k, i := range s.Idx {
		sum += val[k] * w[i]
	}
	return sum
}

// AddTo performs dst += alpha * s on a dense vector dst.
func (s *SparseVec) AddTo(dst []float64, alpha float64) {
	val := s.Val[:len(s.Idx)]
	for k, i := range s.Idx {
		dst[i] += alpha * val[k]
	}
}

// NormSq returns the squared Euclidean norm of s (indices must be distinct).
func (s *SparseVec) NormSq() float64 {
	var sum float64
	for _, v := range s.Val {
		sum += v * v
	}
	return sum
}

// Sort orders the entries by increasing index.
func (s *SparseVec) Sort() {
	if sort.IsSorted(byIndex{s}) {
		return
	}
	sort.Sort(byIndex{s})
}

// Dense returns s as a dense vector of dimension d.
func (s *SparseVec) Dense(d int) []float64 {
	out := make([]float64, d)
	s.AddTo(out, 1)
	return out
}

// MaxAbsIndex returns the largest stored index, or -1 when s is empty.
func (s *SparseVec) MaxAbsIndex() int32 {
	m := int32(-1)
	for _, i := range s.Idx {
		if i > m {
			m = i
		}
	}
	return m
}

// IsFinite reports whether every stored value is finite.
func (s *SparseVec) IsFinite() bool {
	for _, v := range s.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

type byIndex struct{ s *SparseVec }

func (b byIndex) Len() int           { return len(b.s.Idx) }
func (b byIndex) Less(i, j int) bool { return b.s.Idx[i] < b.s.Idx[j] }
func (b byIndex) Swap(i, j int) {
	b.s.Idx[i], b.s.Idx[j] = b.s.Idx[j], b.s.Idx[i]
	b.s.Val[i], b.s.Val[j] = b.s.Val[j], b.s.Val[i]
}
