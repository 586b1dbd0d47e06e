package soft

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/internal/fuzzfields"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// fuzzModel is the model of the fuzz tests' checkpoints.
func fuzzModel(tb testing.TB) *factorgraph.Model { return multiLabel(tb, 4, 3, 2, 8) }

// fuzzCheckpoints returns checkpoints of every sampling of one small
// model, a few passes in (inside an example for example-perm).
func fuzzCheckpoints(tb testing.TB) [][]byte {
	tb.Helper()
	m := fuzzModel(tb)
	var out [][]byte
	for _, samp := range []run.Sampling{run.Uniform, run.Permutation, run.GapSampling, run.ExamplePermutation} {
		s, err := newSolver(m, config{Lambda: 0.1, Rho: 0.7, Sampling: samp, GapEvery: 2, TraceEvery: 0.7, Seed: 3})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Run(context.Background(), run.Stop{Passes: 2.3}); err != nil {
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

// loadAndRun loads a checkpoint of fuzzModel and, when Load accepts it,
// runs a little: neither may panic, and the run must end.
func loadAndRun(t *testing.T, m *factorgraph.Model, data []byte) {
	s, err := load(bytes.NewReader(data), m)
	if err != nil {
		return
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: s.Passes() + 2, Duration: time.Second}); err != nil {
		return
	}
	s.Current()
	s.Weights()
}

// FuzzLoad feeds mutated checkpoints to Load (issue 22, item 14): it must
// return an error or a solver whose next short Run (and Current) does not
// panic.
func FuzzLoad(f *testing.F) {
	for _, c := range fuzzCheckpoints(f) {
		f.Add(c)
	}
	m := fuzzModel(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		loadAndRun(t, m, data)
	})
}

// FuzzLoadFields sets one field (or a slice's length) of a decoded
// checkpoint to an arbitrary value (internal/fuzzfields) and checks Load as
// FuzzLoad does.
func FuzzLoadFields(f *testing.F) {
	seeds := fuzzCheckpoints(f)
	for k := range seeds {
		for _, field := range []uint16{0, 5, 30, 100, 400} {
			f.Add(uint8(k), field, uint64(1<<40))
			f.Add(uint8(k), field, math.Float64bits(math.NaN()))
		}
	}
	m := fuzzModel(f)
	f.Fuzz(func(t *testing.T, seed uint8, field uint16, val uint64) {
		var c checkpoint
		ckName, err := core.ReadCheckpoint(bytes.NewReader(seeds[int(seed)%len(seeds)]), "test", &c, func() int { return c.Version }, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		fuzzfields.Set(&c, int(field), val)
		var buf bytes.Buffer
		if err := core.WriteCheckpoint(&buf, "test", ckName, &c); err != nil {
			return
		}
		loadAndRun(t, m, buf.Bytes())
	})
}
