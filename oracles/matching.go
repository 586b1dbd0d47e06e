package oracles

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/fwstruct/fwstruct/inference/matching"
)

// MatchingExample is one example of a Matching problem: a bipartite graph
// between Rows row items (the English words of a sentence pair) and Cols
// column items (its French words) in which every pair (j, k) is a
// candidate edge with a sparse feature vector, and the gold edges.
//
// The features of the pair (j, k), e = j*Cols + k, are the entries
// Index[Start[e]:Start[e+1]] (distinct, in [0, dim)) with values
// Value[Start[e]:Start[e+1]]; len(Start) = Rows*Cols + 1, Start[0] = 0.
// Storing them in three flat slices keeps a corpus of millions of edges
// compact (float32 values: about 8 bytes an entry).
type MatchingExample struct {
	Rows, Cols int
	Start      []int32
	Index      []int32
	Value      []float32
	// Sure lists the gold edges (j, k) the loss counts (the sure links of
	// a word alignment). They need not form a matching: a word may have
	// several sure links (see Matching for the target).
	Sure [][2]int32
	// Possible lists the edges that are acceptable without being sure
	// (the P links of a word alignment); the possible set of the
	// alignment error rate is Sure and Possible together. The loss
	// ignores them.
	Possible [][2]int32
}

// MatchingCosts are the costs of the asymmetric Hamming loss of a
// Matching problem.
type MatchingCosts struct {
	// Miss is the cost of a sure edge left out (a recall error); zero
	// means 3, the value of Taskar et al. (2005) and Lacoste-Julien et al.
	// (2013, App. F).
	Miss float64
	// Extra is the cost of an edge taken that is not sure (a precision
	// error); zero means 1.
	Extra float64
}

func (c MatchingCosts) withDefaults() MatchingCosts {
	if c.Miss == 0 {
		c.Miss = 3
	}
	if c.Extra == 0 {
		c.Extra = 1
	}
	return c
}

// Matching is the word-alignment model of Taskar, Lacoste-Julien and Klein
// (2005), "A discriminative matching approach to word alignment", the
// matching task of Lacoste-Julien et al. (2013, Fig. 1f and 5): a labeling
// y is a matching between the rows (English words j) and the columns
// (French words k) of an example, y_jk = 1 when j is aligned to k, each
// word aligned at most once, and it is written as a []int32 of length
// Rows: y[j] is the column aligned to row j, or -1. Its score is
//
//	<w, phi(x, y)> = sum_{jk} y_jk <w, f_jk>,
//
// the sum of the scores of its edges, f_jk the features of the edge (see
// MatchingExample). Prediction is a maximum-weight bipartite matching in
// which words may stay unaligned (inference/matching, the Hungarian
// method).
//
// The loss is the asymmetric Hamming loss of the paper with the sure
// edges S as gold: a sure edge left out costs Miss (3), an edge taken
// outside S costs Extra (1). It is linear in y, so loss-augmented decoding
// is again a maximum-weight matching, with edge weights <w, f_jk> - Miss
// on S and <w, f_jk> + Extra elsewhere.
//
// S need not be a matching (on the Hansards gold data 80 English words
// have two or more sure links), while every labeling is one. The target
// y_i (Truth) is therefore a maximum matching inside S (among those, the
// one closest to the diagonal, see NewMatching), phi(x_i, y_i) its score,
// and the loss is shifted by the constant Miss (|S| - |y_i|) that no
// matching can avoid:
//
//	L_i(y) = Miss |S \ y| + Extra |y \ S| - Miss (|S| - |y_i|),
//
// which is >= 0 for every matching and 0 at y_i, as the Problem contract
// asks; it differs from the paper's loss by a constant per example, which
// changes neither the oracle's maximizer nor the gradients. When S is a
// matching, y_i = S and the loss is the paper's.
//
// MaxOracle and Predict are exact, allocation-free in steady state and
// safe for concurrent use. Matching implements Labelings (every partial
// matching; use it on small examples only) for the brute-force checks of
// oraclestest, and Evaluator with the alignment error rate, precision and
// recall of Och and Ney (2003) as the HLT-NAACL 2003 scorer
// wa_eval_align.pl computes them (see AlignmentCounts).
type Matching struct {
	dim      int
	costs    MatchingCosts
	examples []matchingExample
	maxEdges int
	work     sync.Pool // *matchingWork
}

// matchingExample is a validated example with its target and edge labels.
type matchingExample struct {
	MatchingExample
	truth []int32
	// gold[e] is edgeSure, edgePossible (possible, not sure) or 0.
	gold []uint8
	// offset is the constant Miss (|S| - |y_i|) subtracted from the loss.
	offset float64
}

const (
	edgeSure     = 1
	edgePossible = 2
)

type matchingWork struct {
	scores []float64
	solver matching.Solver
	acc    Accumulator
}

// NewMatching builds a matching problem of dimension dim from examples,
// keeping their slices without copying them (the caller must not modify
// them afterwards), with the loss costs (zero fields: the paper's 3 and
// 1). The target of an example is the maximum matching of its sure edges
// that stays closest to the diagonal: the maximum-weight matching with
// weight 1 - 0.001 |(j+1/2)/Rows - (k+1/2)/Cols| on every sure edge.
// Errors name the example and the offending entry: sizes that do not
// agree, feature indices outside [0, dim) or repeated within an edge,
// non-finite values, edges outside the graph or listed twice.
func NewMatching(dim int, examples []MatchingExample, costs MatchingCosts) (*Matching, error) {
	if dim < 1 {
		return nil, fmt.Errorf("matching: dimension %d, want >= 1", dim)
	}
	costs = costs.withDefaults()
	if !(costs.Miss > 0) || !(costs.Extra > 0) || math.IsInf(costs.Miss, 1) || math.IsInf(costs.Extra, 1) {
		return nil, fmt.Errorf("matching: loss costs miss %v and extra %v, want positive and finite", costs.Miss, costs.Extra)
	}
	m := &Matching{dim: dim, costs: costs, examples: make([]matchingExample, len(examples))}
	var solver matching.Solver
	seen := make([]bool, dim)
	for i := range examples {
		ex, err := m.validate(examples[i], seen, &solver)
		if err != nil {
			return nil, fmt.Errorf("matching: example %d: %w", i, err)
		}
		m.examples[i] = ex
		m.maxEdges = max(m.maxEdges, ex.Rows*ex.Cols)
	}
	m.work.New = func() any {
		w := &matchingWork{scores: make([]float64, m.maxEdges)}
		w.acc.Ensure(m.dim)
		return w
	}
	return m, nil
}

// validate checks one example and computes its target; seen is a zeroed
// scratch of length dim, left zeroed.
func (m *Matching) validate(x MatchingExample, seen []bool, solver *matching.Solver) (matchingExample, error) {
	if x.Rows < 0 || x.Cols < 0 {
		return matchingExample{}, fmt.Errorf("%d rows and %d columns", x.Rows, x.Cols)
	}
	E := x.Rows * x.Cols
	if len(x.Start) != E+1 || x.Start[0] != 0 {
		return matchingExample{}, fmt.Errorf("%d feature offsets for %d x %d edges, want %d starting at 0", len(x.Start), x.Rows, x.Cols, E+1)
	}
	if len(x.Index) != len(x.Value) || int(x.Start[E]) != len(x.Index) {
		return matchingExample{}, fmt.Errorf("%d feature indices and %d values, the offsets end at %d", len(x.Index), len(x.Value), x.Start[E])
	}
	for e := 0; e < E; e++ {
		a, b := x.Start[e], x.Start[e+1]
		if b < a {
			return matchingExample{}, fmt.Errorf("edge (%d, %d): feature offsets decrease (%d then %d)", e/x.Cols, e%x.Cols, a, b)
		}
		for t := a; t < b; t++ {
			f, v := x.Index[t], x.Value[t]
			switch {
			case f < 0 || int(f) >= m.dim:
				clear(seen)
				return matchingExample{}, fmt.Errorf("edge (%d, %d): feature index %d outside [0, %d)", e/x.Cols, e%x.Cols, f, m.dim)
			case seen[f]:
				clear(seen)
				return matchingExample{}, fmt.Errorf("edge (%d, %d): feature index %d listed twice", e/x.Cols, e%x.Cols, f)
			case math.IsNaN(float64(v)) || math.IsInf(float64(v), 0):
				clear(seen)
				return matchingExample{}, fmt.Errorf("edge (%d, %d): feature %d is %v", e/x.Cols, e%x.Cols, f, v)
			}
			seen[f] = true
		}
		for t := a; t < b; t++ {
			seen[x.Index[t]] = false
		}
	}
	ex := matchingExample{MatchingExample: x, gold: make([]uint8, E)}
	for _, set := range []struct {
		name  string
		edges [][2]int32
		label uint8
	}{{"sure", x.Sure, edgeSure}, {"possible", x.Possible, edgePossible}} {
		for _, jk := range set.edges {
			j, k := jk[0], jk[1]
			if j < 0 || k < 0 || int(j) >= x.Rows || int(k) >= x.Cols {
				return matchingExample{}, fmt.Errorf("%s edge (%d, %d) outside the %d x %d graph", set.name, j, k, x.Rows, x.Cols)
			}
			e := int(j)*x.Cols + int(k)
			if ex.gold[e] != 0 {
				return matchingExample{}, fmt.Errorf("%s edge (%d, %d) listed twice (as sure or possible)", set.name, j, k)
			}
			ex.gold[e] = set.label
		}
	}
	// The target: a maximum matching inside S, closest to the diagonal.
	w := make([]float64, E)
	for e := range w {
		w[e] = math.Inf(-1)
		if ex.gold[e] == edgeSure {
			j, k := e/x.Cols, e%x.Cols
			w[e] = 1 - 0.001*math.Abs((float64(j)+0.5)/float64(x.Rows)-(float64(k)+0.5)/float64(x.Cols))
		}
	}
	truth, _, err := solver.MaxWeight(x.Rows, x.Cols, w, nil)
	if err != nil {
		return matchingExample{}, err
	}
	ex.truth = truth
	size := 0
	for _, k := range truth {
		if k >= 0 {
			size++
		}
	}
	ex.offset = m.costs.Miss * float64(len(x.Sure)-size)
	return ex, nil
}

// Len returns the number of examples.
func (m *Matching) Len() int { return len(m.examples) }

// Dim returns the number of features of an edge.
func (m *Matching) Dim() int { return m.dim }

// Example returns example i as given to NewMatching (do not modify).
func (m *Matching) Example(i int) MatchingExample { return m.examples[i].MatchingExample }

// Truth returns the target of example i, a maximum matching inside its
// sure edges (do not modify).
func (m *Matching) Truth(i int) []int32 { return m.examples[i].truth }

// valid reports whether y is a matching of example ex.
func (ex *matchingExample) valid(y []int32) bool {
	if len(y) != ex.Rows {
		return false
	}
	var used [256]uint64 // a bit per column up to 16,384 columns, without allocating; quadratic beyond
	if ex.Cols > len(used)*64 {
		for j, k := range y {
			if k < -1 || int(k) >= ex.Cols {
				return false
			}
			for _, k2 := range y[:j] {
				if k >= 0 && k2 == k {
					return false
				}
			}
		}
		return true
	}
	for _, k := range y {
		if k == -1 {
			continue
		}
		if k < 0 || int(k) >= ex.Cols || used[k>>6]&(1<<(k&63)) != 0 {
			return false
		}
		used[k>>6] |= 1 << (k & 63)
	}
	return true
}

// Loss returns L_i(y) = Miss |S \ y| + Extra |y \ S| - Miss (|S| - |y_i|)
// (see Matching); +Inf when y is not a matching of example i.
func (m *Matching) Loss(i int, y []int32) float64 {
	ex := &m.examples[i]
	if !ex.valid(y) {
		return math.Inf(1)
	}
	hits, extra := 0, 0
	for j, k := range y {
		if k < 0 {
			continue
		}
		if ex.gold[j*ex.Cols+int(k)] == edgeSure {
			hits++
		} else {
			extra++
		}
	}
	return m.costs.Miss*float64(len(ex.Sure)-hits) + m.costs.Extra*float64(extra) - ex.offset
}

// Psi sets dst to phi(x_i, y_i) - phi(x_i, y): the features of the target's
// edges minus those of y's, edges in both cancelling. y must be a
// matching of example i.
func (m *Matching) Psi(i int, y []int32, dst *SparseVec) {
	ws := m.work.Get().(*matchingWork)
	defer m.work.Put(ws)
	ex := &m.examples[i]
	for j, t := range ex.truth {
		k := y[j]
		if k == t {
			continue
		}
		if t >= 0 {
			ex.addEdge(&ws.acc, j*ex.Cols+int(t), 1)
		}
		if k >= 0 {
			ex.addEdge(&ws.acc, j*ex.Cols+int(k), -1)
		}
	}
	ws.acc.Flush(dst)
}

// addEdge adds a times the features of edge e to acc.
func (ex *matchingExample) addEdge(acc *Accumulator, e int, a float64) {
	for t := ex.Start[e]; t < ex.Start[e+1]; t++ {
		acc.Add(ex.Index[t], a*float64(ex.Value[t]))
	}
}

// scores fills ws.scores[:Rows*Cols] with the edge scores <w, f_jk>.
func (m *Matching) scores(ws *matchingWork, ex *matchingExample, w []float64) []float64 {
	E := ex.Rows * ex.Cols
	s := ws.scores[:E]
	start, index, value := ex.Start, ex.Index, ex.Value
	for e := range s {
		var sum float64
		for t := start[e]; t < start[e+1]; t++ {
			sum += w[index[t]] * float64(value[t])
		}
		s[e] = sum
	}
	return s
}

// errNonFinite is returned by the oracles on weights giving non-finite
// scores.
var errNonFinite = errors.New("matching: non-finite edge scores (are the weights finite?)")

// MaxOracleErr solves loss-augmented decoding by a maximum-weight
// matching. It fails only when w gives a non-finite edge score.
func (m *Matching) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	ws := m.work.Get().(*matchingWork)
	defer m.work.Put(ws)
	ex := &m.examples[i]
	s := m.scores(ws, ex, w)
	// The target's score, before the loss terms are added.
	var truthScore float64
	size := 0
	for j, k := range ex.truth {
		if k >= 0 {
			truthScore += s[j*ex.Cols+int(k)]
			size++
		}
	}
	for e, g := range ex.gold {
		if g == edgeSure {
			s[e] -= m.costs.Miss
		} else {
			s[e] += m.costs.Extra
		}
	}
	y, total, err := ws.solver.MaxWeight(ex.Rows, ex.Cols, s, dst)
	if err != nil || math.IsNaN(truthScore) || math.IsInf(truthScore, 0) {
		return append(dst[:0], ex.truth...), math.NaN(), errNonFinite
	}
	// H = L(y) + <w, phi(y)> - <w, phi(y_i)> with
	// L(y) = Miss |y_i| + sum_{e in y} (Extra or -Miss).
	return y, m.costs.Miss*float64(size) + total - truthScore, nil
}

// MaxOracle is MaxOracleErr without the error: on non-finite weights it
// returns the target with h = NaN, which solvers reject (see OracleFunc).
func (m *Matching) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h, _ := m.MaxOracleErr(i, w, dst)
	return y, h
}

// Predict returns the maximum-weight matching of the edge scores
// <w, f_jk>: the edges of positive score that form the best matching. On
// non-finite weights it returns the empty matching.
func (m *Matching) Predict(i int, w []float64, dst []int32) []int32 {
	ws := m.work.Get().(*matchingWork)
	defer m.work.Put(ws)
	ex := &m.examples[i]
	s := m.scores(ws, ex, w)
	y, _, err := ws.solver.MaxWeight(ex.Rows, ex.Cols, s, dst)
	if err != nil {
		if cap(dst) < ex.Rows {
			dst = make([]int32, ex.Rows)
		}
		y = dst[:ex.Rows]
		for j := range y {
			y[j] = -1
		}
	}
	return y
}

// ForEachLabeling calls fn with every matching of example i (partial
// matchings included): sum_k C(Rows, k) C(Cols, k) k! of them, 209 for
// 4 x 4 and 13,327 for 6 x 6. For tests on small examples.
func (m *Matching) ForEachLabeling(i int, fn func(y []int32)) {
	ex := &m.examples[i]
	y := make([]int32, ex.Rows)
	used := make([]bool, ex.Cols)
	var rec func(j int)
	rec = func(j int) {
		if j == ex.Rows {
			fn(y)
			return
		}
		y[j] = -1
		rec(j + 1)
		for k := range used {
			if !used[k] {
				used[k] = true
				y[j] = int32(k)
				rec(j + 1)
				used[k] = false
			}
		}
		y[j] = -1
	}
	rec(0)
}

var (
	_ Problem        = (*Matching)(nil)
	_ Labelings      = (*Matching)(nil)
	_ FallibleOracle = (*Matching)(nil)
	_ Evaluator      = (*Matching)(nil)
)
