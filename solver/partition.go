package solver

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/run"
)

// Combine says how the partitions' changes of a data-parallel round are
// combined (Ma, Smith, Jaggi et al. 2015, "Adding vs. averaging in
// distributed primal-dual optimization").
type Combine int

const (
	// Adding adds the K changes (gamma = 1), each partition solving
	// CoCoA+'s safe local subproblem (sigma' = K: its line search sees
	// the curvature K lambda and its local view of w moves by K times its
	// change). The zero value.
	Adding Combine = iota
	// Averaging adds the average of the K changes (gamma = 1/K, sigma' =
	// 1: CoCoA's local view w + its change); each block keeps 1/K of its
	// change.
	Averaging
)

func (c Combine) String() string {
	switch c {
	case Adding:
		return "adding"
	case Averaging:
		return "averaging"
	}
	return fmt.Sprintf("Combine(%d)", int(c))
}

// Partition is one of K partitions of the examples of a data-parallel BCFW
// run (CoCoA with BCFW as its local solver, as dissolve-struct runs it): it
// owns the blocks of a subset of the examples (their v_i, ell_i and
// whatever the method keeps per block: corner sets, stale gaps, the
// sampler), runs BCFW's block steps on them against the v of a round, and
// reports its change; GapsAt gives its blocks' exact gaps at any v, Save
// and LoadPartition its dual state between rounds.
//
// The state of a round is v = sum_i v_i, the untruncated sum of the block
// vectors, and ell; the model's weights are w = [v], v truncated to the box
// (BCFW.Box intersected with the problem's own bounds, oracles.Bounded; w
// = v without a box), as BCFW keeps them on one machine (Osokin et al.
// 2016, App. H). Every v of this type's API is that v: w itself without a
// box.
//
// It is BCFW's engine itself, on the partition's examples at the
// regularization lambda n / (sigma' n_k), whose block vectors are then
// sigma' v_i and whose block gaps and steps are the whole problem's
// (scaled by n / n_k): the partition's iterate is its local view of v,
// v_round + sigma' (its change), its oracle calls at its truncation. With
// K = 1 the partition is the whole problem at lambda and its rounds are
// BCFW's trajectory, bit for bit: a BCFW run without gap passes (GapEvery
// < 0), run H passes at a time.
//
// Combining with a box is safe as it is without one. The dual is ell -
// lambda phi(v) with phi(v) = |[v]|^2/2 + beta_u^T u - beta_l^T l at the
// optimal box multipliers (Osokin et al. 2016, eq. 52), convex (and
// 1-smooth: its gradient is [v]), ell linear. With adding (sigma' = K)
// each partition ascends the exact dual of the whole problem with its own
// blocks moved K times their change (at v + K Delta_k, ell + K Delta
// ell_k); since v + sum_k Delta_k = (1/K) sum_k (v + K Delta_k), Jensen's
// inequality gives phi(v + sum_k Delta_k) - phi(v) <= (1/K) sum_k [phi(v +
// K Delta_k) - phi(v)], and ell is linear, so the combined dual improves by
// at least the mean of the K local improvements: CoCoA+'s safe bound (Ma,
// Smith, Jaggi et al. 2015), which needs no smoothness. Averaging (sigma' = 1, gamma = 1/K) is Jensen's
// inequality again, on the K local views v + Delta_k. A block step never
// decreases its local dual, so no round decreases the dual.
//
// The partitions make no gap passes and keep no averages: the gap is
// certified by GapsAt at the combined v of a round.
type Partition struct {
	s       *Solver
	blocks  []int
	n, k    int     // examples of the whole problem; partitions
	combine Combine // how the round's changes are combined
	sigma   float64 // sigma'
	gamma   float64 // the share of its change each block keeps
	// scale is n_k / n: the partition's ell and gaps in the units of the
	// whole problem (exactly 1 for K = 1).
	scale float64
}

// Change is what a partition's round gives back.
type Change struct {
	// Delta is the change of v the partition's blocks made, gamma times
	// (v_local - v_round) / sigma', as a sparse vector; nil when View is
	// set.
	Delta *oracles.SparseVec
	// View is the partition's local v at the end of the round when it is
	// the only partition (K = 1): the combined v itself, bit for bit (v +
	// Delta would round differently). Nil otherwise.
	View []float64
	// Ell is ell_k = sum of the partition's ell_i after the round, in the
	// whole problem's units.
	Ell float64
	// OracleCalls and Steps are the partition's counters after the round
	// (its steps' oracle calls; GapsAt's are not counted).
	OracleCalls, Steps int64
}

// NewPartition returns partition number part of k of problem p: the
// examples blocks (distinct indices into p, sorted), trained by m's block
// steps (its Sampling, Step, Cache, Storage, Box and Seed; gap passes and
// averages do not apply) at m.Lambda, their changes combined by combine.
// The box is m.Box intersected with p's own bounds (oracles.Bounded), as
// BCFW applies it on one machine.
// opts wire the solver (run.WithWorkers); an execution other than
// sequential steps is refused. With k = 1, blocks must be every example.
func NewPartition(p oracles.Problem, blocks []int, k int, m BCFW, combine Combine, opts ...run.Option) (*Partition, error) {
	q, err := newPartition(p, blocks, k, combine)
	if err != nil {
		return nil, err
	}
	switch {
	case !(m.Lambda > 0) || math.IsInf(m.Lambda, 0):
		return nil, fmt.Errorf("solver: partition: lambda %v, want a positive value", m.Lambda)
	case combine == Averaging && k > 1 && (m.Step == Pairwise || m.Step == Away):
		return nil, errors.New("solver: partition: averaging keeps 1/K of every block's change, which pairwise and away steps (explicit dual variables) do not support: use adding")
	}
	if o, err := run.Wiring(opts); err != nil {
		return nil, fmt.Errorf("solver: partition: %w", err)
	} else if o.Execution != nil {
		return nil, errors.New("solver: partition: the steps of a partition are sequential (its parallelism is the partitions')")
	}
	local := m
	local.GapEvery, local.TraceEvery, local.Average = -1, 0, run.NoAverage
	if k > 1 {
		// lambda_k n_k = lambda n / sigma': the block vectors are sigma' v_i.
		local.Lambda = m.Lambda * float64(q.n) / (q.sigma * float64(len(blocks)))
		// The sub-problem does not forward p's bounds: its method holds
		// the whole box (and its checkpoint with it).
		if local.Box, err = effectiveBox(m.Box, p); err != nil {
			return nil, fmt.Errorf("solver: partition: %w", err)
		}
	}
	sv, err := local.New(q.sub(p), opts...)
	if err != nil {
		return nil, fmt.Errorf("solver: partition: %w", err)
	}
	q.s = sv.(*Solver)
	return q, nil
}

// newPartition checks the partition's examples and returns it without its
// solver.
func newPartition(p oracles.Problem, blocks []int, k int, combine Combine) (*Partition, error) {
	if p == nil {
		return nil, errors.New("solver: partition: nil problem")
	}
	n := p.Len()
	switch {
	case k < 1:
		return nil, fmt.Errorf("solver: partition: %d partitions, want at least 1", k)
	case k > n:
		return nil, fmt.Errorf("solver: partition: %d partitions of %d examples (want at most one an example)", k, n)
	case len(blocks) == 0:
		return nil, errors.New("solver: partition: no examples")
	case k == 1 && len(blocks) != n:
		return nil, fmt.Errorf("solver: partition: the only partition has %d of %d examples", len(blocks), n)
	case combine != Adding && combine != Averaging:
		return nil, fmt.Errorf("solver: partition: %v", combine)
	}
	if _, ok := p.(oracles.Approximate); ok && k > 1 {
		return nil, errors.New("solver: partition: an approximate oracle is not supported by data-parallel rounds")
	}
	for j, i := range blocks {
		if i < 0 || i >= n || (j > 0 && i <= blocks[j-1]) {
			return nil, fmt.Errorf("solver: partition: the examples must be distinct sorted indices in [0, %d)", n)
		}
	}
	q := &Partition{blocks: slices.Clone(blocks), n: n, k: k, combine: combine, sigma: 1, gamma: 1, scale: 1}
	if k > 1 {
		q.scale = float64(len(blocks)) / float64(n)
		if combine == Adding {
			q.sigma = float64(k)
		} else {
			q.gamma = 1 / float64(k)
		}
	}
	return q, nil
}

// sub returns the problem of the partition's examples.
func (q *Partition) sub(p oracles.Problem) oracles.Problem {
	if q.k == 1 {
		return p
	}
	sp := &subProblem{p: p, idx: q.blocks}
	if f, ok := p.(oracles.FallibleOracle); ok {
		return &fallibleSub{subProblem: sp, f: f}
	}
	return sp
}

// Blocks returns the partition's examples (do not modify them).
func (q *Partition) Blocks() []int { return q.blocks }

// Ell returns ell_k, the sum of the partition's ell_i, in the whole
// problem's units.
func (q *Partition) Ell() float64 { return q.s.ell * q.scale }

// Round runs passes passes (passes times n_k block steps) of the
// partition's blocks against v, the combined v of the last round (length
// d; zero before the first round), and returns the change of v. The
// partition keeps its blocks' new state (gamma of their change with
// averaging).
func (q *Partition) Round(ctx context.Context, v []float64, passes float64) (Change, error) {
	s := q.s
	if len(v) != s.d {
		return Change{}, fmt.Errorf("solver: partition: v has %d weights, the problem %d", len(v), s.d)
	}
	if !(passes > 0) || math.IsInf(passes, 0) {
		return Change{}, fmt.Errorf("solver: partition: %v passes, want a positive number", passes)
	}
	s.x.set(v)      // the local view: v + sigma' (the change), starting at v; its w = [v]
	s.sched.Moved() // w moved without a step: the steps under way are stale
	var start []oracles.SparseVec
	var startEll []float64
	if q.gamma != 1 {
		start, startEll = make([]oracles.SparseVec, s.n), slices.Clone(s.ellI)
		for i := range start {
			start[i] = q.blockVec(i)
		}
	}
	res, err := s.Run(ctx, run.Stop{Passes: s.Passes() + passes})
	if err != nil {
		return Change{}, fmt.Errorf("solver: partition: %w", err)
	}
	if res.Status == run.StatusCanceled {
		return Change{}, ctx.Err()
	}
	if start != nil {
		q.keepShare(start, startEll)
	}
	c := Change{Ell: q.Ell(), OracleCalls: s.calls, Steps: s.steps}
	if q.k == 1 {
		c.View = slices.Clone(s.x.v)
		return c, nil
	}
	delta := &oracles.SparseVec{}
	for j, x := range s.x.v {
		if d := (x - v[j]) / q.sigma; d != 0 {
			delta.Idx = append(delta.Idx, int32(j))
			delta.Val = append(delta.Val, d)
		}
	}
	c.Delta = delta
	return c, nil
}

// keepShare sets every block to its state at the round's start plus gamma
// of its change: v_i <- gamma v_i + (1 - gamma) v_i(start), through the
// store's own move (which applies the change to the iterate), and ell_i
// likewise.
func (q *Partition) keepShare(start []oracles.SparseVec, startEll []float64) {
	s := q.s
	for i := range start {
		c := corner{psi: start[i], norm: start[i].NormSq(), entry: -1}
		s.store.move(i, q.gamma, &c, 1-q.gamma, nil, 0)
		s.setEll(i, q.gamma*s.ellI[i]+(1-q.gamma)*startEll[i])
	}
}

// blockVec returns v_i as a sparse vector.
func (q *Partition) blockVec(i int) oracles.SparseVec {
	var out oracles.SparseVec
	if b, ok := q.s.store.(*sparseStore); ok {
		out.Idx = slices.Clone(b.idx[i])
		out.Val = slices.Clone(b.val[i])
		return out
	}
	for j, v := range q.s.store.dense(i) {
		if v != 0 {
			out.Idx = append(out.Idx, int32(j))
			out.Val = append(out.Val, v)
		}
	}
	return out
}

// GapsAt returns the exact block gaps of the partition's blocks at the
// combined v of a round, that is at the model's weights w = [v] (in the
// order of Blocks, in the whole problem's units: g_i = lambda <v_i, w> -
// ell_i + H_i(w)/n) and the sum of their H_i(w) = max_y L_i(y) - <w,
// psi_i(y)>, from which the primal objective at w follows: lambda/2 |w|^2
// + (sum over the partitions of sumH)/n (RoundWeights gives w). Each
// block's oracle is called at w once (the certifying oracle of an
// approximate problem), on the solver's workers; no counter or state
// changes. sum is the block gaps' sum in the order a BCFW gap pass sums
// them.
func (q *Partition) GapsAt(v []float64) (gaps []float64, sum, sumH float64, err error) {
	s := q.s
	if len(v) != s.d {
		return nil, 0, 0, fmt.Errorf("solver: partition: v has %d weights, the problem %d", len(v), s.d)
	}
	w := v
	if s.box != nil {
		w = make([]float64, s.d)
		s.box.clipAll(w, v)
	}
	sumH, exact, err := s.oraclePass(w, true)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("solver: partition: %w", err)
	}
	if !exact {
		return nil, 0, 0, errors.New("solver: partition: the problem's oracle is approximate and has no exact counterpart: no gap can be certified")
	}
	gaps = slices.Clone(s.work.gBlock)
	if q.k > 1 {
		// g_i = (n_k / n) (lambda_k <v_i, w> - ell_i^k + H_i / n_k), with
		// v_i = sigma' w_i and lambda_k = lambda n / (sigma' n_k).
		floats.Scale(q.scale, gaps)
	}
	return gaps, floats.Sum(gaps), sumH, nil
}

// RoundWeights returns, at the combined state (v, ell) of a data-parallel
// round of m on p (v the sum of the partitions' block vectors, ell of
// their ell_i, as the partitions' changes combine them), the model's
// weights w = [v], v truncated to the box the partitions apply (m.Box
// intersected with p's bounds; v itself, not a copy, without a box), and
// the dual objective there, ell - lambda/2 |w|^2 - lambda (beta_u^T u -
// beta_l^T l), summed as BCFW's evaluation sums it.
func RoundWeights(p oracles.Problem, m BCFW, v []float64, ell float64) (w []float64, dual float64, err error) {
	box, err := effectiveBox(m.Box, p)
	if err == nil {
		err = box.validate(len(v))
	}
	if err != nil {
		return nil, 0, fmt.Errorf("solver: round weights: %w", err)
	}
	if len(v) != p.Dim() {
		return nil, 0, fmt.Errorf("solver: round weights: v has %d weights, the problem %d", len(v), p.Dim())
	}
	w = v
	if box != nil {
		w = make([]float64, len(v))
		box.clipAll(w, v)
	}
	return w, ell - m.Lambda/2*floats.Dot(w, w) - m.Lambda*box.dualTerm(v), nil
}

// partitionFormat is the version of the header Save writes before the
// solver's checkpoint.
const partitionFormat = 1

// partitionHeader is the partition's part of its saved state.
type partitionHeader struct {
	Format  int     `json:"format"`
	N       int     `json:"n"`
	K       int     `json:"k"`
	Combine Combine `json:"combine"`
	Blocks  []int   `json:"blocks"`
}

// Save writes the partition's state (its blocks and the solver's
// checkpoint) so that LoadPartition continues it identically.
func (q *Partition) Save(w io.Writer) error {
	h, err := json.Marshal(partitionHeader{partitionFormat, q.n, q.k, q.combine, q.blocks})
	if err != nil {
		return err
	}
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], uint64(len(h)))
	if _, err := w.Write(size[:]); err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	s := q.s
	if q.k > 1 {
		// The iterate is the round's local view, v + sigma' (the change);
		// a checkpoint holds v = sum_i v_i, which Load checks. The next
		// round sets the iterate to its own v.
		v := make([]float64, s.d)
		q.blockSum(v)
		s.x.set(v)
	}
	return s.Save(w)
}

// blockSum adds sum_i v_i into v without changing the store (accumulate
// refreshes what the stores maintain; explicit duals recompute ell_i, which
// are restored).
func (q *Partition) blockSum(v []float64) {
	switch b := q.s.store.(type) {
	case *denseStore:
		for i, c := range b.scale {
			floats.AddScaled(v, c, b.row(i))
		}
	case *sparseStore:
		for i := range b.idx {
			for k, j := range b.idx[i] {
				v[j] += b.val[i][k]
			}
		}
	default:
		saved := slices.Clone(q.s.ellI)
		q.s.store.accumulate(v)
		copy(q.s.ellI, saved)
	}
}

// LoadPartition reads a partition Save wrote, for problem p (the whole
// problem, as given to NewPartition); opts wire its solver.
func LoadPartition(r io.Reader, p oracles.Problem, opts ...run.Option) (*Partition, error) {
	if p == nil {
		return nil, errors.New("solver: load partition: nil problem")
	}
	var size [8]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, fmt.Errorf("solver: load partition: %w", err)
	}
	m := binary.LittleEndian.Uint64(size[:])
	if m > 1<<32 {
		return nil, errors.New("solver: load partition: not a partition's state")
	}
	hb := make([]byte, m)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("solver: load partition: %w", err)
	}
	var h partitionHeader
	dec := json.NewDecoder(bytes.NewReader(hb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || h.Format != partitionFormat {
		return nil, fmt.Errorf("solver: load partition: not a partition's state (format %d): %v", h.Format, err)
	}
	if h.N != p.Len() {
		return nil, fmt.Errorf("solver: load partition: the state is of a problem of %d examples, this one has %d", h.N, p.Len())
	}
	q, err := newPartition(p, h.Blocks, h.K, h.Combine)
	if err != nil {
		return nil, fmt.Errorf("solver: load partition: %w", err)
	}
	s, err := Load(r, q.sub(p), opts...)
	if err != nil {
		return nil, fmt.Errorf("solver: load partition: %w", err)
	}
	q.s = s
	return q, nil
}

// subProblem is the problem of a subset of the examples of p: example j is
// p's idx[j].
type subProblem struct {
	p   oracles.Problem
	idx []int
}

func (s *subProblem) Len() int                                     { return len(s.idx) }
func (s *subProblem) Dim() int                                     { return s.p.Dim() }
func (s *subProblem) Truth(i int) []int32                          { return s.p.Truth(s.idx[i]) }
func (s *subProblem) Loss(i int, y []int32) float64                { return s.p.Loss(s.idx[i], y) }
func (s *subProblem) Psi(i int, y []int32, dst *oracles.SparseVec) { s.p.Psi(s.idx[i], y, dst) }
func (s *subProblem) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	return s.p.MaxOracle(s.idx[i], w, dst)
}
func (s *subProblem) Predict(i int, w []float64, dst []int32) []int32 {
	return s.p.Predict(s.idx[i], w, dst)
}

// fallibleSub is a subProblem of a problem whose oracle can fail.
type fallibleSub struct {
	*subProblem
	f oracles.FallibleOracle
}

func (s *fallibleSub) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	return s.f.MaxOracleErr(s.idx[i], w, dst)
}
