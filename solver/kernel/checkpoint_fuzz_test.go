package kernel

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/internal/fuzzfields"
	"github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
	"github.com/fwstruct/fwstruct/solver/internal/core"
	"github.com/fwstruct/fwstruct/solver/run"
)

// fuzzProblem is the problem of the fuzz tests' checkpoints.
func fuzzProblem() *oracles.Multiclass { return oraclestest.Multiclass(12, 3, 4, 6) }

// fuzzCheckpoints returns checkpoints of the variants of the kernelized
// solver (bcfw under each sampling, batch FW, averaging) on one small
// problem, a few passes in.
func fuzzCheckpoints(tb testing.TB) [][]byte {
	tb.Helper()
	p := fuzzProblem()
	var out [][]byte
	for _, cfg := range []config{
		{Kernel: Kernel{Kind: RBF, Gamma: 0.5}},
		{Kernel: Kernel{Kind: RBF, Gamma: 0.5}, Sampling: run.GapSampling, Averaging: true},
		{Kernel: Kernel{Kind: Poly, Gamma: 1, Degree: 2, Coef0: 1}, Sampling: run.Permutation},
		{Kernel: Kernel{Kind: Linear}, Algorithm: run.FW, Averaging: true},
	} {
		cfg.Lambda, cfg.GapEvery, cfg.Seed = 0.1, 2, 4
		s, err := newSolver(p, cfg)
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

// loadAndRun loads a checkpoint of fuzzProblem and, when Load accepts it,
// runs a little: neither may panic, and the run must end.
func loadAndRun(t *testing.T, p *oracles.Multiclass, data []byte) {
	s, err := Load(bytes.NewReader(data), p)
	if err != nil {
		return
	}
	if _, err := s.Run(context.Background(), run.Stop{Passes: s.Passes() + 2, Duration: time.Second}); err != nil {
		return
	}
	s.Current()
	s.Model()
}

// FuzzLoad feeds mutated checkpoints to Load (issue 22, item 14): it must
// return an error or a solver whose next short Run (and Current, Model)
// does not panic.
func FuzzLoad(f *testing.F) {
	for _, c := range fuzzCheckpoints(f) {
		f.Add(c)
	}
	p := fuzzProblem()
	f.Fuzz(func(t *testing.T, data []byte) {
		loadAndRun(t, p, data)
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
	p := fuzzProblem()
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
		loadAndRun(t, p, buf.Bytes())
	})
}

// TestLoadChecksInvariants: gob-valid edits that keep the checksum valid
// but contradict the dual variables are refused: ell, the running sum of
// the gap estimates, and the pending oracle pass of batch FW that
// certifies the next gap.
func TestLoadChecksInvariants(t *testing.T) {
	p := fuzzProblem()
	pending := 0
	for k, saved := range fuzzCheckpoints(t) {
		edits := []struct {
			want string
			edit func(c *checkpoint) bool
		}{
			{"ell =", func(c *checkpoint) bool { c.Ell += 0.05; return true }},
			{"sum of the gap estimates", func(c *checkpoint) bool { c.EstFinite += 0.05; return true }},
			{"sum of the gap estimates", func(c *checkpoint) bool { c.EstInf++; return true }},
			{"pending oracle pass", func(c *checkpoint) bool {
				if c.PendingAt < 0 {
					return false
				}
				pending++
				c.PendingH[1] += 0.5
				return true
			}},
		}
		for _, tc := range edits {
			var c checkpoint
			ckName, err := core.ReadCheckpoint(bytes.NewReader(saved), "test", &c, func() int { return c.Version }, 0, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.edit(&c) {
				continue
			}
			var out bytes.Buffer
			if err := core.WriteCheckpoint(&out, "test", ckName, &c); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(&out, p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("checkpoint %d: Load returned %v, want an error about %q", k, err, tc.want)
			}
		}
	}
	if pending == 0 {
		t.Error("no checkpoint with a pending pass")
	}
}
