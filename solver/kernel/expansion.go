package kernel

import "math"

// supportSet lists the support vectors: the examples j with beta_j != 0,
// i.e. alpha_j off its ground truth. The order of the list is the order of
// every kernel sum, the same with or without the cache.
type supportSet struct {
	list []int32
	pos  []int32 // position in list, -1 when absent
}

func newSupportSet(n int) supportSet {
	s := supportSet{pos: make([]int32, n)}
	for i := range s.pos {
		s.pos[i] = -1
	}
	return s
}

func (s *supportSet) len() int { return len(s.list) }

// set adds or removes example i.
func (s *supportSet) set(i int, in bool) {
	switch p := s.pos[i]; {
	case in && p < 0:
		s.pos[i] = int32(len(s.list))
		s.list = append(s.list, int32(i))
	case !in && p >= 0:
		last := s.list[len(s.list)-1]
		s.list[p] = last
		s.pos[last] = p
		s.list = s.list[:len(s.list)-1]
		s.pos[i] = -1
	}
}

// offTruth reports whether the dual variables a of an example with label y
// differ from e_y (beta != 0).
func offTruth(a []float64, y int32) bool {
	for c, v := range a {
		if (int32(c) == y && v != 1) || (int32(c) != y && v != 0) {
			return true
		}
	}
	return false
}

// expansion is w = A alpha as a kernel expansion over the training inputs:
// dual variables (n*k) and their support vectors.
type expansion struct {
	alpha []float64
	sv    []int32
}

// current returns the expansion of the current iterate (views, no copy).
func (s *Solver) current() expansion { return expansion{alpha: s.alpha, sv: s.sv.list} }

// average returns the expansion of the weighted-average iterate.
func (s *Solver) average() expansion {
	bar := make([]float64, len(s.alpha))
	s.avg.Value(s.alpha, bar)
	e := expansion{alpha: bar}
	for j := 0; j < s.n; j++ {
		if offTruth(bar[j*s.k:(j+1)*s.k], s.in.y[j]) {
			e.sv = append(e.sv, int32(j))
		}
	}
	return e
}

// addTerm adds beta_j(c) kv to dst(c) for every class c.
func addTerm(dst, a []float64, y int32, kv float64) {
	for c, v := range a {
		b := -v
		if int32(c) == y {
			b++
		}
		dst[c] += b * kv
	}
}

// betaOf writes beta(c) = [c = y] - a(c) for every class c into dst: the
// coefficients of an example with dual variables a and label y in the
// kernel expansion of w (before the factor 1/(lambda n)), with the
// arithmetic of addTerm.
func betaOf(dst, a []float64, y int32) {
	for c, v := range a {
		b := -v
		if int32(c) == y {
			b++
		}
		dst[c] = b
	}
}

// betas returns the coefficients beta_j of the support vectors of e, row
// p holding those of e.sv[p].
func (s *Solver) betas(e *expansion) []float64 {
	kk := s.k
	b := make([]float64, len(e.sv)*kk)
	for p, j := range e.sv {
		betaOf(b[p*kk:(p+1)*kk], e.alpha[int(j)*kk:int(j+1)*kk], s.in.y[j])
	}
	return b
}

// expansionScores writes the scores <w, phi(x, c)> = 1/(lambda n) sum_p
// beta_p(c) kv[p] of an input x into dst, from its kernel values kv
// against the support vectors whose coefficients beta holds (betas),
// summed in their order: the scores a step computes (stepScores), to the
// bit.
func (s *Solver) expansionScores(beta, kv, dst []float64) {
	clear(dst)
	kk := len(dst)
	for p, v := range kv {
		b := beta[p*kk : (p+1)*kk]
		for c := range dst {
			dst[c] += b[c] * v
		}
	}
	s.scale(dst)
}

func (s *Solver) scale(dst []float64) {
	sigma := 1 / (s.lambda * float64(s.n))
	for c := range dst {
		dst[c] *= sigma
	}
}

// blockOracle is the max oracle of example i (Crammer-Singer, as
// oracles.Multiclass.MaxOracle: the first class of largest score) from its
// scores: y* = argmax_c H_i(c), H_i(c) = [c != y_i] + s(c) - s(y_i); it also
// returns sum_c alpha_i(c) H_i(c), the dual-weighted score of the block.
func blockOracle(a, scores []float64, y int32) (yStar int, hStar, hBar float64) {
	best := math.Inf(-1)
	for c, v := range scores {
		if int32(c) != y {
			v++
		}
		if v > best {
			best, yStar = v, c
		}
	}
	truth := scores[y]
	for c, v := range scores {
		h := v - truth
		if int32(c) != y {
			h++
		}
		hBar += a[c] * h
	}
	return yStar, best - truth, hBar
}

// predict returns argmax_c scores(c) (the first of largest score).
func predict(scores []float64) int {
	best, arg := math.Inf(-1), 0
	for c, v := range scores {
		if v > best {
			best, arg = v, c
		}
	}
	return arg
}
