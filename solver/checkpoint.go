package solver

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
)

const checkpointVersion = 1

// checkpoint is the serialized state of a Solver. The problem itself is not
// saved: Load gets it again and checks it through a fingerprint.
type checkpoint struct {
	Version     int
	Fingerprint uint64
	N, D        int

	// Config is the configuration without Test and Progress (gob skips
	// func fields; Test is cleared before saving).
	Config Config

	Lambda     float64
	V, W       []float64
	Ell        float64
	BlockU     []float64
	BlockScale []float64
	BlockNorm  []float64
	EllI       []float64
	AvgU       []float64
	AvgC       float64
	AvgEll     float64
	AvgK       int64

	GapEst    []float64
	EstFinite float64
	EstInf    int
	GlobalGap float64
	ExactGaps []float64
	ExactAt   int64
	Sets      []savedSet
	Perm      []int32
	PermPos   int
	Unvisited []int32
	RNG       []byte

	Steps, Calls, Hits, Misses, Drops int64
	RSq                               []float64
	Elapsed                           time.Duration
	Trace                             []TracePoint
	NextGap, NextTrace, LastEval      int64
}

type savedSet struct {
	Entries []savedEntry
	Ys, Idx []int32
	Val     []float64
	Gram    []float64
}

type savedEntry struct {
	YOff, YLen, PsiOff, Nnz int32
	Loss, NormSq, Alpha     float64
	Hash                    uint64
	LastUse                 int64
}

// Fingerprint identifies a problem by its size and its ground-truth
// labelings; Load uses it to refuse a checkpoint of another problem.
func Fingerprint(p oracles.Problem) uint64 {
	h := uint64(p.Len())*1000003 ^ uint64(p.Dim())
	for i := 0; i < p.Len(); i++ {
		h = h*1099511628211 ^ oracles.HashLabeling(p.Truth(i))
	}
	return h
}

// Save writes the whole state of the solver (iterate, dual variables,
// caches, sampler and random state, counters and trace) so that Load can
// continue the run identically. The problem, the test problem and the
// Progress callback are not saved.
func (s *Solver) Save(w io.Writer) error {
	c := checkpoint{
		Version: checkpointVersion, Fingerprint: Fingerprint(s.p), N: s.n, D: s.d,
		Config: s.cfg,
		Lambda: s.lambda, V: s.v, Ell: s.ell, EllI: s.ellI,
		GapEst: s.gapEst, EstFinite: s.est.finite, EstInf: s.est.inf, GlobalGap: s.globalGap, ExactGaps: s.exactGaps, ExactAt: s.exactAt,
		Perm: s.samp.perm, PermPos: s.samp.pos, Unvisited: s.samp.unvisited,
		Steps: s.steps, Calls: s.calls, Hits: s.hits, Misses: s.misses, Drops: s.drops,
		RSq: s.rSq, Elapsed: s.elapsed, Trace: s.trace,
		NextGap: s.nextGap, NextTrace: s.nextTrace, LastEval: s.lastEvalAtSteps,
	}
	c.Config.Test = nil
	if s.cfg.Box != nil {
		c.W = s.w
	}
	if s.blk != nil {
		c.BlockU, c.BlockScale, c.BlockNorm = s.blk.u, s.blk.scale, s.blk.norm
	}
	if s.avg != nil {
		c.AvgU, c.AvgC, c.AvgEll, c.AvgK = s.avg.u, s.avg.c, s.avg.ell, s.avg.k
	}
	if s.sets != nil {
		c.Sets = make([]savedSet, s.n)
		for i := range s.sets {
			set := &s.sets[i]
			out := savedSet{Ys: set.ys, Idx: set.idx, Val: set.val, Gram: set.gram}
			for _, e := range set.entries {
				out.Entries = append(out.Entries, savedEntry{
					YOff: e.yOff, YLen: e.yLen, PsiOff: e.psiOff, Nnz: e.nnz,
					Loss: e.loss, NormSq: e.normSq, Alpha: e.alpha, Hash: e.hash, LastUse: e.lastUse,
				})
			}
			c.Sets[i] = out
		}
	}
	rng, err := s.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("solver: save: %w", err)
	}
	c.RNG = rng
	if err := gob.NewEncoder(w).Encode(&c); err != nil {
		return fmt.Errorf("solver: save: %w", err)
	}
	return nil
}

// Load restores a solver saved by Save for problem p, which must be the
// problem it was saved with. test (may be nil) is the test problem for the
// trace; set a Progress callback with SetProgress.
func Load(r io.Reader, p oracles.Problem, test oracles.Problem) (*Solver, error) {
	if p == nil {
		return nil, errors.New("solver: load: nil problem")
	}
	var c checkpoint
	if err := gob.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("solver: load: %w", err)
	}
	if c.Version != checkpointVersion {
		return nil, fmt.Errorf("solver: load: checkpoint version %d, this build reads %d", c.Version, checkpointVersion)
	}
	if c.N != p.Len() || c.D != p.Dim() || c.Fingerprint != Fingerprint(p) {
		return nil, fmt.Errorf("solver: load: checkpoint of a problem with n=%d d=%d does not match this problem (n=%d d=%d) or its labels", c.N, c.D, p.Len(), p.Dim())
	}
	cfg := c.Config
	cfg.Lambda, cfg.Test = c.Lambda, test
	s, err := New(p, cfg)
	if err != nil {
		return nil, fmt.Errorf("solver: load: %w", err)
	}
	need := func(name string, got, want int) error {
		if got != want {
			return fmt.Errorf("solver: load: corrupt checkpoint: %s has %d entries, want %d", name, got, want)
		}
		return nil
	}
	if err := errors.Join(need("v", len(c.V), s.d), need("gap estimates", len(c.GapEst), s.n), need("radii", len(c.RSq), s.n)); err != nil {
		return nil, err
	}
	copy(s.v, c.V)
	if s.cfg.Box != nil && s.cfg.Algorithm != SSG {
		if err := need("w", len(c.W), s.d); err != nil {
			return nil, err
		}
		copy(s.w, c.W)
	}
	s.ell = c.Ell
	if s.ellI != nil {
		if err := need("ell_i", len(c.EllI), s.n); err != nil {
			return nil, err
		}
		copy(s.ellI, c.EllI)
	}
	if s.blk != nil {
		if err := errors.Join(need("blocks", len(c.BlockU), s.n*s.d), need("block scales", len(c.BlockScale), s.n),
			need("block norms", len(c.BlockNorm), s.n)); err != nil {
			return nil, err
		}
		copy(s.blk.u, c.BlockU)
		copy(s.blk.scale, c.BlockScale)
		copy(s.blk.norm, c.BlockNorm)
	}
	if s.avg != nil {
		if err := need("average", len(c.AvgU), s.d); err != nil {
			return nil, err
		}
		copy(s.avg.u, c.AvgU)
		s.avg.c, s.avg.ell, s.avg.k = c.AvgC, c.AvgEll, c.AvgK
	}
	copy(s.gapEst, c.GapEst)
	s.est = estimateSum{finite: c.EstFinite, inf: c.EstInf}
	s.globalGap = c.GlobalGap
	if c.ExactGaps != nil {
		if err := need("exact gaps", len(c.ExactGaps), s.n); err != nil {
			return nil, err
		}
		s.exactGaps = append([]float64(nil), c.ExactGaps...)
	}
	s.exactAt = c.ExactAt
	if s.sets != nil {
		if err := need("corner sets", len(c.Sets), s.n); err != nil {
			return nil, err
		}
		for i := range s.sets {
			if err := s.sets[i].restore(c.Sets[i], s.d); err != nil {
				return nil, fmt.Errorf("solver: load: corrupt corner set of block %d: %w", i, err)
			}
		}
	}
	switch s.cfg.Sampling {
	case Permutation:
		if err := need("permutation", len(c.Perm), s.n); err != nil {
			return nil, err
		}
		copy(s.samp.perm, c.Perm)
		s.samp.pos = c.PermPos
	case GapSampling:
		s.samp.tree.rebuild(s.gapEst)
		s.samp.unvisited = append(s.samp.unvisited[:0], c.Unvisited...)
	}
	s.pcg = new(rand.PCG)
	if err := s.pcg.UnmarshalBinary(c.RNG); err != nil {
		return nil, fmt.Errorf("solver: load: random state: %w", err)
	}
	s.rng = rand.New(s.pcg)
	s.steps, s.calls, s.hits, s.misses, s.drops = c.Steps, c.Calls, c.Hits, c.Misses, c.Drops
	copy(s.rSq, c.RSq)
	s.elapsed = c.Elapsed
	s.trace = c.Trace
	s.nextGap, s.nextTrace, s.lastEvalAtSteps = c.NextGap, c.NextTrace, c.LastEval
	return s, nil
}

// restore rebuilds the set from its saved form, checking every range.
func (cs *cornerSet) restore(sv savedSet, d int) error {
	k := len(sv.Entries)
	if cs.keepGram && len(sv.Gram) != k*k {
		return fmt.Errorf("Gram matrix of %d entries for %d corners", len(sv.Gram), k)
	}
	if len(sv.Idx) != len(sv.Val) {
		return errors.New("psi arenas of different lengths")
	}
	cs.entries = cs.entries[:0]
	for _, e := range sv.Entries {
		if e.YOff < 0 || e.YLen < 0 || int(e.YOff+e.YLen) > len(sv.Ys) || e.PsiOff < 0 || e.Nnz < 0 || int(e.PsiOff+e.Nnz) > len(sv.Idx) {
			return errors.New("corner outside its arena")
		}
		cs.entries = append(cs.entries, cornerEntry{
			yOff: e.YOff, yLen: e.YLen, psiOff: e.PsiOff, nnz: e.Nnz,
			loss: e.Loss, normSq: e.NormSq, alpha: e.Alpha, hash: e.Hash, lastUse: e.LastUse,
		})
	}
	for _, j := range sv.Idx {
		if j < 0 || int(j) >= d {
			return fmt.Errorf("psi index %d outside [0, %d)", j, d)
		}
	}
	cs.ys, cs.idx, cs.val = sv.Ys, sv.Idx, sv.Val
	if cs.keepGram {
		cs.gram = sv.Gram
	}
	return nil
}

// SetProgress sets the callback called after every trace point.
func (s *Solver) SetProgress(fn func(TracePoint)) { s.cfg.Progress = fn }

// SetTest sets the problem whose task loss is recorded at every trace point
// (nil: none).
func (s *Solver) SetTest(test oracles.Problem) error {
	if test != nil && test.Dim() != s.d {
		return fmt.Errorf("solver: test problem has dimension %d, training problem %d", test.Dim(), s.d)
	}
	s.cfg.Test = test
	return nil
}
