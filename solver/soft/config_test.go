package soft

import (
	"math"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

func TestConfigValidation(t *testing.T) {
	m := tinyModel(t, 1, 2, []int{2, 3}, [][]int{{0, 1}}, 2)
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name string
		cfg  config
		want string // substring of the error; empty: valid
	}{
		{"valid", config{Lambda: 0.1, Rho: 1}, ""},
		{"valid with every option", config{Lambda: 0.1, Rho: 1e-3, Sampling: run.GapSampling, GapEvery: inf, TraceEvery: 0.5, Seed: 9}, ""},
		{"rho zero", config{Lambda: 0.1}, "rho"},
		{"rho negative", config{Lambda: 0.1, Rho: -1}, "rho"},
		{"rho NaN", config{Lambda: 0.1, Rho: nan}, "rho"},
		{"rho +Inf", config{Lambda: 0.1, Rho: inf}, "rho"},
		{"rho -Inf", config{Lambda: 0.1, Rho: math.Inf(-1)}, "rho"},
		{"lambda zero", config{Rho: 1}, "lambda"},
		{"lambda NaN", config{Lambda: nan, Rho: 1}, "lambda"},
		{"lambda +Inf", config{Lambda: inf, Rho: 1}, "lambda"},
		{"unknown sampling", config{Lambda: 1, Rho: 1, Sampling: 7}, "sampling"},
		{"negative GapEvery", config{Lambda: 1, Rho: 1, GapEvery: -1}, "GapEvery"},
		{"NaN GapEvery", config{Lambda: 1, Rho: 1, GapEvery: nan}, "GapEvery"},
		{"negative TraceEvery", config{Lambda: 1, Rho: 1, TraceEvery: -1}, "TraceEvery"},
		{"infinite TraceEvery", config{Lambda: 1, Rho: 1, TraceEvery: inf}, "TraceEvery"},
		{"NaN TraceEvery", config{Lambda: 1, Rho: 1, TraceEvery: nan}, "TraceEvery"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newSolver(m, tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid config refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("%+v accepted", tc.cfg)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not name %s", err, tc.want)
			}
		})
	}
	if _, err := newSolver(nil, config{Lambda: 1, Rho: 1}); err == nil {
		t.Fatal("nil model accepted")
	}
	if _, err := newSolver(m, config{Lambda: 1, Rho: 1}, run.WithWorkers(-1)); err == nil {
		t.Fatal("negative workers accepted")
	}
	other := tinyModel(t, 1, 2, []int{2, 2}, nil, 1)
	if _, err := newSolver(m, config{Lambda: 1, Rho: 1}, run.WithTest(oneView(t, other))); err == nil {
		t.Fatal("test problem of another dimension accepted")
	}
}
