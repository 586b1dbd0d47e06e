package kernel

import (
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// fwStep is one iteration of kernelized batch Frank-Wolfe (Lacoste-Julien
// et al. 2013, Alg. 2 over explicit duals, App. B.5): the oracle pass at
// w(k) (reused from a gap pass at the same iterate) gives the vertex s =
// (e_{y_i*})_i and the gap G = sum_i g_i; with delta_i = e_{y_i*} - alpha_i,
//
//	lambda |w - w_s|^2 = sum_{i,j} k(x_i, x_j) <delta_i, delta_j> / (lambda n^2),
//
// a double kernel sum over the blocks not yet at their vertex, and gamma =
// G / (lambda |w - w_s|^2) clipped to [0, 1] (or 2/(k+2)).
func (s *Solver) fwStep() error {
	ps := s.pending
	if ps == nil || ps.at != s.steps {
		e := s.current()
		ps = s.oraclePass(&e)
	}
	if !ps.counted {
		s.calls += int64(s.n)
	}
	s.pending = nil
	_, _, gap, _ := s.objectives(ps)
	kk := s.k
	delta := make([]float64, s.n*kk)
	var moving []int32
	for i := 0; i < s.n; i++ {
		d := delta[i*kk : (i+1)*kk]
		for c := range d {
			d[c] = -s.alpha[i*kk+c]
		}
		d[ps.yStar[i]]++
		for _, v := range d {
			if v != 0 {
				moving = append(moving, int32(i))
				break
			}
		}
	}
	gamma := 2 / (float64(s.steps) + 2)
	if s.cfg.StepSize == run.LineSearch {
		gamma = core.LineSearch(gap, s.lambda*s.normSq(delta, moving), 1)
	}
	if gamma > 0 {
		if s.avg != nil {
			s.avg.SyncAll(s.alpha)
		}
		for _, i := range moving {
			for c := 0; c < kk; c++ {
				s.alpha[int(i)*kk+c] += gamma * delta[int(i)*kk+c]
			}
			s.sv.set(int(i), offTruth(s.alpha[int(i)*kk:int(i+1)*kk], s.in.y[i]))
		}
		s.ell = (1-gamma)*s.ell + gamma*(1-sumTruth(ps.yStar, s.in.y))
	}
	s.fold()
	s.steps++
	return nil
}

// normSq returns |sum_i phi(x_i) (x) delta_i / (lambda n)|^2 over the listed
// blocks: their kernel values as kernel blocks (sweep) on the workers,
// each block's terms summed in block order, then the blocks in order.
func (s *Solver) normSq(delta []float64, blocks []int32) float64 {
	kk := s.k
	part := make([]float64, len(blocks))
	s.cfg.Kernel.sweep(s.in, blocks, s.in, blocks, s.scratch(), func(_, a int, kv []float64) {
		i := int(blocks[a])
		di := delta[i*kk : (i+1)*kk]
		for p, j := range blocks {
			var dot float64
			for c, v := range delta[int(j)*kk : int(j+1)*kk] {
				dot += v * di[c]
			}
			if dot == 0 {
				continue
			}
			part[a] += kv[p] * dot
		}
	})
	var sum float64
	for _, v := range part {
		sum += v
	}
	sigma := 1 / (s.lambda * float64(s.n))
	return sigma * sigma * sum
}

// sumTruth returns the fraction of examples whose labeling is their ground
// truth (1 - the mean loss of the vertex).
func sumTruth(yStar, y []int32) float64 {
	same := 0
	for i := range y {
		if yStar[i] == y[i] {
			same++
		}
	}
	return float64(same) / float64(len(y))
}
