package soft

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/solver/soft/internal/nodes"
)

// checkpointVersion 2 records the fingerprint of the model's data (its
// node inputs and losses, not only its graphs and labels); version 1
// checkpoints cannot be checked against the data and are refused.
const checkpointVersion = 2

// checkpoint is the serialized state of a Solver. The model itself is not
// saved: Load gets it again and checks it through a fingerprint. Nor is the
// wiring (test set, progress callback, workers).
type checkpoint struct {
	Version int
	// Train is the fingerprint of the model (fingerprint).
	Train  oracles.Fingerprint
	Blocks int

	Config config

	W, Delta, Mu []float64

	GapEst    []float64
	EstFinite float64
	EstInf    int
	LastGap   float64
	GapAt     int64
	Draws     core.Draws

	Steps, Calls                 int64
	Elapsed                      time.Duration
	Evaluating                   time.Duration // the loop's evaluation time
	Trace                        []run.Point
	NextGap, NextTrace, LastEval int64
}

// fingerprint identifies a model by its size, the shape of its graphs and
// its ground truths (Labels) and by the data its solver reads, the inputs
// and loss tables of the nodes (Data); Load uses it to refuse a checkpoint
// of another model, naming what differs.
func fingerprint(m *factorgraph.Model) oracles.Fingerprint {
	f := oracles.Fingerprint{N: m.Len(), D: m.Dim(), Labels: uint64(m.Len())*1000003 ^ uint64(m.Dim())}
	for i := 0; i < m.Len(); i++ {
		g := m.Graph(i)
		f.Labels = f.Labels*1099511628211 ^ uint64(g.NumNodes())<<40 ^ uint64(g.TableLen())<<20 ^ uint64(nodes.DeltaLen(g))
		f.Labels = f.Labels*1099511628211 ^ oracles.HashLabeling(m.Truth(i))
		in := m.Inputs(i)
		f.Data = oracles.MixHash(f.Data, uint64(len(in)))
		for k := range in {
			f.Data = oracles.HashSparse(f.Data, &in[k])
		}
		for a := 0; a < g.NumNodes(); a++ {
			loss := m.NodeLoss(i, a)
			f.Data = oracles.MixHash(f.Data, uint64(len(loss)))
			for _, v := range loss {
				f.Data = oracles.MixHash(f.Data, math.Float64bits(v))
			}
		}
	}
	return f
}

// Save writes the whole state of the solver (marginals, w, delta, sampler
// and random state, counters and trace) so that Load continues the run
// identically. The model and the wiring are not saved.
func (s *Solver) Save(w io.Writer) error {
	c := checkpoint{
		Version: checkpointVersion, Train: fingerprint(s.m), Blocks: s.blocks,
		Config: s.cfg, W: s.w, Delta: s.delta, Mu: s.mu,
		GapEst: s.gapEst, EstFinite: s.est.Finite, EstInf: s.est.Inf, LastGap: s.lastGap, GapAt: s.gapAt,
		Steps: s.steps, Calls: s.calls, Elapsed: s.loop.Elapsed, Evaluating: s.loop.Evaluating, Trace: s.trace,
		NextGap: s.loop.NextGap, NextTrace: s.loop.NextTrace, LastEval: s.loop.LastEval,
	}
	var err error
	if c.Draws, err = s.samp.Checkpoint(s.pcg); err != nil {
		return fmt.Errorf("soft: save: %w", err)
	}
	return core.WriteCheckpoint(w, "soft", BCFW{}.Name(), &c)
}

// Load restores a solver saved by Save for the model m, which must be the
// model it was saved with; opts wire it (run.WithTest, run.WithProgress, ...).
// Every field of the checkpoint is checked (lengths, finite values,
// marginals on their simplices, counters), so that a corrupt file is an
// error here rather than a failure of the next Run.
func Load(r io.Reader, p oracles.Problem, opts ...run.Option) (*Solver, error) {
	if p == nil {
		return nil, errors.New("soft: load: nil problem")
	}
	m, err := factorgraph.ModelOf(p)
	if err != nil {
		return nil, fmt.Errorf("soft: load: %w", err)
	}
	return load(r, m, opts...)
}

// load is Load on the model m.
func load(r io.Reader, m *factorgraph.Model, opts ...run.Option) (*Solver, error) {
	var c checkpoint
	if _, err := core.ReadCheckpoint(r, "soft", &c, func() int { return c.Version }, checkpointVersion, checkpointVersion); err != nil {
		return nil, err
	}
	if err := c.Train.Check(fingerprint(m)); err != nil {
		return nil, fmt.Errorf("soft: load: the checkpoint was taken on other data: this model has %w", err)
	}
	s, err := newSolver(m, c.Config, opts...)
	if err != nil {
		return nil, fmt.Errorf("soft: load: %w", err)
	}
	if err := s.restore(&c); err != nil {
		return nil, fmt.Errorf("soft: load: corrupt checkpoint: %w", err)
	}
	if err := s.checkState(); err != nil {
		return nil, fmt.Errorf("soft: load: corrupt checkpoint: %w", err)
	}
	return s, nil
}

// checkState checks what the marginals determine and the checkpoint also
// records: w = Psi mu / (lambda M) and delta = A mu / (rho M), recomputed
// (within the rounding of the incremental updates; the saved values are
// kept, so that the run continues identically), and that the gap at the
// loaded iterate is not negative (core.Certify).
func (s *Solver) checkState() error {
	w, delta := slices.Clone(s.w), slices.Clone(s.delta)
	s.reanchor()
	for _, v := range []struct {
		name         string
		saved, fresh []float64
	}{{"w", w, s.w}, {"delta", delta, s.delta}} {
		scale := 1.0
		for j := range v.fresh {
			scale = max(scale, math.Abs(v.fresh[j]), math.Abs(v.saved[j]))
		}
		for j := range v.fresh {
			if math.Abs(v.fresh[j]-v.saved[j]) > 1e-6*scale {
				copy(s.w, w)
				copy(s.delta, delta)
				return fmt.Errorf("%s[%d] = %v, but the marginals give %v", v.name, j, v.saved[j], v.fresh[j])
			}
		}
	}
	copy(s.w, w)
	copy(s.delta, delta)
	_, err := s.evaluate(peek)
	return err
}

func (s *Solver) restore(c *checkpoint) error {
	if err := errors.Join(checkVec("w", c.W, len(s.w), true), checkVec("delta", c.Delta, len(s.delta), true),
		checkVec("mu", c.Mu, len(s.mu), false), checkVec("gap estimates", c.GapEst, s.blocks, false)); err != nil {
		return err
	}
	if err := s.checkMarginals(c.Mu); err != nil {
		return err
	}
	inf := 0
	for b, g := range c.GapEst {
		if math.IsInf(g, 1) {
			inf++
		} else if math.IsNaN(g) || math.IsInf(g, -1) {
			return fmt.Errorf("gap estimate of block %d is %v", b, g)
		}
	}
	if inf != c.EstInf || math.IsNaN(c.EstFinite) || math.IsInf(c.EstFinite, 0) {
		return fmt.Errorf("the running sum of the gap estimates (%v finite, %d unvisited) does not match them (%d unvisited)", c.EstFinite, c.EstInf, inf)
	}
	if c.Steps < 0 || c.Calls < 0 || c.Elapsed < 0 || c.Evaluating < 0 || c.LastEval < -1 || c.LastEval > c.Steps ||
		c.NextGap < 1 || c.NextTrace < 1 || c.GapAt < -1 || c.GapAt > c.Steps {
		return errors.New("counters out of range")
	}
	copy(s.w, c.W)
	copy(s.delta, c.Delta)
	copy(s.mu, c.Mu)
	copy(s.gapEst, c.GapEst)
	s.est = core.EstimateSum{Finite: c.EstFinite, Inf: c.EstInf}
	s.lastGap, s.gapAt = c.LastGap, c.GapAt
	pcg, err := s.samp.Resume(c.Draws, s.gapEst)
	if err != nil {
		return err
	}
	s.pcg, s.rng = pcg, rand.New(pcg)
	s.syncLookahead()
	s.steps, s.calls = c.Steps, c.Calls
	s.loop.Elapsed, s.loop.Evaluating = c.Elapsed, c.Evaluating
	s.trace = c.Trace
	for k := range s.trace { // never computed here; 0 in older checkpoints
		s.trace[k].ForgetMultiPlane()
	}
	s.loop.NextGap, s.loop.NextTrace, s.loop.LastEval = c.NextGap, c.NextTrace, c.LastEval
	return nil
}

// checkMarginals checks that every block's table of mu lies on its simplex
// (entries in [0, 1] and summing to 1, within rounding).
func (s *Solver) checkMarginals(mu []float64) error {
	for i := 0; i < s.nEx; i++ {
		g := s.m.Graph(i)
		for a := 0; a < g.NumNodes(); a++ {
			off := s.muOff[i] + g.TableOffset(a)
			var sum float64
			for _, v := range mu[off : off+g.States(a)] {
				if !(v >= -1e-12 && v <= 1+1e-12) {
					return fmt.Errorf("marginal of example %d node %d is %v, outside [0, 1]", i, a, v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 {
				return fmt.Errorf("marginals of example %d node %d sum to %v, not 1", i, a, sum)
			}
		}
	}
	return nil
}

// checkVec checks the length of a saved vector and, with finite, its
// values.
func checkVec(name string, x []float64, n int, finite bool) error {
	if len(x) != n {
		return fmt.Errorf("%s has %d entries, want %d", name, len(x), n)
	}
	for j := 0; finite && j < n; j++ {
		if math.IsNaN(x[j]) || math.IsInf(x[j], 0) {
			return fmt.Errorf("%s[%d] = %v", name, j, x[j])
		}
	}
	return nil
}
