package solver

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/internal/fuzzfields"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// fuzzCheckpoints returns checkpoints of every variant (and of a boxed and
// a sparse-storage run) of one small problem, a few passes in.
func fuzzCheckpoints(tb testing.TB) [][]byte {
	tb.Helper()
	p := smallChain(41)
	type seed struct {
		cfg  config
		opts []run.Option
	}
	var seeds []seed
	for _, v := range variants {
		seeds = append(seeds, seed{cfg: v.cfg})
	}
	box := &Box{Lower: make([]float64, p.Dim())}
	seeds = append(seeds,
		seed{cfg: config{Step: Pairwise, Box: box, Averaging: true}},
		seed{cfg: config{Sampling: run.GapSampling, Cache: cacheRule{Enabled: true}, Storage: SparseBlocks}},
	)
	var out [][]byte
	for _, sd := range seeds {
		cfg := sd.cfg
		cfg.Lambda, cfg.Seed, cfg.GapEvery = 0.1, 5, 2
		s, err := newSolver(p, cfg, sd.opts...)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 3}); err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		if err := s.Save(&buf); err != nil {
			tb.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// loadAndRun loads a checkpoint of smallChain(41) and, when Load accepts
// it, runs a little: neither may panic, and a run must end.
func loadAndRun(t *testing.T, data []byte, sparse bool) {
	// The storage is the checkpoint's (part of its method); sparse picks
	// the workers the run is loaded with instead.
	opts := []run.Option{run.WithWorkers(1)}
	if sparse {
		opts = []run.Option{run.WithWorkers(2)}
	}
	s, err := Load(bytes.NewReader(data), smallChain(41), opts...)
	if err != nil {
		return
	}
	ctx := context.Background()
	if _, err := s.Run(ctx, run.Stop{Passes: s.Passes() + 2, Duration: time.Second}); err != nil {
		return
	}
	s.Current()
	s.Weights()
	s.AverageWeights()
}

// FuzzLoad feeds mutated checkpoints to Load: it must return an error or a
// solver whose next short Run (and Current) does not panic.
func FuzzLoad(f *testing.F) {
	for _, c := range fuzzCheckpoints(f) {
		f.Add(c, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, sparse bool) {
		loadAndRun(t, data, sparse)
	})
}

// FuzzLoadFields sets one numeric field (or a slice length) of a decoded
// checkpoint to an arbitrary value, re-encodes it and checks Load as
// FuzzLoad does: byte-level mutations rarely survive the gob decoder, these
// reach every range check of Load (permutation entries, positions, corner
// offsets, counters, lengths).
func FuzzLoadFields(f *testing.F) {
	seeds := fuzzCheckpoints(f)
	for k := range seeds {
		for _, field := range []uint16{0, 7, 40, 200, 1000} {
			f.Add(uint8(k), field, uint64(1<<40), false)
			f.Add(uint8(k), field, uint64(math.Float64bits(math.NaN())), true)
		}
	}
	f.Fuzz(func(t *testing.T, seed uint8, field uint16, val uint64, sparse bool) {
		var c checkpoint
		name, err := core.ReadCheckpoint(bytes.NewReader(seeds[int(seed)%len(seeds)]), "test", &c, func() int { return c.Version }, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		fuzzfields.Set(&c, int(field), val)
		var buf bytes.Buffer
		if err := core.WriteCheckpoint(&buf, "test", name, &c); err != nil {
			return
		}
		loadAndRun(t, buf.Bytes(), sparse)
	})
}
