package solver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// checkpointVersion is the version of the checkpoint struct; a checkpoint
// of another version is refused (made by an older fwstruct: train again).
const checkpointVersion = 6

// checkpoint is the serialized state of a Solver. The problem itself is not
// saved: Load gets it again and checks it through a fingerprint. Nor is the
// wiring (test set, progress callback, workers).
type checkpoint struct {
	Version int
	// Train is the fingerprint of the training problem.
	Train oracles.Fingerprint

	// Method is the method of the run (run.Encode), Execution its
	// execution (execution.Encode; null: sequential).
	Method, Execution []byte

	Lambda     float64
	V, W       []float64
	Ell        float64
	BlockU     []float64
	BlockScale []float64
	BlockNorm  []float64
	// ClassAlpha holds the class duals of the exact step (classStore),
	// Shrink its active set (Exact.Shrinking).
	ClassAlpha []float64
	Shrink     *savedShrinking
	SparseIdx  [][]int32
	SparseVal  [][]float64
	EllI       []float64
	AvgS       []float64
	AvgSync    []int64
	AvgFull    int64
	AvgPartial bool
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
	Evaluating                        time.Duration // the loop's evaluation time
	Trace                             []run.Point
	NextGap, NextTrace, LastEval      int64
	EvalAt                            int64
	Events                            []string

	// The cutting-plane working set (CuttingPlane only).
	CPPlanes [][]float64
	CPEll    []float64
	CPMu     []float64
	CPGram   []float64
	CPGMu    []float64
	CPInner  int64
	CPUsed   []int64 // nil in checkpoints from before plane retirement
	CPAdded  int64
	// The state of online EG (OnlineEG only): the part-wise dual
	// variables, the marginals, the step sizes and ell_i of every example.
	EGTheta, EGMarg, EGEta, EGEllI []float64
	// BatchPassCounted says that the oracle pass of the current iterate of
	// batch FW or the cutting plane was counted (a run stopped by Stop.Gap
	// there): the next iteration computes it again without counting it.
	BatchPassCounted bool
	// MultiPlane is the state of multi-plane BCFW (nil without it).
	MultiPlane *savedMultiPlane
	// Queue holds the steps under way of the execution, their read parts
	// computed (nil when none).
	Queue *execution.Saved[savedAhead]
	// Delays is the histogram of the staleness of the steps whose read
	// part was computed ahead (Solver.Delays; nil when none).
	Delays []int64
}

// savedAverage is a lazy weighted average (core.Average) in a checkpoint.
type savedAverage struct {
	S       []float64
	Sync    []int64
	Full, K int64
	Partial bool
	Ell     float64
}

func saveAverage(a *core.Average) *savedAverage {
	return &savedAverage{S: a.S, Sync: a.At, Full: a.Full, K: a.K, Partial: a.Partial, Ell: a.Ell}
}

// savedSet is a corner set in a checkpoint: what the problem cannot give
// again, the labelings of its corners in order (Ys, cut by YLens), their
// masses and their last uses. Their psi vectors, losses, norms and hashes
// are the problem's and the Gram matrix is their products: Load computes
// them again, as the steps computed them (in the order the corners were
// added), so that a checkpoint holds no derived state (on Yeast psi took
// 99.9% of it) and the resumed run is the same bit for bit.
type savedSet struct {
	Ys, YLens []int32
	Alpha     []float64
	LastUse   []int64
}

// fingerprint returns the fingerprint of the solver's problem, computed
// once (an oracle call per example).
func (s *Solver) fingerprint() oracles.Fingerprint {
	if s.train == nil {
		f := oracles.FingerprintOf(s.p, s.workers)
		s.train = &f
	}
	return *s.train
}

// Save writes the whole state of the solver (iterate, dual variables,
// caches, sampler and random state, counters and trace) so that Load can
// continue the run identically. The problem and the wiring (test problem,
// progress callback, workers) are not saved.
func (s *Solver) Save(w io.Writer) error {
	return s.save(w, true)
}

// save is Save; without fingerprint the checkpoint does not record the
// problem's (an in-memory copy for Fork, which costs no oracle pass).
func (s *Solver) save(w io.Writer, fingerprint bool) error {
	s.sched.Settle() // the steps under way are part of the state
	m, x, err := s.encodeMethod()
	if err != nil {
		return fmt.Errorf("solver: save: %w", err)
	}
	c := checkpoint{
		Version: checkpointVersion, Method: m, Execution: x,
		Lambda: s.lambda, V: s.x.v, Ell: s.ell, EllI: s.ellI,
		GapEst: s.gapEst, EstFinite: s.est.Finite, EstInf: s.est.Inf, GlobalGap: s.globalGap, ExactGaps: s.exactGaps, ExactAt: s.exactAt,
		Steps: s.steps, Calls: s.calls, Hits: s.hits, Misses: s.misses, Drops: s.drops,
		RSq: s.rSq, Elapsed: s.loop.Elapsed, Evaluating: s.loop.Evaluating, Trace: s.trace,
		NextGap: s.loop.NextGap, NextTrace: s.loop.NextTrace, LastEval: s.loop.LastEval, EvalAt: s.evalAt, Events: s.events,
		Delays: s.delays,
	}
	if fingerprint {
		c.Train = s.fingerprint()
	}
	s.reuse.save(&c)
	if s.x.box != nil {
		c.W = s.x.w
	}
	if s.store != nil {
		s.store.save(&c)
	}
	s.alg.save(&c)
	c.Queue = s.sched.Save()
	if s.avg != nil {
		c.AvgS, c.AvgSync, c.AvgFull, c.AvgPartial, c.AvgEll, c.AvgK = s.avg.S, s.avg.At, s.avg.Full, s.avg.Partial, s.avg.Ell, s.avg.K
	}
	if s.sets != nil {
		c.Sets = make([]savedSet, s.n)
		for i := range s.sets {
			c.Sets[i] = s.sets[i].save()
		}
	}
	if s.cfg.Shrinking {
		c.Shrink = s.saveShrinking()
	}
	c.Perm, c.PermPos, c.Unvisited = s.samp.State()
	if c.RNG, err = core.RandomState("solver", s.pcg); err != nil {
		return err
	}
	return core.WriteCheckpoint(w, "solver", s.Method().Name(), &c)
}

func needLen(name string, got, want int) error {
	if got != want {
		return fmt.Errorf("solver: load: corrupt checkpoint: %s has %d entries, want %d", name, got, want)
	}
	return nil
}

// Load restores a solver saved by Save for problem p, which must be the
// problem it was saved with (for LPHard, the factor-graph problem: Load
// makes its relaxation again); opts wire it (run.WithTest, ...). The
// method and the execution are the checkpoint's: an execution given in
// opts must be the same. Every field of the checkpoint is checked, so that
// a corrupt file is an error here rather than a failure of the next Run.
func Load(r io.Reader, p oracles.Problem, opts ...run.Option) (*Solver, error) {
	if p == nil {
		return nil, errors.New("solver: load: nil problem")
	}
	var c checkpoint
	name, err := core.ReadCheckpoint(r, "solver", &c, func() int { return c.Version }, checkpointVersion, checkpointVersion)
	if err != nil {
		return nil, err
	}
	cfg, err := decodePlan(name, &c, opts)
	if err != nil {
		return nil, fmt.Errorf("solver: load: %w", err)
	}
	if cfg.LPHard {
		if p, err = relaxedView(p); err != nil {
			return nil, fmt.Errorf("solver: load: %w", err)
		}
	}
	s, err := newSolver(p, cfg, opts...)
	if err != nil {
		return nil, fmt.Errorf("solver: load: %w", err)
	}
	train := oracles.FingerprintOf(p, s.workers)
	if err := c.Train.Check(train); err != nil {
		return nil, fmt.Errorf("solver: load: the checkpoint was taken on other data: this problem has %w", err)
	}
	if err := s.restore(&c); err != nil {
		return nil, err
	}
	if err := s.checkState(&c); err != nil {
		return nil, fmt.Errorf("solver: load: corrupt checkpoint: %w", err)
	}
	s.train = &train
	return s, nil
}

// encodeMethod returns the method and the execution of s as a checkpoint
// records them.
func (s *Solver) encodeMethod() (m, x []byte, err error) {
	if m, err = run.Encode(s.Method()); err != nil {
		return nil, nil, err
	}
	if x, err = execution.Encode(s.Execution()); err != nil {
		return nil, nil, err
	}
	return m, x, nil
}

// decodePlan returns the plan of the method and execution a checkpoint
// records, written by the method named name; an execution in opts must be
// the checkpoint's.
func decodePlan(name string, c *checkpoint, opts []run.Option) (config, error) {
	m, err := run.Decode(c.Method)
	if err != nil {
		return config{}, fmt.Errorf("corrupt checkpoint: %w", err)
	}
	pm, ok := m.(planner)
	if !ok || m.Name() != name {
		return config{}, fmt.Errorf("corrupt checkpoint: the frame names the method %s, the state holds %s", name, m.Name())
	}
	x, err := execution.Decode(c.Execution)
	if err != nil {
		return config{}, fmt.Errorf("corrupt checkpoint: %w", err)
	}
	if o, err := run.Wiring(opts); err != nil {
		return config{}, err
	} else if o.Execution != nil && !sameExecution(o.Execution, x) {
		return config{}, fmt.Errorf("the run was made with %s; it continues with it, not with %s", describeExecution(x), describeExecution(o.Execution))
	}
	cfg, err := pm.plan()
	if err != nil {
		return config{}, fmt.Errorf("corrupt checkpoint: method %s: %w", name, err)
	}
	cfg.Execution = x
	return cfg, nil
}

// sameExecution reports whether two executions are equal.
func sameExecution(a, b run.Execution) bool {
	ea, err1 := execution.Encode(a)
	eb, err2 := execution.Encode(b)
	return err1 == nil && err2 == nil && bytes.Equal(ea, eb)
}

// describeExecution names an execution (nil: sequential steps).
func describeExecution(x run.Execution) string {
	if x == nil {
		return "sequential steps"
	}
	return "the " + x.Describe() + " execution"
}

// executionName says what an execution does (nil: "sequential").
func executionName(x run.Execution) string {
	if x == nil {
		return execution.Sequential{}.Describe()
	}
	return x.Describe()
}

func (s *Solver) restore(c *checkpoint) error {
	if err := errors.Join(needLen("v", len(c.V), s.d), needLen("gap estimates", len(c.GapEst), s.n), needLen("radii", len(c.RSq), s.n)); err != nil {
		return err
	}
	if err := finiteAll("v", c.V); err != nil {
		return err
	}
	copy(s.x.v, c.V)
	if s.x.box != nil {
		if err := needLen("w", len(c.W), s.d); err != nil {
			return err
		}
		copy(s.x.w, c.W)
	}
	s.ell = c.Ell
	if s.ellI != nil {
		if err := needLen("ell_i", len(c.EllI), s.n); err != nil {
			return err
		}
		copy(s.ellI, c.EllI)
	}
	if s.avg != nil {
		if err := s.restoreAverages(c); err != nil {
			return err
		}
	}
	copy(s.gapEst, c.GapEst)
	s.est = core.EstimateSum{Finite: c.EstFinite, Inf: c.EstInf}
	s.globalGap = c.GlobalGap
	if c.ExactGaps != nil {
		if err := needLen("exact gaps", len(c.ExactGaps), s.n); err != nil {
			return err
		}
		s.exactGaps = append([]float64(nil), c.ExactGaps...)
	}
	s.exactAt = c.ExactAt
	if s.sets != nil {
		if err := needLen("corner sets", len(c.Sets), s.n); err != nil {
			return err
		}
		var dense []float64 // the scratch of the Gram rows
		if s.sets[0].keepGram {
			dense = make([]float64, s.d)
		}
		for i := range s.sets {
			if err := s.sets[i].restore(c.Sets[i], s.p, i, dense); err != nil {
				return fmt.Errorf("solver: load: corrupt checkpoint: corner set of block %d: %w", i, err)
			}
		}
	}
	if s.store != nil {
		if err := s.store.restore(c); err != nil {
			return err
		}
	}
	if s.cfg.Shrinking {
		if err := s.restoreShrinking(c.Shrink); err != nil {
			return err
		}
	}
	if err := s.samp.Restore(c.Perm, c.PermPos, c.Unvisited, s.gapEst); err != nil {
		return fmt.Errorf("solver: load: corrupt checkpoint: %w", err)
	}
	s.pcg = new(rand.PCG)
	if err := s.pcg.UnmarshalBinary(c.RNG); err != nil {
		return fmt.Errorf("solver: load: random state: %w", err)
	}
	s.rng = rand.New(s.pcg)
	if c.Steps < 0 || c.Calls < 0 || c.Hits < 0 || c.Misses < 0 || c.Drops < 0 || c.Elapsed < 0 || c.Evaluating < 0 || c.LastEval < -1 || c.LastEval > c.Steps ||
		c.EvalAt < -1 || c.EvalAt > c.Steps || (c.EvalAt < 0) != (c.LastEval < 0) ||
		c.NextGap < 1 || c.NextTrace < 1 || c.ExactAt < 0 || c.ExactAt > c.Steps {
		return errors.New("solver: load: corrupt checkpoint: counters out of range")
	}
	if err := s.reuse.restore(c); err != nil {
		return err
	}
	s.steps, s.calls, s.hits, s.misses, s.drops = c.Steps, c.Calls, c.Hits, c.Misses, c.Drops
	copy(s.rSq, c.RSq)
	s.loop.Elapsed, s.loop.Evaluating = c.Elapsed, c.Evaluating
	s.trace = c.Trace
	s.loop.NextGap, s.loop.NextTrace, s.loop.LastEval = c.NextGap, c.NextTrace, c.LastEval
	s.evalAt = c.EvalAt
	s.events = c.Events
	for _, v := range c.Delays {
		if v < 0 {
			return errors.New("solver: load: corrupt checkpoint: a negative count of delays")
		}
	}
	s.delays = c.Delays
	if err := s.sched.Restore(c.Queue); err != nil {
		return fmt.Errorf("solver: load: corrupt checkpoint: %w", err)
	}
	return s.alg.restore(c)
}

// restoreAverages restores the average of the steps (of the exact steps for
// multi-plane BCFW, which restores its other average itself).
func (s *Solver) restoreAverages(c *checkpoint) error {
	return restoreAverage(s.avg, &savedAverage{S: c.AvgS, Sync: c.AvgSync, Full: c.AvgFull, K: c.AvgK, Partial: c.AvgPartial, Ell: c.AvgEll}, s.d)
}

// restoreAverage sets a from its saved form, checking it.
func restoreAverage(a *core.Average, sv *savedAverage, d int) error {
	if sv.K < 0 {
		return errors.New("solver: load: corrupt checkpoint: negative average count")
	}
	if err := errors.Join(needLen("average", len(sv.S), d), needLen("average steps", len(sv.Sync), d)); err != nil {
		return err
	}
	if sv.Full < 0 || sv.Full > sv.K {
		return errors.New("solver: load: corrupt checkpoint: average synchronized after its last step")
	}
	for j, t := range sv.Sync {
		if t < 0 || t > sv.K {
			return fmt.Errorf("solver: load: corrupt checkpoint: average of coordinate %d synchronized at step %d of %d", j, t, sv.K)
		}
	}
	if err := finiteAll("average", sv.S); err != nil {
		return err
	}
	a.Ell, a.K, a.Full, a.Partial = sv.Ell, sv.K, sv.Full, sv.Partial
	copy(a.S, sv.S)
	copy(a.At, sv.Sync)
	if !a.Consistent() {
		return fmt.Errorf("solver: load: corrupt checkpoint: %v average synchronized before its round began", a.Kind)
	}
	return nil
}

func finiteAll(name string, x []float64) error {
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("solver: load: corrupt checkpoint: %s[%d] = %v", name, j, v)
		}
	}
	return nil
}

// save returns the saved form of the set.
func (cs *cornerSet) save() savedSet {
	sv := savedSet{Ys: cs.ys, YLens: make([]int32, len(cs.entries)), Alpha: make([]float64, len(cs.entries)), LastUse: make([]int64, len(cs.entries))}
	for k, e := range cs.entries {
		sv.YLens[k], sv.Alpha[k], sv.LastUse[k] = e.yLen, e.alpha, e.lastUse
	}
	return sv
}

// restore rebuilds the set of block i of p from its saved form, checking
// every range: the corners are added again in their order, their psi,
// loss and Gram row computed as add computes them (dense: a zeroed
// scratch of p's dimension when the set keeps its Gram matrix). A
// labeling the problem cannot evaluate (it panics) is an error.
func (cs *cornerSet) restore(sv savedSet, p oracles.Problem, i int, dense []float64) (err error) {
	k := len(sv.YLens)
	if len(sv.Alpha) != k || len(sv.LastUse) != k {
		return fmt.Errorf("%d labelings, %d masses and %d last uses", k, len(sv.Alpha), len(sv.LastUse))
	}
	var end int64
	for c, n := range sv.YLens {
		if n < 0 {
			return fmt.Errorf("corner %d has a labeling of length %d", c, n)
		}
		end += int64(n)
		if a := sv.Alpha[c]; !(a >= 0 && a <= 1+1e-9) {
			return fmt.Errorf("corner %d has mass %v", c, a)
		}
	}
	if end != int64(len(sv.Ys)) {
		return fmt.Errorf("labelings of %d labels in all, %d saved", end, len(sv.Ys))
	}
	c := 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corner %d: the problem cannot evaluate its labeling (%v)", c, r)
		}
	}()
	cs.entries, cs.ys, cs.idx, cs.val, cs.gram = cs.entries[:0], cs.ys[:0], cs.idx[:0], cs.val[:0], cs.gram[:0]
	var psi oracles.SparseVec
	var off int32
	for ; c < k; c++ {
		y := sv.Ys[off : off+sv.YLens[c]]
		off += sv.YLens[c]
		h := oracles.HashLabeling(y)
		if cs.find(y, h) >= 0 {
			return fmt.Errorf("corner %d repeats the labeling of another", c)
		}
		p.Psi(i, y, &psi)
		var row []float64
		if cs.keepGram {
			row = cs.gramRow(&psi, dense, cs.rowBuf[:0])
			cs.rowBuf = row
		}
		cs.addWithRow(y, &psi, p.Loss(i, y), psi.NormSq(), h, sv.LastUse[c], row)
		cs.entries[c].alpha = sv.Alpha[c]
	}
	return nil
}

// checkState checks the invariants a loaded state must satisfy, which a
// gob-valid edit of the checkpoint breaks (Lacoste-Julien et al. 2013,
// App. B.4): every cached corner is the problem's own (its loss and psi
// recomputed), the explicit duals lie on their simplices, v = sum_i v_i and
// ell = sum_i ell_i, and, by an exact oracle pass at the loaded iterate,
// every block gap and the certified gap are nonnegative (the dual does not
// exceed the primal).
func (s *Solver) checkState(c *checkpoint) error {
	if err := s.checkCorners(); err != nil {
		return err
	}
	if s.alg.blocks() {
		if err := s.checkBlockSums(c); err != nil {
			return err
		}
	}
	if s.exact == nil || !s.alg.dual() {
		return nil // no certificate to check
	}
	withBlocks := s.alg.blocks()
	sumH, _, err := s.oraclePass(s.x.w, withBlocks)
	if err != nil {
		return err
	}
	primal := s.lambda/2*floats.Dot(s.x.w, s.x.w) + sumH/float64(s.n)
	if withBlocks {
		for i, g := range s.work.gBlock {
			if core.NegativeGap(g, primal) {
				return fmt.Errorf("block %d has gap %.6g < 0 at the saved iterate: its dual state is not feasible", i, g)
			}
		}
	}
	pt := run.Blank()
	s.alg.certify(&pt, sumH, evalMode{})
	if core.NegativeGap(pt.Gap, primal) {
		return fmt.Errorf("the saved dual %.10g exceeds the primal %.10g at the saved iterate", pt.Dual, primal)
	}
	return nil
}

// checkCorners checks that with explicit duals the masses of every
// block's corners sum to 1 (the corners themselves are the problem's:
// restore computed them from their labelings).
func (s *Solver) checkCorners() error {
	if s.sets == nil || !s.cfg.explicitDuals() {
		return nil
	}
	for i := range s.sets {
		var mass float64
		for _, e := range s.sets[i].entries {
			mass += e.alpha
		}
		if math.Abs(mass-1) > 1e-9 {
			return fmt.Errorf("the dual variables of block %d sum to %v, not 1", i, mass)
		}
	}
	return nil
}

// checkBlockSums checks v = sum_i v_i and ell = sum_i ell_i (within the
// rounding of the incremental updates since the last re-anchoring). Block
// vectors are read from the checkpoint (the stores' accumulate would
// refresh what they maintain and change the trajectory); explicit duals
// (corner sets, class duals) are summed by accumulate, which refreshes only
// ell_i from them: those are compared with the saved ones, then restored.
func (s *Solver) checkBlockSums(c *checkpoint) error {
	sum := make([]float64, s.d)
	switch s.store.kind() {
	case DenseBlocks:
		for i, scale := range c.BlockScale {
			floats.AddScaled(sum, scale, c.BlockU[i*s.d:(i+1)*s.d])
		}
	case SparseBlocks:
		for i := range c.SparseIdx {
			for k, j := range c.SparseIdx[i] {
				sum[j] += c.SparseVal[i][k]
			}
		}
	default:
		saved := slices.Clone(s.ellI)
		s.store.accumulate(sum)
		for i, e := range s.ellI {
			if math.Abs(e-saved[i]) > 1e-6*max(math.Abs(e), 1/float64(s.n)) {
				return fmt.Errorf("ell_%d = %v, but the dual variables of the block give %v", i, saved[i], e)
			}
		}
		copy(s.ellI, saved)
	}
	scale := 1.0
	for j := range sum {
		scale = max(scale, math.Abs(sum[j]), math.Abs(s.x.v[j]))
	}
	for j := range sum {
		if math.Abs(sum[j]-s.x.v[j]) > 1e-6*scale {
			return fmt.Errorf("v[%d] = %v is not the sum of the blocks' %v", j, s.x.v[j], sum[j])
		}
	}
	var ell, abs float64
	for _, e := range s.ellI {
		ell += e
		abs += math.Abs(e)
	}
	if math.Abs(ell-s.ell) > 1e-6*max(1, abs) {
		return fmt.Errorf("ell = %v is not the sum of the blocks' %v", s.ell, ell)
	}
	return nil
}
