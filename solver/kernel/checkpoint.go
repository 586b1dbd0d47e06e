package kernel

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// checkpointVersion is the version of the checkpoint struct; a checkpoint
// of another version is refused (made by an older fwstruct: train again).
const checkpointVersion = 4

// checkpoint is the serialized state of a kernelized solver. The problem
// is not saved (Load checks it by fingerprint), nor the wiring (test set,
// progress, workers).
type checkpoint struct {
	Version int
	// Train is the fingerprint of the training problem.
	Train   oracles.Fingerprint
	N, K, F int
	Config  config

	Alpha                 []float64
	SV                    []int32
	Ell                   float64
	AvgS                  []float64
	AvgAt                 []int64
	AvgFull, AvgK         int64
	AvgPartial            bool
	AvgEll                float64
	GapEst                []float64
	EstFinite             float64 // the running sum of the finite entries of GapEst
	EstInf                int     // the number of infinite ones
	ExactGaps             []float64
	ExactAt               int64
	ExactGap              float64
	Perm                  []int32
	PermPos               int
	Unvisited             []int32
	RNG                   []byte
	Steps, Calls          int64
	Elapsed               time.Duration
	Evaluating            time.Duration // the loop's evaluation time
	Trace                 []run.Point
	NextGap, NextTrace    int64
	LastEval              int64
	PendingAt             int64 // batch FW: the pass at the iterate (-1: none)
	PendingCounted        bool
	PendingYStar          []int32
	PendingH, PendingHBar []float64
	PendingWNorm          float64
	PendingEll, PendingTr float64
	PendingActive         float64
	GlobalGap             float64
	Active                *core.ActiveSet // Exact.Shrinking
}

// Save writes the state of the solver so that Load continues the run
// identically.
func (s *Solver) Save(w io.Writer) error {
	c := checkpoint{
		Version: checkpointVersion, Train: oracles.FingerprintOf(s.p, 1), N: s.n, K: s.k, F: s.in.f, Config: s.cfg,
		Alpha: s.alpha, SV: s.sv.list, Ell: s.ell, GapEst: s.gapEst, EstFinite: s.est.Finite, EstInf: s.est.Inf, ExactGaps: s.exactGaps, ExactAt: s.exactAt, ExactGap: s.exactGap,
		Steps: s.steps, Calls: s.calls, Elapsed: s.loop.Elapsed, Evaluating: s.loop.Evaluating, Trace: s.trace,
		NextGap: s.loop.NextGap, NextTrace: s.loop.NextTrace, LastEval: s.loop.LastEval, PendingAt: -1,
	}
	if s.avg != nil {
		c.AvgS, c.AvgAt, c.AvgFull, c.AvgK, c.AvgPartial, c.AvgEll = s.avg.S, s.avg.At, s.avg.Full, s.avg.K, s.avg.Partial, s.avg.Ell
	}
	if p := s.pending; p != nil {
		c.PendingAt, c.PendingCounted, c.PendingYStar, c.PendingH, c.PendingHBar = p.at, p.counted, p.yStar, p.hStar, p.hBar
		c.PendingWNorm, c.PendingEll, c.PendingTr, c.PendingActive = p.wNormSq, p.ell, p.trainErr, p.active
	}
	c.GlobalGap = s.globalGap
	if s.cfg.Shrinking {
		c.Active = &s.active
	}
	c.Perm, c.PermPos, c.Unvisited = s.samp.State()
	var err error
	if c.RNG, err = core.RandomState("kernel", s.pcg); err != nil {
		return err
	}
	return core.WriteCheckpoint(w, "kernel", s.Method().Name(), &c)
}

// Load restores a solver saved by Save for problem p (the problem it was
// saved with); opts wire it. Every field is checked: the dual variables
// must lie on their simplices, the support set must be theirs.
func Load(r io.Reader, p *oracles.Multiclass, opts ...run.Option) (*Solver, error) {
	if p == nil {
		return nil, errors.New("kernel: load: nil problem")
	}
	var c checkpoint
	if _, err := core.ReadCheckpoint(r, "kernel", &c, func() int { return c.Version }, checkpointVersion, checkpointVersion); err != nil {
		return nil, err
	}
	if err := c.Train.Check(oracles.FingerprintOf(p, 1)); err != nil { // cheap: a multiclass oracle at w = 0
		return nil, fmt.Errorf("kernel: load: the checkpoint was taken on other data: this problem has %w", err)
	}
	if c.N != p.Len() || c.K != p.NumClasses() || c.F != p.NumFeatures() {
		return nil, fmt.Errorf("kernel: load: checkpoint of a problem with n=%d, %d classes, %d features, not this one's %d, %d, %d", c.N, c.K, c.F, p.Len(), p.NumClasses(), p.NumFeatures())
	}
	s, err := newSolver(p, c.Config, opts...)
	if err != nil {
		return nil, fmt.Errorf("kernel: load: %w", err)
	}
	if err := s.restore(&c); err != nil {
		return nil, fmt.Errorf("kernel: load: corrupt checkpoint: %w", err)
	}
	if err := s.checkState(); err != nil {
		return nil, fmt.Errorf("kernel: load: corrupt checkpoint: %w", err)
	}
	return s, nil
}

// checkState checks what the dual variables determine and the checkpoint
// also records: ell = b^T alpha = 1/n sum_i (1 - alpha_i(y_i)) (within the
// rounding of the steps' updates), and the pending oracle pass of batch FW,
// which certifies the next gap, recomputed at the loaded iterate.
func (s *Solver) checkState() error {
	var ell float64
	for i := 0; i < s.n; i++ {
		ell += 1 - s.alpha[i*s.k+int(s.in.y[i])]
	}
	ell /= float64(s.n)
	if math.Abs(ell-s.ell) > 1e-9*max(1, ell) {
		return fmt.Errorf("ell = %v, but the dual variables give %v", s.ell, ell)
	}
	p := s.pending
	if p == nil {
		return nil
	}
	e := s.current()
	q := s.oraclePass(&e)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	ok := near(p.wNormSq, q.wNormSq) && near(p.ell, q.ell) && near(p.trainErr, q.trainErr) && near(p.active, q.active)
	for i := 0; ok && i < s.n; i++ {
		ok = p.yStar[i] == q.yStar[i] && near(p.hStar[i], q.hStar[i]) && near(p.hBar[i], q.hBar[i])
	}
	if !ok {
		return errors.New("the pending oracle pass is not the pass at the saved iterate")
	}
	return nil
}

func (s *Solver) restore(c *checkpoint) error {
	n, kk := s.n, s.k
	if len(c.Alpha) != n*kk || len(c.GapEst) != n {
		return fmt.Errorf("%d dual variables and %d gap estimates for n=%d, %d classes", len(c.Alpha), len(c.GapEst), n, kk)
	}
	for i := 0; i < n; i++ {
		var mass float64
		for _, v := range c.Alpha[i*kk : (i+1)*kk] {
			if !(v >= 0 && v <= 1+1e-9) {
				return fmt.Errorf("example %d: dual variable %v outside [0, 1]", i, v)
			}
			mass += v
		}
		if math.Abs(mass-1) > 1e-9 {
			return fmt.Errorf("example %d: dual variables sum to %v, want 1", i, mass)
		}
	}
	copy(s.alpha, c.Alpha)
	for _, j := range c.SV {
		if j < 0 || int(j) >= n || s.sv.pos[j] >= 0 {
			return fmt.Errorf("bad support vector %d", j)
		}
		s.sv.set(int(j), true)
	}
	for i := 0; i < n; i++ {
		if offTruth(s.alpha[i*kk:(i+1)*kk], s.in.y[i]) != (s.sv.pos[i] >= 0) {
			return fmt.Errorf("example %d: support set disagrees with its dual variables", i)
		}
	}
	s.ell = c.Ell
	if s.avg != nil {
		if len(c.AvgS) != n*kk || len(c.AvgAt) != n*kk || c.AvgK < 0 || c.AvgFull < 0 || c.AvgFull > c.AvgK {
			return errors.New("average of the wrong size or counts out of range")
		}
		for _, t := range c.AvgAt {
			if t < 0 || t > c.AvgK {
				return errors.New("average synchronized after its last step")
			}
		}
		copy(s.avg.S, c.AvgS)
		copy(s.avg.At, c.AvgAt)
		s.avg.Full, s.avg.K, s.avg.Partial, s.avg.Ell = c.AvgFull, c.AvgK, c.AvgPartial, c.AvgEll
	}
	copy(s.gapEst, c.GapEst)
	s.est.Reset(s.gapEst)
	// The running sum, as the steps left it; the recomputed one checks it.
	if c.EstInf != s.est.Inf || math.IsNaN(c.EstFinite) || math.Abs(c.EstFinite-s.est.Finite) > 1e-9*max(1, math.Abs(s.est.Finite)) {
		return fmt.Errorf("sum of the gap estimates %v (%d infinite), but the estimates give %v (%d)", c.EstFinite, c.EstInf, s.est.Finite, s.est.Inf)
	}
	s.est = core.EstimateSum{Finite: c.EstFinite, Inf: c.EstInf}
	if c.ExactGaps != nil {
		if len(c.ExactGaps) != n {
			return fmt.Errorf("%d exact block gaps for n=%d", len(c.ExactGaps), n)
		}
		s.exactGaps = append([]float64(nil), c.ExactGaps...)
	}
	if c.Steps < 0 || c.Calls < 0 || c.Elapsed < 0 || c.Evaluating < 0 || c.ExactAt < 0 || c.ExactAt > c.Steps ||
		c.LastEval < -1 || c.LastEval > c.Steps || c.NextGap < 1 || c.NextTrace < 1 {
		return errors.New("counters out of range")
	}
	s.exactAt, s.exactGap = c.ExactAt, c.ExactGap
	if s.cfg.Shrinking {
		if c.Active == nil || c.Active.Validate(n) != nil || math.IsNaN(c.GlobalGap) || c.GlobalGap < 0 {
			return errors.New("active set of shrinking missing or out of range")
		}
		s.active, s.globalGap = *c.Active, c.GlobalGap
	}
	if err := s.samp.Restore(c.Perm, c.PermPos, c.Unvisited, s.gapEst); err != nil {
		return err
	}
	s.pcg = new(rand.PCG)
	if err := s.pcg.UnmarshalBinary(c.RNG); err != nil {
		return fmt.Errorf("random state: %w", err)
	}
	s.rng = rand.New(s.pcg)
	s.steps, s.calls, s.loop.Elapsed, s.loop.Evaluating, s.trace = c.Steps, c.Calls, c.Elapsed, c.Evaluating, c.Trace
	for k := range s.trace { // never computed here; 0 in older checkpoints
		s.trace[k].ForgetMultiPlane()
		s.trace[k].ForgetSoft()
	}
	s.loop.NextGap, s.loop.NextTrace, s.loop.LastEval = c.NextGap, c.NextTrace, c.LastEval
	if c.PendingAt >= 0 {
		if c.PendingAt != c.Steps || len(c.PendingYStar) != n || len(c.PendingH) != n || len(c.PendingHBar) != n {
			return errors.New("pending oracle pass of the wrong size or iterate")
		}
		for _, y := range c.PendingYStar {
			if y < 0 || int(y) >= kk {
				return fmt.Errorf("pending oracle answer %d outside [0, %d)", y, kk)
			}
		}
		s.pending = &pass{at: c.PendingAt, counted: c.PendingCounted, yStar: c.PendingYStar, hStar: c.PendingH, hBar: c.PendingHBar,
			wNormSq: c.PendingWNorm, ell: c.PendingEll, trainErr: c.PendingTr, active: c.PendingActive}
	}
	return nil
}
