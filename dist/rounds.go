package dist

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/run"
	"github.com/fwstruct/fwstruct/tune"
)

// TaskRound is the task of one partition's round of a data-parallel BCFW
// run (Rounds): the partition's blocks' gaps at the round's w, then its
// local passes against it, its change returned and its dual state stored
// under the run's state location.
const TaskRound = "round"

func init() { registerTask(TaskRound, roundTask) }

// Rounds configures a data-parallel BCFW run: CoCoA with BCFW as its local
// solver (dissolve-struct), the K partitions' changes combined by adding
// (CoCoA+) or averaging (Ma, Smith, Jaggi et al. 2015).
//
// The state of a round is v, the untruncated sum of the block vectors, and
// ell (solver.Partition); the model's weights are w = [v], v truncated to
// the box (the method's Box intersected with the problem's own bounds, as
// the horses' graph cuts need; w = v without a box).
type Rounds struct {
	// Method is BCFW's method (its Lambda, Sampling, Step, Cache, Storage,
	// Box and Seed; see solver.NewPartition).
	Method solver.BCFW `json:"method"`
	// Data is the dataset, loaded by this program (for n and d) and by the
	// workers from the same paths.
	Data datasets.Spec `json:"data"`
	// K is the number of partitions (1 <= K <= n), Passes the local
	// passes H of a partition a round (>= 1), Combine how their changes
	// are combined.
	K       int            `json:"k"`
	Passes  float64        `json:"passes"`
	Combine solver.Combine `json:"combine"`
	// Seed seeds the assignment of the examples to the partitions (the
	// held-out sets of tune.Folds with K folds; K = 1: every example).
	Seed uint64 `json:"seed"`
	// Workers is the number of goroutines of each partition's solver on
	// its worker (0: one per CPU).
	Workers int `json:"workers,omitempty"`
	// State is the location of the run's state (a directory, or a gs://
	// prefix): the partitions' dual state and the combined v of every
	// round. Every worker and this program must reach it.
	State string `json:"-"`
	// GapEvery is the number of rounds between two certified gaps (0 or
	// 1: every round); the last round's is always computed.
	GapEvery int `json:"-"`
	// MaxRounds and Gap stop the run: after MaxRounds rounds in all, or
	// once a certified gap is at most Gap (0: not used); one must be set.
	MaxRounds int     `json:"-"`
	Gap       float64 `json:"-"`
	// Resume continues the run whose state is at State from its last
	// complete round (its settings must be these); without it, State must
	// hold no run.
	Resume bool `json:"-"`
}

// RoundPoint is one round of a data-parallel run, at the combined state
// after it (its weights w = [v]).
type RoundPoint struct {
	// Round counts the rounds (1 is the first); Passes is the partitions'
	// oracle calls of their steps so far over n, OracleCalls those calls,
	// and GapCalls the oracle calls of the certified gaps so far.
	Round       int     `json:"round"`
	Passes      float64 `json:"passes"`
	OracleCalls int64   `json:"oracle_calls"`
	GapCalls    int64   `json:"gap_calls"`
	// Primal, Dual and Gap are the objectives at w and its certified
	// duality gap, the sum of every block's gap at w (NaN, absent in
	// JSON, when this round's gap was not computed; Dual is always).
	Primal, Dual, Gap float64 `json:"-"`
	// Seconds is the wall time of the round (its pipeline, the combine
	// and the writes of v); Local the longest partition's time in its
	// steps, LocalSum their sum, GapSeconds the longest partition's time in
	// the certified gap, Combine the combine's and Broadcast the longest
	// partition's time reading v and its state and writing its state.
	Seconds, Local, LocalSum, GapSeconds, Combine, Broadcast float64 `json:"-"`
}

// jsonRoundPoint is RoundPoint in JSON: a value not computed is absent.
type jsonRoundPoint struct {
	Round       int      `json:"round"`
	Passes      float64  `json:"passes"`
	OracleCalls int64    `json:"oracle_calls"`
	GapCalls    int64    `json:"gap_calls"`
	Primal      *float64 `json:"primal,omitempty"`
	Dual        *float64 `json:"dual,omitempty"`
	Gap         *float64 `json:"gap,omitempty"`
	Seconds     float64  `json:"seconds"`
	Local       float64  `json:"local_seconds"`
	LocalSum    float64  `json:"local_seconds_sum"`
	GapSeconds  float64  `json:"gap_seconds"`
	Combine     float64  `json:"combine_seconds"`
	Broadcast   float64  `json:"broadcast_seconds"`
}

// MarshalJSON writes the point, a value not computed absent.
func (p RoundPoint) MarshalJSON() ([]byte, error) {
	opt := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(jsonRoundPoint{p.Round, p.Passes, p.OracleCalls, p.GapCalls, opt(p.Primal), opt(p.Dual), opt(p.Gap),
		p.Seconds, p.Local, p.LocalSum, p.GapSeconds, p.Combine, p.Broadcast})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *RoundPoint) UnmarshalJSON(b []byte) error {
	var j jsonRoundPoint
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	val := func(q *float64) float64 {
		if q == nil {
			return math.NaN()
		}
		return *q
	}
	*p = RoundPoint{j.Round, j.Passes, j.OracleCalls, j.GapCalls, val(j.Primal), val(j.Dual), val(j.Gap),
		j.Seconds, j.Local, j.LocalSum, j.GapSeconds, j.Combine, j.Broadcast}
	return nil
}

// RoundsResult is the outcome of RunRounds.
type RoundsResult struct {
	// Trace holds every round of the run (those before a resume too), the
	// last one's gap certified.
	Trace []RoundPoint
	// W is the model's weights after the last round, w = [v] (the
	// combined v truncated to the box; v itself without one), N and D the
	// size and dimension of the training problem.
	W    []float64
	N, D int
	// Status says why the run stopped: "gap" (a certified gap reached
	// Rounds.Gap) or "rounds" (Rounds.MaxRounds).
	Status string
	// From is the round the run continued from (0: from the start).
	From int
}

// roundSpec is the input of a round unit.
type roundSpec struct {
	// Run is the run's id, State its state location, Config its settings.
	Run    string `json:"run"`
	State  string `json:"state"`
	Config Rounds `json:"config"`
	// Part is the partition; Round the round the unit makes, from the v of
	// Round-1; Gap asks for the gaps at its w = [v] first; Steps for the
	// round's passes (without: the gaps alone, the final certification).
	Part  int  `json:"part"`
	Round int  `json:"round"`
	Gap   bool `json:"gap"`
	Steps bool `json:"steps"`
}

// roundOut is the output of a round unit; floats travel as their bits.
type roundOut struct {
	Round, Part int
	// Gap and SumH (bits) are the partition's gap sum and sum of H_i at
	// the w = [v] of Round-1 when asked.
	HasGap    bool
	Gap, SumH uint64
	// Delta is the change of v (indices and values, little-endian), View
	// the local v of the only partition (K = 1).
	DeltaIdx []byte
	DeltaVal []byte
	View     []byte
	Ell      uint64
	// OracleCalls and Steps are the partition's counters after the round.
	OracleCalls, Steps int64
	// Local, GapSeconds and IO are the unit's times: its steps, its gaps,
	// reading and writing the state.
	Local, GapSeconds, IO float64
}

// RunRounds runs a data-parallel BCFW run on r: every round one pipeline
// of K units, one a partition (TaskRound), then the changes combined into
// the round's v (K = 1: the partition's own v, exactly), which is written
// under cfg.State for the next round's units to read. The certified gap of
// a round is computed at its w = [v] by the next round's units (each
// partition's blocks' exact gaps, before its steps), every cfg.GapEvery
// rounds; the last round's by one more pipeline of gaps alone. A round is
// complete when its v and its record are written: a killed run continues
// from its last complete round with cfg.Resume, a failed unit fails the
// round, and a round's outputs are checked to be the round's (its number
// in every output and every state file).
func RunRounds(ctx context.Context, r Runner, cfg Rounds) (*RoundsResult, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	d, err := loadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	n, dim := d.Train.Len(), d.Train.Dim()
	if cfg.K > n {
		return nil, fmt.Errorf("%d partitions of %d examples: want at most one an example", cfg.K, n)
	}
	// The model's weights and the dual at the combined state (v, ell).
	weights := func(v []float64, ell float64) ([]float64, float64, error) {
		return solver.RoundWeights(d.Train, cfg.Method, v, ell)
	}
	if _, _, err := weights(make([]float64, dim), 0); err != nil {
		return nil, err // the box: before any pipeline
	}
	st, err := openState(ctx, cfg.State)
	if err != nil {
		return nil, err
	}
	defer st.fs.Close()
	res := &RoundsResult{N: n, D: dim}
	runID, v, err := st.begin(ctx, cfg, res)
	if err != nil {
		return nil, err
	}
	w, _, err := weights(v, 0)
	if err != nil {
		return nil, err
	}
	defer func() { res.W = slices.Clone(w) }()
	gapEvery := max(cfg.GapEvery, 1)
	var gapCalls int64
	if len(res.Trace) > 0 {
		gapCalls = res.Trace[len(res.Trace)-1].GapCalls
	}
	res.Status = "rounds"
	if k := len(res.Trace); k > 0 && cfg.Gap > 0 && res.Trace[k-1].Gap <= cfg.Gap {
		res.Status = "gap" // a resumed run that reached its gap
		return res, nil
	}
	for round := res.From; ; {
		final := cfg.MaxRounds > 0 && round >= cfg.MaxRounds
		gap := round > 0 && (final || round%gapEvery == 0) && math.IsNaN(res.Trace[len(res.Trace)-1].Gap)
		if final && !gap {
			break // the last round's gap is known
		}
		start := time.Now()
		outs, err := runRound(ctx, r, runID, cfg, round+1, gap, !final)
		if err != nil {
			return nil, err
		}
		if gap {
			pt := &res.Trace[len(res.Trace)-1]
			var g, h float64
			for _, o := range outs {
				g += math.Float64frombits(o.Gap)
				h += math.Float64frombits(o.SumH)
				pt.GapSeconds = max(pt.GapSeconds, o.GapSeconds)
			}
			gapCalls += int64(n)
			pt.Gap, pt.Primal, pt.GapCalls = g, cfg.Method.Lambda/2*floats.Dot(w, w)+h/float64(n), gapCalls
			if cfg.Gap > 0 && g <= cfg.Gap {
				// The result is this round's w: the steps of the next
				// round are dropped (a resumed run makes them again from
				// this round's state).
				res.Status, final = "gap", true
			}
		}
		if final {
			if err := st.writeRecord(ctx, round, res.Trace); err != nil {
				return nil, err
			}
			break
		}
		round++
		t := time.Now()
		pt := RoundPoint{Round: round, Primal: math.NaN(), Gap: math.NaN(), GapCalls: gapCalls}
		ell, err := combine(cfg, v, outs)
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", round, err)
		}
		if w, pt.Dual, err = weights(v, ell); err != nil {
			return nil, fmt.Errorf("round %d: %w", round, err)
		}
		calls := int64(0)
		for _, o := range outs {
			calls += o.OracleCalls
			pt.Local = max(pt.Local, o.Local)
			pt.LocalSum += o.Local
			pt.Broadcast = max(pt.Broadcast, o.IO)
		}
		pt.OracleCalls, pt.Passes = calls, float64(calls)/float64(n)
		pt.Combine = time.Since(t).Seconds()
		if err := st.writeV(ctx, round, v, ell); err != nil {
			return nil, err
		}
		pt.Seconds = time.Since(start).Seconds()
		res.Trace = append(res.Trace, pt)
		if err := st.writeRecord(ctx, round, res.Trace); err != nil {
			return nil, err
		}
		st.forget(ctx, round-2)
	}
	return res, nil
}

// check checks the settings.
func (c Rounds) check() error {
	switch {
	case c.K < 1:
		return fmt.Errorf("%d partitions: want at least 1", c.K)
	case !(c.Passes >= 1) || math.IsInf(c.Passes, 0):
		return fmt.Errorf("%v local passes a round: want at least 1", c.Passes)
	case c.MaxRounds <= 0 && !(c.Gap > 0):
		return errors.New("no stop: give a number of rounds or a gap")
	case c.State == "":
		return errors.New("no state location: the partitions' state and the rounds' v need a location every worker reaches")
	case c.Combine != solver.Adding && c.Combine != solver.Averaging:
		return fmt.Errorf("combine %v", c.Combine)
	}
	return nil
}

// runRound runs the K units of a round and returns their outputs in the
// order of the partitions, checked to be that round's.
func runRound(ctx context.Context, r Runner, runID string, cfg Rounds, round int, gap, steps bool) ([]roundOut, error) {
	units := make([]Unit, cfg.K)
	for k := range cfg.K {
		b, err := json.Marshal(roundSpec{Run: runID, State: cfg.State, Config: cfg, Part: k, Round: round, Gap: gap, Steps: steps})
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("round=%d/part=%d", round, k)
		if !steps {
			key = fmt.Sprintf("gaps=%d/part=%d", round-1, k)
		}
		units[k] = Unit{Task: TaskRound, Key: key, Spec: b}
	}
	outs, err := r.Run(ctx, units)
	if err != nil {
		return nil, fmt.Errorf("round %d: %w", round, err)
	}
	if err := errUnits(outs); err != nil {
		return nil, fmt.Errorf("round %d: %w", round, err)
	}
	res := make([]roundOut, len(outs))
	for k, o := range outs {
		if err := json.Unmarshal(o.Body, &res[k]); err != nil {
			return nil, fmt.Errorf("round %d: unit %q: its result: %w", round, o.Key, err)
		}
		if res[k].Round != round || res[k].Part != k {
			return nil, fmt.Errorf("round %d: unit %q gave the output of round %d, partition %d", round, o.Key, res[k].Round, res[k].Part)
		}
	}
	return res, nil
}

// combine sets v to the round's combined v, v + the sum of the changes (the
// partitions' changes hold gamma already), or with one partition its own
// v, and returns ell.
func combine(cfg Rounds, v []float64, outs []roundOut) (ell float64, err error) {
	for _, o := range outs {
		ell += math.Float64frombits(o.Ell)
		if cfg.K == 1 {
			view, err := decodeFloats(o.View)
			if err != nil || len(view) != len(v) {
				return 0, fmt.Errorf("partition 0: a v of %d weights, want %d (%v)", len(view), len(v), err)
			}
			copy(v, view)
			continue
		}
		val, err := decodeFloats(o.DeltaVal)
		if err != nil || 2*len(o.DeltaIdx) != len(o.DeltaVal) {
			return 0, fmt.Errorf("partition %d: a corrupt change", o.Part)
		}
		for k, x := range val {
			j := int(binary.LittleEndian.Uint32(o.DeltaIdx[4*k:]))
			if j >= len(v) {
				return 0, fmt.Errorf("partition %d: a change at %d of %d weights", o.Part, j, len(v))
			}
			v[j] += x
		}
	}
	return ell, nil
}

func encodeFloats(x []float64) []byte {
	b := make([]byte, 8*len(x))
	for k, v := range x {
		binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(v))
	}
	return b
}

func decodeFloats(b []byte) ([]float64, error) {
	if len(b)%8 != 0 {
		return nil, errors.New("not a vector of floats")
	}
	x := make([]float64, len(b)/8)
	for k := range x {
		x[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
	}
	return x, nil
}

// roundTask is a partition's round on a worker.
func roundTask(ctx context.Context, b []byte) ([]byte, error) {
	var spec roundSpec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("the unit: %w", err)
	}
	cfg := spec.Config
	d, err := loadData(cfg.Data)
	if err != nil {
		return nil, err
	}
	p := d.Train
	st, err := openState(ctx, spec.State)
	if err != nil {
		return nil, err
	}
	defer st.fs.Close()
	out := roundOut{Round: spec.Round, Part: spec.Part}
	t := time.Now()
	q := partitions.take(spec.Run, spec.Part, spec.Round-1)
	if q == nil {
		if q, err = st.partition(ctx, spec, p); err != nil {
			return nil, err
		}
	}
	v := make([]float64, p.Dim())
	if spec.Round > 1 {
		if v, _, err = st.readV(ctx, spec.Round-1, p.Dim()); err != nil {
			return nil, err
		}
	}
	out.IO = time.Since(t).Seconds()
	if spec.Gap {
		t := time.Now()
		_, g, h, err := q.GapsAt(v)
		if err != nil {
			return nil, err
		}
		out.HasGap, out.Gap, out.SumH, out.GapSeconds = true, math.Float64bits(g), math.Float64bits(h), time.Since(t).Seconds()
	}
	if !spec.Steps {
		partitions.put(spec.Run, spec.Part, spec.Round-1, q)
		return json.Marshal(out)
	}
	t = time.Now()
	c, err := q.Round(ctx, v, cfg.Passes)
	if err != nil {
		return nil, err
	}
	out.Local = time.Since(t).Seconds()
	out.Ell, out.OracleCalls, out.Steps = math.Float64bits(c.Ell), c.OracleCalls, c.Steps
	if c.View != nil {
		out.View = encodeFloats(c.View)
	} else {
		out.DeltaIdx = make([]byte, 4*len(c.Delta.Idx))
		for k, j := range c.Delta.Idx {
			binary.LittleEndian.PutUint32(out.DeltaIdx[4*k:], uint32(j))
		}
		out.DeltaVal = encodeFloats(c.Delta.Val)
	}
	t = time.Now()
	if err := st.writePartition(ctx, spec, q); err != nil {
		return nil, err
	}
	out.IO += time.Since(t).Seconds()
	partitions.put(spec.Run, spec.Part, spec.Round, q)
	return json.Marshal(out)
}

// blocksOf returns the examples of partition k of cfg on n examples.
func blocksOf(cfg Rounds, n, k int) ([]int, error) {
	if cfg.K == 1 {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all, nil
	}
	folds, err := tune.Folds(n, tune.Config{Folds: cfg.K, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	return folds[k].Held, nil
}

// partitions holds the partitions this process ran, so that the next round
// of a partition on the same worker continues it without reading its state.
// A partition is taken out while its round runs and put back at its new
// round only when the round succeeded: a retried round reads the state of
// the last complete one.
var partitions partitionCache

type partitionCache struct {
	sync.Mutex
	run  string
	byID map[int]cachedPartition
}

type cachedPartition struct {
	round int
	q     *solver.Partition
}

func (c *partitionCache) take(run string, part, round int) *solver.Partition {
	c.Lock()
	defer c.Unlock()
	e, ok := c.byID[part]
	if !ok || c.run != run || e.round != round {
		return nil
	}
	delete(c.byID, part)
	return e.q
}

func (c *partitionCache) put(run string, part, round int, q *solver.Partition) {
	c.Lock()
	defer c.Unlock()
	if c.run != run || c.byID == nil {
		c.run, c.byID = run, map[int]cachedPartition{} // one run's partitions at a time
	}
	c.byID[part] = cachedPartition{round, q}
}

// state is a run's state location: run.json (its format, the run's id and
// settings), and for every complete round r its combined v
// (rNNNNNN-v.bin), its record (the
// trace, rNNNNNN-trace.json) and the partitions' dual state
// (rNNNNNN-partKKK.state); latest.json names the last complete round.
type state struct {
	fs   filesystem.Interface
	base string
}

func openState(ctx context.Context, base string) (*state, error) {
	fs, err := filesystem.New(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("the state location %s: %w", base, err)
	}
	return &state{fs: fs, base: strings.TrimSuffix(base, "/")}, nil
}

func (s *state) path(name string) string { return s.base + "/" + name }

func roundName(r int, what string) string { return fmt.Sprintf("r%06d-%s", r, what) }

// stateFormat is the format of a run's state location: 2 stores the
// rounds' v (the untruncated sum of the block vectors), 1 (no format in
// run.json) stored their w.
const stateFormat = 2

// manifest is run.json.
type manifest struct {
	Run    string `json:"run"`
	Config Rounds `json:"config"`
	Format int    `json:"format"`
}

// begin starts the run (a new id and run.json) or, with cfg.Resume,
// continues it from its last complete round: res gets its trace and From.
// It returns the run's id and the combined v of that round (zero from the
// start).
func (s *state) begin(ctx context.Context, cfg Rounds, res *RoundsResult) (string, []float64, error) {
	b, rerr := s.read(ctx, "run.json")
	v := make([]float64, res.D)
	if !cfg.Resume {
		if rerr == nil {
			return "", nil, fmt.Errorf("the state location %s holds a run already: --resume to continue it, or another location", s.base)
		}
		var id [8]byte
		if _, err := rand.Read(id[:]); err != nil {
			return "", nil, err
		}
		m, err := json.Marshal(manifest{hex.EncodeToString(id[:]), cfg, stateFormat})
		if err != nil {
			return "", nil, err
		}
		if err := s.write(ctx, "run.json", m); err != nil {
			return "", nil, fmt.Errorf("the state location %s cannot be written: %w", s.base, err)
		}
		return hex.EncodeToString(id[:]), v, nil
	}
	if rerr != nil {
		return "", nil, fmt.Errorf("nothing to resume at %s: %w", s.base, rerr)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return "", nil, fmt.Errorf("%s: %w", s.path("run.json"), err)
	}
	if m.Format != stateFormat {
		return "", nil, fmt.Errorf("the run at %s was made by an older fwstruct (state format %d, this one reads %d): start it again at another location", s.base, max(m.Format, 1), stateFormat)
	}
	want, _ := json.Marshal(cfg)
	got, _ := json.Marshal(m.Config)
	if !bytes.Equal(want, got) {
		return "", nil, fmt.Errorf("the run at %s was made with other settings: %s", s.base, got)
	}
	lb, err := s.read(ctx, "latest.json")
	if err != nil {
		return m.Run, v, nil // no round complete: from the start
	}
	var latest struct{ Round int }
	if err := json.Unmarshal(lb, &latest); err != nil {
		return "", nil, fmt.Errorf("%s: %w", s.path("latest.json"), err)
	}
	tb, err := s.read(ctx, roundName(latest.Round, "trace.json"))
	if err != nil {
		return "", nil, err
	}
	if err := json.Unmarshal(tb, &res.Trace); err != nil || len(res.Trace) != latest.Round {
		return "", nil, fmt.Errorf("the record of round %d at %s is corrupt (%v)", latest.Round, s.base, err)
	}
	if v, _, err = s.readV(ctx, latest.Round, res.D); err != nil {
		return "", nil, err
	}
	res.From = latest.Round
	return m.Run, v, nil
}

func (s *state) read(ctx context.Context, name string) ([]byte, error) {
	r, err := s.fs.OpenRead(ctx, s.path(name))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func (s *state) write(ctx context.Context, name string, b []byte) error {
	w, err := s.fs.OpenWrite(ctx, s.path(name))
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// writeRecord writes the trace of round r, then names r the last complete
// round.
func (s *state) writeRecord(ctx context.Context, r int, trace []RoundPoint) error {
	b, err := json.Marshal(trace)
	if err != nil {
		return err
	}
	if err := s.write(ctx, roundName(r, "trace.json"), b); err != nil {
		return fmt.Errorf("the record of round %d: %w", r, err)
	}
	if err := s.write(ctx, "latest.json", fmt.Appendf(nil, `{"round": %d}`, r)); err != nil {
		return fmt.Errorf("the record of round %d: %w", r, err)
	}
	return nil
}

// vMagic starts a file of v.
const vMagic = "fwstruct-v\n"

// writeV writes the combined v and ell of round r: the magic, r, d, ell and
// v as little-endian bits, then their CRC-32.
func (s *state) writeV(ctx context.Context, r int, v []float64, ell float64) error {
	var b bytes.Buffer
	b.WriteString(vMagic)
	binary.Write(&b, binary.LittleEndian, [3]uint64{uint64(r), uint64(len(v)), math.Float64bits(ell)})
	b.Write(encodeFloats(v))
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	if err := s.write(ctx, roundName(r, "v.bin"), b.Bytes()); err != nil {
		return fmt.Errorf("writing the v of round %d: %w", r, err)
	}
	return nil
}

// readV reads the v of round r, checking its round and dimension.
func (s *state) readV(ctx context.Context, r, d int) ([]float64, float64, error) {
	name := roundName(r, "v.bin")
	b, err := s.read(ctx, name)
	if err != nil {
		return nil, 0, fmt.Errorf("the v of round %d: %w", r, err)
	}
	head := len(vMagic) + 24
	if len(b) != head+8*d+4 || string(b[:len(vMagic)]) != vMagic ||
		crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, 0, fmt.Errorf("%s is not the v of %d weights it should be (corrupt or of another run)", s.path(name), d)
	}
	var h [3]uint64
	binary.Read(bytes.NewReader(b[len(vMagic):head]), binary.LittleEndian, &h)
	if int(h[0]) != r || int(h[1]) != d {
		return nil, 0, fmt.Errorf("%s holds the v of round %d (%d weights), not of round %d", s.path(name), h[0], h[1], r)
	}
	v, err := decodeFloats(b[head : len(b)-4])
	return v, math.Float64frombits(h[2]), err
}

// partHeader starts a partition's state file.
type partHeader struct {
	Run         string `json:"run"`
	Round, Part int
}

// writePartition writes the state of a partition after its round.
func (s *state) writePartition(ctx context.Context, spec roundSpec, q *solver.Partition) error {
	var b bytes.Buffer
	h, _ := json.Marshal(partHeader{spec.Run, spec.Round, spec.Part})
	b.Write(h)
	b.WriteByte('\n')
	if err := q.Save(&b); err != nil {
		return fmt.Errorf("partition %d, round %d: %w", spec.Part, spec.Round, err)
	}
	if err := s.write(ctx, roundName(spec.Round, fmt.Sprintf("part%03d.state", spec.Part)), b.Bytes()); err != nil {
		return fmt.Errorf("writing the state of partition %d, round %d: %w", spec.Part, spec.Round, err)
	}
	return nil
}

// partition returns the partition of spec at the end of round spec.Round-1:
// new before the first round, else read from the state.
func (s *state) partition(ctx context.Context, spec roundSpec, p oracles.Problem) (*solver.Partition, error) {
	cfg := spec.Config
	if spec.Round == 1 {
		blocks, err := blocksOf(cfg, p.Len(), spec.Part)
		if err != nil {
			return nil, err
		}
		return solver.NewPartition(p, blocks, cfg.K, cfg.Method, cfg.Combine, run.WithWorkers(cfg.Workers))
	}
	r := spec.Round - 1
	name := roundName(r, fmt.Sprintf("part%03d.state", spec.Part))
	f, err := s.fs.OpenRead(ctx, s.path(name))
	if err != nil {
		return nil, fmt.Errorf("the state of partition %d, round %d: %w", spec.Part, r, err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	line, err := br.ReadBytes('\n')
	var h partHeader
	if err != nil || json.Unmarshal(line, &h) != nil {
		return nil, fmt.Errorf("%s is not a partition's state", s.path(name))
	}
	if h.Run != spec.Run || h.Round != r || h.Part != spec.Part {
		return nil, fmt.Errorf("%s holds partition %d of round %d of run %s, not partition %d of round %d of run %s",
			s.path(name), h.Part, h.Round, h.Run, spec.Part, r, spec.Run)
	}
	q, err := solver.LoadPartition(br, p, run.WithWorkers(cfg.Workers))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path(name), err)
	}
	return q, nil
}

// forget removes the files of round r (rounds before the last complete one
// are never read again), when the file system can.
func (s *state) forget(ctx context.Context, r int) {
	rm, ok := s.fs.(filesystem.Remover)
	if r < 1 || !ok {
		return
	}
	names, _ := s.fs.List(ctx, s.path(roundName(r, "*")))
	for _, name := range names {
		rm.Remove(ctx, name)
	}
}
